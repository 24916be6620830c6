/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Garbage collection of endpoints no container uses. dockerd drops stale
 * endpoints without telling a v1 plugin after it crashed or restarted
 * without live-restore, so the driver looks for itself, never asking the
 * Docker API (a handler must not, and this runs under the same lock):
 *   - a joined endpoint whose sandbox (the netns file dockerd named in
 *     Join) is gone, once seen (dockerd makes it after Join) or after the grace period;
 *   - a kernel endpoint whose veth went with its container's namespace
 *     (podwired says "gone");
 *   - an endpoint never joined (or left) for longer than the grace period:
 *     dockerd joins within moments of creating one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"

/* Why e is stale, or NULL while a container may use it. */
static const char *stale(struct dk_endpoint *e, time_t now)
{
	bool late = now - e->created > dk_cfg.gc_grace_sec;
	struct stat st;
	char msg[256];

	if (e->sandbox[0] != '\0') {
		if (stat(e->sandbox, &st) == 0) {
			if (!e->sandbox_seen) {
				e->sandbox_seen = true;
				if (store_save(msg, sizeof(msg)) != 0)
					dk_log("gc: %s", msg);
			}
		} else if (errno == ENOENT && (e->sandbox_seen || late)) {
			return "its container's sandbox is gone";
		}
	} else if (late) {
		return "no container joined it within the grace period";
	}
	if (e->iftype == DK_IF_KERNEL) {
		cJSON *p = cJSON_CreateObject(), *port = NULL;
		struct pw_error pe;
		const char *state;
		bool gone;

		cJSON_AddStringToObject(p, API_F_NAME, e->port);
		if (pw_call(API_NAME(PORT_GET), p, &port, &pe) != 0)
			return NULL; /* podwired away: nothing to judge by */
		state = api_get_str(cJSON_GetObjectItemCaseSensitive(port, API_R_VETH), API_R_STATE,
				    "");
		gone = strcmp(state, "gone") == 0;
		cJSON_Delete(port);
		if (gone)
			return "its veth went with its container's namespace";
	}
	return NULL;
}

int gc_run(time_t now)
{
	int removed = 0;

	for (unsigned int i = 0; i < store_endpoint_count();) {
		struct dk_endpoint *e = store_endpoint_at(i);
		const char *why = stale(e, now);
		struct dk_err err = {0};
		char id[DK_ID_MAX + 1];

		if (why == NULL) {
			i++;
			continue;
		}
		snprintf(id, sizeof(id), "%s", e->id);
		dk_log("gc: endpoint %.12s: %s; removing it", id, why);
		if (endpoint_remove(e, &err) != 0) {
			dk_log("gc: %s", err.msg);
			/* Kept (podwired away): try again next pass. */
			if (store_endpoint(id) != NULL)
				i++;
			continue;
		}
		removed++;
	}
	return removed;
}

void *gc_thread(void *arg)
{
	(void)arg;
	for (;;) {
		sleep((unsigned int)dk_cfg.gc_interval_sec);
		pthread_mutex_lock(&dk_lock);
		gc_run(time(NULL));
		pthread_mutex_unlock(&dk_lock);
	}
	return NULL;
}
