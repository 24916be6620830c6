/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The L2 bridge's decision (a stage, see burst.h): learn source MACs,
 * look destinations up in bulk, flood broadcast, multicast and unknown
 * unicast to the other ports of the network, within the port's flood
 * limit. The input stage has already dropped what may not enter.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "datapath/burst.h"
#include "datapath/forward.h"
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

/* What a flood of frame i becomes: DP_FLOOD, or a drop when the network
 * has no other port or the flood limit says no. */
static inline void flood_or_drop(struct worker *w, const struct view *v, struct dp_burst *b,
				 struct port_counters *c, uint16_t i, uint32_t *extra)
{
	const struct dp_port *in = b->in;

	if (unlikely(b->net->n_ports < 2)) {
		dp_burst_drop(b, c, i, DROP_NO_ROUTE);
		return;
	}
	b->dst[i] = DP_FLOOD;
	if (in->flood_cycles == 0)
		return;
	if (*extra == UINT32_MAX)
		*extra = flood_extra_copies(v, b->net, in);
	if (*extra != 0 && !flood_allowed(w, in, *extra))
		dp_burst_drop(b, c, i, DROP_FLOOD_LIMIT);
}

void l2_bridge_decide(struct worker *w, const struct view *v, struct dp_burst *b)
{
	const struct dp_port *in = b->in;
	const struct dp_net *net = b->net;
	struct port_counters *c = &w->ctr[in->idx];
	const uint8_t *uniq[PW_BURST];
	uint16_t found[PW_BURST];
	uint8_t slot[PW_BURST], group[PW_BURST];
	uint64_t last_src = 0, last_dst = UINT64_MAX;
	uint32_t extra = UINT32_MAX; /* flood_extra_copies, once a burst floods */
	uint16_t nu = 0, one = UINT16_MAX;

	for (uint16_t i = 0; i < b->n; i++) {
		const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)b->hdr[i];
		uint64_t src, d;

		if (unlikely(dp_is_drop(b->dst[i])))
			continue;
		/* The input stage saw the frame hold a whole header. */
		src = dp_mac_load(eth->src_addr.addr_bytes);
		d = dp_mac_load(eth->dst_addr.addr_bytes);
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
	}
	if (nu == 0)
		return;
	mac_table_lookup_bulk(l2_macs, in->net_idx, uniq, nu, found);
	for (uint16_t i = 0; i < b->n; i++) {
		uint16_t o;

		/* (A frame dropped at ingress has no slot: slot[i] is unset.) */
		if (dp_is_drop(b->dst[i]))
			continue;
		o = found[slot[i]];
		if (group[slot[i]] || o == MAC_TABLE_MISS || v->nets[o] != net)
			flood_or_drop(w, v, b, c, i, &extra);
		else if (unlikely(o == in->idx))
			dp_burst_drop(b, c, i, DROP_SAME_PORT);
		else
			b->dst[i] = o;
		one = i == 0 || b->dst[i] == one ? b->dst[i] : DP_NO_ONE_DST;
	}
	/* Every frame to one learned port, none dropped (a drop or a flood
	 * ends it): one send, when no mbuf needs its tag stripped. */
	if (b->n_fwd == b->n && one < DP_FLOOD && (b->frames || !b->stripped))
		b->one_dst = one;
}
