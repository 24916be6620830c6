/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datapath as stages over one burst type. Whatever a port's rx gives
 * (mbufs, or frames without mbufs in memory shared with a pod:
 * datapath/frame.h) becomes a struct dp_burst, and every burst passes
 * through the same chain, run by dp_input:
 *
 *   input     the frames' lengths and headers (a private copy for frames
 *             in shared memory, where a decision reads them); runts,
 *             VLAN, MTU and port security (input.c)
 *   ingress   the stages modules registered (dp_stage_register), in
 *             registration order: policy that may drop frames
 *   decide    the network's decision: bridge lookup/learn/flood
 *             (l2_bridge.c) or cross-connect (xconnect.c); dst[] for each
 *   forward   registered stages that see the decision (dst[])
 *   observe   capture as received and trace, for a watched port
 *   output    per destination: tx buffers, floods, tx with retries,
 *             egress checks, capture as sent, counters (output.c, tx.c)
 *
 * A frame dropped anywhere is dropped through dp_burst_drop: counted once
 * on the ingress port under its reason, and its dst says why (captures
 * and traces read it). A new feature is a stage: a function over the
 * burst, registered by its module before the workers start; it pays
 * nothing where no module registered one.
 */
#ifndef PODWIRE_DATAPATH_BURST_H
#define PODWIRE_DATAPATH_BURST_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "datapath/frame.h"
#include "datapath/stats.h"
#include "datapath/view.h"

struct worker;

/* Where a frame goes: a port index (below PW_MAX_PORTS), every other
 * port of the network, or nowhere: dropped and counted under the reason
 * the value carries. */
#define DP_FLOOD      (UINT16_MAX - DROP_MAX - 1)
#define DP_DROP_AS(r) ((uint16_t)(DP_FLOOD + 1 + (r)))
/* dp_burst.one_dst when the frames do not all go to one port. */
#define DP_NO_ONE_DST UINT16_MAX

static inline bool dp_is_drop(uint16_t dst)
{
	return dst > DP_FLOOD;
}

static inline enum drop_reason dp_drop_reason(uint16_t dst)
{
	return (enum drop_reason)(dst - DP_FLOOD - 1);
}

/* One rx burst of one port, as every stage sees it. */
struct dp_burst {
	struct dp_port *in;
	const struct dp_net *net;
	uint16_t n;	 /* frames, 1 .. PW_BURST */
	uint16_t n_fwd;	 /* of those, not dropped */
	bool frames;	 /* f[] (frames without mbufs) rather than pkts[] */
	bool hdr_copied; /* frames: each has its private header copy */
	union {
		struct rte_mbuf **pkts;
		struct dp_frame *f;
	};
	/* Set by the decision when every frame goes to this one port (none
	 * dropped, none flooded, no tag to strip off an mbuf): the output
	 * sends the burst in one call. DP_NO_ONE_DST otherwise; a stage that
	 * changes dst[] sets it so (dp_burst_drop does). */
	uint16_t one_dst;
	bool stripped;		       /* some strip[i] is set */
	uint32_t longest;	       /* the longest frame and the bytes of them all, */
	uint64_t bytes;		       /* as received */
	struct dp_frame *fp[PW_BURST]; /* frames: &f[i], for calls that take a list */
	const uint8_t *hdr[PW_BURST];  /* each frame's first bytes: hlen of them */
	uint32_t hlen[PW_BURST];
	uint32_t len[PW_BURST];	 /* as received */
	uint16_t dst[PW_BURST];	 /* port, DP_FLOOD or DP_DROP_AS(reason) */
	uint8_t strip[PW_BURST]; /* the network's VLAN tag comes off */
	/* What a policy stage says decided frame i, for trace: a module's
	 * code (acl/: acl_note_describe), 0 for none. Only stages of a
	 * traced port (in->observe & DP_OBS_TRACE) write them, and set
	 * noted when they do. */
	bool noted;
	uint32_t note[PW_BURST];
};

/* Drops frame i of b for reason, counted on the ingress port in c (the
 * worker's counters of it). */
static inline void dp_burst_drop(struct dp_burst *b, struct port_counters *c, uint16_t i,
				 enum drop_reason reason)
{
	c->drops[reason]++;
	b->dst[i] = DP_DROP_AS(reason);
	b->n_fwd--;
	b->one_dst = DP_NO_ONE_DST;
}

/* Gives every frame of a burst of frames its private header copy, once
 * (the input stage takes it where the decision needs it): a stage that
 * reads headers calls this first. Mbufs' hdr[] are set by the input. */
static inline void dp_burst_headers(struct dp_burst *b)
{
	if (!b->frames || b->hdr_copied)
		return;
	for (uint16_t i = 0; i < b->n; i++) {
		dp_frame_header(&b->f[i]);
		b->hdr[i] = b->f[i].hdr;
		b->hlen[i] = b->f[i].hdr_len;
	}
	b->hdr_copied = true;
}

