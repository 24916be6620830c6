/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of perf/bench_pkt.c: podwire-bench's frames and stamps. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "bench_pkt.h"
#include "unit.h"

static const struct bench_pkt_hdr hdr = {
    .dst_mac = {0x02, 0, 0, 0, 0x0b, 0x01},
    .src_mac = {0x02, 0, 0, 0, 0x0a, 0x01},
    .src_ip = 0x0a000101, /* 10.0.1.1 */
    .dst_ip = 0x0a000201,
    .src_port = 1025,
    .dst_port = BENCH_UDP_DST_PORT,
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void test_build_headers(void)
{
	static const uint16_t lens[] = {64, 65, 128, 594, 1518, 9000};
	static uint8_t buf[BENCH_PKT_MAX_LEN];

	ASSERT_INT_EQ(BENCH_HDR_LEN + BENCH_STAMP_LEN, 58);
	for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		uint16_t len = lens[i];
		const uint8_t *ip = buf + 14, *udp = buf + 34;

		memset(buf, 0xee, sizeof(buf));
		ASSERT_INT_EQ(bench_pkt_build(buf, len, &hdr), 0);
		CU_ASSERT(memcmp(buf, hdr.dst_mac, 6) == 0);
		CU_ASSERT(memcmp(buf + 6, hdr.src_mac, 6) == 0);
		ASSERT_INT_EQ(be16(buf + 12), 0x0800);
		ASSERT_INT_EQ(ip[0], 0x45);
		/* IPv4 total length: the frame without Ethernet header and FCS */
		ASSERT_INT_EQ(be16(ip + 2), len - 4 - 14);
		ASSERT_INT_EQ(ip[8], 64);
		ASSERT_INT_EQ(ip[9], 17);
		ASSERT_INT_EQ(be16(ip + 12), 0x0a00);
		ASSERT_INT_EQ(be16(ip + 14), 0x0101);
		ASSERT_INT_EQ(be16(ip + 16), 0x0a00);
		ASSERT_INT_EQ(be16(ip + 18), 0x0201);
		/* A correct checksum makes the header sum to 0xffff: ~sum == 0. */
		ASSERT_INT_EQ(bench_ipv4_cksum(ip, 20), 0);
		ASSERT_INT_EQ(be16(udp), 1025);
		ASSERT_INT_EQ(be16(udp + 2), BENCH_UDP_DST_PORT);
		ASSERT_INT_EQ(be16(udp + 4), len - 4 - 34); /* UDP length */
		ASSERT_INT_EQ(be16(udp + 6), 0);
		/* Nothing past the headers is touched, nor past the frame. */
		ASSERT_INT_EQ(buf[BENCH_HDR_LEN], 0xee);
		ASSERT_INT_EQ(buf[len - 4], 0xee);
	}
}

/* The template path must produce exactly what bench_pkt_build does, for
 * every size, destination and port, including checksums whose sum carries
 * (high addresses, large lengths). */
static void test_fill_matches_build(void)
{
	static const uint16_t lens[] = {64, 65, 594, 1518, 9000};
	static const uint32_t dsts[] = {0x0a000201, 0x0aff0001, 0xffffffff, 0x00000000};
	static uint8_t want[BENCH_PKT_MAX_LEN], got[BENCH_PKT_MAX_LEN];
	struct bench_pkt_tmpl t;
	struct bench_pkt_hdr h = hdr;

	h.src_ip = 0x0afffe01;
	bench_pkt_tmpl_init(&t, &h);
	for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (unsigned int d = 0; d < sizeof(dsts) / sizeof(dsts[0]); d++)
			for (unsigned int port = 1024; port < 65536; port += 16411) {
				h.dst_ip = dsts[d];
				h.src_port = (uint16_t)port;
				h.dst_mac[5] = (uint8_t)d;
				h.src_mac[4] = (uint8_t)i;
				memset(want, 0xee, sizeof(want));
				memset(got, 0xee, sizeof(got));
				ASSERT_INT_EQ(bench_pkt_build(want, lens[i], &h), 0);
				bench_pkt_fill(got, lens[i], &t, h.dst_mac, h.src_mac, h.dst_ip,
					       h.src_port);
				CU_ASSERT(memcmp(want, got, lens[i]) == 0);
				ASSERT_INT_EQ(bench_ipv4_cksum(got + 14, 20), 0);
			}
}

