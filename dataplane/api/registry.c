/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/registry.h"
#include "core/notify.h"

static struct {
	api_handler_fn fn;
	const char *where;
	unsigned int count;
	const char *second; /* where a second registration came from */
} handlers[API_METHOD_COUNT];

void api_register(enum api_method m, api_handler_fn fn, const char *where)
{
	if ((unsigned int)m >= API_METHOD_COUNT)
		return;
	if (handlers[m].count++ == 0) {
		handlers[m].fn = fn;
		handlers[m].where = where;
	} else if (handlers[m].second == NULL) {
		handlers[m].second = where;
	}
}

void api_unregister(enum api_method m)
{
	if ((unsigned int)m < API_METHOD_COUNT)
		memset(&handlers[m], 0, sizeof(handlers[m]));
}

api_handler_fn api_handler(enum api_method m)
{
	return (unsigned int)m < API_METHOD_COUNT && handlers[m].count == 1 ? handlers[m].fn : NULL;
}

int api_registry_check(char *msg, size_t len)
{
	for (int m = 0; m < API_METHOD_COUNT; m++) {
		if (handlers[m].count == 0) {
			snprintf(msg, len,
				 "API method %s (declared in control/api.h) has no handler; "
				 "register one with API_HANDLER in the module that owns it",
				 api_methods[m].name);
			return -EINVAL;
		}
		if (handlers[m].count > 1) {
			snprintf(msg, len, "API method %s has %u handlers (%s, %s); keep one",
				 api_methods[m].name, handlers[m].count, handlers[m].where,
				 handlers[m].second);
			return -EINVAL;
		}
	}
	return 0;
}

cJSON *api_fail(struct api_err *err, int code, const char *field, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	err->field = field;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return NULL;
}

cJSON *api_refuse(struct api_err *err, int code, const char *field)
{
	err->code = code;
	err->field = field;
	return NULL;
}

void api_after_request(void)
{
	notify_publish(NOTIFY_API_REQUEST_DONE, NULL);
}
