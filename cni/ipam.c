/* SPDX-License-Identifier: BSD-3-Clause */
/* Executes the IPAM plugin: environment, stdin, stdout, exit status. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api.h"
#include "files.h"
#include "ipam.h"
#include "result.h"

extern char **environ;

#define IPAM_OUT_MAX (1 << 20)

int ipam_find(const char *type, const char *cni_path, char *path, size_t len, struct cni_error *err)
{
	const char *p = cni_path;

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > 0 && (size_t)snprintf(path, len, "%.*s/%s", (int)n, p, type) < len &&
		    access(path, X_OK) == 0)
			return 0;
		p = end ? end + 1 : NULL;
	}
	return cni_fail(err, PW_ERR_IPAM,
			"IPAM plugin \"%s\" (\"ipam.type\") is not an executable in CNI_PATH (%s); "
			"install it there or name another plugin",
			type, cni_path ? cni_path : "");
}

/* Our environment without CNI_*, then the call's CNI_* variables. */
static char **build_env(const struct ipam_call *call)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n] != NULL)
		n++;
	env = calloc(n + 8, sizeof(*env));
	if (env == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "CNI_", 4) != 0)
			env[k++] = strdup(environ[i]);
#define PUT(key, val)                                                                              \
	do {                                                                                       \
		if ((val) != NULL && asprintf(&env[k], "%s=%s", key, val) >= 0)                    \
			k++;                                                                       \
	} while (0)
	PUT("CNI_COMMAND", call->command);
	PUT("CNI_CONTAINERID", call->containerid);
	PUT("CNI_NETNS", call->netns);
	PUT("CNI_IFNAME", call->ifname);
	PUT("CNI_ARGS", call->args);
	PUT("CNI_PATH", call->cni_path);
#undef PUT
	env[k] = NULL;
	return env;
}

