/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trace.add, trace.show, trace.clear: the path of the next N frames, as
 * VPP's `trace add` and OVS's ofproto/trace tell it. The workers record
 * (datapath/trace.c); this file switches the ports' trace bit on and,
 * once the frames are recorded, off again, and reads the records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "acl/acl.h"
#include "api/registry.h"
#include "core/loop.h"
#include "core/log.h"
#include "datapath/observe.h"
#include "datapath/worker.h"
#include "model/network.h"

PW_LOG_TYPE("trace");

static int tfd = -1;
static struct loop_watch *watch;
static uint64_t start_tsc;

/* Frames still to record, never below 0 (workers may overshoot it). */
static int32_t quota_left(void)
{
	int32_t q = __atomic_load_n(&trace_quota, __ATOMIC_ACQUIRE);

	return q > 0 ? q : 0;
}

static void ports_trace(bool on, const struct port *only)
{
	struct port *p;

	TAILQ_FOREACH (p, &port_all, next) {
		uint8_t bits = p->dp.observe;

		if (only != NULL && p != only)
			continue;
		bits = on ? (uint8_t)(bits | DP_OBS_TRACE) : (uint8_t)(bits & ~DP_OBS_TRACE);
		__atomic_store_n(&p->dp.observe, bits, __ATOMIC_RELEASE);
	}
}

static void timer_stop(void)
{
	loop_watch_del(watch);
	watch = NULL;
	if (tfd >= 0)
		close(tfd);
	tfd = -1;
}

/* Every 100 ms while a trace runs: once its frames are recorded, the
 * ports stop paying for it. */
static void on_tick(void *arg, uint32_t events)
{
	uint64_t n;

	RTE_SET_USED(arg);
	RTE_SET_USED(events);
	if (read(tfd, &n, sizeof(n)) < 0)
		return;
	if (quota_left() != 0)
		return;
	ports_trace(false, NULL);
	timer_stop();
}

static int timer_start(void)
{
	struct itimerspec its = {.it_interval = {0, 100000000}, .it_value = {0, 100000000}};

	if (watch != NULL)
		return 0;
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) != 0 ||
	    (watch = loop_watch_add(tfd, EPOLLIN, on_tick, NULL)) == NULL) {
		timer_stop();
		return -errno;
	}
	return 0;
}

static cJSON *h_trace_add(const cJSON *params, struct api_err *err)
{
	long count = api_get_int(params, API_F_COUNT, 0);
	const char *name = api_get_str(params, API_F_PORT, NULL);
	struct port *one = NULL, *p;
	cJSON *o, *a;

	/* count is required and in 1-API_TRACE_MAX: api_check_params. */
	if (name != NULL && (one = port_find(name)) == NULL)
		return api_fail(
		    err, API_ERR_NOT_FOUND, API_F_PORT,
		    "port \"%s\" does not exist; `podwirectl port list` shows the ports", name);
	for (unsigned int w = 0; w < n_workers; w++) {
		if (trace_bufs[w] != NULL)
			continue;
		trace_bufs[w] = rte_zmalloc("pw_trace", sizeof(struct trace_buf), 0);
		if (trace_bufs[w] == NULL)
			return api_fail(err, API_ERR_RESOURCE, NULL,
					"trace: no hugepage memory for its records (%zu KiB)",
					sizeof(struct trace_buf) >> 10);
	}
	if (timer_start() != 0)
		return api_fail(err, API_ERR_RESOURCE, NULL, "trace: cannot make a timer: %s",
				strerror(errno));
	if (start_tsc == 0)
		start_tsc = rte_rdtsc();
	count += quota_left();
	if (count > API_TRACE_MAX)
		count = API_TRACE_MAX;
	__atomic_store_n(&trace_quota, (int32_t)count, __ATOMIC_RELEASE);
	ports_trace(true, one);
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, API_F_COUNT, (double)count);
	a = cJSON_AddArrayToObject(o, API_F_PORTS);
	TAILQ_FOREACH (p, &port_all, next)
		if (p->dp.observe & DP_OBS_TRACE)
			cJSON_AddItemToArray(a, cJSON_CreateString(p->conf.name));
	LOG(INFO, "tracing the next %ld frames on %s", count, one ? one->conf.name : "every port");
	return o;
}

static int by_tsc(const void *a, const void *b)
{
	const struct trace_rec *x = *(const struct trace_rec *const *)a;
	const struct trace_rec *y = *(const struct trace_rec *const *)b;

	return x->tsc < y->tsc ? -1 : x->tsc > y->tsc;
}

static void port_name(char *buf, size_t len, uint16_t idx)
{
	const struct port *p = port_by_idx(idx);

	if (p != NULL)
		snprintf(buf, len, "%s", p->conf.name);
	else
		snprintf(buf, len, "#%u", idx);
}

