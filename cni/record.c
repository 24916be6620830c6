/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-attachment records, slot locks and pending port deletions. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "record.h"

#define PENDING_DIR "pending"

uint32_t record_hash(const char *containerid, const char *ifname)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (const char *p = containerid; *p != '\0'; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	h = (h ^ '/') * 16777619u;
	for (const char *p = ifname; *p != '\0'; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return h;
}

static const char *socket_name(enum cni_iftype t)
{
	return t == IFTYPE_MEMIF ? "memif.sock" : "vhost.sock";
}

void vf_owner(const char *containerid, const char *ifname, char out[VF_OWNER_MAX])
{
	snprintf(out, VF_OWNER_MAX, "%s/%s", containerid, ifname);
}

void kernel_iface_name(uint32_t slot, char out[KERNEL_IFACE_MAX])
{
	snprintf(out, KERNEL_IFACE_MAX, KERNEL_IFACE_PREFIX "%08" PRIx32, slot);
}

void attach_init(struct attach *a, const struct netconf *c, const struct cni_env *env,
		 uint32_t slot)
{
	char ifn[CNI_IFNAME_MAX + 1];
	size_t i;

	memset(a, 0, sizeof(*a));
	a->slot = slot;
	snprintf(a->containerid, sizeof(a->containerid), "%s", env->containerid);
	snprintf(a->ifname, sizeof(a->ifname), "%s", env->ifname);
	snprintf(a->cni_name, sizeof(a->cni_name), "%s", c->name);
	snprintf(a->netns, sizeof(a->netns), "%s", env->netns ? env->netns : "");
	snprintf(a->args, sizeof(a->args), "%s", env->args ? env->args : "");
	/* Port names allow [A-Za-z0-9._-]; interface names allow more. */
	for (i = 0; i < CNI_IFNAME_MAX && env->ifname[i] != '\0'; i++) {
		char ch = env->ifname[i];
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			 (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';

		ifn[i] = ok ? ch : '_';
	}
	ifn[i] = '\0';
	snprintf(a->port, sizeof(a->port), PORT_PREFIX "%08" PRIx32 "-%s", slot, ifn);
	snprintf(a->network, sizeof(a->network), "%s", c->network);
	snprintf(a->podwired, sizeof(a->podwired), "%s", c->podwired_socket);
	snprintf(a->dir, sizeof(a->dir), "%s/%08" PRIx32, c->socket_dir, slot);
	/* netconf_parse bounded both directories so that these fit. A VF and
	 * a kernel interface have no socket; their directory holds
	 * podwire.json only. */
	if (c->iftype == IFTYPE_KERNEL)
		kernel_iface_name(slot, a->host_iface);
	if (c->iftype != IFTYPE_PCI && c->iftype != IFTYPE_KERNEL) {
		snprintf(a->socket, sizeof(a->socket), "%s/%08" PRIx32 "/%s", c->socket_dir, slot,
			 socket_name(c->iftype));
		snprintf(a->pod_socket, sizeof(a->pod_socket), "%s/%08" PRIx32 "/%s",
			 c->pod_socket_dir, slot, socket_name(c->iftype));
	}
	snprintf(a->physnet, sizeof(a->physnet), "%s", c->physnet);
	/* A kernel interface gets no device-info file: the specification's
	 * types are pci, vdpa, vhost-user and memif, and a pod's kernel stack
	 * needs nothing but the interface itself. */
	snprintf(a->devinfo, sizeof(a->devinfo), "%s",
		 c->iftype == IFTYPE_KERNEL ? "" : c->devinfo_file);
	a->iftype = c->iftype;
	snprintf(a->mode, sizeof(a->mode), "%s", c->mode);
	a->pod_creates_socket = c->pod_creates_socket;
	a->queues = (unsigned int)c->queues;
	snprintf(a->ipam_type, sizeof(a->ipam_type), "%s", c->ipam ? c->ipam_type : "");
}

void attach_free(struct attach *a)
{
	if (a == NULL)
		return;
	cJSON_Delete(a->conf);
	a->conf = NULL;
}

static void slot_path(char *buf, size_t len, const char *data_dir, uint32_t slot, const char *ext)
{
	snprintf(buf, len, "%s/%08" PRIx32 ".%s", data_dir, slot, ext);
}

int record_lock(const char *data_dir, uint32_t slot, bool nonblock, struct cni_error *err)
{
	char path[PATH_MAX];
	struct stat a, b;

	slot_path(path, sizeof(path), data_dir, slot, "lock");
	for (;;) {
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		if (fd < 0 && errno == ENOENT && mkdir_parents(data_dir, 0700) == 0)
			continue;
		if (fd < 0) {
			cni_fail(err, PW_ERR_FILES,
				 "cannot open lock %s: %s; check \"dataDir\" (%s) is a writable "
				 "directory",
				 path, strerror(errno), data_dir);
			return -1;
		}
		if (flock(fd, nonblock ? LOCK_EX | LOCK_NB : LOCK_EX) != 0) {
			int e = errno;

			close(fd);
			if (e == EINTR)
				continue;
			if (e == EWOULDBLOCK)
				return -2;
			cni_fail(err, PW_ERR_FILES, "cannot lock %s: %s", path, strerror(e));
			return -1;
		}
		/* The holder before us may have dropped the file; lock the live one. */
		if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			return fd;
		close(fd);
	}
}

void record_unlock(const char *data_dir, uint32_t slot, int fd, bool drop)
{
	char path[PATH_MAX];

	if (fd < 0)
		return;
	if (drop) {
		slot_path(path, sizeof(path), data_dir, slot, "lock");
		unlink(path);
	}
	close(fd);
}

static void copy_str(const cJSON *o, const char *key, char *out, size_t len)
{
	snprintf(out, len, "%s", api_get_str(o, key, ""));
}

int record_read(const char *data_dir, uint32_t slot, struct attach *a, struct cni_error *err)
{
	char path[PATH_MAX];
	cJSON *doc;
	int rc;

	slot_path(path, sizeof(path), data_dir, slot, "json");
	rc = file_read_json(path, &doc);
	if (rc == -ENOENT)
		return 0;
	if (rc != 0)
		return cni_fail(err, CNI_ERR_IO,
				"record %s is unreadable (%s); remove it by hand after checking "
				"that its port is gone from podwired",
				path, rc == -EBADMSG ? "not JSON" : strerror(-rc));
	memset(a, 0, sizeof(*a));
	a->slot = slot;
	copy_str(doc, "containerID", a->containerid, sizeof(a->containerid));
	copy_str(doc, "ifname", a->ifname, sizeof(a->ifname));
	copy_str(doc, "cniNetwork", a->cni_name, sizeof(a->cni_name));
	copy_str(doc, "netns", a->netns, sizeof(a->netns));
	copy_str(doc, "args", a->args, sizeof(a->args));
	copy_str(doc, "port", a->port, sizeof(a->port));
	copy_str(doc, "network", a->network, sizeof(a->network));
	copy_str(doc, "podwiredSocket", a->podwired, sizeof(a->podwired));
	copy_str(doc, "dir", a->dir, sizeof(a->dir));
	copy_str(doc, "socket", a->socket, sizeof(a->socket));
	copy_str(doc, "podSocket", a->pod_socket, sizeof(a->pod_socket));
	copy_str(doc, "deviceInfoFile", a->devinfo, sizeof(a->devinfo));
	copy_str(doc, "mode", a->mode, sizeof(a->mode));
	copy_str(doc, "ipam", a->ipam_type, sizeof(a->ipam_type));
	copy_str(doc, "physnet", a->physnet, sizeof(a->physnet));
	copy_str(doc, "pci", a->pci, sizeof(a->pci));
	copy_str(doc, "pfPci", a->pf_pci, sizeof(a->pf_pci));
	copy_str(doc, "vfio", a->vfio, sizeof(a->vfio));
	copy_str(doc, "iface", a->host_iface, sizeof(a->host_iface));
	if (iftype_parse(api_get_str(doc, "iftype", ""), &a->iftype) != 0)
		a->iftype = IFTYPE_VHOST; /* records from before iftype was written */
	a->pod_creates_socket = api_get_bool(doc, "podCreatesSocket", false);
	/* Records from before queues were written had 1. */
	a->queues = (unsigned int)api_get_int(doc, "queues", 1);
	if (a->queues < 1 || a->queues > API_QUEUES_MAX)
		a->queues = 1;
	a->conf = cJSON_DetachItemFromObjectCaseSensitive(doc, "config");
	cJSON_Delete(doc);
	if (a->containerid[0] == '\0' || a->port[0] == '\0' || a->dir[0] == '\0') {
		attach_free(a);
		return cni_fail(err, CNI_ERR_IO,
				"record %s lacks containerID, port or dir; remove it by hand after "
				"checking that its port is gone from podwired",
				path);
	}
	return 1;
}

int record_write(const char *data_dir, const struct attach *a, struct cni_error *err)
{
	char path[PATH_MAX];
	cJSON *o = cJSON_CreateObject();
	int rc;

	cJSON_AddStringToObject(o, "containerID", a->containerid);
	cJSON_AddStringToObject(o, "ifname", a->ifname);
	cJSON_AddStringToObject(o, "cniNetwork", a->cni_name);
	cJSON_AddStringToObject(o, "netns", a->netns);
	cJSON_AddStringToObject(o, "args", a->args);
	cJSON_AddStringToObject(o, "port", a->port);
	cJSON_AddStringToObject(o, "network", a->network);
	cJSON_AddStringToObject(o, "podwiredSocket", a->podwired);
	cJSON_AddStringToObject(o, "dir", a->dir);
	cJSON_AddStringToObject(o, "socket", a->socket);
	cJSON_AddStringToObject(o, "podSocket", a->pod_socket);
	cJSON_AddStringToObject(o, "deviceInfoFile", a->devinfo);
	cJSON_AddStringToObject(o, "iftype", iftype_name(a->iftype));
	cJSON_AddStringToObject(o, "mode", a->mode);
	cJSON_AddBoolToObject(o, "podCreatesSocket", a->pod_creates_socket);
	if (a->queues > 1)
		cJSON_AddNumberToObject(o, "queues", a->queues);
	cJSON_AddStringToObject(o, "ipam", a->ipam_type);
	if (a->iftype == IFTYPE_PCI) {
		cJSON_AddStringToObject(o, "physnet", a->physnet);
		cJSON_AddStringToObject(o, "pci", a->pci);
		cJSON_AddStringToObject(o, "pfPci", a->pf_pci);
		cJSON_AddStringToObject(o, "vfio", a->vfio);
	}
	if (a->iftype == IFTYPE_KERNEL)
		cJSON_AddStringToObject(o, "iface", a->host_iface);
	if (a->conf != NULL)
		cJSON_AddItemToObject(o, "config", cJSON_Duplicate(a->conf, true));
	slot_path(path, sizeof(path), data_dir, a->slot, "json");
	rc = cni_write_json(path, o, 0600, (gid_t)-1, err);
	cJSON_Delete(o);
	return rc;
}

bool record_exists(const char *data_dir, uint32_t slot)
{
	char path[PATH_MAX];
	struct stat st;

	slot_path(path, sizeof(path), data_dir, slot, "json");
	return stat(path, &st) == 0;
}

void record_remove(const char *data_dir, uint32_t slot)
{
	char path[PATH_MAX];

	slot_path(path, sizeof(path), data_dir, slot, "json");
	unlink(path);
}

int record_find(const char *data_dir, const char *containerid, const char *ifname, bool for_add,
		struct attach *a, int *lock_fd, struct cni_error *err)
{
	uint32_t base = record_hash(containerid, ifname);
	int tries = 0;

	*lock_fd = -1;
again:
	if (++tries > 8)
		return cni_fail(err, PW_ERR_SLOTS,
				"the records of %s/%s keep changing under us in %s; retry",
				containerid, ifname, data_dir);
	/* Pass 1, without locks: is there a record of this attachment? (The
	 * runtime never runs two verbs for one attachment at once, so only
	 * GC can race with us; the locked re-read below settles that.) */
	for (uint32_t i = 0; i < RECORD_PROBE; i++) {
		struct cni_error ignored;
		int rc = record_read(data_dir, base + i, a, &ignored);
		bool mine;

		if (rc <= 0)
			continue;
		mine = strcmp(a->containerid, containerid) == 0 && strcmp(a->ifname, ifname) == 0;
		attach_free(a);
		if (!mine)
			continue;
		*lock_fd = record_lock(data_dir, base + i, false, err);
		if (*lock_fd < 0)
			return -1;
		rc = record_read(data_dir, base + i, a, err);
		if (rc < 0) {
			record_unlock(data_dir, base + i, *lock_fd, false);
			*lock_fd = -1;
			return -1;
		}
		if (rc == 1 && strcmp(a->containerid, containerid) == 0 &&
		    strcmp(a->ifname, ifname) == 0)
			return 1;
		if (rc == 1)
			attach_free(a);
		record_unlock(data_dir, base + i, *lock_fd, rc == 0);
		*lock_fd = -1;
		goto again;
	}
	if (!for_add)
		return 0;
	/* Pass 2: the first slot without a record, locked. */
	for (uint32_t i = 0; i < RECORD_PROBE; i++) {
		char path[PATH_MAX];
		struct stat st;
		int fd;

		slot_path(path, sizeof(path), data_dir, base + i, "json");
		if (stat(path, &st) == 0)
			continue;
		fd = record_lock(data_dir, base + i, false, err);
		if (fd < 0)
			return -1;
		if (stat(path, &st) == 0) {
			record_unlock(data_dir, base + i, fd, false);
			continue;
		}
		memset(a, 0, sizeof(*a));
		a->slot = base + i;
		*lock_fd = fd;
		return 0;
	}
	return cni_fail(err, PW_ERR_SLOTS,
			"all %d slots for %s/%s in %s are taken by other attachments; remove stale "
			"records (CNI GC does) and retry",
			RECORD_PROBE, containerid, ifname, data_dir);
}

int record_each(const char *data_dir, int (*fn)(uint32_t slot, void *arg), void *arg)
{
	DIR *d = opendir(data_dir);
	struct dirent *e;
	int rc = 0;

	if (d == NULL)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d)) != NULL) {
		char *end;
		unsigned long slot;

		if (strlen(e->d_name) != 13 || strcmp(e->d_name + 8, ".json") != 0)
			continue;
		slot = strtoul(e->d_name, &end, 16);
		if (end != e->d_name + 8)
			continue;
		rc = fn((uint32_t)slot, arg);
		if (rc != 0)
			break;
	}
	closedir(d);
	return rc;
}

