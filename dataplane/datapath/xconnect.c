/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cross-connect's decision (a stage, see burst.h): every frame from
 * one port goes to its peer, no lookup. The input stage dropped runts and
 * frames over the port's MTU; one too large for the peer is the peer's
 * drop, at output.
 */
#include "datapath/burst.h"
#include "datapath/worker.h"

void xconnect_decide(struct worker *w, const struct view *v, struct dp_burst *b)
{
	uint16_t peer = v->xc_peer[b->in->idx];

	if (unlikely(peer == UINT16_MAX)) {
		struct port_counters *c = &w->ctr[b->in->idx];

		for (uint16_t i = 0; i < b->n; i++)
			if (!dp_is_drop(b->dst[i]))
				dp_burst_drop(b, c, i, DROP_NO_ROUTE);
		return;
	}
	if (likely(b->n_fwd == b->n)) {
		for (uint16_t i = 0; i < b->n; i++)
			b->dst[i] = peer;
		b->one_dst = peer;
		return;
	}
	for (uint16_t i = 0; i < b->n; i++)
		if (!dp_is_drop(b->dst[i]))
			b->dst[i] = peer;
}