/* Why each frame of b was dropped on its way in (DROP_MAX: it was not),
 * for captures. */
static inline void dp_burst_why(const struct dp_burst *b, uint8_t *why)
{
	for (uint16_t i = 0; i < b->n; i++)
		why[i] = dp_is_drop(b->dst[i]) ? (uint8_t)dp_drop_reason(b->dst[i]) : DROP_MAX;
}

/* ---- the chain ------------------------------------------------------------- */

/* Runs one burst of n mbufs received on port in through the chain; takes
 * ownership of them. Worker. */
void dp_input_mbufs(struct worker *w, const struct view *v, struct dp_port *in,
		    struct rte_mbuf **pkts, uint16_t n);
/* The same for n frames without mbufs; every frame is sent (or copied
 * into an mbuf) before it returns, so the port may then release them. */
void dp_input_frames(struct worker *w, const struct view *v, struct dp_port *in, struct dp_frame *f,
		     uint16_t n);

/* The fixed stages, in chain order (each file says what it does). */
void dp_stage_input(struct worker *w, const struct view *v, struct dp_burst *b);
void l2_bridge_decide(struct worker *w, const struct view *v, struct dp_burst *b);
void xconnect_decide(struct worker *w, const struct view *v, struct dp_burst *b);
void dp_stage_output(struct worker *w, const struct view *v, struct dp_burst *b);
/* The output of a burst whose frames all go to b->one_dst: one send,
 * which skips the egress MTU loop when the longest frame fits (tx.c). */
void dp_port_send_burst(struct worker *w, const struct view *v, struct dp_burst *b);

/* ---- registered stages ----------------------------------------------------- */

enum dp_stage_point {
	DP_STAGE_INGRESS, /* after the input checks, before the decision */
	DP_STAGE_FORWARD, /* after the decision: dst[] is set */
	DP_STAGE_POINTS
};

/* A module's stage: called for every burst of every port with frames not
 * yet dropped (b->n_fwd != 0); drops with dp_burst_drop. It runs on
 * workers: the datapath's rules hold (no locks, no per-frame calls
 * through pointers, state per worker or read from the view). Stages of
 * a point run by order, lowest first (equal orders: registration order),
 * so that what runs first does not hang on which module starts first. */
struct dp_stage {
	const char *name;
	void (*run)(struct worker *w, const struct view *v, struct dp_burst *b);
	uint8_t order;
};

/* The orders of podwire's own policy stages (ingress: rate limits first,
 * the cheapest drop; then access lists; mirrors copy what was let in). */
enum dp_stage_order {
	DP_ORDER_POLICER = 10,
	DP_ORDER_ACL = 20,
	DP_ORDER_MIRROR = 30,
};

#define DP_STAGES_MAX 8

/* Adds a stage at a point, by its order. Before the workers start (a
 * module's init, or a constructor). 0, -EINVAL, or -ENOSPC. */
int dp_stage_register(enum dp_stage_point at, const struct dp_stage *s);
/* Removes a stage (tests; a module's fini, once workers are stopped). */
void dp_stage_unregister(const struct dp_stage *s);

/* ---- egress stages ----------------------------------------------------------- */

/*
 * An egress stage sees the frames of one send to one port, after any
 * offload fix (super-frames already cut where the port needs it) and
 * before the port's MTU check, capture and tx: m[] (mbufs) or f[] with
 * strip[] (frames without mbufs, still in a pod's memory: read their
 * bytes once, into private memory, before deciding on them). It returns
 * how many frames go on, packed at the start of the arrays in their
 * order; each frame it keeps back it either hands to dp_egress_drop
 * (counted on p under a reason, captured, an mbuf freed) or, for an
 * mbuf, takes over. It runs only for ports whose dp_port.egress has its
 * bit (dp_egress_register's answer), which its module sets and clears
 * (control thread): a port nobody filters pays one test per send.
 */
struct dp_egress_stage {
	const char *name;
	uint16_t (*run)(struct worker *w, const struct view *v, struct dp_port *p,
			struct rte_mbuf **m, struct dp_frame **f, uint8_t *strip, uint16_t n);
	uint8_t order;
};

/* Adds an egress stage (by order, as dp_stage_register): its bit of
 * dp_port.egress (a power of two, below 256), or -EINVAL, -ENOSPC. */
int dp_egress_register(const struct dp_egress_stage *s);
void dp_egress_unregister(const struct dp_egress_stage *s);
/* Runs the egress stages whose bits p->egress has; tx.c. */
uint16_t dp_egress_run(struct worker *w, const struct view *v, struct dp_port *p,
		       struct rte_mbuf **m, struct dp_frame **f, uint8_t *strip, uint16_t n);
/* n frames of a send to p not made: counted on p under why, captured as
 * dropped when p is captured, mbufs freed (tx.c). */
void dp_egress_drop(struct worker *w, struct dp_port *p, struct rte_mbuf **m, struct dp_frame **f,
		    uint8_t *strip, uint16_t n, enum drop_reason why);

#endif
