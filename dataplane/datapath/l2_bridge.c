/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * L2 bridge: learn source MACs, look destinations up in bulk, flood
 * broadcast, multicast and unknown unicast to the other ports of the
 * network. Pod ports are access ports: a frame tagged with the network's
 * own VLAN is accepted untagged, any other tag is dropped.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>

#include "datapath/forward.h"
#include "datapath/observe.h"
#include "datapath/worker.h"

struct mac_table *l2_macs;
volatile uint32_t l2_clock;

int l2_bridge_init(uint32_t mac_capacity)
{
	l2_macs = mac_table_create(mac_capacity);
	return l2_macs == NULL ? -ENOMEM : 0;
}

void l2_bridge_fini(void)
{
	mac_table_free(l2_macs);
	l2_macs = NULL;
}

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

static void flood(struct worker *w, const struct view *v, const struct dp_port *in,
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
			txbuf_add(w, v, net->ports[i], m);
}

/* Whether a frame may enter the bridge, from its first hlen bytes and its
 * length: DROP_MAX when it may, else the reason it is dropped (counted
 * here). *strip says the frame carries the network's own VLAN tag, which
 * comes off. */
static inline enum drop_reason ingress_check(struct port_counters *c, const struct dp_port *in,
					     const struct dp_net *net, const uint8_t *hdr,
					     uint32_t hlen, uint32_t len, uint8_t *strip)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)hdr;

	*strip = 0;
	if (unlikely(hlen < RTE_ETHER_HDR_LEN)) {
		c->drops[DROP_RUNT]++;
		return DROP_RUNT;
	}
	if (unlikely(eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN))) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eth + 1);

		if (net->vlan == 0 || hlen < RTE_ETHER_HDR_LEN + 4 ||
		    (rte_be_to_cpu_16(vh->vlan_tci) & 0xfff) != net->vlan) {
			c->drops[DROP_VLAN]++;
			return DROP_VLAN;
		}
		*strip = 1;
	}
	if (unlikely(len - 4u * *strip > in->max_frame)) {
		c->drops[DROP_MTU]++;
		return DROP_MTU;
	}
	return DROP_MAX;
}

/* Port security: whether src is the port's MAC or one it is allowed. */
static inline bool src_allowed(const struct dp_port *in, uint64_t src)
{
	if (likely(src == in->mac))
		return true;
	for (uint8_t i = 0; i < in->n_allowed; i++)
		if (src == in->allowed[i])
			return true;
	return false;
}

/* The copies a flood from in makes beyond the one a unicast frame would:
 * the other ports of its network whose link is up, less one. A flood
 * with a single possible destination (two pods on a network, or two of
 * five connected: testpmd's io loop with its default peer MACs, whose
 * frames are all unknown unicast) amplifies nothing. */
static uint32_t flood_extra_copies(const struct view *v, const struct dp_net *net,
				   const struct dp_port *in)
{
	uint32_t live = 0;

	for (uint16_t i = 0; i < net->n_ports; i++) {
		const struct dp_port *p = v->ports[net->ports[i]];

		live += p != in && p->link_up;
	}
	return live > 1 ? live - 1 : 0;
}

/* The flood limit, a token bucket kept in TSC cycles: each extra copy a
 * flood makes costs flood_cycles of credit (a flood costs at most a full
 * bucket, so that one always passes in time), credit accrues with time
 * (the worker's clock, read once per loop turn) up to flood_burst; a port
 * starts full. The limit stops amplification, not forwarding. */
static inline bool flood_allowed(struct worker *w, const struct dp_port *in, uint32_t extra)
{
	struct flood_credit *f = &w->flood[in->idx];
	uint64_t cost = RTE_MIN(extra * in->flood_cycles, in->flood_burst);

	if (unlikely(f->port != in)) {
		f->port = in;
		f->credit = in->flood_burst;
		f->last = w->now;
	}
	f->credit = RTE_MIN(f->credit + (w->now - f->last), in->flood_burst);
	f->last = w->now;
	if (f->credit < cost)
		return false;
	f->credit -= cost;
	return true;
}

