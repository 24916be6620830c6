/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPAM delegation as the CNI spec prescribes: the plugin named by
 * ipam.type is looked up in CNI_PATH and executed with the CNI_* variables
 * and the whole network config on stdin; it answers on stdout.
 */
#ifndef PODWIRE_CNI_IPAM_H
#define PODWIRE_CNI_IPAM_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "errors.h"

struct ipam_call {
	const char *type;     /* ipam.type */
	const char *cni_path; /* CNI_PATH */
	const char *command;  /* ADD, DEL, CHECK, GC, STATUS, VERSION */
	/* CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME, CNI_ARGS; NULL leaves the
	 * variable out */
	const char *containerid, *netns, *ifname, *args;
	const char *config; /* stdin */
	size_t config_len;
	const char *cache_dir; /* where the plugin's versions are remembered, or NULL */
};

/* Finds the plugin in CNI_PATH. 0 with path filled, or -1 naming the
 * directories searched. */
int ipam_find(const char *type, const char *cni_path, char *path, size_t len,
	      struct cni_error *err);

/*
 * Runs the plugin. On success returns 0 and, when result is not NULL, the
 * parsed stdout (NULL if it printed nothing). On failure returns -1 with
 * the plugin's error passed on: its code when it is one of the spec's
 * well-known codes, else PW_ERR_IPAM. A plugin that does not speak the
 * config's version is given the config in the newest version it does.
 */
int ipam_exec(const struct ipam_call *call, cJSON **result, struct cni_error *err);

/* Whether the plugin's VERSION lists version (false when it cannot say). */
bool ipam_supports(const char *type, const char *cni_path, const char *version);

#endif
