/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of perf/bench_hist.c: podwire-bench's latency histogram. */
#include <stdint.h>

#include "bench_hist.h"
#include "unit.h"

static struct bench_hist h, h2;

/* Within the bucket resolution: 1/32 of the value, at least 1. */
#define ASSERT_NEAR(actual, expected)                                                              \
	do {                                                                                       \
		double a_ = (double)(actual), e_ = (double)(expected);                             \
		double tol_ = e_ / 32 > 1 ? e_ / 32 : 1;                                           \
		unit_check(a_ >= e_ - tol_ && a_ <= e_ + tol_, __LINE__, __FILE__,                 \
			   "%s == %.0f, expected %.0f +- %.1f", #actual, a_, e_, tol_);            \
	} while (0)

static void test_empty(void)
{
	bench_hist_reset(&h);
	ASSERT_INT_EQ(h.count, 0);
	ASSERT_INT_EQ(bench_hist_percentile(&h, 0.5), 0);
	ASSERT_INT_EQ(bench_hist_percentile(&h, 0.99), 0);
	CU_ASSERT_DOUBLE_EQUAL(bench_hist_mean(&h), 0, 0);
}

static void test_buckets(void)
{
	uint64_t lo, hi, prev_hi = 0;

	/* Buckets tile the whole range without gaps or overlaps. */
	for (unsigned int i = 0; i < BENCH_HIST_BUCKETS; i++) {
		bench_hist_range(i, &lo, &hi);
		if (i > 0)
			ASSERT_INT_EQ(lo, prev_hi + 1);
		ASSERT_INT_EQ(bench_hist_index(lo), i);
		ASSERT_INT_EQ(bench_hist_index(hi), i);
		prev_hi = hi;
	}
	CU_ASSERT(prev_hi == UINT64_MAX);
	ASSERT_INT_EQ(bench_hist_index(0), 0);
	ASSERT_INT_EQ(bench_hist_index(31), 31);
	ASSERT_INT_EQ(bench_hist_index(32), 32);
	ASSERT_INT_EQ(bench_hist_index(UINT64_MAX), BENCH_HIST_BUCKETS - 1);
}

static void test_uniform(void)
{
	/* 1..100000 ns once each: pXX is XX% of 100000. */
	bench_hist_reset(&h);
	for (uint64_t v = 1; v <= 100000; v++)
		bench_hist_add(&h, v);
	ASSERT_INT_EQ(h.count, 100000);
	ASSERT_INT_EQ(h.min, 1);
	ASSERT_INT_EQ(h.max, 100000);
	CU_ASSERT_DOUBLE_EQUAL(bench_hist_mean(&h), 50000.5, 1e-6);
	ASSERT_NEAR(bench_hist_percentile(&h, 0.5), 50000);
	ASSERT_NEAR(bench_hist_percentile(&h, 0.99), 99000);
	ASSERT_NEAR(bench_hist_percentile(&h, 0.999), 99900);
	ASSERT_NEAR(bench_hist_percentile(&h, 0.01), 1000);
	ASSERT_INT_EQ(bench_hist_percentile(&h, 0), 1);
	ASSERT_INT_EQ(bench_hist_percentile(&h, 1), 100000);
}

static void test_small_exact(void)
{
	/* Below 32 every value has its own bucket: percentiles are exact. */
	bench_hist_reset(&h);
	for (uint64_t v = 0; v < 10; v++)
		bench_hist_add(&h, v);
	ASSERT_INT_EQ(bench_hist_percentile(&h, 0.5), 4);
	ASSERT_INT_EQ(bench_hist_percentile(&h, 0.9), 8);
	ASSERT_INT_EQ(bench_hist_percentile(&h, 0.95), 9);
	ASSERT_INT_EQ(h.min, 0);
}

static void test_tail(void)
{
	/* 990 fast samples, 9 slow, 1 very slow: the tail percentiles see them. */
	bench_hist_reset(&h);
	for (int i = 0; i < 990; i++)
		bench_hist_add(&h, 2000);
	for (int i = 0; i < 9; i++)
		bench_hist_add(&h, 50000);
	bench_hist_add(&h, 5000000);
	ASSERT_NEAR(bench_hist_percentile(&h, 0.5), 2000);
	ASSERT_NEAR(bench_hist_percentile(&h, 0.99), 2000);
	ASSERT_NEAR(bench_hist_percentile(&h, 0.995), 50000);
	ASSERT_NEAR(bench_hist_percentile(&h, 0.999), 50000);
	ASSERT_INT_EQ(bench_hist_percentile(&h, 0.9999), 5000000);
	ASSERT_INT_EQ(h.max, 5000000);
	/* A single-valued distribution reports that value exactly (clamped). */
	bench_hist_reset(&h2);
	for (int i = 0; i < 10; i++)
		bench_hist_add(&h2, 12345);
	ASSERT_INT_EQ(bench_hist_percentile(&h2, 0.5), 12345);
	ASSERT_INT_EQ(bench_hist_percentile(&h2, 0.999), 12345);
}

static void test_merge(void)
{
	bench_hist_reset(&h);
	bench_hist_reset(&h2);
	for (uint64_t v = 1; v <= 500; v++)
		bench_hist_add(&h, v);
	for (uint64_t v = 501; v <= 1000; v++)
		bench_hist_add(&h2, v);
	bench_hist_merge(&h, &h2);
	ASSERT_INT_EQ(h.count, 1000);
	ASSERT_INT_EQ(h.min, 1);
	ASSERT_INT_EQ(h.max, 1000);
	ASSERT_NEAR(bench_hist_percentile(&h, 0.5), 500);
	ASSERT_NEAR(bench_hist_percentile(&h, 0.99), 990);
	/* Merging an empty histogram changes nothing. */
	bench_hist_reset(&h2);
	bench_hist_merge(&h, &h2);
	ASSERT_INT_EQ(h.count, 1000);
	ASSERT_INT_EQ(h.min, 1);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"empty", test_empty},
	    {"buckets tile the range", test_buckets},
	    {"uniform 1..100000", test_uniform},
	    {"small values exact", test_small_exact},
	    {"tail percentiles", test_tail},
	    {"merge", test_merge},
	    {NULL, NULL},
	};

	return unit_run("bench_hist", tests);
}
