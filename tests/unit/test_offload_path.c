/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Offload requests through the chain (datapath/input.c, tx.c): a TCP
 * super-frame reaches a port that takes it whole, and reaches a port
 * that does not (or whose MTU is smaller than its segments) as frames
 * no larger than that port's MTU with correct checksums; a checksum
 * request is completed for a port that cannot take it; a request that
 * does not describe its frame is dropped at the ingress (bad_offload);
 * a frame larger than the MTU without a request is still mtu_exceeded;
 * a stripped VLAN tag moves the headers. EAL runs without hugepages.
 */
#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_tcp.h>

#include "dp_sinks.h"
#include "offload/offload.h"
#include "ref_csum.h"

#define MSS 1448

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* m's bytes, in one buffer. */
static uint32_t flat(const struct rte_mbuf *m, uint8_t *out, uint32_t max)
{
	uint32_t n = 0;

	for (; m != NULL; m = m->next) {
		CU_ASSERT_FATAL(n + m->data_len <= max);
		memcpy(out + n, rte_pktmbuf_mtod(m, const uint8_t *), m->data_len);
		n += m->data_len;
	}
	return n;
}

/* Checks the IPv4 header and TCP checksums of the frame in f (l2 bytes of
 * Ethernet header); returns its TCP payload length. */
static uint32_t check_tcp4(const uint8_t *f, uint32_t len, uint32_t l2)
{
	const uint8_t *ip = f + l2, *tcp;
	uint32_t ihl = (ip[0] & 15) * 4u, tot = (uint32_t)ip[2] << 8 | ip[3], tl, sum;

	CU_ASSERT(fold(ref_sum(ip, ihl, 0)) == 0xffff);
	CU_ASSERT(tot == len - l2);
	tcp = ip + ihl;
	tl = tot - ihl;
	sum = ref_sum(ip + 12, 8, 0) + IPPROTO_TCP + tl;
	CU_ASSERT(fold(ref_sum(tcp, tl, sum)) == 0xffff);
	return tl - (tcp[12] >> 4) * 4u;
}

/* A TCP/IPv4 frame of payload bytes (a pattern), in a chain of mbufs; a
 * super-frame request of MSS when tso, else a checksum request. The TCP
 * checksum field holds the pseudo-header sum, as a kernel leaves it. */
static struct rte_mbuf *tcp4(const char *dst, const char *src, uint16_t vlan, uint32_t payload,
			     bool tso)
{
	static uint8_t buf[70000];
	uint32_t l2 = vlan != 0 ? 18 : 14, len = l2 + 20 + 20 + payload, off = 0;
	struct rte_mbuf *head = NULL, *last = NULL;
	uint8_t *ip = buf + l2, *tcp = ip + 20;
	uint32_t ps;

	memset(buf, 0, len);
	rte_ether_unformat_addr(dst, (struct rte_ether_addr *)buf);
	rte_ether_unformat_addr(src, (struct rte_ether_addr *)(buf + 6));
	if (vlan != 0) {
		buf[12] = 0x81, buf[14] = (uint8_t)(vlan >> 8), buf[15] = (uint8_t)vlan;
		buf[16] = 0x08;
	} else {
		buf[12] = 0x08;
	}
	ip[0] = 0x45, ip[2] = (uint8_t)((len - l2) >> 8), ip[3] = (uint8_t)(len - l2);
	ip[4] = 0x12, ip[5] = 0x34, ip[8] = 64, ip[9] = IPPROTO_TCP;
	ip[12] = 10, ip[15] = 1, ip[16] = 10, ip[19] = 2;
	{
		uint16_t c = (uint16_t)~fold(ref_sum(ip, 20, 0));

		ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
	}
	tcp[0] = 0x30, tcp[1] = 0x39, tcp[2] = 0x14, tcp[3] = 0x51; /* 12345 -> 5201 */
	tcp[4] = 0x10, tcp[7] = 1;				    /* seq */
	tcp[12] = 5 << 4, tcp[13] = 0x18;			    /* ACK PSH */
	tcp[14] = 0xff;
	for (uint32_t i = 0; i < payload; i++)
		tcp[20 + i] = (uint8_t)(i * 7 + i / 251);
	ps = fold(ref_sum(ip + 12, 8, 0) + IPPROTO_TCP + 20 + payload);
	tcp[16] = (uint8_t)(ps >> 8), tcp[17] = (uint8_t)ps;
	while (off < len) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pw_mbuf_pool);
		uint32_t k = RTE_MIN(len - off, (uint32_t)rte_pktmbuf_tailroom(m));

		CU_ASSERT_FATAL(m != NULL);
		memcpy(rte_pktmbuf_append(m, (uint16_t)k), buf + off, k);
		off += k;
		if (head == NULL) {
			head = m;
		} else {
			last->next = m;
			head->nb_segs++;
			head->pkt_len += k;
		}
		last = m;
	}
	if (head == NULL)
		return NULL;
	head->l2_len = l2, head->l3_len = 20, head->l4_len = 20;
	head->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM;
	if (tso) {
		head->ol_flags |= RTE_MBUF_F_TX_TCP_SEG;
		head->tso_segsz = MSS;
	}
	return head;
}

/* What sink s got: every frame no larger than max, checksums right, the
 * payloads adding up to want bytes. */
static void check_segments(struct sink *s, uint32_t max, uint32_t l2, uint32_t want)
{
	static uint8_t f[70000];
	uint32_t got = 0;

	for (uint16_t i = 0; i < s->n; i++) {
		uint32_t len = flat(s->got[i], f, sizeof(f));

		CU_ASSERT(len <= max);
		CU_ASSERT((s->got[i]->ol_flags & OFFLOAD_MBUF_FLAGS) == 0);
		got += check_tcp4(f, len, l2);
	}
	ASSERT_INT_EQ(got, want);
}

