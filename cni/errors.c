/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>

#include <limits.h>

#include "errors.h"
#include "files.h"

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

int cni_write_json(const char *path, const cJSON *doc, mode_t mode, gid_t gid,
		   struct cni_error *err)
{
	char msg[PATH_MAX + 256];

	if (json_file_write(path, doc, mode, gid, msg, sizeof(msg)) == 0)
		return 0;
	return cni_fail(err, PW_ERR_FILES, "%s", msg);
}
