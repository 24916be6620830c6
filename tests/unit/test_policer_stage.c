/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The policer's stages in the datapath (dataplane/policer/policer.c):
 * ingress on mbufs and on frames without mbufs, frames an earlier check
 * dropped taking no token; egress on mbufs and on frames, what passes
 * kept in order and the rest counted as policed on the port; a limit
 * replaced and removed live (its egress bit with it). The harness's
 * worker does not run: its clock (w->now) is the test's.
 */
#include <rte_cycles.h>

#include "dp_sinks.h"
#include "policer/policer.h"

static void set_limit(struct port *p, int d, bool bits, uint64_t rate, uint64_t burst)
{
	struct port_rate r[PORT_DIRS];
	char msg[256];

	memcpy(r, p->conf.rate, sizeof(r));
	r[d] = (struct port_rate){.rate = rate, .burst = burst, .bits = bits};
	ASSERT_INT_EQ(policer_apply(p, r, msg, sizeof(msg)), 0);
	memcpy(p->conf.rate, r, sizeof(r));
}

/* Ingress, frames/s: the burst passes, the rest is policed on the
 * sender; a second later the bucket is full again; a frame port security
 * dropped (a spoofed source) takes no token. */
static void test_ingress(void)
{
	struct network *n = dp_net("pin", NET_BRIDGE, 0);
	struct port *a = dp_port("pina", n, "sink", A), *b = dp_port("pinb", n, "sink", B);
	struct rte_mbuf *m[6];
	uint64_t t0;

	set_limit(a, PORT_DIR_IN, false, 10, 3);
	CU_ASSERT_FATAL(a->dp.pol[PORT_DIR_IN] != NULL);
	t0 = policer_of(a, PORT_DIR_IN)->last; /* made full then */
	workers[0]->now = t0;
	ASSERT_INT_EQ(a->dp.egress, 0);
	a->dp.port_security = true;		/* as port.create sets it for a pod's MAC */
	send1(b, dp_frame(BCAST, B, 0, 60, 0)); /* b is learned */
	sink_clear(a);
	/* The first from a source not a's: port security drops it first. */
	m[0] = dp_frame(B, X, 0, 60, 0);
	for (int i = 1; i < 6; i++)
		m[i] = dp_frame(B, A, 0, 60, (uint8_t)i);
	dp_harness_input(a, m, 6);
	ASSERT_INT_EQ(sink_of(b)->n, 3);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_SPOOFED_SRC], 1);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_POLICED], 2);
	/* The first three full frames, in order. */
	for (int i = 0; i < 3; i++)
		ASSERT_INT_EQ(rte_pktmbuf_mtod(sink_of(b)->got[i], uint8_t *)[20], i + 1);
	/* 100 ms later: one more token (10/s). */
	workers[0]->now = t0 + rte_get_tsc_hz() / 10;
	for (int i = 0; i < 3; i++)
		m[i] = dp_frame(B, A, 0, 60, 9);
	dp_harness_input(a, m, 3);
	ASSERT_INT_EQ(sink_of(b)->n, 4);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_POLICED], 4);
	/* Frames without mbufs, a second later: the burst of 3 again. */
	{
		uint8_t buf[5][128];
		struct dp_frame f[5];
		const uint32_t cuts[] = {0};

		workers[0]->now = t0 + rte_get_tsc_hz() + rte_get_tsc_hz() / 10;
		for (int i = 0; i < 5; i++) {
			fill_frame(buf[i], 100, B, A, 0);
			make_frame(&f[i], buf[i], 100, cuts);
		}
		frames_in(a, f, 5);
		ASSERT_INT_EQ(sink_of(b)->n, 7);
		ASSERT_INT_EQ(dp_counters(a).drops[DROP_POLICED], 6);
	}
	/* Removed: everything passes. */
	set_limit(a, PORT_DIR_IN, false, 0, 0);
	CU_ASSERT(a->dp.pol[PORT_DIR_IN] == NULL);
	a->dp.port_security = false;
	for (int i = 0; i < 5; i++)
		m[i] = dp_frame(B, A, 0, 60, 9);
	dp_harness_input(a, m, 5);
	ASSERT_INT_EQ(sink_of(b)->n, 12);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_POLICED], 6);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* Egress, bits/s on mbufs: 1600 bytes of burst; 1000 passes, 1500 does
 * not, 400 does, the next 400 not (200 left): what passes keeps its
 * order, the rest is policed on the receiving port. */
static void test_egress_mbufs(void)
{
	struct network *n = dp_net("peg", NET_XCONNECT, 0);
	struct port *a = dp_port("pega", n, "sink", A), *b = dp_port("pegb", n, "sink", B);
	const uint16_t len[4] = {1000, 1500, 400, 400};
	struct rte_mbuf *m[4];

	workers[0]->now = rte_rdtsc();
	set_limit(b, PORT_DIR_OUT, true, 8000, 1600);
	CU_ASSERT(b->dp.egress != 0);
	for (int i = 0; i < 4; i++)
		m[i] = dp_frame(B, A, 0, len[i], (uint8_t)i);
	dp_harness_input(a, m, 4);
	ASSERT_INT_EQ(sink_of(b)->n, 2);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(sink_of(b)->got[0]), 1000);
	ASSERT_INT_EQ(rte_pktmbuf_pkt_len(sink_of(b)->got[1]), 400);
	ASSERT_INT_EQ(rte_pktmbuf_mtod(sink_of(b)->got[1], uint8_t *)[20], 2);
	ASSERT_INT_EQ(dp_counters(b).drops[DROP_POLICED], 2);
	ASSERT_INT_EQ(dp_counters(b).tx_packets, 2);
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_POLICED], 0);
	/* Removed: the bit goes with it. */
	set_limit(b, PORT_DIR_OUT, true, 0, 0);
	ASSERT_INT_EQ(b->dp.egress, 0);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* Egress, frames/s, frames without mbufs to a port that takes them: the
 * first two pass with their bytes, three are policed. */
