/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the offload module (dataplane/offload): virtio-net
 * headers in and out and the checks on them, hostile ones included;
 * software segmentation of TCP and UDP super-frames over IPv4 and IPv6,
 * tagged or not, in one mbuf or a chain, every segment read back and
 * checked with a checksum routine of the test's own; checksum completion
 * in place and in a copy; every error and what it leaves. EAL runs
 * without hugepages.
 */
#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "dp_harness.h"
#include "offload/offload.h"
#include "ref_csum.h"

/* Mbufs that hold a whole 64 KB super-frame, and a pool of 4. */
static struct rte_mempool *big_pool, *tiny_pool;

/* ---- frames, built and checked without the code under test ---------------- */

struct spec {
	int ipv;       /* 4 or 6 */
	int proto;     /* IPPROTO_TCP or IPPROTO_UDP */
	bool vlan;     /* one 802.1Q tag */
	uint32_t plen; /* payload bytes */
	uint8_t opt;   /* TCP option bytes (a multiple of 4) */
	uint8_t tcp_flags;
	uint16_t ip_id;
	uint32_t seq;
};

static uint32_t hdr_len(const struct spec *s, uint32_t *l2, uint32_t *l3)
{
	*l2 = s->vlan ? 18 : 14;
	*l3 = s->ipv == 4 ? 20 : 40;
	return *l2 + *l3 + (s->proto == IPPROTO_TCP ? 20u + s->opt : 8u);
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) << 16 | get16(p + 2);
}

/* The pseudo-header sum for the IP header at ip, L4 length len. */
static uint32_t ref_phdr(const uint8_t *ip, int ipv, int proto, uint32_t len)
{
	uint8_t ph[40] = {0};

	if (ipv == 4) {
		memcpy(ph, ip + 12, 8);
		ph[9] = (uint8_t)proto;
		put16(ph + 10, len);
		return ref_sum(ph, 12, 0);
	}
	memcpy(ph, ip + 8, 32);
	put16(ph + 32, len >> 16);
	put16(ph + 34, len);
	ph[39] = (uint8_t)proto;
	return ref_sum(ph, 40, 0);
}

static uint32_t rnd_state = 12345;

static uint8_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return (uint8_t)rnd_state;
}

/* Builds the frame s into buf; returns its length. The L4 checksum field
 * holds the pseudo-header sum, as a sender asking for a checksum leaves it. */
