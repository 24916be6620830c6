/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-nri's input: the NRI request containerd writes on its stdin
 * (with the plugin's conf), the CPU lists in it (resources.cpu.cpus, the
 * podwire.io/cores annotation), and a /proc/PID/cgroup file, through the
 * plugin's own parsers.
 */
#include <sys/stat.h>

#include "fuzz.h"

#include "nri/cgroup.h"
#include "nri/cpuset.h"
#include "nri/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[1024], *s;
	struct nri_req r;
	struct cpuset cpus;
	cJSON *doc;
	bool set;

	if (size < 1)
		return 0;
	s = fuzz_str(data + 1, size - 1);
	if (data[0] % 3 == 0) {
		doc = cJSON_Parse(s);
		if (doc != NULL && nri_request_parse(doc, &r, msg, sizeof(msg)) == 0)
			nri_request_cpus(&r, &cpus, &set, msg, sizeof(msg));
		cJSON_Delete(doc);
	} else if (data[0] % 3 == 1) {
		cpuset_parse(s, &cpus, msg, sizeof(msg));
	} else {
		struct nri_cgroup cg;
		char dir[160];

		/* A process whose /proc/PID/cgroup says what the input says. */
		snprintf(dir, sizeof(dir), "%s/proc/1", fuzz_dir());
		if (access(dir, F_OK) != 0) {
			char p[160];

			snprintf(p, sizeof(p), "%s/proc", fuzz_dir());
			mkdir(p, 0700);
			mkdir(dir, 0700);
			snprintf(p, sizeof(p), "%s/cg", fuzz_dir());
			mkdir(p, 0700);
		}
		{
			char proc[160], cgroot[160];
			FILE *f;

			snprintf(proc, sizeof(proc), "%s/proc/1/cgroup", fuzz_dir());
			f = fopen(proc, "w");
			if (f == NULL || fwrite(data + 1, 1, size - 1, f) != size - 1)
				abort();
			fclose(f);
			snprintf(proc, sizeof(proc), "%s/proc", fuzz_dir());
			snprintf(cgroot, sizeof(cgroot), "%s/cg", fuzz_dir());
			cgroup_of_pid(proc, cgroot, 1, &cg, msg, sizeof(msg));
		}
	}
	free(s);
	return 0;
}
