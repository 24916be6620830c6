/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forwarding frames that arrived without mbufs (datapath/frame.h): the
 * same decisions as for mbufs, then each frame is copied once into every
 * destination that takes frames (tx_frames), or made into one mbuf shared
 * by the destinations that do not. Everything is sent before the worker
 * gives the source's slots back (rx_release), so nothing outlives them.
 */
#include <rte_ether.h>

#include "datapath/forward.h"
#include "datapath/frame.h"
#include "datapath/observe.h"
#include "datapath/stats.h"
#include "datapath/worker.h"

struct rte_mbuf *dp_frame_to_mbuf_max(const struct dp_frame *f, uint8_t strip,
				      struct rte_mempool *pool, uint32_t max)
{
	uint32_t len = RTE_MIN(dp_frame_out_len(f, strip), max), off = 0;
	struct rte_mbuf *head = NULL, *tail = NULL;

	while (off < len) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint32_t k;

		if (unlikely(m == NULL)) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		k = RTE_MIN(len - off, (uint32_t)rte_pktmbuf_tailroom(m));
		dp_frame_read(f, strip, off, rte_pktmbuf_mtod(m, uint8_t *), k);
		m->data_len = (uint16_t)k;
		if (head == NULL) {
			head = m;
		} else {
			tail->next = m;
			head->nb_segs++;
		}
		head->pkt_len += k;
		tail = m;
		off += k;
	}
	return head;
}

struct rte_mbuf *dp_frame_to_mbuf(const struct dp_frame *f, uint8_t strip, struct rte_mempool *pool)
{
	return dp_frame_to_mbuf_max(f, strip, pool, UINT32_MAX);
}

/* Frames dropped on their way out of port p, for its capture. */
static void __rte_noinline observe_drop(struct worker *w, const struct dp_port *p,
					struct dp_frame *const *f, const uint8_t *strip, uint16_t k,
					enum drop_reason reason)
{
	uint8_t why[PW_BURST];

	memset(why, reason, sizeof(why));
	capture_frames(w->id, p, f, strip, k, CAPTURE_OUT, why);
}

/* The port's tx_frames, n frames. A ring full for a moment is tried
 * again, a bounded number of times (OVS's tx-retries), before frames are
 * dropped; a try that sends nothing ends it (the peer is not draining:
 * waiting on it would hold up every other port of this worker). Returns
 * how many went. */
static inline uint16_t tx_frames_retry(struct port_counters *c, struct dp_port *p,
				       struct dp_frame *const *f, const uint8_t *strip, uint16_t n)
{
	uint16_t sent = p->ops->tx_frames(p, f, strip, n);

	for (uint16_t r = 0; unlikely(sent < n) && r < p->tx_retries; r++) {
		uint16_t k = p->ops->tx_frames(p, f + sent, strip + sent, n - sent);

		c->tx_retries++;
		if (k == 0)
			break;
		sent += k;
	}
	return sent;
}

/* Counts n frames of bytes bytes handed to a port, of which the first
 * sent went. A full ring drops the frames it cannot take: the source's
 * slots are never held for a destination that is slow. */
static inline void count_sent(struct port_counters *c, struct dp_frame *const *f,
			      const uint8_t *strip, uint16_t n, uint16_t sent, uint64_t bytes)
{
	for (uint16_t i = sent; i < n; i++)
		bytes -= dp_frame_out_len(f[i], strip[i]);
	c->drops[DROP_TX_FULL] += n - sent;
	c->tx_packets += sent;
	c->tx_bytes += bytes;
}

/* Sends k frames to port idx: copied by its kind when it takes frames,
 * else through mbufs. Counts everything on idx. */
static void send_frames(struct worker *w, const struct view *v, uint16_t idx,
			struct dp_frame *const *f, const uint8_t *strip, uint16_t k)
{
	struct port_counters *c = &w->ctr[idx];
	struct dp_port *p = v->ports[idx];
	struct dp_frame *ok[PW_BURST];
	uint8_t ok_strip[PW_BURST];
	struct rte_mbuf *rec[PW_BURST];
	bool cap = false;
	uint64_t bytes = 0;
	uint16_t n = 0, sent;