int64_t port_name_slot(const char *name)
{
	char *end;
	unsigned long slot;
	size_t n = strlen(PORT_PREFIX);

	if (strncmp(name, PORT_PREFIX, n) != 0)
		return -1;
	slot = strtoul(name + n, &end, 16);
	if (end != name + n + 8 || *end != '-')
		return -1;
	return (int64_t)slot;
}

int pending_add(const char *data_dir, const struct attach *a, struct cni_error *err)
{
	char dir[PATH_MAX], path[PATH_MAX + API_NAME_MAX + 8];
	cJSON *o = cJSON_CreateObject();
	int rc;

	snprintf(dir, sizeof(dir), "%s/" PENDING_DIR, data_dir);
	mkdir_parents(dir, 0700);
	snprintf(path, sizeof(path), "%s/%s.json", dir, a->port);
	cJSON_AddStringToObject(o, "podwiredSocket", a->podwired);
	cJSON_AddStringToObject(o, "port", a->port);
	cJSON_AddStringToObject(o, "socket", a->socket);
	if (a->host_iface[0] != '\0')
		cJSON_AddStringToObject(o, "iface", a->host_iface);
	cJSON_AddStringToObject(o, "dir", a->dir);
	if (a->iftype == IFTYPE_PCI) {
		char owner[VF_OWNER_MAX];

		vf_owner(a->containerid, a->ifname, owner);
		cJSON_AddStringToObject(o, "vfOwner", owner);
		cJSON_AddStringToObject(o, "pci", a->pci);
	}
	rc = cni_write_json(path, o, 0600, (gid_t)-1, err);
	if (rc != 0 && mkdir_parents(dir, 0700) == 0) /* raced with a reconcile's rmdir */
		rc = cni_write_json(path, o, 0600, (gid_t)-1, err);
	cJSON_Delete(o);
	return rc;
}

