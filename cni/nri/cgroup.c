/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "nri/cgroup.h"

int cgroup_of_pid(const char *proc_root, const char *cg_root, int pid, struct nri_cgroup *cg,
		  char *msg, size_t len)
{
	char path[PATH_MAX + 32], line[PATH_MAX + 64], v2[1024] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root, pid);
	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(msg, len, "cannot read %s: %s; is process %d (the container's) running?",
			 path, strerror(errno), pid);
		return -ENOENT;
	}
	memset(cg, 0, sizeof(*cg));
	/* "N:cpuset:/path" (v1; cpuset may share a line with others) or
	 * "0::/path" (v2). A v1 cpuset line wins on a hybrid host. */
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char ctrl[256];

		if (c2 == NULL)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(ctrl, sizeof(ctrl), ",%.*s,", (int)(c2 - c1 - 1), c1 + 1);
		if (strstr(ctrl, ",cpuset,") != NULL) {
			cg->version = 1;
			snprintf(cg->path, sizeof(cg->path), "%s", c2 + 1);
			break;
		}
		if (strncmp(line, "0::", 3) == 0)
			snprintf(v2, sizeof(v2), "%s", c2 + 1);
	}
	fclose(f);
	if (cg->version == 0 && v2[0] != '\0') {
		cg->version = 2;
		snprintf(cg->path, sizeof(cg->path), "%s", v2);
	}
	if (cg->version == 0) {
		snprintf(msg, len, "%s names no cpuset cgroup (v1) and no unified one (v2)", path);
		return -ENOENT;
	}
	snprintf(cg->dir, sizeof(cg->dir), "%s%s%s", cg_root, cg->version == 1 ? "/cpuset" : "",
		 strcmp(cg->path, "/") == 0 ? "" : cg->path);
	snprintf(path, sizeof(path), "%s/cpuset.cpus", cg->dir);
	if (access(path, F_OK) != 0) {
		if (cg->version == 2)
			snprintf(msg, len,
				 "%s has no cpuset.cpus: the cpuset controller is not enabled for "
				 "it; enable it in its parents (echo +cpuset > "
				 "PARENT/cgroup.subtree_control)",
				 cg->dir);
		else
			snprintf(msg, len,
				 "%s has no cpuset.cpus (is %s/cpuset the cpuset hierarchy?)",
				 cg->dir, cg_root);
		return -ENOENT;
	}
	return 0;
}

static int read_cpus(const char *file, struct cpuset *s, char *msg, size_t len)
{
	char *text, why[256];
	size_t n;
	int rc = file_read(file, 64 << 10, &text, &n);

	if (rc != 0) {
		snprintf(msg, len, "cannot read %s: %s", file, strerror(-rc));
		return rc;
	}
	rc = cpuset_parse(text, s, why, sizeof(why));
	if (rc != 0)
		snprintf(msg, len, "%s: %s", file, why);
	free(text);
	return rc;
}

int cgroup_parent_cpus(const struct nri_cgroup *cg, struct cpuset *s, char *msg, size_t len)
{
	char parent[PATH_MAX], file[PATH_MAX + 32];
	char *slash;

	snprintf(parent, sizeof(parent), "%s", cg->dir);
	slash = strrchr(parent, '/');
	if (slash != NULL && slash != parent)
		*slash = '\0';
	/* What the parent really has: v2's and v1's effective lists. */
	snprintf(file, sizeof(file), "%s/%s", parent,
		 cg->version == 2 ? "cpuset.cpus.effective" : "cpuset.effective_cpus");
	if (access(file, F_OK) != 0)
		snprintf(file, sizeof(file), "%s/cpuset.cpus", parent);
	return read_cpus(file, s, msg, len);
}

int cgroup_read_cpus(const struct nri_cgroup *cg, struct cpuset *s, char *msg, size_t len)
{
	char file[PATH_MAX + 32];

	snprintf(file, sizeof(file), "%s/cpuset.cpus", cg->dir);
	return read_cpus(file, s, msg, len);
}

int cgroup_write_cpus(const struct nri_cgroup *cg, const char *list, char *msg, size_t len)
{
	char file[PATH_MAX + 32];
	int fd, rc = 0;
	size_t n = strlen(list);

	snprintf(file, sizeof(file), "%s/cpuset.cpus", cg->dir);
	fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, list, n) != (ssize_t)n)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	if (rc != 0)
		snprintf(msg, len, "cannot write \"%s\" to %s: %s", list, file, strerror(-rc));
	return rc;
}
