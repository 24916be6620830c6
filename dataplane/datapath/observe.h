/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seeing frames from inside the worker: capture (copies of frames for a
 * pcapng file, dataplane/capture/) and trace (the path of the next N
 * frames, dataplane/observe/). Both are switched on per port through
 * dp_port.observe, which the worker tests once per burst: a port nobody
 * watches pays that one predictable branch and nothing else.
 *
 * Capture: the worker copies a frame (up to the snap length, after the
 * filter matched) into an mbuf of the capture's own pool and puts it on
 * its own single-producer ring of that capture; the control thread drains
 * the rings. A full ring or an empty pool skips the frame and counts it:
 * the worker never waits. Frames dropped by podwired are captured too, on
 * the port their drop is counted on, tagged with the reason.
 *
 * Every function here runs on a worker, on frames it owns for the call.
 */
#ifndef PODWIRE_DATAPATH_OBSERVE_H
#define PODWIRE_DATAPATH_OBSERVE_H

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_per_lcore.h>

#include "datapath/frame.h"
#include "datapath/stats.h"
#include "datapath/view.h"

/* The frame's direction at the port, as pcapng's EPB flags say it. */
enum capture_dir { CAPTURE_IN = 1, CAPTURE_OUT = 2 };

#define CAPTURE_MAX_IFS 16
/* Most frames one call copies at once (a tx buffer's worth). */
#define CAPTURE_BATCH (2 * PW_BURST)

/* What the worker writes with each copy, in the mbuf's private area. */
struct capture_meta {
	uint64_t tsc;	   /* when the worker saw it */
	uint32_t orig_len; /* the frame's length on the wire */
	uint16_t iface;	   /* the port's interface in the capture */
	uint8_t dir;	   /* enum capture_dir */
	uint8_t drop;	   /* enum drop_reason, DROP_MAX: not dropped */
};

/* One worker's counts for one interface of a capture. */
struct capture_ctr {
	uint64_t matched; /* frames the filter took (all, without one) */
	uint64_t skipped; /* of those, not copied: ring full or pool empty */
};

struct capture_wctr {
	struct capture_ctr ifs[CAPTURE_MAX_IFS];
} __rte_cache_aligned;

/* A capture as workers see it; made and freed by the control thread. */
struct dp_capture {
	uint8_t dirs;	  /* CAPTURE_IN | CAPTURE_OUT */
	uint32_t snaplen; /* bytes copied of each frame */
	/* The filter (libpcap's, converted for rte_bpf), NULL for none:
	 * returns 0 for a frame it does not take. jit when DPDK made one. */
	uint64_t (*jit)(void *mbuf);
	struct rte_bpf *filter;
	struct rte_mempool *pool;
	struct rte_ring *ring[PW_MAX_WORKERS]; /* single producer: the worker */
	struct capture_wctr *ctr;	       /* [worker] */
};

static inline struct capture_meta *capture_meta(struct rte_mbuf *m)
{
	return (struct capture_meta *)rte_mbuf_to_priv(m);
}

/* The worker id of the calling lcore, for code that is not handed its
 * worker (a port kind's rx); DP_NO_WORKER on every other thread. */
#define DP_NO_WORKER UINT_MAX
RTE_DECLARE_PER_LCORE(unsigned int, dp_worker_id);

/* Copies of n mbufs at port p into rec[] (NULL where the filter did not
 * match or the copy was skipped), tagged with dir and, for the frames
 * whose why[i] (or, with why NULL, all) is not DROP_MAX, that reason.
 * capture_push then hands them to the control thread. */
void capture_copy_mbufs(unsigned int wid, const struct dp_port *p, struct rte_mbuf *const *pkts,
			uint16_t n, enum capture_dir dir, const uint8_t *why,
			struct rte_mbuf **rec);
/* The same for frames without mbufs, as forwarded (strip: without the
 * VLAN tag; NULL: as received). */
void capture_copy_frames(unsigned int wid, const struct dp_port *p, struct dp_frame *const *f,
			 const uint8_t *strip, uint16_t n, enum capture_dir dir, const uint8_t *why,
			 struct rte_mbuf **rec);
/* Tags the copies of rec[from..n) as dropped for why (the frames a full
 * ring did not take). */
void capture_mark(struct rte_mbuf **rec, uint16_t from, uint16_t n, enum drop_reason why);
/* Puts the copies in rec[] on the worker's ring; those it cannot take are
 * freed and counted as skipped. */
void capture_push(unsigned int wid, const struct dp_port *p, struct rte_mbuf **rec, uint16_t n);

