/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * struct port_conf from and to JSON: the one parser used for API requests
 * and for the state file, so both accept exactly the same things.
 */
#ifndef PODWIRE_PORT_CONF_H
#define PODWIRE_PORT_CONF_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "model/port.h"

/*
 * Fills c from a port.create object, validating every field (name, type
 * among known_types, socket, mode, mac, mtu, secret). A missing MAC is
 * generated (locally administered). check_dirs: also require the socket
 * directory to exist (and be writable for server mode).
 * Returns 0, or an API error code with msg and *field set.
 */
int port_conf_parse(const cJSON *obj, const char *const known_types[], bool check_dirs,
		    struct port_conf *c, char *msg, size_t len, const char **field);

/* The persistent fields of c as a JSON object (secret included). */
cJSON *port_conf_to_json(const struct port_conf *c, bool with_secret);

/* Writes doc to dir/name atomically: temp file, fsync, rename, fsync dir.
 * Mode 0600. Returns 0 or -errno with msg. */
int state_file_write(const char *dir, const char *name, const cJSON *doc, char *msg, size_t len);
/* Reads a JSON document of at most max bytes from path. Returns 0 and
 * *doc, or -ENOENT, -EISDIR, -EFBIG, -EIO, -EBADMSG (not JSON, or bytes
 * after the document) with a message naming path, for the caller to prefix. */
int json_file_read(const char *path, size_t max, cJSON **doc, char *msg, size_t len);

/* Reads dir/name. Returns 0 and *doc, -ENOENT when absent, or another
 * -errno with msg (e.g. not JSON). */
int state_file_read(const char *dir, const char *name, cJSON **doc, char *msg, size_t len);

#endif
