/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>

#include "errors.h"

int cni_fail(struct cni_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	err->details[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}
