/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the offload module (parse.c, csum.c, segment.c, fix.c): where a
 * frame's headers are, read from its bytes, and the checksum helpers the
 * files share. Not for other modules: they use offload.h.
 */
#ifndef PODWIRE_OFFLOAD_HDRS_H
#define PODWIRE_OFFLOAD_HDRS_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "offload/offload.h"

/* What a frame's bytes say, up to its TCP or UDP header. */
struct ol_hdrs {
	uint16_t l2;	   /* Ethernet header, with one 802.1Q tag if there is one */
	uint16_t l3;	   /* IPv4 header with options, or IPv6's fixed header */
	uint16_t l4;	   /* TCP header with options, or 8 (UDP) */
	uint8_t ipv;	   /* 4 or 6 */
	uint8_t proto;	   /* IPPROTO_TCP or IPPROTO_UDP */
	uint32_t l4_total; /* the L4 header and payload, as the IP header counts them */
};

/* Reads m's headers: 0 with h filled when m is TCP or UDP over IPv4 or
 * IPv6 (no extension header, not a fragment), every header within the
 * first segment; -ENOENT for any other frame (not IP, another protocol,
 * a fragment, IPv6 extension headers, two VLAN tags); -EINVAL when a
 * header m has is broken (lengths that do not fit the frame, an IPv4
 * header of fewer than 20 bytes, a TCP data offset below 5). */
int ol_parse(const struct rte_mbuf *m, struct ol_hdrs *h);

/* Checks m's offload flags against h (ol_parse's answer for m): the
 * request matches the protocol and the IP version, a segmentation request
 * covers the frame exactly, has a segment size and makes at most
 * OFFLOAD_MAX_SEGS segments, l2_len/l3_len say where the headers are.
 * 0 or -EINVAL; m unchanged. */
int ol_validate(const struct rte_mbuf *m, const struct ol_hdrs *h);

/* The sum (not complemented, folded to 16 bits) of the pseudo-header of
 * the IP header at ip (version ipv) for an L4 length of len. */
uint32_t ol_phdr_sum(const void *ip, uint8_t ipv, uint8_t proto, uint32_t len);

/* Folds a 32-bit ones' complement sum to 16 bits. */
static inline uint32_t ol_fold(uint32_t s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s;
}

/* Writes the 2 bytes of v (network order already) at off of m, across
 * segments if they straddle two. off + 2 <= pkt_len. */
void ol_write16(struct rte_mbuf *m, uint32_t off, uint16_t v);

/* Completes m's TCP or UDP checksum in place (m writable, headers h):
 * pseudo-header and all of the L4 bytes summed from scratch, so whatever
 * the field held does not matter. */
void ol_l4_csum(struct rte_mbuf *m, const struct ol_hdrs *h);

/* Cuts super-frame m (headers h, request checked by ol_validate) into
 * segments of at most max_frame bytes, fresh mbufs from pool, into out[]
 * (max of them). Their checksums are complete, or left as requests when
 * caps has OFFLOAD_CSUM. Returns how many, or -EMSGSIZE, -E2BIG, -ENOMEM
 * (m untouched, nothing kept). Does not take m. */
int ol_segment(const struct rte_mbuf *m, const struct ol_hdrs *h, uint32_t caps, uint32_t max_frame,
	       struct rte_mempool *pool, struct rte_mbuf **out, uint16_t max);

/* The flags a frame made from m starts with: m's, without a request and
 * without what says how m's own buffer is held. */
#define OL_KEEP_FLAGS                                                                              \
	(~(OFFLOAD_MBUF_FLAGS | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_INDIRECT |    \
	   RTE_MBUF_F_EXTERNAL))

#endif