static uint32_t build(uint8_t *buf, const struct spec *s)
{
	uint32_t l2, l3, hl = hdr_len(s, &l2, &l3);
	uint32_t l4len = hl - l2 - l3 + s->plen, len = hl + s->plen;
	uint8_t *ip = buf + l2, *l4 = buf + l2 + l3;

	memset(buf, 0, hl);
	memcpy(buf, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	if (s->vlan) {
		put16(buf + 12, 0x8100);
		put16(buf + 14, 42);
	}
	put16(buf + l2 - 2, s->ipv == 4 ? 0x0800 : 0x86dd);
	if (s->ipv == 4) {
		ip[0] = 0x45;
		put16(ip + 2, l3 + l4len);
		put16(ip + 4, s->ip_id);
		ip[6] = 0x40; /* DF */
		ip[8] = 64;
		ip[9] = (uint8_t)s->proto;
		memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
		put16(ip + 10, ~ref_sum(ip, 20, 0) & 0xffff);
	} else {
		ip[0] = 0x60;
		put16(ip + 4, l4len);
		ip[6] = (uint8_t)s->proto;
		ip[7] = 64;
		for (int i = 0; i < 32; i++)
			ip[8 + i] = (uint8_t)(0x20 + i);
	}
	put16(l4, 40000);
	put16(l4 + 2, 5201);
	if (s->proto == IPPROTO_TCP) {
		l4[4] = (uint8_t)(s->seq >> 24), l4[5] = (uint8_t)(s->seq >> 16);
		l4[6] = (uint8_t)(s->seq >> 8), l4[7] = (uint8_t)s->seq;
		l4[12] = (uint8_t)(((20 + s->opt) / 4) << 4);
		l4[13] = s->tcp_flags;
		put16(l4 + 14, 502);
		for (int i = 0; i < s->opt; i++)
			l4[20 + i] = 1; /* NOP */
		put16(l4 + 16, ref_phdr(ip, s->ipv, s->proto, l4len));
	} else {
		put16(l4 + 4, l4len);
		put16(l4 + 6, ref_phdr(ip, s->ipv, s->proto, l4len));
	}
	for (uint32_t i = 0; i < s->plen; i++)
		buf[hl + i] = rnd();
	return len;
}

/* buf as an mbuf: one from big_pool (cut 0), else a chain of pw_mbuf_pool
 * mbufs, the first of first bytes, the others of cut. */
static struct rte_mbuf *to_mbuf(const uint8_t *buf, uint32_t len, uint32_t first, uint32_t cut)
{
	struct rte_mbuf *head = NULL, *tail = NULL;
	uint32_t off = 0;

	while (off < len) {
		struct rte_mbuf *x = rte_pktmbuf_alloc(cut == 0 ? big_pool : pw_mbuf_pool);
		uint32_t n = cut == 0 ? len : RTE_MIN(len - off, off == 0 ? first : cut);

		CU_ASSERT_FATAL(x != NULL && rte_pktmbuf_tailroom(x) >= n);
		memcpy(rte_pktmbuf_append(x, (uint16_t)n), buf + off, n);
		off += n;
		if (head == NULL) {
			head = tail = x;
		} else {
			tail->next = x;
			tail = x;
			head->nb_segs++;
			head->pkt_len += n;
		}
	}
	return head;
}

/* The virtio-net header a kernel gives with frame s, segments of mss. */
static struct virtio_net_hdr vnet_for(const struct spec *s, uint16_t mss)
{
	uint32_t l2, l3, hl = hdr_len(s, &l2, &l3);
	struct virtio_net_hdr h = {
	    .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
	    .csum_start = (uint16_t)(l2 + l3),
	    .csum_offset = s->proto == IPPROTO_TCP ? 16 : 6,
	};

	if (mss != 0) {
		h.gso_type = s->proto == IPPROTO_UDP ? VIRTIO_NET_HDR_GSO_UDP_L4
			     : s->ipv == 4	     ? VIRTIO_NET_HDR_GSO_TCPV4
						     : VIRTIO_NET_HDR_GSO_TCPV6;
		h.gso_size = mss;
		h.hdr_len = (uint16_t)hl;
	}
	return h;
}

/* An L4 checksum of frame f (length len, headers at l2/l3) that verifies. */
static bool l4_ok(const uint8_t *f, uint32_t len, uint32_t l2, uint32_t l3, int ipv, int proto)
{
	uint32_t l4len = len - l2 - l3;

	return ref_sum(f + l2 + l3, l4len, ref_phdr(f + l2, ipv, proto, l4len)) == 0xffff;
}

static uint8_t orig[70000], seg[70000], cat[70000];

/* Checks segments out[0..n) of the frame orig (spec s): sizes, headers,
 * checksums (complete, or left as requests when req), and that their
 * payloads make the original's. mss: each segment's payload but the last. */
static void check_segments(const struct spec *s, struct rte_mbuf **out, int n, uint32_t max_frame,
			   uint32_t mss, bool req)
{
	uint32_t l2, l3, hl = hdr_len(s, &l2, &l3), got = 0;

	ASSERT_INT_EQ(n, (s->plen + mss - 1) / mss);
	for (int i = 0; i < n; i++) {
		struct rte_mbuf *m = out[i];
		const uint8_t *f = rte_pktmbuf_read(m, 0, m->pkt_len, seg);
		uint32_t len = m->pkt_len, pl = len - hl;
		const uint8_t *ip, *l4;

		CU_ASSERT_FATAL(f != NULL && len >= hl);
		ip = f + l2;
		l4 = ip + l3;
		unit_check(len <= max_frame, __LINE__, __FILE__, "segment %d: %u bytes > %u", i,
			   len, max_frame);
		ASSERT_INT_EQ(pl, i == n - 1 ? s->plen - mss * (uint32_t)(n - 1) : mss);
		/* Headers the same but for what segmenting changes. */
		CU_ASSERT(memcmp(f, orig, l2 + (s->ipv == 4 ? 2 : 4)) == 0);
		memcpy(cat + got, f + hl, pl);
		if (s->ipv == 4) {
			ASSERT_INT_EQ(get16(ip + 2), len - l2);
			ASSERT_INT_EQ(get16(ip + 4), (s->ip_id + i) & 0xffff);
			ASSERT_INT_EQ(ref_sum(ip, 20, 0), 0xffff);
		} else {
			ASSERT_INT_EQ(get16(ip + 4), len - l2 - 40);
		}
		if (s->proto == IPPROTO_TCP) {
			uint8_t want = s->tcp_flags;

			ASSERT_INT_EQ(get32(l4 + 4), s->seq + got);
			if (i != n - 1)
				want &= (uint8_t) ~(RTE_TCP_FIN_FLAG | RTE_TCP_PSH_FLAG);
			if (i != 0)
				want &= (uint8_t)~RTE_TCP_CWR_FLAG;
			ASSERT_INT_EQ(l4[13], want);
			CU_ASSERT(memcmp(l4 + 20, orig + l2 + l3 + 20, s->opt) == 0);
		} else {
			ASSERT_INT_EQ(get16(l4 + 4), len - l2 - l3);
		}
		if (req) {
			uint64_t want = (s->ipv == 4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6) |
					(s->proto == IPPROTO_TCP ? RTE_MBUF_F_TX_TCP_CKSUM
								 : RTE_MBUF_F_TX_UDP_CKSUM);

			ASSERT_INT_EQ(m->ol_flags & (OFFLOAD_MBUF_FLAGS | RTE_MBUF_F_TX_IPV4 |
						     RTE_MBUF_F_TX_IPV6),
				      want);
			ASSERT_INT_EQ(get16(l4 + (s->proto == IPPROTO_TCP ? 16 : 6)),
				      ref_phdr(ip, s->ipv, s->proto, len - l2 - l3));
		} else {
			ASSERT_INT_EQ(m->ol_flags & OFFLOAD_MBUF_FLAGS, 0);
			unit_check(l4_ok(f, len, l2, l3, s->ipv, s->proto), __LINE__, __FILE__,
				   "segment %d: bad L4 checksum", i);
		}
		ASSERT_INT_EQ(m->l2_len, l2);
		ASSERT_INT_EQ(m->l3_len, l3);
		ASSERT_INT_EQ(m->l4_len, hl - l2 - l3);
		got += pl;
	}
	ASSERT_INT_EQ(got, s->plen);
	CU_ASSERT(memcmp(cat, orig + hl, s->plen) == 0);
}

static void free_all(struct rte_mbuf **out, int n)
{
	for (int i = 0; i < n; i++)
		rte_pktmbuf_free(out[i]);
}

/* Builds s, reads its header as a port would, cuts it with offload_fix
 * for (caps, max_frame) and checks the segments. first/cut: see to_mbuf. */
static void seg_case(const struct spec *s, uint16_t mss, uint32_t caps, uint32_t max_frame,
		     uint32_t want_mss, uint32_t first, uint32_t cut)
{
	unsigned int before = rte_mempool_avail_count(pw_mbuf_pool);
	uint32_t len = build(orig, s);
	struct rte_mbuf *m = to_mbuf(orig, len, first, cut), *out[OFFLOAD_MAX_SEGS];
	struct virtio_net_hdr vh = vnet_for(s, mss);
	int n;

	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	CU_ASSERT((m->ol_flags & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG)) != 0);
	n = offload_fix(m, caps, max_frame, pw_mbuf_pool, out, OFFLOAD_MAX_SEGS);
	CU_ASSERT_FATAL(n > 0);
	check_segments(s, out, n, max_frame, want_mss, (caps & OFFLOAD_CSUM) != 0);
	free_all(out, n);
	/* m was taken: everything made or held is back. */
	ASSERT_INT_EQ(rte_mempool_avail_count(pw_mbuf_pool), before);
	ASSERT_INT_EQ(rte_mempool_avail_count(big_pool), big_pool->size);
}

