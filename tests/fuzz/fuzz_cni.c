/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CNI plugin's input: its environment (CNI_COMMAND, CNI_ARGS, ...)
 * and its network config on stdin, prevResult included. The input is
 * "VAR=VALUE" lines, an empty line, then the config; the variables the
 * input leaves out take valid values, so that the config is reached.
 */
#include "fuzz.h"

#include "errors.h"
#include "netconf.h"
#include "result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), *conf = strstr(s, "\n\n"), *envp[16], *line, *save = NULL;
	static const char *const defaults[] = {"CNI_COMMAND=ADD", "CNI_CONTAINERID=fuzz1",
					       "CNI_NETNS=/var/run/netns/fuzz", "CNI_IFNAME=net1",
					       "CNI_PATH=/opt/cni/bin"};
	struct cni_error err;
	struct cni_env env;
	struct netconf c;
	int n = 0;

	if (conf == NULL) {
		free(s);
		return 0;
	}
	*conf = '\0';
	conf += 2;
	for (line = strtok_r(s, "\n", &save); line != NULL && n < 10;
	     line = strtok_r(NULL, "\n", &save))
		envp[n++] = line;
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		size_t k = strcspn(defaults[i], "=") + 1;
		bool given = false;

		for (int j = 0; j < n && !given; j++)
			given = strncmp(envp[j], defaults[i], k) == 0;
		if (!given)
			envp[n++] = (char *)defaults[i];
	}
	envp[n] = NULL;
	memset(&err, 0, sizeof(err));
	if (cni_env_parse(envp, &env, &err) == 0 &&
	    netconf_parse(conf, strlen(conf), &env, &c, &err) == 0) {
		/* prevResult, as ADD (chained), CHECK and DEL read it. */
		if (c.prev_result != NULL)
			cJSON_Delete(result_normalize(c.prev_result, "prevResult", &err));
		netconf_free(&c);
	}
	free(s);
	return 0;
}
