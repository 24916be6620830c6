/* SPDX-License-Identifier: BSD-3-Clause */
/* queue.list, queue.pin, queue.unpin, queue.balance. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "api/registry.h"
#include "datapath/stats.h"
#include "datapath/worker.h"
#include "model/network.h"
#include "model/queue.h"
#include "model/state.h"

static double pct(uint64_t cycles)
{
	double all = queue_window_s() * (double)rte_get_tsc_hz();

	return all > 0 ? 100.0 * (double)cycles / all : 0;
}

static cJSON *queue_json(const struct port *p, uint16_t q)
{
	cJSON *o = cJSON_CreateObject();
	struct queue_counters c;

	stats_queue_sum(p->dp.idx, q, &c);
	cJSON_AddStringToObject(o, API_F_PORT, p->conf.name);
	cJSON_AddNumberToObject(o, API_F_QUEUE, q);
	cJSON_AddNumberToObject(o, API_F_WORKER, workers[p->rxq[q].worker]->cpu);
	cJSON_AddBoolToObject(o, API_F_ENABLED, (queue_enabled(p) >> q) & 1);
	cJSON_AddBoolToObject(o, API_R_PINNED, p->rxq[q].pinned);
	cJSON_AddBoolToObject(o, API_R_FIXED, p->rxq_fixed);
	cJSON_AddNumberToObject(o, API_R_RX_PACKETS, (double)queue_packets(p, q));
	cJSON_AddNumberToObject(o, API_R_BUSY_CYCLES, (double)queue_load(p, q));
	cJSON_AddNumberToObject(o, API_R_BUSY_PCT, pct(queue_load(p, q)));
	cJSON_AddNumberToObject(o, API_R_RX_TOTAL, (double)c.rx_packets);
	cJSON_AddNumberToObject(o, API_R_BUSY_TOTAL, (double)c.rx_cycles);
	cJSON_AddNumberToObject(o, API_R_TX_TOTAL, (double)c.tx_packets);
	return o;
}

static cJSON *h_queue_list(const cJSON *params, struct api_err *err)
{
	const char *name = api_get_str(params, API_F_PORT, NULL);
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, API_R_QUEUES), *ws;
	uint64_t load[PW_MAX_WORKERS] = {0};
	unsigned int nq[PW_MAX_WORKERS] = {0};
	struct port *p;

	if (name != NULL && port_find(name) == NULL) {
		cJSON_Delete(o);
		return api_fail(
		    err, API_ERR_NOT_FOUND, API_F_PORT,
		    "port \"%s\" does not exist; `podwirectl port list` shows the ports", name);
	}
	TAILQ_FOREACH (p, &port_all, next) {
		uint16_t on = queue_enabled(p);

		for (uint16_t q = 0; q < p->dp.n_rxq; q++) {
			if (on & (1u << q)) {
				load[p->rxq[q].worker] += queue_load(p, q);
				nq[p->rxq[q].worker]++;
			}
			if (name == NULL || strcmp(name, p->conf.name) == 0)
				cJSON_AddItemToArray(a, queue_json(p, q));
		}
	}
	ws = cJSON_AddArrayToObject(o, API_R_WORKERS);
	for (unsigned int w = 0; w < n_workers; w++) {
		cJSON *wo = cJSON_CreateObject();

		cJSON_AddNumberToObject(wo, API_R_LCORE, workers[w]->cpu);
		cJSON_AddNumberToObject(wo, API_R_QUEUES, nq[w]);
		cJSON_AddNumberToObject(wo, API_R_BUSY_PCT, pct(load[w]));
		cJSON_AddItemToArray(ws, wo);
	}
	cJSON_AddNumberToObject(o, API_R_WINDOW, queue_window_s());
	return o;
}

/* api_fail for a function that returns a port. */
static struct port *__rte_format_printf(4, 5)
    queue_refused(struct api_err *err, int code, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->code = code;
	err->field = field;
	return NULL;
}

/* The port and queue a pin or unpin names; NULL with err filled. */
static struct port *need_queue(const cJSON *params, uint16_t *q, struct api_err *err)
{
	const char *name = api_get_str(params, API_F_PORT, "");
	struct port *p = port_find(name);

	if (p == NULL)
		return queue_refused(
		    err, API_ERR_NOT_FOUND, API_F_PORT,
		    "port \"%s\" does not exist; `podwirectl port list` shows the ports", name);
	*q = (uint16_t)api_get_int(params, API_F_QUEUE, 0);
	if (*q >= p->dp.n_rxq)
		return queue_refused(
		    err, API_ERR_INVALID_PARAMS, API_F_QUEUE,
		    "port \"%s\" has %u rx queue(s), 0-%u; `podwirectl queue list %s` "
		    "shows them",
		    name, p->dp.n_rxq, p->dp.n_rxq - 1U, name);
	if (p->rxq_fixed)
		return queue_refused(err, API_ERR_INVALID_PARAMS, API_F_PORT,
				     "port \"%s\" is an uplink: its queues stay with its device's "
				     "worker, with the device's other ports; pin another port",
				     name);
	return p;
}

