/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which function answers which API method. Each module registers its own
 * handlers where it lives, with one line per method:
 *
 *     API_HANDLER(PORT_CREATE, h_port_create);
 *
 * and start-up checks (api_registry_check) that every method declared in
 * control/api.h has exactly one handler, so none is ever called through
 * NULL and none is silently replaced. No DPDK here: sriov/ uses it too.
 */
#ifndef PODWIRE_API_REGISTRY_H
#define PODWIRE_API_REGISTRY_H

#include <stdarg.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "api.h"

/* Why a method refused: an API error code, the field at fault (or NULL)
 * and a message naming the object and the fix. */
struct api_err {
	int code;
	const char *field;
	char msg[1024];
};

/* A method implementation, run on the control thread. Returns the result
 * object, or NULL with err filled. */
typedef cJSON *(*api_handler_fn)(const cJSON *params, struct api_err *err);

/* Fills err and returns NULL, for `return api_fail(err, ...);`. */
cJSON *api_fail(struct api_err *err, int code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Sets code and field, keeping the message already in err->msg (written
 * by a validator); returns NULL. */
cJSON *api_refuse(struct api_err *err, int code, const char *field);

/* Records fn for method m; where is the registering file, for messages. */
void api_register(enum api_method m, api_handler_fn fn, const char *where);

/* Forgets m's handlers: for tests of the start-up check. */
void api_unregister(enum api_method m);

#define API_HANDLER(method, fn)                                                                    \
	static void __attribute__((constructor)) api_register_##fn(void)                           \
	{                                                                                          \
		api_register(API_M_##method, fn, __FILE__);                                        \
	}

/* For the server: after every request's handler, success or not, before
 * the answer is sent. Publishes NOTIFY_API_REQUEST_DONE (core/notify.h)
 * for what mirrors the model, e.g. the CDI spec files, so that a client
 * reading them after an answer sees them current and a refused request
 * (rolled back) leaves them as they were. */
void api_after_request(void);

/* The handler of m, NULL when none is registered. */
api_handler_fn api_handler(enum api_method m);

/* 0 when every method has exactly one handler; else -EINVAL with msg
 * naming the first method with none or with two (and their files). */
int api_registry_check(char *msg, size_t len);

#endif
