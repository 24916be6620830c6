/* SPDX-License-Identifier: BSD-3-Clause */
/* CDI spec documents: building, the minimum-version rule, name rules and a
 * whole-document check (see spec.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cdi/spec.h"
#include "vdev.h"

void cdi_file_name(const char *cls, char *buf, size_t len)
{
	snprintf(buf, len, "%s-%s.json", CDI_VENDOR, cls);
}

void cdi_env_name(const char *prefix, const char *name, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "%s", prefix);

	for (const char *c = name; *c != '\0' && off + 1 < len; c++)
		buf[off++] = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
	if (off < len)
		buf[off] = '\0';
}

static void skip(cJSON *skipped, const char *object, const char *reason)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "object", object);
	cJSON_AddStringToObject(o, "reason", reason);
	cJSON_AddItemToArray(skipped, o);
}

static cJSON *spec_new(const char *cls, cJSON **devices)
{
	cJSON *doc = cJSON_CreateObject();
	char kind[64];

	snprintf(kind, sizeof(kind), "%s/%s", CDI_VENDOR, cls);
	/* Set for real once the devices are in (cdi_min_version). */
	cJSON_AddStringToObject(doc, "cdiVersion", "0.3.0");
	cJSON_AddStringToObject(doc, "kind", kind);
	*devices = cJSON_AddArrayToObject(doc, "devices");
	return doc;
}

/* Sets cdiVersion, or frees doc and returns NULL when it has no device. */
static cJSON *spec_done(cJSON *doc, cJSON *devices)
{
	if (cJSON_GetArraySize(devices) == 0) {
		cJSON_Delete(doc);
		return NULL;
	}
	cJSON_ReplaceItemInObjectCaseSensitive(doc, "cdiVersion",
					       cJSON_CreateString(cdi_min_version(doc)));
	return doc;
}

static void env_add(cJSON *env, const char *name, const char *value)
{
	char *buf = NULL;

	if (asprintf(&buf, "%s=%s", name, value) < 0)
		return; /* out of memory: cdi_check_spec finds the device short */
	cJSON_AddItemToArray(env, cJSON_CreateString(buf));
	free(buf);
}

static void env_add_json(cJSON *env, const char *name, const cJSON *value)
{
	char *text = cJSON_PrintUnformatted(value);

	if (text != NULL)
		env_add(env, name, text);
	cJSON_free(text);
}

/* A private hugetlbfs instance, not the host's /dev/hugepages: the
 * container shares the kernel's hugepage pool but sees no other process's
 * hugepage files (a bind mount would show every DPDK app's memory). */
static void mount_hugetlbfs(cJSON *mounts)
{
	cJSON *m = cJSON_CreateObject(), *opts;

	cJSON_AddStringToObject(m, "hostPath", "hugetlbfs");
	cJSON_AddStringToObject(m, "containerPath", CDI_HUGEPAGES_DIR);
	cJSON_AddStringToObject(m, "type", "hugetlbfs");
	opts = cJSON_AddArrayToObject(m, "options");
	cJSON_AddItemToArray(opts, cJSON_CreateString("nosuid"));
	cJSON_AddItemToArray(opts, cJSON_CreateString("nodev"));
	cJSON_AddItemToArray(mounts, m);
}

static void mount_bind(cJSON *mounts, const char *host, const char *ctr, bool rw)
{
	static const char *const base[] = {"rbind", "nosuid", "nodev", "noexec"};
	cJSON *m = cJSON_CreateObject(), *opts;

	cJSON_AddStringToObject(m, "hostPath", host);
	cJSON_AddStringToObject(m, "containerPath", ctr);
	opts = cJSON_AddArrayToObject(m, "options");
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		cJSON_AddItemToArray(opts, cJSON_CreateString(base[i]));
	cJSON_AddItemToArray(opts, cJSON_CreateString(rw ? "rw" : "ro"));
	cJSON_AddItemToArray(mounts, m);
}

