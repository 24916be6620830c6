/* SPDX-License-Identifier: BSD-3-Clause */
/* Start-up checks, before EAL: each says what is wrong and the fix. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/config.h"
#include "daemon/daemon.h"
#include "files.h"

static int lock_fd = -1;

/* mkdir -p: parents 0755 (they may be shared, /run/podwire), the
 * directory itself with mode. */
static int mkdir_p(const char *path, mode_t mode)
{
	char parent[256], *slash;
	int rc;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (slash != NULL && slash != parent) {
		*slash = '\0';
		rc = mkdir_parents(parent, 0755);
		if (rc != 0)
			return rc;
	}
	if (mkdir(path, mode) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int check_hugepages(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	long total = 0, free_pages = 0;
	char line[256];
	bool mounted = false;

	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Total: %ld", &total);
		sscanf(line, "HugePages_Free: %ld", &free_pages);
	}
	if (f)
		fclose(f);
	f = fopen("/proc/mounts", "r");
	while (f && fgets(line, sizeof(line), f))
		mounted |= strstr(line, " hugetlbfs ") != NULL;
	if (f)
		fclose(f);
	if (total == 0) {
		fprintf(stderr, "podwired: no hugepages are reserved; reserve some with "
				"`echo 1024 > /proc/sys/vm/nr_hugepages` (2 MiB pages)\n");
		return -ENOMEM;
	}
	if (free_pages < 64) {
		fprintf(stderr,
			"podwired: only %ld of %ld hugepages are free, podwired needs at "
			"least 64; stop what holds them or reserve more\n",
			free_pages, total);
		return -ENOMEM;
	}
	if (!mounted) {
		fprintf(stderr,
			"podwired: hugetlbfs is not mounted; mount it with "
			"`mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages`\n");
		return -ENOENT;
	}
	return 0;
}

/* Every port holds sockets and eventfds: use the hard limit, not the
 * shell's default of 1024. */
void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* Every AF_XDP port (veth ports, uplinks) loads BPF objects that count
	 * as locked memory where the kernel charges it so: 8 MiB (a common
	 * default) ran out at some 16 veth ports. */
	rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
	if (setrlimit(RLIMIT_MEMLOCK, &rl) != 0 && getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_MEMLOCK, &rl);
	}
}

/* A path, or its nearest existing parent, that is not a directory. */
static bool not_a_dir(const char *opt, const char *path)
{
	char buf[256], *slash;
	struct stat st;

	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		if (stat(buf, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				return false;
			fprintf(stderr,
				"podwired: %s %s: %s is not a directory; pick another "
				"path\n",
				opt, path, buf);
			return true;
		}
		slash = strrchr(buf, '/');
		if (slash == NULL || slash == buf)
			return false;
		*slash = '\0';
	}
}

/* The state dir lock says "this instance"; a live socket says "someone". */
int check_single_instance(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char path[300], dir[108], *slash;
	int fd, rc;

	rc = mkdir_p(pw_cfg.state_dir, 0700);
	if (not_a_dir("--state-dir", pw_cfg.state_dir))
		return -ENOTDIR;
	if (rc != 0 || access(pw_cfg.state_dir, W_OK) != 0) {
		fprintf(stderr,
			"podwired: state dir %s cannot be created or written: %s; "
			"fix it or pass --state-dir DIR\n",
			pw_cfg.state_dir, strerror(rc ? -rc : errno));
		return -EACCES;
	}
	snprintf(path, sizeof(path), "%s/podwired.lock", pw_cfg.state_dir);
	lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
		char pid[32] = "?";

		if (lock_fd >= 0 && read(lock_fd, pid, sizeof(pid) - 1) > 0)
			pid[strcspn(pid, "\n")] = '\0';
		fprintf(stderr,
			"podwired: another podwired (pid %s) uses state dir %s; stop it "
			"or give this one its own --state-dir and --socket\n",
			pid, pw_cfg.state_dir);
		return -EBUSY;
	}
	if (ftruncate(lock_fd, 0) == 0)
		dprintf(lock_fd, "%d\n", getpid());

	snprintf(dir, sizeof(dir), "%s", pw_cfg.socket);
	slash = strrchr(dir, '/');
	*(slash == dir ? slash + 1 : slash) = '\0';
	rc = mkdir_p(dir, 0755);
	if (not_a_dir("--socket", dir))
		return -ENOTDIR;
	if (rc != 0 || access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr,
			"podwired: socket dir %s cannot be created or written: %s; fix "
			"its permissions or pass --socket PATH\n",
			dir, strerror(rc ? -rc : errno));
		return -EACCES;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", pw_cfg.socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		fprintf(stderr,
			"podwired: another podwired already serves %s; stop it or pass "
			"--socket PATH and --state-dir DIR\n",
			pw_cfg.socket);
		return -EADDRINUSE;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

void release_instance_lock(void)
{
	if (lock_fd >= 0)
		close(lock_fd);
	lock_fd = -1;
}
