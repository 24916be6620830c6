/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the chain of stages (datapath/burst.h): a module's stage
 * registered at a point runs there for every burst, of mbufs or of frames
 * without mbufs, on a bridge or a cross-connect; its drops are counted
 * once, under their reason, and reach nobody; stages run in registration
 * order and not at all once every frame is dropped. EAL runs without
 * hugepages.
 */
#include "dp_sinks.h"

/* What the test stages saw. */
static unsigned int calls[2], order[16], n_order;
static uint16_t seen_dst[PW_BURST], seen_n;
static bool seen_frames;

/* Drops every frame whose source is X (a policy as a module would write
 * it: reads the header, drops through dp_burst_drop). */
static void drop_x(struct worker *w, const struct view *v, struct dp_burst *b)
{
	struct port_counters *c = &w->ctr[b->in->idx];
	uint8_t x[6] = {2, 0, 0, 0, 0, 0x99};

	(void)v;
	calls[0]++;
	order[n_order++ % 16] = 0;
	seen_frames = b->frames;
	dp_burst_headers(b);
	for (uint16_t i = 0; i < b->n; i++)
		if (!dp_is_drop(b->dst[i]) && memcmp(b->hdr[i] + 6, x, 6) == 0)
			dp_burst_drop(b, c, i, DROP_SPOOFED_SRC);
}

/* Records the decision. */
static void record_dst(struct worker *w, const struct view *v, struct dp_burst *b)
{
	(void)w, (void)v;
	calls[1]++;
	order[n_order++ % 16] = 1;
	seen_n = b->n;
	memcpy(seen_dst, b->dst, b->n * sizeof(b->dst[0]));
}

static const struct dp_stage drop_stage = {.name = "drop_x", .run = drop_x};
static const struct dp_stage record_stage = {.name = "record", .run = record_dst};

static void reset(void)
{
	memset(calls, 0, sizeof(calls));
	n_order = 0;
	seen_n = 0;
}

/* An ingress stage drops on a bridge: counted on the ingress port, sent
 * nowhere; the forward stage sees the decision: the learned port, a
 * flood, the drop. */
static void test_stage_bridge_mbufs(void)
{
	struct network *n = dp_net("stb", NET_BRIDGE, 0);
	struct port *a = dp_port("sta", n, "sink", A), *b = dp_port("stb1", n, "sink", B);
	struct port *c = dp_port("stc", n, "sink", C);
	struct rte_mbuf *m[3];

	reset();
	CU_ASSERT_FATAL(dp_stage_register(DP_STAGE_INGRESS, &drop_stage) == 0);
	CU_ASSERT_FATAL(dp_stage_register(DP_STAGE_FORWARD, &record_stage) == 0);
	send1(b, dp_frame(BCAST, B, 0, 60, 0)); /* b is learned */
	sink_clear(a), sink_clear(c);
	m[0] = dp_frame(B, A, 0, 60, 1);     /* to b */
	m[1] = dp_frame(B, X, 0, 60, 2);     /* dropped by the stage */
	m[2] = dp_frame(BCAST, A, 0, 60, 3); /* flooded */
	dp_harness_input(a, m, 3);
	ASSERT_INT_EQ(calls[0], 2);
	ASSERT_INT_EQ(calls[1], 2);
	CU_ASSERT(!seen_frames);
	ASSERT_INT_EQ(seen_n, 3);
	ASSERT_INT_EQ(seen_dst[0], b->dp.idx);
	CU_ASSERT(dp_is_drop(seen_dst[1]) && dp_drop_reason(seen_dst[1]) == DROP_SPOOFED_SRC);
	ASSERT_INT_EQ(seen_dst[2], DP_FLOOD);
	ASSERT_INT_EQ(sink_of(b)->n, 2);
	ASSERT_INT_EQ(sink_of(c)->n, 1);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_SPOOFED_SRC], 1);
	ASSERT_INT_EQ(dp_counters(a).rx_packets, 3);
	/* X was never learned: the stage ran before the decision. */
	ASSERT_INT_EQ(mac_table_port_count(l2_macs, a->dp.idx), 1);
	dp_stage_unregister(&drop_stage);
	dp_stage_unregister(&record_stage);
	/* Gone: X passes now. */
	reset();
	send1(a, dp_frame(B, X, 0, 60, 4));
	ASSERT_INT_EQ(calls[0] + calls[1], 0);
	ASSERT_INT_EQ(sink_of(b)->n, 3);
	destroy(a), destroy(b), destroy(c);
	destroy_net(n);
}

