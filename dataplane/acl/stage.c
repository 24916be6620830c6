/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The access lists' stages: ingress (after the input checks, before the
 * decision) and egress (per send to a port). A port without lists costs
 * one load and one test per burst (dp_port.acl NULL), and nothing at all
 * on egress (its dp_port.egress bit is clear).
 *
 * Frames without mbufs (memif) sit in memory the pod may rewrite at any
 * time. The decision must be made on exactly the bytes that are
 * forwarded, so a burst of them received on a port whose acl_port says
 * to_mbufs is first copied into mbufs (dp_frame_to_mbuf, from the
 * private header copy where there is one), and everything after, the
 * lists, the bridge and the output, works on those copies: what the pod
 * writes after the copy reaches no one. to_mbufs is set on a port with
 * an ingress list and on every port of a network where some port filters
 * its egress; list.c sets it and waits a grace period before it sets a
 * port's egress bit, so the egress stage only ever sees mbufs. Should
 * frames still reach it (a copy made elsewhere), it drops them rather
 * than decide on bytes it cannot keep.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "acl/acl.h"
#include "acl/session.h"
#include "datapath/burst.h"
#include "datapath/worker.h"

_Static_assert(PW_BURST <= ACL_SESSION_BULK, "a burst's flows fit one bulk session call");

/* Bytes of a frame the key is made from: Ethernet, a tag, IPv4 with
 * options or IPv6 with some extension headers, and the L4 ports. */
#define KEY_BYTES 192

/* Per worker: the mbufs a burst of frames became (a line of its own). */
static struct conv {
	struct rte_mbuf *m[PW_BURST];
} __rte_cache_aligned conv[PW_MAX_WORKERS];

static int egress_bit;

/* Makes the burst's frames into mbufs (see the top). False when the
 * pool ran short: every frame is then dropped (no_mbuf) and the burst
 * stays frames. */
static bool to_mbufs(struct worker *w, struct dp_burst *b)
{
	struct rte_mbuf **m = conv[w->id].m;

	for (uint16_t i = 0; i < b->n; i++) {
		m[i] = dp_frame_to_mbuf(&b->f[i], 0, w->pool);
		if (unlikely(m[i] == NULL)) {
			rte_pktmbuf_free_bulk(m, i);
			for (uint16_t j = 0; j < b->n; j++)
				if (!dp_is_drop(b->dst[j]))
					dp_burst_drop(b, &w->ctr[b->in->idx], j, DROP_NO_MBUF);
			return false;
		}
		b->hdr[i] = rte_pktmbuf_mtod(m[i], const uint8_t *);
		b->hlen[i] = m[i]->data_len;
	}
	b->frames = false;
	b->hdr_copied = true;
	b->pkts = m;
	return true;
}

static inline void key_of(struct acl_key *k, const struct rte_mbuf *m)
{
	uint32_t want = RTE_MIN(m->pkt_len, (uint32_t)KEY_BYTES);
	uint8_t buf[KEY_BYTES];
	const uint8_t *p;

	if (likely(m->data_len >= want))
		p = rte_pktmbuf_mtod(m, const uint8_t *);
	else
		p = rte_pktmbuf_read(m, 0, want, buf);
	acl_key_make(k, p, want);
}

static inline void flow_of(struct acl_flow *f, const struct acl_key *k, uint16_t port,
			   enum acl_dir d)
{
	f->v6 = (k->l3 & ACL_L3_V6) != 0;
	f->proto = k->proto;
	f->port = port;
	f->dir = (uint8_t)d;
	f->sport = rte_be_to_cpu_16(k->sport);
	f->dport = rte_be_to_cpu_16(k->dport);
	memcpy(f->src, k->src, 16);
	memcpy(f->dst, k->dst, 16);
}

/*
 * Decides n mbufs seen on port in direction d under ap: pass[i] says
 * whether frame i goes on, note[i] (when note is not NULL) what decided
 * it. Sessions first, then the network's list, then the port's.
 */
