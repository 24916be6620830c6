/* SPDX-License-Identifier: BSD-3-Clause */
/* podwired: options, checks, EAL, then the modules (core/module.h) in
 * the order their needs give, the control loop, and the modules stopped
 * in reverse. */
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

#include "api/registry.h"
#include "core/config.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/module.h"
#include "daemon/daemon.h"
#include "model/port.h"

/* The DPDK file prefix follows the socket, so instances never collide. */
static int eal_start(const char *prog)
{
	char lcores[1024], main_lcore[16], prefix[64], *eal_argv[16];
	unsigned long h = 5381;
	size_t off;
	int n = 0;

	for (const char *s = pw_cfg.socket; *s; s++)
		h = h * 33 + (unsigned char)*s;
	/* EAL lcore 0 is the main thread, lcore i + 1 worker i, each on
	 * its CPU: a worker may then share the main thread's CPU (a small
	 * machine's setting), which plain core numbers cannot say. */
	off = (size_t)snprintf(lcores, sizeof(lcores), "0@%d", pw_cfg.main_core);
	for (unsigned int i = 0; i < pw_cfg.n_worker_cores && off < sizeof(lcores); i++)
		off += (size_t)snprintf(lcores + off, sizeof(lcores) - off, ",%u@%u", i + 1,
					pw_cfg.worker_cores[i]);
	snprintf(main_lcore, sizeof(main_lcore), "0");
	snprintf(prefix, sizeof(prefix), "podwired-%08lx", h & 0xffffffffUL);
	eal_argv[n++] = (char *)prog;
	eal_argv[n++] = "--lcores";
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

/* EAL goes last, after every module stopped; DPDK leaves its runtime dir
 * (config, telemetry socket) behind. */
static void eal_stop(void)
{
	char rundir[PATH_MAX];

	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	remove_dir(rundir);
}

/* The registries filled by constructors: a kind, handler or module that
 * did not make it in (or a module needing one that did not) is a build
 * mistake, caught before anything starts. */
static int check_registries(void)
{
	char msg[1024];

	if (port_kinds_check(msg, sizeof(msg)) != 0 || api_registry_check(msg, sizeof(msg)) != 0 ||
	    module_check(msg, sizeof(msg)) != 0) {
		fprintf(stderr, "podwired: %s\n", msg);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char msg[1024];
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
	/* These checks and EAL stay here, not in modules: modules start once
	 * EAL runs, and these decide whether it may (free hugepages, no other
	 * podwired on this socket or state dir) and make it run. */
	if (check_hugepages() != 0 || check_single_instance() != 0)
		return 1;
	if (eal_start(argv[0]) != 0)
		return 1;
	/* options_parse checked the name: this cannot fail. Before any
	 * module, so that their first lines obey it. */
	pw_log_set_level(pw_cfg.log_level);
	pw_start_time = time(NULL);
	/* The loop before the modules: port kinds watch their sockets from
	 * the first port the model restores. */
	if (loop_init() != 0) {
		fprintf(stderr, "podwired: cannot create the control loop: %s\n", strerror(errno));
		eal_stop();
		release_instance_lock();
		return 1;
	}
	/* Each module said why it could not start; those before it stopped. */
	if (module_start_all(msg, sizeof(msg)) != 0) {
		eal_stop();
		release_instance_lock();
		return 1;
	}
	rc = control_loop();
	module_stop_all();
	eal_stop();
	release_instance_lock();
	return rc == 0 ? 0 : 1;
}
