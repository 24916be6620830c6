/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A frame made fit for one egress: passed as it is when the egress takes
 * its request, else segmented (segment.c) or its checksum completed, in
 * place when nothing else holds the frame, in a copy when something may
 * (a flood shares one mbuf between destinations, each with its own
 * capabilities).
 */
#include <errno.h>

#include "offload/hdrs.h"
#include "offload/offload.h"

/* Completes checksum-only request of m (headers h) for an egress that
 * cannot: returns the frame to send (m, or a copy of it with m freed),
 * or NULL when the pool is short (m untouched). */
static struct rte_mbuf *complete(struct rte_mbuf *m, const struct ol_hdrs *h,
				 struct rte_mempool *pool)
{
	struct rte_mbuf *c = m;

	if (rte_mbuf_refcnt_read(m) != 1 || !RTE_MBUF_DIRECT(m) || m->nb_segs != 1) {
		/* Headers go whole into the copy's first mbuf (ol_l4_csum). */
		if (rte_pktmbuf_data_room_size(pool) < RTE_PKTMBUF_HEADROOM + h->l2 + h->l3 + h->l4)
			return NULL;
		c = rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);
		if (c == NULL)
			return NULL;
		rte_pktmbuf_free(m);
	}
	ol_l4_csum(c, h);
	c->ol_flags &= ~(OFFLOAD_MBUF_FLAGS | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6);
	c->tso_segsz = 0;
	return c;
}

int offload_fix(struct rte_mbuf *m, uint32_t caps, uint32_t max_frame, struct rte_mempool *pool,
		struct rte_mbuf **out, uint16_t max)
{
	struct ol_hdrs h;
	uint32_t need;
	int n;

	if (max == 0)
		return -E2BIG;
	if ((m->ol_flags & OFFLOAD_MBUF_FLAGS) == 0) {
		if (m->pkt_len > max_frame)
			return -EMSGSIZE;
		out[0] = m;
		return 1;
	}
	/* The metadata may come from anywhere (a port kind's rx, a test):
	 * checked again, so nothing below reads outside the frame. */
	if (ol_parse(m, &h) != 0 || ol_validate(m, &h) != 0)
		return -EINVAL;
	need = offload_needs(m);
	if (m->ol_flags & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG)) {
		/* A port that takes super-frames but whose MTU is smaller than
		 * the segments asked for gets segments of its size. */
		if ((need & ~caps) == 0 && offload_wire_len(m) <= max_frame) {
			out[0] = m;
			return 1;
		}
		n = ol_segment(m, &h, caps, max_frame, pool, out, max);
		if (n > 0)
			rte_pktmbuf_free(m);
		return n;
	}
	if (m->pkt_len > max_frame)
		return -EMSGSIZE;
	if ((need & ~caps) == 0) {
		out[0] = m;
		return 1;
	}
	out[0] = complete(m, &h, pool);
	return out[0] != NULL ? 1 : -ENOMEM;
}
