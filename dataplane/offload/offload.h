/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Offload metadata: what a frame asks of the ports it leaves through.
 * A kernel or a virtio driver hands over a TCP super-frame of up to 64 KB
 * ("cut me into segments of M bytes") and frames whose L4 checksum is
 * still to be made ("complete the checksum from here"). podwire carries
 * both from ingress to egress in DPDK's own terms, on the mbuf:
 *
 *   RTE_MBUF_F_TX_TCP_CKSUM / RTE_MBUF_F_TX_UDP_CKSUM (RTE_MBUF_F_TX_L4_MASK)
 *       the L4 checksum field holds the pseudo-header sum (as virtio's
 *       NEEDS_CSUM and the kernel's CHECKSUM_PARTIAL leave it); the sum
 *       from l2_len + l3_len to the end is to be completed
 *   RTE_MBUF_F_TX_TCP_SEG / RTE_MBUF_F_TX_UDP_SEG
 *       segments of tso_segsz payload bytes each (UDP_SEG: the kernel's
 *       UDP GSO, one datagram per segment, not IP fragmentation); implies
 *       the L4 checksum of each segment
 *   RTE_MBUF_F_TX_IPV4 / RTE_MBUF_F_TX_IPV6, l2_len, l3_len, l4_len
 *       where the headers are (l2_len counts a VLAN tag the frame carries)
 *
 * which is what librte_vhost reads on enqueue and writes on dequeue (its
 * "legacy" offload flags). A port says in dp_port.tx_ol what it can take;
 * tx.c gives every other port frames it can take, made here: segmented,
 * checksummed, never larger than the port's MTU.
 *
 * Why not librte_gso: DPDK 22.11's segments TCP and UDP over IPv4 only
 * (no IPv6), leaves every checksum to the caller and makes each segment
 * an indirect mbuf into the super-frame (the egresses that need segments
 * here, memif and virtio without TSO, copy anyway). Here a segment is
 * made in one pass: headers copied, payload copied, checksum summed.
 *
 * Everything here is called by workers (and the ports' rx/tx); no locks,
 * no allocation but mbufs from the pool given.
 */
#ifndef PODWIRE_OFFLOAD_OFFLOAD_H
#define PODWIRE_OFFLOAD_OFFLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_net.h>
#include <rte_mbuf.h>

/* The kernel's UDP GSO (Linux 4.18); Debian 12's <linux/virtio_net.h>
 * predates it. */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif

/* The mbuf flags that make a request (any of them set: the frame has
 * metadata). */
#define OFFLOAD_MBUF_FLAGS                                                                         \
	(RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG |                   \
	 RTE_MBUF_F_TX_IP_CKSUM)

/* What an egress can take (dp_port.tx_ol). A port without a bit gets
 * frames that do not need it. */
enum offload_cap {
	OFFLOAD_CSUM = 1, /* L4 checksum requests (TCP and UDP, IPv4 and IPv6) */
	OFFLOAD_TSO4 = 2, /* TCP/IPv4 super-frames */
	OFFLOAD_TSO6 = 4, /* TCP/IPv6 super-frames */
	OFFLOAD_USO = 8,  /* UDP super-frames (segmentation, not fragmentation) */
	OFFLOAD_ALL = 15,
};

/* The most segments one super-frame may be cut into: 64 KB at an MSS of
 * 256 bytes. A request for more is refused (bad_offload). */
#define OFFLOAD_MAX_SEGS 256

/* Reads a virtio-net header that came with frame m (a kernel's packet
 * socket, or any virtio driver) into m's metadata, after checking it
 * against m's bytes: headers present in the first segment, the checksum
 * where a TCP or UDP header is, a gso_type that matches the protocol and
 * IP version (TCPV4, TCPV6, UDP_L4; UFO refused), a segment size that
 * makes at most OFFLOAD_MAX_SEGS segments of a super-frame that is its IP
 * packet exactly. A checksum request at an offset the flags cannot say
 * (IPv6 extension headers, a tunnel) is completed here, in software.
 * hdr_len is a hint and not used; DATA_VALID asks for nothing. A
 * super-frame of one segment becomes a checksum request. m is the
 * caller's own: written when a checksum is completed here, or when GSO
 * came without NEEDS_CSUM (the field then gets the pseudo-header sum).
 * Returns 0 (m's flags set, or none needed), or -EINVAL when
 * the header asks for something m cannot be (m's flags then cleared:
 * the caller drops it as bad_offload). */
int offload_from_vnet(struct rte_mbuf *m, const struct virtio_net_hdr *h);

/* The virtio-net header for m's metadata (all zero without any), as
 * offload_from_vnet or offload_check left it (GSO_ECN when a TCP
 * super-frame has CWR). virtio cannot ask for an IPv4 header checksum:
 * RTE_MBUF_F_TX_IP_CKSUM is not said (no port kind sets it, and
 * offload_check and offload_fix refuse it). */
void offload_to_vnet(const struct rte_mbuf *m, struct virtio_net_hdr *h);

/* Checks metadata someone else set (librte_vhost's dequeue parses the
 * guest's header with checks of its own; a tso_segsz of 0 or a TCP header
 * length of 0 pass them) as offload_from_vnet checks a header: l2_len and
 * l3_len as the headers say, one IP version flag and the right one, TCP
 * or UDP requests on TCP or UDP, no IP_CKSUM or SCTP. Sets l4_len from
 * the header and the checksum flag a segmentation request implies.
 * (librte_vhost's legacy dequeue makes UDP_SEG of a guest's UFO request,
 * GSO_UDP, and does not know GSO_UDP_L4: a vhost-user port, offering
 * neither, should not let UDP_SEG through.) 0 or -EINVAL (flags
 * cleared). */
int offload_check(struct rte_mbuf *m);

/* The longest frame m makes on a wire: pkt_len, or for a segmentation
 * request its headers plus one segment. */
static inline uint32_t offload_wire_len(const struct rte_mbuf *m)
{
	if (likely((m->ol_flags & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG)) == 0))
		return m->pkt_len;
	return RTE_MIN(m->pkt_len,
		       (uint32_t)m->l2_len + m->l3_len + m->l4_len + (uint32_t)m->tso_segsz);
}

/* The capability m's request needs (0: none; several bits: all of them). */
uint32_t offload_needs(const struct rte_mbuf *m);

/* Makes m into frames an egress with caps (enum offload_cap) and
 * max_frame (MTU + Ethernet header) can take, into out[] (at most max):
 * m itself when it can go as it is; else its segments, or a copy with
 * its checksums complete (m is changed in place instead only when
 * nothing else holds it: refcnt 1, direct, one segment). Frames made
 * carry no request the egress cannot take; their checksums (IPv4
 * header, TCP or UDP) are correct. Takes m (one reference) on success.
 * Returns how many frames are in out[], or
 *   -EMSGSIZE  m is larger than max_frame and asks for no segmentation,
 *              or its headers alone do not fit
 *   -EINVAL    its metadata does not describe it (bad_offload)
 *   -E2BIG     it would make more than max segments
 *   -ENOMEM    the pool is short
 * and then m is left to the caller, unchanged. Worker. */
int offload_fix(struct rte_mbuf *m, uint32_t caps, uint32_t max_frame, struct rte_mempool *pool,
		struct rte_mbuf **out, uint16_t max);

/* The 16-bit ones' complement checksum (not complemented) of len bytes
 * of m from off, across its segments, added to sum. */
uint32_t offload_sum(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint32_t sum);

#endif