#define TCP4(...)                                                                                  \
	(struct spec)                                                                              \
	{                                                                                          \
		.ipv = 4, .proto = IPPROTO_TCP, __VA_ARGS__                                        \
	}
#define TCP6(...)                                                                                  \
	(struct spec)                                                                              \
	{                                                                                          \
		.ipv = 6, .proto = IPPROTO_TCP, __VA_ARGS__                                        \
	}
#define UDP4(...)                                                                                  \
	(struct spec)                                                                              \
	{                                                                                          \
		.ipv = 4, .proto = IPPROTO_UDP, __VA_ARGS__                                        \
	}
#define UDP6(...)                                                                                  \
	(struct spec)                                                                              \
	{                                                                                          \
		.ipv = 6, .proto = IPPROTO_UDP, __VA_ARGS__                                        \
	}

#define ALL_TCP_FLAGS (RTE_TCP_FIN_FLAG | RTE_TCP_PSH_FLAG | RTE_TCP_CWR_FLAG | RTE_TCP_ACK_FLAG)

/* ---- segmentation ------------------------------------------------------------ */

static void test_seg_tcp4(void)
{
	/* 64 KB at MSS 1448 with timestamps (12 option bytes), as Linux sends
	 * them through a packet socket (65,226 bytes seen on a veth). */
	struct spec s = TCP4(.plen = 65226 - 66, .opt = 12, .tcp_flags = ALL_TCP_FLAGS,
			     .ip_id = 0xfff0, .seq = 0xfffff000);

	seg_case(&s, 1448, 0, 1514, 1448, 0, 0);
	/* Left as checksum requests for an egress that completes them. */
	seg_case(&s, 1448, OFFLOAD_CSUM, 1514, 1448, 0, 0);
	/* An egress that takes TSO4 but whose MTU is smaller than asked. */
	seg_case(&s, 8000, OFFLOAD_ALL, 1514, 1514 - 66, 0, 0);
	/* No options, an odd MSS: odd payload offsets in every segment. */
	s.opt = 0;
	seg_case(&s, 1001, 0, 1514, 1001, 0, 0);
}

static void test_seg_tcp6(void)
{
	struct spec s = TCP6(.plen = 60000, .opt = 12, .tcp_flags = ALL_TCP_FLAGS, .seq = 7);

	seg_case(&s, 1428, 0, 1514, 1428, 0, 0);
	seg_case(&s, 1428, OFFLOAD_CSUM | OFFLOAD_TSO4, 1514, 1428, 0, 0);
}

static void test_seg_udp(void)
{
	struct spec s4 = UDP4(.plen = 20000, .ip_id = 3), s6 = UDP6(.plen = 33333);

	seg_case(&s4, 1472, 0, 1514, 1472, 0, 0);
	seg_case(&s4, 1472, OFFLOAD_CSUM | OFFLOAD_TSO4 | OFFLOAD_TSO6, 1514, 1472, 0, 0);
	seg_case(&s6, 1200, 0, 1514, 1200, 0, 0);
	seg_case(&s6, 1200, OFFLOAD_CSUM, 1514, 1200, 0, 0);
}

static void test_seg_vlan(void)
{
	struct spec t = TCP4(.vlan = true, .plen = 30000, .opt = 12, .tcp_flags = ALL_TCP_FLAGS);
	struct spec u = UDP6(.vlan = true, .plen = 9000);

	seg_case(&t, 1448, 0, 1518, 1448, 0, 0);
	seg_case(&u, 1452, 0, 1518, 1452, 0, 0);
}

/* A super-frame in a chain (as a packet socket's recvmsg makes it), cut
 * at odd places: pieces of a segment's payload start at odd offsets. */
static void test_seg_chained_input(void)
{
	struct spec t4 = TCP4(.plen = 50000, .opt = 12, .tcp_flags = RTE_TCP_PSH_FLAG);
	struct spec t6 = TCP6(.plen = 12345, .tcp_flags = RTE_TCP_FIN_FLAG);
	struct spec u4 = UDP4(.plen = 7777);

	seg_case(&t4, 1448, 0, 1514, 1448, 2048, 2048);
	seg_case(&t4, 1448, 0, 1514, 1448, 67, 333);
	seg_case(&t6, 1000, OFFLOAD_CSUM, 1514, 1000, 100, 7);
	seg_case(&u4, 1472, 0, 1514, 1472, 51, 999);
}

