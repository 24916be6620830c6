/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The output stage: each frame of a decided burst to its destination, or
 * to every other port of its network (a flood). Mbufs go into the
 * worker's tx buffers. A frame without an mbuf is copied straight into
 * each destination that takes frames (a run of frames to one port in one
 * call), and made into one mbuf, shared, for the destinations that do
 * not; everything is sent before the worker releases the frames' slots.
 */
#include <rte_ether.h>

#include "datapath/burst.h"
#include "datapath/observe.h"
#include "datapath/txbuf.h"
#include "datapath/worker.h"
#include "offload/offload.h"

/* Frame i of b as an mbuf for the ports in to[] (k of them), or NULL
 * with the drop counted on each. */
static struct rte_mbuf *frame_mbuf(struct worker *w, const struct view *v, struct dp_burst *b,
				   uint16_t i, const uint16_t *to, uint16_t k)
{
	struct rte_mbuf *m = dp_frame_to_mbuf(b->fp[i], b->strip[i], w->pool);

	if (unlikely(m == NULL))
		for (uint16_t j = 0; j < k; j++) {
			w->ctr[to[j]].drops[DROP_NO_MBUF]++;
			capture_drop(w->id, v->ports[to[j]], NULL, &b->fp[i], &b->strip[i], 1,
				     CAPTURE_OUT, DROP_NO_MBUF);
		}
	return m;
}

/* A flood of frame i: one mbuf shared by the destinations that take
 * mbufs (each frees its reference), one copy into each that takes frames.
 * Each destination is decided once: link_up is written by the vhost-user
 * and memif control threads meanwhile, and a port that came up between
 * counting the mbuf's references and handing them out would get the mbuf
 * without one (freed once too often, then handed out twice). A port that
 * goes down after the decision frees its reference in dp_port_send. */
static void flood(struct worker *w, const struct view *v, struct dp_burst *b, uint16_t i)
{
	const struct dp_net *net = b->net;
	uint16_t to[PW_MAX_PORTS];
	struct rte_mbuf *m;
	uint16_t k = 0;

	for (uint16_t j = 0; j < net->n_ports; j++) {
		const struct dp_port *p = v->ports[net->ports[j]];

		if (p == b->in)
			continue;
		if (b->frames && (p->ops->tx_frames != NULL || !p->link_up))
			dp_port_send_frames(w, v, net->ports[j], &b->fp[i], &b->strip[i], 1);
		else
			to[k++] = net->ports[j];
	}
	if (k == 0) { /* every destination took a copy of the frame */
		if (!b->frames)
			rte_pktmbuf_free(b->pkts[i]);
		return;
	}
	m = b->frames ? frame_mbuf(w, v, b, i, to, k) : b->pkts[i];
	if (unlikely(m == NULL))
		return;
	if (k > 1)
		for (struct rte_mbuf *s = m; s != NULL; s = s->next)
			rte_mbuf_refcnt_update(s, (int16_t)(k - 1));
	for (uint16_t j = 0; j < k; j++)
		txbuf_add(w, v, to[j], m);
}

static void output_mbufs(struct worker *w, const struct view *v, struct dp_burst *b)
{
	struct rte_mbuf *drop[PW_BURST];
	uint16_t nd = 0;

	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		uint16_t dst = b->dst[i];

		if (unlikely(dp_is_drop(dst))) {
			drop[nd++] = m;
			continue;
		}
		if (unlikely(b->strip[i])) {
			rte_vlan_strip(m);
			/* An offload request says where the headers are. */
			if (m->ol_flags & OFFLOAD_MBUF_FLAGS)
				m->l2_len -= 4;
		}
		if (dst == DP_FLOOD)
			flood(w, v, b, i);
		else
			txbuf_add(w, v, dst, m);
	}
	if (unlikely(nd != 0))
		rte_pktmbuf_free_bulk(drop, nd);
}

/* Frames [from, from + k) of b, all to port idx. */
static void send_run(struct worker *w, const struct view *v, struct dp_burst *b, uint16_t idx,
		     uint16_t from, uint16_t k)
{
	if (likely(v->ports[idx]->ops->tx_frames != NULL)) {
		dp_port_send_frames(w, v, idx, &b->fp[from], &b->strip[from], k);
		return;
	}
	for (uint16_t j = from; j < from + k; j++) {
		struct rte_mbuf *m = frame_mbuf(w, v, b, j, &idx, 1);

		if (m != NULL)
			txbuf_add(w, v, idx, m);
	}
}

static void output_frames(struct worker *w, const struct view *v, struct dp_burst *b)
{
	uint16_t k = 0, from = 0, run_dst = 0;

	/* Runs of one destination go out together, in order: a run is a
	 * range of the burst (anything else in between ends it). */
	for (uint16_t i = 0; i < b->n; i++) {
		uint16_t dst = b->dst[i];

		if (dst != run_dst && k != 0) {
			send_run(w, v, b, run_dst, from, k);
			k = 0;
		}
		if (unlikely(dp_is_drop(dst)))
			continue;
		if (dst == DP_FLOOD) {
			flood(w, v, b, i);
			continue;
		}
		if (k == 0)
			from = i;
		run_dst = dst;
		k++;
	}
	if (k != 0)
		send_run(w, v, b, run_dst, from, k);
}

void dp_stage_output(struct worker *w, const struct view *v, struct dp_burst *b)
{
	/* The whole burst to one port: one call, and for mbufs no trip
	 * through the tx buffer unless it holds frames for that port
	 * already (which must leave first). */
	if (b->one_dst != DP_NO_ONE_DST) {
		if (b->frames ? v->ports[b->one_dst]->ops->tx_frames != NULL
			      : w->txbuf[b->one_dst].n == 0)
			dp_port_send_burst(w, v, b);
		else if (b->frames)
			send_run(w, v, b, b->one_dst, 0, b->n);
		else
			for (uint16_t i = 0; i < b->n; i++)
				txbuf_add(w, v, b->one_dst, b->pkts[i]);
		return;
	}
	if (b->frames) {
		if (b->n_fwd != 0)
			output_frames(w, v, b);
	} else if (unlikely(b->n_fwd == 0)) {
		rte_pktmbuf_free_bulk(b->pkts, b->n);
	} else {
		output_mbufs(w, v, b);
	}
}