static void test_cksum_known(void)
{
	/* The worked example of RFC 1071 style references: header with
	 * checksum 0xb861 (wikipedia "IPv4 header checksum"). */
	static const uint8_t ip[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
				       0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};

	ASSERT_INT_EQ(bench_ipv4_cksum(ip, 20), 0xb861);
}

static void test_build_bad_length(void)
{
	static uint8_t buf[BENCH_PKT_MAX_LEN + 1];

	ASSERT_INT_EQ(bench_pkt_build(buf, 63, &hdr), -EINVAL);
	ASSERT_INT_EQ(bench_pkt_build(buf, 60, &hdr), -EINVAL);
	ASSERT_INT_EQ(bench_pkt_build(buf, 0, &hdr), -EINVAL);
	ASSERT_INT_EQ(bench_pkt_build(buf, BENCH_PKT_MAX_LEN + 1, &hdr), -EINVAL);
	/* The smallest frame holds the headers and the whole stamp. */
	CU_ASSERT(BENCH_HDR_LEN + BENCH_STAMP_LEN <= BENCH_PKT_MIN_LEN - BENCH_FCS_LEN);
}

static void test_stamp_round_trip(void)
{
	uint8_t buf[BENCH_PKT_MIN_LEN - BENCH_FCS_LEN];
	struct bench_stamp in = {.seq = 0xfffffffe, .tsc = 0x0123456789abcdefull};
	struct bench_stamp out;
	struct bench_pkt_hdr h = hdr;

	/* The pods travel in the addresses. */
	h.src_ip = bench_pod_ip(3);
	h.dst_ip = bench_pod_ip(1027);
	memset(&out, 0, sizeof(out));
	ASSERT_INT_EQ(bench_pkt_build(buf, BENCH_PKT_MIN_LEN, &h), 0);
	bench_stamp_write(buf, &in);
	ASSERT_INT_EQ(bench_stamp_read(buf, sizeof(buf), &out), 0);
	ASSERT_INT_EQ(out.src_pod, 3);
	ASSERT_INT_EQ(out.dst_pod, 1027);
	ASSERT_INT_EQ(out.seq, 0xfffffffe);
	CU_ASSERT(out.tsc == 0x0123456789abcdefull);
	/* Headers are untouched by the stamp. */
	ASSERT_INT_EQ(bench_ipv4_cksum(buf + 14, 20), 0);
}

static void test_stamp_rejects(void)
{
	uint8_t buf[BENCH_PKT_MIN_LEN - BENCH_FCS_LEN], bad[BENCH_PKT_MIN_LEN - BENCH_FCS_LEN];
	struct bench_stamp in = {.seq = 7, .tsc = 99};
	struct bench_stamp out;

	ASSERT_INT_EQ(bench_pkt_build(buf, BENCH_PKT_MIN_LEN, &hdr), 0);
	bench_stamp_write(buf, &in);

	/* Too short to hold a stamp, by one byte and by a lot. */
	ASSERT_INT_EQ(bench_stamp_read(buf, BENCH_HDR_LEN + BENCH_STAMP_LEN - 1, &out), -EMSGSIZE);
	ASSERT_INT_EQ(bench_stamp_read(buf, 14, &out), -EMSGSIZE);
	ASSERT_INT_EQ(bench_stamp_read(buf, BENCH_HDR_LEN + BENCH_STAMP_LEN, &out), 0);

	/* Each magic byte corrupted. */
	for (unsigned int i = 0; i < 4; i++) {
		memcpy(bad, buf, sizeof(buf));
		bad[BENCH_HDR_LEN + i] ^= 0x40;
		ASSERT_INT_EQ(bench_stamp_read(bad, sizeof(bad), &out), -EBADMSG);
	}
	/* Not IPv4, not UDP, not our port. */
	memcpy(bad, buf, sizeof(buf));
	bad[12] = 0x86;
	bad[13] = 0xdd;
	ASSERT_INT_EQ(bench_stamp_read(bad, sizeof(bad), &out), -EBADMSG);
	memcpy(bad, buf, sizeof(buf));
	bad[14 + 9] = 6;
	ASSERT_INT_EQ(bench_stamp_read(bad, sizeof(bad), &out), -EBADMSG);
	memcpy(bad, buf, sizeof(buf));
	bad[37] ^= 1;
	ASSERT_INT_EQ(bench_stamp_read(bad, sizeof(bad), &out), -EBADMSG);
	/* A zeroed frame (what a testpmd pod might send) is not ours. */
	memset(bad, 0, sizeof(bad));
	ASSERT_INT_EQ(bench_stamp_read(bad, sizeof(bad), &out), -EBADMSG);
}

