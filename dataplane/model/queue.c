/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "core/config.h"
#include "core/log.h"
#include "datapath/stats.h"
#include "datapath/worker.h"
#include "model/publish.h"
#include "model/queue.h"

PW_LOG_TYPE("queue");

struct queue_balance queue_balance_cfg = {
    .on = false, .interval_s = 60, .threshold_pct = 70, .improvement_pct = 25};
struct queue_balance_result queue_balance_last;

/* The chunk being filled (the same for every queue), when it ends, how
 * many chunks have been filled so far (loads cover those), and when the
 * balancer next looks. */
static unsigned int chunk;
static unsigned int chunks_filled;
static double chunk_end, next_check;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double chunk_s(void)
{
	return (double)queue_balance_cfg.interval_s / PORT_RXQ_CHUNKS;
}

uint16_t queue_enabled(const struct port *p)
{
	uint16_t all = (uint16_t)((1u << p->dp.n_rxq) - 1);

	return __atomic_load_n(&p->dp.rxq_on, __ATOMIC_ACQUIRE) & all;
}

uint64_t queue_load(const struct port *p, uint16_t q)
{
	uint64_t sum = 0;

	for (unsigned int c = 0; c < PORT_RXQ_CHUNKS; c++)
		sum += p->rxq[q].cycles[c];
	return sum;
}

uint64_t queue_packets(const struct port *p, uint16_t q)
{
	uint64_t sum = 0;

	for (unsigned int c = 0; c < PORT_RXQ_CHUNKS; c++)
		sum += p->rxq[q].packets[c];
	return sum;
}

double queue_window_s(void)
{
	return chunk_s() * RTE_MIN(chunks_filled, (unsigned int)PORT_RXQ_CHUNKS);
}

/* Cycles a worker has in the window: what loads are shares of. */
static double window_cycles(void)
{
	return queue_window_s() * (double)rte_get_tsc_hz();
}

/* Each worker's load (the sum of its enabled queues') and queue count,
 * skipping p (NULL: none). The count, which breaks ties between equal
 * loads, takes the queues a port is expected to use (its "queues") even
 * before its pod enables them: ports made before their pods connect are
 * then spread over the workers, not all put on the first. */
static void worker_loads(const struct port *skip, uint64_t *load, unsigned int *nq)
{
	const struct port *p;

	memset(load, 0, n_workers * sizeof(*load));
	memset(nq, 0, n_workers * sizeof(*nq));
	TAILQ_FOREACH (p, &port_all, next) {
		uint16_t on = queue_enabled(p);

		if (p == skip)
			continue;
		for (uint16_t q = 0; q < p->dp.n_rxq; q++) {
			bool enabled = (on & (1u << q)) != 0;

			if (p->rxq[q].worker >= n_workers)
				continue;
			if (enabled)
				load[p->rxq[q].worker] += queue_load(p, q);
			if (enabled || q < RTE_MAX(p->conf.queues, (uint8_t)1))
				nq[p->rxq[q].worker]++;
		}
	}
}

/* The worker index running on core, or -1. */
static int worker_of_core(unsigned int core)
{
	for (unsigned int w = 0; w < n_workers; w++)
		if (workers[w]->cpu == core)
			return (int)w;
	return -1;
}

void queue_place_port(struct port *p)
{
	uint64_t load[PW_MAX_WORKERS];
	unsigned int nq[PW_MAX_WORKERS], order[PW_MAX_WORKERS], k = 0;

	worker_loads(p, load, nq);
	/* Workers from the least loaded (then the fewest queues): a new
	 * port's queues go one to each, from the first. */
	for (unsigned int w = 0; w < n_workers; w++)
		order[w] = w;
	for (unsigned int i = 1; i < n_workers; i++)
		for (unsigned int j = i; j > 0; j--) {
			unsigned int a = order[j - 1], b = order[j];

			if (load[b] < load[a] || (load[b] == load[a] && nq[b] < nq[a])) {
				order[j - 1] = b;
				order[j] = a;
			}
		}
	for (uint16_t q = 0; q < p->dp.n_rxq; q++) {
		struct port_rxq *r = &p->rxq[q];
		int pinned = p->conf.rxq_pin[q] != 0 ? worker_of_core(p->conf.rxq_pin[q] - 1U) : -1;

		memset(r, 0, sizeof(*r));
		if (pinned >= 0) {
			r->worker = (uint8_t)pinned;
			r->pinned = true;
			continue;
		}
		if (p->conf.rxq_pin[q] != 0)
			PORT_LOG(p, WARNING,
				 "queue %u was pinned on core %u, which runs no worker now; the "
				 "queue goes where the load is lowest",
				 q, p->conf.rxq_pin[q] - 1U);
		r->worker = (uint8_t)order[k++ % n_workers];
	}
}

/* Publishes the view the model now describes; false (and nothing
 * published) when memory is short. */
