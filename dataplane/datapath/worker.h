/* SPDX-License-Identifier: BSD-3-Clause */
/* Worker lcores: poll their ports, forward, flush per-destination buffers. */
#ifndef PODWIRE_DATAPATH_WORKER_H
#define PODWIRE_DATAPATH_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/frame.h"
#include "datapath/stats.h"
#include "datapath/txbuf.h"
#include "datapath/view.h"

/* A port's flood-limit credit, kept by the worker that polls it. */
struct flood_credit {
	const struct dp_port *port; /* whose: a new port on the index starts afresh */
	uint64_t credit;	    /* TSC cycles saved up */
	uint64_t last;		    /* TSC when last topped up */
};

struct worker {
	unsigned int id;
	unsigned int lcore; /* its EAL lcore */
	unsigned int cpu;   /* the CPU that lcore runs on */
	volatile bool stop;
	/* Idle naps (worker.c: worker_nap); nap_max_us 0: never. */
	uint32_t nap_max_us;
	uint32_t nap_us;
	uint32_t empty_turns;
	uint64_t now;		   /* TSC at the start of this loop turn */
	struct port_counters *ctr; /* stats_ports[id] */
	struct rte_mempool *pool;  /* mbufs for frames that need one */
	uint16_t n_dirty;
	uint16_t n_ready;
	uint16_t dirty[PW_MAX_PORTS]; /* tx buffers holding frames, or sent since the turn began */
	uint16_t ready[PW_MAX_PORTS]; /* of those, the ones to send after this burst */
	struct txbuf txbuf[PW_MAX_PORTS];
	struct dp_frame frames[PW_BURST];	 /* rx_frames fills these */
	struct flood_credit flood[PW_MAX_PORTS]; /* by ingress port */
} __rte_cache_aligned;

extern struct worker *workers[PW_MAX_WORKERS];
extern unsigned int n_workers;

/* Makes worker state for n workers, worker i on EAL lcore i + 1 (which
 * runs on cpus[i]), and launches them; pool gives mbufs for frames that
 * arrive without one; an idle worker naps up to nap_max_us (0: never). */
int workers_start(const unsigned int *cpus, unsigned int n, struct rte_mempool *pool,
		  uint32_t nap_max_us);
/* Asks every worker to stop and waits for them. */
void workers_stop(void);

/* Makes worker state without launching anything: a test (or a tool) then
 * drives forwarding by hand on the calling thread. */
struct worker *worker_new(unsigned int id, unsigned int lcore, struct rte_mempool *pool);
struct worker *worker_new_cpu(unsigned int id, unsigned int lcore, unsigned int cpu,
			      struct rte_mempool *pool);

#endif
