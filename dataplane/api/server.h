/* SPDX-License-Identifier: BSD-3-Clause */
/* The unix-socket JSON-RPC server, run from the control thread's loop. */
#ifndef PODWIRE_API_SERVER_H
#define PODWIRE_API_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "api.h"

/* Clients beyond this many: the one idle longest makes room for a new
 * one (an idle connection holds nothing), so idle connections cannot shut
 * others out. The API socket is root's and its group's only. */
#define API_SERVER_CLIENTS_MAX 4096

/* Binds path (mode 0660, group gid when not -1) and watches it and each
 * client in the control loop (core/loop.h): a client closed is freed with
 * its watch, after the batch that may still hold events for it. Control
 * thread, after loop_init. */
int api_server_open(const char *path, gid_t gid);
void api_server_close(void);
/* Ends clients whose request stays unfinished too long; the control loop
 * calls it once per turn, under ctl_lock. */
void api_server_housekeeping(void);
/* Handles one request line; returns the response line (malloc'd). For
 * tests and for the server itself. */
char *api_server_handle_line(const char *line, size_t len);

/*
 * For a handler whose connection becomes a stream after its answer
 * (capture.start): once the answer is queued, the server stops reading
 * requests from the connection, forgets it and calls fn with its socket
 * (non-blocking; fn owns it from then on) and the bytes of the answer not
 * yet sent, which fn must send first. Returns -ENOTCONN when the request
 * did not come from a connection (api_server_handle_line called directly):
 * the handler then refuses it.
 */
typedef void (*api_takeover_fn)(void *arg, int fd, const char *unsent, size_t len);
int api_server_take_connection(api_takeover_fn fn, void *arg);
/* Undoes api_server_take_connection, for a handler that fails after it. */
void api_server_keep_connection(void);

#endif
