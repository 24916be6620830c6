/* SPDX-License-Identifier: BSD-3-Clause */
/* A bounded write to a pod's eventfd (see doorbell.h). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ports/doorbell.h"

static void on_signal(int sig)
{
	(void)sig; /* its only job is to interrupt a write */
}

int doorbell_signal_init(int signo)
{
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: write returns */

	sigemptyset(&sa.sa_mask);
	return sigaction(signo, &sa, NULL) == 0 ? 0 : -errno;
}

int doorbell_timer(int signo, timer_t *guard)
{
	struct sigevent sev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = signo};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, signo);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	return timer_create(CLOCK_MONOTONIC, &sev, guard) == 0 ? 0 : -errno;
}

bool doorbell_ring(timer_t guard, int fd)
{
	struct itimerspec arm = {.it_value = {.tv_nsec = DOORBELL_TIMEOUT_NS},
				 .it_interval = {.tv_nsec = DOORBELL_TIMEOUT_NS}},
			  off = {0};
	uint64_t one = 1;
	ssize_t w;

	timer_settime(guard, 0, &arm, NULL);
	w = write(fd, &one, sizeof(one));
	timer_settime(guard, 0, &off, NULL);
	return w == (ssize_t)sizeof(one);
}
