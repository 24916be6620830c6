/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DEL, and the teardown it shares with ADD's rollback and GC. DEL succeeds
 * whatever is already gone: the pod, its netns, the port, podwired itself.
 * What needs podwired and cannot have it now is left as a pending entry
 * that the next verb reaching podwired completes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cni.h"
#include "devinfo.h"
#include "ipam.h"
#include "kernel.h"
#include "podwired_client.h"
#include "vf.h"

int attach_teardown(const struct cni_call *call, struct attach *a, struct pw_client *pw,
		    const char *ipam_type, const char *ipam_conf, size_t ipam_len,
		    struct cni_error *err)
{
	const char *data_dir = call->conf->data_dir;
	struct cni_error perr;
	char owner[VF_OWNER_MAX];
	int rc;

	vf_owner(a->containerid, a->ifname, owner);
	if (a->iftype == IFTYPE_PCI)
		rc = pw == NULL ? -1 : vf_release(pw, owner, &perr);
	else
		rc = pw == NULL
			 ? -1
			 : podwired_port_delete(pw, a->port, a->socket, a->host_iface, &perr);
	/* The pod's own lists ("acl") go with its port; a record written
	 * before "acl" existed, or without one, made none. When the port
	 * stays (pending), so do its lists, until GC. */
	if (rc == 0 && a->iftype != IFTYPE_PCI &&
	    (a->conf == NULL || cJSON_GetObjectItemCaseSensitive(a->conf, "acl") != NULL) &&
	    podwired_acl_remove(pw, a->port, &perr) != 0)
		fprintf(stderr, "podwire: the access lists of port %s stay in podwired: %s\n",
			a->port, perr.msg);
	if (rc != 0) {
		/* Not fatal: the pod is gone and podwired drops the port (or
		 * takes the VF back) later. */
		if (pending_add(data_dir, a, &perr) != 0)
			fprintf(stderr, "podwire: %s %s stays in podwired: %s\n",
				a->iftype == IFTYPE_PCI ? "the VF of" : "port",
				a->iftype == IFTYPE_PCI ? owner : a->port, perr.msg);
	}
	/* Deleting the port deleted the pair, wherever its ends were; when
	 * podwired could not, the pod's end goes now and the host end with
	 * it (podwired's port then says "gone" until the pending entry
	 * deletes it). */
	if (a->iftype == IFTYPE_KERNEL)
		kernel_remove(a);
	devinfo_remove(a);
	if (attach_dir_remove(a->dir) != 0)
		fprintf(stderr, "podwire: %s holds files podwire did not make; left in place\n",
			a->dir);
	if (ipam_type != NULL && ipam_type[0] != '\0') {
		struct ipam_call ic = {
		    .type = ipam_type,
		    .cni_path = call->env->path,
		    .command = "DEL",
		    .containerid = a->containerid,
		    .netns = a->netns[0] ? a->netns : NULL,
		    .ifname = a->ifname,
		    .args = a->args,
		    .config = ipam_conf,
		    .config_len = ipam_len,
		    .cache_dir = data_dir,
		};

		if (ipam_exec(&ic, NULL, err) != 0)
			return -1;
	}
	record_remove(data_dir, a->slot);
	return 0;
}

int cmd_del(const struct cni_call *call, struct cni_error *err)
{
	const struct netconf *c = call->conf;
	const struct cni_env *env = call->env;
	struct pw_client *pw = NULL;
	struct cni_error ignored;
	struct attach a;
	int lock, found, rc = 0;

	found = record_find(c->data_dir, env->containerid, env->ifname, false, &a, &lock, err);
	if (found < 0)
		return -1;
	pw = podwired_connect(found ? a.podwired : c->podwired_socket, c->timeout_ms, &ignored);
	if (pw != NULL)
		pending_reconcile(c->data_dir, pw, found ? a.podwired : c->podwired_socket,
				  found ? (int64_t)a.slot : -1);
	if (found) {
		char *text = NULL;
		const char *type = c->ipam_type, *conf = call->raw;
		size_t len = call->raw_len;

		/* The spec hands IPAM DEL's own config; an ADD done with IPAM is
		 * still released when DEL's config has lost it. */
		if (c->ipam == NULL && a.ipam_type[0] != '\0' && a.conf != NULL) {
			text = cJSON_PrintUnformatted(a.conf);
			type = a.ipam_type;
			conf = text;
			len = text ? strlen(text) : 0;
		} else if (c->ipam == NULL) {
			type = "";
		}
		rc = attach_teardown(call, &a, pw, type, conf, len, err);
		cJSON_Delete(a.conf);
		free(text);
		record_unlock(c->data_dir, a.slot, lock, rc == 0);
	} else {
		if (c->iftype == IFTYPE_PCI && pw != NULL) {
			/* No record, yet podwired may still lend this attachment a
			 * VF (dataDir lost with the node's disk, or emptied by
			 * hand); releasing nothing is success. */
			char owner[VF_OWNER_MAX];

			vf_owner(env->containerid, env->ifname, owner);
			vf_release(pw, owner, &ignored);
		}
		if (c->ipam != NULL) {
			/* No record (never added, or deleted already): IPAM DEL is
			 * idempotent, and releases an address an interrupted ADD
			 * took. */
			struct ipam_call ic = cni_ipam_call(call, "DEL");

			rc = ipam_exec(&ic, NULL, err);
		}
	}
	/* No record, no file of podwire's: the DEL's CNIDeviceInfoFile is
	 * someone else's (or podwire's, removed with its record above). */
	pw_client_close(pw);
	return rc;
}
