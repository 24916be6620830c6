/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-nri: an NRI v0.1 plugin (containerd 1.6's CRI plugin runs it)
 * that keeps containers off podwired's poll-mode worker cores.
 *
 * containerd executes it by its type name, found in PATH or /opt/nri/bin,
 * as `podwire-nri invoke`, with the request on stdin:
 *   {"conf":{...},"version":"0.1","state":"create","id":ID,"sandboxID":SB,
 *    "pid":N,"spec":{"resources":{...},"namespaces":{...},"cgroupsPath":P,
 *    "annotations":{...}},"labels":{...},"results":[...]}
 * and reads a result from stdout:
 *   {"plugin":"podwire-nri","version":"0.1","error":"","metadata":{...}}.
 * An error in the result (this plugin also exits 1 then) fails the
 * container's start. containerd 1.6 sends create (task made, not started)
 * and delete; update, pause and resume are handled as the draft says.
 *
 * create/update: the container's cpuset.cpus becomes the CPUs its parent
 * cgroup (and its own resources.cpu.cpus, when set) allow, minus the
 * worker cores podwired reports (system.info); a container annotated
 * podwire.io/cores=LIST gets LIST if no worker core is in it and LIST is
 * within its parent's CPUs and its own resources.cpu.cpus (when set).
 * Never an empty set: that is refused with the reason. What it wrote is recorded in
 * stateDir/<id>.json; delete removes the record. conf (in
 * /etc/nri/conf.json): podwiredSocket, stateDir, cgroupRoot, procRoot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "api.h"
#include "client.h"
#include "files.h"
#include "nri/cgroup.h"
#include "nri/cpuset.h"
#include "nri/request.h"

/* The answer: an error, or success with metadata. Exit status follows. */
static int answer(const struct nri_req *r, const char *error, cJSON *meta)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	cJSON_AddStringToObject(o, "plugin", PLUGIN);
	cJSON_AddStringToObject(o, "version", r != NULL && r->version ? r->version : "0.1");
	cJSON_AddStringToObject(o, "error", error != NULL ? error : "");
	cJSON_AddItemToObject(o, "metadata", meta != NULL ? meta : cJSON_CreateObject());
	text = cJSON_PrintUnformatted(o);
	printf("%s\n", text != NULL ? text : "{}");
	fflush(stdout);
	cJSON_free(text);
	cJSON_Delete(o);
	if (error != NULL && error[0] != '\0') {
		fprintf(stderr, PLUGIN ": %s\n", error);
		return 1;
	}
	return 0;
}

/* Is podwired there at all? Not running (no socket, nobody listening)
 * means no worker core busy-polls: nothing to keep containers off. */
static bool podwired_running(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	rc = fd >= 0 ? connect(fd, (struct sockaddr *)&sa, sizeof(sa)) : -1;
	if (fd >= 0)
		close(fd);
	return !(rc != 0 && (errno == ENOENT || errno == ECONNREFUSED));
}

/* podwired's worker cores. 1: podwired is not running; 0; -1 with msg. */
static int worker_cores(const char *sock, struct cpuset *w, char *msg, size_t len)
{
	struct pw_error err = {0};
	struct pw_client *c;
	cJSON *info = NULL;
	const cJSON *wk;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!podwired_running(sock))
		return 1;
	c = pw_client_connect(sock, 5000, &err);
	rc = c != NULL ? pw_client_call(c, API_NAME(SYSTEM_INFO), NULL, &info, &err) : -1;
	pw_client_close(c);
	if (rc != 0) {
		snprintf(msg, len,
			 "cannot ask podwired (%s) for its worker cores: %s; check conf "
			 "\"podwiredSocket\" in /etc/nri/conf.json",
			 sock, err.message);
		return -1;
	}
	cJSON_ArrayForEach (wk, cJSON_GetObjectItemCaseSensitive(info, API_R_WORKERS))
		cpuset_add(w, (unsigned int)api_get_int(wk, API_R_LCORE, CPUSET_MAX));
	cJSON_Delete(info);
	return 0;
}

static void record_path(const struct nri_req *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.json", r->state_dir, r->id);
}