static void decide(struct worker *w, const struct acl_port *ap, uint16_t port, enum acl_dir d,
		   struct rte_mbuf *const *m, const uint16_t *which, uint16_t n, bool *pass,
		   uint32_t *note)
{
	struct acl_key keys[PW_BURST];
	const struct acl_key *kp[PW_BURST];
	uint32_t res[PW_BURST];
	uint16_t idx[PW_BURST];
	bool sess[PW_BURST], refl[PW_BURST];
	uint32_t n_sess = 0;
	struct acl_flow fl[PW_BURST];
	const struct acl_flow *fp[PW_BURST];
	uint16_t fi[PW_BURST], nf = 0;

	for (uint16_t i = 0; i < n; i++) {
		key_of(&keys[i], m[which[i]]);
		pass[i] = true;
		sess[i] = refl[i] = false;
	}
	/* The burst's IP flows are looked up (and recorded, below) together:
	 * the bulk calls fetch their buckets at once, about a third of the
	 * cost of one by one (perf/session_cost.c), with the same answers. */
	if (ap->sessions[d]) {
		uint64_t hit = 0;

		for (uint16_t i = 0; i < n; i++) {
			if (!(keys[i].l3 & ACL_L3_IP))
				continue;
			flow_of(&fl[nf], &keys[i], port, d);
			fp[nf] = &fl[nf];
			fi[nf++] = i;
		}
		if (nf != 0) {
			acl_session_reply_bulk(w->id, fp, nf, w->now, &hit);
			for (; hit != 0; hit &= hit - 1) {
				uint16_t i = fi[__builtin_ctzll(hit)];

				sess[i] = true;
				n_sess++;
				if (note != NULL)
					note[i] = ACL_NOTE_SESSION;
			}
		}
	}
	/* Frames a session let through skipped every list of d. */
	for (int li = 0; li < 2 && n_sess != 0; li++)
		if (ap->list[d][li] != NULL)
			ap->list[d][li]->hits[w->id][ap->list[d][li]->n_rules + 1] += n_sess;
	for (int li = 0; li < 2; li++) {
		const struct acl_list *l = ap->list[d][li];
		uint64_t *hits;
		uint16_t k = 0;

		if (l == NULL)
			continue;
		hits = l->hits[w->id];
		for (uint16_t i = 0; i < n; i++)
			if (pass[i] && !sess[i]) {
				idx[k] = i;
				kp[k++] = &keys[i];
			}
		if (k == 0)
			break;
		acl_list_classify(l, kp, res, k);
		for (uint16_t j = 0; j < k; j++) {
			uint32_t r = res[j];
			uint8_t act = r == l->n_rules ? l->dflt : l->rules[r].action;
			uint16_t i = idx[j];

			hits[r]++;
			if (act == ACL_DENY)
				pass[i] = false;
			else if (act == ACL_REFLECT)
				refl[i] = true;
			if (note != NULL)
				note[i] = (uint32_t)l->id << 16 |
					  (r == l->n_rules ? ACL_NOTE_DEFAULT : r);
		}
	}
	nf = 0;
	for (uint16_t i = 0; i < n; i++)
		if (refl[i] && pass[i] && (keys[i].l3 & ACL_L3_IP)) {
			flow_of(&fl[nf], &keys[i], port, d);
			fp[nf] = &fl[nf];
			nf++;
		}
	/* In the burst's order, as one by one: a flow seen twice is
	 * recorded once and refreshed. Refusals are counted (full). */
	if (nf != 0)
		acl_session_add_bulk(w->id, fp, nf, w->now);
}

