/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames without mbufs: a port kind whose frames sit in memory shared with
 * a pod (memif) hands them to the worker as struct dp_frame, a list of
 * validated segments. Where a decision is made from the header (the
 * bridge), the worker first takes a private copy of it (dp_frame_header):
 * the pod may rewrite its buffers at any time, and the frame forwarded
 * must carry the header that was decided on. A cross-connect decides
 * nothing from the header and takes no copy. A destination of the same
 * sort copies the frame once, straight into its own ring; any other gets
 * an mbuf made from it.
 */
#ifndef PODWIRE_DATAPATH_FRAME_H
#define PODWIRE_DATAPATH_FRAME_H

#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

/* A 9000-byte MTU frame in 1 KiB buffers takes 9 segments. */
#define DP_FRAME_SEGS 16
/* Ethernet header and one VLAN tag: what forwarding decisions read. */
#define DP_FRAME_HDR_MAX 18

struct dp_seg {
	const uint8_t *data;
	uint32_t len;
};

/* Laid out so that a one-segment frame is one cache line. */
struct dp_frame {
	uint32_t len;			   /* the whole frame, bytes */
	uint16_t n_seg;			   /* 1 .. DP_FRAME_SEGS */
	uint16_t hdr_len;		   /* 0: no private copy; else min(len, DP_FRAME_HDR_MAX) */
	uint8_t hdr[DP_FRAME_HDR_MAX + 6]; /* private copy; 8-byte MAC loads stay inside */
	struct dp_seg seg[DP_FRAME_SEGS];
};

/* Gives the frame its private copy of its first bytes, unless it has one
 * (a receiving kind leaves it to the worker): every decision about the
 * frame is made from it, and it is forwarded in their place. */
static inline void dp_frame_header(struct dp_frame *f)
{
	uint32_t want = RTE_MIN(f->len, (uint32_t)DP_FRAME_HDR_MAX), got = 0;

	if (f->hdr_len != 0)
		return;
	f->hdr_len = (uint16_t)want;
	if (likely(f->seg[0].len >= DP_FRAME_HDR_MAX)) {
		memcpy(f->hdr, f->seg[0].data, DP_FRAME_HDR_MAX); /* a fixed size: inlined */
		return;
	}
	for (uint16_t s = 0; got < want; s++) {
		uint32_t k = RTE_MIN(want - got, f->seg[s].len);

		memcpy(f->hdr + got, f->seg[s].data, k);
		got += k;
	}
}

/* Copies n bytes of the frame as forwarded, starting at off, into dst.
 * "As forwarded": the header bytes come from the private copy when there
 * is one, and with strip the 4 bytes of the VLAN tag (offsets 12-15) are
 * left out. */
static inline void dp_frame_read(const struct dp_frame *f, uint8_t strip, uint32_t off,
				 uint8_t *dst, uint32_t n)
{
	uint32_t s = 0, base = 0;

	while (n != 0) {
		/* The offset in the frame as it is, tag included. */
		uint32_t src = strip && off >= 12 ? off + 4 : off;
		uint32_t k;

		if (src < f->hdr_len) {
			k = RTE_MIN(n, (uint32_t)f->hdr_len - src);
			if (strip && src < 12)
				k = RTE_MIN(k, 12 - src);
			rte_memcpy(dst, f->hdr + src, k);
		} else {
			while (src >= base + f->seg[s].len) {
				base += f->seg[s].len;
				s++;
			}
			k = RTE_MIN(n, base + f->seg[s].len - src);
			if (strip && src < 12)
				k = RTE_MIN(k, 12 - src);
			rte_memcpy(dst, f->seg[s].data + (src - base), k);
		}
		dst += k;
		off += k;
		n -= k;
	}
}

/* The frame's length as forwarded. */
static inline uint32_t dp_frame_out_len(const struct dp_frame *f, uint8_t strip)
{
	return f->len - 4u * strip;
}

/* An mbuf (a chain for a large frame) holding the frame as forwarded, or
 * NULL when the pool is short. */
struct rte_mbuf *dp_frame_to_mbuf(const struct dp_frame *f, uint8_t strip,
				  struct rte_mempool *pool);
/* The same, of its first max bytes at the most (a capture's snaplen). */
struct rte_mbuf *dp_frame_to_mbuf_max(const struct dp_frame *f, uint8_t strip,
				      struct rte_mempool *pool, uint32_t max);

#endif