static int apply(const struct nri_req *r)
{
	struct cpuset workers, parent, allowed, own, asked, target, overlap;
	char msg[16384], why[8192], list[4096], wl[1024], pl[4096], path[4096];
	const char *cores = api_get_str(r->annotations, ANNOTATION_CORES, NULL);
	struct nri_cgroup cg;
	bool own_set;
	cJSON *meta, *rec;
	int rc;

	if (r->pid <= 0)
		return answer(r,
			      "request has no \"pid\": the container's process is needed to find "
			      "its cgroup",
			      NULL);
	if (cores != NULL && cpuset_parse(cores, &target, why, sizeof(why)) != 0) {
		snprintf(msg, sizeof(msg), "container %s: annotation %s: %s", r->id,
			 ANNOTATION_CORES, why);
		return answer(r, msg, NULL);
	}
	/* The container's own CPUs bound the annotation too: unreadable,
	 * they bound nothing, so that is refused with or without it. */
	if (nri_request_cpus(r, &asked, &own_set, why, sizeof(why)) != 0) {
		snprintf(msg, sizeof(msg), "container %s: %s", r->id, why);
		return answer(r, msg, NULL);
	}
	rc = worker_cores(r->socket, &workers, why, sizeof(why));
	if (rc < 0)
		return answer(r, why, NULL);
	if (rc == 1) {
		meta = cJSON_CreateObject();
		cJSON_AddStringToObject(meta, "skipped", "podwired is not running: no worker core");
		return answer(r, NULL, meta);
	}
	if (cgroup_of_pid(r->proc_root, r->cg_root, r->pid, &cg, why, sizeof(why)) != 0 ||
	    cgroup_parent_cpus(&cg, &parent, why, sizeof(why)) != 0) {
		snprintf(msg, sizeof(msg), "container %s: %s", r->id, why);
		return answer(r, msg, NULL);
	}
	cpuset_format(&workers, wl, sizeof(wl));
	cpuset_format(&parent, pl, sizeof(pl));
	if (cores != NULL) {
		/* A DPDK pod that asked for dedicated cores: those, if no
		 * worker polls one and its parent has them all. */
		cpuset_and(&target, &workers, &overlap);
		if (cpuset_empty(&target) || !cpuset_empty(&overlap) ||
		    !cpuset_subset(&target, &parent)) {
			cpuset_format(&overlap, list, sizeof(list));
			snprintf(msg, sizeof(msg),
				 "container %s: annotation %s=\"%s\" %s; ask for cores of %s "
				 "other than podwired's workers (%s)",
				 r->id, ANNOTATION_CORES, cores,
				 cpuset_empty(&target) ? "is empty"
				 : !cpuset_empty(&overlap)
				     ? "includes podwired's poll-mode worker core(s)"
				     : "is not within its cgroup's CPUs",
				 pl, wl);
			if (!cpuset_empty(&overlap))
				snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " [%s]",
					 list);
			return answer(r, msg, NULL);
		}
		/* The parent is the whole pod's (kubepods, for a Guaranteed
		 * pod the node's shared pool and more): within it, only the
		 * container's own CPUs are its to ask for, not another pod's
		 * exclusive ones. */
		if (own_set && !cpuset_subset(&target, &asked)) {
			cpuset_format(&asked, list, sizeof(list));
			snprintf(msg, sizeof(msg),
				 "container %s: annotation %s=\"%s\" is not within the container's "
				 "own CPUs (spec.resources.cpu.cpus \"%s\"); ask for cores of %s "
				 "other than podwired's workers (%s), or give the container the "
				 "cores it names",
				 r->id, ANNOTATION_CORES, cores, list, list, wl);
			return answer(r, msg, NULL);
		}
	} else {
		allowed = parent;
		if (own_set)
			cpuset_and(&asked, &parent, &allowed);
		cpuset_minus(&allowed, &workers, &target);
		if (cpuset_empty(&target)) {
			cpuset_format(&allowed, list, sizeof(list));
			snprintf(msg, sizeof(msg),
				 "container %s: every CPU it may use (%s) is a poll-mode worker "
				 "core of podwired (%s), so none would be left; give the pod "
				 "other CPUs, or podwired other --worker-cores",
				 r->id, list, wl);
			return answer(r, msg, NULL);
		}
	}
	cpuset_format(&target, list, sizeof(list));
	if (cgroup_read_cpus(&cg, &own, why, sizeof(why)) != 0 ||
	    cgroup_write_cpus(&cg, list, why, sizeof(why)) != 0) {
		snprintf(msg, sizeof(msg), "container %s: %s", r->id, why);
		return answer(r, msg, NULL);
	}
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "id", r->id);
	cJSON_AddStringToObject(rec, "cgroup", cg.dir);
	cJSON_AddNumberToObject(rec, "cgroupVersion", cg.version);
	cJSON_AddStringToObject(rec, "cpus", list);
	cpuset_format(&own, pl, sizeof(pl));
	cJSON_AddStringToObject(rec, "before", pl);
	cJSON_AddStringToObject(rec, "workers", wl);
	cJSON_AddStringToObject(rec, "rule", cores != NULL ? ANNOTATION_CORES : "exclude-workers");
	record_path(r, path, sizeof(path));
	rc = mkdir_parents(r->state_dir, 0700);
	if (rc != 0 || json_file_write(path, rec, 0600, (gid_t)-1, why, sizeof(why)) != 0) {
		/* The cgroup is set; only the record failed: say so. */
		if (rc != 0)
			snprintf(why, sizeof(why), "cannot create %s: %s", r->state_dir,
				 strerror(-rc));
		snprintf(msg, sizeof(msg),
			 "container %s: cpuset set to %s, but %s; check conf "
			 "\"stateDir\"",
			 r->id, list, why);
		cJSON_Delete(rec);
		return answer(r, msg, NULL);
	}
	meta = cJSON_CreateObject();
	cJSON_AddStringToObject(meta, "cpuset.cpus", list);
	cJSON_AddStringToObject(meta, "cgroup", cg.dir);
	cJSON_AddStringToObject(meta, "workers", wl);
	cJSON_Delete(rec);
	return answer(r, NULL, meta);
}

