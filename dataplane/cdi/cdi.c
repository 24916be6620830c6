/* SPDX-License-Identifier: BSD-3-Clause */
/* podwired's CDI spec files: built from the model and the VF pools by
 * spec.c, written when they change (see cdi.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "cdi/cdi.h"
#include "cdi/spec.h"
#include "core/config.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/module.h"
#include "core/notify.h"
#include "files.h"
#include "model/port.h"
#include "sriov/vf_pool.h"
#include "validate.h"

PW_LOG_TYPE("cdi");

static const char *const classes[CDI_KIND_COUNT] = {CDI_CLASS_PORT, CDI_CLASS_VF,
						    CDI_CLASS_HUGEPAGES};
static char cdi_dir[PATH_MAX];
static char dev_root[PATH_MAX] = "/dev";
static bool started;
static bool synced; /* a first sync also removes files a crash left */
/* The model changed: the specs are rebuilt after the request (or the
 * start-up step) that changed it, once, as it finally stands. */
static bool dirty;

static void mark_dirty(const void *arg, void *ctx)
{
	(void)arg;
	(void)ctx;
	dirty = true;
}

static void flush(const void *arg, void *ctx)
{
	(void)arg;
	(void)ctx;
	if (dirty) {
		dirty = false;
		cdi_sync();
	}
}
/* What each file holds now (NULL: absent), to write only changes. */
static char *written[CDI_KIND_COUNT];

/* The documents of every kind (NULL: no device) and what was skipped. */
static void build(cJSON *docs[CDI_KIND_COUNT], cJSON *skipped)
{
	unsigned int n = 0, nv = 0, cap = port_count();
	struct cdi_port *ports = calloc(cap + 1, sizeof(*ports));
	char(*macs)[18] = calloc(cap + 1, sizeof(*macs));
	char(*nodes)[64] = calloc(vf_pool_entry_count() + 1, sizeof(*nodes));
	struct cdi_vf *vfs = calloc(vf_pool_entry_count() + 1, sizeof(*vfs));
	unsigned int pos[VF_POOL_MAX_PHYSNETS] = {0};
	struct port *p;

	for (int k = 0; k < CDI_KIND_COUNT; k++)
		docs[k] = NULL;
	if (ports == NULL || macs == NULL || nodes == NULL || vfs == NULL) {
		LOG(ERR, "out of memory building the CDI specs; they are left as they were");
		goto out;
	}
	TAILQ_FOREACH (p, &port_all, next) {
		bool memif = strcmp(p->ops->kind, API_PORT_MEMIF) == 0;

		if (n == cap || p->conf.socket[0] == '\0' ||
		    (!memif && strcmp(p->ops->kind, API_PORT_VHOST) != 0))
			continue;
		format_mac(p->conf.mac, macs[n]);
		ports[n] = (struct cdi_port){.name = p->conf.name,
					     .memif = memif,
					     .server = p->conf.role == PORT_ROLE_SERVER,
					     .socket = p->conf.socket,
					     .mac = macs[n]};
		n++;
	}
	for (unsigned int i = 0; i < vf_pool_entry_count(); i++) {
		const struct vf_entry *e = vf_pool_entry(i);
		unsigned int at = pos[e->physnet]++;

		/* Only a VF lent out is on vfio-pci, its group's node there. */
		if (e->state != VF_USED)
			continue;
		sriov_vfio_device(&e->vf, nodes[nv], sizeof(nodes[nv]));
		vfs[nv] = (struct cdi_vf){.pci = e->vf.pci,
					  .pf_pci = e->vf.pf_pci,
					  .physnet = vf_pool_physnet(e->physnet)->name,
					  .pos = at,
					  .vfio_node = nodes[nv]};
		nv++;
	}
	docs[0] = cdi_port_spec(ports, n, skipped);
	docs[1] = cdi_vf_spec(vfs, nv, dev_root, skipped);
	docs[2] = cdi_hugepages_spec();
out:
	free(ports);
	free(macs);
	free(nodes);
	free(vfs);
}

