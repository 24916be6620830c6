/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * L2 bridge: learn source MACs, look destinations up in bulk, flood
 * broadcast, multicast and unknown unicast to the other ports of the
 * network. Pod ports are access ports: a frame tagged with the network's
 * own VLAN is accepted untagged, any other tag is dropped.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

#include "datapath/worker.h"

/* The 6 bytes of the MAC address at p as one integer, for equality tests
 * only. It loads 8 bytes (p + 8 must lie in the frame: the source address
 * is followed by the EtherType) in one go: copying 6 bytes into a
 * uint64_t on the stack and reading it back made two stores and a wider
 * load, which the CPU cannot forward, and that stall was 3/4 of this
 * file's cycles. */
static inline uint64_t mac_word(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return v & 0xffffffffffffull;
#else
	return v >> 16;
#endif
}

static void flood(struct worker *w, const struct dp_view *v, const struct port *in,
		  const struct dp_net *net, struct rte_mbuf *m)
{
	uint16_t targets = net->n_ports - 1;

	if (unlikely(targets == 0)) {
		w->ctr[in->idx].drops[DROP_NO_ROUTE]++;
		rte_pktmbuf_free(m);
		return;
	}
	/* One mbuf, shared: each destination frees its reference. */
	if (targets > 1)
		for (struct rte_mbuf *s = m; s != NULL; s = s->next)
			rte_mbuf_refcnt_update(s, (int16_t)(targets - 1));
	for (uint16_t i = 0; i < net->n_ports; i++)
		if (net->ports[i] != in->idx)
			txb_add(w, v, net->ports[i], m);
}

/* Returns false (and frees m) when the frame must not be forwarded. */
static inline bool ingress_ok(struct port_counters *c, const struct port *in,
			      const struct dp_net *net, struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth;

	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN)) {
		c->drops[DROP_RUNT]++;
		goto drop;
	}
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (unlikely(eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN))) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eth + 1);
		uint16_t vid = rte_be_to_cpu_16(vh->vlan_tci) & 0xfff;

		if (net->vlan == 0 || vid != net->vlan || m->data_len < RTE_ETHER_HDR_LEN + 4 ||
		    rte_vlan_strip(m) != 0) {
			c->drops[DROP_VLAN]++;
			goto drop;
		}
	}
	if (unlikely(m->pkt_len > in->max_frame)) {
		c->drops[DROP_MTU]++;
		goto drop;
	}
	return true;
drop:
	rte_pktmbuf_free(m);
	return false;
}

void l2_bridge_input(struct worker *w, const struct dp_view *v, struct port *in,
		     const struct dp_net *net, struct rte_mbuf **pkts, uint16_t n)
{
	struct port_counters *c = &w->ctr[in->idx];
	const uint8_t *uniq[PW_BURST];
	struct rte_mbuf *ok[PW_BURST];
	uint16_t found[PW_BURST];
	uint8_t slot[PW_BURST], group[PW_BURST];
	uint64_t bytes = 0, last_src = 0, last_dst = UINT64_MAX;
	uint16_t k = 0, nu = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct rte_ether_hdr *eth;
		uint64_t src, dst;

		bytes += m->pkt_len;
		if (!ingress_ok(c, in, net, m))
			continue;
		eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		/* ingress_ok checked the frame holds a whole header. */
		src = mac_word(eth->src_addr.addr_bytes);
		dst = mac_word(eth->dst_addr.addr_bytes);
		/* Learn unicast sources; bursts usually repeat one source. */
		if (src != last_src && !(eth->src_addr.addr_bytes[0] & 1)) {
			mac_table_learn(dp_macs, in->net_idx, eth->src_addr.addr_bytes, in->idx,
					dp_clock);
			last_src = src;
		}
		/* Look each run of one destination up once. */
		if (dst != last_dst) {
			group[nu] = eth->dst_addr.addr_bytes[0] & 1;
			uniq[nu++] = eth->dst_addr.addr_bytes;
			last_dst = dst;
		}
		slot[k] = (uint8_t)(nu - 1);
		ok[k++] = m;
	}
	c->rx_packets += n;
	c->rx_bytes += bytes;
	if (k == 0)
		return;
	mac_table_lookup_bulk(dp_macs, in->net_idx, uniq, nu, found);
	for (uint16_t i = 0; i < k; i++) {
		uint16_t o = found[slot[i]];

		/* group[], not the frame: an earlier frame may be sent already. */
		if (group[slot[i]] || o == MAC_TABLE_MISS || v->nets[o] != net)
			flood(w, v, in, net, ok[i]);
		else if (unlikely(o == in->idx)) {
			c->drops[DROP_SAME_PORT]++;
			rte_pktmbuf_free(ok[i]);
		} else
			txb_add(w, v, o, ok[i]);
	}
}
