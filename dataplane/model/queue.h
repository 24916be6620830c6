/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rx queues on workers. Every (port, rx queue) is polled by exactly one
 * worker. A new queue goes where the measured load is lowest; `queue pin`
 * fixes one; the balancer (as OVS's pmd-auto-lb) moves unpinned queues
 * when one worker is busy and a new placement would narrow the gap
 * between the busiest and the idlest worker enough. Loads are the busy
 * cycles the workers measured per queue (datapath/stats.h), over the
 * balancer's interval, kept in PORT_RXQ_CHUNKS chunks so they slide.
 * Control thread only.
 */
#ifndef PODWIRE_MODEL_QUEUE_H
#define PODWIRE_MODEL_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/port.h"

struct queue_balance {
	bool on;
	uint32_t interval_s;	  /* between checks */
	uint32_t threshold_pct;	  /* the busiest worker must be this busy */
	uint32_t improvement_pct; /* and the gap must shrink by this share */
};

/* The balancer's settings (from the options at start-up, then the API). */
extern struct queue_balance queue_balance_cfg;

/* What the last check found, for `queue balance` and the log. */
struct queue_balance_result {
	uint64_t checks, moves; /* checks run, and those that moved queues */
	uint64_t last_moved;	/* queues the last move moved */
	char last[640];		/* one line: what the last check decided and why */
};
extern struct queue_balance_result queue_balance_last;

/* Places p's rx queues (port_create, before its first view): pinned ones
 * on their worker, the others spread over the least loaded workers. */
void queue_place_port(struct port *p);

/* The queues of p, whether p's kind changed which are enabled. */
uint16_t queue_enabled(const struct port *p);

/* Busy cycles of queue q of p over the last interval, and its frames. */
uint64_t queue_load(const struct port *p, uint16_t q);
uint64_t queue_packets(const struct port *p, uint16_t q);
/* The interval the loads cover, in seconds (as much as has passed). */
double queue_window_s(void);

/* Pins queue q of p on worker w (-1: unpins; the queue stays where it is
 * until the balancer moves it). Publishes a new view when it moves.
 * 0 or -ENOMEM (nothing changed). */
int queue_pin(struct port *p, uint16_t q, int w);

/* The interval changed: loads are measured afresh at its length. */
void queue_balance_restart(void);

/* Runs a balancer check now, whatever the interval; true when it moved
 * queues. */
bool queue_balance_now(void);

/* Housekeeping tick: publishes a view when a kind enabled or disabled
 * queues, rolls the load chunks, and runs the balancer every interval. */
void queue_tick(void);

#endif
