/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwirectl's cdi list and cdi write (podwirectl.c has the command table).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "ctl.h"
#include "ctl_table.h"
#include "files.h"

static const struct column cdi_cols[] = {
    {"DEVICE", API_F_NAME, COL_STR}, {"FILE", API_R_FILE, COL_STR}, {NULL}};

void ctl_print_cdi_list(const cJSON *result)
{
	const cJSON *s;
	const char *dir = ctl_str(result, API_R_DIR);

	if (strcmp(dir, "-") == 0)
		printf("podwired writes no CDI spec files (--cdi-dir \"\")\n");
	else
		printf("CDI spec files in %s\n", dir);
	ctl_print_table(ctl_member(result, API_R_DEVICES), cdi_cols);
	cJSON_ArrayForEach (s, ctl_member(result, API_R_SKIPPED))
		printf("not offered: %s: %s\n", ctl_str(s, API_R_OBJECT), ctl_str(s, API_R_REASON));
}

/* Writes the documents podwired gave into DIR (atomically, as podwired
 * does), and removes the files of its kinds that have no device now. */
int ctl_cdi_write(const char *dir, const cJSON *result)
{
	static const char *const kinds[] = {"port", "vf", "hugepages"};
	const cJSON *s, *specs = ctl_member(result, API_R_SPECS);
	char path[PATH_MAX], msg[PATH_MAX + 256];
	int rc = mkdir_parents(dir, 0755);

	if (rc != 0) {
		fprintf(stderr, "%s: error: cannot create %s: %s; give a writable directory\n",
			"podwirectl", dir, strerror(-rc));
		return CTL_EXIT_DAEMON;
	}
	cJSON_ArrayForEach (s, specs) {
		const cJSON *spec = ctl_member(s, API_R_SPEC);
		const char *file = ctl_str(s, API_R_FILE);

		/* Only podwired's own names: nothing else in DIR is touched. */
		if (strncmp(file, "podwire.io-", 11) != 0 || strchr(file, '/') != NULL) {
			fprintf(stderr, "%s: error: podwired named a spec file \"%s\"\n",
				"podwirectl", file);
			return CTL_EXIT_DAEMON;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		if (json_file_write(path, spec, 0644, (gid_t)-1, msg, sizeof(msg)) != 0) {
			fprintf(stderr, "%s: error: %s\n", "podwirectl", msg);
			return CTL_EXIT_DAEMON;
		}
		printf("wrote %s (%d device%s)\n", path,
		       cJSON_GetArraySize(ctl_member(spec, "devices")),
		       cJSON_GetArraySize(ctl_member(spec, "devices")) == 1 ? "" : "s");
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		bool have = false;

		snprintf(path, sizeof(path), "podwire.io-%s.json", kinds[k]);
		cJSON_ArrayForEach (s, specs)
			have = have || strcmp(ctl_str(s, API_R_FILE), path) == 0;
		snprintf(path, sizeof(path), "%s/podwire.io-%s.json", dir, kinds[k]);
		if (!have && unlink(path) == 0)
			printf("removed %s (no %s device now)\n", path, kinds[k]);
	}
	return CTL_EXIT_OK;
}
