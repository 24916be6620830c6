/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CNI environment: the command, container id, interface name, netns
 * and paths the runtime passes in CNI_* variables, and CNI_ARGS. Checked
 * before the config (netconf.c) and before anything is touched; each
 * message names the variable and the fix.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netconf.h"
#include "result.h"
#include "validate.h"

static const struct {
	const char *name;
	enum cni_cmd cmd;
	bool needs_container; /* CNI_CONTAINERID and CNI_IFNAME */
	bool needs_netns;
	bool needs_path;
} commands[] = {
    {"ADD", CMD_ADD, true, true, true},	    {"DEL", CMD_DEL, true, false, true},
    {"CHECK", CMD_CHECK, true, true, true}, {"STATUS", CMD_STATUS, false, false, true},
    {"GC", CMD_GC, false, false, true},	    {"VERSION", CMD_VERSION, false, false, false},
};

static const char *env_get(char *const envp[], const char *key)
{
	size_t n = strlen(key);

	for (int i = 0; envp != NULL && envp[i] != NULL; i++)
		if (strncmp(envp[i], key, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

static int need_env(const char *val, const char *key, const char *cmd, const char *what,
		    struct cni_error *err)
{
	if (val != NULL && val[0] != '\0')
		return 0;
	return cni_fail(err, CNI_ERR_ENV, "%s is %s; the runtime must set it for %s (%s)", key,
			val ? "empty" : "not set", cmd, what);
}

static int check_containerid(const char *id, struct cni_error *err)
{
	size_t n = strlen(id);

	if (n > CNI_CONTAINERID_MAX)
		return cni_fail(err, CNI_ERR_ENV, "CNI_CONTAINERID is %zu bytes, the limit is %d",
				n, CNI_CONTAINERID_MAX);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)id[i];

		if (isalnum(c) || (i > 0 && (c == '_' || c == '.' || c == '-')))
			continue;
		return cni_fail(
		    err, CNI_ERR_ENV,
		    "CNI_CONTAINERID \"%s\" has '%c' at offset %zu; a container id starts "
		    "with a letter or digit, followed by letters, digits, '_', '.' or '-'",
		    id, c, i);
	}
	return 0;
}

static int check_ifname(const char *name, struct cni_error *err)
{
	size_t n = strlen(name);

	if (n > CNI_IFNAME_MAX)
		return cni_fail(err, CNI_ERR_ENV,
				"CNI_IFNAME \"%s\" is %zu bytes, the limit is %d; pick a shorter "
				"interface name",
				name, n, CNI_IFNAME_MAX);
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return cni_fail(err, CNI_ERR_ENV, "CNI_IFNAME \"%s\" is not an interface name",
				name);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '/' || c == ':' || isspace(c) || !isprint(c))
			return cni_fail(err, CNI_ERR_ENV,
					"CNI_IFNAME \"%s\" has a '/', ':', space or control "
					"character at offset %zu; use a Linux interface name such "
					"as net1",
					name, i);
	}
	return 0;
}

/* MAC= of CNI_ARGS ("K=V;K=V"); other keys belong to other plugins. */
static int parse_args(struct cni_env *env, struct cni_error *err)
{
	const char *p = env->args;
	uint8_t mac[6];
	char msg[512];

	env->args_mac[0] = '\0';
	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > 4 && strncmp(p, "MAC=", 4) == 0) {
			char val[64];

			snprintf(val, sizeof(val), "%.*s", (int)(n - 4 < 63 ? n - 4 : 63), p + 4);
			if (validate_mac("CNI_ARGS MAC", val, mac, msg, sizeof(msg)) != 0)
				return cni_fail(err, CNI_ERR_ENV, "%s", msg);
			format_mac(mac, env->args_mac);
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int cni_env_parse(char *const envp[], struct cni_env *env, struct cni_error *err)
{
	const char *cmd = env_get(envp, "CNI_COMMAND");
	size_t i;

	memset(env, 0, sizeof(*env));
	if (cmd == NULL || cmd[0] == '\0')
		return cni_fail(err, CNI_ERR_ENV,
				"CNI_COMMAND is not set; this is a CNI plugin, run by a container "
				"runtime with CNI_COMMAND=ADD, DEL, CHECK, STATUS, GC or VERSION");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, cmd) == 0)
			break;
	if (i == sizeof(commands) / sizeof(commands[0]))
		return cni_fail(
		    err, CNI_ERR_ENV,
		    "CNI_COMMAND \"%s\" is not known; use ADD, DEL, CHECK, STATUS, GC or "
		    "VERSION",
		    cmd);
	env->cmd = commands[i].cmd;
	env->command = commands[i].name;
	env->containerid = env_get(envp, "CNI_CONTAINERID");
	env->netns = env_get(envp, "CNI_NETNS");
	env->ifname = env_get(envp, "CNI_IFNAME");
	env->args = env_get(envp, "CNI_ARGS");
	env->path = env_get(envp, "CNI_PATH");

	if (commands[i].needs_container &&
	    (need_env(env->containerid, "CNI_CONTAINERID", cmd, "the container's id", err) != 0 ||
	     check_containerid(env->containerid, err) != 0))
		return -1;
	if (commands[i].needs_netns &&
	    need_env(env->netns, "CNI_NETNS", cmd, "the path of the pod's network namespace",
		     err) != 0)
		return -1;
	if (commands[i].needs_container &&
	    (need_env(env->ifname, "CNI_IFNAME", cmd, "the interface name in the pod, e.g. net1",
		      err) != 0 ||
	     check_ifname(env->ifname, err) != 0))
		return -1;
	if (commands[i].needs_path &&
	    need_env(env->path, "CNI_PATH", cmd, "the directories holding CNI plugins", err) != 0)
		return -1;
	return parse_args(env, err);
}