static cJSON *device_new(cJSON *devices, const char *name, cJSON **env, cJSON **mounts)
{
	cJSON *d = cJSON_CreateObject(), *edits;

	cJSON_AddStringToObject(d, "name", name);
	edits = cJSON_AddObjectToObject(d, "containerEdits");
	*env = cJSON_AddArrayToObject(edits, "env");
	if (mounts != NULL)
		*mounts = cJSON_AddArrayToObject(edits, "mounts");
	cJSON_AddItemToArray(devices, d);
	return edits;
}

/* The directory of a socket path and its last component. */
static void split_path(const char *path, char *dir, size_t dlen, const char **base)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash != NULL ? (size_t)(slash - path) : 0;

	snprintf(dir, dlen, "%.*s", (int)n, path);
	*base = slash != NULL ? slash + 1 : path;
}

static const char *dir_name(const char *dir)
{
	const char *slash = strrchr(dir, '/');

	return slash != NULL ? slash + 1 : dir;
}

/* Why port i cannot be a device, or NULL. Another port's socket in the
 * same directory would be shown to the container too; two directories of
 * one name would meet at one container path. */
static const char *port_conflict(const struct cdi_port *ports, unsigned int n, unsigned int i,
				 char *why, size_t len)
{
	char dir[API_SOCKET_PATH_MAX + 1], other[API_SOCKET_PATH_MAX + 1], env[96], oenv[96];
	const char *base;

	split_path(ports[i].socket, dir, sizeof(dir), &base);
	if (dir[0] == '\0' || strcmp(dir_name(dir), "") == 0) {
		snprintf(why, len, "its socket %s is not in a directory of its own",
			 ports[i].socket);
		return why;
	}
	cdi_env_name("", ports[i].name, env, sizeof(env));
	for (unsigned int j = 0; j < n; j++) {
		if (j == i)
			continue;
		split_path(ports[j].socket, other, sizeof(other), &base);
		if (strcmp(dir, other) == 0) {
			snprintf(why, len,
				 "its socket directory %s also holds port \"%s\"'s socket, which a "
				 "container given it would see too; give each port a directory "
				 "of its own",
				 dir, ports[j].name);
			return why;
		}
		if (j < i && strcmp(dir_name(dir), dir_name(other)) == 0) {
			snprintf(why, len,
				 "its socket directory %s has the name of port \"%s\"'s (%s): both "
				 "would appear at %s/%s; rename one directory",
				 dir, ports[j].name, other, CDI_POD_DIR, dir_name(dir));
			return why;
		}
		cdi_env_name("", ports[j].name, oenv, sizeof(oenv));
		if (j < i && strcmp(env, oenv) == 0) {
			snprintf(why, len,
				 "its environment variables (PODWIRE_DEVINFO_PORT_%s) would be "
				 "port \"%s\"'s too; rename one of them",
				 env, ports[j].name);
			return why;
		}
	}
	return NULL;
}