static void file_path(int k, char *buf, size_t len)
{
	char name[64];

	cdi_file_name(classes[k], name, sizeof(name));
	snprintf(buf, len, "%s/%s", cdi_dir, name);
}

static void remove_file(int k)
{
	char path[PATH_MAX + 64];

	file_path(k, path, sizeof(path));
	if (unlink(path) == 0)
		LOG(INFO, "removed %s: no %s device now", path, classes[k]);
	else if (errno != ENOENT)
		LOG(ERR, "cannot remove %s: %s", path, strerror(errno));
	free(written[k]);
	written[k] = NULL;
}

static void write_kind(int k, const cJSON *doc)
{
	char path[PATH_MAX + 64], msg[PATH_MAX + 256];
	char *text;

	if (doc == NULL) {
		if (written[k] != NULL || !synced)
			remove_file(k);
		return;
	}
	/* A document that is not a valid spec is never written: a runtime
	 * would refuse the whole file. (It would be a bug here.) */
	if (cdi_check_spec(doc, msg, sizeof(msg)) != 0) {
		LOG(ERR, "the %s spec is not valid, not written: %s", classes[k], msg);
		remove_file(k);
		return;
	}
	text = cJSON_Print(doc);
	if (text == NULL || (written[k] != NULL && strcmp(text, written[k]) == 0)) {
		free(text);
		return;
	}
	file_path(k, path, sizeof(path));
	if (json_file_write(path, doc, 0644, (gid_t)-1, msg, sizeof(msg)) != 0) {
		LOG(ERR, "CDI spec: %s", msg);
		free(text);
		return;
	}
	free(written[k]);
	written[k] = text;
	LOG(DEBUG, "wrote %s", path);
}

void cdi_sync(void)
{
	cJSON *docs[CDI_KIND_COUNT], *skipped;

	if (cdi_dir[0] == '\0')
		return;
	skipped = cJSON_CreateArray();
	build(docs, skipped);
	for (int k = 0; k < CDI_KIND_COUNT; k++) {
		write_kind(k, docs[k]);
		cJSON_Delete(docs[k]);
	}
	synced = true;
	cJSON_Delete(skipped);
}

/* podwire.io-port.json.tmp.<pid> files a killed podwired left. Runtimes
 * read only *.json and *.yaml, so they were never seen; still, clean up. */
static void remove_stale_temps(void)
{
	DIR *d = opendir(cdi_dir);
	struct dirent *e;
	char path[PATH_MAX + 256];

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, CDI_VENDOR "-", strlen(CDI_VENDOR) + 1) != 0 ||
		    strstr(e->d_name, ".json.tmp.") == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", cdi_dir, e->d_name);
		if (unlink(path) == 0)
			LOG(NOTICE, "removed %s, left by a podwired that did not stop cleanly",
			    path);
	}
	if (d != NULL)
		closedir(d);
}

/* What changes the devices: the specs are rebuilt once the request (or
 * the start-up step) that changed them is done. */
static const enum notify_event marks[] = {NOTIFY_PORT_CREATED, NOTIFY_PORT_DELETED,
					  NOTIFY_STATE_SAVED, NOTIFY_VF_POOL_CHANGED};

static void unsubscribe(void)
{
	for (unsigned int i = 0; i < RTE_DIM(marks); i++)
		notify_unsubscribe(marks[i], mark_dirty, NULL);
	notify_unsubscribe(NOTIFY_API_REQUEST_DONE, flush, NULL);
}

