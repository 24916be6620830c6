/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mirror's stages (see tap.h): copies of what a mirrored port
 * receives and sends, to each of its mirrors' destinations, and the drop
 * of what a destination sends. A port no mirror touches costs the
 * ingress stage one load and test per burst, and the egress stage
 * nothing (it runs only for ports with its dp_port.egress bit).
 */
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_memcpy.h>

#include "acl/acl.h"
#include "datapath/burst.h"
#include "datapath/txbuf.h"
#include "datapath/worker.h"
#include "mirror/tap.h"
#include "offload/offload.h"

struct mirror_worker_counters mirror_ctr[PW_MAX_WORKERS];
uint8_t mirror_egress_bit;

/* The slow copy: a chain (a super-frame, a large memif frame), or when
 * the bulk allocation failed. */
static struct rte_mbuf *copy_one(struct rte_mempool *pool, struct rte_mbuf *m, struct dp_frame *f,
				 uint8_t s)
{
	struct rte_mbuf *c;

	if (m == NULL)
		return dp_frame_to_mbuf(f, s, pool);
	/* The whole chain, with its offload request: the destination's send
	 * cuts a super-frame for itself. */
	c = rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);
	if (likely(c != NULL) && unlikely(s)) {
		if (rte_vlan_strip(c) != 0) {
			rte_pktmbuf_free(c);
			return NULL;
		}
		if (c->ol_flags & OFFLOAD_MBUF_FLAGS)
			c->l2_len -= 4;
	}
	return c;
}

/* m (one segment, fitting c) into c, less its tag with s; with the
 * fields rte_pktmbuf_copy keeps that matter here (the offload request). */
static inline void copy_small(struct rte_mbuf *c, const struct rte_mbuf *m, uint8_t s)
{
	const uint8_t *src = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t *dst = rte_pktmbuf_mtod(c, uint8_t *);
	uint32_t len = m->data_len;

	if (likely(!s)) {
		rte_memcpy(dst, src, len);
	} else {
		memcpy(dst, src, 2 * RTE_ETHER_ADDR_LEN);
		rte_memcpy(dst + 2 * RTE_ETHER_ADDR_LEN, src + 2 * RTE_ETHER_ADDR_LEN + 4,
			   len - 2 * RTE_ETHER_ADDR_LEN - 4);
		len -= 4;
	}
	c->data_len = (uint16_t)len;
	c->pkt_len = len;
	c->ol_flags = m->ol_flags & OFFLOAD_MBUF_FLAGS;
	c->tx_offload = m->tx_offload;
	c->packet_type = m->packet_type;
	if (unlikely(s) && (c->ol_flags & OFFLOAD_MBUF_FLAGS))
		c->l2_len -= 4;
}

uint16_t mirror_copy(struct rte_mempool *pool, struct rte_mbuf *const *m, struct dp_frame *const *f,
		     const uint8_t *strip, const uint16_t *idx, uint16_t n, struct rte_mbuf **out)
{
	struct rte_mbuf *fresh[TXBUF_SIZE];
	uint16_t k = 0, used = 0, have;

	/* One allocation for the burst: most frames fit one mbuf. */
	n = RTE_MIN(n, (uint16_t)TXBUF_SIZE);
	have = rte_pktmbuf_alloc_bulk(pool, fresh, n) == 0 ? n : 0;
	for (uint16_t j = 0; j < n; j++) {
		uint16_t i = idx[j];
		uint8_t s = strip != NULL ? strip[i] : 0;
		struct rte_mbuf *c;

		if (used < have && m != NULL && m[i]->nb_segs == 1 &&
		    m[i]->data_len <= rte_pktmbuf_tailroom(fresh[used]) &&
		    (!s || m[i]->data_len >= RTE_ETHER_HDR_LEN + 4)) {
			c = fresh[used++];
			copy_small(c, m[i], s);
		} else if (used < have && m == NULL &&
			   dp_frame_out_len(f[i], s) <= rte_pktmbuf_tailroom(fresh[used])) {
			c = fresh[used++];
			c->data_len = (uint16_t)dp_frame_out_len(f[i], s);
			c->pkt_len = c->data_len;
			dp_frame_read(f[i], s, 0, rte_pktmbuf_mtod(c, uint8_t *), c->pkt_len);
		} else {
			c = copy_one(pool, m != NULL ? m[i] : NULL, m != NULL ? NULL : f[i], s);
			if (unlikely(c == NULL))
				continue;
		}
		out[k++] = c;
	}
	if (used < have)
		rte_pktmbuf_free_bulk(&fresh[used], have - used);
	return k;
}

