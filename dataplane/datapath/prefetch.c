/* SPDX-License-Identifier: BSD-3-Clause */
#include "datapath/prefetch.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

bool dp_have_prefetchw;

static void __attribute__((constructor)) prefetch_probe(void)
{
#if defined(__x86_64__)
	unsigned int a, b, c, d;

	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		dp_have_prefetchw = (c & (1u << 8)) != 0;
#endif
}