static void port_device(cJSON *devices, const struct cdi_port *p)
{
	char dir[API_SOCKET_PATH_MAX + 1], ctr_dir[256], ctr_sock[384], vdev[1024], eal[1100];
	char msg[256], var[128];
	const char *base, *mode;
	cJSON *env, *mounts, *info;

	split_path(p->socket, dir, sizeof(dir), &base);
	snprintf(ctr_dir, sizeof(ctr_dir), "%s/%s", CDI_POD_DIR, dir_name(dir));
	snprintf(ctr_sock, sizeof(ctr_sock), "%s/%s", ctr_dir, base);
	/* The pod's side, in device-info terms. */
	mode = p->memif ? (p->server ? "slave" : "master") : (p->server ? "client" : "server");
	/* No secret: spec files are world-readable. */
	info = devinfo_socket(p->memif, mode, ctr_sock, NULL);
	device_new(devices, p->name, &env, &mounts);
	env_add(env, "PODWIRE_PORT", p->name);
	env_add(env, "PODWIRE_SOCKET", ctr_sock);
	env_add(env, "PODWIRE_MAC", p->mac);
	if (devinfo_vdev(info, p->mac, 0, vdev, sizeof(vdev), msg, sizeof(msg)) == 0 &&
	    devinfo_eal_args(vdev, p->memif, eal, sizeof(eal)) == 0)
		env_add(env, "PODWIRE_VDEV", eal);
	cdi_env_name("PODWIRE_DEVINFO_PORT_", p->name, var, sizeof(var));
	env_add_json(env, var, info);
	cdi_env_name("PODWIRE_MAC_PORT_", p->name, var, sizeof(var));
	env_add(env, var, p->mac);
	/* Writable when the pod creates its socket (podwired is the client),
	 * and for memif always: DPDK's net_memif refuses a socket directory
	 * it cannot write to ("Invalid socket directory") even as client. */
	mount_bind(mounts, dir, ctr_dir, p->memif || !p->server);
	mount_hugetlbfs(mounts);
	cJSON_Delete(info);
}

cJSON *cdi_port_spec(const struct cdi_port *ports, unsigned int n, cJSON *skipped)
{
	cJSON *devices, *doc = spec_new(CDI_CLASS_PORT, &devices);
	char why[1024], msg[512], obj[128];

	for (unsigned int i = 0; i < n; i++) {
		const char *reason = NULL;

		snprintf(obj, sizeof(obj), "port \"%s\"", ports[i].name);
		if (cdi_check_device_name(ports[i].name, msg, sizeof(msg)) != 0)
			reason = msg;
		else
			reason = port_conflict(ports, n, i, why, sizeof(why));
		if (reason != NULL) {
			skip(skipped, obj, reason);
			continue;
		}
		port_device(devices, &ports[i]);
	}
	return spec_done(doc, devices);
}

static void vf_node(cJSON *nodes, const char *dev_root, const char *path)
{
	cJSON *d = cJSON_CreateObject();
	char host[4096];

	cJSON_AddStringToObject(d, "path", path);
	/* hostPath (CDI 0.5.0) only when the host's node is elsewhere. */
	if (strcmp(dev_root, "/dev") != 0 && strncmp(path, "/dev/", 5) == 0) {
		snprintf(host, sizeof(host), "%s/%s", dev_root, path + 5);
		cJSON_AddStringToObject(d, "hostPath", host);
	}
	cJSON_AddItemToArray(nodes, d);
}

static void vf_device(cJSON *devices, const char *name, const struct cdi_vf *v,
		      const char *dev_root)
{
	char var[128], dvar[140];
	cJSON *env, *mounts, *edits, *nodes, *info, *entry, *vfio;

	edits = device_new(devices, name, &env, &mounts);
	/* As sriov-network-device-plugin names them for resource
	 * podwire.io/<physnet>: the address and its device-info map. */
	cdi_env_name("PCIDEVICE_PODWIRE_IO_", v->physnet, var, sizeof(var));
	env_add(env, var, v->pci);
	info = cJSON_CreateObject();
	entry = cJSON_AddObjectToObject(info, v->pci);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(entry, "generic"), "deviceID", v->pci);
	vfio = cJSON_AddObjectToObject(entry, "vfio");
	cJSON_AddStringToObject(vfio, "dev-mount", v->vfio_node);
	cJSON_AddStringToObject(vfio, "mount", CDI_VFIO_NODE);
	snprintf(dvar, sizeof(dvar), "%s_INFO", var);
	env_add_json(env, dvar, info);
	cJSON_Delete(info);
	/* The CNI plugin's device-info for the same VF (iftype pci). */
	info = devinfo_pci(v->pci, v->pf_pci);
	cdi_env_name("PODWIRE_DEVINFO_VF_", v->pci, var, sizeof(var));
	env_add_json(env, var, info);
	cJSON_Delete(info);
	nodes = cJSON_AddArrayToObject(edits, "deviceNodes");
	vf_node(nodes, dev_root, CDI_VFIO_NODE);
	vf_node(nodes, dev_root, v->vfio_node);
	mount_hugetlbfs(mounts);
}

