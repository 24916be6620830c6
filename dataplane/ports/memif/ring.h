/* SPDX-License-Identifier: BSD-3-Clause */
/* Ring index arithmetic and descriptor access, shared by the datapath and
 * its unit tests. Indices are free-running 16-bit counters. */
#ifndef PODWIRE_MEMIF_RING_H
#define PODWIRE_MEMIF_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ports/memif/proto.h"

/* A client's memory for one queue pair, as podwired and podwire-bench lay
 * it out: the s2m ring, the m2s ring (each rounded up to a cache line),
 * then 2^log2 buffers of buf_size for each. */
struct memif_client_layout {
	uint32_t ring_bytes; /* each ring; the m2s ring starts here */
	uint32_t s2m_buf;    /* where each ring's buffers start */
	uint32_t m2s_buf;
	uint64_t size; /* the whole region */
};

static inline struct memif_client_layout memif_client_layout(uint8_t log2, uint32_t buf_size)
{
	struct memif_client_layout l;
	uint64_t bufs = ((uint64_t)1 << log2) * buf_size;

	l.ring_bytes = (uint32_t)((memif_ring_bytes(log2) + 63) & ~(uint64_t)63);
	l.s2m_buf = 2 * l.ring_bytes;
	l.m2s_buf = (uint32_t)(l.s2m_buf + bufs);
	l.size = l.m2s_buf + bufs;
	return l;
}

/* Not a count: the peer's index is impossible. */
#define MEMIF_RING_BAD UINT16_MAX

/* How far ahead is of behind, in slots, when that is at most limit (a ring
 * size never exceeds 2^14, so the answer never collides with
 * MEMIF_RING_BAD); MEMIF_RING_BAD otherwise. Wraps correctly. */
static inline uint16_t memif_ring_count(uint16_t ahead, uint16_t behind, uint16_t limit)
{
	uint16_t n = (uint16_t)(ahead - behind);

	return n <= limit ? n : MEMIF_RING_BAD;
}

/* Whether a run of descriptors being prefetched needs a line fetched at
 * its i-th slot: the run's first, and each that starts a cache line (a
 * 64-byte line holds four 16-byte descriptors). */
static inline bool memif_desc_line_start(uint16_t i, uint16_t slot)
{
	return i == 0 || (slot & 3) == 0;
}

/* Reads a descriptor the peer may be rewriting, once, as two 8-byte loads
 * the compiler may not repeat: every check and use is of this copy. */
static inline struct memif_desc memif_desc_read(const struct memif_desc *d)
{
	const uint64_t *w = (const uint64_t *)(const void *)d;
	uint64_t v[2] = {__atomic_load_n(&w[0], __ATOMIC_RELAXED),
			 __atomic_load_n(&w[1], __ATOMIC_RELAXED)};
	struct memif_desc out;

	memcpy(&out, v, sizeof(out));
	return out;
}

/* A descriptor made whole by podwired: region, offset, length, flags. */
static inline void memif_desc_post_frame(struct memif_desc *d, uint16_t region, uint32_t offset,
					 uint32_t length, bool more)
{
	struct memif_desc v = {.flags = more ? MEMIF_DESC_FLAG_NEXT : 0,
			       .region = region,
			       .length = length,
			       .offset = offset};

	memcpy(d, &v, sizeof(v));
}

/* An empty buffer posted for the peer to fill. */
static inline void memif_desc_post(struct memif_desc *d, uint16_t region, uint32_t offset,
				   uint32_t length)
{
	memif_desc_post_frame(d, region, offset, length, false);
}

/* The server filled the peer's posted buffer with length bytes. */
static inline void memif_desc_fill(struct memif_desc *d, uint32_t length, bool more)
{
	d->length = length;
	d->flags = more ? MEMIF_DESC_FLAG_NEXT : 0;
}

#endif
