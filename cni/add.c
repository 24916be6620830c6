/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ADD: record, directory, port (iftype pci: a VF lent by podwired) and its
 * access lists, IP,
 * podwire.json, device-info, in that order, each undone in reverse when a
 * later one fails. The record comes first so that a crash at any point
 * leaves something DEL and GC can find.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cni.h"
#include "devinfo.h"
#include "files.h"
#include "ipam.h"
#include "kernel.h"
#include "podwired_client.h"
#include "result.h"
#include "vf.h"

/* The pod's directory: readable by root and socketGroup only; writable by
 * the group too when the pod must create its socket there. */
static int make_dir(const struct netconf *c, const struct attach *a, struct cni_error *err)
{
	mode_t mode = a->pod_creates_socket ? 0770 : 0750;
	int rc = mkdir_parents(c->socket_dir, 0711);

	if (rc != 0)
		return cni_fail(err, PW_ERR_FILES,
				"cannot create \"socketDir\" %s: %s; make it writable by root or "
				"pick another",
				c->socket_dir, strerror(-rc));
	if (mkdir(a->dir, mode) != 0 && errno != EEXIST)
		return cni_fail(err, PW_ERR_FILES, "cannot create %s: %s", a->dir, strerror(errno));
	/* mkdir() applied the umask, and the directory may be left from a
	 * podwired restart with its own mode. */
	if (chown(a->dir, 0, c->socket_gid) != 0 || chmod(a->dir, mode) != 0)
		return cni_fail(err, PW_ERR_FILES, "cannot set owner root:%u and mode %o on %s: %s",
				(unsigned int)c->socket_gid, (unsigned int)mode, a->dir,
				strerror(errno));
	return 0;
}

/* memif: a secret of its own for each attachment, which podwired asks
 * of the pod (its INIT) and the pod learns from podwire.json or its
 * device-info: another pod that reaches the socket cannot take the port.
 * 20 hex digits (80 bits): DPDK's net_memif keeps 23 bytes of secret=. */
static int make_secret(struct attach *a, struct cni_error *err)
{
	uint8_t r[10];

	if (getrandom(r, sizeof(r), 0) != sizeof(r))
		return cni_fail(err, CNI_ERR_IO, "cannot make the memif secret: %s",
				strerror(errno));
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(a->secret + 2 * i, sizeof(a->secret) - 2 * i, "%02x", r[i]);
	return 0;
}

/* iftype kernel: the container end of the pair podwired made for a. */
static int veth_peer(struct pw_client *pw, const struct attach *a, char peer[IF_NAMESIZE],
		     struct cni_error *err)
{
	const cJSON *veth;
	cJSON *p = NULL;
	int rc = podwired_port_get(pw, a->port, &p, err);

	if (rc == 0)
		cni_fail(err, PW_ERR_PODWIRED, "podwired lost port \"%s\" just after making it",
			 a->port);
	if (rc != 1)
		return -1;
	veth = cJSON_GetObjectItemCaseSensitive(p, API_R_VETH);
	snprintf(peer, IF_NAMESIZE, "%s", api_get_str(veth, API_R_PEER, ""));
	cJSON_Delete(p);
	if (peer[0] == '\0')
		return cni_fail(err, PW_ERR_PODWIRED,
				"podwired made port \"%s\" without a veth peer; is podwired "
				"older than this plugin?",
				a->port);
	return 0;
}

/* Undoes a previous ADD of the same attachment that was never DELeted. */
static int clear_previous(const struct cni_call *call, struct attach *old, struct pw_client *pw,
			  struct cni_error *err)
{
	char *text = old->conf ? cJSON_PrintUnformatted(old->conf) : NULL;
	int rc = attach_teardown(call, old, pw, text ? old->ipam_type : "", text,
				 text ? strlen(text) : 0, err);

	free(text);
	attach_free(old);
	return rc;
}