/* The same stage on a cross-connect, and on frames without mbufs. */
static void test_stage_xconnect_frames(void)
{
	struct network *n = dp_net("stx", NET_XCONNECT, 0);
	struct port *a = dp_port("stxa", n, "sink", A), *b = dp_port("stxb", n, "fsink", B);
	uint8_t buf[2][128];
	struct dp_frame f[2];
	const uint32_t cuts[] = {0};

	reset();
	CU_ASSERT_FATAL(dp_stage_register(DP_STAGE_INGRESS, &drop_stage) == 0);
	fill_frame(buf[0], 100, B, X, 0);
	fill_frame(buf[1], 100, B, A, 0);
	make_frame(&f[0], buf[0], 100, cuts);
	make_frame(&f[1], buf[1], 100, cuts);
	frames_in(a, f, 2);
	ASSERT_INT_EQ(calls[0], 1);
	CU_ASSERT(seen_frames);
	ASSERT_INT_EQ(fsink_of(b)->n, 1);
	ASSERT_INT_EQ(fsink_of(b)->len[0], 100);
	CU_ASSERT(memcmp(fsink_of(b)->data[0], buf[1], 100) == 0);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_SPOOFED_SRC], 1);
	ASSERT_INT_EQ(dp_counters(b).tx_packets, 1);
	dp_stage_unregister(&drop_stage);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* Stages run in registration order; none runs for a burst whose frames
 * were all dropped before it; the table has a bound. */
static void test_stage_order_and_bounds(void)
{
	struct network *n = dp_net("sto", NET_BRIDGE, 0);
	struct port *a = dp_port("stoa", n, "sink", A), *b = dp_port("stob", n, "sink", B);
	struct dp_stage extra[DP_STAGES_MAX];
	unsigned int k;

	reset();
	CU_ASSERT_FATAL(dp_stage_register(DP_STAGE_INGRESS, &drop_stage) == 0);
	CU_ASSERT_FATAL(dp_stage_register(DP_STAGE_FORWARD, &record_stage) == 0);
	send1(a, dp_frame(B, A, 0, 60, 0));
	ASSERT_INT_EQ(n_order, 2);
	ASSERT_INT_EQ(order[0], 0);
	ASSERT_INT_EQ(order[1], 1);
	/* Every frame dropped by the first: the forward stage is not called. */
	send1(a, dp_frame(B, X, 0, 60, 0));
	ASSERT_INT_EQ(calls[0], 2);
	ASSERT_INT_EQ(calls[1], 1);
	/* A runt never reaches any stage. */
	send1(a, dp_frame(B, A, 0, 60, 0));
	{
		struct rte_mbuf *r = dp_frame(B, A, 0, 60, 0);

		rte_pktmbuf_trim(r, 50);
		send1(a, r);
	}
	ASSERT_INT_EQ(calls[0], 3);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_RUNT], 1);
	dp_stage_unregister(&record_stage);
	/* Bounds: DP_STAGES_MAX per point, a stage needs a function. */
	for (k = 0; k < DP_STAGES_MAX; k++) {
		extra[k] = (struct dp_stage){.name = "extra", .run = record_dst};
		if (dp_stage_register(DP_STAGE_FORWARD, &extra[k]) != 0)
			break;
	}
	ASSERT_INT_EQ(k, DP_STAGES_MAX);
	ASSERT_INT_EQ(dp_stage_register(DP_STAGE_FORWARD, &record_stage), -ENOSPC);
	ASSERT_INT_EQ(dp_stage_register(DP_STAGE_POINTS, &record_stage), -EINVAL);
	ASSERT_INT_EQ(dp_stage_register(DP_STAGE_INGRESS, &(struct dp_stage){.name = "x"}),
		      -EINVAL);
	for (k = 0; k < DP_STAGES_MAX; k++)
		dp_stage_unregister(&extra[k]);
	dp_stage_unregister(&drop_stage);
	reset();
	send1(a, dp_frame(B, A, 0, 60, 0));
	ASSERT_INT_EQ(n_order, 0);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* A stage of a lower order runs first, whatever the registration order. */