/* Segments larger than an mbuf's room (MTU 9000, 2 KB mbufs) are chains. */
static void test_seg_jumbo_chains(void)
{
	struct spec s = TCP4(.plen = 60000, .opt = 12, .tcp_flags = ALL_TCP_FLAGS);
	struct rte_mbuf *m, *out[16];
	struct virtio_net_hdr vh = vnet_for(&s, 8948);
	uint32_t len = build(orig, &s);
	int n;

	m = to_mbuf(orig, len, 0, 0);
	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	n = offload_fix(m, OFFLOAD_CSUM, 9014, pw_mbuf_pool, out, RTE_DIM(out));
	CU_ASSERT_FATAL(n == 7);
	for (int i = 0; i < n - 1; i++)
		CU_ASSERT(out[i]->nb_segs == 5);
	check_segments(&s, out, n, 9014, 8948, true);
	free_all(out, n);
	seg_case(&s, 8948, 0, 9014, 8948, 1999, 2000);
}

/* A super-frame a flood shares is read, never written: the other
 * destinations get it as it was. */
static void test_seg_shared(void)
{
	struct spec s = UDP4(.plen = 10000, .vlan = true);
	uint32_t len = build(orig, &s);
	struct rte_mbuf *m = to_mbuf(orig, len, 1000, 1000), *out[16];
	struct virtio_net_hdr vh = vnet_for(&s, 1400);
	uint64_t fl;
	int n;

	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	fl = m->ol_flags;
	for (struct rte_mbuf *x = m; x != NULL; x = x->next)
		rte_mbuf_refcnt_update(x, 1);
	n = offload_fix(m, 0, 1518, pw_mbuf_pool, out, RTE_DIM(out));
	check_segments(&s, out, n, 1518, 1400, false);
	free_all(out, n);
	ASSERT_INT_EQ(rte_mbuf_refcnt_read(m), 1);
	ASSERT_INT_EQ(m->ol_flags, fl);
	CU_ASSERT(memcmp(rte_pktmbuf_read(m, 0, len, seg), orig, len) == 0);
	rte_pktmbuf_free(m);
}

/* An egress that takes the request gets m itself, untouched. */
static void test_fix_pass(void)
{
	struct spec s = TCP6(.plen = 30000);
	uint32_t len = build(orig, &s);
	struct rte_mbuf *m = to_mbuf(orig, len, 0, 0), *out[4];
	struct virtio_net_hdr vh = vnet_for(&s, 1428);
	uint64_t fl;

	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	fl = m->ol_flags;
	ASSERT_INT_EQ(offload_needs(m), OFFLOAD_CSUM | OFFLOAD_TSO6);
	ASSERT_INT_EQ(offload_wire_len(m), 14 + 40 + 20 + 1428);
	ASSERT_INT_EQ(offload_fix(m, OFFLOAD_CSUM | OFFLOAD_TSO6, 1514, pw_mbuf_pool, out, 4), 1);
	CU_ASSERT(out[0] == m);
	ASSERT_INT_EQ(m->ol_flags, fl);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, void *), orig, len) == 0);
	/* TSO4 only: an IPv6 super-frame is cut. */
	ASSERT_INT_EQ(offload_fix(m, OFFLOAD_CSUM | OFFLOAD_TSO4, 1514, pw_mbuf_pool, out, 4),
		      -E2BIG);
	rte_pktmbuf_free(m);

	/* A frame without a request, and one over the size. */
	m = to_mbuf(orig, 1514, 0, 0);
	ASSERT_INT_EQ(offload_needs(m), 0);
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, pw_mbuf_pool, out, 4), 1);
	CU_ASSERT(out[0] == m);
	ASSERT_INT_EQ(offload_fix(m, OFFLOAD_ALL, 1513, pw_mbuf_pool, out, 4), -EMSGSIZE);
	rte_pktmbuf_free(m);
}

/* ---- checksum only ------------------------------------------------------------ */

static struct rte_mbuf *csum_frame(const struct spec *s, uint32_t first, uint32_t cut,
				   uint32_t *len)
{
	struct virtio_net_hdr vh = vnet_for(s, 0);
	struct rte_mbuf *m;

	*len = build(orig, s);
	m = to_mbuf(orig, *len, first, cut);
	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	ASSERT_INT_EQ(offload_needs(m), OFFLOAD_CSUM);
	return m;
}

static void check_complete(const struct rte_mbuf *m, const struct spec *s, uint32_t len)
{
	uint32_t l2, l3;
	const uint8_t *f = rte_pktmbuf_read(m, 0, len, seg);

	hdr_len(s, &l2, &l3);
	ASSERT_INT_EQ(m->pkt_len, len);
	CU_ASSERT(l4_ok(f, len, l2, l3, s->ipv, s->proto));
	ASSERT_INT_EQ(m->ol_flags & (OFFLOAD_MBUF_FLAGS | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6),
		      0);
	/* Only the checksum changed. */
	CU_ASSERT(memcmp(f, orig, l2 + l3 + (s->proto == IPPROTO_TCP ? 16 : 6)) == 0);
	CU_ASSERT(memcmp(f + l2 + l3 + (s->proto == IPPROTO_TCP ? 18 : 8),
			 orig + l2 + l3 + (s->proto == IPPROTO_TCP ? 18 : 8),
			 len - l2 - l3 - (s->proto == IPPROTO_TCP ? 18 : 8)) == 0);
}

