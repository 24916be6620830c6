/* SPDX-License-Identifier: BSD-3-Clause */
/* Cross-connect: every frame from one port goes to its peer, no lookup. */
#include "datapath/forward.h"
#include "datapath/worker.h"

void xconnect_input(struct worker *w, const struct view *v, struct dp_port *in,
		    struct rte_mbuf **pkts, uint16_t n)
{
	struct port_counters *c = &w->ctr[in->idx];
	uint16_t peer = v->xc_peer[in->idx];
	uint64_t bytes = 0;
	uint32_t lim;

	for (uint16_t i = 0; i < n; i++)
		bytes += pkts[i]->pkt_len;
	c->rx_packets += n;
	c->rx_bytes += bytes;
	if (unlikely(peer == UINT16_MAX)) {
		c->drops[DROP_NO_ROUTE] += n;
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	/* The whole burst goes to one place: send it as it is, like a wire,
	 * unless a frame is too large for either end (then keep the others in
	 * order; the drop counts on the port whose MTU it exceeds). */
	lim = RTE_MIN(in->max_frame, v->ports[peer]->max_frame);
	for (uint16_t i = 0; i < n; i++) {
		if (unlikely(pkts[i]->pkt_len > lim)) {
			uint16_t k = 0;

			for (uint16_t j = 0; j < n; j++) {
				if (pkts[j]->pkt_len > lim) {
					w->ctr[pkts[j]->pkt_len > in->max_frame ? in->idx : peer]
					    .drops[DROP_MTU]++;
					rte_pktmbuf_free(pkts[j]);
				} else {
					pkts[k++] = pkts[j];
				}
			}
			n = k;
			break;
		}
	}
	if (n != 0)
		dp_port_send(w, v, peer, pkts, n);
}
