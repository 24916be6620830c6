/* SPDX-License-Identifier: BSD-3-Clause */
/* Tx buffers per destination port; see txbuf.h. */
#include "datapath/txbuf.h"
#include "datapath/worker.h"

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
