/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs of the podwire CNI plugin. Each runs once per process, gets
 * the parsed environment and config plus the raw config (handed unchanged
 * to the IPAM plugin), and returns 0 or -1 with err filled.
 */
#ifndef PODWIRE_CNI_H
#define PODWIRE_CNI_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "client.h"
#include "errors.h"
#include "ipam.h"
#include "netconf.h"
#include "record.h"

struct cni_call {
	const struct cni_env *env;
	const struct netconf *conf;
	const char *raw; /* the config as read from stdin */
	size_t raw_len;
};

/* The IPAM call for this CNI call's own attachment, config and command. */
static inline struct ipam_call cni_ipam_call(const struct cni_call *call, const char *command)
{
	const struct netconf *c = call->conf;
	const struct cni_env *env = call->env;
	struct ipam_call ic = {
	    .type = c->ipam_type,
	    .cni_path = env->path,
	    .command = command,
	    .containerid = env->containerid,
	    .netns = env->netns,
	    .ifname = env->ifname,
	    .args = env->args,
	    .config = call->raw,
	    .config_len = call->raw_len,
	    .cache_dir = c->data_dir,
	};

	return ic;
}

/* ADD: on success *result is the result shaped for the config's version. */
int cmd_add(const struct cni_call *call, cJSON **result, struct cni_error *err);
int cmd_del(const struct cni_call *call, struct cni_error *err);
int cmd_check(const struct cni_call *call, struct cni_error *err);
int cmd_status(const struct cni_call *call, struct cni_error *err);
int cmd_gc(const struct cni_call *call, struct cni_error *err);

/*
 * Undoes an attachment whose slot the caller holds: its podwired port
 * (or a pending entry when podwired cannot be reached: pw NULL or
 * failing), its files, then its IP (IPAM DEL with ipam_conf, a config
 * text, when ipam_type is not ""), then its record. Returns 0, or -1 when
 * IPAM DEL failed; the record then stays so that DEL can be retried.
 */
int attach_teardown(const struct cni_call *call, struct attach *a, struct pw_client *pw,
		    const char *ipam_type, const char *ipam_conf, size_t ipam_len,
		    struct cni_error *err);

#endif
