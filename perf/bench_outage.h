/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-bench outages, in clock ticks and with no EAL: a pod that
 * re-opens its interface when the link goes down (bench_reopen), and
 * gaps in the traffic of one direction (bench_gap_rx).
 *
 * A resilient pod application (VPP, QEMU with reconnect) re-opens an
 * interface whose backend went away. DPDK 22.11's virtio-user as a
 * vhost-user client stays down once its server (podwired) dies; the
 * generator models the application by removing the device and probing
 * it again until the link is up, and closes and connects its own memif
 * clients (--memif) the same way. A virtio-user with server=1 reconnects
 * by itself: it is only watched.
 */
#ifndef PODWIRE_BENCH_OUTAGE_H
#define PODWIRE_BENCH_OUTAGE_H

#include <stdbool.h>
#include <stdint.h>

enum bench_reopen_state {
	BENCH_REOPEN_UP,      /* open, link up */
	BENCH_REOPEN_DOWN,    /* link seen down: left alone for a moment, then closed */
	BENCH_REOPEN_CLOSED,  /* device removed: open attempts, with backoff */
	BENCH_REOPEN_OPENING, /* opened and started: waiting for the link */
};

/* What the caller does next for one pod. */
enum bench_reopen_action {
	BENCH_REOPEN_NOTHING,
	BENCH_REOPEN_CHECK, /* read the link, report it with bench_reopen_link */
	BENCH_REOPEN_CLOSE, /* stop and remove the device, then bench_reopen_closed */
	BENCH_REOPEN_OPEN,  /* probe, set up and start it, report with bench_reopen_opened */
};

/* What bench_reopen_link saw. */
enum bench_reopen_event {
	BENCH_REOPEN_SAME,
	BENCH_REOPEN_WENT_DOWN,
	BENCH_REOPEN_CAME_UP,
};

struct bench_reopen_conf {
	uint64_t poll;	       /* link check interval */
	uint64_t quiet;	       /* link down to removal: no checks meanwhile (see .c) */
	uint64_t retry_min;    /* first interval between open attempts */
	uint64_t retry_max;    /* the interval doubles up to this */
	uint64_t open_timeout; /* opened, link still down: closed again after this */
};

struct bench_reopen {
	enum bench_reopen_state state;
	bool self;	       /* the driver reconnects by itself: never closed */
	uint64_t due;	       /* when the next action is due */
	uint64_t since;	       /* when the current state began */
	uint64_t down_at;      /* when this outage began (link seen down) */
	uint64_t retry;	       /* current interval between open attempts */
	unsigned int attempts; /* open attempts in this outage */
	uint64_t downs;	       /* outages seen */
	uint64_t reopens;      /* outages ended by re-opening the device */
	uint64_t opens;	       /* open attempts, all outages */
};

/* Starts r in BENCH_REOPEN_UP: the device was opened and started. */
void bench_reopen_init(struct bench_reopen *r, bool self, uint64_t now);

/* The action due at now for r (BENCH_REOPEN_NOTHING while none is). */
enum bench_reopen_action bench_reopen_next(const struct bench_reopen *r, uint64_t now);

/* After BENCH_REOPEN_CHECK: the link is up or not. */
enum bench_reopen_event bench_reopen_link(struct bench_reopen *r, const struct bench_reopen_conf *c,
					  uint64_t now, bool up);

/* After BENCH_REOPEN_CLOSE: the device is gone; an attempt to open it is due at once. */
void bench_reopen_closed(struct bench_reopen *r, const struct bench_reopen_conf *c, uint64_t now);

/* After BENCH_REOPEN_OPEN: ok when the device was probed and started
 * (the link may come later), else it is closed again and the next
 * attempt waits the retry interval, which doubles up to retry_max. */
void bench_reopen_opened(struct bench_reopen *r, const struct bench_reopen_conf *c, uint64_t now,
			 bool ok);

/*
 * One direction's receive gaps: *last is the time of its last frame (0:
 * none yet). Called for each frame received at now; returns true when the
 * time since the previous frame exceeds threshold, the gap then being
 * (*from, now).
 */
static inline bool bench_gap_rx(uint64_t *last, uint64_t now, uint64_t threshold, uint64_t *from)
{
	uint64_t prev = *last;

	*last = now;
	if (prev == 0 || now - prev <= threshold)
		return false;
	*from = prev;
	return true;
}

#endif
