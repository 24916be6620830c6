/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending to one port, for frames of either sort (see txbuf.h): written
 * once, made into two functions by the compiler (port_send is inlined
 * with its sort known).
 *
 * Frames with offload requests (offload/offload.h) the port cannot take,
 * or super-frames whose segments would exceed its MTU, are made into
 * frames it takes first (send_fixed): one test per burst finds that no
 * frame asks for anything.
 */
#include "datapath/burst.h"
#include "datapath/observe.h"
#include "datapath/stats.h"
#include "datapath/txbuf.h"
#include "datapath/worker.h"
#include "offload/offload.h"

/* The port's tx of n frames (m, or f with strip). A ring full for a
 * moment is tried again, a bounded number of times (OVS's tx-retries),
 * before frames are dropped; a try that sends nothing ends it (the peer
 * is not draining: waiting on it would hold up every other port of this
 * worker). Returns how many went. */
static __rte_always_inline uint16_t tx_retry(struct port_counters *c, struct dp_port *p,
					     uint16_t wid, struct rte_mbuf **m, struct dp_frame **f,
					     const uint8_t *strip, uint16_t n)
{
	uint16_t sent = 0;

	for (uint16_t r = 0;; r++) {
		uint16_t k = m != NULL
				 ? p->ops->tx_burst(p, wid, m + sent, n - sent)
				 : p->ops->tx_frames(p, wid, f + sent, strip + sent, n - sent);

		sent += k;
		if (likely(sent == n) || r == p->tx_retries || (r != 0 && k == 0))
			return sent;
		c->tx_retries++;
	}
}

/* Whether m must be made into other frames before port p takes it. */
static inline bool needs_fix(const struct dp_port *p, const struct rte_mbuf *m)
{
	if (likely((m->ol_flags & OFFLOAD_MBUF_FLAGS) == 0))
		return false;
	return (offload_needs(m) & ~(uint32_t)p->tx_ol) != 0 || offload_wire_len(m) > p->max_frame;
}

/* A frame's length as it goes out. */
static __rte_always_inline uint32_t out_len(struct rte_mbuf **m, struct dp_frame **f,
					    const uint8_t *strip, uint16_t i)
{
	return m != NULL ? m[i]->pkt_len : dp_frame_out_len(f[i], strip[i]);
}

/* Frames i of a send that is not made: counted on the port, captured,
 * and (mbufs) freed. */
static __rte_noinline void send_drop(struct worker *w, struct dp_port *p, struct rte_mbuf **m,
				     struct dp_frame **f, uint8_t *strip, uint16_t n,
				     enum drop_reason why)
{
	w->ctr[p->idx].drops[why] += n;
	capture_drop(w->id, p, m, f, strip, n, CAPTURE_OUT, why);
	if (m != NULL)
		rte_pktmbuf_free_bulk(m, n);
}

void dp_egress_drop(struct worker *w, struct dp_port *p, struct rte_mbuf **m, struct dp_frame **f,
		    uint8_t *strip, uint16_t n, enum drop_reason why)
{
	if (n != 0)
		send_drop(w, p, m, f, strip, n, why);
}

static void send_fixed(struct worker *w, const struct view *v, uint16_t idx, struct rte_mbuf **m,
		       uint16_t n);

/* known_bytes: the frames' bytes as they go out when the caller knows
 * them and that none exceeds the port's MTU (else UINT64_MAX). fixed:
 * no frame asks for what the port cannot take (send_fixed made them). */
