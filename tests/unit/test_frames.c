/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of frames without mbufs (memif's, datapath/frame.h) through
 * the chain of stages: read as forwarded, made into mbufs, bridged and
 * cross-connected into ports that take frames (one copy each) and ports
 * that take mbufs. EAL runs without hugepages.
 */
#include "dp_sinks.h"

/* What dp_frame_read gives: the frame as it was, or without its tag,
 * whatever the segments, with the header from the private copy. */
static void test_frame_read(void)
{
	static const uint32_t cuts[][6] = {{0}, {7, 9, 30, 18, 0}, {1, 1, 1, 1, 1, 0}, {16, 0}};
	uint8_t buf[300], out[300], want[300];
	struct dp_frame f;

	fill_frame(buf, sizeof(buf), B, A, 10);
	/* Each cut without a private header, then with one. */
	for (size_t c = 0; c < 2 * RTE_DIM(cuts); c++) {
		make_frame(&f, buf, sizeof(buf), cuts[c / 2]);
		if (c % 2 == 1) {
			dp_frame_header(&f);
			ASSERT_INT_EQ(f.hdr_len, DP_FRAME_HDR_MAX);
			CU_ASSERT(memcmp(f.hdr, buf, DP_FRAME_HDR_MAX) == 0);
		}
		dp_frame_read(&f, 0, 0, out, sizeof(buf));
		CU_ASSERT(memcmp(out, buf, sizeof(buf)) == 0);
		/* Without the tag: bytes 0-11, then 16 on. */
		memcpy(want, buf, 12);
		memcpy(want + 12, buf + 16, sizeof(buf) - 16);
		memset(out, 0, sizeof(out));
		dp_frame_read(&f, 1, 0, out, sizeof(buf) - 4);
		CU_ASSERT(memcmp(out, want, sizeof(buf) - 4) == 0);
		/* Piecewise reads agree with one read. */
		for (uint32_t off = 0; off < sizeof(buf) - 4; off += 13)
			dp_frame_read(&f, 1, off, out + off,
				      RTE_MIN(13u, (uint32_t)sizeof(buf) - 4 - off));
		CU_ASSERT(memcmp(out, want, sizeof(buf) - 4) == 0);
	}
	/* The header forwarded is the private copy, even if the pod rewrites
	 * its buffer after the decision. */
	make_frame(&f, buf, sizeof(buf), cuts[1]);
	dp_frame_header(&f);
	buf[0] ^= 0xff;
	dp_frame_read(&f, 0, 0, out, 20);
	ASSERT_INT_EQ(out[0], (uint8_t)(buf[0] ^ 0xff));
}

static void test_frame_to_mbuf(void)
{
	static uint8_t buf[9018], out[9018];
	static const uint32_t cuts[] = {2048, 2048, 2048, 2048, 0};
	struct rte_mbuf *m;
	struct dp_frame f;

	fill_frame(buf, sizeof(buf), B, A, 0);
	make_frame(&f, buf, sizeof(buf), cuts);
	ASSERT_INT_EQ(f.n_seg, 5);
	m = dp_frame_to_mbuf(&f, 0, pw_mbuf_pool);
	CU_ASSERT_FATAL(m != NULL);
	ASSERT_INT_EQ(m->pkt_len, sizeof(buf));
	CU_ASSERT(m->nb_segs > 1);
	CU_ASSERT(rte_pktmbuf_read(m, 0, sizeof(buf), out) != NULL);
	CU_ASSERT(memcmp(rte_pktmbuf_read(m, 0, sizeof(buf), out), buf, sizeof(buf)) == 0);
	rte_pktmbuf_free(m);
}

/* Frames from a memif-like port: copied once into ports that take frames,
 * made into one mbuf for the others; VLAN tags come off in the copy. */
static void test_frames_bridge(void)
{
	struct network *n = dp_net("fr", NET_BRIDGE, 10);
	struct port *in = dp_port("fin", n, "fsink", A), *fb = dp_port("fb", n, "fsink", B),
		    *mb = dp_port("mb", n, "sink", C);
	static const uint32_t cuts[] = {20, 0};
	uint8_t buf[4][128];
	struct dp_frame f[4];

	/* Unknown unicast, tagged with the network's VLAN: flooded, once to
	 * each, tag removed in the copy. */
	fill_frame(buf[0], 100, B, A, 10);
	make_frame(&f[0], buf[0], 100, cuts);
	frames_in(in, f, 1);
	ASSERT_INT_EQ(fsink_of(fb)->n, 1);
	ASSERT_INT_EQ(fsink_of(fb)->len[0], 96);
	CU_ASSERT(memcmp(fsink_of(fb)->data[0], buf[0], 12) == 0);
	CU_ASSERT(memcmp(fsink_of(fb)->data[0] + 12, buf[0] + 16, 84) == 0);
	ASSERT_INT_EQ(sink_of(mb)->n, 1);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(sink_of(mb)->got[0]), 96);
	ASSERT_INT_EQ(vlan_of(sink_of(mb)->got[0]), 0);
	/* B answers from a frame port; then A to B is unicast to fb only. */
	fill_frame(buf[1], 64, A, B, 0);
	make_frame(&f[0], buf[1], 64, cuts);
	frames_in(fb, f, 1);
	ASSERT_INT_EQ(fsink_of(in)->n, 1);
	fill_frame(buf[2], 64, B, A, 0);
	fill_frame(buf[3], 64, B, A, 0);
	make_frame(&f[0], buf[2], 64, cuts);
	make_frame(&f[1], buf[3], 64, cuts);
	frames_in(in, f, 2);
	/* The bridge decided from private copies, and forwarded them. */
	ASSERT_INT_EQ(f[0].hdr_len, DP_FRAME_HDR_MAX);
	CU_ASSERT(memcmp(f[1].hdr, buf[3], DP_FRAME_HDR_MAX) == 0);
	ASSERT_INT_EQ(fsink_of(fb)->n, 3);
	ASSERT_INT_EQ(sink_of(mb)->n, 1);
	ASSERT_INT_EQ(dp_counters(fb).tx_packets, 3);
	ASSERT_INT_EQ(dp_counters(in).rx_packets, 3);
	/* A full destination ring drops (tx_full), it does not wait. */
	fsink_of(fb)->room = 3;
	make_frame(&f[0], buf[2], 64, cuts);
	frames_in(in, f, 1);
	ASSERT_INT_EQ(dp_counters(fb).drops[DROP_TX_FULL], 1);
	/* Another VLAN's tag: dropped at ingress. */
	fill_frame(buf[0], 100, B, A, 11);
	make_frame(&f[0], buf[0], 100, cuts);
	frames_in(in, f, 1);
	ASSERT_INT_EQ(dp_counters(in).drops[DROP_VLAN], 1);
	sink_clear(mb);
	destroy(in), destroy(fb), destroy(mb);
	destroy_net(n);
}

