/* SPDX-License-Identifier: BSD-3-Clause */
/* Cross-connect: every frame from one port goes to its peer, no lookup. */
#include "worker.h"

void xconnect_input(struct worker *w, const struct dp_view *v, struct port *in,
		    struct rte_mbuf **pkts, uint16_t n)
{
	struct port_counters *c = &w->ctr[in->idx];
	uint16_t peer = v->xc_peer[in->idx];
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < n; i++)
		bytes += pkts[i]->pkt_len;
	c->rx_packets += n;
	c->rx_bytes += bytes;
	if (unlikely(peer == UINT16_MAX)) {
		c->drops[DROP_NO_ROUTE] += n;
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	for (uint16_t i = 0; i < n; i++) {
		if (unlikely(pkts[i]->pkt_len > in->max_frame)) {
			c->drops[DROP_MTU]++;
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		txb_add(w, v, peer, pkts[i]);
	}
}
