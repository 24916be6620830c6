/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Internet checksum written plainly, byte by byte, for tests that
 * check podwired's own (offload/): the sum of big-endian 16-bit words of
 * n bytes of p, added to s, folded to 16 bits (not complemented).
 */
#ifndef PODWIRE_TESTS_REF_CSUM_H
#define PODWIRE_TESTS_REF_CSUM_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t ref_sum(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

#endif
