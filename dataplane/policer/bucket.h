/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A policer's token bucket: a rate (frames/s or bits/s) and a burst, the
 * excess dropped (a single-rate, color-blind policer: what srTCM with an
 * excess burst of 0 does, green or red).
 *
 * Why not librte_meter: rte_meter_srtcm_color_blind_check is per frame,
 * and each call divides the cycles elapsed by its period (a 64-bit div
 * whether time moved or not); its periods are rounded to whole cycles
 * (up to 1% off at 100 cycles a period). This bucket is topped up once
 * per burst with a multiplication and no division, in exact integers:
 * tokens are units x TSC hz, so t cycles earn t x rate of them and a
 * unit costs hz. Measured per frame of 32-frame bursts, lock included
 * (tests/unit/test_policer.c, 1514-byte frames at 100 Mbit/s, nearly all
 * over the limit, this 2.6 GHz EPYC): rte_meter 10.7 cycles, this bucket
 * 1.8-3; the test also checks that both admit the same frames. Under the
 * limit a burst is admitted whole (one multiplication): in the datapath
 * (tests/unit/test_policer_stage.c) a limit on a port's ingress and one
 * on its peer's egress add ~1 cycle a frame in frames/s, ~7 in bits/s
 * (an egress reads each mbuf's length).
 *
 * Bits/s counts the Ethernet frame as it is received or sent (headers
 * and any VLAN tag, no FCS), without preamble and inter-frame gap, as
 * OVS's ingress_policing_rate counts.
 *
 * A bucket is shared by the workers that can touch it: one lock per
 * burst (policer_admit), none per frame. No DPDK beyond the spinlock,
 * so unit tests drive it with a clock of their own.
 */
#ifndef PODWIRE_POLICER_BUCKET_H
#define PODWIRE_POLICER_BUCKET_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_spinlock.h>

/* The largest burst: the bucket of burst x 8 x hz tokens must fit 64
 * bits at a TSC of up to ~20 GHz. */
#define POLICER_BURST_MAX 100000000ull

struct policer {
	rte_spinlock_t lock;
	bool bits;	 /* rate in bits/s, burst in bytes; else frames/s, frames */
	uint64_t tokens; /* units x hz */
	uint64_t last;	 /* TSC of the last top-up */
	uint64_t rate;	 /* units per second */
	uint64_t cost;	 /* tokens a frame (pps) or a byte (bps) costs: hz, 8 x hz */
	uint64_t cap;	 /* the most tokens: burst x cost */
	uint64_t full;	 /* cycles that fill an empty bucket */
	/* As configured, for what shows them. */
	uint64_t conf_rate, conf_burst;
} __rte_cache_aligned;

/* Sets b up full at now: rate units/s (bits with bits, else frames),
 * burst frames or bytes, hz TSC cycles a second. 0, or -ERANGE when the
 * numbers overflow the bucket's arithmetic (the API's bounds keep
 * within it). */
static inline int policer_init(struct policer *b, bool bits, uint64_t rate, uint64_t burst,
			       uint64_t hz, uint64_t now)
{
	uint64_t cost = bits ? 8 * hz : hz, cap;

	if (rate == 0 || burst == 0 || hz == 0 || burst > POLICER_BURST_MAX ||
	    __builtin_mul_overflow(burst, cost, &cap) || cap > UINT64_MAX / 4 ||
	    rate > UINT64_MAX / 4)
		return -ERANGE;
	rte_spinlock_init(&b->lock);
	b->bits = bits;
	b->rate = rate;
	b->cost = cost;
	b->cap = cap;
	b->tokens = cap;
	b->last = now;
	b->full = cap / rate + 1;
	b->conf_rate = rate;
	b->conf_burst = burst;
	return 0;
}

/* Tops b up to now. Under b->lock. A worker's clock may lag another's
 * by a little: time never goes back. */
static inline void policer_refill(struct policer *b, uint64_t now)
{
	uint64_t dt;

	if (now <= b->last)
		return;
	dt = now - b->last;
	b->last = now;
	/* dt x rate stays below cap + rate: no overflow. */
	if (dt >= b->full)
		b->tokens = b->cap;
	else
		b->tokens = RTE_MIN(b->cap, b->tokens + dt * b->rate);
}

/*
 * Of the n frames (n <= 64) whose bit is set in live, with lengths len[]
 * (bytes; not read for frames/s, len may then be NULL), those the bucket
 * admits at now: their bits in the answer, in order (a frame that does
 * not fit is dropped, a later smaller one may still fit). One lock for
 * the lot. Any thread.
 */
static inline uint64_t policer_admit(struct policer *b, uint64_t now, const uint32_t *len,
				     unsigned int n, uint64_t live)
{
	uint64_t ok = 0, tokens;

	rte_spinlock_lock(&b->lock);
	policer_refill(b, now);
	tokens = b->tokens;
	if (b->bits) {
		uint64_t all = n == 64 ? UINT64_MAX : (1ull << n) - 1, bytes = 0;

		/* Under the limit, the common case: the burst's bytes at once
		 * (at most 64 x 64 KiB: no overflow). */
		if (live == all)
			for (unsigned int i = 0; i < n; i++)
				bytes += len[i];
		else
			for (unsigned int i = 0; i < n; i++)
				bytes += live >> i & 1 ? len[i] : 0;
		if (likely(tokens >= bytes * b->cost)) {
			tokens -= bytes * b->cost;
			ok = live;
		} else {
			for (unsigned int i = 0; i < n; i++) {
				uint64_t c = (uint64_t)len[i] * b->cost;

				if ((live >> i & 1) && tokens >= c) {
					tokens -= c;
					ok |= 1ull << i;
				}
			}
		}
	} else {
		/* Under the limit, the common case: the whole burst at once. */
		uint64_t need = (uint64_t)__builtin_popcountll(live) * b->cost;

		if (likely(tokens >= need)) {
			tokens -= need;
			ok = live;
		} else {
			for (unsigned int i = 0; i < n && tokens >= b->cost; i++)
				if (live >> i & 1) {
					tokens -= b->cost;
					ok |= 1ull << i;
				}
		}
	}
	b->tokens = tokens;
	rte_spinlock_unlock(&b->lock);
	return ok;
}

#endif
