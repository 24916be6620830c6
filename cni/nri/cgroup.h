/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A container's cpuset cgroup, found from its process as the kernel tells
 * it (/proc/<pid>/cgroup): the runtime's cgroupsPath may be in systemd's
 * "slice:prefix:name" form or empty, the process's own file never is.
 * cgroup v1 (the cpuset hierarchy, as on this project's Debian 12 hosts)
 * and v2 (the unified hierarchy with the cpuset controller).
 */
#ifndef PODWIRE_NRI_CGROUP_H
#define PODWIRE_NRI_CGROUP_H

#include <limits.h>
#include <stddef.h>

#include "nri/cpuset.h"

struct nri_cgroup {
	int version;	    /* 1 or 2 */
	char dir[PATH_MAX]; /* the container's cgroup directory */
	char path[1024];    /* its path inside the hierarchy, "/k8s.io/ID" */
};

/* Finds pid's cpuset cgroup under cg_root (/sys/fs/cgroup), reading
 * proc_root/<pid>/cgroup. 0, or -errno with msg naming the file and fix. */
int cgroup_of_pid(const char *proc_root, const char *cg_root, int pid, struct nri_cgroup *cg,
		  char *msg, size_t len);

/* The CPUs the container's parent cgroup has: the most it may get. */
int cgroup_parent_cpus(const struct nri_cgroup *cg, struct cpuset *s, char *msg, size_t len);
/* The container's own cpuset.cpus. */
int cgroup_read_cpus(const struct nri_cgroup *cg, struct cpuset *s, char *msg, size_t len);
/* Writes list ("0,2-3") to its cpuset.cpus. 0 or -errno with msg. */
int cgroup_write_cpus(const struct nri_cgroup *cg, const char *list, char *msg, size_t len);

#endif