/* One call for the common case: copy and push. */
void capture_mbufs(unsigned int wid, const struct dp_port *p, struct rte_mbuf *const *pkts,
		   uint16_t n, enum capture_dir dir, const uint8_t *why);
void capture_frames(unsigned int wid, const struct dp_port *p, struct dp_frame *const *f,
		    const uint8_t *strip, uint16_t n, enum capture_dir dir, const uint8_t *why);

/* Frames of either sort, as a stage holds them: mbufs m, or (m NULL)
 * frames f with their strip flags. */
static inline void capture_copy(unsigned int wid, const struct dp_port *p,
				struct rte_mbuf *const *m, struct dp_frame *const *f,
				const uint8_t *strip, uint16_t n, enum capture_dir dir,
				const uint8_t *why, struct rte_mbuf **rec)
{
	if (m != NULL)
		capture_copy_mbufs(wid, p, m, n, dir, why, rec);
	else
		capture_copy_frames(wid, p, f, strip, n, dir, why, rec);
}

/* Frames (either sort, as capture_copy) dropped at port p, counted under
 * reason: captured when p captures that direction. */
static inline void capture_drop(unsigned int wid, const struct dp_port *p,
				struct rte_mbuf *const *m, struct dp_frame *const *f,
				const uint8_t *strip, uint16_t n, enum capture_dir dir,
				enum drop_reason reason)
{
	uint8_t why[CAPTURE_BATCH];

	if (likely(!(p->observe & (dir == CAPTURE_IN ? DP_OBS_CAP_RX : DP_OBS_CAP_TX))))
		return;
	memset(why, reason, sizeof(why));
	while (n != 0) {
		uint16_t k = RTE_MIN(n, (uint16_t)CAPTURE_BATCH);

		if (m != NULL) {
			capture_mbufs(wid, p, m, k, dir, why);
			m += k;
		} else {
			capture_frames(wid, p, f, strip, k, dir, why);
			f += k;
			strip = strip != NULL ? strip + k : NULL;
		}
		n -= k;
	}
}

/* The same from a port kind, which is not handed its worker. */
static inline void capture_dropped(const struct dp_port *p, struct rte_mbuf *m,
				   enum capture_dir dir, enum drop_reason reason)
{
	unsigned int wid = RTE_PER_LCORE(dp_worker_id);

	/* Capture rings have one producer, their worker: another thread
	 * must not push onto one. */
	if (wid != DP_NO_WORKER)
		capture_drop(wid, p, &m, NULL, NULL, 1, dir, reason);
}

/* ---- trace ------------------------------------------------------------------ */

#define TRACE_MAX_OUT 8	   /* destinations recorded per frame */
#define TRACE_MAX     1024 /* records per worker */

enum trace_lookup {
	TRACE_NO_LOOKUP,     /* dropped before the lookup */
	TRACE_LEARNED,	     /* the destination was learned on a port */
	TRACE_FLOOD_GROUP,   /* broadcast or multicast: flooded */
	TRACE_FLOOD_UNKNOWN, /* unknown unicast: flooded */
	TRACE_XCONNECT,	     /* a cross-connect: the peer, no lookup */
};

struct trace_out {
	uint16_t port;
	uint8_t verdict; /* DROP_MAX: queued for sending; else why dropped there */
};

struct trace_rec {
	uint64_t tsc;
	uint32_t len;	  /* as received */
	uint16_t in_port; /* port index */
	uint16_t tag;	  /* the VLAN id it carried, 0: untagged */
	uint8_t tagged;
	uint8_t strip; /* the network's tag came off */
	uint8_t lookup;
	uint8_t drop; /* dropped at ingress (DROP_MAX: not) */
	uint8_t n_out;
	uint16_t n_dst;	 /* destinations in all (a flood may have more than recorded) */
	uint8_t hdr[14]; /* destination, source, EtherType (after any tag) */
	struct trace_out out[TRACE_MAX_OUT];
	uint32_t note; /* a policy stage's code for its decision, 0: none (burst.h) */
};

struct trace_buf {
	volatile uint32_t n; /* records written; the worker stores, the control thread loads */
	struct trace_rec rec[TRACE_MAX];
};

/* Per worker, made by the trace module when a trace starts. */
extern struct trace_buf *trace_bufs[PW_MAX_WORKERS];
/* Frames still to trace, over all workers. */
extern volatile int32_t trace_quota;

struct dp_burst;
/* Records the path of the frames of a decided burst (datapath/burst.h):
 * the lookup, the drop or each destination's verdict. */
void trace_burst(unsigned int wid, const struct view *v, const struct dp_burst *b);

#endif