int cmd_add(const struct cni_call *call, cJSON **result, struct cni_error *err)
{
	const struct netconf *c = call->conf;
	const struct cni_env *env = call->env;
	struct ipam_call ic = cni_ipam_call(call, "ADD");
	cJSON *ipam_res = NULL, *ipam_norm = NULL, *prev = NULL, *internal = NULL, *pj;
	bool ipam_done = false, devinfo_done = false;
	struct cni_error rb_err;
	struct pw_client *pw;
	struct attach a;
	char path[PATH_MAX + 32], mac[18], peer[IF_NAMESIZE] = "", host_mac[18] = "";
	int lock, found;

	*result = NULL;
	/* Checks that need no change come first: a missing IPAM plugin must
	 * not leave a port behind. */
	if (c->ipam != NULL && ipam_find(c->ipam_type, env->path, path, sizeof(path), err) != 0)
		return -1;
	if (c->prev_result != NULL) {
		prev = result_normalize(c->prev_result, "prevResult", err);
		if (prev == NULL)
			return -1;
	}
	pw = podwired_connect(c->podwired_socket, c->timeout_ms, err);
	if (pw == NULL) {
		cJSON_Delete(prev);
		return -1;
	}

	found = record_find(c->data_dir, env->containerid, env->ifname, true, &a, &lock, err);
	if (found < 0)
		goto out_early;
	pending_reconcile(c->data_dir, pw, c->podwired_socket, a.slot);
	if (found == 1 && clear_previous(call, &a, pw, err) != 0) {
		record_unlock(c->data_dir, a.slot, lock, false);
		goto out_early;
	}
	attach_init(&a, c, env, a.slot);
	/* A release of this attachment's VF still owed to podwired would,
	 * done later, take back the VF this ADD is about to get. */
	if (c->iftype == IFTYPE_PCI && pending_exists(c->data_dir, a.port)) {
		cni_fail(err, CNI_ERR_TRY_AGAIN,
			 "the VF %s/%s had before is not given back to podwired yet (podwired "
			 "did not answer); retry",
			 env->containerid, env->ifname);
		record_unlock(c->data_dir, a.slot, lock, true);
		goto out_early;
	}
	a.conf = cJSON_Duplicate(c->root, true);
	cJSON_DeleteItemFromObjectCaseSensitive(a.conf, "prevResult");
	if (record_write(c->data_dir, &a, err) != 0) {
		record_unlock(c->data_dir, a.slot, lock, true);
		attach_free(&a);
		goto out_early;
	}

	snprintf(mac, sizeof(mac), "%s", c->mac);
	if (make_dir(c, &a, err) != 0)
		goto rollback;
	if (c->iftype == IFTYPE_PCI) {
		/* The record learns the VF at once: DEL and GC release by
		 * owner anyway, but CHECK and people want the address. */
		if (vf_alloc(pw, c, &a, mac, err) != 0 || record_write(c->data_dir, &a, err) != 0)
			goto rollback;
	} else if ((c->iftype == IFTYPE_MEMIF && make_secret(&a, err) != 0) ||
		   podwired_port_create(pw, c, &a, mac, err) != 0) {
		goto rollback;
	}
	/* The pod's lists before anything reaches the pod: a bad rule fails
	 * the ADD before IPAM, and rollback deletes port and lists. */
	if (c->iftype != IFTYPE_PCI && podwired_acl_apply(pw, c, &a, err) != 0)
		goto rollback;
	if (c->iftype == IFTYPE_KERNEL) {
		if (veth_peer(pw, &a, peer, err) != 0)
			goto rollback;
		kernel_host_mac(&a, host_mac);
	}
	if (c->ipam != NULL) {
		if (ipam_exec(&ic, &ipam_res, err) != 0)
			goto rollback;
		ipam_done = true;
		ipam_norm = result_normalize(ipam_res, "the IPAM plugin's result", err);
		if (ipam_norm == NULL) {
			err->code = PW_ERR_IPAM;
			goto rollback;
		}
	}
	internal = result_merge(prev, ipam_norm,
				&(struct result_iface){.name = env->ifname,
						       .mac = mac,
						       .sandbox = env->netns,
						       .socket_path = a.socket,
						       .pci_id = a.pci,
						       .mtu = c->mtu,
						       .host_name = a.host_iface,
						       .host_mac = host_mac});
	/* After IPAM: the pod's interface comes up with its addresses. */
	if (c->iftype == IFTYPE_KERNEL && kernel_attach(&a, peer, mac, c->mtu, internal, err) != 0)
		goto rollback;
	pj = podwire_json_build(&a, mac, c->mtu, internal);
	snprintf(path, sizeof(path), "%s/" PODWIRE_JSON, a.dir);
	if (cni_write_json(path, pj, 0640, c->socket_gid, err) != 0) {
		cJSON_Delete(pj);
		goto rollback;
	}
	cJSON_Delete(pj);
	if (a.devinfo[0] != '\0') {
		cJSON *info = devinfo_build(&a);
		int rc = devinfo_write(a.devinfo, info, err);

		cJSON_Delete(info);
		if (rc != 0)
			goto rollback;
		devinfo_done = true;
	}
	*result = result_shape(internal, c->cni_version);
	cJSON_Delete(internal);
	cJSON_Delete(ipam_res);
	cJSON_Delete(ipam_norm);
	cJSON_Delete(prev);
	attach_free(&a);
	record_unlock(c->data_dir, a.slot, lock, false);
	pw_client_close(pw);
	return 0;

rollback:
	/* A device-info file we did not write may be a device plugin's. */
	if (!devinfo_done)
		a.devinfo[0] = '\0';
	found = attach_teardown(call, &a, pw, ipam_done ? c->ipam_type : "", call->raw,
				call->raw_len, &rb_err);
	if (found != 0)
		fprintf(stderr, "podwire: rolling back %s/%s: %s\n", env->containerid, env->ifname,
			rb_err.msg);
	/* A failed IPAM DEL keeps the record, for the runtime's DEL to retry. */
	record_unlock(c->data_dir, a.slot, lock, found == 0);
	cJSON_Delete(internal);
	cJSON_Delete(ipam_res);
	cJSON_Delete(ipam_norm);
	attach_free(&a);
out_early:
	cJSON_Delete(prev);
	pw_client_close(pw);
	return -1;
}