cJSON *cdi_vf_spec(const struct cdi_vf *vfs, unsigned int n, const char *dev_root, cJSON *skipped)
{
	cJSON *devices, *doc = spec_new(CDI_CLASS_VF, &devices);
	char name[128], msg[512], obj[128], why[600];

	for (unsigned int i = 0; i < n; i++) {
		const struct cdi_vf *v = &vfs[i];

		snprintf(obj, sizeof(obj), "VF %s", v->pci);
		if (v->vfio_node == NULL || v->vfio_node[0] == '\0') {
			skip(skipped, obj, "it has no IOMMU group, so no VFIO device node");
			continue;
		}
		/* The spec allows no ':' in a name: the address with '-'. */
		snprintf(name, sizeof(name), "%s", v->pci);
		for (char *c = name; *c != '\0'; c++)
			if (*c == ':')
				*c = '-';
		if (cdi_check_device_name(name, msg, sizeof(msg)) != 0) {
			skip(skipped, obj, msg);
			continue;
		}
		vf_device(devices, name, v, dev_root);
		snprintf(name, sizeof(name), "%s-%u", v->physnet, v->pos);
		if (cdi_check_device_name(name, msg, sizeof(msg)) != 0) {
			snprintf(why, sizeof(why), "no per-physnet name: %s", msg);
			skip(skipped, obj, why);
			continue;
		}
		vf_device(devices, name, v, dev_root);
	}
	return spec_done(doc, devices);
}

cJSON *cdi_hugepages_spec(void)
{
	cJSON *devices, *doc = spec_new(CDI_CLASS_HUGEPAGES, &devices), *env, *mounts;

	device_new(devices, "default", &env, &mounts);
	env_add(env, "PODWIRE_HUGEPAGES", CDI_HUGEPAGES_DIR);
	mount_hugetlbfs(mounts);
	return spec_done(doc, devices);
}

/* ---- versions --------------------------------------------------------- */

/* Released versions, oldest first (the spec's table). */
static const char *const versions[] = {"0.1.0", "0.2.0", "0.3.0", "0.4.0",
				       "0.5.0", "0.6.0", "0.7.0", "0.8.0"};
#define N_VERSIONS (sizeof(versions) / sizeof(versions[0]))

static int version_index(const char *v)
{
	for (size_t i = 0; i < N_VERSIONS; i++)
		if (v != NULL && strcmp(versions[i], v) == 0)
			return (int)i;
	return -1;
}

static int edits_min(const cJSON *edits)
{
	const cJSON *e;
	int min = 2; /* 0.3.0: the first tagged release */

	if (cJSON_GetObjectItemCaseSensitive(edits, "intelRdt") != NULL ||
	    cJSON_GetObjectItemCaseSensitive(edits, "additionalGids") != NULL)
		return 6; /* 0.7.0 */
	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(edits, "deviceNodes"))
		if (cJSON_GetObjectItemCaseSensitive(e, "hostPath") != NULL && min < 4)
			min = 4; /* 0.5.0 */
	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(edits, "mounts"))
		if (cJSON_GetObjectItemCaseSensitive(e, "type") != NULL && min < 3)
			min = 3; /* 0.4.0 */
	return min;
}

const char *cdi_min_version(const cJSON *spec)
{
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "kind"));
	const char *slash = kind != NULL ? strchr(kind, '/') : NULL;
	const cJSON *d;
	int min = edits_min(cJSON_GetObjectItemCaseSensitive(spec, "containerEdits")), m;

	if (cJSON_GetObjectItemCaseSensitive(spec, "annotations") != NULL ||
	    (slash != NULL && strchr(slash, '.') != NULL))
		min = min > 5 ? min : 5; /* 0.6.0 */
	cJSON_ArrayForEach (d, cJSON_GetObjectItemCaseSensitive(spec, "devices")) {
		const char *name =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "name"));

		m = edits_min(cJSON_GetObjectItemCaseSensitive(d, "containerEdits"));
		if (name != NULL && isdigit((unsigned char)name[0]) && m < 4)
			m = 4; /* 0.5.0 */
		if (cJSON_GetObjectItemCaseSensitive(d, "annotations") != NULL && m < 5)
			m = 5;
		min = m > min ? m : min;
	}
	return versions[min];
}

