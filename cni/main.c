/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire: the CNI plugin that attaches pods to podwired over vhost-user
 * or memif, or hands them an SR-IOV VF from podwired's pools. The runtime
 * runs it once per verb with CNI_* variables and the network config on
 * stdin; it prints a result (ADD), nothing (DEL, CHECK, STATUS, GC), the
 * supported versions (VERSION) or an error object, all on stdout, and
 * exits 0 on success, 1 on error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cni.h"
#include "result.h"

extern char **environ;

#define STDIN_MAX (4 << 20)

static char *read_stdin(size_t *len)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap + 1);

	while (buf != NULL) {
		ssize_t r;

		if (n == cap) {
			char *nb = cap < STDIN_MAX ? realloc(buf, cap * 2 + 1) : NULL;

			if (nb == NULL) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(0, buf + n, cap - n);
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (buf != NULL)
		buf[n] = '\0';
	*len = n;
	return buf;
}

static int print_json(cJSON *doc)
{
	char *text = cJSON_Print(doc);

	cJSON_Delete(doc);
	if (text == NULL)
		return -1;
	printf("%s\n", text);
	free(text);
	return fflush(stdout) == 0 ? 0 : -1;
}

static int fail(const char *version, const struct cni_error *err)
{
	print_json(result_error(version, err));
	return 1;
}

/* VERSION answers in the version the runtime asked in, when we speak it. */
static int cmd_version(const char *raw, size_t len)
{
	cJSON *o = cJSON_CreateObject(), *a;
	char v[16];

	cJSON_AddStringToObject(o, "cniVersion", netconf_peek_version(raw, len, v, sizeof(v)));
	a = cJSON_AddArrayToObject(o, "supportedVersions");
	for (int i = 0; cni_versions[i] != NULL; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(cni_versions[i]));
	return print_json(o) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct cni_error err = {0};
	struct netconf conf;
	struct cni_env env;
	struct cni_call call = {.env = &env, .conf = &conf};
	cJSON *result = NULL;
	char version[16];
	char *raw = NULL;
	size_t len = 0;
	int rc;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("podwire %s: CNI plugin attaching pods to podwired (vhost-user, memif) or\n"
		       "handing them an SR-IOV VF from podwired's pools (pci).\n"
		       "It is run by a container runtime (CNI_COMMAND=ADD|DEL|CHECK|STATUS|GC|"
		       "VERSION, config on stdin);\nsee the CNI section of podwire's README.\n",
		       PODWIRE_VERSION);
		return 0;
	}
	rc = cni_env_parse(environ, &env, &err);
	/* A bad environment typed at a terminal must not wait for stdin. */
	if (rc == 0 || !isatty(0))
		raw = read_stdin(&len);
	if (raw == NULL && (rc == 0 || !isatty(0))) {
		if (rc == 0)
			cni_fail(&err, CNI_ERR_IO, "cannot read the network config from stdin");
		return fail(NULL, &err);
	}
	netconf_peek_version(raw ? raw : "", len, version, sizeof(version));
	if (rc != 0) {
		free(raw);
		return fail(version, &err);
	}
	if (env.cmd == CMD_VERSION) {
		rc = cmd_version(raw, len);
		free(raw);
		return rc;
	}
	if (len == 0) {
		free(raw);
		cni_fail(&err, CNI_ERR_DECODE,
			 "no network config on stdin; the runtime must pass the network's JSON "
			 "config");
		return fail(version, &err);
	}
	if (netconf_parse(raw, len, &env, &conf, &err) != 0) {
		free(raw);
		return fail(version, &err);
	}
	call.raw = raw;
	call.raw_len = len;
	switch (env.cmd) {
	case CMD_ADD:
		rc = cmd_add(&call, &result, &err);
		break;
	case CMD_DEL:
		rc = cmd_del(&call, &err);
		break;
	case CMD_CHECK:
		rc = cmd_check(&call, &err);
		break;
	case CMD_STATUS:
		rc = cmd_status(&call, &err);
		break;
	case CMD_GC:
		rc = cmd_gc(&call, &err);
		break;
	default:
		rc = -1;
		cni_fail(&err, CNI_ERR_ENV, "CNI_COMMAND %s is not handled", env.command);
	}
	netconf_free(&conf);
	free(raw);
	if (rc != 0)
		return fail(version, &err);
	if (result != NULL && print_json(result) != 0)
		return 1;
	return 0;
}
