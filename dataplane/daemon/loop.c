/* SPDX-License-Identifier: BSD-3-Clause */
/* The control thread's loop: API clients, signals, housekeeping. */
#include <errno.h>
#include <signal.h>
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
}

int control_loop(void)
{
	struct epoll_event ev = {.events = EPOLLIN}, evs[32];
	sigset_t set;
	int ep, sfd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	ep = loop_epfd();
	ev.data.ptr = &sfd;
	if (sfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev) != 0)
		return -errno;
	if (api_server_open(ep, pw_cfg.socket, pw_cfg.socket_gid) != 0)
		return -1;
	LOG(NOTICE, "ready: API on %s, %u worker(s), %u network(s), %u port(s)", pw_cfg.socket,
	    n_workers, network_count(), port_count());
	for (;;) {
		int n = epoll_wait(ep, evs, RTE_DIM(evs), 100);

		pthread_mutex_lock(&ctl_lock);
		for (int i = 0; i < n; i++) {
			if (evs[i].data.ptr == &sfd) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					LOG(NOTICE, "signal %u: shutting down", si.ssi_signo);
					pthread_mutex_unlock(&ctl_lock);
					goto out;
				}
				continue;
			}
			/* The API server knows its pointers; a watch knows itself. */
			if (!api_server_event(evs[i].data.ptr, evs[i].events))
				loop_watch_dispatch(evs[i].data.ptr, evs[i].events);
		}
		loop_watch_reap();
		api_server_housekeeping();
		housekeeping();
		pthread_mutex_unlock(&ctl_lock);
	}
out:
	api_server_close();
	close(sfd);
	return 0;
}
