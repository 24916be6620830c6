/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client library for the podwired API, used by podwirectl, the CNI plugin
 * and the Docker driver. Blocking, one request at a time per connection.
 */
#ifndef PODWIRE_CLIENT_H
#define PODWIRE_CLIENT_H

#include <cjson/cJSON.h>

struct pw_client;

/* Error of the last failed call: a JSON-RPC error from the daemon, or a
 * transport error (code 0) with errno-style text. */
struct pw_error {
	int code;
	char message[1024];
	char field[64];
};

/* Connects to the daemon's socket and checks its API version (system.info):
 * a newer major version is refused with API_ERR_VERSION. Returns NULL and
 * fills err on failure (e.g. "cannot connect to podwired at PATH: No such
 * file or directory; is podwired running?"). timeout_ms bounds each call
 * (0: no limit). */
struct pw_client *pw_client_connect(const char *path, int timeout_ms, struct pw_error *err);
void pw_client_close(struct pw_client *c);

/*
 * Calls a method. params is consumed (may be NULL). On success returns 0 and
 * *result owns the "result" member (caller frees). On failure returns -1 and
 * fills err; *result is NULL.
 */
int pw_client_call(struct pw_client *c, const char *method, cJSON *params, cJSON **result,
		   struct pw_error *err);

/*
 * After a method whose answer is followed by a stream on the same
 * connection (capture.start): returns the socket, which the caller now
 * owns, and hands over the bytes received after the answer (*rest,
 * malloc'd, NULL when none). c is freed. -1 when the connection failed.
 */
int pw_client_take_stream(struct pw_client *c, char **rest, size_t *len);

#endif