static void acl_ingress(struct worker *w, const struct view *v, struct dp_burst *b)
{
	const struct acl_port *ap = b->in->acl;
	uint16_t which[PW_BURST], n = 0;
	bool pass[PW_BURST];
	uint32_t note[PW_BURST];
	bool traced;

	RTE_SET_USED(v);
	if (likely(ap == NULL))
		return;
	if (b->frames && ap->to_mbufs && !to_mbufs(w, b))
		return;
	if (ap->list[ACL_IN][0] == NULL && ap->list[ACL_IN][1] == NULL)
		return;
	if (unlikely(b->frames)) {
		/* Cannot be: to_mbufs is set wherever there are ingress lists
		 * (list.c). Were it not, nothing is let through undecided. */
		for (uint16_t i = 0; i < b->n; i++)
			if (!dp_is_drop(b->dst[i]))
				dp_burst_drop(b, &w->ctr[b->in->idx], i, DROP_ACL_DENY);
		return;
	}
	for (uint16_t i = 0; i < b->n; i++)
		if (!dp_is_drop(b->dst[i]))
			which[n++] = i;
	traced = (b->in->observe & DP_OBS_TRACE) != 0;
	decide(w, ap, b->in->idx, ACL_IN, b->pkts, which, n, pass, traced ? note : NULL);
	if (unlikely(traced)) {
		if (!b->noted)
			memset(b->note, 0, sizeof(b->note));
		b->noted = true;
		for (uint16_t j = 0; j < n; j++)
			b->note[which[j]] = note[j];
	}
	for (uint16_t j = 0; j < n; j++)
		if (!pass[j])
			dp_burst_drop(b, &w->ctr[b->in->idx], which[j], DROP_ACL_DENY);
}

static uint16_t acl_egress(struct worker *w, const struct view *v, struct dp_port *p,
			   struct rte_mbuf **m, struct dp_frame **f, uint8_t *strip, uint16_t n)
{
	const struct acl_port *ap = p->acl;
	struct rte_mbuf *drop[PW_BURST];
	uint16_t which[PW_BURST], k = 0, nd = 0;
	bool pass[PW_BURST];

	RTE_SET_USED(v);
	if (ap == NULL || (ap->list[ACL_OUT][0] == NULL && ap->list[ACL_OUT][1] == NULL))
		return n;
	if (unlikely(m == NULL)) {
		/* Bytes a pod may still rewrite (see the top): not decided on. */
		dp_egress_drop(w, p, NULL, f, strip, n, DROP_ACL_DENY);
		return 0;
	}
	for (uint16_t done = 0; done < n; done += PW_BURST) {
		uint16_t c = (uint16_t)RTE_MIN(n - done, PW_BURST);

		for (uint16_t i = 0; i < c; i++)
			which[i] = (uint16_t)(done + i);
		decide(w, ap, p->idx, ACL_OUT, m, which, c, pass, NULL);
		for (uint16_t i = 0; i < c; i++) {
			struct rte_mbuf *x = m[done + i];

			if (pass[i])
				m[k++] = x;
			else
				drop[nd++] = x;
		}
		if (nd != 0) {
			dp_egress_drop(w, p, drop, NULL, NULL, nd, DROP_ACL_DENY);
			nd = 0;
		}
	}
	return k;
}

static const struct dp_stage ingress_stage = {
    .name = "acl",
    .run = acl_ingress,
    .order = DP_ORDER_ACL,
};

static const struct dp_egress_stage egress_stage = {
    .name = "acl",
    .run = acl_egress,
    .order = DP_ORDER_ACL,
};

int acl_egress_bit(void)
{
	return egress_bit;
}

/* Stages are registered before the workers start: from a constructor,
 * as the datapath module starts them before any other module's init. */
RTE_INIT(acl_stages_init)
{
	int bit;

	if (dp_stage_register(DP_STAGE_INGRESS, &ingress_stage) != 0)
		rte_panic("acl: cannot register the ingress stage\n");
	bit = dp_egress_register(&egress_stage);
	if (bit < 0)
		rte_panic("acl: cannot register the egress stage\n");
	egress_bit = bit;
}
