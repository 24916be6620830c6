/* SPDX-License-Identifier: BSD-3-Clause */
/* Networks and ports survive restarts: state.json under the state dir,
 * rewritten atomically after every change, replayed at start-up. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/notify.h"
#include "files.h"
#include "model/network.h"
#include "model/port_conf.h"
#include "model/port_failed.h"
#include "model/state.h"

PW_LOG_TYPE("state");

#define STATE_FILE "state.json"
/* 2: ports carry "port_security" (and the limits). A version 1 file comes
 * from a podwired without port security: its ports are restored without
 * it, as they ran (it wrote every port's MAC, given or generated, so the
 * default for a port with a MAC would turn it on for pods whose MAC is
 * not the one podwired generated). */
#define STATE_VERSION 2

static char state_dir[256];

void state_set_dir(const char *dir)
{
	snprintf(state_dir, sizeof(state_dir), "%s", dir);
}

int state_save(char *msg, size_t len)
{
	cJSON *doc = cJSON_CreateObject(), *nets, *ports;
	struct port_failed *f;
	struct network *n;
	struct port *p;
	int rc;

	cJSON_AddNumberToObject(doc, "version", STATE_VERSION);
	nets = cJSON_AddArrayToObject(doc, "networks");
	TAILQ_FOREACH (n, &network_all, next)
		cJSON_AddItemToArray(nets, net_conf_to_json(n));
	ports = cJSON_AddArrayToObject(doc, "ports");
	TAILQ_FOREACH (p, &port_all, next)
		cJSON_AddItemToArray(ports, port_conf_to_json(&p->conf, true));
	/* Ports that could not be restored stay until an operator deletes
	 * them: the next start tries them again. */
	TAILQ_FOREACH (f, &port_failed_all, next)
		cJSON_AddItemReferenceToArray(ports, f->saved);
	rc = state_file_write(state_dir, STATE_FILE, doc, msg, len);
	if (rc != 0)
		LOG(ERR, "%s", msg);
	cJSON_Delete(doc);
	/* Called after every change, saved or not: the model changed. */
	notify_publish(NOTIFY_STATE_SAVED, NULL);
	return rc;
}

/* A server-role socket lives in a directory podwired may have to remake
 * (a tmpfs under /run after the daemon restarted). */
static void ensure_socket_dir(const char *sock)
{
	char dir[API_SOCKET_PATH_MAX + 1], *slash;

	snprintf(dir, sizeof(dir), "%s", sock);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0755) == 0)
		LOG(NOTICE, "recreated socket directory %s", dir);
}

/* Where an entry of the file failed, for the log: "<dir>/state.json",
 * then what msg does not say already: "port "p1"", "field "mtu"". */
static const char *entry_where(const char *kind, const cJSON *item, const char *field,
			       const char *msg, char *buf, size_t len)
{
	char entry[128], quoted[80] = "";
	size_t n;

	snprintf(entry, sizeof(entry), "%s \"%s\"", kind, api_get_str(item, API_F_NAME, "?"));
	if (field != NULL)
		snprintf(quoted, sizeof(quoted), "\"%s\"", field);
	n = (size_t)snprintf(buf, len, "%s/%s", state_dir, STATE_FILE);
	if (n < len && strstr(msg, entry) == NULL)
		n += (size_t)snprintf(buf + n, len - n, ": %s", entry);
	if (n < len && quoted[0] != '\0' && strstr(msg, quoted) == NULL)
		snprintf(buf + n, len - n, ", field %s", quoted);
	return buf;
}

int state_restore(void)
{
	const cJSON *item, *nets, *ports;
	char msg[1024], where[512];
	const char *field;
	cJSON *doc;
	long version;
	int rc, code, ok = 0, failed = 0;

	rc = state_file_read(state_dir, STATE_FILE, &doc, msg, sizeof(msg));
	if (rc == -ENOENT)
		return 0;
	if (rc != 0) {
		/* Starting empty would overwrite it at the first change. */
		LOG(ERR,
		    "%s; podwired does not start over a state file it cannot read: fix it, or "
		    "move it away to start empty",
		    msg);
		return -EBADMSG;
	}
	nets = cJSON_GetObjectItemCaseSensitive(doc, "networks");
	ports = cJSON_GetObjectItemCaseSensitive(doc, "ports");
	version = api_get_int(doc, "version", 1);
	if (version > STATE_VERSION) {
		LOG(ERR,
		    "%s/%s is of version %ld, newer than this podwired's %d: it was written by a "
		    "newer podwire; run that one, or move the file away to start empty",
		    state_dir, STATE_FILE, version, STATE_VERSION);
		cJSON_Delete(doc);
		return -EBADMSG;
	}
	if (version < 2) {
		cJSON_ArrayForEach (item, ports)
			if (cJSON_IsObject(item) &&
			    cJSON_GetObjectItemCaseSensitive(item, API_F_PORT_SECURITY) == NULL)
				cJSON_AddBoolToObject((cJSON *)item, API_F_PORT_SECURITY, false);
		LOG(NOTICE,
		    "state file of version %ld (no port security yet): its ports are restored "
		    "without port security; recreate a port to have it",
		    version);
	}
	cJSON_ArrayForEach (item, nets) {
		struct net_conf conf;
		struct network *n;

		/* As strict as the API: the file is held to what it accepts. */
		field = NULL;
		if (net_conf_parse(item, &conf, msg, sizeof(msg), &field) != 0 ||
		    network_create(&conf, &n, &code, msg, sizeof(msg)) != 0) {
			LOG(ERR, "restoring %s: %s",
			    entry_where("network", item, field, msg, where, sizeof(where)), msg);
			failed++;
		}
	}
	cJSON_ArrayForEach (item, ports) {
		struct port_conf conf;
		struct network *n;
		struct port *p;
		bool parsed;

		field = NULL;
		parsed = port_conf_parse(item, false, &conf, msg, sizeof(msg), &field) == 0;
		if (parsed) {
			n = network_find(conf.network);
			if (conf.role == PORT_ROLE_SERVER && conf.socket[0] != '\0')
				ensure_socket_dir(conf.socket);
			if (n == NULL)
				snprintf(msg, sizeof(msg),
					 "port \"%s\": its network \"%s\" is gone; create the "
					 "network, or delete the port",
					 conf.name, conf.network);
			else if (port_create(&conf, n, &p, &code, msg, sizeof(msg)) == 0) {
				ok++;
				continue;
			}
		}
		LOG(ERR,
		    "restoring %s: %s; it is kept as failed (podwirectl port list shows it) "
		    "and tried again at the next start: fix the cause and restart podwired, or "
		    "delete it with podwirectl port del",
		    entry_where("port", item, parsed ? NULL : field, msg, where, sizeof(where)),
		    msg);
		if (port_failed_add(item, parsed ? &conf : NULL, msg) != 0)
			LOG(ERR, "out of memory keeping the failed port; it may be lost");
		failed++;
	}
	LOG(NOTICE, "restored %u network(s) and %d port(s) from %s/%s%s", network_count(), ok,
	    state_dir, STATE_FILE, failed ? " (some failed, see above)" : "");
	cJSON_Delete(doc);
	/* An older file is written again in this version's form at once. */
	if (version < STATE_VERSION && state_save(msg, sizeof(msg)) != 0)
		failed++;
	return failed ? -EIO : 0;
}
