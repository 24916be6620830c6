/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests in and out: a virtio-net header into mbuf metadata and back,
 * and the checks that make metadata from a kernel, a guest or
 * librte_vhost safe to act on. A header comes from a peer podwired does
 * not trust, so nothing it says is used before the frame's own bytes
 * agree: the headers it points at exist, in the first segment, are the
 * protocol it names, and the segments it asks for are few enough.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "offload/hdrs.h"
#include "offload/offload.h"

/* The flags that say where a request applies, cleared with the request. */
#define OL_IP_FLAGS (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6)

#define OL_TCP_CSUM_OFF 16 /* offsetof(struct rte_tcp_hdr, cksum) */
#define OL_UDP_CSUM_OFF 6  /* offsetof(struct rte_udp_hdr, dgram_cksum) */

int ol_parse(const struct rte_mbuf *m, struct ol_hdrs *h)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t have = m->data_len; /* headers must be in the first segment */
	uint32_t l2 = RTE_ETHER_HDR_LEN, l3, avail;
	uint16_t type;

	if (have > m->pkt_len)
		return -EINVAL;
	if (have < l2)
		return -ENOENT;
	memcpy(&type, p + 12, 2);
	if (type == RTE_BE16(RTE_ETHER_TYPE_VLAN)) {
		l2 += 4;
		if (have < l2)
			return -ENOENT;
		memcpy(&type, p + 16, 2);
	}
	/* What follows the Ethernet header, as far as the frame goes. */
	avail = m->pkt_len - l2;
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const void *)(p + l2);
		uint32_t tot;

		if (have < l2 + sizeof(*ip))
			return -EINVAL;
		l3 = (uint32_t)(ip->version_ihl & 0xf) * 4;
		tot = rte_be_to_cpu_16(ip->total_length);
		if ((ip->version_ihl >> 4) != 4 || l3 < sizeof(*ip) || have < l2 + l3 || tot < l3 ||
		    tot > avail)
			return -EINVAL;
		/* A fragment's L4 header and checksum span fragments. */
		if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
			return -ENOENT;
		h->ipv = 4;
		h->proto = ip->next_proto_id;
		h->l4_total = tot - l3;
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const void *)(p + l2);
		uint32_t plen;

		l3 = sizeof(*ip);
		if (have < l2 + l3)
			return -EINVAL;
		plen = rte_be_to_cpu_16(ip->payload_len);
		if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6 || l3 + plen > avail)
			return -EINVAL;
		/* No extension header is walked: a request behind one is
		 * completed in software (offload_from_vnet). A payload length
		 * of 0 is a jumbogram's or says there is no L4 header. */
		if (plen == 0)
			return -ENOENT;
		h->ipv = 6;
		h->proto = ip->proto;
		h->l4_total = plen;
	} else {
		return -ENOENT;
	}
	if (h->proto == IPPROTO_TCP) {
		uint32_t l4;

		if (h->l4_total < sizeof(struct rte_tcp_hdr) || have < l2 + l3 + 13)
			return -EINVAL;
		l4 = (uint32_t)(p[l2 + l3 + 12] >> 4) * 4;
		if (l4 < sizeof(struct rte_tcp_hdr) || l4 > h->l4_total || have < l2 + l3 + l4)
			return -EINVAL;
		h->l4 = (uint16_t)l4;
	} else if (h->proto == IPPROTO_UDP) {
		if (h->l4_total < sizeof(struct rte_udp_hdr) ||
		    have < l2 + l3 + sizeof(struct rte_udp_hdr))
			return -EINVAL;
		h->l4 = sizeof(struct rte_udp_hdr);
	} else {
		return -ENOENT;
	}
	h->l2 = (uint16_t)l2;
	h->l3 = (uint16_t)l3;
	return 0;
}

/* Checks a segmentation request of segsz for headers h: the super-frame
 * is the IP packet, nothing after it, and cut into few enough pieces. */
static int seg_ok(const struct rte_mbuf *m, const struct ol_hdrs *h, uint32_t segsz)
{
	uint32_t payload = h->l4_total - h->l4;

	if (segsz == 0 || (uint32_t)h->l2 + h->l3 + h->l4_total != m->pkt_len)
		return -EINVAL;
	if ((payload + segsz - 1) / segsz > OFFLOAD_MAX_SEGS)
		return -EINVAL;
	return 0;
}