static void test_csum_in_place(void)
{
	const struct spec specs[] = {TCP4(.plen = 1000, .opt = 12), TCP6(.plen = 1),
				     UDP4(.plen = 1472), UDP6(.plen = 0, .vlan = true)};

	for (size_t i = 0; i < RTE_DIM(specs); i++) {
		struct rte_mbuf *out[2], *m;
		uint32_t len;

		m = csum_frame(&specs[i], 2048, 2048, &len);
		/* An egress that completes it gets it as it is. */
		ASSERT_INT_EQ(offload_fix(m, OFFLOAD_CSUM, 1518, pw_mbuf_pool, out, 2), 1);
		CU_ASSERT(out[0] == m);
		CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, void *), orig, len) == 0);
		ASSERT_INT_EQ(offload_fix(m, OFFLOAD_TSO4, 1518, pw_mbuf_pool, out, 2), 1);
		CU_ASSERT(out[0] == m);
		check_complete(m, &specs[i], len);
		rte_pktmbuf_free(m);
	}
}

/* A frame something else holds (a flood's shared mbuf, a chain) is
 * completed in a copy; the original stays as it was, byte for byte. */
static void test_csum_copy(void)
{
	const struct spec s = TCP4(.plen = 1400, .opt = 12), u = UDP6(.plen = 1400);
	struct rte_mbuf *m, *out[2];
	uint32_t len;

	m = csum_frame(&s, 2048, 2048, &len);
	rte_mbuf_refcnt_update(m, 1);
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, pw_mbuf_pool, out, 2), 1);
	CU_ASSERT_FATAL(out[0] != m);
	check_complete(out[0], &s, len);
	ASSERT_INT_EQ(rte_mbuf_refcnt_read(m), 1);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, void *), orig, len) == 0);
	CU_ASSERT((m->ol_flags & RTE_MBUF_F_TX_TCP_CKSUM) != 0);
	rte_pktmbuf_free(out[0]);
	rte_pktmbuf_free(m);

	/* A chain, cut in an odd place. */
	m = csum_frame(&u, 77, 301, &len);
	ASSERT_INT_EQ(offload_fix(m, OFFLOAD_USO, 1514, pw_mbuf_pool, out, 2), 1);
	CU_ASSERT_FATAL(out[0] != m);
	check_complete(out[0], &u, len);
	rte_pktmbuf_free(out[0]);
}

/* ---- errors: m left to the caller, unchanged ----------------------------------- */

static void test_fix_errors(void)
{
	struct spec s = TCP4(.plen = 60000, .opt = 12);
	struct virtio_net_hdr vh = vnet_for(&s, 1448);
	uint32_t len = build(orig, &s);
	struct rte_mbuf *m = to_mbuf(orig, len, 0, 0), *out[OFFLOAD_MAX_SEGS];
	unsigned int avail = rte_mempool_avail_count(pw_mbuf_pool);
	uint64_t fl;

	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	fl = m->ol_flags;
	/* 42 segments into room for 41. */
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, pw_mbuf_pool, out, 41), -E2BIG);
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, pw_mbuf_pool, out, 0), -E2BIG);
	/* Headers alone (66 bytes) do not fit. */
	ASSERT_INT_EQ(offload_fix(m, 0, 66, pw_mbuf_pool, out, 255), -EMSGSIZE);
	/* A pool of 4. */
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, tiny_pool, out, 255), -ENOMEM);
	ASSERT_INT_EQ(rte_mempool_avail_count(tiny_pool), 4);
	/* Metadata that does not describe the frame. */
	m->l3_len = 24;
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, pw_mbuf_pool, out, 255), -EINVAL);
	m->l3_len = 20;
	m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, pw_mbuf_pool, out, 255), -EINVAL);
	m->ol_flags = fl ^ RTE_MBUF_F_TX_IPV4 ^ RTE_MBUF_F_TX_IPV6;
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, pw_mbuf_pool, out, 255), -EINVAL);
	m->ol_flags = fl ^ RTE_MBUF_F_TX_TCP_SEG ^ RTE_MBUF_F_TX_UDP_SEG;
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, pw_mbuf_pool, out, 255), -EINVAL);
	m->ol_flags = fl;
	m->tso_segsz = 0;
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, pw_mbuf_pool, out, 255), -EINVAL);
	m->tso_segsz = 1448;
	m->l4_len = 20;
	ASSERT_INT_EQ(offload_fix(m, 0, 1514, pw_mbuf_pool, out, 255), -EINVAL);
	m->l4_len = 32;
	/* All of it left m as it was, and nothing in the pools. */
	ASSERT_INT_EQ(m->ol_flags, fl);
	ASSERT_INT_EQ(rte_mbuf_refcnt_read(m), 1);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, void *), orig, len) == 0);
	ASSERT_INT_EQ(rte_mempool_avail_count(pw_mbuf_pool), avail);
	ASSERT_INT_EQ(rte_mempool_avail_count(tiny_pool), 4);
	rte_pktmbuf_free(m);

	/* Segments of 8948 bytes, 3 of them, in 2 KB mbufs: the pool of 4
	 * runs short half-way through the chains. */
	s.plen = 20000;
	vh = vnet_for(&s, 8948);
	len = build(orig, &s);
	m = to_mbuf(orig, len, 0, 0);
	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	fl = m->ol_flags;
	ASSERT_INT_EQ(offload_fix(m, 0, 9014, tiny_pool, out, 255), -ENOMEM);
	ASSERT_INT_EQ(rte_mempool_avail_count(tiny_pool), 4);
	ASSERT_INT_EQ(m->ol_flags, fl);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, void *), orig, len) == 0);
	rte_pktmbuf_free(m);

	/* Checksum only: larger than the egress, or no copy to be had. */
	s.plen = 1448;
	m = csum_frame(&s, 2048, 2048, &len);
	ASSERT_INT_EQ(offload_fix(m, 0, len - 1, pw_mbuf_pool, out, 2), -EMSGSIZE);
	rte_mbuf_refcnt_update(m, 1);
	{
		struct rte_mbuf *hold[4];

		CU_ASSERT_FATAL(rte_pktmbuf_alloc_bulk(tiny_pool, hold, 4) == 0);
		ASSERT_INT_EQ(offload_fix(m, 0, 1514, tiny_pool, out, 2), -ENOMEM);
		free_all(hold, 4);
	}
	ASSERT_INT_EQ(rte_mbuf_refcnt_read(m), 2);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, void *), orig, len) == 0);
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(m);
}

