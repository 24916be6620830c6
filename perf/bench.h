/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-bench's state, in one struct bench_ctx passed to whoever uses
 * it: the pods, the directions between them and a trial's totals, kept by
 * bench_main.c (the traffic loop and the pods' set-up) and read by
 * bench_events.c (pods that outlive their switch, and --events) and
 * bench_report.c (the results).
 */
#ifndef PODWIRE_BENCH_H
#define PODWIRE_BENCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_dev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "bench_hist.h"
#include "bench_ndr.h"
#include "bench_outage.h"
#include "bench_pkt.h"

struct bench_vhost;

/* Frames a pod moves at a time. An ethdev pod takes testpmd's burst;
 * podwire-bench's own memif and vhost-user pods, which write and read the
 * shared buffers themselves, twice that: the forwarder under test still takes its own
 * bursts, and the generator's cost per frame drops enough that it no
 * longer sets a fast switch's pace (perf/README.md, 2026-11-27). */
#define ETH_BURST 32
#define BURST	  64 /* the most: a memif pod's */

/* One queue (pair) of a pod. Each queue carries flows of its own: its
 * frames leave from an address of its own (bench_pod_queue_ip), so the
 * receiver knows which queue a frame left on, and each queue has its own
 * rotation over destinations, MACs and flows. */
struct pod_queue {
	struct bench_pkt_tmpl tmpl;
	/* Where the queue is in its rotation: destinations turn fastest, then
	 * source MACs, then flows (an odometer, so no division per frame). */
	uint16_t dst_i, flow_i, imix_i;
	uint32_t mac_i;
	/* An ethdev pod: frames a full ring refused at full speed, sent first
	 * next time, and their destinations. */
	uint16_t npend;
	struct rte_mbuf *pend[ETH_BURST];
	uint16_t pend_dst[ETH_BURST];
};

struct pod {
	uint16_t port;		   /* an ethdev pod's port */
	struct bench_memif *memif; /* or a memif pod of our own (NULL while re-opened) */
	bool own_memif;		   /* a --memif pod: devargs is its socket's path */
	uint32_t memif_buf_size;
	struct bench_vhost *vhost; /* or a --vhost pod: podwire-bench's own frontend */
	struct rte_ether_addr mac;
	struct pod_queue *q; /* its --queues queues */
	uint64_t tx, tx_full, rx, rx_bytes, misdelivered, bad;
	/* --reconnect and --events: the device as the EAL was given it, so
	 * that it can be probed again, and where its re-opening is. */
	char name[RTE_DEV_NAME_MAX_LEN];
	char *devargs;
	bool present; /* false while its device is removed */
	struct bench_reopen ro;
};

/* Frames received recently, per flow, for telling a duplicate from a
 * frame that is merely late: one bit per sequence number, the last
 * BENCH_SEEN_BITS below the next one expected. A frame later than that
 * is counted out of order (and unchecked): deeper than any ring. */
#define BENCH_SEEN_BITS	 4096u
#define BENCH_SEEN_WORDS (BENCH_SEEN_BITS / 64)

/* One flow: a (source pod, its queue, destination pod). Frames of a flow
 * leave in sequence on one queue; every one must arrive once, in order.
 * tx counts frames stamped, refused those of them a full ring did not
 * take at a set rate (they never reached the switch); rx those received
 * once; duplicates those received again; out_of_order those that came
 * after a later one of the flow. */
struct dir {
	uint64_t tx, rx, rx_bytes, out_of_order, stale;
	uint64_t refused, duplicates, unchecked;
	uint32_t seq_tx;
	uint32_t seq_start; /* first sequence number of the current trial */
	uint32_t seq_rx_next;
	uint64_t last_rx; /* TSC of its last frame, for gaps (0: none yet) */
	uint64_t gaps;
	uint64_t mark_tsc; /* awaiting a frame sent after this mark (0: not) */
};

struct trial {
	double seconds;
	uint64_t tx, tx_full, rx, rx_bytes, misdelivered, bad, out_of_order, stale;
	/* Over flows: refused at the source, duplicates, and frames the switch
	 * took and never delivered (tx - refused - rx, per flow). */
	uint64_t refused, duplicates, unchecked, undelivered;
	struct bench_hist hist;
};

/* podwire-bench's state, one per run: main() (bench_main.c) makes it and
 * hands it to everything that reads or changes it, here and in
 * bench_events.c and bench_report.c. What every frame reads comes first. */
struct bench_ctx {
	struct pod *pods;
	struct dir *dirs;     /* npods x nq x npods: bench_dir_idx */
	uint64_t *seen;	      /* BENCH_SEEN_WORDS per dir */
	struct pod_queue *pq; /* npods x nq */
	uint16_t npods;
	uint16_t nq;	     /* queues per pod (--queues) */
	bool counting;	     /* frames built now are counted */
	uint64_t tsc_ns_q32; /* tsc_ns * 2^32 */
	/* --reconnect, --events: links watched, gaps in ticks (0: not tracked). */
	uint64_t gap_ticks;
	bool watch_links;
	uint64_t next_link_service;
	struct bench_reopen_conf reopen_conf;
	FILE *events;
	unsigned int marks;
	double tsc_ns;
	double offered_pps; /* rate of the reported measurement, 0 = full speed */
	struct rte_mempool *pool;
	/* Set by the signal handler. */
	volatile sig_atomic_t quit;	      /* SIGINT, SIGTERM */
	volatile sig_atomic_t stop_measuring; /* SIGUSR1 */
	volatile sig_atomic_t mark_wanted;    /* SIGUSR2 */
};

/* The flow of pod src's queue q to pod dst. */
static inline uint32_t bench_dir_idx(const struct bench_ctx *ctx, uint16_t src, uint16_t q,
				     uint16_t dst)
{
	return ((uint32_t)src * ctx->nq + q) * ctx->npods + dst;
}

static inline struct dir *bench_dir(const struct bench_ctx *ctx, uint16_t src, uint16_t q,
				    uint16_t dst)
{
	return &ctx->dirs[bench_dir_idx(ctx, src, q, dst)];
}

static inline uint32_t bench_n_dirs(const struct bench_ctx *ctx)
{
	return (uint32_t)ctx->npods * ctx->nq * ctx->npods;
}

/* Frames of flow d that the switch took and never delivered. */
static inline uint64_t bench_dir_undelivered(const struct dir *d)
{
	return d->tx > d->refused + d->rx ? d->tx - d->refused - d->rx : 0;
}

/* bench_main.c */
/* Configures and starts a pod's port; quiet: a failure is expected. */
int bench_port_setup(struct bench_ctx *ctx, uint16_t port, bool quiet);
/* Connects --memif pod p to its switch. reopen: from the outage loop,
 * which has its own back-off: one try, and a failure is expected (not
 * said); else at start-up, waiting up to BENCH_MEMIF_START_MS for a
 * switch that is not serving yet. */
int bench_pod_memif_connect(struct bench_ctx *ctx, uint16_t p, bool reopen);
/* Drops pod p's frames still waiting to be sent. */
void bench_pod_pending_drop(struct bench_ctx *ctx, uint16_t p, bool count);

/* bench_events.c */
uint64_t bench_ticks_ns(const struct bench_ctx *ctx, uint64_t ticks);
uint64_t bench_wall_now(void);
/* One line of --events; fmt continues the object after "event". */
void bench_event(const struct bench_ctx *ctx, const char *name, uint64_t t_ns, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void bench_mark_take(struct bench_ctx *ctx);
void bench_mark_reached(struct bench_ctx *ctx, uint16_t src, uint16_t q, uint16_t dst, uint64_t now,
			uint64_t sent);
void bench_gap_seen(struct bench_ctx *ctx, uint16_t src, uint16_t q, uint16_t dst, uint64_t from,
		    uint64_t now, uint64_t sent);
/* Watches every pod's link (--reconnect, --events), at most once a ms. */
void bench_links_service(struct bench_ctx *ctx, uint64_t now);
/* The pod's device name and arguments, for re-opening it; its --events line. */
int bench_pod_identify(struct bench_ctx *ctx, uint16_t p);

/* bench_report.c */
void bench_mac_str(const struct rte_ether_addr *a, char *buf, size_t len);
double bench_loss_of(uint64_t tx, uint64_t rx);
void bench_print_json(const struct bench_ctx *ctx, const struct trial *t,
		      const struct bench_ndr_result *ndr);
void bench_print_summary(const struct bench_ctx *ctx, const struct trial *t,
			 const struct bench_ndr_result *ndr);

#endif