int cdi_start(const char *dir, const char *root)
{
	snprintf(cdi_dir, sizeof(cdi_dir), "%s", dir);
	snprintf(dev_root, sizeof(dev_root), "%s", root);
	if (cdi_dir[0] == '\0') {
		LOG(NOTICE, "no CDI directory: no CDI specs are written");
		return 0;
	}
	remove_stale_temps();
	for (unsigned int i = 0; i < RTE_DIM(marks); i++)
		if (notify_subscribe(marks[i], mark_dirty, NULL) != 0) {
			unsubscribe();
			LOG(ERR, "out of memory subscribing to the model's changes; CDI specs "
				 "are not written");
			return -ENOMEM;
		}
	if (notify_subscribe(NOTIFY_API_REQUEST_DONE, flush, NULL) != 0) {
		unsubscribe();
		LOG(ERR, "out of memory subscribing to the API's requests; CDI specs are not "
			 "written");
		return -ENOMEM;
	}
	started = true;
	cdi_sync();
	LOG(NOTICE, "CDI specs in %s (%s/%s, %s/%s, %s/%s)", cdi_dir, CDI_VENDOR, classes[0],
	    CDI_VENDOR, classes[1], CDI_VENDOR, classes[2]);
	return 0;
}

void cdi_stop(void)
{
	if (cdi_dir[0] == '\0' || !started)
		return;
	unsubscribe();
	for (int k = 0; k < CDI_KIND_COUNT; k++)
		remove_file(k);
	started = false;
	synced = false;
}

static int cdi_init(void)
{
	int rc;

	pthread_mutex_lock(&ctl_lock);
	rc = cdi_start(pw_cfg.cdi_dir, pw_cfg.dev_root);
	pthread_mutex_unlock(&ctl_lock);
	return rc;
}

static void cdi_fini(void)
{
	pthread_mutex_lock(&ctl_lock);
	cdi_stop();
	pthread_mutex_unlock(&ctl_lock);
}

/* The specs list the model's ports and the pools' VFs, both restored. */
PW_MODULE(cdi, cdi_init, cdi_fini, "model", "sriov");

/* One row per device: its qualified name, kind, file and environment. */
static void list_devices(cJSON *out, const cJSON *doc, const char *file)
{
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "kind"));
	const cJSON *d;

	cJSON_ArrayForEach (d, cJSON_GetObjectItemCaseSensitive(doc, "devices")) {
		const char *name =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "name"));
		const cJSON *edits = cJSON_GetObjectItemCaseSensitive(d, "containerEdits");
		cJSON *o = cJSON_CreateObject();
		char qualified[256];

		snprintf(qualified, sizeof(qualified), "%s=%s", kind, name);
		cJSON_AddStringToObject(o, API_F_NAME, qualified);
		cJSON_AddStringToObject(o, API_R_KIND, kind);
		cJSON_AddStringToObject(o, API_R_DEVICE, name);
		cJSON_AddStringToObject(o, API_R_FILE, file);
		cJSON_AddItemToObject(
		    o, API_R_ENV,
		    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(edits, "env"), true));
		cJSON_AddItemToArray(out, o);
	}
}

cJSON *cdi_list_json(void)
{
	cJSON *o = cJSON_CreateObject(), *docs[CDI_KIND_COUNT], *devices, *specs;
	cJSON *skipped = cJSON_CreateArray();

	build(docs, skipped);
	cJSON_AddStringToObject(o, API_R_DIR, cdi_dir);
	devices = cJSON_AddArrayToObject(o, API_R_DEVICES);
	specs = cJSON_AddArrayToObject(o, API_R_SPECS);
	for (int k = 0; k < CDI_KIND_COUNT; k++) {
		cJSON *s;
		char file[64];

		if (docs[k] == NULL)
			continue;
		cdi_file_name(classes[k], file, sizeof(file));
		list_devices(devices, docs[k], file);
		s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, API_R_FILE, file);
		cJSON_AddItemToObject(s, API_R_SPEC, docs[k]);
		cJSON_AddItemToArray(specs, s);
	}
	cJSON_AddItemToObject(o, API_R_SKIPPED, skipped);
	return o;
}
