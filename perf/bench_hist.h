/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Latency histogram with log-sized buckets: values below 32 are exact,
 * above that each power of two is split in 32 buckets, so a percentile is
 * within about 3% of the true value whatever the range. Min, max and the
 * mean are exact. Not thread-safe: one per receiving lcore.
 */
#ifndef PODWIRE_BENCH_HIST_H
#define PODWIRE_BENCH_HIST_H

#include <stdint.h>

#define BENCH_HIST_SUB_BITS 5
#define BENCH_HIST_SUB	    (1u << BENCH_HIST_SUB_BITS)
#define BENCH_HIST_BUCKETS  (BENCH_HIST_SUB + (64 - BENCH_HIST_SUB_BITS) * BENCH_HIST_SUB)

struct bench_hist {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	uint64_t sum; /* an integer: adding it up costs a frame no floating-point latency */
	uint64_t bucket[BENCH_HIST_BUCKETS];
};

void bench_hist_reset(struct bench_hist *h);
void bench_hist_add(struct bench_hist *h, uint64_t v);
/* Adds every sample of src to dst. */
void bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src);
/* The value below which a fraction p (0..1) of the samples lie, within the
 * bucket resolution and clamped to [min, max]; 0 when there are none. */
uint64_t bench_hist_percentile(const struct bench_hist *h, double p);
double bench_hist_mean(const struct bench_hist *h);

/* Bucket index of a value and the range [lo, hi] it stands for. */
unsigned int bench_hist_index(uint64_t v);
void bench_hist_range(unsigned int idx, uint64_t *lo, uint64_t *hi);

#endif
