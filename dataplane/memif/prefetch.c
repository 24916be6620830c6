/* SPDX-License-Identifier: BSD-3-Clause */
/* Whether the CPU has PREFETCHW, asked once before main() runs, for
 * memif_prefetch_write (memif/memif.h) on either side's datapath. */
#include "memif/memif.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

bool memif_have_prefetchw;

static void __attribute__((constructor)) prefetch_probe(void)
{
#if defined(__x86_64__)
	unsigned int a, b, c, d;

	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		memif_have_prefetchw = (c & (1u << 8)) != 0;
#endif
}
