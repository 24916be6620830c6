/* SPDX-License-Identifier: BSD-3-Clause */
/* podwired: start-up, EAL, workers, and shutdown. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "api/registry.h"
#include "cdi/cdi.h"
#include "core/config.h"
#include "daemon/daemon.h"
#include "core/loop.h"
#include "core/log.h"
#include "datapath/forward.h"
#include "datapath/stats.h"
#include "datapath/worker.h"
#include "model/port.h"
#include "model/state.h"
#include "observe/metrics.h"
#include "ports/memif/config.h"
#include "sriov/vf_api.h"

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

	/* Its thread reads the model under ctl_lock: it goes first. */
	metrics_stop();
	pthread_mutex_lock(&ctl_lock);
	/* Ports go while the workers still run: the empty view is published
	 * and its grace period waits on their quiescent reports. The state
	 * file keeps the ports for the next start. */
	port_destroy_all();
	pthread_mutex_unlock(&ctl_lock);
	workers_stop();
	view_fini();
	l2_bridge_fini();
	stats_fini();
	rte_mempool_free(pw_mbuf_pool);
	/* DPDK leaves its runtime dir (config, telemetry socket) behind. */
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	remove_dir(rundir);
}

/* The registries filled by constructors: a kind or handler that did not
 * make it in is a build mistake, caught before anything starts. */
static int check_registries(void)
{
	char msg[512];

	if (port_kinds_check(msg, sizeof(msg)) != 0 || api_registry_check(msg, sizeof(msg)) != 0) {
		fprintf(stderr, "podwired: %s\n", msg);
		return -EINVAL;
	}
	return 0;
}

static int datapath_start(void)
{
	pw_mbuf_pool = rte_pktmbuf_pool_create("pw_mbufs", pw_cfg.mbufs, 256, 0,
					       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pw_mbuf_pool == NULL) {
		fprintf(stderr, "podwired: cannot allocate %u mbufs: %s; reserve more hugepages\n",
			pw_cfg.mbufs, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	if (stats_init(pw_cfg.n_worker_cores) != 0 || view_init(pw_cfg.n_worker_cores) != 0 ||
	    l2_bridge_init(pw_cfg.mac_capacity) != 0 ||
	    workers_start(pw_cfg.worker_cores, pw_cfg.n_worker_cores, pw_mbuf_pool) != 0) {
		fprintf(stderr, "podwired: cannot start the datapath: out of hugepage memory or a "
				"worker core is busy\n");
		workers_stop();
		return -ENOMEM;
	}
	return 0;
}

int main(int argc, char **argv)
{
	sigset_t set;
	int rc;

	rc = options_parse(argc, argv, &pw_cfg);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (check_registries() != 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();
	/* Pod sockets (made by librte_vhost and the memif ports with the umask) must
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
	/* options_parse checked the name: this cannot fail. */
	pw_log_set_level(pw_cfg.log_level);
	memif_cfg.backoff_max_ms = pw_cfg.memif_backoff_max_ms;
	memif_cfg.peer_max_bytes = (uint64_t)pw_cfg.memif_peer_memory_mb << 20;
	memif_cfg.total_max_bytes = (uint64_t)pw_cfg.memif_total_memory_mb << 20;
	port_set_socket_group(pw_cfg.socket_gid);
	pw_start_time = time(NULL);
	if (datapath_start() != 0) {
		rte_eal_cleanup();
		return 1;
	}
	if (loop_init() != 0) {
		fprintf(stderr, "podwired: cannot create the control loop: %s\n", strerror(errno));
		return 1;
	}
	housekeeping();
	pthread_mutex_lock(&ctl_lock);
	state_set_dir(pw_cfg.state_dir);
	if (state_restore() == -EBADMSG) {
		pthread_mutex_unlock(&ctl_lock);
		fprintf(stderr, "podwired: cannot restore %s/state.json; see the log above\n",
			pw_cfg.state_dir);
		shutdown_all();
		release_instance_lock();
		return 1;
	}
	sriov_hooks_install();
	vf_api_restore(pw_cfg.state_dir);
	cdi_start(pw_cfg.cdi_dir, pw_cfg.dev_root);
	pthread_mutex_unlock(&ctl_lock);
	telemetry_init();
	if (pw_cfg.metrics[0] != '\0' && metrics_start(pw_cfg.metrics) != 0) {
		shutdown_all();
		release_instance_lock();
		return 1;
	}
	rc = control_loop();
	pthread_mutex_lock(&ctl_lock);
	cdi_stop();
	pthread_mutex_unlock(&ctl_lock);
	shutdown_all();
	release_instance_lock();
	return rc == 0 ? 0 : 1;
}
