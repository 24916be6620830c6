/* SPDX-License-Identifier: BSD-3-Clause */
/* podwire-nri's request (NRI v0.1, JSON on stdin), parsed and checked. */
#ifndef PODWIRE_NRI_REQUEST_H
#define PODWIRE_NRI_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "nri/cpuset.h"

#define PLUGIN		 "podwire-nri"
#define ANNOTATION_CORES "podwire.io/cores"
#define DEFAULT_STATE	 "/run/podwire/nri"

struct nri_req {
	const cJSON *doc;
	const char *version, *state, *id, *sandbox;
	int pid;
	const cJSON *spec, *annotations;
	const char *socket, *state_dir, *cg_root, *proc_root;
};

/* Fills r from doc (r points into doc). 0, or -EINVAL with msg saying
 * which field is wrong and how. */
int nri_request_parse(const cJSON *doc, struct nri_req *r, char *msg, size_t len);

/* The CPUs the container asked for in its OCI resources: *set false when
 * none. 0, or -EINVAL with msg. */
int nri_request_cpus(const struct nri_req *r, struct cpuset *s, bool *set, char *msg, size_t len);

#endif