uint16_t l2_bridge_decide(struct worker *w, const struct view *v, const struct dp_port *in,
			  const struct dp_net *net, const uint8_t *const *hdr, const uint32_t *hlen,
			  const uint32_t *len, uint16_t n, uint16_t *dst, uint8_t *strip)
{
	struct port_counters *c = &w->ctr[in->idx];
	const uint8_t *uniq[PW_BURST];
	uint16_t found[PW_BURST];
	uint8_t slot[PW_BURST], group[PW_BURST];
	uint64_t bytes = 0, last_src = 0, last_dst = UINT64_MAX;
	uint32_t extra = UINT32_MAX; /* flood_extra_copies, once a burst floods */
	uint16_t k = 0, nu = 0;

	for (uint16_t i = 0; i < n; i++) {
		const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)hdr[i];
		enum drop_reason why;
		uint64_t src, d;

		bytes += len[i];
		why = ingress_check(c, in, net, hdr[i], hlen[i], len[i], &strip[i]);
		if (unlikely(why != DROP_MAX)) {
			dst[i] = L2_DROP_AS(why);
			continue;
		}
		/* ingress_check saw the frame hold a whole header. */
		src = mac_word(eth->src_addr.addr_bytes);
		d = mac_word(eth->dst_addr.addr_bytes);
		if (unlikely(in->port_security) && unlikely(!src_allowed(in, src))) {
			c->drops[DROP_SPOOFED_SRC]++;
			dst[i] = L2_DROP_AS(DROP_SPOOFED_SRC);
			continue;
		}
		/* Learn unicast sources; bursts usually repeat one source. A
		 * port's own MACs (with port security, every source that got
		 * here) are learned past the limits: no other port can crowd
		 * them out. */
		if (src != last_src && !(eth->src_addr.addr_bytes[0] & 1)) {
			if (in->port_security || src == in->mac)
				mac_table_learn_own(l2_macs, in->net_idx, eth->src_addr.addr_bytes,
						    in->idx, l2_clock);
			else if (mac_table_learn(l2_macs, in->net_idx, eth->src_addr.addr_bytes,
						 in->idx, l2_clock, in->mac_limit,
						 net->mac_limit) == MAC_LEARN_LIMIT)
				c->learn_limit++;
			last_src = src;
		}
		/* Look each run of one destination up once. */
		if (d != last_dst) {
			group[nu] = eth->dst_addr.addr_bytes[0] & 1;
			uniq[nu++] = eth->dst_addr.addr_bytes;
			last_dst = d;
		}
		slot[i] = (uint8_t)(nu - 1);
		dst[i] = 0;
		k++;
	}
	c->rx_packets += n;
	c->rx_bytes += bytes;
	if (k == 0)
		return 0;
	mac_table_lookup_bulk(l2_macs, in->net_idx, uniq, nu, found);
	for (uint16_t i = 0; i < n; i++) {
		uint16_t o;

		/* (A frame dropped at ingress has no slot: slot[i] is unset.) */
		if (l2_is_drop(dst[i]))
			continue;
		o = found[slot[i]];
		if (group[slot[i]] || o == MAC_TABLE_MISS || v->nets[o] != net) {
			dst[i] = L2_FLOOD;
			if (in->flood_cycles == 0)
				continue;
			if (extra == UINT32_MAX)
				extra = flood_extra_copies(v, net, in);
			if (extra != 0 && !flood_allowed(w, in, extra)) {
				c->drops[DROP_FLOOD_LIMIT]++;
				dst[i] = L2_DROP_AS(DROP_FLOOD_LIMIT);
				k--;
			}
		} else if (unlikely(o == in->idx)) {
			c->drops[DROP_SAME_PORT]++;
			dst[i] = L2_DROP_AS(DROP_SAME_PORT);
			k--;
		} else {
			dst[i] = o;
		}
	}
	return k;
}

/* Why each frame of a decided burst was dropped at ingress (DROP_MAX:
 * it was not): a flood on a network of one port goes nowhere. */
void l2_drop_reasons(const struct dp_net *net, const uint16_t *dst, uint16_t n, uint8_t *why)
{
	for (uint16_t i = 0; i < n; i++)
		why[i] = l2_is_drop(dst[i])			  ? (uint8_t)l2_drop_reason(dst[i])
			 : dst[i] == L2_FLOOD && net->n_ports < 2 ? DROP_NO_ROUTE
								  : DROP_MAX;
}

/* A watched port's burst, decided: captured as received, each frame
 * tagged with its ingress drop, and traced. */
static void __rte_noinline observe_in(struct worker *w, const struct view *v,
				      const struct dp_port *in, const struct dp_net *net,
				      struct rte_mbuf **pkts, const uint8_t *const *hdr,
				      const uint32_t *hlen, const uint32_t *len,
				      const uint16_t *dst, const uint8_t *strip, uint16_t n)
{
	uint8_t why[PW_BURST];

	if (in->observe & DP_OBS_CAP_RX) {
		l2_drop_reasons(net, dst, n, why);
		capture_mbufs(w->id, in, pkts, n, CAPTURE_IN, why);
	}
	if (in->observe & DP_OBS_TRACE)
		trace_bridge(w->id, v, in, net, hdr, hlen, len, dst, strip, n);
}

void l2_bridge_input(struct worker *w, const struct view *v, struct dp_port *in,
		     const struct dp_net *net, struct rte_mbuf **pkts, uint16_t n)
{
	const uint8_t *hdr[PW_BURST];
	uint32_t hlen[PW_BURST], len[PW_BURST];
	uint16_t dst[PW_BURST], k;
	uint8_t strip[PW_BURST];

	if (unlikely(n == 0 || n > PW_BURST))
		return;
	for (uint16_t i = 0; i < n; i++) {
		hdr[i] = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		hlen[i] = pkts[i]->data_len;
		len[i] = pkts[i]->pkt_len;
	}
	k = l2_bridge_decide(w, v, in, net, hdr, hlen, len, n, dst, strip);
	if (unlikely(in->observe & (DP_OBS_CAP_RX | DP_OBS_TRACE)))
		observe_in(w, v, in, net, pkts, hdr, hlen, len, dst, strip, n);
	if (k == 0) {
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (unlikely(l2_is_drop(dst[i]))) {
			rte_pktmbuf_free(m);
			continue;
		}
		if (unlikely(strip[i]))
			rte_vlan_strip(m);
		if (dst[i] == L2_FLOOD)
			flood(w, v, in, net, m);
		else
			txbuf_add(w, v, dst[i], m);
	}
}
