/* SPDX-License-Identifier: BSD-3-Clause */
/* Cross-connect: every frame from one port goes to its peer, no lookup. */
#include <rte_ether.h>

#include "datapath/forward.h"
#include "datapath/observe.h"
#include "datapath/worker.h"

/* A watched port's burst: captured as received, with the frames dropped
 * at ingress tagged (no peer, larger than the port's MTU), and traced. */
static void __rte_noinline observe_in(struct worker *w, const struct view *v,
				      const struct dp_port *in, struct rte_mbuf **pkts, uint16_t n,
				      uint16_t peer)
{
	const uint8_t *hdr[PW_BURST];
	uint32_t hlen[PW_BURST], len[PW_BURST];
	uint8_t why[PW_BURST];

	for (uint16_t i = 0; i < n; i++) {
		hdr[i] = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		hlen[i] = pkts[i]->data_len;
		len[i] = pkts[i]->pkt_len;
		why[i] = peer == UINT16_MAX	      ? DROP_NO_ROUTE
			 : len[i] < RTE_ETHER_HDR_LEN ? DROP_RUNT
			 : len[i] > in->max_frame     ? DROP_MTU
						      : DROP_MAX;
	}
	if (in->observe & DP_OBS_CAP_RX)
		capture_mbufs(w->id, in, pkts, n, CAPTURE_IN, why);
	if (in->observe & DP_OBS_TRACE)
		trace_xconnect(w->id, v, in, hdr, hlen, len, n, peer, why);
}

void xconnect_input(struct worker *w, const struct view *v, struct dp_port *in,
		    struct rte_mbuf **pkts, uint16_t n)
{
	struct port_counters *c = &w->ctr[in->idx];
	uint16_t peer = v->xc_peer[in->idx];
	uint64_t bytes = 0;
	uint32_t lim;

	if (unlikely(n == 0 || n > PW_BURST))
		return;
	if (unlikely(in->observe & (DP_OBS_CAP_RX | DP_OBS_TRACE)))
		observe_in(w, v, in, pkts, n, peer);
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
	 * unless a frame is too large for either end or shorter than an
	 * Ethernet header (then keep the others in order; a runt is the
	 * ingress port's drop, an MTU drop counts on the port whose MTU it
	 * exceeds). One unsigned compare per frame finds both: a runt's
	 * length less the header wraps past any limit. NICs take runts for
	 * a malicious driver: none may reach an uplink. */
	lim = RTE_MIN(in->max_frame, v->ports[peer]->max_frame) - (uint32_t)RTE_ETHER_HDR_LEN;
	for (uint16_t i = 0; i < n; i++) {
		if (unlikely(pkts[i]->pkt_len - (uint32_t)RTE_ETHER_HDR_LEN > lim)) {
			uint16_t k = 0;

			for (uint16_t j = 0; j < n; j++) {
				if (pkts[j]->pkt_len < RTE_ETHER_HDR_LEN) {
					c->drops[DROP_RUNT]++;
					rte_pktmbuf_free(pkts[j]);
				} else if (pkts[j]->pkt_len > in->max_frame) {
					c->drops[DROP_MTU]++;
					rte_pktmbuf_free(pkts[j]);
				} else if (pkts[j]->pkt_len - (uint32_t)RTE_ETHER_HDR_LEN > lim) {
					/* Too large for the peer: its drop. */
					w->ctr[peer].drops[DROP_MTU]++;
					capture_drop(w->id, v->ports[peer], &pkts[j], 1,
						     CAPTURE_OUT, DROP_MTU);
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
