/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prefetching a line that is about to be written. DPDK's build flags
 * (-march=corei7) keep the compiler from emitting PREFETCHW, so
 * rte_prefetch0_write() becomes a read prefetch: the line arrives shared
 * and the store that follows still waits for the other cores to give it
 * up. Where a pod's core last touched the line (memif buffers and
 * descriptors), that wait is most of what a frame costs. The CPU is asked
 * once whether it has PREFETCHW (CPUID 0x80000001, ECX bit 8).
 */
#ifndef PODWIRE_DATAPATH_PREFETCH_H
#define PODWIRE_DATAPATH_PREFETCH_H

#include <stdbool.h>

#include <rte_branch_prediction.h>
#include <rte_prefetch.h>

extern bool dp_have_prefetchw;

static inline void dp_prefetch_write(const void *p)
{
#if defined(__x86_64__)
	if (likely(dp_have_prefetchw)) {
		__asm__ volatile("prefetchw %0" : : "m"(*(const volatile char *)p));
		return;
	}
#endif
	rte_prefetch0(p);
}

#endif
