/* SPDX-License-Identifier: BSD-3-Clause */
/* stats.get and stats.clear: the workers' counters, summed per port, and
 * the kernel's drops on the way in. */
#include "api/registry.h"
#include "core/module.h"
#include "core/notify.h"
#include "datapath/forward.h"
#include "datapath/stats.h"
#include "datapath/worker.h"
#include "model/json.h"
#include "model/port_stats.h"

/* Kernel drops when stats.clear last cleared the port, by port index
 * (0: never cleared). */
static uint64_t kernel_drops_base[PW_MAX_PORTS];

bool port_kernel_drops(struct port *p, uint64_t *out)
{
	if (p->ops->kernel_drops == NULL)
		return false;
	*out = p->ops->kernel_drops(p) - kernel_drops_base[p->dp.idx];
	return true;
}

/* The next port with this index starts from nothing. */
static void forget_base(const void *arg, void *ctx)
{
	const struct port *p = arg;

	RTE_SET_USED(ctx);
	kernel_drops_base[p->dp.idx] = 0;
}

cJSON *port_stats_json(const struct port *p)
{
	cJSON *o = cJSON_CreateObject(), *d;
	struct port_counters c;
	uint64_t kd;

	stats_port_sum(p->dp.idx, &c);
	cJSON_AddStringToObject(o, API_F_NAME, p->conf.name);
	cJSON_AddNumberToObject(o, API_R_RX_PACKETS, (double)c.rx_packets);
	cJSON_AddNumberToObject(o, API_R_RX_BYTES, (double)c.rx_bytes);
	cJSON_AddNumberToObject(o, API_R_TX_PACKETS, (double)c.tx_packets);
	cJSON_AddNumberToObject(o, API_R_TX_BYTES, (double)c.tx_bytes);
	d = cJSON_AddObjectToObject(o, API_R_DROPS);
	for (int r = 0; r < DROP_MAX; r++)
		cJSON_AddNumberToObject(d, drop_names[r], (double)c.drops[r]);
	/* Only where the kind reads through a kernel socket: a 0 would claim
	 * a count nobody can take (vhost-user, memif). The hook reads the
	 * kernel, not the port: a port shown is one it may read. */
	if (port_kernel_drops((struct port *)(uintptr_t)p, &kd))
		cJSON_AddNumberToObject(o, API_R_KERNEL_DROPS, (double)kd);
	cJSON_AddNumberToObject(o, API_R_LEARN_LIMIT, (double)c.learn_limit);
	cJSON_AddNumberToObject(o, API_F_TX_RETRIES, (double)c.tx_retries);
	cJSON_AddNumberToObject(o, API_R_MACS_LEARNED, mac_table_port_count(l2_macs, p->dp.idx));
	return o;
}

cJSON *workers_json(bool with_ports)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned int w = 0; w < n_workers; w++) {
		cJSON *o = cJSON_CreateObject(), *ports;
		struct worker_counters c;
		struct port *p;

		stats_worker_get(w, &c);
		cJSON_AddNumberToObject(o, API_R_BUSY_CYCLES, (double)c.busy_cycles);
		cJSON_AddNumberToObject(o, API_R_IDLE_CYCLES, (double)c.idle_cycles);
		cJSON_AddNumberToObject(o, API_R_LCORE, workers[w]->cpu);
		cJSON_AddNumberToObject(o, API_R_SLEEPS, (double)c.sleeps);
		cJSON_AddNumberToObject(o, API_R_SLEEP_US, (double)c.sleep_us);
		if (with_ports) {
			/* Ports with a queue this worker polls. */
			ports = cJSON_AddArrayToObject(o, API_R_PORTS);
			TAILQ_FOREACH (p, &port_all, next) {
				bool polls = false;

				for (uint16_t q = 0; q < p->dp.n_rxq; q++)
					polls |= p->rxq[q].worker == w;
				if (polls)
					cJSON_AddItemToArray(ports,
							     cJSON_CreateString(p->conf.name));
			}
		}
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static struct port *need_port(const cJSON *params, struct api_err *err, bool *all)
{
	const char *name = api_get_str(params, API_F_PORT, NULL);
	struct port *p;

	*all = name == NULL;
	if (name == NULL)
		return NULL;
	p = port_find(name);
	if (p == NULL)
		api_fail(err, API_ERR_NOT_FOUND, API_F_PORT,
			 "port \"%s\" does not exist; `podwirectl port list` shows the ports",
			 name);
	return p;
}

static cJSON *h_stats_get(const cJSON *params, struct api_err *err)
{
	bool all;
	struct port *one = need_port(params, err, &all), *p;
	cJSON *o, *a;

	if (!all && one == NULL)
		return NULL;
	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, API_R_PORTS);
	TAILQ_FOREACH (p, &port_all, next)
		if (all || p == one)
			cJSON_AddItemToArray(a, port_stats_json(p));
	cJSON_AddItemToObject(o, API_R_WORKERS, workers_json(true));
	return o;
}

static cJSON *h_stats_clear(const cJSON *params, struct api_err *err)
{
	bool all;
	struct port *one = need_port(params, err, &all), *p;
	cJSON *o;
	int n = 0;

	if (!all && one == NULL)
		return NULL;
	TAILQ_FOREACH (p, &port_all, next)
		if (all || p == one) {
			uint64_t kd;

			stats_clear_port(p->dp.idx);
			if (port_kernel_drops(p, &kd))
				kernel_drops_base[p->dp.idx] += kd;
			n++;
		}
	if (all)
		stats_clear_workers();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, API_R_CLEARED, n);
	return o;
}

API_HANDLER(STATS_GET, h_stats_get)
API_HANDLER(STATS_CLEAR, h_stats_clear)

static int kernel_drops_init(void)
{
	return notify_subscribe(NOTIFY_PORT_DELETED, forget_base, NULL);
}

static void kernel_drops_fini(void)
{
	notify_unsubscribe(NOTIFY_PORT_DELETED, forget_base, NULL);
}

PW_MODULE(port_stats, kernel_drops_init, kernel_drops_fini);