/* A super-frame to a port that takes it and to one that does not. */
static void test_offload_tso_bridge(void)
{
	struct network *n = dp_net("olb", NET_BRIDGE, 0);
	struct port *a = dp_port("ola", n, "sink", A), *b = dp_port("olb1", n, "sink", B);
	struct port *c = dp_port("olc", n, "sink", C);

	c->dp.tx_ol = OFFLOAD_ALL;
	send1(b, dp_frame(BCAST, B, 0, 60, 0)); /* b and c are learned */
	send1(c, dp_frame(BCAST, C, 0, 60, 0));
	sink_clear(a), sink_clear(b), sink_clear(c);
	/* 20000 bytes to b: cut into 14 frames of at most 1514. */
	send1(a, tcp4(B, A, 0, 20000, true));
	ASSERT_INT_EQ(sink_of(b)->n, (20000 + MSS - 1) / MSS);
	check_segments(sink_of(b), 1514, 14, 20000);
	ASSERT_INT_EQ(dp_counters(a).rx_packets, 1);
	/* c's broadcast, then the segments. */
	ASSERT_INT_EQ(dp_counters(b).tx_packets, 1 + (20000 + MSS - 1) / MSS);
	/* To c whole, its request kept. */
	send1(a, tcp4(C, A, 0, 20000, true));
	ASSERT_INT_EQ(sink_of(c)->n, 1);
	ASSERT_INT_EQ(sink_of(c)->got[0]->pkt_len, 14 + 40 + 20000);
	CU_ASSERT((sink_of(c)->got[0]->ol_flags & RTE_MBUF_F_TX_TCP_SEG) != 0);
	/* c's MTU under the segments' size: c gets frames of its MTU. */
	sink_clear(c);
	c->dp.max_frame = 1014;
	send1(a, tcp4(C, A, 0, 20000, true));
	CU_ASSERT(sink_of(c)->n >= 20000 / (1014 - 54));
	for (uint16_t i = 0; i < sink_of(c)->n; i++)
		CU_ASSERT(offload_wire_len(sink_of(c)->got[i]) <= 1014);
	/* A flood: each destination as it takes it; the shared frame is
	 * not changed under the one that takes it whole. */
	sink_clear(b), sink_clear(c);
	c->dp.max_frame = 9014;
	send1(a, tcp4(BCAST, A, 0, 9000, true));
	check_segments(sink_of(b), 1514, 14, 9000);
	ASSERT_INT_EQ(sink_of(c)->n, 1);
	ASSERT_INT_EQ(sink_of(c)->got[0]->pkt_len, 14 + 40 + 9000);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_MTU] + dp_counters(b).drops[DROP_MTU] +
			  dp_counters(c).drops[DROP_MTU],
		      0);
	destroy(a), destroy(b), destroy(c);
	destroy_net(n);
}

/* Checksum requests, bad requests, plain frames over the MTU. */
static void test_offload_csum_and_bad(void)
{
	struct network *n = dp_net("olx", NET_XCONNECT, 0);
	struct port *a = dp_port("olxa", n, "sink", A), *b = dp_port("olxb", n, "sink", B);
	struct rte_mbuf *m;

	/* A checksum request to a port without checksum offload. */
	send1(a, tcp4(B, A, 0, 1000, false));
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	check_segments(sink_of(b), 1514, 14, 1000);
	/* The same to a port with it: the request goes along. */
	sink_clear(b);
	b->dp.tx_ol = OFFLOAD_CSUM;
	send1(a, tcp4(B, A, 0, 1000, false));
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	CU_ASSERT((sink_of(b)->got[0]->ol_flags & RTE_MBUF_F_TX_TCP_CKSUM) != 0);
	/* A segment size of 0, and a TCP header length of 0: refused. */
	m = tcp4(B, A, 0, 4000, true);
	m->tso_segsz = 0;
	send1(a, m);
	m = tcp4(B, A, 0, 4000, true);
	m->l4_len = 0;
	send1(a, m);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_BAD_OFFLOAD], 2);
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	/* Larger than the MTU and asking for no segments: mtu_exceeded. */
	send1(a, tcp4(B, A, 0, 4000, false));
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_MTU], 1);
	/* Segments larger than the ingress MTU: mtu_exceeded too. */
	m = tcp4(B, A, 0, 4000, true);
	m->tso_segsz = 3000;
	send1(a, m);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_MTU], 2);
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* A tagged super-frame on a bridge of that VLAN: the tag comes off, and
 * the segments' headers are where the request says. */
static void test_offload_vlan_strip(void)
{
	struct network *n = dp_net("olv", NET_BRIDGE, 42);
	struct port *a = dp_port("olva", n, "sink", A), *b = dp_port("olvb", n, "sink", B);

	send1(b, dp_frame(BCAST, B, 0, 60, 0));
	sink_clear(a), sink_clear(b);
	send1(a, tcp4(B, A, 42, 5000, true));
	ASSERT_INT_EQ(sink_of(b)->n, (5000 + MSS - 1) / MSS);
	check_segments(sink_of(b), 1514, 14, 5000);
	destroy(a), destroy(b);
	destroy_net(n);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"offload: super-frames on a bridge, whole or cut per egress", test_offload_tso_bridge},
	    {"offload: checksum requests, bad requests, the MTU", test_offload_csum_and_bad},
	    {"offload: a VLAN tag stripped from a super-frame", test_offload_vlan_strip},
	    {NULL, NULL},
	};
	int rc;

	dp_harness_init(1);
	rc = unit_run("offload_path", tests);
	dp_harness_fini();
	return rc;
}
