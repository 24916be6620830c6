/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "datapath/stats.h"

const char *const drop_names[DROP_MAX] = {
#define DROP_NAME(id, name) [DROP_##id] = name,
    DROP_REASONS(DROP_NAME)
#undef DROP_NAME
};

struct port_counters *stats_ports[PW_MAX_WORKERS];
struct worker_counters stats_workers[PW_MAX_WORKERS];
struct queue_counters *stats_queues[PW_MAX_WORKERS];
static struct port_counters baseline[PW_MAX_PORTS];
static struct worker_counters worker_baseline[PW_MAX_WORKERS];
static unsigned int nw;

int stats_init(unsigned int n)
{
	nw = n;
	for (unsigned int w = 0; w < n; w++) {
		stats_ports[w] = rte_zmalloc(
		    "pw_stats", PW_MAX_PORTS * sizeof(struct port_counters), RTE_CACHE_LINE_SIZE);
		stats_queues[w] = rte_zmalloc("pw_stats_q",
					      (size_t)PW_MAX_PORTS * PW_MAX_QUEUES *
						  sizeof(struct queue_counters),
					      RTE_CACHE_LINE_SIZE);
		if (stats_ports[w] == NULL || stats_queues[w] == NULL)
			return -ENOMEM;
	}
	return 0;
}

void stats_fini(void)
{
	for (unsigned int w = 0; w < nw; w++) {
		rte_free(stats_ports[w]);
		stats_ports[w] = NULL;
		rte_free(stats_queues[w]);
		stats_queues[w] = NULL;
	}
	nw = 0;
}

unsigned int stats_worker_count(void)
{
	return nw;
}

void stats_reset_port(uint16_t idx)
{
	for (unsigned int w = 0; w < nw; w++) {
		memset(&stats_ports[w][idx], 0, sizeof(struct port_counters));
		memset(stats_queue(w, idx, 0), 0, PW_MAX_QUEUES * sizeof(struct queue_counters));
	}
	memset(&baseline[idx], 0, sizeof(baseline[idx]));
}

static void sum_raw(uint16_t idx, struct port_counters *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int w = 0; w < nw; w++) {
		/* Torn reads are impossible for aligned 64-bit loads on the
		 * platforms DPDK supports; a counter may be one burst behind. */
		const volatile struct port_counters *c = &stats_ports[w][idx];

		out->rx_packets += c->rx_packets;
		out->rx_bytes += c->rx_bytes;
		out->tx_packets += c->tx_packets;
		out->tx_bytes += c->tx_bytes;
		for (int d = 0; d < DROP_MAX; d++)
			out->drops[d] += c->drops[d];
		out->learn_limit += c->learn_limit;
		out->tx_retries += c->tx_retries;
	}
}

void stats_port_sum(uint16_t idx, struct port_counters *out)
{
	const struct port_counters *b = &baseline[idx];

	sum_raw(idx, out);
	out->rx_packets -= b->rx_packets;
	out->rx_bytes -= b->rx_bytes;
	out->tx_packets -= b->tx_packets;
	out->tx_bytes -= b->tx_bytes;
	for (int d = 0; d < DROP_MAX; d++)
		out->drops[d] -= b->drops[d];
	out->learn_limit -= b->learn_limit;
	out->tx_retries -= b->tx_retries;
}

void stats_clear_port(uint16_t idx)
{
	sum_raw(idx, &baseline[idx]);
}

void stats_queue_sum(uint16_t idx, uint16_t q, struct queue_counters *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int w = 0; w < nw; w++) {
		const volatile struct queue_counters *c = stats_queue(w, idx, q);

		out->rx_packets += c->rx_packets;
		out->rx_cycles += c->rx_cycles;
		out->tx_packets += c->tx_packets;
	}
}

void stats_worker_get(unsigned int w, struct worker_counters *out)
{
	const volatile struct worker_counters *c = &stats_workers[w];

	out->busy_cycles = c->busy_cycles - worker_baseline[w].busy_cycles;
	out->idle_cycles = c->idle_cycles - worker_baseline[w].idle_cycles;
	out->loops = c->loops - worker_baseline[w].loops;
	out->sleeps = c->sleeps - worker_baseline[w].sleeps;
	out->sleep_us = c->sleep_us - worker_baseline[w].sleep_us;
}

void stats_clear_workers(void)
{
	for (unsigned int w = 0; w < nw; w++) {
		worker_baseline[w].busy_cycles = stats_workers[w].busy_cycles;
		worker_baseline[w].idle_cycles = stats_workers[w].idle_cycles;
		worker_baseline[w].loops = stats_workers[w].loops;
		worker_baseline[w].sleeps = stats_workers[w].sleeps;
		worker_baseline[w].sleep_us = stats_workers[w].sleep_us;
	}
}
