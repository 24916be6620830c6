/* SPDX-License-Identifier: BSD-3-Clause */
/* CHECK: the attachment is whole. Changes nothing. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cni.h"
#include "ipam.h"
#include "kernel.h"
#include "podwired_client.h"
#include "vf.h"

/* The port offers the queue pairs the pod was told of (device-info,
 * podwire.json, virtio-user queues=). A vhost-user port has exactly its
 * "queues"; a memif port reports how many rx queues it can take (the pod
 * decides how many rings it asks for), at least the config's. */
static int check_queues(const struct attach *a, long have, struct cni_error *err)
{
	if (a->iftype == IFTYPE_VHOST ? have == (long)a->queues : have >= (long)a->queues)
		return 0;
	return cni_fail(err, PW_ERR_CHECK,
			"port \"%s\" offers %ld queue pair(s), the pod was told %u (\"queues\"); "
			"re-add the pod's network",
			a->port, have, a->queues);
}

static int check_port(struct pw_client *pw, const struct netconf *c, const struct attach *a,
		      char mac[18], struct cni_error *err)
{
	cJSON *p = NULL;
	int rc = podwired_port_get(pw, a->port, &p, err);
	const char *net, *sock, *type;

	if (rc < 0)
		return -1;
	if (rc == 0)
		return cni_fail(err, PW_ERR_CHECK,
				"podwired has no port \"%s\" for %s/%s; the attachment is broken, "
				"delete the pod's network (DEL) and add it again",
				a->port, a->containerid, a->ifname);
	net = api_get_str(p, API_F_NETWORK, "");
	sock = api_get_str(p, API_F_SOCKET, "");
	type = api_get_str(p, API_F_TYPE, "");
	snprintf(mac, 18, "%s", api_get_str(p, API_F_MAC, ""));
	if (strcmp(net, c->network) != 0)
		rc = cni_fail(err, PW_ERR_CHECK,
			      "port \"%s\" is on podwired network \"%s\", the config says \"%s\"; "
			      "re-add the pod's network to move it",
			      a->port, net, c->network);
	else if (!podwired_port_is(p, a->socket, a->host_iface) ||
		 strcmp(type, iftype_port_type(a->iftype)) != 0)
		rc =
		    cni_fail(err, PW_ERR_CHECK,
			     "port \"%s\" is a %s port on %s, expected a %s port on %s; re-add the "
			     "pod's network",
			     a->port, type, sock[0] ? sock : api_get_str(p, API_F_IFACE, "?"),
			     iftype_port_type(a->iftype), a->socket[0] ? a->socket : a->host_iface);
	else
		rc = check_queues(a, api_get_int(p, API_F_QUEUES, 1), err);
	cJSON_Delete(p);
	return rc;
}

static int check_file(const char *path, const char *what, bool want_socket, struct cni_error *err)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return cni_fail(err, PW_ERR_CHECK,
				"%s %s is missing; re-add the pod's network to recreate it", what,
				path);
	if (want_socket && !S_ISSOCK(st.st_mode))
		return cni_fail(err, PW_ERR_CHECK, "%s %s is not a socket", what, path);
	return 0;
}

/* iftype pci: podwired still lends the recorded VF to this attachment,
 * bound to vfio-pci. */
static int check_vf(struct pw_client *pw, const struct attach *a, struct cni_error *err)
{
	char owner[VF_OWNER_MAX];
	const char *holder, *driver;
	cJSON *vf = NULL;
	int rc;

	vf_owner(a->containerid, a->ifname, owner);
	if (a->pci[0] == '\0')
		return cni_fail(err, PW_ERR_CHECK,
				"the record of %s has no VF (its ADD did not finish); delete the "
				"pod's network (DEL) and add it again",
				owner);
	rc = vf_find(pw, a->physnet, a->pci, &vf, err);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return cni_fail(err, PW_ERR_CHECK,
				"podwired has no VF %s in physnet \"%s\" any more (was the PF "
				"reconfigured?); delete the pod's network (DEL) and add it again",
				a->pci, a->physnet);
	holder = api_get_str(vf, API_F_OWNER, "");
	driver = api_get_str(vf, API_R_DRIVER, "");
	if (strcmp(holder, owner) != 0)
		rc = cni_fail(err, PW_ERR_CHECK,
			      "VF %s of physnet \"%s\" is lent to \"%s\", not to %s; the "
			      "attachment is broken, delete the pod's network (DEL) and add it "
			      "again",
			      a->pci, a->physnet, holder[0] ? holder : "nobody", owner);
	else if (strcmp(driver, VF_DRIVER) != 0)
		rc = cni_fail(err, PW_ERR_CHECK,
			      "VF %s of %s is bound to \"%s\", not %s; something else changed "
			      "its driver, delete the pod's network (DEL) and add it again",
			      a->pci, owner, driver[0] ? driver : "no driver", VF_DRIVER);
	else
		rc = 0;
	cJSON_Delete(vf);
	return rc;
}

