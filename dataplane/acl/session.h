/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * permit+reflect sessions: the flows a reflect rule permitted, so that
 * their replies are let back without consulting the list of the other
 * direction. One table per worker: the worker that records a session owns
 * it and is its only writer; every worker looks up every table without a
 * lock (the reply usually arrives on the worker polling the other pod).
 * How, and why so: session.c's header comment.
 *
 * Sessions end when idle for their protocol's timeout (TCP, UDP, other),
 * counted from the last frame either way; an ended session's slot is
 * reused by its owner when it records a new one, so workers run no sweep.
 * ICMP and ICMPv6 (protocols 1 and 58) sessions are per protocol and
 * address pair: their ports (identifier, type) are not part of the key.
 */
#ifndef PODWIRE_ACL_SESSION_H
#define PODWIRE_ACL_SESSION_H

#include <stdbool.h>
#include <stdint.h>

/* Sessions per worker unless the daemon says otherwise. */
#define ACL_SESSIONS_DEFAULT_MAX 131072u
/* The most acl_sessions_init takes per worker (80 bytes each). */
#define ACL_SESSIONS_MAX (1u << 24)
/* Idle timeouts in seconds unless acl_session_timeouts says otherwise. */
#define ACL_SESSION_TCP_S   3600u
#define ACL_SESSION_UDP_S   120u
#define ACL_SESSION_OTHER_S 60u

/* The most flows a bulk call takes. */
#define ACL_SESSION_BULK 64

/* acl_flow.dir: where on the port the frame was seen. */
enum acl_session_dir {
	ACL_SESSION_INGRESS = 0, /* received from the port's pod */
	ACL_SESSION_EGRESS = 1,	 /* sent to it (any value but 0 reads as egress) */
};

/* A frame's own flow. v4: the first 4 bytes of src and dst (the others are
 * ignored). Ports in host order. */
struct acl_flow {
	uint8_t v6, proto;
	uint16_t port;
	uint8_t dir;
	uint16_t sport, dport; /* host order */
	uint8_t src[16], dst[16];
};

/* Makes the tables: n_workers of them (1 .. PW_MAX_WORKERS), each bounded
 * to max_per_worker sessions (0: ACL_SESSIONS_DEFAULT_MAX). Memory is
 * reserved, not touched: a table costs pages as sessions fill it. The
 * hash is seeded from the kernel's randomness. Timeouts are reset to the
 * defaults. Control thread, before the workers run. 0, -EINVAL (logged:
 * a count out of range), -ENOMEM. */
int acl_sessions_init(unsigned int n_workers, uint32_t max_per_worker);
/* Frees the tables; workers must be stopped. Safe when not made. */
void acl_sessions_fini(void);

/* Worker w records f (the frame's own flow, as permitted on port f->port
 * in direction f->dir), or refreshes it if recorded. Worker w only. 0, or
 * -ENOSPC when it cannot (the table or the flow's buckets are full of live
 * sessions: counted in `full`). */
int acl_session_add(unsigned int w, const struct acl_flow *f, uint64_t now_tsc);
/* The same for n flows (at most ACL_SESSION_BULK), in their order, their
 * memory fetched together; bit i of the result set when f[i] was refused.
 * A burst's flows cost about a third of one by one (perf/session_cost.c). */
uint64_t acl_session_add_bulk(unsigned int w, const struct acl_flow *const f[], unsigned int n,
			      uint64_t now_tsc);

/* Whether f (a frame's own flow, seen on f->port in direction f->dir) is
 * the REPLY of a recorded session (its reverse was recorded on the same
 * port in the opposite direction), in any worker's table; refreshes it.
 * Any worker (w: the caller's, whose table is tried first); lock-free. */
bool acl_session_reply(unsigned int w, const struct acl_flow *f, uint64_t now_tsc);

/* The same for n flows (at most ACL_SESSION_BULK) at once, their memory
 * fetched together: bit i of *hits set when f[i] is a reply. */
void acl_session_reply_bulk(unsigned int w, const struct acl_flow *const f[], unsigned int n,
			    uint64_t now_tsc, uint64_t *hits);

/* Idle timeouts in seconds (0 is taken as 1); they apply at once to every
 * session, recorded or not. Control thread, any time. */
void acl_session_timeouts(uint32_t tcp_s, uint32_t udp_s, uint32_t other_s);

struct acl_session_stats {
	uint64_t live;	  /* sessions not yet idle past their timeout */
	uint64_t created; /* ever recorded (a recorded flow seen again is not new) */
	uint64_t expired; /* ended: idle past their timeout, or their port deleted */
	uint64_t full;	  /* not recorded: no room */
};
/* Worker w's counters, as of the TSC now. Control thread: it scans the
 * table (about 1 ms per 100,000 sessions), so not per frame. */
void acl_sessions_stats(unsigned int w, struct acl_session_stats *out);
/* The same as of a given TSC (tests with their own clock). */
void acl_sessions_stats_at(unsigned int w, uint64_t now_tsc, struct acl_session_stats *out);

/* Ends every session recorded on port (its index). Control thread, when a
 * port goes, after view_wait: no worker still handles the port's frames,
 * and the index's next port starts with none. */
void acl_sessions_flush_port(uint16_t port);

/* The TSC frequency timeouts are counted in; acl_sessions_init takes
 * rte_get_tsc_hz() (or measures it without EAL). Tests with a fake clock
 * set theirs after acl_sessions_init. Control thread. */
void acl_sessions_clock(uint64_t tsc_hz);

#endif
