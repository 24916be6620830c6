/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port mirroring as workers see it. A port that mirrors copy has a
 * struct mirror_port (dp_port.mirror): per direction, the mirrors
 * ("taps") whose destinations get a copy of each frame. Ingress copies
 * are taken by an ingress stage (DP_ORDER_MIRROR: after policers and
 * access lists, so what is copied is what podwired let in), egress copies
 * by an egress stage (after the offload fix: each copy is the frame as
 * sent to the port, a super-frame already cut where the port needs it).
 *
 * A copy is a new mbuf (rte_pktmbuf_copy, or dp_frame_to_mbuf for frames
 * without mbufs), never a second reference: the destination's tx path
 * may change it (an uplink's VLAN tag, an offload fix) while the original
 * is still on its way. Copies go to the destination through dp_port_send,
 * one call per burst and mirror, without retries (the destination's
 * tx_retries is 0 while it is one): a full destination drops the copies,
 * counted on the mirror, and never holds up the mirrored ports.
 */
#ifndef PODWIRE_MIRROR_TAP_H
#define PODWIRE_MIRROR_TAP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "core/limits.h"
#include "datapath/frame.h"

struct view;
struct worker;

#define MIRROR_MAX	64 /* mirrors at once */
#define MIRROR_PER_PORT 4  /* mirrors copying one port (per direction) */

enum mirror_dir {
	MIRROR_IN = 1,	/* what the port's pod sends (podwired receives) */
	MIRROR_OUT = 2, /* what podwired sends to the port */
};

struct acl_named;

/* One mirror acting on a port: where the copies go, the counters, and
 * the access list selecting what it copies (NULL: everything). The list
 * is held by name: acl.set replacing it takes effect at the next burst
 * (acl_current, loaded once per burst; the old one is freed after a
 * grace period), and acl.del refuses a list a mirror uses, so the name
 * outlives every tap that points to it. */
struct mirror_tap {
	uint16_t to;   /* destination port index */
	uint16_t slot; /* the mirror's counters (mirror_ctr) */
	const struct acl_named *acl;
};

struct mirror_port {
	/* A mirror's destination: every frame it sends is dropped (no_route:
	 * it has no network while it is one). Such a port has no taps. */
	bool dst;
	uint8_t n_in, n_out;
	struct mirror_tap in[MIRROR_PER_PORT], out[MIRROR_PER_PORT];
};

/* What a mirror did, per worker, by slot: copies the destination took,
 * and frames not copied there (no mbuf, the destination full or down). */
struct mirror_counters {
	uint64_t copies;
	uint64_t dropped;
};

struct mirror_worker_counters {
	struct mirror_counters c[MIRROR_MAX];
} __rte_cache_aligned;

extern struct mirror_worker_counters mirror_ctr[PW_MAX_WORKERS];

/* The dp_port.egress bit of the egress stage (0: not registered). */
extern uint8_t mirror_egress_bit;

/*
 * Copies of frames idx[0..n) of a send or a burst, as forwarded: mbufs m
 * (those with strip[i] lose their VLAN tag in the copy, as the original
 * does on output; strip may be NULL), or frames f without mbufs (with
 * strip). Writes the copies made into out, in order, and returns how
 * many (fewer when the pool is short); n is at most TXBUF_SIZE. Worker,
 * or a test.
 */
uint16_t mirror_copy(struct rte_mempool *pool, struct rte_mbuf *const *m, struct dp_frame *const *f,
		     const uint8_t *strip, const uint16_t *idx, uint16_t n, struct rte_mbuf **out);

#endif
