/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output: a worker gathers the mbufs it forwards per destination port
 * and sends each port's in one burst (one vhost or ring call for many
 * frames); frames without mbufs go to a port that takes them straight
 * from the burst (they must be sent before their slots are released).
 * Every send goes through dp_port_send or dp_port_send_frames (tx.c):
 * the egress checks, capture as sent, tx with retries and the counters
 * are written there once. Every function here runs on a worker, on its
 * own buffers; frames passed in are owned by the callee from then on.
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
	bool ready;  /* in its ready list: reached TXBUF_FLUSH_MIN since the last look */
	struct rte_mbuf *pkts[TXBUF_SIZE];
};

/* Queues m for port out; sends the buffer when it is full. */
void txbuf_add(struct worker *w, const struct view *v, uint16_t out, struct rte_mbuf *m);
/* Sends every non-empty buffer. */
void txbuf_flush_all(struct worker *w, const struct view *v);
/* Sends the buffers holding at least TXBUF_FLUSH_MIN frames. It looks
 * only at those that reached it since it last ran (the ready list), not
 * at every dirty one: it runs after every rx burst, and with a burst
 * spread over many pods a walk of all the dirty buffers made the cost of
 * a burst grow with the number of pods. */
void txbuf_flush_full(struct worker *w, const struct view *v);

/* Sends n mbufs to port idx now, counting tx and every drop on idx
 * (link_down, mtu_exceeded, tx_full, and what the kind's tx_prepare
 * drops). At most TXBUF_SIZE. */
void dp_port_send(struct worker *w, const struct view *v, uint16_t idx, struct rte_mbuf **pkts,
		  uint16_t n);
/* The same for n frames without mbufs (strip[i]: without their VLAN
 * tag), to a port whose kind takes them (tx_frames); they are copied,
 * not taken. At most PW_BURST. */
void dp_port_send_frames(struct worker *w, const struct view *v, uint16_t idx, struct dp_frame **f,
			 uint8_t *strip, uint16_t n);

#endif