	if (unlikely(!p->link_up)) {
		c->drops[DROP_LINK_DOWN] += k;
		if (unlikely(p->observe & DP_OBS_CAP_TX))
			observe_drop(w, p, f, strip, k, DROP_LINK_DOWN);
		return;
	}
	for (uint16_t i = 0; i < k; i++) {
		uint32_t len = dp_frame_out_len(f[i], strip[i]);

		if (unlikely(len > p->max_frame)) {
			c->drops[DROP_MTU]++;
			if (unlikely(p->observe & DP_OBS_CAP_TX))
				observe_drop(w, p, &f[i], &strip[i], 1, DROP_MTU);
			continue;
		}
		if (p->ops->tx_frames == NULL) {
			struct rte_mbuf *m = dp_frame_to_mbuf(f[i], strip[i], w->pool);

			if (unlikely(m == NULL)) {
				c->drops[DROP_NO_MBUF]++;
				if (unlikely(p->observe & DP_OBS_CAP_TX))
					observe_drop(w, p, &f[i], &strip[i], 1, DROP_NO_MBUF);
			} else {
				txbuf_add(w, v, idx, m);
			}
			continue;
		}
		bytes += len;
		ok_strip[n] = strip[i];
		ok[n++] = f[i];
	}
	if (n == 0)
		return;
	/* Copied before they are sent; those a full ring refused are tagged. */
	if (unlikely(p->observe & DP_OBS_CAP_TX)) {
		capture_copy_frames(w->id, p, ok, ok_strip, n, CAPTURE_OUT, NULL, rec);
		cap = true;
	}
	if (p->tx_shared)
		rte_spinlock_lock(&p->tx_lock);
	sent = tx_frames_retry(c, p, ok, ok_strip, n);
	if (p->tx_shared)
		rte_spinlock_unlock(&p->tx_lock);
	if (unlikely(cap)) {
		capture_mark(rec, sent, n, DROP_TX_FULL);
		capture_push(w->id, p, rec, n);
	}
	count_sent(c, ok, ok_strip, n, sent, bytes);
}

/* The length below which a cross-connected frame fits both ends, when
 * the peer takes frames, is up and watched by no capture (then every
 * frame of a burst that fits goes straight to xconnect_frames); 0
 * otherwise. */
static inline uint32_t xconnect_lim(const struct dp_port *in, const struct dp_port *peer)
{
	if (peer->ops->tx_frames == NULL || !peer->link_up || peer->tx_shared ||
	    (peer->observe & DP_OBS_CAP_TX))
		return 0;
	return RTE_MIN(in->max_frame, peer->max_frame);
}

/* send_frames for a cross-connected burst xconnect_lim let through: n
 * frames of bytes bytes in all, none stripped, all fit. */
static void xconnect_frames(struct worker *w, const struct view *v, uint16_t idx,
			    struct dp_frame *const *f, const uint8_t *strip, uint16_t n,
			    uint64_t bytes)
{
	struct port_counters *c = &w->ctr[idx];
	struct dp_port *p = v->ports[idx];

	count_sent(c, f, strip, n, tx_frames_retry(c, p, f, strip, n), bytes);
}

/* A flood: one copy per destination that takes frames; the others share
 * one mbuf. Each destination is decided once: link_up is written by the
 * vhost-user and memif control threads meanwhile, and a port that came up
 * between counting the mbuf's references and handing them out would get
 * the mbuf without one (freed once too often, then handed out twice); one
 * that went down would leak it. A port that goes down after the decision
 * frees its reference in dp_port_send. */
static void flood_frame(struct worker *w, const struct view *v, const struct dp_port *in,
			const struct dp_net *net, struct dp_frame *f, uint8_t strip)
{
	uint16_t mbuf_dst[PW_MAX_PORTS];
	struct rte_mbuf *m = NULL;
	uint16_t mbuf_dsts = 0;

	if (unlikely(net->n_ports < 2)) {
		w->ctr[in->idx].drops[DROP_NO_ROUTE]++;
		return;
	}
	for (uint16_t i = 0; i < net->n_ports; i++) {
		const struct dp_port *p = v->ports[net->ports[i]];

		if (p == in)
			continue;
		if (p->ops->tx_frames != NULL || !p->link_up)
			send_frames(w, v, net->ports[i], &f, &strip, 1);
		else
			mbuf_dst[mbuf_dsts++] = net->ports[i];
	}
	if (mbuf_dsts == 0)
		return;
	m = dp_frame_to_mbuf(f, strip, w->pool);
	if (unlikely(m == NULL)) {
		for (uint16_t i = 0; i < mbuf_dsts; i++) {
			const struct dp_port *p = v->ports[mbuf_dst[i]];

			w->ctr[mbuf_dst[i]].drops[DROP_NO_MBUF]++;
			if (unlikely(p->observe & DP_OBS_CAP_TX))
				observe_drop(w, p, &f, &strip, 1, DROP_NO_MBUF);
		}
		return;
	}
	if (mbuf_dsts > 1)
		for (struct rte_mbuf *s = m; s != NULL; s = s->next)
			rte_mbuf_refcnt_update(s, (int16_t)(mbuf_dsts - 1));
	for (uint16_t i = 0; i < mbuf_dsts; i++)
		txbuf_add(w, v, mbuf_dst[i], m);
}

/* A watched port's burst, decided: captured as received (each frame
 * tagged with its ingress drop) and traced. */
static void __rte_noinline observe_in(struct worker *w, const struct view *v,
				      const struct dp_port *in, const struct dp_net *net,
				      struct dp_frame *const *f, const uint8_t *const *hdr,
				      const uint32_t *hlen, const uint32_t *len,
				      const uint16_t *dst, const uint8_t *strip, uint16_t n)
{
	uint8_t why[PW_BURST];

	if (in->observe & DP_OBS_CAP_RX) {
		l2_drop_reasons(net, dst, n, why);
		capture_frames(w->id, in, f, NULL, n, CAPTURE_IN, why);
	}
	if (in->observe & DP_OBS_TRACE)
		trace_bridge(w->id, v, in, net, hdr, hlen, len, dst, strip, n);
}

