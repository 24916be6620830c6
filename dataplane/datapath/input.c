/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The input stage: every frame's length and first bytes, then the checks
 * that hold whatever the network does with it. Both sorts of network
 * drop runts (shorter than an Ethernet header: NICs take them for a
 * malicious driver) and frames larger than the ingress port's MTU. A
 * bridge's pod ports are access ports besides: a frame tagged with the
 * network's own VLAN is accepted untagged, any other tag is dropped, and
 * with port security only the port's own source MACs get in. A
 * cross-connect is a wire: tags pass as they are.
 *
 * A frame with an offload request (offload/offload.h: a super-frame to be
 * cut, a checksum to be completed) is measured against the MTU by the
 * frames it makes on a wire, and its request is checked against its
 * bytes: one that does not describe the frame is dropped (bad_offload).
 */
#include <rte_byteorder.h>
#include <rte_ether.h>

#include "datapath/burst.h"
#include "datapath/worker.h"
#include "offload/offload.h"

/* Port security: whether the source at src is the port's MAC or one it
 * is allowed. */
static inline bool src_allowed(const struct dp_port *in, const uint8_t *src)
{
	uint64_t s = dp_mac_load(src);

	if (likely(s == in->mac))
		return true;
	for (uint8_t i = 0; i < in->n_allowed; i++)
		if (s == in->allowed[i])
			return true;
	return false;
}

/* Whether frame i, less strip bytes of tag, is larger than the ingress
 * port takes. A super-frame is as long as the frames it makes. */
static inline bool over_mtu(const struct dp_burst *b, uint16_t i, uint32_t strip)
{
	uint32_t max = b->in->max_frame + strip;

	if (likely(b->len[i] <= max))
		return false;
	return b->frames || offload_wire_len(b->pkts[i]) > max;
}

/* Whether frame i may enter the bridge: DROP_MAX when it may, else the
 * reason. Sets strip[i] for a frame carrying the network's own tag. */
static inline enum drop_reason bridge_check(const struct dp_burst *b, uint16_t i, uint8_t *strip)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)b->hdr[i];
	const struct dp_port *in = b->in;

	if (unlikely(b->hlen[i] < RTE_ETHER_HDR_LEN))
		return DROP_RUNT;
	if (unlikely(eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN))) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eth + 1);

		if (b->net->vlan == 0 || b->hlen[i] < RTE_ETHER_HDR_LEN + 4 ||
		    (rte_be_to_cpu_16(vh->vlan_tci) & 0xfff) != b->net->vlan)
			return DROP_VLAN;
		*strip = 1;
	}
	if (unlikely(over_mtu(b, i, 4u * *strip)))
		return DROP_MTU;
	if (unlikely(in->port_security) && unlikely(!src_allowed(in, eth->src_addr.addr_bytes)))
		return DROP_SPOOFED_SRC;
	return DROP_MAX;
}

/* A cross-connect's checks. One unsigned compare per frame finds both
 * drops: a runt's length less the header wraps past any limit. */
static inline void xconnect_check(struct dp_burst *b, struct port_counters *c)
{
	uint32_t lim = b->in->max_frame - (uint32_t)RTE_ETHER_HDR_LEN;

	for (uint16_t i = 0; i < b->n; i++) {
		if (likely(b->len[i] - (uint32_t)RTE_ETHER_HDR_LEN <= lim))
			continue;
		if (b->len[i] < RTE_ETHER_HDR_LEN)
			dp_burst_drop(b, c, i, DROP_RUNT);
		else if (over_mtu(b, i, 0))
			dp_burst_drop(b, c, i, DROP_MTU);
	}
}

/* The requests of frames that have one, checked against their bytes
 * (librte_vhost's parse of a guest's header lets a segment size or a TCP
 * header length of 0 through); frames already dropped are left alone. */
static __rte_noinline void check_offloads(struct dp_burst *b, struct port_counters *c)
{
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];

		if ((m->ol_flags & OFFLOAD_MBUF_FLAGS) == 0 || dp_is_drop(b->dst[i]))
			continue;
		if (unlikely(offload_check(m) != 0))
			dp_burst_drop(b, c, i, DROP_BAD_OFFLOAD);
	}
}

void dp_stage_input(struct worker *w, const struct view *v, struct dp_burst *b)
{
	struct port_counters *c = &w->ctr[b->in->idx];
	uint32_t shortest = UINT32_MAX, longest = 0;
	uint64_t bytes = 0, ol = 0;

	RTE_SET_USED(v);
	if (b->frames) {
		/* Decisions and what is watched read a private copy of the
		 * header (frame.h); a cross-connect nobody watches reads none. */
		if (b->net->mode != DP_NET_XCONNECT || b->in->observe != 0)
			dp_burst_headers(b);
		for (uint16_t i = 0; i < b->n; i++) {
			uint32_t len = b->f[i].len;

			b->fp[i] = &b->f[i];
			b->len[i] = len;
			bytes += len;
			shortest = RTE_MIN(shortest, len);
			longest = RTE_MAX(longest, len);
		}
	} else {
		for (uint16_t i = 0; i < b->n; i++) {
			const struct rte_mbuf *m = b->pkts[i];
			uint32_t len = m->pkt_len;

			b->hdr[i] = rte_pktmbuf_mtod(m, const uint8_t *);
			b->hlen[i] = m->data_len;
			b->len[i] = len;
			ol |= m->ol_flags;
			bytes += len;
			shortest = RTE_MIN(shortest, len);
			longest = RTE_MAX(longest, len);
		}
	}
	c->rx_packets += b->n;
	c->rx_bytes += bytes;
	b->bytes = bytes;
	b->longest = longest;
	b->n_fwd = b->n;
	b->one_dst = DP_NO_ONE_DST;
	b->stripped = false;
	memset(b->dst, 0, sizeof(b->dst));
	memset(b->strip, 0, sizeof(b->strip));
	if (b->net->mode == DP_NET_XCONNECT) {
		/* Frames of a burst are all checked at once in the common
		 * case: none short, none long. */
		if (unlikely(shortest < RTE_ETHER_HDR_LEN || longest > b->in->max_frame))
			xconnect_check(b, c);
	} else {
		for (uint16_t i = 0; i < b->n; i++) {
			enum drop_reason why = bridge_check(b, i, &b->strip[i]);

			b->stripped |= b->strip[i];
			if (unlikely(why != DROP_MAX))
				dp_burst_drop(b, c, i, why);
		}
	}
	if (unlikely(ol & OFFLOAD_MBUF_FLAGS))
		check_offloads(b, c);
}