/* A flood of a frame without an mbuf, while a destination's link flips
 * in the middle of it (a pod reconnecting after a restart): the mbuf
 * shared by the mbuf destinations has exactly one reference per port it
 * was handed to. Before the fix, a port that came up mid-flood got the
 * mbuf without a reference (a double free, then one mbuf handed out
 * twice: the crash of test_crash_recovery), and one that went down
 * leaked it. */
static void test_frames_flood_link_flip(void)
{
	struct network *n = dp_net("ffl", NET_BRIDGE, 0);
	struct port *in = dp_port("ffl-in", n, "fsink", A), *mb = dp_port("ffl-mb", n, "sink", B),
		    *trig = dp_port("ffl-trig", n, "fsink", C),
		    *mb2 = dp_port("ffl-mb2", n, "sink", "02:00:00:00:00:0d");
	static const uint32_t cuts[] = {0};
	uint8_t buf[64];
	struct dp_frame f;

	fill_frame(buf, sizeof(buf), "ff:ff:ff:ff:ff:ff", A, 0);
	/* mb comes up while the flood runs. */
	mb->dp.link_up = false;
	fsink_flip = mb;
	fsink_flip_to = true;
	make_frame(&f, buf, sizeof(buf), cuts);
	frames_in(in, &f, 1);
	CU_ASSERT(fsink_flip == NULL);
	ASSERT_INT_EQ(fsink_of(trig)->n, 1);
	ASSERT_INT_EQ(sink_of(mb2)->n, 1);
	ASSERT_INT_EQ(sink_of(mb)->n, 0);
	ASSERT_INT_EQ(dp_counters(mb).drops[DROP_LINK_DOWN], 1);
	ASSERT_INT_EQ(rte_mbuf_refcnt_read(sink_of(mb2)->got[0]), 1);
	sink_clear(mb2);
	/* mb goes down while the flood runs: its reference is freed, not
	 * leaked on mb2's copy. */
	fsink_flip = mb;
	fsink_flip_to = false;
	make_frame(&f, buf, sizeof(buf), cuts);
	frames_in(in, &f, 1);
	ASSERT_INT_EQ(sink_of(mb2)->n, 1);
	ASSERT_INT_EQ(sink_of(mb)->n, 0);
	ASSERT_INT_EQ(dp_counters(mb).drops[DROP_LINK_DOWN], 2);
	ASSERT_INT_EQ(rte_mbuf_refcnt_read(sink_of(mb2)->got[0]), 1);
	sink_clear(mb2);
	destroy(in), destroy(mb), destroy(trig), destroy(mb2);
	destroy_net(n);
}

