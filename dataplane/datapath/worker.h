/* SPDX-License-Identifier: BSD-3-Clause */
/* Worker lcores: poll their ports, forward, flush per-destination buffers. */
#ifndef PODWIRE_WORKER_H
#define PODWIRE_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/view.h"
#include "datapath/stats.h"

#define TXB_SIZE (2 * PW_BURST)
/* A buffer this full is sent right after the rx burst that filled it;
 * fuller ones wait for the end of the loop turn (see worker_main). */
#define TXB_FLUSH_MIN (PW_BURST / 4)

struct tx_buffer {
	uint16_t n;
	bool queued; /* in the worker's dirty list */
	struct rte_mbuf *pkts[TXB_SIZE];
};

struct worker {
	unsigned int id;
	unsigned int lcore;
	volatile bool stop;
	struct port_counters *ctr; /* stats_ports[id] */
	uint16_t n_dirty;
	uint16_t dirty[PW_MAX_PORTS];
	struct tx_buffer txb[PW_MAX_PORTS];
} __rte_cache_aligned;

extern struct worker *workers[PW_MAX_WORKERS];
extern unsigned int n_workers;

/* Makes worker state for each lcore and launches them. */
int workers_start(const unsigned int *lcores, unsigned int n);
/* Asks every worker to stop and waits for them. */
void workers_stop(void);
/* The worker index a new port goes to: the one polling the fewest ports. */
unsigned int worker_pick(void);

/* Forwarding (l2_bridge.c, xconnect.c), called by a worker per rx burst.
 * Takes ownership of the n mbufs. */
void l2_bridge_input(struct worker *w, const struct dp_view *v, struct port *in,
		     const struct dp_net *net, struct rte_mbuf **pkts, uint16_t n);
void xconnect_input(struct worker *w, const struct dp_view *v, struct port *in,
		    struct rte_mbuf **pkts, uint16_t n);

/* Queues m for port out; flushes the buffer when full. */
void txb_add(struct worker *w, const struct dp_view *v, uint16_t out, struct rte_mbuf *m);
/* Sends n frames to port idx now, counting tx, link_down and tx_full;
 * takes ownership of all n. */
void port_send(struct worker *w, const struct dp_view *v, uint16_t idx, struct rte_mbuf **pkts,
	       uint16_t n);
/* Sends every non-empty buffer; counts link_down and tx_full drops. */
void txb_flush_all(struct worker *w, const struct dp_view *v);
/* Sends the buffers holding at least TXB_FLUSH_MIN frames. */
void txb_flush_full(struct worker *w, const struct dp_view *v);

#endif