/* ---- virtio-net headers ---------------------------------------------------------- */

/* What a kernel's header says comes back out the same. */
static void test_vnet_round_trip(void)
{
	const struct spec specs[] = {
	    TCP4(.plen = 3000, .opt = 12),
	    TCP6(.plen = 3000, .vlan = true),
	    UDP4(.plen = 3000),
	    UDP6(.plen = 3000),
	    TCP4(.plen = 100),
	    UDP6(.plen = 100, .vlan = true),
	};

	for (size_t i = 0; i < RTE_DIM(specs); i++) {
		uint16_t mss = specs[i].plen > 1000 ? 1000 : 0;
		struct virtio_net_hdr in = vnet_for(&specs[i], mss), back;
		uint32_t len = build(orig, &specs[i]);
		struct rte_mbuf *m = to_mbuf(orig, len, 0, 0);

		ASSERT_INT_EQ(offload_from_vnet(m, &in), 0);
		if (mss == 0)
			in.hdr_len = 0; /* no segmentation: not given back */
		offload_to_vnet(m, &back);
		CU_ASSERT(memcmp(&in, &back, sizeof(in)) == 0);
		ASSERT_INT_EQ(offload_check(m), 0);
		offload_to_vnet(m, &back);
		CU_ASSERT(memcmp(&in, &back, sizeof(in)) == 0);
		/* The bytes are the sender's. */
		CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, void *), orig, len) == 0);
		rte_pktmbuf_free(m);
	}
}

/* ECN: a super-frame with CWR goes out with GSO_ECN, and comes in with
 * it accepted. Nothing asked: all zero. */
static void test_vnet_ecn_and_none(void)
{
	struct spec s = TCP4(.plen = 5000, .tcp_flags = RTE_TCP_CWR_FLAG);
	struct virtio_net_hdr vh = vnet_for(&s, 1448), back, zero = {0};
	uint32_t len = build(orig, &s);
	struct rte_mbuf *m = to_mbuf(orig, len, 0, 0);

	vh.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	offload_to_vnet(m, &back);
	CU_ASSERT(memcmp(&vh, &back, sizeof(vh)) == 0);
	/* DATA_VALID alone asks for nothing, and clears what m had. */
	vh = (struct virtio_net_hdr){.flags = VIRTIO_NET_HDR_F_DATA_VALID};
	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	ASSERT_INT_EQ(m->ol_flags & OFFLOAD_MBUF_FLAGS, 0);
	ASSERT_INT_EQ(offload_needs(m), 0);
	offload_to_vnet(m, &back);
	CU_ASSERT(memcmp(&zero, &back, sizeof(zero)) == 0);
	rte_pktmbuf_free(m);
}

/* A super-frame of one segment is a checksum request; GSO without
 * NEEDS_CSUM gets the pseudo-header sum a request promises. */
static void test_vnet_normalised(void)
{
	struct spec s = TCP6(.plen = 1000);
	struct virtio_net_hdr vh = vnet_for(&s, 1000);
	uint32_t len = build(orig, &s);
	struct rte_mbuf *m = to_mbuf(orig, len, 0, 0), *out[2];
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);

	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	ASSERT_INT_EQ(m->ol_flags & OFFLOAD_MBUF_FLAGS, RTE_MBUF_F_TX_TCP_CKSUM);
	ASSERT_INT_EQ(offload_needs(m), OFFLOAD_CSUM);
	s.plen = 5000;
	len = build(orig, &s);
	rte_pktmbuf_free(m);
	m = to_mbuf(orig, len, 0, 0);
	f = rte_pktmbuf_mtod(m, uint8_t *);
	put16(f + 14 + 40 + 16, 0xbeef);
	vh = vnet_for(&s, 1000);
	vh.flags = 0;
	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	ASSERT_INT_EQ(get16(f + 14 + 40 + 16), ref_phdr(f + 14, 6, IPPROTO_TCP, len - 54));
	ASSERT_INT_EQ(offload_fix(m, OFFLOAD_TSO6, 1514, pw_mbuf_pool, out, 2), -E2BIG);
	ASSERT_INT_EQ(offload_fix(m, OFFLOAD_CSUM | OFFLOAD_TSO6, 1514, pw_mbuf_pool, out, 2), 1);
	rte_pktmbuf_free(m);
}

