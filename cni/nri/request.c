/* SPDX-License-Identifier: BSD-3-Clause */
/* podwire-nri's request: what containerd's NRI v0.1 client writes on the
 * plugin's stdin, checked before anything acts on it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "nri/request.h"

static const char *conf_str(const cJSON *conf, const char *key, const char *dflt)
{
	const char *v = api_get_str(conf, key, NULL);

	return v != NULL && v[0] != '\0' ? v : dflt;
}

/* An id becomes a file name: no '/', no leading '.'. */
static bool id_ok(const char *id)
{
	return id != NULL && id[0] != '\0' && id[0] != '.' && strchr(id, '/') == NULL &&
	       strlen(id) <= 200;
}

/* The CPUs the container asked for in its OCI resources, if any. */
int nri_request_cpus(const struct nri_req *r, struct cpuset *s, bool *set, char *msg, size_t len)
{
	const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(r->spec, "resources"), "cpu");
	const char *cpus = api_get_str(cpu, "cpus", NULL);
	char why[256];

	*set = cpus != NULL && cpus[0] != '\0';
	if (!*set)
		return 0;
	if (cpuset_parse(cpus, s, why, sizeof(why)) != 0) {
		snprintf(msg, len, "spec.resources.cpu.cpus: %s", why);
		return -EINVAL;
	}
	return 0;
}

int nri_request_parse(const cJSON *doc, struct nri_req *r, char *msg, size_t len)
{
	const cJSON *conf = cJSON_GetObjectItemCaseSensitive(doc, "conf");
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(doc, "pid");

	memset(r, 0, sizeof(*r));
	r->doc = doc;
	r->version = api_get_str(doc, "version", NULL);
	r->state = api_get_str(doc, "state", NULL);
	r->id = api_get_str(doc, "id", NULL);
	r->sandbox = api_get_str(doc, "sandboxID", "");
	r->spec = cJSON_GetObjectItemCaseSensitive(doc, "spec");
	r->annotations = cJSON_GetObjectItemCaseSensitive(r->spec, "annotations");
	if (!cJSON_IsObject(doc)) {
		snprintf(msg, len, "the request on stdin is not a JSON object");
		return -EINVAL;
	}
	if (r->version == NULL || strncmp(r->version, "0.1", 3) != 0) {
		snprintf(msg, len, "request \"version\" is \"%s\"; " PLUGIN " speaks NRI 0.1",
			 r->version ? r->version : "(none)");
		return -EINVAL;
	}
	if (r->state == NULL) {
		snprintf(msg, len, "request has no \"state\"");
		return -EINVAL;
	}
	if (!id_ok(r->id)) {
		snprintf(msg, len, "request \"id\" is missing or not a container id");
		return -EINVAL;
	}
	if (pid != NULL && !cJSON_IsNumber(pid)) {
		snprintf(msg, len, "request \"pid\" must be a number");
		return -EINVAL;
	}
	r->pid = (int)api_get_int(doc, "pid", 0);
	if (conf != NULL && !cJSON_IsObject(conf)) {
		snprintf(msg, len,
			 "\"conf\" of " PLUGIN " in /etc/nri/conf.json must be an object");
		return -EINVAL;
	}
	r->socket = conf_str(conf, "podwiredSocket", PODWIRE_DEFAULT_SOCKET);
	r->state_dir = conf_str(conf, "stateDir", DEFAULT_STATE);
	r->cg_root = conf_str(conf, "cgroupRoot", "/sys/fs/cgroup");
	r->proc_root = conf_str(conf, "procRoot", "/proc");
	if (r->socket[0] != '/' || r->state_dir[0] != '/' || r->cg_root[0] != '/' ||
	    r->proc_root[0] != '/') {
		snprintf(msg, len,
			 "conf: podwiredSocket, stateDir, cgroupRoot and procRoot must be absolute "
			 "paths");
		return -EINVAL;
	}
	return 0;
}
