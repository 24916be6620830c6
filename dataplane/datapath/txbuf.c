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
	/* Listed once however often it fills: the flag is cleared only when
	 * txbuf_flush_full takes it off the list. */
	if (b->n == TXBUF_FLUSH_MIN && !b->ready) {
		b->ready = true;
		w->ready[w->n_ready++] = out;
	}
	if (unlikely(b->n == TXBUF_SIZE))
		txbuf_flush(w, v, out);
}

void txbuf_flush_all(struct worker *w, const struct view *v)
{
	for (uint16_t i = 0; i < w->n_dirty; i++) {
		struct txbuf *b = &w->txbuf[w->dirty[i]];

		b->queued = false;
		b->ready = false;
		if (b->n != 0)
			txbuf_flush(w, v, w->dirty[i]);
	}
	w->n_dirty = 0;
	w->n_ready = 0;
}

void txbuf_flush_full(struct worker *w, const struct view *v)
{
	/* A buffer sent here stays in the dirty list, empty: the end of the
	 * turn skips it (once per turn, not once per burst). */
	for (uint16_t i = 0; i < w->n_ready; i++) {
		uint16_t idx = w->ready[i];
		struct txbuf *b = &w->txbuf[idx];

		b->ready = false;
		if (b->n >= TXBUF_FLUSH_MIN)
			txbuf_flush(w, v, idx);
	}
	w->n_ready = 0;
}
