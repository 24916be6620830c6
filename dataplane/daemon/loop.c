/* SPDX-License-Identifier: BSD-3-Clause */
/* The control thread: its signals, and what it does each turn of the loop
 * that core/loop.c runs (housekeeping). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "api/server.h"
#include "core/config.h"
#include "daemon/daemon.h"
#include "core/loop.h"
#include "core/log.h"
#include "datapath/forward.h"
#include "datapath/worker.h"
#include "model/network.h"
#include "model/queue.h"

PW_LOG_TYPE("main");

void housekeeping(void)
{
	static uint32_t last_age;
	struct timespec ts;
	struct port *p;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	l2_clock = (uint32_t)ts.tv_sec;
	if (l2_clock != last_age) {
		last_age = l2_clock;
		mac_table_age(l2_macs, l2_clock, pw_cfg.mac_aging_sec);
		TAILQ_FOREACH (p, &port_all, next)
			port_flood_limit_note(p);
	}
	TAILQ_FOREACH (p, &port_all, next)
		if (p->ops->poll_link != NULL)
			p->ops->poll_link(p);
	queue_tick();
}

/* The signalfd's watch: SIGINT or SIGTERM ends the loop. */
static void on_signal(void *arg, uint32_t events)
{
	struct signalfd_siginfo si;

	RTE_SET_USED(events);
	if (read(*(int *)arg, &si, sizeof(si)) == sizeof(si)) {
		LOG(NOTICE, "signal %u: shutting down", si.ssi_signo);
		loop_stop();
	}
}

/* What the daemon does once per turn of the loop, after the batch. */
static void control_turn(void)
{
	api_server_housekeeping();
	housekeeping();
}

int control_loop(void)
{
	struct loop_watch *sig;
	sigset_t set;
	int sfd, rc;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return -errno;
	sig = loop_watch_add(sfd, EPOLLIN, on_signal, &sfd);
	if (sig == NULL) {
		rc = -errno;
		close(sfd);
		return rc;
	}
	if (api_server_open(pw_cfg.socket, pw_cfg.socket_gid) != 0) {
		loop_watch_del(sig);
		close(sfd);
		return -1;
	}
	LOG(NOTICE, "ready: API on %s, %u worker(s), %u network(s), %u port(s)", pw_cfg.socket,
	    n_workers, network_count(), port_count());
	/* A tick of 100 ms: housekeeping runs even when nothing happens. */
	rc = loop_run(100, control_turn);
	if (rc < 0)
		LOG(ERR, "control loop: epoll_wait failed: %s; shutting down", strerror(-rc));
	api_server_close();
	loop_watch_del(sig);
	close(sfd);
	return rc;
}