static void __rte_noinline observe_xconnect(struct worker *w, const struct view *v,
					    const struct dp_port *in, struct dp_frame *const *f,
					    uint16_t n, uint16_t peer)
{
	const uint8_t *hdr[PW_BURST];
	uint32_t hlen[PW_BURST], len[PW_BURST];
	uint8_t why[PW_BURST];

	for (uint16_t i = 0; i < n; i++) {
		/* What is captured and traced is what goes out: the header
		 * copied now is the one forwarded. */
		dp_frame_header(f[i]);
		hdr[i] = f[i]->hdr;
		hlen[i] = f[i]->hdr_len;
		len[i] = f[i]->len;
		why[i] = peer == UINT16_MAX	      ? DROP_NO_ROUTE
			 : len[i] < RTE_ETHER_HDR_LEN ? DROP_RUNT
			 : len[i] > in->max_frame     ? DROP_MTU
						      : DROP_MAX;
	}
	if (in->observe & DP_OBS_CAP_RX)
		capture_frames(w->id, in, f, NULL, n, CAPTURE_IN, why);
	if (in->observe & DP_OBS_TRACE)
		trace_xconnect(w->id, v, in, hdr, hlen, len, n, peer, why);
}

void frames_input(struct worker *w, const struct view *v, struct dp_port *in,
		  const struct dp_net *net, struct dp_frame *f, uint16_t n)
{
	struct port_counters *c = &w->ctr[in->idx];
	struct dp_frame *run[PW_BURST];
	const uint8_t *hdr[PW_BURST];
	uint32_t hlen[PW_BURST], len[PW_BURST];
	uint16_t dst[PW_BURST];
	uint8_t strip[PW_BURST], run_strip[PW_BURST];
	uint16_t k = 0, run_dst = UINT16_MAX; /* no run yet */

	if (unlikely(n == 0 || n > PW_BURST))
		return;
	if (net->mode == DP_NET_XCONNECT) {
		uint16_t peer = v->xc_peer[in->idx];
		uint64_t bytes = 0;
		uint32_t longest = 0, lim;

		/* longest: beyond the Ethernet header, where a runt (shorter
		 * than one) wraps past every limit and leaves the fast path. */
		for (uint16_t i = 0; i < n; i++) {
			bytes += f[i].len;
			longest = RTE_MAX(longest, f[i].len - (uint32_t)RTE_ETHER_HDR_LEN);
			strip[i] = 0;
			run[i] = &f[i];
		}
		if (unlikely(in->observe & (DP_OBS_CAP_RX | DP_OBS_TRACE)))
			observe_xconnect(w, v, in, run, n, peer);
		c->rx_packets += n;
		c->rx_bytes += bytes;
		if (unlikely(peer == UINT16_MAX)) {
			c->drops[DROP_NO_ROUTE] += n;
			return;
		}
		lim = xconnect_lim(in, v->ports[peer]);
		if (likely(lim != 0 && longest <= lim - (uint32_t)RTE_ETHER_HDR_LEN)) {
			xconnect_frames(w, v, peer, run, strip, n, bytes);
			return;
		}
		/* Runts and the ingress MTU first; the egress MTU is
		 * send_frames'. */
		for (uint16_t i = 0; i < n; i++) {
			if (unlikely(f[i].len < RTE_ETHER_HDR_LEN)) {
				c->drops[DROP_RUNT]++;
				continue;
			}
			if (unlikely(f[i].len > in->max_frame)) {
				c->drops[DROP_MTU]++;
				continue;
			}
			run[k++] = &f[i];
		}
		if (k != 0)
			send_frames(w, v, peer, run, strip, k);
		return;
	}
	/* The bridge decides from the header: a private copy, taken after
	 * the port's rx asked for every frame's first line. */
	for (uint16_t i = 0; i < n; i++) {
		dp_frame_header(&f[i]);
		hdr[i] = f[i].hdr;
		hlen[i] = f[i].hdr_len;
		len[i] = f[i].len;
	}
	k = l2_bridge_decide(w, v, in, net, hdr, hlen, len, n, dst, strip);
	if (unlikely(in->observe & (DP_OBS_CAP_RX | DP_OBS_TRACE))) {
		for (uint16_t i = 0; i < n; i++)
			run[i] = &f[i];
		observe_in(w, v, in, net, run, hdr, hlen, len, dst, strip, n);
	}
	if (k == 0)
		return;
	k = 0;
	/* Runs of one destination go out together, in order. */
	for (uint16_t i = 0; i < n; i++) {
		if (dst[i] != run_dst && k != 0) {
			send_frames(w, v, run_dst, run, run_strip, k);
			k = 0;
		}
		if (l2_is_drop(dst[i]))
			continue;
		if (dst[i] == L2_FLOOD) {
			flood_frame(w, v, in, net, &f[i], strip[i]);
			continue;
		}
		run_dst = dst[i];
		run_strip[k] = strip[i];
		run[k++] = &f[i];
	}
	if (k != 0)
		send_frames(w, v, run_dst, run, run_strip, k);
}