static bool republish(void)
{
	struct view *v = model_view_build(NULL);

	if (v == NULL)
		return false;
	view_publish(v);
	return true;
}

/*
 * Moves n queues (port p[i], queue q[i]) to workers to[i]. A queue is
 * never polled by two workers at once: the old worker may be inside a
 * burst of it (frames read, not yet given back) until it passes a
 * quiescent point. So first a view where nobody polls the moving queues
 * is published (view_publish returns after the grace period: no worker
 * holds the old view any more), then one with them on their new
 * workers. false when the first view cannot be built (nothing moved);
 * if the second cannot, the queues stay unpolled only until the next
 * housekeeping tick, which builds the view again.
 */
static bool move_queues(struct port *const *p, const uint16_t *q, const uint8_t *to, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i]->rxq[q[i]].moving = true;
	if (!republish()) {
		for (unsigned int i = 0; i < n; i++)
			p[i]->rxq[q[i]].moving = false;
		return false;
	}
	for (unsigned int i = 0; i < n; i++) {
		p[i]->rxq[q[i]].worker = to[i];
		p[i]->rxq[q[i]].moving = false;
	}
	if (!republish())
		LOG(WARNING, "out of memory publishing %u moved queue(s); trying again", n);
	return true;
}

int queue_pin(struct port *p, uint16_t q, int w)
{
	struct port_rxq *r = &p->rxq[q];
	uint8_t to = (uint8_t)w;

	if (w < 0) {
		r->pinned = false;
		p->conf.rxq_pin[q] = 0;
		return 0;
	}
	if (r->worker != to && !move_queues(&p, &q, &to, 1))
		return -ENOMEM;
	r->pinned = true;
	p->conf.rxq_pin[q] = (uint16_t)(workers[w]->cpu + 1);
	return 0;
}

/* ---- the balancer ------------------------------------------------------------ */

struct movable {
	struct port *p;
	uint16_t q;
	uint8_t to;
	uint64_t load;
};

static int by_load_desc(const void *a, const void *b)
{
	const struct movable *x = a, *y = b;

	return x->load < y->load ? 1 : x->load > y->load ? -1 : 0;
}

static void span(const uint64_t *load, uint64_t *hi, uint64_t *lo, unsigned int *busiest)
{
	*hi = 0;
	*lo = UINT64_MAX;
	*busiest = 0;
	for (unsigned int w = 0; w < n_workers; w++) {
		if (load[w] > *hi) {
			*hi = load[w];
			*busiest = w;
		}
		*lo = RTE_MIN(*lo, load[w]);
	}
}

static void loads_text(const uint64_t *load, double cycles, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int w = 0; w < n_workers && off < len; w++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u:%.0f%%", w ? " " : "",
					workers[w]->cpu, cycles > 0 ? 100.0 * load[w] / cycles : 0);
}

