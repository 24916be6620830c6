/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters. Each worker writes its own copy (no atomics); the control
 * thread sums them. Clearing records a baseline rather than writing to
 * worker memory.
 */
#ifndef PODWIRE_STATS_H
#define PODWIRE_STATS_H

#include <stdint.h>

#include <cjson/cJSON.h>
#include <rte_common.h>

#include "model/port.h"

#define DROP_REASONS(X)                                                                            \
	X(LINK_DOWN, "link_down") /* the peer is not connected */                                  \
	X(TX_FULL, "tx_full")	  /* the peer's ring is full */                                    \
	X(MTU, "mtu_exceeded")	  /* frame larger than the port's MTU */                           \
	X(VLAN, "vlan_mismatch")  /* tagged frame on an access port */                             \
	X(SAME_PORT, "same_port") /* destination learned on ingress port */                        \
	X(RUNT, "runt")		  /* shorter than an Ethernet header */                            \
	X(NO_ROUTE, "no_route")	  /* nowhere to send (alone on network) */

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
} __rte_cache_aligned;

struct worker_counters {
	uint64_t busy_cycles;
	uint64_t idle_cycles;
	uint64_t loops;
} __rte_cache_aligned;

/* Per worker, indexed by port. */
extern struct port_counters *stats_ports[];
extern struct worker_counters stats_workers[];

int stats_init(unsigned int n_workers);
void stats_fini(void);
/* Zeroes every worker's counters of a port index not in any view. */
void stats_reset_port(uint16_t idx);
/* Sums all workers, minus the baseline. */
void stats_port_sum(uint16_t idx, struct port_counters *out);
void stats_clear_port(uint16_t idx);
cJSON *stats_port_json(const struct port *p);
cJSON *stats_workers_json(void);
void stats_clear_workers(void);

#endif