/* ---- names ------------------------------------------------------------ */

/* Alphanumeric at both ends, only [A-Za-z0-9] and extra between. */
static bool segment_ok(const char *s, size_t n, const char *extra)
{
	if (n == 0 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && strchr(extra, s[i]) == NULL)
			return false;
	return true;
}

int cdi_check_device_name(const char *name, char *msg, size_t len)
{
	if (!segment_ok(name, strlen(name), "-_.")) {
		snprintf(msg, len,
			 "\"%s\" is not a CDI device name: it must begin and end with a letter or "
			 "digit and have only letters, digits, '-', '_' and '.' between; rename it",
			 name);
		return -EINVAL;
	}
	return 0;
}

int cdi_check_kind(const char *kind, char *msg, size_t len)
{
	const char *slash = strchr(kind, '/');
	size_t vlen = slash != NULL ? (size_t)(slash - kind) : 0;
	const char *label = kind;

	/* A one-character vendor or class makes CDI 0.5's parser (podman
	 * 4.3) panic: two at least. */
	if (slash == NULL || vlen < 2 || vlen > 253 || strlen(slash + 1) < 2 ||
	    strlen(slash + 1) > 63 || !segment_ok(slash + 1, strlen(slash + 1), "-_")) {
		snprintf(msg, len,
			 "kind \"%s\" must be VENDOR/CLASS: a DNS subdomain, '/', and a class of "
			 "2-63 letters, digits, '-' and '_' (no dots before CDI 0.6.0)",
			 kind);
		return -EINVAL;
	}
	/* The vendor: DNS labels separated by dots. */
	while (label < slash) {
		const char *dot = memchr(label, '.', (size_t)(slash - label));
		size_t n = dot != NULL ? (size_t)(dot - label) : (size_t)(slash - label);

		if (n > 63 || !segment_ok(label, n, "-")) {
			snprintf(msg, len,
				 "kind \"%s\": the vendor \"%.*s\" is not a DNS subdomain", kind,
				 (int)vlen, kind);
			return -EINVAL;
		}
		label += n + (dot != NULL);
	}
	return 0;
}

/* ---- the whole document ----------------------------------------------- */

static int members_known(const cJSON *o, const char *const *known, const char *where, char *msg,
			 size_t len)
{
	const cJSON *m;

	if (!cJSON_IsObject(o)) {
		snprintf(msg, len, "%s must be an object", where);
		return -EINVAL;
	}
	cJSON_ArrayForEach (m, o) {
		size_t i = 0;

		while (known[i] != NULL && strcmp(known[i], m->string) != 0)
			i++;
		if (known[i] == NULL) {
			snprintf(msg, len, "%s has an unknown member \"%s\"", where, m->string);
			return -EINVAL;
		}
	}
	return 0;
}

static bool str_member(const cJSON *o, const char *name)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));

	return s != NULL && s[0] != '\0';
}

