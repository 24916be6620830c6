/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Files, shared by podwired and its clients (the CNI plugin, podwire-vdev,
 * the Docker driver): whole-file reads, JSON documents read strictly and
 * written atomically and durably, mkdir -p. One copy, so the state file,
 * the VF pool file and the CNI plugin's records survive a crash alike.
 */
#ifndef PODWIRE_FILES_H
#define PODWIRE_FILES_H

#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

/* Reads a whole file (at most max bytes) into a NUL-terminated buffer the
 * caller frees. Returns 0, or -errno (-EFBIG when longer than max). */
int file_read(const char *path, size_t max, char **buf, size_t *len);

/*
 * Reads one JSON document of at most max bytes from a regular file.
 * Returns 0 and *doc (caller frees), or -ENOENT, -EISDIR, -EFBIG, -EIO, or
 * -EBADMSG (not JSON, or bytes after the document), with a message naming
 * the path in msg for the caller to prefix.
 */
int json_file_read(const char *path, size_t max, cJSON **doc, char *msg, size_t len);

/* json_file_read of at most 1 MiB without a message: 0, -ENOENT, or
 * another -errno (-EBADMSG for a damaged file). */
int file_read_json(const char *path, cJSON **doc);

/*
 * Writes doc to path so that readers, and a machine that loses power, see
 * the old file or the new one, never a part: a temporary file in the same
 * directory, written, given mode and group (gid, or (gid_t)-1 to keep the
 * default), fsync'd, renamed over path, and the directory fsync'd.
 * Returns 0 or -errno with msg naming the path and the fix.
 */
int json_file_write(const char *path, const cJSON *doc, mode_t mode, gid_t gid, char *msg,
		    size_t len);

/* mkdir -p: creates path and its missing parents with mode. 0 or -errno. */
int mkdir_parents(const char *path, mode_t mode);

/* dir/name variants for podwired's own files (mode 0600); messages start
 * with "state: " and say what to do with a damaged file. */
int state_file_write(const char *dir, const char *name, const cJSON *doc, char *msg, size_t len);
int state_file_read(const char *dir, const char *name, cJSON **doc, char *msg, size_t len);

#endif