static void test_frames_xconnect(void)
{
	struct network *n = dp_net("fxc", NET_XCONNECT, 0);
	struct port *a = dp_port("fxa", n, "fsink", A), *b = dp_port("fxb", n, "fsink", B);
	static uint8_t big[2000];
	static const uint32_t cuts[] = {0};
	uint8_t buf[64];
	struct dp_frame f[2];

	fill_frame(buf, 64, X, A, 7);
	make_frame(&f[0], buf, 64, cuts);
	fill_frame(big, sizeof(big), X, A, 0);
	make_frame(&f[1], big, sizeof(big), cuts);
	frames_in(a, f, 2);
	/* Tags pass; a frame over the MTU is dropped on the ingress side. */
	ASSERT_INT_EQ(fsink_of(b)->n, 1);
	ASSERT_INT_EQ(fsink_of(b)->len[0], 64);
	CU_ASSERT(memcmp(fsink_of(b)->data[0], buf, 64) == 0);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_MTU], 1);
	/* Nothing was decided from the header: no private copy was taken,
	 * the frame went out as its buffer holds it. */
	ASSERT_INT_EQ(f[0].hdr_len, 0);
	/* A runt (under an Ethernet header) is dropped on the ingress side,
	 * even in a burst that would otherwise go out as it is. */
	make_frame(&f[0], buf, 13, cuts);
	make_frame(&f[1], buf, 64, cuts);
	frames_in(a, f, 2);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_RUNT], 1);
	ASSERT_INT_EQ(fsink_of(b)->n, 2);
	ASSERT_INT_EQ(fsink_of(b)->len[1], 64);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* A burst that fits both ends goes out as it is (podwired's fast path):
 * counted once on each side, what a full ring refuses dropped and counted
 * as such; a peer whose link is down drops the whole burst. */
static void test_frames_xconnect_burst(void)
{
	struct network *n = dp_net("fxc2", NET_XCONNECT, 0);
	struct port *a = dp_port("fxc2a", n, "fsink", A), *b = dp_port("fxc2b", n, "fsink", B);
	static const uint32_t cuts[] = {0};
	uint8_t buf[3][100];
	struct dp_frame f[3];

	for (int i = 0; i < 3; i++) {
		fill_frame(buf[i], 60 + 20 * i, X, A, (uint8_t)i);
		make_frame(&f[i], buf[i], 60 + 20 * i, cuts);
	}
	fsink_of(b)->room = 2;
	frames_in(a, f, 3);
	ASSERT_INT_EQ(fsink_of(b)->n, 2);
	for (int i = 0; i < 2; i++) {
		ASSERT_INT_EQ(fsink_of(b)->len[i], 60 + 20 * i);
		CU_ASSERT(memcmp(fsink_of(b)->data[i], buf[i], 60 + 20 * i) == 0);
	}
	ASSERT_INT_EQ(dp_counters(a).rx_packets, 3);
	ASSERT_INT_EQ(dp_counters(a).rx_bytes, 60 + 80 + 100);
	ASSERT_INT_EQ(dp_counters(b).tx_packets, 2);
	ASSERT_INT_EQ(dp_counters(b).tx_bytes, 60 + 80);
	ASSERT_INT_EQ(dp_counters(b).drops[DROP_TX_FULL], 1);
	b->dp.link_up = false;
	frames_in(a, f, 3);
	ASSERT_INT_EQ(fsink_of(b)->n, 2);
	ASSERT_INT_EQ(dp_counters(b).drops[DROP_LINK_DOWN], 3);
	ASSERT_INT_EQ(dp_counters(b).tx_packets, 2);
	destroy(a), destroy(b);
	destroy_net(n);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"frames: read as forwarded, any segments", test_frame_read},
	    {"frames: a jumbo frame into an mbuf chain", test_frame_to_mbuf},
	    {"frames: bridge, one copy, VLAN off in the copy", test_frames_bridge},
	    {"frames: a flood while a destination's link flips", test_frames_flood_link_flip},
	    {"frames: cross-connect", test_frames_xconnect},
	    {"frames: cross-connect, a burst that fits", test_frames_xconnect_burst},
	    {NULL, NULL},
	};
	int rc;

	dp_harness_init(1);
	rc = unit_run("frames", tests);
	dp_harness_fini();
	return rc;
}
