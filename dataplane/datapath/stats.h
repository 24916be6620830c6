/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters. Each worker writes its own copy (no atomics); the control
 * thread sums them. Clearing records a baseline rather than writing to
 * worker memory. Every frame podwired does not deliver is counted once,
 * on one port, under one of the reasons below.
 */
#ifndef PODWIRE_DATAPATH_STATS_H
#define PODWIRE_DATAPATH_STATS_H

#include <stdint.h>

#include <rte_common.h>

#include "datapath/view.h"

#define DROP_REASONS(X)                                                                            \
	X(LINK_DOWN, "link_down")	/* the peer is not connected */                            \
	X(TX_FULL, "tx_full")		/* the peer's ring is full */                              \
	X(MTU, "mtu_exceeded")		/* frame larger than the port's MTU */                     \
	X(VLAN, "vlan_mismatch")	/* tagged frame on an access port */                       \
	X(SAME_PORT, "same_port")	/* destination learned on ingress port */                  \
	X(RUNT, "runt")			/* shorter than an Ethernet header */                      \
	X(NO_ROUTE, "no_route")		/* nowhere to send (alone on network) */                   \
	X(UNKNOWN_VLAN, "unknown_vlan") /* uplink: no network has the frame's VLAN */              \
	X(STASH_FULL, "stash_full")   /* uplink: the port's share of a device burst overflowed */  \
	X(NO_MBUF, "no_mbuf")	      /* no buffer to tag or copy the frame into */                \
	X(BAD_DESC, "bad_desc")	      /* memif, vhost-user: a descriptor the peer got wrong */     \
	X(SPOOFED_SRC, "spoofed_src") /* port security: not the port's source MAC */               \
	X(FLOOD_LIMIT, "flood_limit") /* over the port's rate of flooded frames */                 \
	X(BAD_OFFLOAD, "bad_offload") /* offload request (checksum, segments) the frame cannot be  \
				       */                                                          \
	X(POLICED, "policed")	      /* over the port's rate limit (policer/) */                  \
	X(ACL_DENY, "acl_deny")	      /* an access list's rule or default said deny (acl/) */

enum drop_reason {
#define DROP_ENUM(id, name) DROP_##id,
	DROP_REASONS(DROP_ENUM)
#undef DROP_ENUM
	    DROP_MAX
};

extern const char *const drop_names[DROP_MAX];

struct port_counters {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t drops[DROP_MAX];
	uint64_t learn_limit; /* source MACs not learned: over a limit */
	uint64_t tx_retries;  /* tx tried again after a full ring */
} __rte_cache_aligned;

struct worker_counters {
	uint64_t busy_cycles;
	uint64_t idle_cycles;
	uint64_t loops;
	uint64_t sleeps;   /* idle sleeps taken (--idle-sleep-max) */
	uint64_t sleep_us; /* and the microseconds asked for */
} __rte_cache_aligned;

/* One queue of one port, as one worker saw it: what the balancer weighs
 * (rx_cycles: the cycles its non-empty polls took, forwarding included)
 * and what says which queues carry traffic. Never cleared: readers take
 * differences. */
struct queue_counters {
	uint64_t rx_packets;
	uint64_t rx_cycles;
	uint64_t tx_packets;
};

/* Per worker, indexed by port. */
extern struct port_counters *stats_ports[];
extern struct worker_counters stats_workers[];
/* Per worker, indexed by port * PW_MAX_QUEUES + queue. */
extern struct queue_counters *stats_queues[];

static inline struct queue_counters *stats_queue(unsigned int w, uint16_t idx, uint16_t q)
{
	return &stats_queues[w][(unsigned int)idx * PW_MAX_QUEUES + q];
}

int stats_init(unsigned int n_workers);
void stats_fini(void);
/* Zeroes every worker's counters of a port index not in any view. */
void stats_reset_port(uint16_t idx);
/* Sums all workers, minus the baseline. */
void stats_port_sum(uint16_t idx, struct port_counters *out);
void stats_clear_port(uint16_t idx);
/* Queue q of port idx, summed over every worker. */
void stats_queue_sum(uint16_t idx, uint16_t q, struct queue_counters *out);
/* One worker's cycles, minus the baseline. */
void stats_worker_get(unsigned int w, struct worker_counters *out);
void stats_clear_workers(void);
unsigned int stats_worker_count(void);

#endif