static int check_edits(const cJSON *edits, const char *where, char *msg, size_t len)
{
	static const char *const ek[] = {"env",	     "deviceNodes",    "mounts", "hooks",
					 "intelRdt", "additionalGids", NULL};
	static const char *const nk[] = {"path",     "hostPath",    "type", "major", "minor",
					 "fileMode", "permissions", "uid",  "gid",   NULL};
	static const char *const mk[] = {"hostPath", "containerPath", "type", "options", NULL};
	const cJSON *e;
	int n = 0;

	if (members_known(edits, ek, where, msg, len) != 0)
		return -EINVAL;
	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(edits, "env")) {
		const char *s = cJSON_GetStringValue(e);

		if (s == NULL || strchr(s, '=') == NULL || s[0] == '=') {
			snprintf(msg, len, "%s: env entry %d is not \"NAME=value\"", where, n);
			return -EINVAL;
		}
		n++;
	}
	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(edits, "deviceNodes")) {
		if (members_known(e, nk, where, msg, len) != 0)
			return -EINVAL;
		if (!str_member(e, "path")) {
			snprintf(msg, len, "%s: a device node has no \"path\"", where);
			return -EINVAL;
		}
		n++;
	}
	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(edits, "mounts")) {
		if (members_known(e, mk, where, msg, len) != 0)
			return -EINVAL;
		if (!str_member(e, "hostPath") || !str_member(e, "containerPath")) {
			snprintf(msg, len, "%s: a mount needs \"hostPath\" and \"containerPath\"",
				 where);
			return -EINVAL;
		}
		n++;
	}
	n += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(edits, "hooks"));
	return n;
}

int cdi_check_spec(const cJSON *spec, char *msg, size_t len)
{
	static const char *const sk[] = {"cdiVersion",	   "kind",	  "devices",
					 "containerEdits", "annotations", NULL};
	static const char *const dk[] = {"name", "containerEdits", "annotations", NULL};
	const char *version =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "cdiVersion"));
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "kind"));
	const cJSON *devices = cJSON_GetObjectItemCaseSensitive(spec, "devices"), *d, *e;
	const char *min;

	if (members_known(spec, sk, "the spec", msg, len) != 0)
		return -EINVAL;
	if (version_index(version) < 0) {
		snprintf(msg, len, "cdiVersion \"%s\" is not a released CDI version (0.1.0-0.8.0)",
			 version ? version : "(none)");
		return -EINVAL;
	}
	min = cdi_min_version(spec);
	if (version_index(version) < version_index(min)) {
		snprintf(msg, len, "cdiVersion %s is older than the fields used need (%s)", version,
			 min);
		return -EINVAL;
	}
	if (kind == NULL || cdi_check_kind(kind, msg, len) != 0) {
		if (kind == NULL)
			snprintf(msg, len, "the spec has no \"kind\"");
		return -EINVAL;
	}
	e = cJSON_GetObjectItemCaseSensitive(spec, "containerEdits");
	if (e != NULL && check_edits(e, "the spec's containerEdits", msg, len) < 0)
		return -EINVAL;
	if (!cJSON_IsArray(devices) || cJSON_GetArraySize(devices) == 0) {
		snprintf(msg, len, "the spec has no device; a CDI spec needs at least one");
		return -EINVAL;
	}
	cJSON_ArrayForEach (d, devices) {
		const char *name =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "name"));
		char where[160];

		if (members_known(d, dk, "a device", msg, len) != 0)
			return -EINVAL;
		if (name == NULL || cdi_check_device_name(name, msg, len) != 0) {
			if (name == NULL)
				snprintf(msg, len, "a device has no \"name\"");
			return -EINVAL;
		}
		for (const cJSON *o = devices->child; o != d; o = o->next)
			if (strcmp(
				cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "name")),
				name) == 0) {
				snprintf(msg, len, "device \"%s\" is there twice", name);
				return -EINVAL;
			}
		snprintf(where, sizeof(where), "device \"%.100s\"", name);
		e = cJSON_GetObjectItemCaseSensitive(d, "containerEdits");
		if (e == NULL) {
			snprintf(msg, len, "%s has no containerEdits", where);
			return -EINVAL;
		}
		switch (check_edits(e, where, msg, len)) {
		case -EINVAL:
			return -EINVAL;
		case 0:
			snprintf(msg, len, "%s has empty containerEdits", where);
			return -EINVAL;
		default:
			break;
		}
	}
	return 0;
}
