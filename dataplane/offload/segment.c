/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software segmentation: a TCP or UDP super-frame copied into segments,
 * each its own fresh mbuf (a chain when a segment is larger than one
 * mbuf's room), its headers made as the kernel's GSO makes them (IPv4
 * length, ID incremented from the super-frame's, header checksum; IPv6
 * payload length; TCP sequence, FIN and PSH on the last segment only,
 * CWR on the first only; UDP length) and its L4 checksum summed while
 * its payload is copied, when the bytes are in cache.
 */
#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "offload/hdrs.h"
#include "offload/offload.h"

/* Where the next payload byte of the super-frame is. */
struct ol_cursor {
	const struct rte_mbuf *s;
	uint32_t off;
};

/* Copies len payload bytes from c into segment head (whose last mbuf is
 * *tail, with its data ending where the next byte goes), chaining mbufs
 * from pool as they fill, and (do_sum) sums them into *sum (in memory
 * order, as if they started at an even offset). 0, -ENOMEM, or -EINVAL
 * for a chain shorter than its pkt_len. */
static int copy_payload(struct ol_cursor *c, struct rte_mbuf *head, struct rte_mbuf **tail,
			uint32_t len, struct rte_mempool *pool, uint32_t *sum, bool do_sum)
{
	struct rte_mbuf *t = *tail;
	uint32_t done = 0, s = 0;

	while (done < len) {
		uint32_t room = rte_pktmbuf_tailroom(t);
		uint32_t n;
		const uint8_t *src;
		uint8_t *dst;
		uint32_t ps;

		while (c->s != NULL && c->off >= c->s->data_len) {
			c->off -= c->s->data_len;
			c->s = c->s->next;
		}
		if (c->s == NULL)
			return -EINVAL;
		if (room == 0) {
			struct rte_mbuf *x = rte_pktmbuf_alloc(pool);

			if (x == NULL)
				return -ENOMEM;
			t->next = x;
			t = x;
			head->nb_segs++;
			*tail = t;
			continue;
		}
		n = RTE_MIN(RTE_MIN(len - done, room), (uint32_t)c->s->data_len - c->off);
		src = rte_pktmbuf_mtod_offset(c->s, const uint8_t *, c->off);
		dst = rte_pktmbuf_mtod_offset(t, uint8_t *, t->data_len);
		rte_memcpy(dst, src, n);
		if (do_sum) {
			ps = ol_fold(__rte_raw_cksum(dst, n, 0));
			if (done & 1)
				ps = rte_bswap16((uint16_t)ps);
			s = ol_fold(s + ps);
		}
		t->data_len = (uint16_t)(t->data_len + n);
		head->pkt_len += n;
		c->off += n;
		done += n;
	}
	*sum = s;
	return 0;
}

/* Makes segment seg's headers (copied from the super-frame's into
 * seg), its L4 checksum from the payload's sum psum. */
static void seg_headers(struct rte_mbuf *seg, const struct ol_hdrs *h, uint32_t i, uint32_t segsz,
			uint32_t chunk, bool last, bool csum_req, uint32_t psum)
{
	uint8_t *ip = rte_pktmbuf_mtod_offset(seg, uint8_t *, h->l2);
	uint8_t *l4 = ip + h->l3;
	uint32_t l4len = h->l4 + chunk;
	uint8_t *field;
	uint16_t v;
	uint32_t s;

	if (h->ipv == 4) {
		struct rte_ipv4_hdr *v4 = (struct rte_ipv4_hdr *)ip;

		v4->total_length = rte_cpu_to_be_16((uint16_t)(h->l3 + l4len));
		v4->packet_id = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(v4->packet_id) + i));
		v4->hdr_checksum = 0;
		v4->hdr_checksum = (uint16_t)~rte_raw_cksum(v4, h->l3);
	} else {
		struct rte_ipv6_hdr *v6 = (struct rte_ipv6_hdr *)ip;

		v6->payload_len = rte_cpu_to_be_16((uint16_t)l4len);
	}
	if (h->proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)l4;

		th->sent_seq = rte_cpu_to_be_32(rte_be_to_cpu_32(th->sent_seq) + i * segsz);
		if (!last)
			th->tcp_flags &= (uint8_t) ~(RTE_TCP_FIN_FLAG | RTE_TCP_PSH_FLAG);
		if (i != 0)
			th->tcp_flags &= (uint8_t)~RTE_TCP_CWR_FLAG;
		field = l4 + offsetof(struct rte_tcp_hdr, cksum);
	} else {
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)l4;

		uh->dgram_len = rte_cpu_to_be_16((uint16_t)l4len);
		field = l4 + offsetof(struct rte_udp_hdr, dgram_cksum);
	}
	s = ol_phdr_sum(ip, h->ipv, h->proto, l4len);
	if (csum_req) {
		/* The egress completes it: it expects the pseudo-header sum. */
		v = (uint16_t)s;
	} else {
		memset(field, 0, 2);
		/* The L4 header has an even length: the payload's sum adds as
		 * it is. */
		v = (uint16_t)~ol_fold(s + psum + ol_fold(__rte_raw_cksum(l4, h->l4, 0)));
		if (v == 0 && h->proto == IPPROTO_UDP)
			v = 0xffff;
	}
	memcpy(field, &v, 2);
}

int ol_segment(const struct rte_mbuf *m, const struct ol_hdrs *h, uint32_t caps, uint32_t max_frame,
	       struct rte_mempool *pool, struct rte_mbuf **out, uint16_t max)
{
	uint32_t hl = (uint32_t)h->l2 + h->l3 + h->l4;
	uint32_t payload = h->l4_total - h->l4;
	bool csum_req = (caps & OFFLOAD_CSUM) != 0;
	uint64_t flags = (m->ol_flags & OL_KEEP_FLAGS) |
			 (csum_req ? (h->ipv == 4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6) |
					 (h->proto == IPPROTO_TCP ? RTE_MBUF_F_TX_TCP_CKSUM
								  : RTE_MBUF_F_TX_UDP_CKSUM)
				   : 0);
	struct ol_cursor c = {m, hl};
	uint32_t segsz, n;

	if (max_frame <= hl)
		return -EMSGSIZE;
	segsz = RTE_MIN((uint32_t)m->tso_segsz, max_frame - hl);
	n = payload == 0 ? 1 : (payload + segsz - 1) / segsz;
	if (n > max)
		return -E2BIG;
	/* Headers go whole into a segment's first mbuf. */
	if (rte_pktmbuf_data_room_size(pool) < RTE_PKTMBUF_HEADROOM + hl)
		return -ENOMEM;
	if (rte_pktmbuf_alloc_bulk(pool, out, n) != 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *seg = out[i], *tail = seg;
		uint32_t chunk = RTE_MIN(segsz, payload - i * segsz);
		uint32_t psum;

		rte_memcpy(rte_pktmbuf_mtod(seg, void *), rte_pktmbuf_mtod(m, const void *), hl);
		seg->data_len = (uint16_t)hl;
		seg->pkt_len = hl;
		int rc = copy_payload(&c, seg, &tail, chunk, pool, &psum, !csum_req);

		if (rc != 0) {
			for (uint32_t j = 0; j < n; j++)
				rte_pktmbuf_free(out[j]);
			return rc;
		}
		seg_headers(seg, h, i, segsz, chunk, i == n - 1, csum_req, psum);
		__rte_pktmbuf_copy_hdr(seg, m);
		seg->ol_flags = flags;
		seg->tso_segsz = 0;
		seg->l2_len = h->l2;
		seg->l3_len = h->l3;
		seg->l4_len = h->l4;
	}
	return (int)n;
}