static void test_egress_frames(void)
{
	struct network *n = dp_net("pef", NET_XCONNECT, 0);
	struct port *a = dp_port("pefa", n, "sink", A), *b = dp_port("pefb", n, "fsink", B);
	uint8_t buf[5][128];
	struct dp_frame f[5];
	const uint32_t cuts[] = {0};

	workers[0]->now = rte_rdtsc();
	set_limit(b, PORT_DIR_OUT, false, 1, 2);
	for (int i = 0; i < 5; i++) {
		fill_frame(buf[i], 100, B, A, 0);
		buf[i][20] = (uint8_t)i;
		make_frame(&f[i], buf[i], 100, cuts);
	}
	frames_in(a, f, 5);
	ASSERT_INT_EQ(fsink_of(b)->n, 2);
	ASSERT_INT_EQ(fsink_of(b)->data[0][20], 0);
	ASSERT_INT_EQ(fsink_of(b)->data[1][20], 1);
	ASSERT_INT_EQ(dp_counters(b).drops[DROP_POLICED], 3);
	set_limit(b, PORT_DIR_OUT, false, 0, 0);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* A replaced limit is a new bucket (full); an unchanged one is kept. */
static void test_replace(void)
{
	struct network *n = dp_net("prp", NET_XCONNECT, 0);
	struct port *a = dp_port("prpa", n, "sink", A), *b = dp_port("prpb", n, "sink", B);
	const struct policer *before;

	set_limit(a, PORT_DIR_IN, false, 10, 3);
	before = policer_of(a, PORT_DIR_IN);
	set_limit(a, PORT_DIR_OUT, true, 1000000, 3000);
	CU_ASSERT(policer_of(a, PORT_DIR_IN) == before);
	set_limit(a, PORT_DIR_IN, false, 20, 3);
	ASSERT_INT_EQ(policer_of(a, PORT_DIR_IN)->conf_rate, 20);
	set_limit(a, PORT_DIR_IN, false, 0, 0);
	set_limit(a, PORT_DIR_OUT, false, 0, 0);
	CU_ASSERT(policer_of(a, PORT_DIR_IN) == NULL && policer_of(a, PORT_DIR_OUT) == NULL);
	destroy(a), destroy(b);
	destroy_net(n);
}

/* Cycles per frame of bursts of 32 through a cross-connect, with and
 * without a policer on both the sender's ingress and the receiver's
 * egress (a limit far above the load: every frame through both buckets,
 * none dropped), in interleaved repetitions, the fastest of each kept.
 * Printed, not judged (the machine is shared); what is judged is that no
 * frame is dropped. */
static void test_cost(void)
{
	struct network *n = dp_net("pco", NET_XCONNECT, 0);
	struct port *a = dp_port("pcoa", n, "sink", A), *b = dp_port("pcob", n, "sink", B);
	const unsigned int bursts = 2000, reps = 7;
	uint64_t best[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
	struct rte_mbuf *m[32];

	/* 0: none; 1: 1 Gframe/s; 2: 1 Tbit/s. */
	for (unsigned int r = 0; r < reps; r++)
		for (int on = 0; on < 3; on++) {
			uint64_t t0, t = 0,
				     rate = on == 0   ? 0
					    : on == 1 ? 1000000000
						      : 1000000000000;

			set_limit(a, PORT_DIR_IN, on == 2, rate, on ? 100000000 : 0);
			set_limit(b, PORT_DIR_OUT, on == 2, rate, on ? 100000000 : 0);
			for (unsigned int i = 0; i < bursts; i++) {
				for (int k = 0; k < 32; k++)
					m[k] = dp_frame(B, A, 0, 60, 1);
				workers[0]->now = rte_rdtsc();
				t0 = rte_rdtsc();
				dp_harness_input(a, m, 32);
				t += rte_rdtsc() - t0;
				sink_clear(b);
			}
			best[on] = RTE_MIN(best[on], t);
		}
	printf(
	    "\n    per frame, a cross-connect of sink ports: %.1f cycles without a policer; with "
	    "one on ingress and one on egress: %.1f (frames/s), %.1f (bits/s)\n",
	    (double)best[0] / (bursts * 32.0), (double)best[1] / (bursts * 32.0),
	    (double)best[2] / (bursts * 32.0));
	ASSERT_INT_EQ(dp_counters(a).drops[DROP_POLICED] + dp_counters(b).drops[DROP_POLICED], 0);
	ASSERT_INT_EQ(dp_counters(b).tx_packets, (uint64_t)reps * 3 * bursts * 32);
	set_limit(a, PORT_DIR_IN, false, 0, 0);
	set_limit(b, PORT_DIR_OUT, false, 0, 0);
	destroy(a), destroy(b);
	destroy_net(n);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"policer stage: ingress, mbufs and frames, drops take no token", test_ingress},
	    {"policer stage: egress bits/s, mbufs, order kept", test_egress_mbufs},
	    {"policer stage: egress frames/s, frames without mbufs", test_egress_frames},
	    {"policer stage: replaced, kept, removed", test_replace},
	    {"policer stage: cost per frame", test_cost},
	    {NULL, NULL},
	};
	int rc;

	dp_harness_init(1);
	rc = unit_run("policer_stage", tests);
	dp_harness_fini();
	return rc;
}
