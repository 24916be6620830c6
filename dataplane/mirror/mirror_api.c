/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mirror.create, mirror.del and mirror.list; mirrors.json in the state
 * dir (written after every change, read at start-up once the model has
 * restored the ports); the "mirror" module. A refused request changes
 * nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "api/registry.h"
#include "core/config.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/module.h"
#include "core/notify.h"
#include "files.h"
#include "mirror/mirror.h"
#include "model/network.h"

PW_LOG_TYPE("mirror");

#define MIRROR_FILE    "mirrors.json"
#define MIRROR_VERSION 1

static char state_dir[256];

static cJSON *mirror_json(const struct mirror *m, bool counts)
{
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(o, API_F_NAME, m->name);
	a = cJSON_AddArrayToObject(o, API_F_PORTS);
	for (uint16_t i = 0; i < m->n_ports; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(m->ports[i]->conf.name));
	cJSON_AddStringToObject(o, API_F_DIRECTION, mirror_dir_name(m->dirs));
	cJSON_AddStringToObject(o, API_F_TO, m->to->conf.name);
	if (m->acl != NULL)
		cJSON_AddStringToObject(o, API_F_ACL, m->acl_name);
	if (counts) {
		struct mirror_counters c;

		mirror_counts(m, &c);
		cJSON_AddNumberToObject(o, API_R_COPIES, (double)c.copies);
		cJSON_AddNumberToObject(o, API_R_DROPPED, (double)c.dropped);
	}
	return o;
}

/* mirrors.json: each mirror as mirror.create takes it. */
static int save(char *msg, size_t len)
{
	const struct mirror *m;
	cJSON *doc, *a;
	int rc;

	if (state_dir[0] == '\0')
		return 0;
	doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "version", MIRROR_VERSION);
	a = cJSON_AddArrayToObject(doc, "mirrors");
	TAILQ_FOREACH (m, &mirror_all, next) {
		cJSON *o = cJSON_CreateObject();
		char ports[MIRROR_PORTS_MAX * (API_NAME_MAX + 1) + 1];

		mirror_ports_text(m, ports, sizeof(ports));
		cJSON_AddStringToObject(o, API_F_NAME, m->name);
		cJSON_AddStringToObject(o, API_F_PORTS, ports);
		cJSON_AddStringToObject(o, API_F_DIRECTION, mirror_dir_name(m->dirs));
		cJSON_AddStringToObject(o, API_F_TO, m->to->conf.name);
		if (m->acl != NULL)
			cJSON_AddStringToObject(o, API_F_ACL, m->acl_name);
		cJSON_AddItemToArray(a, o);
	}
	rc = state_file_write(state_dir, MIRROR_FILE, doc, msg, len);
	cJSON_Delete(doc);
	return rc;
}

static cJSON *h_mirror_create(const cJSON *params, struct api_err *err)
{
	struct mirror_req r = {
	    .name = api_get_str(params, API_F_NAME, ""),
	    .ports = api_get_str(params, API_F_PORTS, ""),
	    .direction = api_get_str(params, API_F_DIRECTION, API_DIR_BOTH),
	    .to = api_get_str(params, API_F_TO, ""),
	    .acl = api_get_str(params, API_F_ACL, ""),
	};
	char smsg[512];
	struct mirror *m;

	if (mirror_create(&r, &m, &err->code, &err->field, err->msg, sizeof(err->msg)) != 0)
		return NULL;
	if (save(smsg, sizeof(smsg)) != 0) {
		mirror_delete(m, err->msg, sizeof(err->msg));
		return api_fail(err, API_ERR_INTERNAL, NULL, "%s", smsg);
	}
	return mirror_json(m, false);
}

static cJSON *h_mirror_del(const cJSON *params, struct api_err *err)
{
	const char *name = api_get_str(params, API_F_NAME, "");
	struct mirror *m = mirror_find(name);
	char ports[MIRROR_PORTS_MAX * (API_NAME_MAX + 1) + 1], to[API_NAME_MAX + 1];
	char smsg[512], acl[API_NAME_MAX + 1];
	struct mirror_req r = {.name = name, .ports = ports, .to = to, .acl = acl};

	if (m == NULL)
		return api_fail(err, API_ERR_NOT_FOUND, API_F_NAME,
				"mirror \"%s\" does not exist; `podwirectl mirror list` shows the "
				"mirrors",
				name);
	mirror_ports_text(m, ports, sizeof(ports));
	snprintf(to, sizeof(to), "%s", m->to->conf.name);
	snprintf(acl, sizeof(acl), "%s", m->acl_name);
	r.direction = mirror_dir_name(m->dirs);
	if (mirror_delete(m, err->msg, sizeof(err->msg)) != 0)
		return api_refuse(err, API_ERR_RESOURCE, NULL);
	if (save(smsg, sizeof(smsg)) != 0) {
		/* Back as it was, as the file still says. */
		mirror_create(&r, NULL, &err->code, &err->field, err->msg, sizeof(err->msg));
		return api_fail(err, API_ERR_INTERNAL, NULL, "%s", smsg);
	}
	return cJSON_CreateObject();
}

