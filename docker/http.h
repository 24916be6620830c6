/* SPDX-License-Identifier: BSD-3-Clause */
/* The protocol's HTTP server (libmicrohttpd) on a listening socket. */
#ifndef PODWIRE_DOCKER_HTTP_H
#define PODWIRE_DOCKER_HTTP_H

struct MHD_Daemon;

/* Serves the protocol on listen_fd from threads of its own; NULL when
 * libmicrohttpd cannot start (its reason is logged). */
struct MHD_Daemon *http_start(int listen_fd);
/* Stops serving and waits for the connection threads; accepts NULL. */
void http_stop(struct MHD_Daemon *d);

#endif
