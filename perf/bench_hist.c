/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "bench_hist.h"

unsigned int bench_hist_index(uint64_t v)
{
	unsigned int e;

	if (v < BENCH_HIST_SUB)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v); /* >= SUB_BITS */
	return BENCH_HIST_SUB + (e - BENCH_HIST_SUB_BITS) * BENCH_HIST_SUB +
	       (unsigned int)((v >> (e - BENCH_HIST_SUB_BITS)) & (BENCH_HIST_SUB - 1));
}

void bench_hist_range(unsigned int idx, uint64_t *lo, uint64_t *hi)
{
	unsigned int e, sub;

	if (idx < BENCH_HIST_SUB) {
		*lo = *hi = idx;
		return;
	}
	e = (idx - BENCH_HIST_SUB) / BENCH_HIST_SUB + BENCH_HIST_SUB_BITS;
	sub = (idx - BENCH_HIST_SUB) % BENCH_HIST_SUB;
	*lo = ((uint64_t)(BENCH_HIST_SUB + sub)) << (e - BENCH_HIST_SUB_BITS);
	*hi = *lo + ((1ull << (e - BENCH_HIST_SUB_BITS)) - 1);
}

void bench_hist_reset(struct bench_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void bench_hist_add(struct bench_hist *h, uint64_t v)
{
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->bucket[bench_hist_index(v)]++;
}

void bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src)
{
	if (src->count == 0)
		return;
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (unsigned int i = 0; i < BENCH_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t bench_hist_percentile(const struct bench_hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi, v;

	if (h->count == 0)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 1)
		return h->max;
	rank = (uint64_t)ceil(p * (double)h->count);
	if (rank == 0)
		rank = 1;
	for (unsigned int i = 0; i < BENCH_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen < rank)
			continue;
		bench_hist_range(i, &lo, &hi);
		v = lo + (hi - lo) / 2;
		if (v < h->min)
			v = h->min;
		if (v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}

double bench_hist_mean(const struct bench_hist *h)
{
	return h->count == 0 ? 0 : (double)h->sum / (double)h->count;
}