/* A checksum at an offset the flags cannot say (inside the frame) is
 * completed at once, like the kernel's skb_checksum_help. */
static void test_vnet_csum_elsewhere(void)
{
	struct spec s = UDP4(.plen = 301);
	uint32_t len = build(orig, &s);
	struct rte_mbuf *m = to_mbuf(orig, len, 60, 100);
	struct virtio_net_hdr vh = {
	    .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 57, .csum_offset = 102};
	uint8_t *f;

	/* The field (bytes 159 and 160) straddles two mbufs. */
	ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
	ASSERT_INT_EQ(m->ol_flags & OFFLOAD_MBUF_FLAGS, 0);
	f = (uint8_t *)rte_pktmbuf_read(m, 0, len, seg);
	/* What the field held was part of the sum (a pseudo-header's, say). */
	ASSERT_INT_EQ(get16(f + 159), ~ref_sum(orig + 57, len - 57, 0) & 0xffff);
	CU_ASSERT(memcmp(f, orig, 159) == 0);
	CU_ASSERT(memcmp(f + 161, orig + 161, len - 161) == 0);
	CU_ASSERT(memcmp(f + 159, orig + 159, 2) != 0);
	rte_pktmbuf_free(m);
}

/* Headers a hostile peer might send: refused, flags cleared. */
static void test_vnet_hostile(void)
{
	struct spec t4 = TCP4(.plen = 60000), u6 = UDP6(.plen = 3000), t6 = TCP6(.plen = 3000);
	struct virtio_net_hdr vh;
	struct rte_mbuf *m, *out[64];
	uint32_t len;
	int n;

#define REFUSED(spec, edit_hdr, edit_frame)                                                        \
	do {                                                                                       \
		len = build(orig, &(spec));                                                        \
		m = to_mbuf(orig, len, 0, 0);                                                      \
		vh = vnet_for(&(spec), 1000);                                                      \
		edit_hdr;                                                                          \
		edit_frame;                                                                        \
		m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG;                                              \
		ASSERT_INT_EQ(offload_from_vnet(m, &vh), -EINVAL);                                 \
		ASSERT_INT_EQ(m->ol_flags &OFFLOAD_MBUF_FLAGS, 0);                                 \
		rte_pktmbuf_free(m);                                                               \
	} while (0)
#define FRAME(off) (rte_pktmbuf_mtod(m, uint8_t *)[off])

	REFUSED(t6, vh.csum_start = (uint16_t)len, (void)0);
	REFUSED(t6, (vh.csum_start = (uint16_t)(len - 17), vh.gso_type = 0), (void)0);
	REFUSED(t6, vh.csum_offset = 6, (void)0); /* not where TCP's is, with GSO */
	REFUSED(t6, vh.gso_size = 0, (void)0);
	REFUSED(t4, vh.gso_size = 100, (void)0); /* 600 segments */
	REFUSED(t6, vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4, (void)0);
	REFUSED(t4, vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV6, (void)0);
	REFUSED(t4, vh.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4, vh.csum_offset = 6);
	REFUSED(u6, vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV6, vh.csum_offset = 16);
	REFUSED(u6, vh.gso_type = VIRTIO_NET_HDR_GSO_UDP, (void)0); /* UFO */
	REFUSED(u6, vh.gso_type = 9, (void)0);
	REFUSED(t4, (void)0, FRAME(14 + 20 + 12) = 4 << 4);    /* TCP data offset 4 */
	REFUSED(t4, vh.gso_type = 0, FRAME(14 + 20 + 12) = 0); /* even without GSO */
	REFUSED(t4, (void)0, FRAME(14) = 0x44);		       /* IPv4 ihl 4 */
	REFUSED(t4, (void)0, FRAME(14 + 2) = 0xff);	       /* total length beyond */
	REFUSED(t4, (void)0, FRAME(14 + 3) -= 1);	       /* ... or short of the frame */
	REFUSED(t6, (void)0, FRAME(14 + 5) += 1);	       /* payload length beyond */
	REFUSED(t4, (void)0, FRAME(14 + 6) = 0x20);	       /* a fragment */

	/* The TCP header (60 bytes) beyond the first mbuf of a chain. */
	t4.opt = 40;
	len = build(orig, &t4);
	m = to_mbuf(orig, len, 14 + 20 + 40, 1000);
	vh = vnet_for(&t4, 1000);
	ASSERT_INT_EQ(offload_from_vnet(m, &vh), -EINVAL);
	rte_pktmbuf_free(m);

	/* hdr_len lies: ignored, the frame's own headers say where they end. */
	t4.plen = 5000;
	len = build(orig, &t4);
	for (int lie = 0; lie < 2; lie++) {
		m = to_mbuf(orig, len, 0, 0);
		vh = vnet_for(&t4, 1000);
		vh.hdr_len = lie ? 60000 : 1;
		ASSERT_INT_EQ(offload_from_vnet(m, &vh), 0);
		ASSERT_INT_EQ(m->l4_len, 60);
		n = offload_fix(m, 0, 1514, pw_mbuf_pool, out, RTE_DIM(out));
		check_segments(&t4, out, n, 1514, 1000, false);
		free_all(out, n);
	}
#undef REFUSED
#undef FRAME
}

/* Metadata librte_vhost set (its checks let a segment size of 0, a TCP
 * header length of 0, SCTP and UFO through). */