static void test_stage_by_order(void)
{
	struct network *n = dp_net("sor", NET_BRIDGE, 0);
	struct port *a = dp_port("sora", n, "sink", A), *b = dp_port("sorb", n, "sink", B);
	const struct dp_stage late = {.name = "late", .run = drop_x, .order = 30};
	const struct dp_stage early = {.name = "early", .run = record_dst, .order = 10};

	reset();
	CU_ASSERT_FATAL(dp_stage_register(DP_STAGE_INGRESS, &late) == 0);
	CU_ASSERT_FATAL(dp_stage_register(DP_STAGE_INGRESS, &early) == 0);
	send1(a, dp_frame(B, A, 0, 60, 0));
	ASSERT_INT_EQ(n_order, 2);
	ASSERT_INT_EQ(order[0], 1); /* record_dst, order 10 */
	ASSERT_INT_EQ(order[1], 0);
	dp_stage_unregister(&late);
	dp_stage_unregister(&early);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* An egress stage: drops frames to B whose source is X. */
static unsigned int egress_calls;
static uint16_t drop_x_out(struct worker *w, const struct view *v, struct dp_port *p,
			   struct rte_mbuf **m, struct dp_frame **f, uint8_t *strip, uint16_t n)
{
	uint8_t x[6] = {2, 0, 0, 0, 0, 0x99};
	uint16_t k = 0;

	(void)v;
	egress_calls++;
	for (uint16_t i = 0; i < n; i++) {
		uint8_t src[6];

		if (m != NULL)
			memcpy(src, rte_pktmbuf_mtod(m[i], uint8_t *) + 6, 6);
		else
			dp_frame_read(f[i], strip[i], 6, src, 6);
		if (memcmp(src, x, 6) == 0) {
			dp_egress_drop(w, p, m != NULL ? &m[i] : NULL, m != NULL ? NULL : &f[i],
				       m != NULL ? NULL : &strip[i], 1, DROP_ACL_DENY);
			continue;
		}
		if (m != NULL)
			m[k] = m[i];
		else
			f[k] = f[i], strip[k] = strip[i];
		k++;
	}
	return k;
}

/* Egress stages run only for the ports with their bit, after the
 * decision (a flood's copy to another port is not touched), for mbufs and
 * frames alike; their drops count on the egress port. */
static void test_egress_stage(void)
{
	struct network *n = dp_net("seg", NET_BRIDGE, 0);
	struct port *a = dp_port("sega", n, "sink", A), *b = dp_port("segb", n, "sink", B);
	struct port *c = dp_port("segc", n, "sink", C);
	struct network *xn = dp_net("segx", NET_XCONNECT, 0);
	struct port *xa = dp_port("segxa", xn, "sink", A), *xb = dp_port("segxb", xn, "fsink", B);
	const struct dp_egress_stage st = {.name = "drop_x_out", .run = drop_x_out, .order = 20};
	uint8_t buf[2][128];
	struct dp_frame f[2];
	const uint32_t cuts[] = {0};
	int bit;

	egress_calls = 0;
	bit = dp_egress_register(&st);
	CU_ASSERT_FATAL(bit > 0 && bit < 256);
	send1(b, dp_frame(BCAST, B, 0, 60, 0)); /* b is learned */
	sink_clear(a), sink_clear(c);
	/* No bit: not called. */
	send1(a, dp_frame(BCAST, X, 0, 60, 1));
	ASSERT_INT_EQ(egress_calls, 0);
	ASSERT_INT_EQ(sink_of(b)->n, 1);
	b->dp.egress = (uint8_t)bit;
	send1(a, dp_frame(B, X, 0, 60, 2));	/* to b: dropped */
	send1(a, dp_frame(B, A, 0, 60, 3));	/* to b: passes */
	send1(a, dp_frame(BCAST, X, 0, 60, 4)); /* flood: c gets it, b does not */
	CU_ASSERT(egress_calls >= 3);
	ASSERT_INT_EQ(sink_of(b)->n, 2);
	ASSERT_INT_EQ(sink_of(c)->n, 2);
	ASSERT_INT_EQ(dp_counters(b).drops[DROP_ACL_DENY], 2);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_ACL_DENY], 0);
	b->dp.egress = 0;
	/* Frames without mbufs to a port that takes them. */
	xb->dp.egress = (uint8_t)bit;
	fill_frame(buf[0], 100, B, X, 0);
	fill_frame(buf[1], 100, B, A, 0);
	make_frame(&f[0], buf[0], 100, cuts);
	make_frame(&f[1], buf[1], 100, cuts);
	frames_in(xa, f, 2);
	ASSERT_INT_EQ(fsink_of(xb)->n, 1);
	CU_ASSERT(memcmp(fsink_of(xb)->data[0], buf[1], 100) == 0);
	ASSERT_INT_EQ(dp_counters(xb).drops[DROP_ACL_DENY], 1);
	ASSERT_INT_EQ(dp_counters(xb).tx_packets, 1);
	xb->dp.egress = 0;
	dp_egress_unregister(&st);
	ASSERT_INT_EQ(dp_egress_register(&(struct dp_egress_stage){.name = "x"}), -EINVAL);
	destroy(a), destroy(b), destroy(c), destroy(xa), destroy(xb);
	destroy_net(n), destroy_net(xn);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"stages: ingress drops and the decision seen, bridge, mbufs", test_stage_bridge_mbufs},
	    {"stages: cross-connect, frames without mbufs", test_stage_xconnect_frames},
	    {"stages: order, all dropped, bounds", test_stage_order_and_bounds},
	    {"stages: by order, not registration", test_stage_by_order},
	    {"stages: egress, by port bit, mbufs and frames", test_egress_stage},
	    {NULL, NULL},
	};
	int rc;

	dp_harness_init(1);
	rc = unit_run("stages", tests);
	dp_harness_fini();
	return rc;
}