int ol_validate(const struct rte_mbuf *m, const struct ol_hdrs *h)
{
	uint64_t f = m->ol_flags;
	uint64_t l4 = f & RTE_MBUF_F_TX_L4_MASK;
	uint64_t ipf = h->ipv == 4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6;

	/* No port kind sets IP_CKSUM and no capability takes it: an IPv4
	 * header comes with its checksum. */
	if (f & RTE_MBUF_F_TX_IP_CKSUM)
		return -EINVAL;
	if ((f & OL_IP_FLAGS) != ipf || m->l2_len != h->l2 || m->l3_len != h->l3)
		return -EINVAL;
	if (h->proto == IPPROTO_TCP) {
		if ((l4 != 0 && l4 != RTE_MBUF_F_TX_TCP_CKSUM) || (f & RTE_MBUF_F_TX_UDP_SEG))
			return -EINVAL;
		if (f & RTE_MBUF_F_TX_TCP_SEG)
			return m->l4_len == h->l4 ? seg_ok(m, h, m->tso_segsz) : -EINVAL;
	} else {
		if ((l4 != 0 && l4 != RTE_MBUF_F_TX_UDP_CKSUM) || (f & RTE_MBUF_F_TX_TCP_SEG))
			return -EINVAL;
		if (f & RTE_MBUF_F_TX_UDP_SEG)
			return m->l4_len == h->l4 ? seg_ok(m, h, m->tso_segsz) : -EINVAL;
	}
	return 0;
}

/* Sets m's metadata to a request, checked, for headers h: seg is the
 * segment size (0: none). A super-frame that makes one segment is a
 * checksum request: no egress needs to cut it. */
static void set_request(struct rte_mbuf *m, const struct ol_hdrs *h, uint32_t seg)
{
	bool tcp = h->proto == IPPROTO_TCP;
	uint64_t f = (h->ipv == 4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6) |
		     (tcp ? RTE_MBUF_F_TX_TCP_CKSUM : RTE_MBUF_F_TX_UDP_CKSUM);

	if (seg != 0 && h->l4_total - h->l4 > seg) {
		f |= tcp ? RTE_MBUF_F_TX_TCP_SEG : RTE_MBUF_F_TX_UDP_SEG;
		m->tso_segsz = (uint16_t)seg;
	} else {
		m->tso_segsz = 0;
	}
	m->ol_flags = (m->ol_flags & ~(OFFLOAD_MBUF_FLAGS | OL_IP_FLAGS)) | f;
	m->l2_len = h->l2;
	m->l3_len = h->l3;
	m->l4_len = h->l4;
}

static void clear_request(struct rte_mbuf *m)
{
	m->ol_flags &= ~(OFFLOAD_MBUF_FLAGS | OL_IP_FLAGS);
	m->tso_segsz = 0;
}

/* A checksum request the flags cannot say: ~sum from start to the end of
 * the frame, stored at start + off (virtio's and the kernel's meaning of
 * csum_start/csum_offset). */
static int csum_here(struct rte_mbuf *m, uint32_t start, uint32_t off)
{
	uint16_t c;

	if (start + off + 2 > m->pkt_len)
		return -EINVAL;
	c = (uint16_t)~offload_sum(m, start, m->pkt_len - start, 0);
	/* As the kernel's skb_checksum_help: 0 would mean "no checksum" to UDP. */
	ol_write16(m, start + off, c == 0 ? 0xffff : c);
	return 0;
}

int offload_from_vnet(struct rte_mbuf *m, const struct virtio_net_hdr *vh)
{
	uint8_t gso = vh->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	bool csum = (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) != 0;
	struct ol_hdrs h;
	int rc;

	/* DATA_VALID (a checksum the sender verified) asks for nothing. */
	clear_request(m);
	if (gso == VIRTIO_NET_HDR_GSO_NONE && !csum)
		return 0;
	/* VIRTIO_NET_HDR_GSO_UDP is IP fragmentation (UFO): no port offers it. */
	if (gso != VIRTIO_NET_HDR_GSO_NONE && gso != VIRTIO_NET_HDR_GSO_TCPV4 &&
	    gso != VIRTIO_NET_HDR_GSO_TCPV6 && gso != VIRTIO_NET_HDR_GSO_UDP_L4)
		return -EINVAL;
	rc = ol_parse(m, &h);
	if (rc == -EINVAL)
		return -EINVAL;
	if (csum &&
	    (rc != 0 || vh->csum_start != h.l2 + h.l3 ||
	     vh->csum_offset != (h.proto == IPPROTO_TCP ? OL_TCP_CSUM_OFF : OL_UDP_CSUM_OFF))) {
		/* Segments need their checksum where their L4 header is. */
		if (gso != VIRTIO_NET_HDR_GSO_NONE)
			return -EINVAL;
		return csum_here(m, vh->csum_start, vh->csum_offset);
	}
	if (gso == VIRTIO_NET_HDR_GSO_NONE) {
		set_request(m, &h, 0);
		return 0;
	}
	if (rc != 0 ||
	    (gso == VIRTIO_NET_HDR_GSO_TCPV4 && (h.ipv != 4 || h.proto != IPPROTO_TCP)) ||
	    (gso == VIRTIO_NET_HDR_GSO_TCPV6 && (h.ipv != 6 || h.proto != IPPROTO_TCP)) ||
	    (gso == VIRTIO_NET_HDR_GSO_UDP_L4 && h.proto != IPPROTO_UDP) ||
	    seg_ok(m, &h, vh->gso_size) != 0)
		return -EINVAL;
	/* The virtio spec has GSO come with NEEDS_CSUM; without it, the
	 * field holds anything: make it the pseudo-header sum a request
	 * promises, as the kernel's tcp4_gso_segment does. */
	if (!csum) {
		uint16_t v = (uint16_t)ol_phdr_sum(rte_pktmbuf_mtod_offset(m, void *, h.l2), h.ipv,
						   h.proto, h.l4_total);

		memcpy(
		    rte_pktmbuf_mtod_offset(
			m, uint8_t *,
			h.l2 + h.l3 + (h.proto == IPPROTO_TCP ? OL_TCP_CSUM_OFF : OL_UDP_CSUM_OFF)),
		    &v, 2);
	}
	set_request(m, &h, vh->gso_size);
	return 0;
}

