/* SPDX-License-Identifier: BSD-3-Clause */
#include "datapath/observe.h"
#include "datapath/stats.h"
#include "datapath/txbuf.h"
#include "datapath/worker.h"

void dp_port_send(struct worker *w, const struct view *v, uint16_t idx, struct rte_mbuf **pkts,
		  uint16_t n)
{
	struct port_counters *c = &w->ctr[idx];
	struct dp_port *p = v->ports[idx];
	struct rte_mbuf *rec[TXBUF_SIZE];
	bool cap = false;
	uint64_t bytes = 0;
	uint16_t sent;

	if (unlikely(p == NULL || !p->link_up)) {
		if (p != NULL) {
			c->drops[DROP_LINK_DOWN] += n;
			capture_drop(w->id, p, pkts, n, CAPTURE_OUT, DROP_LINK_DOWN);
		}
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	if (p->ops->tx_prepare != NULL) {
		n = p->ops->tx_prepare(p, pkts, n, c);
		if (n == 0)
			return;
	}
	for (uint16_t i = 0; i < n; i++)
		bytes += pkts[i]->pkt_len;
	/* Copies are made before the frames go (they then belong to the
	 * peer), and those a full ring refused are tagged tx_full after. */
	if (unlikely(p->observe & DP_OBS_CAP_TX) && n <= TXBUF_SIZE) {
		capture_copy_mbufs(w->id, p, pkts, n, CAPTURE_OUT, NULL, rec);
		cap = true;
	}
	if (p->tx_shared)
		rte_spinlock_lock(&p->tx_lock);
	sent = p->ops->tx_burst(p, pkts, n);
	/* A ring full for a moment is tried again, a bounded number of
	 * times (OVS's tx-retries), before frames are dropped; a try that
	 * sends nothing ends it (the peer is not draining: waiting on it
	 * would hold up every other port of this worker). */
	for (uint16_t r = 0; unlikely(sent < n) && r < p->tx_retries; r++) {
		uint16_t k = p->ops->tx_burst(p, pkts + sent, n - sent);

		c->tx_retries++;
		if (k == 0)
			break;
		sent += k;
	}
	if (p->tx_shared)
		rte_spinlock_unlock(&p->tx_lock);
	if (unlikely(cap)) {
		capture_mark(rec, sent, n, DROP_TX_FULL);
		capture_push(w->id, p, rec, n);
	}
	if (unlikely(sent < n)) {
		for (uint16_t i = sent; i < n; i++)
			bytes -= pkts[i]->pkt_len;
		c->drops[DROP_TX_FULL] += n - sent;
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
	c->tx_packets += sent;
	c->tx_bytes += bytes;
}

static inline void txbuf_flush(struct worker *w, const struct view *v, uint16_t idx)
{
	struct txbuf *b = &w->txbuf[idx];
	uint16_t n = b->n;

	b->n = 0;
	dp_port_send(w, v, idx, b->pkts, n);
}

void txbuf_add(struct worker *w, const struct view *v, uint16_t out, struct rte_mbuf *m)
{
	struct txbuf *b = &w->txbuf[out];
	const struct dp_port *p = v->ports[out];

	if (unlikely(m->pkt_len > p->max_frame)) {
		w->ctr[out].drops[DROP_MTU]++;
		capture_drop(w->id, p, &m, 1, CAPTURE_OUT, DROP_MTU);
		rte_pktmbuf_free(m);
		return;
	}
	if (!b->queued) {
		b->queued = true;
		w->dirty[w->n_dirty++] = out;
	}
	b->pkts[b->n++] = m;
	if (unlikely(b->n == TXBUF_SIZE))
		txbuf_flush(w, v, out);
}

void txbuf_flush_all(struct worker *w, const struct view *v)
{
	for (uint16_t i = 0; i < w->n_dirty; i++) {
		struct txbuf *b = &w->txbuf[w->dirty[i]];

		b->queued = false;
		if (b->n != 0)
			txbuf_flush(w, v, w->dirty[i]);
	}
	w->n_dirty = 0;
}

void txbuf_flush_full(struct worker *w, const struct view *v)
{
	uint16_t k = 0;

	for (uint16_t i = 0; i < w->n_dirty; i++) {
		uint16_t idx = w->dirty[i];
		struct txbuf *b = &w->txbuf[idx];

		if (b->n >= TXBUF_FLUSH_MIN)
			txbuf_flush(w, v, idx);
		if (b->n != 0)
			w->dirty[k++] = idx;
		else
			b->queued = false;
	}
	w->n_dirty = k;
}
