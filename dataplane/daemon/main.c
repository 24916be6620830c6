/* SPDX-License-Identifier: BSD-3-Clause */
/* podwired: start-up checks, EAL, workers, and the control thread's loop. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "api/server.h"
#include "daemon/log.h"
#include "model/network.h"
#include "daemon/config.h"
#include "datapath/worker.h"

struct pw_config pw_cfg;
time_t pw_start_time;
struct rte_mempool *pw_mbuf_pool;

static int lock_fd = -1;

static int mkdir_p(const char *path, mode_t mode)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int check_hugepages(void)
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

/* Every port holds sockets and eventfds, and DPDK 22.11's net_memif keeps
 * one listening socket per deleted server-role port (see README, known
 * issues): use the hard limit, not the shell's default of 1024. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
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
static int check_single_instance(void)
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

/* The DPDK file prefix follows the socket, so instances never collide. */
static int eal_start(const char *prog)
{
	char lcores[1024], main_lcore[16], prefix[64], *eal_argv[16];
	unsigned long h = 5381;
	size_t off;
	int n = 0;

	for (const char *s = pw_cfg.socket; *s; s++)
		h = h * 33 + (unsigned char)*s;
	off = (size_t)snprintf(lcores, sizeof(lcores), "%d", pw_cfg.main_core);
	for (unsigned int i = 0; i < pw_cfg.n_worker_cores && off < sizeof(lcores); i++)
		off += (size_t)snprintf(lcores + off, sizeof(lcores) - off, ",%u",
					pw_cfg.worker_cores[i]);
	snprintf(main_lcore, sizeof(main_lcore), "%d", pw_cfg.main_core);
	snprintf(prefix, sizeof(prefix), "podwired-%08lx", h & 0xffffffffUL);
	eal_argv[n++] = (char *)prog;
	eal_argv[n++] = "-l";
	eal_argv[n++] = lcores;
	eal_argv[n++] = "--main-lcore";
	eal_argv[n++] = main_lcore;
	eal_argv[n++] = "--file-prefix";
	eal_argv[n++] = prefix;
	eal_argv[n++] = "--huge-unlink";
	/* PCI devices are probed only when a pci port asks for one: an
	 * allow-list naming no real device keeps DPDK from taking every
	 * vfio-pci device at start, the VFs handed to pods included. */
	eal_argv[n++] = "-a";
	eal_argv[n++] = "0000:00:00.0";
	eal_argv[n++] = "--log-level=*:notice";
	eal_argv[n] = NULL;
	if (rte_eal_init(n, eal_argv) < 0) {
		fprintf(stderr,
			"podwired: DPDK initialisation failed: %s; check the cores "
			"(--main-core, --worker-cores) and hugepages\n",
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static void housekeeping(void)
{
	static uint32_t last_age;
	struct timespec ts;
	struct port *p;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	dp_clock = (uint32_t)ts.tv_sec;
	if (dp_clock != last_age) {
		last_age = dp_clock;
		mac_table_age(dp_macs, dp_clock, pw_cfg.mac_aging_sec);
	}
	TAILQ_FOREACH (p, &port_all, next)
		if (p->ops->poll_link != NULL)
			p->ops->poll_link(p);
}

static int control_loop(void)
{
	struct epoll_event ev = {.events = EPOLLIN}, evs[32];
	sigset_t set;
	int ep, sfd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.ptr = &sfd;
	if (sfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev) != 0)
		return -errno;
	if (api_server_open(ep, pw_cfg.socket, pw_cfg.socket_gid) != 0)
		return -1;
	PW_LOG(NOTICE, main, "ready: API on %s, %u worker(s), %u network(s), %u port(s)",
	       pw_cfg.socket, n_workers, network_count(), port_count());
	for (;;) {
		int n = epoll_wait(ep, evs, RTE_DIM(evs), 100);

		pthread_mutex_lock(&ctl_lock);
		for (int i = 0; i < n; i++) {
			if (evs[i].data.ptr == &sfd) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					PW_LOG(NOTICE, main, "signal %u: shutting down",
					       si.ssi_signo);
					pthread_mutex_unlock(&ctl_lock);
					goto out;
				}
				continue;
			}
			api_server_event(evs[i].data.ptr, evs[i].events);
		}
		housekeeping();
		pthread_mutex_unlock(&ctl_lock);
	}
out:
	api_server_close();
	close(ep);
	close(sfd);
	return 0;
}

static void remove_dir(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	char path[PATH_MAX + 256];

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d != NULL)
		closedir(d);
	rmdir(dir);
}

static void shutdown_all(void)
{
	char rundir[PATH_MAX];
	struct port *p;

	pthread_mutex_lock(&ctl_lock);
	/* Ports go before workers stop: port_destroy waits on the workers'
	 * quiescent reports. The state file keeps them for the next start. */
	while ((p = TAILQ_FIRST(&port_all)) != NULL)
		port_destroy(p);
	pthread_mutex_unlock(&ctl_lock);
	/* net_memif frees a closed port's control channel from DPDK's
	 * interrupt thread, later (rte_intr_callback_unregister_pending);
	 * tearing EAL down under it crashed podwired on exit now and then.
	 * Give that thread a moment to finish. */
	usleep(200 * 1000);
	workers_stop();
	dp_fini();
	stats_fini();
	rte_mempool_free(pw_mbuf_pool);
	/* DPDK leaves its runtime dir (config, telemetry socket) behind. */
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	remove_dir(rundir);
}

int main(int argc, char **argv)
{
	sigset_t set;
	int rc;

	rc = options_parse(argc, argv, &pw_cfg);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();
	/* Pod sockets (made by librte_vhost and net_memif with the umask) must
	 * be connectable by the pods' group, whose access the directory (e.g.
	 * the CNI plugin's 0750/0770 per-pod directory) decides; others get
	 * nothing. The API socket and state file set their own modes. */
	umask(0007);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* Blocked before EAL makes threads, so only signalfd sees them. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (check_hugepages() != 0 || check_single_instance() != 0)
		return 1;
	if (eal_start(argv[0]) != 0)
		return 1;
	if (pw_log_set_level(pw_cfg.log_level) != 0) {
		fprintf(stderr,
			"podwired: --log-level: unknown level \"%s\"; use error, warning, "
			"notice, info or debug\n",
			pw_cfg.log_level);
		rte_eal_cleanup();
		return 2;
	}
	pw_start_time = time(NULL);
	pw_mbuf_pool = rte_pktmbuf_pool_create("pw_mbufs", pw_cfg.mbufs, 256, 0,
					       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pw_mbuf_pool == NULL) {
		fprintf(stderr, "podwired: cannot allocate %u mbufs: %s; reserve more hugepages\n",
			pw_cfg.mbufs, rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 1;
	}
	if (stats_init(pw_cfg.n_worker_cores) != 0 ||
	    dp_init(pw_cfg.n_worker_cores, pw_cfg.mac_capacity) != 0 ||
	    workers_start(pw_cfg.worker_cores, pw_cfg.n_worker_cores) != 0) {
		fprintf(stderr, "podwired: cannot start the datapath: out of hugepage memory or a "
				"worker core is busy\n");
		workers_stop();
		rte_eal_cleanup();
		return 1;
	}
	housekeeping();
	pthread_mutex_lock(&ctl_lock);
	state_restore();
	vf_restore();
	pthread_mutex_unlock(&ctl_lock);
	telemetry_init();
	rc = control_loop();
	shutdown_all();
	close(lock_fd);
	return rc == 0 ? 0 : 1;
}
