/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the policer's bucket (dataplane/policer/bucket.h) with a
 * clock of the test's own: exact counts admitted for frames/s and bits/s,
 * the burst, a frame too large for what is left while a smaller one
 * fits, frames already dropped taking no token, time going back, bounds
 * refused. Then the cost per frame, against librte_meter's srTCM
 * (color-blind, an excess burst of 0: green or red), which must admit
 * exactly the same frames on the same clock.
 */
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_meter.h>

#include "policer/bucket.h"
#include "unit.h"

#define HZ 2600000000ull /* a TSC of 2.6 GHz */

static uint32_t len64[64];

/* Admits bursts of n 64-byte frames every gap cycles for secs seconds;
 * returns the frames admitted. */
static uint64_t run(struct policer *p, uint64_t t0, unsigned int n, uint64_t gap, double secs)
{
	uint64_t got = 0, end = t0 + (uint64_t)(secs * (double)HZ);

	for (uint64_t t = t0; t < end; t += gap)
		got += (uint64_t)__builtin_popcountll(
		    policer_admit(p, t, len64, n, n == 64 ? UINT64_MAX : (1ull << n) - 1));
	return got;
}

/* 10 kpps, burst 100: the first burst empties the bucket to what it
 * holds; then exactly a frame per hz/rate cycles, whatever the bursts. */
static void test_pps_exact(void)
{
	struct policer p;

	ASSERT_INT_EQ(policer_init(&p, false, 10000, 100, HZ, 1000), 0);
	/* Offered far above the rate: 32 frames every 10 us. After 1 s:
	 * the burst, and 10000 more (a frame each 260000 cycles). */
	ASSERT_INT_EQ(run(&p, 1000, 32, 26000, 1.0), 100 + 10000 - 1);
	/* An idle second fills the bucket to its burst, no more. */
	ASSERT_INT_EQ(__builtin_popcountll(policer_admit(&p, 1000 + 3 * HZ, len64, 64, UINT64_MAX)),
		      64);
	ASSERT_INT_EQ(__builtin_popcountll(policer_admit(&p, 1000 + 3 * HZ, len64, 64, UINT64_MAX)),
		      36);
	/* 1 Mpps over 5 s, 64-frame bursts every 5 us. */
	ASSERT_INT_EQ(policer_init(&p, false, 1000000, 10000, HZ, 0), 0);
	/* The last burst comes 13000 cycles before the 5 s are up. */
	ASSERT_INT_EQ(run(&p, 0, 64, 13000, 5.0), 10000 + (5 * HZ - 13000) / 2600);
}

/* 100 Mbit/s, burst 3028 bytes, 1514-byte frames: 8256 frames/s, counted
 * on the frame's bytes only (no preamble, no gap). */
static void test_bps_exact(void)
{
	uint32_t len[2] = {1514, 1514};
	uint64_t got = 0;
	struct policer p;

	ASSERT_INT_EQ(policer_init(&p, true, 100000000, 3028, HZ, 0), 0);
	for (uint64_t t = 0; t < HZ; t += 26000)
		got += (uint64_t)__builtin_popcountll(policer_admit(&p, t, len, 2, 3));
	/* 1e8 bits/s / (1514 x 8) = 8256.27 frames in 1 s, and the burst's 2. */
	ASSERT_INT_EQ(got, 2 + 8256);
}

/* What does not fit is dropped, a smaller frame after it may pass; frames
 * not live take nothing. */
static void test_sizes_and_live(void)
{
	uint32_t len[4] = {1000, 1500, 400, 200};
	struct policer p;

	ASSERT_INT_EQ(policer_init(&p, true, 8000, 1600, HZ, 0), 0); /* 1000 bytes/s */
	/* 1600 bytes: 1000 passes, 1500 not, 400 passes, 200 not (200 left: passes). */
	ASSERT_INT_EQ(policer_admit(&p, 0, len, 4, 0xf), 0x1 | 0x4 | 0x8);
	ASSERT_INT_EQ(policer_init(&p, false, 10, 3, HZ, 0), 0);
	/* Frames 0 and 2 were dropped before: 1, 3 and 4 take the 3 tokens. */
	ASSERT_INT_EQ(policer_admit(&p, 0, len64, 6, 0x3a), 0x1a);
	ASSERT_INT_EQ(policer_admit(&p, 0, len64, 6, 0x3f), 0);
}

/* A worker's clock a little behind another's: no token is taken back or
 * made up. */
static void test_time_back(void)
{
	struct policer p;

	ASSERT_INT_EQ(policer_init(&p, false, 1000, 1, HZ, 10 * HZ), 0);
	ASSERT_INT_EQ(policer_admit(&p, 10 * HZ, len64, 1, 1), 1);
	ASSERT_INT_EQ(policer_admit(&p, 9 * HZ, len64, 1, 1), 0);
	ASSERT_INT_EQ(policer_admit(&p, 10 * HZ + HZ / 1000, len64, 1, 1), 1);
}