static void free_env(char **env)
{
	for (size_t i = 0; env != NULL && env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/* Feeds stdin and collects stdout at once, so neither side can block the
 * other on a full pipe. Returns 0 or -errno. */
static int pump(int in_fd, const char *data, size_t len, int out_fd, char **out, size_t *out_len)
{
	size_t off = 0, cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	struct pollfd pfd[2];

	if (buf == NULL)
		return -ENOMEM;
	if (len == 0) {
		close(in_fd);
		in_fd = -1;
	}
	while (out_fd >= 0) {
		int nfds = 0, ofs;

		ofs = in_fd >= 0 ? 1 : 0;
		if (in_fd >= 0)
			pfd[nfds++] = (struct pollfd){.fd = in_fd, .events = POLLOUT};
		pfd[nfds++] = (struct pollfd){.fd = out_fd, .events = POLLIN};
		if (poll(pfd, (nfds_t)nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (in_fd >= 0 && pfd[0].revents != 0) {
			ssize_t w = write(in_fd, data + off, len - off);

			if (w > 0)
				off += (size_t)w;
			/* A plugin that exits without reading all of stdin is its business. */
			if (off == len || (w < 0 && errno != EINTR && errno != EAGAIN)) {
				close(in_fd);
				in_fd = -1;
			}
		}
		if (pfd[ofs].revents != 0) {
			ssize_t r;

			if (n == cap && cap < IPAM_OUT_MAX) {
				char *nb = realloc(buf, cap * 2 + 1);

				if (nb == NULL)
					break;
				buf = nb;
				cap *= 2;
			}
			r = read(out_fd, buf + n, cap - n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0 || n + (size_t)r >= IPAM_OUT_MAX)
				out_fd = -1; /* closed by the caller */
			if (r > 0)
				n += (size_t)r;
		}
	}
	if (in_fd >= 0)
		close(in_fd);
	buf[n] = '\0';
	*out = buf;
	*out_len = n;
	return 0;
}

static int pass_error(const struct ipam_call *call, const char *out, int status,
		      struct cni_error *err)
{
	cJSON *doc = cJSON_Parse(out);
	const char *msg = api_get_str(doc, "msg", NULL);
	const char *details = api_get_str(doc, "details", NULL);
	long code = api_get_int(doc, "code", 0);
	char what[512];

	if (msg != NULL) {
		snprintf(what, sizeof(what), "%s", msg);
	} else if (WIFSIGNALED(status)) {
		snprintf(what, sizeof(what), "it was killed by signal %d", WTERMSIG(status));
	} else {
		size_t n = strlen(out);

		while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
			n--;
		snprintf(what, sizeof(what), "exit status %d%s%.*s", WEXITSTATUS(status),
			 n ? ", output: " : " and no output", (int)(n > 300 ? 300 : n), out);
	}
	/* Well-known codes (try again later, ...) mean something to the
	 * runtime; the plugin's private ones do not. */
	cni_fail(err, code > 0 && code < 100 ? (int)code : PW_ERR_IPAM,
		 "IPAM plugin \"%s\" failed on %s: %s", call->type, call->command, what);
	if (details != NULL)
		snprintf(err->details, sizeof(err->details), "%s", details);
	cJSON_Delete(doc);
	return -1;
}

static int exec_once(const struct ipam_call *call, cJSON **result, struct cni_error *err)
{
	char path[PATH_MAX], *out = NULL;
	int in[2] = {-1, -1}, outp[2] = {-1, -1}, status = 0, rc;
	posix_spawn_file_actions_t fa;
	char *argv[] = {path, NULL};
	size_t out_len = 0;
	char **env;
	pid_t pid;

	if (result != NULL)
		*result = NULL;
	if (ipam_find(call->type, call->cni_path, path, sizeof(path), err) != 0)
		return -1;
	env = build_env(call);
	if (env == NULL)
		return cni_fail(err, PW_ERR_IPAM, "cannot run IPAM plugin \"%s\": out of memory",
				call->type);
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(outp, O_CLOEXEC) != 0) {
		rc = errno;
		free_env(env);
		if (in[0] >= 0) {
			close(in[0]);
			close(in[1]);
		}
		return cni_fail(err, PW_ERR_IPAM, "cannot run IPAM plugin \"%s\": pipe: %s",
				call->type, strerror(rc));
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	rc = posix_spawn(&pid, path, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free_env(env);
	close(in[0]);
	close(outp[1]);
	if (rc != 0) {
		close(in[1]);
		close(outp[0]);
		return cni_fail(err, PW_ERR_IPAM, "cannot run IPAM plugin %s: %s", path,
				strerror(rc));
	}
	/* A plugin that dies early must not kill us with SIGPIPE, and a large
	 * config must not block us while the plugin waits for us to read. */
	signal(SIGPIPE, SIG_IGN);
	fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
	rc = pump(in[1], call->config, call->config_len, outp[0], &out, &out_len);
	close(outp[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc != 0) {
		free(out);
		return cni_fail(err, PW_ERR_IPAM, "cannot read IPAM plugin \"%s\": %s", call->type,
				strerror(-rc));
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		rc = pass_error(call, out, status, err);
		free(out);
		return rc;
	}
	if (result != NULL && out_len > 0) {
		*result = cJSON_ParseWithLength(out, out_len);
		if (*result == NULL) {
			cni_fail(err, PW_ERR_IPAM,
				 "IPAM plugin \"%s\" answered %s with something that is not JSON: "
				 "%.200s",
				 call->type, call->command, out);
			free(out);
			return -1;
		}
	}
	free(out);
	return 0;
}

/*
 * The versions an IPAM plugin speaks, remembered in dataDir by the
 * plugin's path, size and mtime, so that an older plugin costs one
 * VERSION call per upgrade instead of two extra runs per ADD and DEL.
 */
#define VERSION_CACHE "ipam-versions.json"

static cJSON *cache_key(const char *path)
{
	struct stat st;
	cJSON *k;

	if (stat(path, &st) != 0)
		return NULL;
	k = cJSON_CreateObject();
	cJSON_AddNumberToObject(k, "size", (double)st.st_size);
	cJSON_AddNumberToObject(k, "mtime", (double)st.st_mtim.tv_sec);
	cJSON_AddNumberToObject(k, "mtime_ns", (double)st.st_mtim.tv_nsec);
	return k;
}

static bool same_key(const cJSON *a, const cJSON *b)
{
	static const char *const f[] = {"size", "mtime", "mtime_ns"};

	for (int i = 0; i < 3; i++)
		if (api_get_int(a, f[i], -1) != api_get_int(b, f[i], -2))
			return false;
	return true;
}

/* The cached version list of path (a new array), or NULL. */
static cJSON *cache_get(const char *dir, const char *path)
{
	char file[PATH_MAX + 32];
	cJSON *doc, *key, *out = NULL;
	const cJSON *e;

	if (dir == NULL)
		return NULL;
	snprintf(file, sizeof(file), "%s/" VERSION_CACHE, dir);
	if (file_read_json(file, &doc) != 0)
		return NULL;
	key = cache_key(path);
	e = cJSON_GetObjectItemCaseSensitive(doc, path);
	if (key != NULL && cJSON_IsObject(e) && same_key(e, key))
		out = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(e, "versions"), true);
	cJSON_Delete(key);
	cJSON_Delete(doc);
	return out;
}

static void cache_put(const char *dir, const char *path, const cJSON *versions)
{
	char file[PATH_MAX + 32];
	struct cni_error err;
	cJSON *doc = NULL, *key = cache_key(path);

	if (dir == NULL || key == NULL || !cJSON_IsArray(versions)) {
		cJSON_Delete(key);
		return;
	}
	snprintf(file, sizeof(file), "%s/" VERSION_CACHE, dir);
	if (file_read_json(file, &doc) != 0 || !cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		doc = cJSON_CreateObject();
	}
	cJSON_AddItemToObject(key, "versions", cJSON_Duplicate(versions, true));
	cJSON_DeleteItemFromObjectCaseSensitive(doc, path);
	cJSON_AddItemToObject(doc, path, key);
	mkdir_parents(dir, 0700);
	cni_write_json(file, doc, 0600, (gid_t)-1, &err); /* a cache: best effort */
	cJSON_Delete(doc);
}

/* The newest version in versions that we speak too, into buf. */
static bool common_version(const cJSON *versions, char *buf, size_t len)
{
	const cJSON *v;

	buf[0] = '\0';
	cJSON_ArrayForEach (v, versions)
		if (cJSON_IsString(v) && cni_version_supported(v->valuestring) &&
		    (buf[0] == '\0' || cni_version_cmp(v->valuestring, buf) > 0))
			snprintf(buf, len, "%s", v->valuestring);
	return buf[0] != '\0';
}

static bool lists(const cJSON *versions, const char *v)
{
	const cJSON *e;

	cJSON_ArrayForEach (e, versions)
		if (cJSON_IsString(e) && strcmp(e->valuestring, v) == 0)
			return true;
	return false;
}

/* The plugin's supportedVersions (a new array), or NULL. */
static cJSON *ask_versions(const struct ipam_call *call)
{
	static const char cfg[] = "{\"cniVersion\":\"1.1.0\"}";
	struct ipam_call vc = {.type = call->type,
			       .cni_path = call->cni_path,
			       .command = "VERSION",
			       .config = cfg,
			       .config_len = sizeof(cfg) - 1};
	struct cni_error err;
	cJSON *res = NULL, *out;

	if (exec_once(&vc, &res, &err) != 0)
		return NULL;
	out = cJSON_DetachItemFromObjectCaseSensitive(res, "supportedVersions");
	cJSON_Delete(res);
	return out;
}

/* The call with its config in version v; the text is the caller's to free. */
static char *downgrade(const struct ipam_call *call, const char *v, struct ipam_call *out)
{
	cJSON *conf = cJSON_ParseWithLength(call->config, call->config_len);
	char *text;

	if (conf == NULL)
		return NULL;
	cJSON_DeleteItemFromObjectCaseSensitive(conf, "cniVersion");
	cJSON_AddStringToObject(conf, "cniVersion", v);
	text = cJSON_PrintUnformatted(conf);
	cJSON_Delete(conf);
	if (text != NULL) {
		*out = *call;
		out->config = text;
		out->config_len = strlen(text);
	}
	return text;
}

int ipam_exec(const struct ipam_call *call, cJSON **result, struct cni_error *err)
{
	char path[PATH_MAX], version[16], *text = NULL;
	struct ipam_call down;
	cJSON *conf, *versions;
	const char *asked;
	int rc;

	/* An IPAM plugin older than the config (Debian 12's host-local stops
	 * at 1.0.0) gets the config in the newest version it speaks; its
	 * answer is converted back by the caller. */
	if (ipam_find(call->type, call->cni_path, path, sizeof(path), err) != 0)
		return -1;
	conf = cJSON_ParseWithLength(call->config, call->config_len);
	asked = api_get_str(conf, "cniVersion", "");
	versions = cache_get(call->cache_dir, path);
	if (versions != NULL && !lists(versions, asked) &&
	    common_version(versions, version, sizeof(version)) &&
	    cni_version_cmp(version, asked) < 0 &&
	    (text = downgrade(call, version, &down)) != NULL) {
		rc = exec_once(&down, result, err);
		goto out;
	}
	rc = exec_once(call, result, err);
	if (rc == 0 || err->code != CNI_ERR_VERSION)
		goto out;
	cJSON_Delete(versions);
	versions = ask_versions(call);
	if (versions == NULL)
		goto out;
	cache_put(call->cache_dir, path, versions);
	if (common_version(versions, version, sizeof(version)) &&
	    cni_version_cmp(version, asked) < 0 && (text = downgrade(call, version, &down)) != NULL)
		rc = exec_once(&down, result, err);
out:
	free(text);
	cJSON_Delete(versions);
	cJSON_Delete(conf);
	return rc;
}

bool ipam_supports(const char *type, const char *cni_path, const char *version)
{
	struct ipam_call call = {.type = type, .cni_path = cni_path};
	cJSON *versions = ask_versions(&call);
	bool yes = lists(versions, version);

	cJSON_Delete(versions);
	return yes;
}
