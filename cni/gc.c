/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GC: everything of this network that is not a valid attachment goes:
 * records (with their ports or VFs, files and IPs), podwire ports (for
 * iftype pci: VFs of the physnet) that no record owns, and directories in
 * socketDir that nothing owns. STATUS: podwired answers and is ready (and,
 * for iftype pci, has the physnet).
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cni.h"
#include "files.h"
#include "ipam.h"
#include "podwired_client.h"
#include "vf.h"

struct gc {
	const struct cni_call *call;
	struct pw_client *pw;
	struct cni_error first; /* the first failure; GC goes on after one */
	bool failed;
};

static void gc_failed(struct gc *g, const struct cni_error *err)
{
	if (!g->failed)
		g->first = *err;
	g->failed = true;
}

static bool is_valid(const cJSON *valid, const struct attach *a)
{
	const cJSON *v;

	cJSON_ArrayForEach (v, valid)
		if (strcmp(api_get_str(v, "containerID", ""), a->containerid) == 0 &&
		    strcmp(api_get_str(v, "ifname", ""), a->ifname) == 0)
			return true;
	return false;
}

static int gc_record(uint32_t slot, void *arg)
{
	struct gc *g = arg;
	const struct netconf *c = g->call->conf;
	struct cni_error err;
	struct attach a;
	int lock = record_lock(c->data_dir, slot, false, &err), rc, gone = 0;

	if (lock < 0) {
		gc_failed(g, &err);
		return 0;
	}
	rc = record_read(c->data_dir, slot, &a, &err);
	if (rc < 0)
		gc_failed(g, &err);
	if (rc == 0)
		gone = 1;
	if (rc == 1 && strcmp(a.cni_name, c->name) == 0 && !is_valid(c->valid_attachments, &a)) {
		char *text = a.conf ? cJSON_PrintUnformatted(a.conf) : NULL;

		if (attach_teardown(g->call, &a, g->pw, text ? a.ipam_type : "", text,
				    text ? strlen(text) : 0, &err) == 0)
			gone = 1;
		else
			gc_failed(g, &err);
		free(text);
	}
	if (rc == 1)
		attach_free(&a);
	record_unlock(c->data_dir, slot, lock, gone);
	return 0;
}

/* Ports named and placed like ours that no record owns. */
static void gc_ports(struct gc *g)
{
	const struct netconf *c = g->call->conf;
	size_t dlen = strlen(c->socket_dir);
	struct cni_error err;
	cJSON *res = NULL;
	const cJSON *p;

	if (podwired_call(g->pw, API_NAME(PORT_LIST), NULL, &res, NULL, &err) != 0) {
		gc_failed(g, &err);
		return;
	}
	cJSON_ArrayForEach (p, cJSON_GetObjectItemCaseSensitive(res, API_R_PORTS)) {
		const char *name = api_get_str(p, API_F_NAME, "");
		const char *sock = api_get_str(p, API_F_SOCKET, "");
		const char *iface = api_get_str(p, API_F_IFACE, "");
		int64_t slot = port_name_slot(name);
		char kiface[KERNEL_IFACE_MAX];
		struct attach a;
		int lock, rc;

		if (slot < 0)
			continue;
		/* iftype kernel: a veth port on this network whose host end
		 * has the name the slot gives; the others: a socket of ours. */
		kernel_iface_name((uint32_t)slot, kiface);
		if (sock[0] == '\0' ? strcmp(iface, kiface) != 0 ||
					  strcmp(api_get_str(p, API_F_NETWORK, ""), c->network) != 0
				    : strncmp(sock, c->socket_dir, dlen) != 0 || sock[dlen] != '/')
			continue;
		/* A slot in use by a running verb is its business. */
		lock = record_lock(c->data_dir, (uint32_t)slot, true, &err);
		if (lock < 0)
			continue;
		rc = record_read(c->data_dir, (uint32_t)slot, &a, &err);
		if (rc == 1) {
			rc = strcmp(a.port, name) == 0 ? 1 : 0;
			attach_free(&a);
		}
		if (rc == 0) {
			char dir[PATH_MAX], *slash;

			if (podwired_port_delete(g->pw, name, sock, iface, &err) != 0)
				gc_failed(g, &err);
			snprintf(dir, sizeof(dir), "%s", sock);
			slash = strrchr(dir, '/');
			if (slash != NULL)
				*slash = '\0';
			if (sock[0] == '\0')
				snprintf(dir, sizeof(dir), "%s/%08" PRIx32, c->socket_dir,
					 (uint32_t)slot);
			if (!record_exists(c->data_dir, (uint32_t)slot))
				attach_dir_remove(dir);
		}
		record_unlock(c->data_dir, (uint32_t)slot, lock,
			      !record_exists(c->data_dir, (uint32_t)slot));
	}
	cJSON_Delete(res);
}

