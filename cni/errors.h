/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Errors of the podwire CNI plugin. A failed verb prints one CNI error
 * object on stdout ({"cniVersion","code","msg","details"}) and exits 1.
 * Codes below 100 are the CNI specification's well-known ones; 100 and up
 * are podwire's own. Functions of the plugin return 0, or -1 after filling
 * a struct cni_error, because the caller must pass a CNI code on, which a
 * negative errno cannot carry.
 */
#ifndef PODWIRE_CNI_ERRORS_H
#define PODWIRE_CNI_ERRORS_H

#include <sys/types.h>

#include <cjson/cJSON.h>

enum cni_code {
	CNI_ERR_VERSION = 1,	  /* incompatible CNI version */
	CNI_ERR_FIELD = 2,	  /* unsupported field in the network config */
	CNI_ERR_CONTAINER = 3,	  /* container unknown or does not exist */
	CNI_ERR_ENV = 4,	  /* invalid or missing CNI_* variable */
	CNI_ERR_IO = 5,		  /* I/O failure */
	CNI_ERR_DECODE = 6,	  /* stdin is not JSON */
	CNI_ERR_CONFIG = 7,	  /* invalid network config */
	CNI_ERR_TRY_AGAIN = 11,	  /* podwired unreachable, not ready or busy */
	CNI_ERR_UNAVAILABLE = 50, /* STATUS: the plugin cannot serve ADD */
	PW_ERR_PODWIRED = 100,	  /* podwired refused a request */
	PW_ERR_IPAM = 101,	  /* the IPAM plugin is missing or failed */
	PW_ERR_FILES = 102,	  /* an attachment directory or file could not be made */
	PW_ERR_CHECK = 103,	  /* CHECK found a missing or wrong piece */
	PW_ERR_SLOTS = 104,	  /* too many attachments share one hash */
};

struct cni_error {
	int code;
	char msg[2048];
	char details[1024];
};

/* Fills err (code and message) and returns -1, so callers can
 * `return cni_fail(err, CNI_ERR_CONFIG, "...")`. */
int cni_fail(struct cni_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* json_file_write (control/files.h), failing as PW_ERR_FILES with its
 * message. */
int cni_write_json(const char *path, const cJSON *doc, mode_t mode, gid_t gid,
		   struct cni_error *err);

#endif