static __rte_always_inline void port_send(struct worker *w, const struct view *v, uint16_t idx,
					  struct rte_mbuf **m, struct dp_frame **f, uint8_t *strip,
					  uint16_t n, uint64_t known_bytes, bool fixed)
{
	struct port_counters *c = &w->ctr[idx];
	struct dp_port *p = v->ports[idx];
	struct rte_mbuf *rec[TXBUF_SIZE];
	bool cap = false;
	uint64_t bytes = 0;
	uint16_t sent, k = 0;

	if (unlikely(p == NULL)) {
		if (m != NULL)
			rte_pktmbuf_free_bulk(m, n);
		return;
	}
	if (unlikely(!p->link_up)) {
		send_drop(w, p, m, f, strip, n, DROP_LINK_DOWN);
		return;
	}
	if (m != NULL && !fixed) {
		uint64_t ol = 0;

		for (uint16_t i = 0; i < n; i++)
			ol |= m[i]->ol_flags;
		if (unlikely(ol & OFFLOAD_MBUF_FLAGS)) {
			for (uint16_t i = 0; i < n; i++)
				if (needs_fix(p, m[i])) {
					send_fixed(w, v, idx, m, n);
					return;
				}
		}
	}
	/* Policy on the way out (registered egress stages). */
	if (unlikely(p->egress != 0)) {
		uint16_t kept = dp_egress_run(w, v, p, m, f, strip, n);

		if (kept != n)
			known_bytes = UINT64_MAX;
		n = kept;
		if (n == 0)
			return;
	}
	/* The egress MTU; those that fit keep their order. */
	if (known_bytes != UINT64_MAX) {
		bytes = known_bytes;
		k = n;
	}
	for (uint16_t i = k; i < n; i++) {
		uint32_t len = out_len(m, f, strip, i);

		if (unlikely(len > p->max_frame) &&
		    (m == NULL || offload_wire_len(m[i]) > p->max_frame)) {
			if (m != NULL)
				send_drop(w, p, &m[i], NULL, NULL, 1, DROP_MTU);
			else
				send_drop(w, p, NULL, &f[i], &strip[i], 1, DROP_MTU);
			continue;
		}
		bytes += len;
		if (unlikely(k != i)) {
			if (m != NULL) {
				m[k] = m[i];
			} else {
				f[k] = f[i];
				strip[k] = strip[i];
			}
		}
		k++;
	}
	n = k;
	if (m != NULL && p->ops->tx_prepare != NULL) {
		n = p->ops->tx_prepare(p, m, n, c);
		bytes = 0;
		for (uint16_t i = 0; i < n; i++)
			bytes += m[i]->pkt_len;
	}
	if (n == 0)
		return;
	/* Copies are made before the frames go (they then belong to the
	 * peer), and those a full ring refused are tagged tx_full after. */
	if (unlikely(p->observe & DP_OBS_CAP_TX)) {
		capture_copy(w->id, p, m, f, strip, n, CAPTURE_OUT, NULL, rec);
		cap = true;
	}
	if (p->tx_shared)
		rte_spinlock_lock(&p->tx_lock);
	sent = tx_retry(c, p, (uint16_t)w->id, m, f, strip, n);
	if (p->tx_shared)
		rte_spinlock_unlock(&p->tx_lock);
	if (unlikely(cap)) {
		capture_mark(rec, sent, n, DROP_TX_FULL);
		capture_push(w->id, p, rec, n);
	}
	if (unlikely(sent < n)) {
		for (uint16_t i = sent; i < n; i++)
			bytes -= out_len(m, f, strip, i);
		c->drops[DROP_TX_FULL] += n - sent;
		if (m != NULL)
			rte_pktmbuf_free_bulk(&m[sent], n - sent);
	}
	c->tx_packets += sent;
	c->tx_bytes += bytes;
}

/* n mbufs none of which asks for what port idx cannot take. */
static __rte_noinline void send_plain(struct worker *w, const struct view *v, uint16_t idx,
				      struct rte_mbuf **m, uint16_t n)
{
	port_send(w, v, idx, m, NULL, NULL, n, UINT64_MAX, true);
}

/* Frames of which some ask for what port idx cannot take: those are made
 * into frames it takes (offload_fix), and everything leaves in order. A
 * frame that cannot be made is dropped: no_mbuf when the pool is short,
 * mtu_exceeded when even its headers do not fit, bad_offload when its
 * request does not describe it. */
static __rte_noinline void send_fixed(struct worker *w, const struct view *v, uint16_t idx,
				      struct rte_mbuf **m, uint16_t n)
{
	struct dp_port *p = v->ports[idx];
	struct rte_mbuf *seg[OFFLOAD_MAX_SEGS];
	uint16_t from = 0;

	for (uint16_t i = 0; i < n; i++) {
		int k;

		if (!needs_fix(p, m[i]))
			continue;
		if (i > from)
			send_plain(w, v, idx, &m[from], i - from);
		from = i + 1;
		k = offload_fix(m[i], p->tx_ol, p->max_frame, w->pool, seg, OFFLOAD_MAX_SEGS);
		if (unlikely(k < 0)) {
			send_drop(w, p, &m[i], NULL, NULL, 1,
				  k == -ENOMEM	   ? DROP_NO_MBUF
				  : k == -EMSGSIZE ? DROP_MTU
						   : DROP_BAD_OFFLOAD);
			continue;
		}
		for (int j = 0; j < k; j += TXBUF_SIZE)
			send_plain(w, v, idx, &seg[j], (uint16_t)RTE_MIN(k - j, TXBUF_SIZE));
	}
	if (n > from)
		send_plain(w, v, idx, &m[from], n - from);
}

void dp_port_send(struct worker *w, const struct view *v, uint16_t idx, struct rte_mbuf **pkts,
		  uint16_t n)
{
	port_send(w, v, idx, pkts, NULL, NULL, n, UINT64_MAX, false);
}

void dp_port_send_frames(struct worker *w, const struct view *v, uint16_t idx, struct dp_frame **f,
			 uint8_t *strip, uint16_t n)
{
	port_send(w, v, idx, NULL, f, strip, n, UINT64_MAX, false);
}

void dp_port_send_burst(struct worker *w, const struct view *v, struct dp_burst *b)
{
	const struct dp_port *p = v->ports[b->one_dst];
	uint64_t known = UINT64_MAX;

	if (!b->stripped && p != NULL && b->longest <= p->max_frame)
		known = b->bytes;
	if (b->frames)
		port_send(w, v, b->one_dst, NULL, b->fp, b->strip, b->n, known, false);
	else
		port_send(w, v, b->one_dst, b->pkts, NULL, NULL, b->n, known, false);
}