static cJSON *h_mirror_list(const cJSON *params, struct api_err *err)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, API_R_MIRRORS);
	const struct mirror *m;

	(void)params, (void)err;
	TAILQ_FOREACH (m, &mirror_all, next)
		cJSON_AddItemToArray(a, mirror_json(m, true));
	return o;
}

API_HANDLER(MIRROR_CREATE, h_mirror_create)
API_HANDLER(MIRROR_DEL, h_mirror_del)
API_HANDLER(MIRROR_LIST, h_mirror_list)

/* NOTIFY_PORT_DELETED. At shutdown (the port is not deleted for good)
 * the mirrors are gone already: mirror_stop runs first. */
static void port_deleted(const void *arg, void *ctx)
{
	const struct port *p = arg;
	char msg[512];

	(void)ctx;
	if (mirror_port_gone(p) && p->deleting && save(msg, sizeof(msg)) != 0)
		LOG(ERR, "%s; the mirrors' change is not saved", msg);
}

/* One record of mirrors.json, recreated with those of its ports that
 * exist (a port that failed to come back is left out, and said). */
static void restore_one(const cJSON *o, const char *file)
{
	const char *name = api_get_str(o, API_F_NAME, "");
	const char *list = api_get_str(o, API_F_PORTS, "");
	char ports[MIRROR_PORTS_MAX * (API_NAME_MAX + 1) + 1], buf[sizeof(ports)], msg[1024];
	char *save_p = NULL, *n;
	struct mirror_req r = {.name = name,
			       .ports = ports,
			       .direction = api_get_str(o, API_F_DIRECTION, API_DIR_BOTH),
			       .to = api_get_str(o, API_F_TO, ""),
			       .acl = api_get_str(o, API_F_ACL, "")};
	const char *field;
	size_t off = 0;
	int code;

	ports[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", list);
	for (n = strtok_r(buf, ",", &save_p); n != NULL; n = strtok_r(NULL, ",", &save_p)) {
		if (port_find(n) == NULL) {
			LOG(WARNING,
			    "%s: mirror \"%s\": port \"%s\" is not there; it is not copied", file,
			    name, n);
			continue;
		}
		off +=
		    (size_t)snprintf(ports + off, sizeof(ports) - off, "%s%s", off ? "," : "", n);
		if (off >= sizeof(ports))
			break;
	}
	if (mirror_create(&r, NULL, &code, &field, msg, sizeof(msg)) != 0)
		LOG(WARNING, "%s: %s; the mirror is not restored", file, msg);
}

static void restore(void)
{
	char msg[768], file[300];
	const cJSON *a, *o;
	cJSON *doc;
	int rc;

	snprintf(file, sizeof(file), "%s/%s", state_dir, MIRROR_FILE);
	rc = state_file_read(state_dir, MIRROR_FILE, &doc, msg, sizeof(msg));
	if (rc == -ENOENT)
		return;
	if (rc != 0) {
		LOG(WARNING, "%s; no mirror is restored (fix or remove the file)", msg);
		return;
	}
	a = cJSON_GetObjectItemCaseSensitive(doc, "mirrors");
	if (!cJSON_IsArray(a))
		LOG(WARNING,
		    "%s has no \"mirrors\" array; no mirror is restored (fix or remove it)", file);
	cJSON_ArrayForEach (o, a)
		restore_one(o, file);
	if (mirror_count() != 0)
		LOG(INFO, "%u mirror(s) restored from %s", mirror_count(), file);
	cJSON_Delete(doc);
}

int mirror_start(const char *dir)
{
	int rc = notify_subscribe(NOTIFY_PORT_DELETED, port_deleted, NULL);

	if (rc != 0)
		return rc;
	/* acl.del refuses a list a mirror selects with: taps hold it. */
	acl_user_register(mirror_uses_acl);
	snprintf(state_dir, sizeof(state_dir), "%s", dir != NULL ? dir : "");
	if (dir != NULL)
		restore();
	return 0;
}

void mirror_stop(void)
{
	notify_unsubscribe(NOTIFY_PORT_DELETED, port_deleted, NULL);
	mirror_remove_all();
	acl_user_register(NULL);
	state_dir[0] = '\0';
}

static int mirror_init(void)
{
	int rc;

	pthread_mutex_lock(&ctl_lock);
	rc = mirror_start(pw_cfg.state_dir);
	pthread_mutex_unlock(&ctl_lock);
	if (rc != 0)
		fprintf(stderr, "podwired: out of memory starting mirrors\n");
	return rc;
}

static void mirror_fini(void)
{
	pthread_mutex_lock(&ctl_lock);
	mirror_stop();
	pthread_mutex_unlock(&ctl_lock);
}

/* After acl: a mirror's list must be there when mirrors.json is read,
 * and outlive the mirrors at shutdown. */
PW_MODULE(mirror, mirror_init, mirror_fini, "model", "acl");