static void test_check(void)
{
	struct spec s = TCP4(.plen = 3000, .opt = 12);
	uint32_t len = build(orig, &s);
	struct rte_mbuf *m = to_mbuf(orig, len, 0, 0);
	const struct {
		uint64_t flags;
		uint16_t segsz, l2, l3, l4;
		int rc;
	} cases[] = {
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM, 0, 14, 20, 0, 0},
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_TCP_SEG, 1448, 14, 20, 32,
	     0},
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_SEG, 1448, 14, 20, 32, 0},
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_TCP_SEG, 0, 14, 20, 32,
	     -EINVAL},
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_SEG, 1448, 14, 20, 0, -EINVAL},
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_SCTP_CKSUM, 0, 14, 20, 0, -EINVAL},
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_UDP_CKSUM, 0, 14, 20, 0, -EINVAL},
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_UDP_SEG, 1448, 14, 20, 8, -EINVAL},
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM, 0, 14, 20, 0, -EINVAL},
	    {RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_TCP_CKSUM, 0, 14, 20, 0, -EINVAL},
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM, 0, 18, 20, 0, -EINVAL},
	    {RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM, 0, 14, 40, 0, -EINVAL},
	};

	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		m->ol_flags = cases[i].flags;
		m->tso_segsz = cases[i].segsz;
		m->l2_len = cases[i].l2;
		m->l3_len = cases[i].l3;
		m->l4_len = cases[i].l4;
		unit_check(offload_check(m) == cases[i].rc, __LINE__, __FILE__, "case %zu", i);
		if (cases[i].rc != 0) {
			ASSERT_INT_EQ(m->ol_flags & OFFLOAD_MBUF_FLAGS, 0);
			continue;
		}
		/* Completed: l4_len from the header, SEG with its checksum. */
		ASSERT_INT_EQ(m->l4_len, 32);
		CU_ASSERT((m->ol_flags & RTE_MBUF_F_TX_TCP_CKSUM) != 0);
		ASSERT_INT_EQ(offload_needs(m), OFFLOAD_CSUM | (cases[i].segsz ? OFFLOAD_TSO4 : 0));
	}
	/* Nothing asked: nothing checked. */
	m->ol_flags = 0;
	ASSERT_INT_EQ(offload_check(m), 0);
	rte_pktmbuf_free(m);
}

/* offload_sum against the test's own sum, over chains cut anywhere. */
static void test_sum(void)
{
	static const uint32_t cuts[][2] = {{1, 1}, {7, 13}, {100, 3}, {2048, 2048}, {333, 1000}};
	uint8_t buf[5000];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = rnd();
	for (size_t c = 0; c < RTE_DIM(cuts); c++) {
		struct rte_mbuf *m = to_mbuf(buf, 1200, cuts[c][0], cuts[c][1]);
		const uint32_t ranges[][2] = {{0, 1200}, {1, 1199}, {3, 500}, {517, 0}, {1199, 1}};

		for (size_t r = 0; r < RTE_DIM(ranges); r++) {
			uint32_t got = offload_sum(m, ranges[r][0], ranges[r][1], 0x1234);
			uint32_t want = ref_sum(buf + ranges[r][0], ranges[r][1], 0x3412);

			/* offload_sum is in memory order: read as big-endian. */
			got = rte_be_to_cpu_16((uint16_t)got);
			unit_check(got == want || (got == 0xffff && want == 0) ||
				       (got == 0 && want == 0xffff),
				   __LINE__, __FILE__, "cut %zu range %zu: %#x, expected %#x", c, r,
				   got, want);
		}
		rte_pktmbuf_free(m);
	}
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"offload: TCP/IPv4 super-frames cut, checksums complete or asked", test_seg_tcp4},
	    {"offload: TCP/IPv6 super-frames cut", test_seg_tcp6},
	    {"offload: UDP super-frames (GSO_UDP_L4) cut, IPv4 and IPv6", test_seg_udp},
	    {"offload: VLAN-tagged super-frames", test_seg_vlan},
	    {"offload: super-frames in chains cut at odd places", test_seg_chained_input},
	    {"offload: jumbo segments made as chains", test_seg_jumbo_chains},
	    {"offload: a shared super-frame is left as it was", test_seg_shared},
	    {"offload: an egress that takes the request gets the frame", test_fix_pass},
	    {"offload: checksum completed in place", test_csum_in_place},
	    {"offload: checksum completed in a copy of a shared frame", test_csum_copy},
	    {"offload: errors leave the frame unchanged", test_fix_errors},
	    {"offload: virtio-net header round trip", test_vnet_round_trip},
	    {"offload: ECN and nothing asked", test_vnet_ecn_and_none},
	    {"offload: one-segment GSO and GSO without NEEDS_CSUM", test_vnet_normalised},
	    {"offload: a checksum elsewhere completed at once", test_vnet_csum_elsewhere},
	    {"offload: hostile virtio-net headers refused", test_vnet_hostile},
	    {"offload: librte_vhost's metadata checked", test_check},
	    {"offload: sums across chains", test_sum},
	    {NULL, NULL},
	};
	int rc;

	dp_harness_init(1);
	big_pool = rte_pktmbuf_pool_create("unit_big", 15, 0, 0, UINT16_MAX, SOCKET_ID_ANY);
	tiny_pool =
	    rte_pktmbuf_pool_create("unit_tiny", 4, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (big_pool == NULL || tiny_pool == NULL) {
		fprintf(stderr, "cannot make the test's pools\n");
		return 2;
	}
	rc = unit_run("offload", tests);
	dp_harness_fini();
	return rc;
}