static void test_size_parse(void)
{
	uint16_t size = 1;

	ASSERT_INT_EQ(bench_size_parse("64", &size), 0);
	ASSERT_INT_EQ(size, 64);
	ASSERT_INT_EQ(bench_size_parse("9000", &size), 0);
	ASSERT_INT_EQ(size, 9000);
	ASSERT_INT_EQ(bench_size_parse("imix", &size), 0);
	ASSERT_INT_EQ(size, 0);
	size = 77;
	ASSERT_INT_EQ(bench_size_parse("63", &size), -EINVAL);
	ASSERT_INT_EQ(bench_size_parse("9001", &size), -EINVAL);
	ASSERT_INT_EQ(bench_size_parse("", &size), -EINVAL);
	ASSERT_INT_EQ(bench_size_parse("64b", &size), -EINVAL);
	ASSERT_INT_EQ(bench_size_parse("IMIX2", &size), -EINVAL);
	ASSERT_INT_EQ(bench_size_parse("99999999999999999999", &size), -EINVAL);
	ASSERT_INT_EQ(size, 77);
}

static void test_imix_mix(void)
{
	unsigned int n64 = 0, n594 = 0, n1518 = 0, other = 0;
	uint64_t bytes = 0;

	/* Ten periods: 7:4:1 exactly, and any 12 consecutive frames too. */
	for (uint64_t i = 5; i < 5 + 10 * BENCH_IMIX_PERIOD; i++) {
		uint16_t l = bench_imix_len(i);

		bytes += l;
		if (l == 64)
			n64++;
		else if (l == 594)
			n594++;
		else if (l == 1518)
			n1518++;
		else
			other++;
	}
	ASSERT_INT_EQ(n64, 70);
	ASSERT_INT_EQ(n594, 40);
	ASSERT_INT_EQ(n1518, 10);
	ASSERT_INT_EQ(other, 0);
	/* (7 x 64 + 4 x 594 + 1518) / 12 */
	CU_ASSERT_DOUBLE_EQUAL(bench_size_mean(0), (7 * 64 + 4 * 594 + 1518) / 12.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(bench_size_mean(0), (double)bytes / 120, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(bench_size_mean(1518), 1518, 1e-9);
	/* Every IMIX length is buildable. */
	for (unsigned int i = 0; i < BENCH_IMIX_PERIOD; i++) {
		static uint8_t buf[1514];

		ASSERT_INT_EQ(bench_pkt_build(buf, bench_imix_len(i), &hdr), 0);
	}
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"build: headers, lengths, checksum", test_build_headers},
	    {"fill from a template = build", test_fill_matches_build},
	    {"checksum of a known header", test_cksum_known},
	    {"build: lengths out of range", test_build_bad_length},
	    {"stamp: round trip", test_stamp_round_trip},
	    {"stamp: short, bad magic, foreign frames", test_stamp_rejects},
	    {"size option", test_size_parse},
	    {"imix mix", test_imix_mix},
	    {NULL, NULL},
	};

	return unit_run("bench_pkt", tests);
}