void offload_to_vnet(const struct rte_mbuf *m, struct virtio_net_hdr *vh)
{
	uint64_t f = m->ol_flags;
	uint16_t hl = (uint16_t)(m->l2_len + m->l3_len + m->l4_len);

	memset(vh, 0, sizeof(*vh));
	if (f & (RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG)) {
		bool tcp = (f & RTE_MBUF_F_TX_TCP_SEG) ||
			   (f & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_TCP_CKSUM;

		vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh->csum_start = (uint16_t)(m->l2_len + m->l3_len);
		vh->csum_offset = tcp ? OL_TCP_CSUM_OFF : OL_UDP_CSUM_OFF;
	}
	if (f & RTE_MBUF_F_TX_TCP_SEG) {
		uint32_t fl_off = (uint32_t)m->l2_len + m->l3_len + 13; /* TCP flags */

		vh->gso_type =
		    (f & RTE_MBUF_F_TX_IPV4) ? VIRTIO_NET_HDR_GSO_TCPV4 : VIRTIO_NET_HDR_GSO_TCPV6;
		/* CWR on a super-frame: the kernel's SKB_GSO_TCP_ECN, so a
		 * device without TSO_ECN does not copy it onto every segment.
		 * (Looked at only where it is: metadata may be unchecked.) */
		if (fl_off < m->data_len &&
		    (*rte_pktmbuf_mtod_offset(m, const uint8_t *, fl_off) & RTE_TCP_CWR_FLAG))
			vh->gso_type |= VIRTIO_NET_HDR_GSO_ECN;
		vh->gso_size = m->tso_segsz;
		vh->hdr_len = hl;
	} else if (f & RTE_MBUF_F_TX_UDP_SEG) {
		vh->gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
		vh->gso_size = m->tso_segsz;
		vh->hdr_len = hl;
	}
}

int offload_check(struct rte_mbuf *m)
{
	struct ol_hdrs h;

	if ((m->ol_flags & OFFLOAD_MBUF_FLAGS) == 0)
		return 0;
	if (ol_parse(m, &h) != 0)
		goto bad;
	/* librte_vhost sets l4_len for a super-frame only; the headers say it. */
	if ((m->ol_flags & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG)) == 0)
		m->l4_len = h.l4;
	if (ol_validate(m, &h) != 0)
		goto bad;
	set_request(m, &h,
		    (m->ol_flags & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG)) ? m->tso_segsz
										    : 0);
	return 0;
bad:
	clear_request(m);
	return -EINVAL;
}

uint32_t offload_needs(const struct rte_mbuf *m)
{
	uint64_t f = m->ol_flags;

	if (likely((f & OFFLOAD_MBUF_FLAGS) == 0))
		return 0;
	/* Segmentation implies each segment's checksum: a port that cuts
	 * super-frames also completes checksums (virtio: GUEST_TSO4 needs
	 * GUEST_CSUM). */
	if (f & RTE_MBUF_F_TX_TCP_SEG)
		return OFFLOAD_CSUM | ((f & RTE_MBUF_F_TX_IPV4) ? OFFLOAD_TSO4 : OFFLOAD_TSO6);
	if (f & RTE_MBUF_F_TX_UDP_SEG)
		return OFFLOAD_CSUM | OFFLOAD_USO;
	return OFFLOAD_CSUM;
}