static int forget(const struct nri_req *r)
{
	char path[4096], msg[8192];
	cJSON *meta = cJSON_CreateObject();

	record_path(r, path, sizeof(path));
	if (unlink(path) == 0) {
		cJSON_AddStringToObject(meta, "removed", path);
	} else if (errno != ENOENT) {
		snprintf(msg, sizeof(msg), "container %s: cannot remove %s: %s", r->id, path,
			 strerror(errno));
		cJSON_Delete(meta);
		return answer(r, msg, NULL);
	}
	return answer(r, NULL, meta);
}

int main(int argc, char **argv)
{
	char *text = NULL, msg[1024];
	size_t n = 0, cap = 0;
	struct nri_req r;
	cJSON *doc;
	int rc;

	if (argc != 2 || strcmp(argv[1], "invoke") != 0) {
		fprintf(stderr,
			"usage: " PLUGIN " invoke  (an NRI 0.1 plugin: the request on stdin, the "
			"result on stdout; containerd runs it, see /etc/nri/conf.json)\n");
		return 2;
	}
	for (;;) {
		size_t got;

		if (n + 4096 > cap) {
			char *more = realloc(text, cap = cap ? 2 * cap : 65536);

			if (more == NULL || cap > (16u << 20)) {
				free(more != NULL ? more : text);
				return answer(NULL, "the request on stdin is too large", NULL);
			}
			text = more;
		}
		got = fread(text + n, 1, cap - n - 1, stdin);
		n += got;
		if (got == 0)
			break;
	}
	text[n] = '\0';
	doc = cJSON_Parse(text);
	free(text);
	if (doc == NULL)
		return answer(NULL, "the request on stdin is not JSON", NULL);
	if (nri_request_parse(doc, &r, msg, sizeof(msg)) != 0) {
		rc = answer(&r, msg, NULL);
	} else if (strcmp(r.state, "create") == 0 || strcmp(r.state, "update") == 0) {
		rc = apply(&r);
	} else if (strcmp(r.state, "delete") == 0) {
		rc = forget(&r);
	} else if (strcmp(r.state, "pause") == 0 || strcmp(r.state, "resume") == 0) {
		rc = answer(&r, NULL, NULL); /* cpusets are kept across a pause */
	} else {
		snprintf(msg, sizeof(msg),
			 "request \"state\" is \"%s\"; NRI 0.1 states are create, update, delete, "
			 "pause and resume",
			 r.state ? r.state : "(none)");
		rc = answer(&r, msg, NULL);
	}
	cJSON_Delete(doc);
	return rc;
}