static void mac_str(char *buf, const uint8_t *m)
{
	sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static const char *lookup_name(uint8_t l)
{
	switch (l) {
	case TRACE_LEARNED:
		return "learned";
	case TRACE_FLOOD_GROUP:
		return "flood";
	case TRACE_FLOOD_UNKNOWN:
		return "unknown";
	case TRACE_XCONNECT:
		return "xconnect";
	default:
		return "none";
	}
}

static cJSON *rec_json(const struct trace_rec *r, unsigned int seq)
{
	const struct port *in = port_by_idx(r->in_port);
	cJSON *o = cJSON_CreateObject(), *outs;
	char buf[96];

	cJSON_AddNumberToObject(o, API_R_SEQ, seq);
	cJSON_AddNumberToObject(o, API_R_TIME,
				(double)(r->tsc - start_tsc) / (double)rte_get_tsc_hz());
	port_name(buf, sizeof(buf), r->in_port);
	cJSON_AddStringToObject(o, API_F_PORT, buf);
	cJSON_AddStringToObject(o, API_F_NETWORK, in != NULL ? in->net->name : "");
	cJSON_AddNumberToObject(o, API_R_LEN, r->len);
	mac_str(buf, r->hdr + 6);
	cJSON_AddStringToObject(o, API_R_SRC, buf);
	mac_str(buf, r->hdr);
	cJSON_AddStringToObject(o, API_R_DST, buf);
	snprintf(buf, sizeof(buf), "0x%02x%02x", r->hdr[12], r->hdr[13]);
	cJSON_AddStringToObject(o, API_R_ETHERTYPE, buf);
	cJSON_AddNumberToObject(o, API_R_TAG, r->tag);
	if (r->lookup == TRACE_XCONNECT)
		snprintf(buf, sizeof(buf), "none (cross-connect)");
	else if (!r->tagged)
		snprintf(buf, sizeof(buf), "untagged");
	else if (r->strip)
		snprintf(buf, sizeof(buf), "tag %u removed (the network's VLAN)", r->tag);
	else if (r->drop == DROP_VLAN)
		snprintf(buf, sizeof(buf), "tag %u is not the network's VLAN", r->tag);
	else
		snprintf(buf, sizeof(buf), "tag %u not looked at", r->tag);
	cJSON_AddStringToObject(o, API_R_VLAN_ACTION, buf);
	cJSON_AddStringToObject(o, API_R_LOOKUP, lookup_name(r->lookup));
	outs = cJSON_AddArrayToObject(o, API_R_OUTPUTS);
	for (uint8_t k = 0; k < r->n_out; k++) {
		cJSON *e = cJSON_CreateObject();

		port_name(buf, sizeof(buf), r->out[k].port);
		cJSON_AddStringToObject(e, API_F_PORT, buf);
		cJSON_AddStringToObject(e, API_R_RESULT,
					r->out[k].verdict < DROP_MAX ? drop_names[r->out[k].verdict]
								     : "queued");
		cJSON_AddItemToArray(outs, e);
	}
	cJSON_AddNumberToObject(o, API_R_DESTINATIONS, r->n_dst);
	cJSON_AddStringToObject(o, API_R_DROP, r->drop < DROP_MAX ? drop_names[r->drop] : "");
	if (r->note != 0) {
		char acl[160];

		acl_note_describe(r->note, acl, sizeof(acl));
		cJSON_AddStringToObject(o, API_R_ACL, acl);
	}
	return o;
}

static cJSON *h_trace_show(const cJSON *params, struct api_err *err)
{
	const struct trace_rec **all = NULL;
	unsigned int n = 0;
	cJSON *o, *a;

	RTE_SET_USED(params);
	for (unsigned int w = 0; w < n_workers; w++)
		if (trace_bufs[w] != NULL)
			n += __atomic_load_n(&trace_bufs[w]->n, __ATOMIC_ACQUIRE);
	if (n != 0 && (all = calloc(n, sizeof(*all))) == NULL)
		return api_fail(err, API_ERR_RESOURCE, NULL, "trace.show: out of memory");
	n = 0;
	for (unsigned int w = 0; w < n_workers; w++) {
		uint32_t k;

		if (trace_bufs[w] == NULL)
			continue;
		k = __atomic_load_n(&trace_bufs[w]->n, __ATOMIC_ACQUIRE);
		for (uint32_t i = 0; i < k; i++)
			all[n++] = &trace_bufs[w]->rec[i];
	}
	if (n > 1) /* (all is NULL when nothing was recorded) */
		qsort(all, n, sizeof(*all), by_tsc);
	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, API_R_TRACES);
	for (unsigned int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, rec_json(all[i], i + 1));
	cJSON_AddNumberToObject(o, API_R_REMAINING, quota_left());
	free(all);
	return o;
}

static cJSON *h_trace_clear(const cJSON *params, struct api_err *err)
{
	unsigned int n = 0;
	cJSON *o;

	RTE_SET_USED(params);
	RTE_SET_USED(err);
	__atomic_store_n(&trace_quota, 0, __ATOMIC_RELEASE);
	ports_trace(false, NULL);
	timer_stop();
	/* No worker writes a record after this. */
	view_wait();
	for (unsigned int w = 0; w < n_workers; w++) {
		if (trace_bufs[w] == NULL)
			continue;
		n += trace_bufs[w]->n;
		trace_bufs[w]->n = 0;
	}
	start_tsc = 0;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, API_R_CLEARED, n);
	return o;
}

API_HANDLER(TRACE_ADD, h_trace_add)
API_HANDLER(TRACE_SHOW, h_trace_show)
API_HANDLER(TRACE_CLEAR, h_trace_clear)