/* Of idx[0..n) of mbufs m, those list l permits, into sel; how many. */
static uint16_t select_mbufs(const struct acl_list *l, struct rte_mbuf *const *m,
			     const uint16_t *idx, uint16_t n, uint16_t *sel)
{
	struct rte_mbuf *pick[TXBUF_SIZE];
	bool permit[TXBUF_SIZE];
	uint16_t k = 0;

	for (uint16_t j = 0; j < n; j++)
		pick[j] = m[idx[j]];
	acl_select(l, pick, n, permit);
	for (uint16_t j = 0; j < n; j++)
		if (permit[j])
			sel[k++] = idx[j];
	return k;
}

/* Of the copies c[0..n), those list l permits stay (packed, in order),
 * the others are freed; how many stay. */
static uint16_t select_copies(const struct acl_list *l, struct rte_mbuf **c, uint16_t n)
{
	struct rte_mbuf *gone[TXBUF_SIZE];
	bool permit[TXBUF_SIZE];
	uint16_t k = 0, g = 0;

	acl_select(l, c, n, permit);
	for (uint16_t j = 0; j < n; j++) {
		if (permit[j])
			c[k++] = c[j];
		else
			gone[g++] = c[j];
	}
	if (g != 0)
		rte_pktmbuf_free_bulk(gone, g);
	return k;
}

/*
 * n frames (idx[] of m or f) to tap t's destination: copied, sent in one
 * call, counted on the mirror. The destination's counters say what it
 * took (a worker's own, read before and after: no atomics); a copy it
 * cut into several frames counts once.
 *
 * A filtered tap copies only what its list permits, decided on the
 * bytes the copy has: mbufs that keep their tag are classified before
 * they are copied (what is not selected costs no copy); frames without
 * mbufs, and mbufs whose copy loses its tag, are copied first and the
 * copies classified. A memif frame is in the pod's memory, which the pod
 * may rewrite at any time: its copy is private, so the list decides on
 * exactly the bytes the destination gets. Frames the list does not
 * select are neither copies nor drops.
 */
static void tap_send(struct worker *w, const struct view *v, const struct mirror_tap *t,
		     struct rte_mbuf *const *m, struct dp_frame *const *f, const uint8_t *strip,
		     const uint16_t *idx, uint16_t n)
{
	struct mirror_counters *mc = &mirror_ctr[w->id].c[t->slot];
	const struct acl_list *l = NULL;
	struct rte_mbuf *c[TXBUF_SIZE];
	uint16_t sel[TXBUF_SIZE];
	uint64_t before, sent;
	uint16_t made;

	if (unlikely(t->acl != NULL)) {
		bool tagged_out = false;

		/* Once per burst: a replace (acl.set) waits for this burst
		 * to end before it frees what l points to. */
		l = acl_current(t->acl);
		n = RTE_MIN(n, (uint16_t)TXBUF_SIZE);
		for (uint16_t j = 0; j < n && strip != NULL; j++)
			tagged_out |= strip[idx[j]] != 0;
		if (m != NULL && !tagged_out) {
			n = select_mbufs(l, m, idx, n, sel);
			idx = sel;
			l = NULL;
			if (n == 0)
				return;
		}
	}
	made = mirror_copy(w->pool, m, f, strip, idx, n, c);
	if (unlikely(l != NULL) && made != 0) {
		uint16_t kept = select_copies(l, c, made);

		n -= made - kept; /* not selected: not dropped either */
		made = kept;
	}
	if (made != 0) {
		before = w->ctr[t->to].tx_packets;
		dp_port_send(w, v, t->to, c, made);
		sent = RTE_MIN(w->ctr[t->to].tx_packets - before, (uint64_t)made);
	} else {
		sent = 0;
	}
	mc->copies += sent;
	mc->dropped += n - sent;
}

