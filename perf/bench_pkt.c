/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_pkt.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint16_t bench_ipv4_cksum(const void *hdr, size_t len)
{
	const uint8_t *p = hdr;
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += get16(p + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

int bench_pkt_build(uint8_t *buf, size_t size, const struct bench_pkt_hdr *h)
{
	uint8_t *ip = buf + 14, *udp = ip + 20;
	size_t len = size - BENCH_FCS_LEN;

	if (size < BENCH_PKT_MIN_LEN || size > BENCH_PKT_MAX_LEN)
		return -EINVAL;
	memcpy(buf, h->dst_mac, 6);
	memcpy(buf + 6, h->src_mac, 6);
	put16(buf + 12, 0x0800);

	ip[0] = 0x45;
	ip[1] = 0;
	put16(ip + 2, (uint16_t)(len - 14));
	put16(ip + 4, 0);      /* id */
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = 17;
	put16(ip + 10, 0);
	put32(ip + 12, h->src_ip);
	put32(ip + 16, h->dst_ip);
	put16(ip + 10, bench_ipv4_cksum(ip, 20));

	put16(udp, h->src_port);
	put16(udp + 2, h->dst_port);
	put16(udp + 4, (uint16_t)(len - 34));
	put16(udp + 6, 0); /* no UDP checksum: the payload changes per frame */
	return 0;
}

void bench_pkt_tmpl_init(struct bench_pkt_tmpl *t, const struct bench_pkt_hdr *h)
{
	const uint8_t *ip = t->hdr + 14;

	/* Built at the smallest size, then the per-frame fields zeroed so the
	 * sum holds only what every frame shares. */
	bench_pkt_build(t->hdr, BENCH_PKT_MIN_LEN, h);
	memset(t->hdr + 14 + 2, 0, 2);	/* total length */
	memset(t->hdr + 14 + 10, 0, 2); /* checksum */
	memset(t->hdr + 14 + 16, 0, 4); /* destination */
	t->ip_sum = 0;
	for (unsigned int i = 0; i < 20; i += 2)
		t->ip_sum += get16(ip + i);
}

void bench_pkt_fill(uint8_t *buf, size_t size, const struct bench_pkt_tmpl *t,
		    const uint8_t dst_mac[6], const uint8_t src_mac[6], uint32_t dst_ip,
		    uint16_t src_port)
{
	uint8_t *ip = buf + 14, *udp = ip + 20;
	uint16_t ip_len = (uint16_t)(size - BENCH_FCS_LEN - 14);
	uint32_t sum = t->ip_sum + ip_len + (dst_ip >> 16) + (dst_ip & 0xffff);

	memcpy(buf, t->hdr, BENCH_HDR_LEN);
	memcpy(buf, dst_mac, 6);
	memcpy(buf + 6, src_mac, 6);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	put16(ip + 2, ip_len);
	put16(ip + 10, (uint16_t)~sum);
	put32(ip + 16, dst_ip);
	put16(udp, src_port);
	put16(udp + 4, (uint16_t)(ip_len - 20));
}

/* The stamp is in host byte order: only this program reads it back. */
void bench_stamp_write(uint8_t *frame, const struct bench_stamp *s)
{
	/* Put together first, then copied in one go (gcc makes it two 8-byte
	 * stores, not three): the frame's line is often still on its way
	 * (the switch read it last), and each store into it holds a
	 * store-buffer entry until it comes. */
	uint32_t magic = BENCH_MAGIC;
	uint8_t v[BENCH_STAMP_LEN];

	memcpy(v, &magic, 4);
	memcpy(v + 4, &s->seq, 4);
	memcpy(v + 8, &s->tsc, 8);
	memcpy(frame + BENCH_HDR_LEN, v, sizeof(v));
}

int bench_stamp_read(const uint8_t *frame, size_t len, struct bench_stamp *s)
{
	const uint8_t *p = frame + BENCH_HDR_LEN;
	uint32_t magic;

	if (len < BENCH_HDR_LEN + BENCH_STAMP_LEN)
		return -EMSGSIZE;
	if (get16(frame + 12) != 0x0800 || frame[14 + 9] != 17 ||
	    get16(frame + 34 + 2) != BENCH_UDP_DST_PORT)
		return -EBADMSG;
	memcpy(&magic, p, 4);
	if (magic != BENCH_MAGIC)
		return -EBADMSG;
	s->src_pod = get16(frame + 14 + 13);
	s->dst_pod = get16(frame + 14 + 17);
	s->src_queue = (uint16_t)(frame[14 + 15] - 1u);
	memcpy(&s->seq, p + 4, 4);
	memcpy(&s->tsc, p + 8, 8);
	return 0;
}

int bench_size_parse(const char *s, uint16_t *size)
{
	unsigned long v;
	char *end;

	if (strcmp(s, "imix") == 0) {
		*size = 0;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < BENCH_PKT_MIN_LEN ||
	    v > BENCH_PKT_MAX_LEN)
		return -EINVAL;
	*size = (uint16_t)v;
	return 0;
}

uint16_t bench_imix_len(uint64_t i)
{
	/* 7 x 64, 4 x 594, 1 x 1518, spread so that bursts stay mixed. */
	static const uint16_t seq[BENCH_IMIX_PERIOD] = {64, 594, 64, 64,   594, 64,
							64, 594, 64, 1518, 594, 64};

	return seq[i % BENCH_IMIX_PERIOD];
}

double bench_size_mean(uint16_t size)
{
	double sum = 0;

	if (size != 0)
		return size;
	for (unsigned int i = 0; i < BENCH_IMIX_PERIOD; i++)
		sum += bench_imix_len(i);
	return sum / BENCH_IMIX_PERIOD;
}