static cJSON *pin_result(const struct port *p, uint16_t q)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, API_F_PORT, p->conf.name);
	cJSON_AddNumberToObject(o, API_F_QUEUE, q);
	cJSON_AddNumberToObject(o, API_F_WORKER, workers[p->rxq[q].worker]->cpu);
	return o;
}

/* Saves the state, or undoes the pin change (to worker was, pinned or
 * not as before) and fails. */
static bool save_or_undo(struct port *p, uint16_t q, uint8_t was, bool was_pinned,
			 uint16_t was_conf, struct api_err *err)
{
	char smsg[512];

	if (state_save(smsg, sizeof(smsg)) == 0)
		return true;
	queue_pin(p, q, was);
	p->rxq[q].pinned = was_pinned;
	p->conf.rxq_pin[q] = was_conf;
	api_fail(err, API_ERR_INTERNAL, NULL, "%s", smsg);
	return false;
}

static cJSON *h_queue_pin(const cJSON *params, struct api_err *err)
{
	uint16_t q;
	struct port *p = need_queue(params, &q, err);
	long core = api_get_int(params, API_F_WORKER, -1);
	uint8_t was;
	bool was_pinned;
	uint16_t was_conf;
	int w = -1;

	if (p == NULL)
		return NULL;
	for (unsigned int i = 0; i < n_workers; i++)
		if ((long)workers[i]->cpu == core)
			w = (int)i;
	if (w < 0)
		return api_fail(err, API_ERR_INVALID_PARAMS, API_F_WORKER,
				"core %ld runs no worker; `podwirectl info` lists the worker cores",
				core);
	was = p->rxq[q].worker;
	was_pinned = p->rxq[q].pinned;
	was_conf = p->conf.rxq_pin[q];
	if (queue_pin(p, q, w) != 0)
		return api_fail(err, API_ERR_RESOURCE, NULL,
				"port \"%s\" queue %u: out of memory publishing the datapath; "
				"nothing changed",
				p->conf.name, q);
	if (!save_or_undo(p, q, was, was_pinned, was_conf, err))
		return NULL;
	return pin_result(p, q);
}

static cJSON *h_queue_unpin(const cJSON *params, struct api_err *err)
{
	uint16_t q;
	struct port *p = need_queue(params, &q, err);
	bool was_pinned;
	uint16_t was_conf;

	if (p == NULL)
		return NULL;
	was_pinned = p->rxq[q].pinned;
	was_conf = p->conf.rxq_pin[q];
	queue_pin(p, q, -1);
	if (!save_or_undo(p, q, p->rxq[q].worker, was_pinned, was_conf, err))
		return NULL;
	return pin_result(p, q);
}

static cJSON *h_queue_balance(const cJSON *params, struct api_err *err)
{
	const cJSON *on = cJSON_GetObjectItemCaseSensitive(params, API_F_ENABLED);
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(params, API_F_RUN);
	uint32_t interval =
	    (uint32_t)api_get_int(params, API_F_INTERVAL, queue_balance_cfg.interval_s);
	cJSON *o = cJSON_CreateObject();
	bool moved = false;

	(void)err;
	if (on != NULL)
		queue_balance_cfg.on = cJSON_IsTrue(on);
	queue_balance_cfg.threshold_pct =
	    (uint32_t)api_get_int(params, API_F_THRESHOLD, queue_balance_cfg.threshold_pct);
	queue_balance_cfg.improvement_pct =
	    (uint32_t)api_get_int(params, API_F_IMPROVEMENT, queue_balance_cfg.improvement_pct);
	if (interval != queue_balance_cfg.interval_s) {
		queue_balance_cfg.interval_s = interval;
		queue_balance_restart();
	}
	if (run != NULL && cJSON_IsTrue(run))
		moved = queue_balance_now();
	cJSON_AddBoolToObject(o, API_F_ENABLED, queue_balance_cfg.on);
	cJSON_AddNumberToObject(o, API_F_INTERVAL, queue_balance_cfg.interval_s);
	cJSON_AddNumberToObject(o, API_F_THRESHOLD, queue_balance_cfg.threshold_pct);
	cJSON_AddNumberToObject(o, API_F_IMPROVEMENT, queue_balance_cfg.improvement_pct);
	cJSON_AddNumberToObject(o, API_R_CHECKS, (double)queue_balance_last.checks);
	cJSON_AddNumberToObject(o, API_R_MOVES, (double)queue_balance_last.moves);
	cJSON_AddNumberToObject(o, API_R_LAST_MOVED, (double)queue_balance_last.last_moved);
	cJSON_AddStringToObject(o, API_R_LAST, queue_balance_last.last);
	if (run != NULL)
		cJSON_AddBoolToObject(o, API_R_MOVED, moved);
	return o;
}

API_HANDLER(QUEUE_LIST, h_queue_list);
API_HANDLER(QUEUE_PIN, h_queue_pin);
API_HANDLER(QUEUE_UNPIN, h_queue_unpin);
API_HANDLER(QUEUE_BALANCE, h_queue_balance);
