/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The policer stages and their objects. A port without a limit costs one
 * pointer test per burst (ingress) or none (egress: its bit of
 * dp_port.egress is clear). Lengths and decisions come from the burst's
 * private data only (b->len, an mbuf's length, a frame's validated len),
 * never from a pod's shared buffers: what is counted is what is sent.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "core/log.h"
#include "core/loop.h"
#include "core/module.h"
#include "core/notify.h"
#include "datapath/burst.h"
#include "datapath/worker.h"
#include "policer/policer.h"

PW_LOG_TYPE("policer");

/* The egress stage's bit of dp_port.egress; 0 when it could not register. */
static uint8_t egress_bit;

/* Drops frames i of b whose bit is in drop. */
static inline void drop_mask(struct worker *w, struct dp_burst *b, uint64_t drop)
{
	struct port_counters *c = &w->ctr[b->in->idx];

	while (drop != 0) {
		uint16_t i = (uint16_t)__builtin_ctzll(drop);

		dp_burst_drop(b, c, i, DROP_POLICED);
		drop &= drop - 1;
	}
}

static void policer_ingress(struct worker *w, const struct view *v, struct dp_burst *b)
{
	struct policer *pol = b->in->pol[PORT_DIR_IN];
	uint64_t live = 0, ok;

	RTE_SET_USED(v);
	if (likely(pol == NULL))
		return;
	RTE_BUILD_BUG_ON(PW_BURST > 64);
	if (likely(b->n_fwd == b->n))
		live = b->n == 64 ? UINT64_MAX : (1ull << b->n) - 1;
	else
		for (uint16_t i = 0; i < b->n; i++)
			live |= (uint64_t)!dp_is_drop(b->dst[i]) << i;
	ok = policer_admit(pol, w->now, b->len, b->n, live);
	if (ok != live)
		drop_mask(w, b, live & ~ok);
}

/* One send to p, 64 frames at a time: those admitted go on, packed in
 * order, the rest are handed to dp_egress_drop. The length is the frame
 * as it leaves (a stripped VLAN tag not counted). */
static uint16_t policer_egress(struct worker *w, const struct view *v, struct dp_port *p,
			       struct rte_mbuf **m, struct dp_frame **f, uint8_t *strip, uint16_t n)
{
	struct policer *pol = p->pol[PORT_DIR_OUT];
	uint16_t kept = 0;

	RTE_SET_USED(v);
	if (pol == NULL)
		return n;
	for (uint16_t base = 0; base < n; base += 64) {
		unsigned int k = RTE_MIN(64u, (unsigned int)(n - base));
		struct rte_mbuf *dm[64];
		struct dp_frame *df[64];
		uint8_t ds[64];
		uint32_t len[64];
		uint16_t nd = 0;
		uint64_t ok;

		uint64_t all = k == 64 ? UINT64_MAX : (1ull << k) - 1;

		/* Frames/s reads no length. */
		if (pol->bits && m != NULL)
			for (unsigned int i = 0; i < k; i++)
				len[i] = rte_pktmbuf_pkt_len(m[base + i]);
		else if (pol->bits)
			for (unsigned int i = 0; i < k; i++)
				len[i] = f[base + i]->len - (strip[base + i] ? 4u : 0u);
		ok = policer_admit(pol, w->now, len, k, all);
		if (likely(ok == all && kept == base)) {
			kept += (uint16_t)k; /* all of them, already in place */
			continue;
		}
		for (unsigned int i = 0; i < k; i++) {
			unsigned int j = base + i;

			if (ok >> i & 1) {
				if (m != NULL) {
					m[kept++] = m[j];
				} else {
					f[kept] = f[j];
					strip[kept++] = strip[j];
				}
			} else if (m != NULL) {
				dm[nd++] = m[j];
			} else {
				df[nd] = f[j];
				ds[nd++] = strip[j];
			}
		}
		if (nd != 0)
			dp_egress_drop(w, p, m != NULL ? dm : NULL, m != NULL ? NULL : df,
				       m != NULL ? NULL : ds, nd, DROP_POLICED);
	}
	return kept;
}

static const struct dp_stage ingress_stage = {
    .name = "policer",
    .run = policer_ingress,
    .order = DP_ORDER_POLICER,
};

static const struct dp_egress_stage egress_stage = {
    .name = "policer",
    .run = policer_egress,
    .order = DP_ORDER_POLICER,
};

/* Stages are registered before any worker starts (the datapath module
 * starts them before this module's init runs): from a constructor. */
RTE_INIT(policer_register)
{
	int bit;

	if (dp_stage_register(DP_STAGE_INGRESS, &ingress_stage) != 0)
		fprintf(stderr, "podwired: cannot register the policer's ingress stage\n");
	bit = dp_egress_register(&egress_stage);
	if (bit > 0)
		egress_bit = (uint8_t)bit;
	else
		fprintf(stderr, "podwired: cannot register the policer's egress stage\n");
}

static bool same_rate(const struct policer *pol, const struct port_rate *r)
{
	if (pol == NULL)
		return r->rate == 0;
	return r->rate != 0 && pol->bits == r->bits && pol->conf_rate == r->rate &&
	       pol->conf_burst == r->burst;
}

