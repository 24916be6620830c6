/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * permit+reflect sessions (the interface of issue 25's design; the
 * session helper's session.c implements it, and may replace this header
 * with its own, of the same declarations). Sessions are per worker: the
 * worker that made one is its only writer; any worker looks up any
 * worker's table.
 */
#ifndef PODWIRE_ACL_SESSION_H
#define PODWIRE_ACL_SESSION_H

#include <stdbool.h>
#include <stdint.h>

struct acl_flow {
	uint8_t v6, proto;
	uint16_t port;
	uint8_t dir;
	uint16_t sport, dport;	  /* host order */
	uint8_t src[16], dst[16]; /* v4: first 4 bytes, rest zero */
};

int acl_sessions_init(unsigned int n_workers, uint32_t max_per_worker);
void acl_sessions_fini(void);
/* Worker w records f (the frame's own flow, as permitted on port f->port
 * in direction f->dir). */
int acl_session_add(unsigned int w, const struct acl_flow *f, uint64_t now_tsc);
/* Whether f (a frame's own flow, seen on f->port in direction f->dir) is
 * the REPLY of a recorded session (its reverse was recorded on the same
 * port in the opposite direction), in any worker's table; refreshes it. */
bool acl_session_reply(unsigned int w, const struct acl_flow *f, uint64_t now_tsc);
void acl_session_timeouts(uint32_t tcp_s, uint32_t udp_s, uint32_t other_s);
struct acl_session_stats {
	uint64_t live, created, expired, full;
};
void acl_sessions_stats(unsigned int w, struct acl_session_stats *out); /* control thread */
/* Control thread, when a port goes: after view_wait. */
void acl_sessions_flush_port(uint16_t port);

#endif
