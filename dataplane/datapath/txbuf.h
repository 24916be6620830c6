/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tx buffering: a worker gathers the frames it forwards per destination
 * port and sends each port's frames in one burst (one vhost or ring call
 * for many frames). Every function here runs on a worker, on its own
 * buffers; frames passed in are owned by the callee from then on.
 */
#ifndef PODWIRE_DATAPATH_TXBUF_H
#define PODWIRE_DATAPATH_TXBUF_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/view.h"

#define TXBUF_SIZE (2 * PW_BURST)
/* A buffer this full is sent right after the rx burst that filled it;
 * thinner ones wait for the end of the loop turn (see worker.c). */
#define TXBUF_FLUSH_MIN (PW_BURST / 4)

struct worker;

struct txbuf {
	uint16_t n;
	bool queued; /* in the worker's dirty list */
	struct rte_mbuf *pkts[TXBUF_SIZE];
};

/* Queues m for port out; sends the buffer when it is full. */
void txbuf_add(struct worker *w, const struct view *v, uint16_t out, struct rte_mbuf *m);
/* Sends every non-empty buffer. */
void txbuf_flush_all(struct worker *w, const struct view *v);
/* Sends the buffers holding at least TXBUF_FLUSH_MIN frames. */
void txbuf_flush_full(struct worker *w, const struct view *v);

/* Sends n frames to port idx now, counting tx and every drop (link_down,
 * tx_full, and what the kind's tx_prepare drops). */
void dp_port_send(struct worker *w, const struct view *v, uint16_t idx, struct rte_mbuf **pkts,
		  uint16_t n);

#endif
