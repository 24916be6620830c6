/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Built only while acl/session.c (permit+reflect sessions, written beside
 * this module) is not in the tree (dataplane/acl/meson.build): no session
 * is ever recorded, so permit+reflect acts as permit and no reply is let
 * in by a session. Delete this file once session.c is merged.
 */
#include <errno.h>
#include <string.h>

#include "acl/session.h"

int acl_sessions_init(unsigned int n_workers, uint32_t max_per_worker)
{
	(void)n_workers, (void)max_per_worker;
	return 0;
}

void acl_sessions_fini(void)
{
}

int acl_session_add(unsigned int w, const struct acl_flow *f, uint64_t now_tsc)
{
	(void)w, (void)f, (void)now_tsc;
	return -ENOTSUP;
}

bool acl_session_reply(unsigned int w, const struct acl_flow *f, uint64_t now_tsc)
{
	(void)w, (void)f, (void)now_tsc;
	return false;
}

void acl_session_timeouts(uint32_t tcp_s, uint32_t udp_s, uint32_t other_s)
{
	(void)tcp_s, (void)udp_s, (void)other_s;
}

void acl_sessions_stats(unsigned int w, struct acl_session_stats *out)
{
	(void)w;
	memset(out, 0, sizeof(*out));
}

void acl_sessions_flush_port(uint16_t port)
{
	(void)port;
}