/*
 * iftype pci: VFs of this physnet lent to an attachment ("<containerID>/
 * <ifname>") that is neither valid nor recorded in dataDir. (Recorded ones
 * of this network went with their record in gc_record.) Owners of another
 * shape are podwired's other users' business.
 */
static void gc_vfs(struct gc *g)
{
	const struct netconf *c = g->call->conf;
	struct cni_error err;
	cJSON *vfs = vf_list(g->pw, c->physnet, &err);
	const cJSON *v;

	if (vfs == NULL) {
		gc_failed(g, &err);
		return;
	}
	cJSON_ArrayForEach (v, vfs) {
		const char *owner = api_get_str(v, API_F_OWNER, ""), *slash = strchr(owner, '/');
		char cid[CNI_CONTAINERID_MAX + 1], ifname[CNI_IFNAME_MAX + 1];
		struct attach a;
		int lock, rc;

		if (slash == NULL || slash == owner ||
		    (size_t)(slash - owner) > CNI_CONTAINERID_MAX || slash[1] == '\0' ||
		    strlen(slash + 1) > CNI_IFNAME_MAX || strchr(slash + 1, '/') != NULL)
			continue;
		snprintf(cid, sizeof(cid), "%.*s", (int)(slash - owner), owner);
		snprintf(ifname, sizeof(ifname), "%s", slash + 1);
		snprintf(a.containerid, sizeof(a.containerid), "%s", cid);
		snprintf(a.ifname, sizeof(a.ifname), "%s", ifname);
		if (is_valid(c->valid_attachments, &a))
			continue;
		rc = record_find(c->data_dir, cid, ifname, false, &a, &lock, &err);
		if (rc < 0) {
			gc_failed(g, &err);
			continue;
		}
		if (rc == 1) { /* another network's, or one being added */
			attach_free(&a);
			record_unlock(c->data_dir, a.slot, lock, false);
			continue;
		}
		if (vf_release(g->pw, owner, &err) != 0)
			gc_failed(g, &err);
	}
	cJSON_Delete(vfs);
}

/* Attachment directories without a record, of this network or empty. */
static void gc_dirs(struct gc *g)
{
	const struct netconf *c = g->call->conf;
	DIR *d = opendir(c->socket_dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char dir[PATH_MAX], path[PATH_MAX + 32], *end;
		unsigned long slot = strtoul(e->d_name, &end, 16);
		struct cni_error err;
		cJSON *pj = NULL;
		int lock;

		if (strlen(e->d_name) != 8 || *end != '\0')
			continue;
		lock = record_lock(c->data_dir, (uint32_t)slot, true, &err);
		if (lock < 0)
			continue;
		if (!record_exists(c->data_dir, (uint32_t)slot)) {
			snprintf(dir, sizeof(dir), "%s/%s", c->socket_dir, e->d_name);
			snprintf(path, sizeof(path), "%s/" PODWIRE_JSON, dir);
			if (file_read_json(path, &pj) != 0 ||
			    strcmp(api_get_str(pj, "cniNetwork", ""), c->name) == 0)
				attach_dir_remove(dir);
			cJSON_Delete(pj);
		}
		record_unlock(c->data_dir, (uint32_t)slot, lock,
			      !record_exists(c->data_dir, (uint32_t)slot));
	}
	closedir(d);
}

/*
 * The pods' own access lists ("acl": "<port>-in", "<port>-out") whose port
 * is gone and that are attached nowhere: left by a DEL that could not
 * reach podwired. Lists are made after their port and deleted after it,
 * so an ADD or DEL under way never has lists without a port; whatever the
 * network, such a list is nobody's.
 */
static void gc_acls(struct gc *g)
{
	struct cni_error err;
	cJSON *res = NULL;
	const cJSON *l;

	/* A podwired without access lists (before API 1.8) has none. */
	if (podwired_call(g->pw, API_NAME(ACL_LIST), NULL, &res, NULL, &err) != 0)
		return;
	cJSON_ArrayForEach (l, cJSON_GetObjectItemCaseSensitive(res, API_R_LISTS)) {
		const char *name = api_get_str(l, API_F_NAME, "");
		char port[API_NAME_MAX + 1], want[PW_ACL_NAME_MAX];
		size_t n = strlen(name);
		cJSON *p = NULL, *params;
		int d = n > 3 && strcmp(name + n - 3, "-in") == 0    ? 0
			: n > 4 && strcmp(name + n - 4, "-out") == 0 ? 1
								     : -1;

		if (d < 0 || n - (d == 0 ? 3 : 4) > API_NAME_MAX)
			continue;
		snprintf(port, sizeof(port), "%.*s", (int)(n - (d == 0 ? 3 : 4)), name);
		podwired_acl_name(port, d, want);
		if (port_name_slot(port) < 0 || strcmp(want, name) != 0 ||
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(l, API_R_ATTACHMENTS)) != 0)
			continue;
		if (podwired_port_get(g->pw, port, &p, &err) != 0) {
			cJSON_Delete(p);
			continue; /* its port is there (or podwired did not say) */
		}
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, API_F_NAME, name);
		if (podwired_call(g->pw, API_NAME(ACL_DEL), params, NULL, NULL, &err) != 0)
			gc_failed(g, &err);
	}
	cJSON_Delete(res);
}