/* prevResult must list our interface with the port's MAC (and for a VF
 * its PCI address). */
static int check_prev(const struct netconf *c, const struct cni_env *env, const char *mac,
		      const char *pci, struct cni_error *err)
{
	const cJSON *i;

	cJSON_ArrayForEach (i, cJSON_GetObjectItemCaseSensitive(c->prev_result, "interfaces")) {
		const char *m = api_get_str(i, "mac", NULL);
		const char *p = api_get_str(i, "pciID", NULL);

		if (strcmp(api_get_str(i, "name", ""), env->ifname) != 0)
			continue;
		if (m != NULL && mac[0] != '\0' && strcasecmp(m, mac) != 0)
			return cni_fail(err, PW_ERR_CHECK,
					"prevResult says interface %s has MAC %s, podwired's port "
					"has %s; re-add the pod's network",
					env->ifname, m, mac);
		if (p != NULL && pci[0] != '\0' && strcasecmp(p, pci) != 0)
			return cni_fail(err, PW_ERR_CHECK,
					"prevResult says interface %s is VF %s, the attachment "
					"holds VF %s; re-add the pod's network",
					env->ifname, p, pci);
		return 0;
	}
	return cni_fail(err, PW_ERR_CHECK,
			"prevResult has no interface named %s; it is not the result of this "
			"plugin's ADD",
			env->ifname);
}

/* Each piece of the attachment, in the order they were made. */
static int check_pieces(struct pw_client *pw, const struct netconf *c, const struct cni_env *env,
			const struct attach *a, struct cni_error *err)
{
	char path[PATH_MAX + 32], mac[18] = "";

	snprintf(path, sizeof(path), "%s/%s", a->dir, PODWIRE_JSON);
	if (a->iftype != c->iftype)
		return cni_fail(err, PW_ERR_CHECK,
				"%s/%s was added as iftype \"%s\", the config says \"%s\"; re-add "
				"the pod's network",
				a->containerid, a->ifname, iftype_name(a->iftype),
				iftype_name(c->iftype));
	if (a->iftype == IFTYPE_PCI && strcmp(a->physnet, c->physnet) != 0)
		return cni_fail(err, PW_ERR_CHECK,
				"%s/%s holds a VF of physnet \"%s\", the config says \"%s\"; "
				"re-add the pod's network",
				a->containerid, a->ifname, a->physnet, c->physnet);
	if (a->iftype == IFTYPE_PCI) {
		if (check_vf(pw, a, err) != 0)
			return -1;
	} else if (check_port(pw, c, a, mac, err) != 0 || podwired_acl_check(pw, c, a, err) != 0) {
		return -1;
	}
	if (check_file(a->dir, "attachment directory", false, err) != 0 ||
	    check_file(path, "the pod's", false, err) != 0)
		return -1;
	if (a->iftype != IFTYPE_PCI && a->iftype != IFTYPE_KERNEL && !a->pod_creates_socket &&
	    check_file(a->socket, "socket (podwired creates it)", true, err) != 0)
		return -1;
	/* The pod's interface, as ADD left it: the port's MAC, the config's
	 * MTU, prevResult's addresses. */
	if (a->iftype == IFTYPE_KERNEL && kernel_check(a, mac, c->mtu, c->prev_result, err) != 0)
		return -1;
	if (a->devinfo[0] != '\0' && check_file(a->devinfo, "device-info file", false, err) != 0)
		return -1;
	return check_prev(c, env, mac, a->pci, err);
}

int cmd_check(const struct cni_call *call, struct cni_error *err)
{
	const struct netconf *c = call->conf;
	const struct cni_env *env = call->env;
	struct pw_client *pw = NULL;
	struct attach a;
	int lock, rc;

	rc = record_find(c->data_dir, env->containerid, env->ifname, false, &a, &lock, err);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return cni_fail(err, PW_ERR_CHECK,
				"no record of %s/%s in %s (\"dataDir\"); was it added with this "
				"config? re-add the pod's network",
				env->containerid, env->ifname, c->data_dir);
	pw = podwired_connect(a.podwired, c->timeout_ms, err);
	rc = pw == NULL ? -1 : check_pieces(pw, c, env, &a, err);
	if (rc == 0 && c->ipam != NULL) {
		struct ipam_call ic = cni_ipam_call(call, "CHECK");

		rc = ipam_exec(&ic, NULL, err);
	}
	pw_client_close(pw);
	attach_free(&a);
	record_unlock(c->data_dir, a.slot, lock, false);
	return rc;
}