bool pending_exists(const char *data_dir, const char *port)
{
	char path[PATH_MAX + API_NAME_MAX + 16];
	struct stat st;

	snprintf(path, sizeof(path), "%s/" PENDING_DIR "/%s.json", data_dir, port);
	return stat(path, &st) == 0;
}

/* Deletes one pending port. Returns 0 when the entry is done with, -1 when
 * it must stay (podwired did not answer). */
static int pending_one(struct pw_client *c, const cJSON *e)
{
	const char *port = api_get_str(e, "port", ""), *sock = api_get_str(e, "socket", "");
	const char *iface = api_get_str(e, "iface", "");
	const char *owner = api_get_str(e, "vfOwner", NULL);
	struct pw_error perr;
	cJSON *params = cJSON_CreateObject(), *res = NULL;
	int rc;

	if (owner != NULL) {
		/* A VF: releasing what is not lent (any more) is success. */
		cJSON_AddStringToObject(params, API_F_OWNER, owner);
		rc = pw_client_call(c, API_NAME(VF_RELEASE), params, &res, &perr);
		cJSON_Delete(res);
		return rc == 0 || perr.code == API_ERR_NOT_FOUND ? 0 : -1;
	}
	cJSON_AddStringToObject(params, API_F_NAME, port);
	rc = pw_client_call(c, API_NAME(PORT_GET), params, &res, &perr);
	if (rc != 0)
		return perr.code == API_ERR_NOT_FOUND ? 0 : -1;
	/* A port of that name on another socket (a veth: with another host
	 * end) is not the one we left. */
	if (strcmp(api_get_str(res, API_F_SOCKET, ""), sock) == 0 &&
	    strcmp(api_get_str(res, API_F_IFACE, ""), iface) == 0) {
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, API_F_NAME, port);
		cJSON_Delete(res);
		res = NULL;
		if (pw_client_call(c, API_NAME(PORT_DELETE), params, &res, &perr) != 0 &&
		    perr.code != API_ERR_NOT_FOUND) {
			cJSON_Delete(res);
			return -1;
		}
	}
	cJSON_Delete(res);
	return 0;
}