int cmd_gc(const struct cni_call *call, struct cni_error *err)
{
	const struct netconf *c = call->conf;
	struct gc g = {.call = call};
	struct cni_error perr;

	g.pw = podwired_connect(c->podwired_socket, c->timeout_ms, &perr);
	if (g.pw != NULL)
		pending_reconcile(c->data_dir, g.pw, c->podwired_socket, -1);
	record_each(c->data_dir, gc_record, &g);
	/* Without podwired, ports and their directories wait for the next GC. */
	if (g.pw != NULL) {
		if (c->iftype == IFTYPE_PCI)
			gc_vfs(&g);
		else
			gc_ports(&g);
		gc_acls(&g);
		gc_dirs(&g);
	}
	if (c->ipam != NULL && ipam_supports(c->ipam_type, call->env->path, "1.1.0")) {
		struct ipam_call ic = {.type = c->ipam_type,
				       .cni_path = call->env->path,
				       .command = "GC",
				       .config = call->raw,
				       .config_len = call->raw_len,
				       .cache_dir = c->data_dir};
		struct cni_error ierr;

		if (ipam_exec(&ic, NULL, &ierr) != 0)
			gc_failed(&g, &ierr);
	}
	pw_client_close(g.pw);
	if (g.failed) {
		*err = g.first;
		return -1;
	}
	return 0;
}

int cmd_status(const struct cni_call *call, struct cni_error *err)
{
	const struct netconf *c = call->conf;
	struct pw_client *pw = podwired_connect(c->podwired_socket, c->timeout_ms, err);
	char why[sizeof(err->msg)];
	cJSON *info = NULL;
	int rc;

	if (pw == NULL) {
		snprintf(why, sizeof(why), "%s", err->msg);
		return cni_fail(err, CNI_ERR_UNAVAILABLE, "podwired is not reachable: %.1900s",
				why);
	}
	rc = podwired_call(pw, API_NAME(SYSTEM_INFO), NULL, &info, NULL, err);
	if (rc == 0 && c->iftype == IFTYPE_PCI && api_get_bool(info, API_R_READY, false)) {
		/* ADD would fail on a physnet podwired does not have. */
		cJSON *vfs = vf_list(pw, c->physnet, err);

		if (vfs == NULL) {
			snprintf(why, sizeof(why), "%s", err->msg);
			pw_client_close(pw);
			cJSON_Delete(info);
			return cni_fail(err, CNI_ERR_UNAVAILABLE,
					"physnet \"%s\" cannot be served: %.1900s", c->physnet,
					why);
		}
		cJSON_Delete(vfs);
	}
	pw_client_close(pw);
	if (rc != 0) {
		snprintf(why, sizeof(why), "%s", err->msg);
		return cni_fail(err, CNI_ERR_UNAVAILABLE, "podwired does not answer: %.1900s", why);
	}
	rc = api_get_bool(info, API_R_READY, false);
	cJSON_Delete(info);
	if (!rc)
		return cni_fail(err, CNI_ERR_UNAVAILABLE,
				"podwired at %s is not ready (starting or stopping); wait for it",
				c->podwired_socket);
	if (c->ipam != NULL) {
		char path[PATH_MAX];

		if (ipam_find(c->ipam_type, call->env->path, path, sizeof(path), err) != 0) {
			err->code = CNI_ERR_UNAVAILABLE;
			return -1;
		}
		if (ipam_supports(c->ipam_type, call->env->path, "1.1.0")) {
			struct ipam_call ic = {.type = c->ipam_type,
					       .cni_path = call->env->path,
					       .command = "STATUS",
					       .config = call->raw,
					       .config_len = call->raw_len,
					       .cache_dir = c->data_dir};

			if (ipam_exec(&ic, NULL, err) != 0) {
				err->code = CNI_ERR_UNAVAILABLE;
				return -1;
			}
		}
	}
	return 0;
}
