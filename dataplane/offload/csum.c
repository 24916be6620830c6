/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ones' complement sums over mbufs: the Internet checksum's arithmetic,
 * in memory order (a sum stored as it is reads in network order), so no
 * byte is swapped but for a piece that starts at an odd offset of the
 * summed range.
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "offload/hdrs.h"
#include "offload/offload.h"

uint32_t offload_sum(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint32_t sum)
{
	uint32_t done = 0;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	sum = ol_fold(sum);
	for (; m != NULL && done < len; m = m->next, off = 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len - done);
		uint32_t s =
		    ol_fold(__rte_raw_cksum(rte_pktmbuf_mtod_offset(m, const void *, off), n, 0));

		/* A piece that starts at an odd byte of the range pairs its
		 * bytes the other way round. */
		if (done & 1)
			s = rte_bswap16((uint16_t)s);
		sum = ol_fold(sum + s);
		done += n;
	}
	return sum;
}

uint32_t ol_phdr_sum(const void *ip, uint8_t ipv, uint8_t proto, uint32_t len)
{
	uint32_t s;

	if (ipv == 4) {
		const struct rte_ipv4_hdr *h = ip;

		s = __rte_raw_cksum(&h->src_addr, 8, 0);
	} else {
		const struct rte_ipv6_hdr *h = ip;

		s = __rte_raw_cksum(h->src_addr, 32, 0);
		s += rte_cpu_to_be_16((uint16_t)(len >> 16));
	}
	s += rte_cpu_to_be_16((uint16_t)len) + rte_cpu_to_be_16(proto);
	return ol_fold(s);
}

void ol_write16(struct rte_mbuf *m, uint32_t off, uint16_t v)
{
	const uint8_t *b = (const uint8_t *)&v;

	for (int i = 0; i < 2; i++, off++) {
		struct rte_mbuf *s = m;
		uint32_t o = off;

		while (o >= s->data_len) {
			o -= s->data_len;
			s = s->next;
		}
		*rte_pktmbuf_mtod_offset(s, uint8_t *, o) = b[i];
	}
}

void ol_l4_csum(struct rte_mbuf *m, const struct ol_hdrs *h)
{
	uint32_t off = (uint32_t)h->l2 + h->l3;
	/* Bytes, not a uint16_t: nothing says where m's data starts. */
	uint8_t *field =
	    rte_pktmbuf_mtod_offset(m, uint8_t *, off + (h->proto == IPPROTO_TCP ? 16 : 6));
	uint32_t s =
	    ol_phdr_sum(rte_pktmbuf_mtod_offset(m, void *, h->l2), h->ipv, h->proto, h->l4_total);
	uint16_t c;

	memset(field, 0, 2);
	c = (uint16_t)~offload_sum(m, off, h->l4_total, s);
	/* A UDP checksum of 0 means "none": RFC 768 sends all ones. */
	if (c == 0 && h->proto == IPPROTO_UDP)
		c = 0xffff;
	memcpy(field, &c, 2);
}