bool queue_balance_now(void)
{
	uint64_t cur[PW_MAX_WORKERS] = {0}, next[PW_MAX_WORKERS] = {0}, hi, lo, nhi, nlo;
	unsigned int nq[PW_MAX_WORKERS] = {0}, busiest, n = 0, moved = 0;
	double cycles = window_cycles();
	struct movable *m;
	char before[256], after[256];
	struct port *p;

	queue_balance_last.checks++;
	if (n_workers < 2) {
		snprintf(queue_balance_last.last, sizeof(queue_balance_last.last),
			 "nothing to balance: %u worker", n_workers);
		return false;
	}
	if (cycles <= 0) {
		snprintf(queue_balance_last.last, sizeof(queue_balance_last.last),
			 "no load measured yet: loads come in sixths of the interval (%u s)",
			 queue_balance_cfg.interval_s);
		return false;
	}
	m = calloc((size_t)port_count() * PW_MAX_QUEUES + 1, sizeof(*m));
	if (m == NULL)
		return false;
	/* What cannot move counts where it is; the rest is placed again,
	 * heaviest first, each on the least loaded worker. */
	TAILQ_FOREACH (p, &port_all, next) {
		uint16_t on = queue_enabled(p);

		for (uint16_t q = 0; q < p->dp.n_rxq; q++) {
			uint64_t l = queue_load(p, q);
			uint8_t w = p->rxq[q].worker;

			if (!(on & (1u << q)) || w >= n_workers)
				continue;
			cur[w] += l;
			if (p->rxq_fixed || p->rxq[q].pinned) {
				next[w] += l;
				nq[w]++;
			} else {
				m[n++] = (struct movable){.p = p, .q = q, .load = l};
			}
		}
	}
	span(cur, &hi, &lo, &busiest);
	loads_text(cur, cycles, before, sizeof(before));
	if (hi < cycles * queue_balance_cfg.threshold_pct / 100.0) {
		snprintf(queue_balance_last.last, sizeof(queue_balance_last.last),
			 "no move: the busiest worker (core %u) is below %u%% busy (%s)",
			 workers[busiest]->cpu, queue_balance_cfg.threshold_pct, before);
		free(m);
		return false;
	}
	qsort(m, n, sizeof(*m), by_load_desc);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int best = 0;

		for (unsigned int w = 1; w < n_workers; w++)
			if (next[w] < next[best] || (next[w] == next[best] && nq[w] < nq[best]))
				best = w;
		m[i].to = (uint8_t)best;
		next[best] += m[i].load;
		nq[best]++;
	}
	span(next, &nhi, &nlo, &busiest);
	loads_text(next, cycles, after, sizeof(after));
	if (hi - lo == 0 || (double)((hi - lo) - RTE_MIN(nhi - nlo, hi - lo)) * 100.0 <
				(double)queue_balance_cfg.improvement_pct * (double)(hi - lo)) {
		snprintf(queue_balance_last.last, sizeof(queue_balance_last.last),
			 "no move: a new placement (%s) would not narrow the gap of now (%s) by "
			 "%u%%",
			 after, before, queue_balance_cfg.improvement_pct);
		free(m);
		return false;
	}
	{
		struct port **mp = calloc(n + 1, sizeof(*mp));
		uint16_t *mq = calloc(n + 1, sizeof(*mq));
		uint8_t *mto = calloc(n + 1, sizeof(*mto));
		bool ok = mp != NULL && mq != NULL && mto != NULL;

		for (unsigned int i = 0; ok && i < n; i++)
			if (m[i].p->rxq[m[i].q].worker != m[i].to) {
				mp[moved] = m[i].p;
				mq[moved] = m[i].q;
				mto[moved++] = m[i].to;
			}
		if (ok && moved != 0)
			ok = move_queues(mp, mq, mto, moved);
		free(mp);
		free(mq);
		free(mto);
		if (!ok) {
			snprintf(queue_balance_last.last, sizeof(queue_balance_last.last),
				 "no move: out of memory for the new view");
			free(m);
			return false;
		}
	}
	free(m);
	if (moved == 0) {
		snprintf(queue_balance_last.last, sizeof(queue_balance_last.last),
			 "no move: the queues are already where a new placement puts them (%s)",
			 before);
		return false;
	}
	queue_balance_last.moves++;
	queue_balance_last.last_moved = moved;
	snprintf(queue_balance_last.last, sizeof(queue_balance_last.last),
		 "moved %u rx queue(s): worker loads (core:busy) %s before, %s expected after",
		 moved, before, after);
	LOG(NOTICE, "rebalance: %s", queue_balance_last.last);
	return true;
}

/* ---- housekeeping ------------------------------------------------------------ */

/* Ends the chunk: each queue's cycles and frames since it began. */
static void roll_chunk(void)
{
	struct port *p;

	TAILQ_FOREACH (p, &port_all, next)
		for (uint16_t q = 0; q < p->dp.n_rxq; q++) {
			struct port_rxq *r = &p->rxq[q];
			struct queue_counters c;

			stats_queue_sum(p->dp.idx, q, &c);
			r->cycles[chunk] = c.rx_cycles - r->seen_cycles;
			r->packets[chunk] = c.rx_packets - r->seen_packets;
			r->seen_cycles = c.rx_cycles;
			r->seen_packets = c.rx_packets;
		}
	chunk = (chunk + 1) % PORT_RXQ_CHUNKS;
	if (chunks_filled < PORT_RXQ_CHUNKS)
		chunks_filled++;
}

void queue_tick(void)
{
	double now = now_s();
	bool changed = false;
	struct port *p;

	/* A kind enabled or disabled queues (a guest's vring state, a memif
	 * peer's rings): poll exactly those. */
	TAILQ_FOREACH (p, &port_all, next)
		if (queue_enabled(p) != p->rxq_published)
			changed = true;
	if (changed && !republish())
		LOG(WARNING, "out of memory publishing the queues pods enabled; trying again");
	if (chunk_end == 0) {
		chunk_end = now + chunk_s();
		next_check = now + queue_balance_cfg.interval_s;
		return;
	}
	if (now < chunk_end)
		return;
	roll_chunk();
	chunk_end = now + chunk_s();
	if (now >= next_check) {
		next_check = now + queue_balance_cfg.interval_s;
		if (queue_balance_cfg.on)
			queue_balance_now();
	}
}

/* The interval changed: the chunks start again at the new length. */
void queue_balance_restart(void)
{
	struct port *p;

	TAILQ_FOREACH (p, &port_all, next)
		for (uint16_t q = 0; q < p->dp.n_rxq; q++) {
			memset(p->rxq[q].cycles, 0, sizeof(p->rxq[q].cycles));
			memset(p->rxq[q].packets, 0, sizeof(p->rxq[q].packets));
		}
	chunks_filled = 0;
	chunk = 0;
	chunk_end = 0;
}
