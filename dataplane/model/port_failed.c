/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports that could not be restored (port_failed.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/network.h"
#include "model/port_failed.h"

struct port_failed_list port_failed_all = TAILQ_HEAD_INITIALIZER(port_failed_all);

int port_failed_add(const cJSON *entry, const struct port_conf *conf, const char *reason)
{
	struct port_failed *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -ENOMEM;
	f->saved = cJSON_Duplicate(entry, true);
	if (f->saved == NULL) {
		free(f);
		return -ENOMEM;
	}
	if (conf != NULL) {
		f->conf = *conf;
	} else {
		/* Enough to list it and to delete it by name. */
		snprintf(f->conf.name, sizeof(f->conf.name), "%s",
			 api_get_str(entry, API_F_NAME, ""));
		snprintf(f->conf.network, sizeof(f->conf.network), "%s",
			 api_get_str(entry, API_F_NETWORK, ""));
		snprintf(f->conf.type, sizeof(f->conf.type), "%s",
			 api_get_str(entry, API_F_TYPE, ""));
	}
	snprintf(f->reason, sizeof(f->reason), "%s", reason);
	TAILQ_INSERT_TAIL(&port_failed_all, f, next);
	return 0;
}

struct port_failed *port_failed_find(const char *name)
{
	struct port_failed *f;

	TAILQ_FOREACH (f, &port_failed_all, next)
		if (strcmp(f->conf.name, name) == 0)
			return f;
	return NULL;
}

struct port_failed *port_failed_by_socket(const char *path)
{
	struct port_failed *f;

	TAILQ_FOREACH (f, &port_failed_all, next)
		if (f->conf.socket[0] != '\0' && strcmp(f->conf.socket, path) == 0)
			return f;
	return NULL;
}

struct port_failed *port_failed_on(const char *net)
{
	struct port_failed *f;

	TAILQ_FOREACH (f, &port_failed_all, next)
		if (strcmp(f->conf.network, net) == 0)
			return f;
	return NULL;
}

void port_failed_delete(struct port_failed *f)
{
	if (f == NULL)
		return;
	TAILQ_REMOVE(&port_failed_all, f, next);
	cJSON_Delete(f->saved);
	free(f);
}

void port_failed_delete_all(void)
{
	while (!TAILQ_EMPTY(&port_failed_all))
		port_failed_delete(TAILQ_FIRST(&port_failed_all));
}

cJSON *port_failed_json(const struct port_failed *f)
{
	const struct network *n = network_find(f->conf.network);
	cJSON *o = port_conf_to_json(&f->conf, false);

	/* The limit that would be in force, as port_json says. */
	if (!f->conf.flood_limit_set)
		cJSON_AddNumberToObject(o, API_F_FLOOD_LIMIT, n != NULL ? n->flood_limit : 0);

	cJSON_AddStringToObject(o, API_F_LINK, "failed");
	cJSON_AddStringToObject(o, API_R_REASON, f->reason);
	return o;
}