int policer_apply(struct port *p, const struct port_rate rate[PORT_DIRS], char *msg, size_t len)
{
	struct policer *fresh[PORT_DIRS] = {NULL}, *old[PORT_DIRS] = {NULL};
	bool change[PORT_DIRS];
	bool any = false;

	for (int d = 0; d < PORT_DIRS; d++) {
		change[d] = !same_rate(p->dp.pol[d], &rate[d]);
		any |= change[d];
		if (!change[d] || rate[d].rate == 0)
			continue;
		if (d == PORT_DIR_OUT && egress_bit == 0) {
			snprintf(
			    msg, len,
			    "port \"%s\": the egress policer is not registered (see the start-up "
			    "log); no egress limit can be set",
			    p->conf.name);
			rte_free(fresh[PORT_DIR_IN]);
			return -ENOSYS;
		}
		fresh[d] = rte_zmalloc("pw_policer", sizeof(*fresh[d]), RTE_CACHE_LINE_SIZE);
		if (fresh[d] == NULL ||
		    policer_init(fresh[d], rate[d].bits, rate[d].rate, rate[d].burst,
				 rte_get_tsc_hz(), rte_rdtsc()) != 0) {
			snprintf(msg, len, "port \"%s\": %s making its rate limit; nothing changed",
				 p->conf.name,
				 fresh[d] == NULL ? "out of hugepage memory"
						  : "numbers out of range");
			rte_free(fresh[PORT_DIR_IN]);
			rte_free(fresh[PORT_DIR_OUT]);
			return fresh[d] == NULL ? -ENOMEM : -ERANGE;
		}
	}
	if (!any)
		return 0;
	for (int d = 0; d < PORT_DIRS; d++) {
		if (!change[d])
			continue;
		old[d] = p->dp.pol[d];
		/* The egress bit goes before its policer, and comes after it:
		 * a send that sees the bit finds one (the stage tests NULL
		 * anyway). */
		if (d == PORT_DIR_OUT && fresh[d] == NULL)
			p->dp.egress &= (uint8_t)~egress_bit;
		p->dp.pol[d] = fresh[d];
		if (d == PORT_DIR_OUT && fresh[d] != NULL)
			p->dp.egress |= egress_bit;
		if (fresh[d] != NULL)
			PORT_LOG(p, INFO, "%s limited to %" PRIu64 " %s, burst %" PRIu64 " %s",
				 d == PORT_DIR_IN ? "ingress" : "egress", rate[d].rate,
				 rate[d].bits ? "bits/s" : "frames/s", rate[d].burst,
				 rate[d].bits ? "bytes" : "frames");
		else
			PORT_LOG(p, INFO, "%s rate limit removed",
				 d == PORT_DIR_IN ? "ingress" : "egress");
	}
	/* No worker can still hold an old bucket after this. */
	view_wait();
	for (int d = 0; d < PORT_DIRS; d++)
		rte_free(old[d]);
	return 0;
}

const struct policer *policer_of(const struct port *p, enum port_dir d)
{
	return p->dp.pol[d];
}

/* NOTIFY_PORT_ADDING: the port's configured limits, in place before
 * the view that has the port is published: its first frame is limited. */
static void port_adding(const void *arg, void *ctx)
{
	/* The event's port, which the model hands over as const. */
	struct port *p = (struct port *)(uintptr_t)arg;
	struct port_rate rate[PORT_DIRS];
	char msg[256];

	RTE_SET_USED(ctx);
	memcpy(rate, p->conf.rate, sizeof(rate));
	if (rate[PORT_DIR_IN].rate == 0 && rate[PORT_DIR_OUT].rate == 0)
		return;
	if (policer_apply(p, rate, msg, sizeof(msg)) != 0)
		PORT_LOG(p, ERR, "its rate limits are not applied: %s", msg);
}

/* NOTIFY_PORT_DELETED: the port is out of the datapath; its buckets go. */
static void port_deleted(const void *arg, void *ctx)
{
	const struct port *cp = arg;
	struct port *p = port_by_idx(cp->dp.idx);

	RTE_SET_USED(ctx);
	if (p == NULL)
		return;
	for (int d = 0; d < PORT_DIRS; d++) {
		rte_free(p->dp.pol[d]);
		p->dp.pol[d] = NULL;
	}
	p->dp.egress &= (uint8_t)~egress_bit;
}

/* Ports restored by the model (which starts first) get their limits
 * here; later ones when created. */
static int policer_start(void)
{
	struct port *p;
	char msg[256];

	if (notify_subscribe(NOTIFY_PORT_ADDING, port_adding, NULL) != 0 ||
	    notify_subscribe(NOTIFY_PORT_DELETED, port_deleted, NULL) != 0) {
		notify_unsubscribe(NOTIFY_PORT_ADDING, port_adding, NULL);
		fprintf(stderr, "podwired: out of memory starting the policer\n");
		return -ENOMEM;
	}
	pthread_mutex_lock(&ctl_lock);
	TAILQ_FOREACH (p, &port_all, next)
		if (policer_apply(p, p->conf.rate, msg, sizeof(msg)) != 0)
			PORT_LOG(p, ERR, "its rate limits are not applied: %s", msg);
	pthread_mutex_unlock(&ctl_lock);
	return 0;
}

/* No fini: the model's, which runs after this module's would, deletes
 * the ports and so frees their buckets (port_deleted, still subscribed). */
PW_MODULE(policer, policer_start, NULL, "model");