void pending_reconcile(const char *data_dir, struct pw_client *c, const char *podwired,
		       int64_t held_slot)
{
	char dir[PATH_MAX], path[PATH_MAX * 2];
	struct dirent *ent;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/" PENDING_DIR, data_dir);
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((ent = readdir(d)) != NULL) {
		struct cni_error err;
		int64_t slot;
		int lock = -1;
		cJSON *e;

		if (ent->d_name[0] == '.' || strstr(ent->d_name, ".json") == NULL ||
		    strstr(ent->d_name, ".tmp.") != NULL)
			continue;
		slot = port_name_slot(ent->d_name);
		if (slot < 0)
			continue;
		/* The slot lock orders us with an ADD reusing the slot; a busy
		 * slot is left to its holder, which reconciles it itself. */
		if (slot != held_slot) {
			lock = record_lock(data_dir, (uint32_t)slot, true, &err);
			if (lock < 0)
				continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
		if (file_read_json(path, &e) == 0) {
			if (strcmp(api_get_str(e, "podwiredSocket", ""), podwired) == 0 &&
			    pending_one(c, e) == 0) {
				/* The directory may be in use again by a new record. */
				if (!record_exists(data_dir, (uint32_t)slot))
					attach_dir_remove(api_get_str(e, "dir", ""));
				unlink(path);
			}
			cJSON_Delete(e);
		}
		if (slot != held_slot)
			record_unlock(data_dir, (uint32_t)slot, lock,
				      !record_exists(data_dir, (uint32_t)slot));
	}
	closedir(d);
	rmdir(dir); /* when empty: nothing is left behind */
}

int attach_dir_remove(const char *dir)
{
	static const char *const names[] = {PODWIRE_JSON, "vhost.sock", "memif.sock", NULL};
	char path[PATH_MAX + 32];

	if (dir == NULL || dir[0] == '\0')
		return 0;
	for (int i = 0; names[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	if (rmdir(dir) != 0 && errno != ENOENT)
		return -1;
	return 0;
}