/* What a mirror's destination sends goes nowhere. */
static __rte_noinline void drop_all(struct worker *w, struct dp_burst *b)
{
	struct port_counters *c = &w->ctr[b->in->idx];

	for (uint16_t i = 0; i < b->n; i++)
		if (!dp_is_drop(b->dst[i]))
			dp_burst_drop(b, c, i, DROP_NO_ROUTE);
}

static __rte_noinline void copy_in(struct worker *w, const struct view *v, struct dp_burst *b,
				   const struct mirror_port *mp)
{
	uint16_t idx[PW_BURST], n = 0;

	/* Only what was let in: policers and access lists ran before. */
	for (uint16_t i = 0; i < b->n; i++)
		if (!dp_is_drop(b->dst[i]))
			idx[n++] = i;
	for (uint8_t t = 0; t < mp->n_in; t++) {
		if (b->frames)
			tap_send(w, v, &mp->in[t], NULL, b->fp, b->strip, idx, n);
		else
			tap_send(w, v, &mp->in[t], b->pkts, NULL, b->strip, idx, n);
	}
}

/*
 * Frames without mbufs are read twice from the pod's memory: once for
 * the copy, once when they are forwarded (their header, where a decision
 * was made on it, from the private copy both times). A pod that rewrites
 * a frame while sending it can make its own mirror differ from what its
 * peer got; it could as well have sent other frames, so the mirror shows
 * nothing it could not.
 */
static void mirror_in(struct worker *w, const struct view *v, struct dp_burst *b)
{
	const struct mirror_port *mp = b->in->mirror;

	if (likely(mp == NULL))
		return;
	if (unlikely(mp->dst))
		drop_all(w, b);
	else if (mp->n_in != 0)
		copy_in(w, v, b, mp);
}

static uint16_t mirror_out(struct worker *w, const struct view *v, struct dp_port *p,
			   struct rte_mbuf **m, struct dp_frame **f, uint8_t *strip, uint16_t n)
{
	const struct mirror_port *mp = p->mirror;
	uint16_t idx[TXBUF_SIZE];

	if (unlikely(mp == NULL) || mp->n_out == 0)
		return n;
	for (uint16_t i = 0; i < RTE_MIN(n, (uint16_t)TXBUF_SIZE); i++)
		idx[i] = i;
	/* A send is at most TXBUF_SIZE frames (txbuf.h); in steps anyway. */
	for (uint16_t from = 0; from < n; from += TXBUF_SIZE) {
		uint16_t k = RTE_MIN((uint16_t)(n - from), (uint16_t)TXBUF_SIZE);

		for (uint8_t t = 0; t < mp->n_out; t++)
			tap_send(w, v, &mp->out[t], m != NULL ? m + from : NULL,
				 f != NULL ? f + from : NULL, strip != NULL ? strip + from : NULL,
				 idx, k);
	}
	return n;
}

static const struct dp_stage stage_in = {
    .name = "mirror", .run = mirror_in, .order = DP_ORDER_MIRROR};
static const struct dp_egress_stage stage_out = {
    .name = "mirror", .run = mirror_out, .order = DP_ORDER_MIRROR};

/* From a constructor: the stage tables are read by workers without a
 * lock, so they are written before any worker starts (the "datapath"
 * module starts them before any module's init runs). */
RTE_INIT(mirror_stages_register)
{
	int bit;

	if (dp_stage_register(DP_STAGE_INGRESS, &stage_in) != 0)
		return;
	bit = dp_egress_register(&stage_out);
	if (bit > 0)
		mirror_egress_bit = (uint8_t)bit;
}
