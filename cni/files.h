/* SPDX-License-Identifier: BSD-3-Clause */
/* Small file helpers of the CNI plugin: whole-file reads, atomic writes. */
#ifndef PODWIRE_CNI_FILES_H
#define PODWIRE_CNI_FILES_H

#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "errors.h"

/* Reads a whole file (at most max bytes) into a NUL-terminated buffer the
 * caller frees. Returns 0, or -errno (-EFBIG when longer than max). */
int file_read(const char *path, size_t max, char **buf, size_t *len);

/* Parses a JSON file: 0 with *doc, -ENOENT, or another -errno (-EINVAL
 * for bad JSON). */
int file_read_json(const char *path, cJSON **doc);

/*
 * Writes doc to path through a temporary file and rename(), so readers see
 * the old file or the new one, never a part. mode and group (gid, or
 * (gid_t)-1 to keep the default) apply to the new file. Returns 0 or -1
 * with err filled (PW_ERR_FILES) naming the path.
 */
int file_write_json(const char *path, const cJSON *doc, mode_t mode, gid_t gid,
		    struct cni_error *err);

/* mkdir -p with mode for the directories it creates. 0 or -errno. */
int mkdir_parents(const char *path, mode_t mode);

#endif