static void test_bounds(void)
{
	struct policer p;

	ASSERT_INT_EQ(policer_init(&p, false, 0, 10, HZ, 0), -ERANGE);
	ASSERT_INT_EQ(policer_init(&p, false, 10, 0, HZ, 0), -ERANGE);
	ASSERT_INT_EQ(policer_init(&p, true, 10, POLICER_BURST_MAX + 1, HZ, 0), -ERANGE);
	/* The API's largest settings fit, at a TSC of up to 5 GHz. */
	ASSERT_INT_EQ(policer_init(&p, true, 1000000000000ull, POLICER_BURST_MAX, 5000000000ull, 0),
		      0);
	ASSERT_INT_EQ(policer_init(&p, false, 1000000000ull, POLICER_BURST_MAX, 5000000000ull, 0),
		      0);
}

/* The same offered load through librte_meter's srTCM (CBS = the burst,
 * EBS 0, color-blind: green passes) and through the bucket, on the same
 * clock: both admit within a frame of each other; and the cycles each
 * takes per frame of 32-frame bursts. */
static void test_cost_against_rte_meter(void)
{
	struct rte_meter_srtcm_params mp = {.cir = 12500000, .cbs = 3028, .ebs = 0};
	struct rte_meter_srtcm_profile prof;
	struct rte_meter_srtcm m;
	struct policer p;
	uint32_t len[32];
	uint64_t t, got_m = 0, got_b = 0, c0, c_meter, c_bucket;
	const uint64_t gap = 26000, rounds = 100000;

	for (int i = 0; i < 32; i++)
		len[i] = 1514;
	/* rte_meter reads rte_get_tsc_hz(): the real TSC, so both run on it. */
	ASSERT_INT_EQ(rte_meter_srtcm_profile_config(&prof, &mp), 0);
	ASSERT_INT_EQ(rte_meter_srtcm_config(&m, &prof), 0);
	ASSERT_INT_EQ(policer_init(&p, true, 100000000, 3028, rte_get_tsc_hz(), 0), 0);
	m.time = 0;
	c0 = rte_rdtsc_precise();
	t = 0;
	for (uint64_t r = 0; r < rounds; r++, t += gap)
		for (int i = 0; i < 32; i++)
			got_m += rte_meter_srtcm_color_blind_check(&m, &prof, t, len[i]) ==
				 RTE_COLOR_GREEN;
	c_meter = rte_rdtsc_precise() - c0;
	c0 = rte_rdtsc_precise();
	t = 0;
	for (uint64_t r = 0; r < rounds; r++, t += gap)
		got_b += (uint64_t)__builtin_popcountll(policer_admit(&p, t, len, 32, UINT32_MAX));
	c_bucket = rte_rdtsc_precise() - c0;
	printf("\n    per frame: rte_meter srTCM %.2f cycles, bucket %.2f cycles; admitted %llu "
	       "and %llu of %llu\n",
	       (double)c_meter / (double)(rounds * 32), (double)c_bucket / (double)(rounds * 32),
	       (unsigned long long)got_m, (unsigned long long)got_b,
	       (unsigned long long)(rounds * 32));
	/* rte_meter rounds its period to whole cycles: within 1%. */
	unit_check(got_m * 100 >= got_b * 99 && got_m * 99 <= got_b * 100, __LINE__, __FILE__,
		   "rte_meter admitted %llu, the bucket %llu", (unsigned long long)got_m,
		   (unsigned long long)got_b);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"policer: frames/s, exact counts", test_pps_exact},
	    {"policer: bits/s, exact counts", test_bps_exact},
	    {"policer: sizes, and frames already dropped", test_sizes_and_live},
	    {"policer: a clock behind", test_time_back},
	    {"policer: bounds", test_bounds},
	    {"policer: cost per frame against rte_meter", test_cost_against_rte_meter},
	    {NULL, NULL},
	};

	char prefix[64];
	char *argv[] = {"unit",
			"--no-huge",
			"-m",
			"64",
			"--no-pci",
			"--no-shconf",
			"--no-telemetry",
			"--file-prefix",
			prefix,
			"-l",
			"0",
			"--log-level=*:error",
			NULL};

	/* EAL for rte_get_tsc_hz, which rte_meter's profiles read. */
	snprintf(prefix, sizeof(prefix), "pwunit-pol-%d", (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "cannot start EAL without hugepages\n");
		return 2;
	}
	for (int i = 0; i < 64; i++)
		len64[i] = 64;
	return unit_run("policer", tests);
}
