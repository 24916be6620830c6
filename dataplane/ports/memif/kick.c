/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kicks: a peer that does not poll a ring clears its MASK_INT flag and
 * waits on the ring's eventfd. Writing that eventfd from a worker could
 * block it: the peer shares the eventfd's file description, so it can
 * clear O_NONBLOCK and fill the counter. So workers only mark the ring
 * and ring podwired's own doorbell; this thread writes the peers'
 * eventfds, each write bounded by a timer signal. A write that would
 * block marks the connection, which the control thread then closes.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "daemon/log.h"
#include "ports/memif/memif.h"

PW_LOG_TYPE("memif");

#define KICK_SIGNAL	(SIGRTMIN + 4)
#define KICK_TIMEOUT_NS (20 * 1000 * 1000)

static int doorbell = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct memif_conn *conns;

static void on_signal(int sig)
{
	(void)sig; /* its only job is to interrupt a write */
}

/* Writes 1 to fd, giving up (false) when that does not finish at once. */
static bool kick_one(timer_t guard, int fd)
{
	struct itimerspec arm = {.it_value = {.tv_nsec = KICK_TIMEOUT_NS}}, off = {0};
	uint64_t one = 1;
	ssize_t w;

	timer_settime(guard, 0, &arm, NULL);
	w = write(fd, &one, sizeof(one));
	timer_settime(guard, 0, &off, NULL);
	return w == (ssize_t)sizeof(one);
}

static void *kick_main(void *arg)
{
	struct sigevent sev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = 0};
	struct pollfd pfd = {.fd = doorbell, .events = POLLIN};
	timer_t guard;

	(void)arg;
	sev.sigev_signo = KICK_SIGNAL;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &guard) != 0) {
		LOG(ERR, "kicks: cannot make a timer: %s; peers in interrupt mode get none",
		    strerror(errno));
		return NULL;
	}
	for (;;) {
		uint64_t n;

		if (poll(&pfd, 1, -1) <= 0 || read(doorbell, &n, sizeof(n)) != sizeof(n))
			continue;
		pthread_mutex_lock(&lock);
		for (struct memif_conn *c = conns; c != NULL; c = c->kick_next) {
			for (uint16_t k = 0; k < c->n_tx; k++) {
				struct memif_qring *r = &c->tx[k];

				if (!__atomic_exchange_n(&r->kick_pending, 0, __ATOMIC_ACQ_REL))
					continue;
				if (!kick_one(guard, r->kick_fd))
					__atomic_store_n(&c->kick_failed, 1, __ATOMIC_RELEASE);
			}
		}
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int memif_kick_start(void)
{
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: write returns */
	pthread_t t;

	if (doorbell >= 0)
		return 0;
	sigemptyset(&sa.sa_mask);
	doorbell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (doorbell < 0 || sigaction(KICK_SIGNAL, &sa, NULL) != 0 ||
	    pthread_create(&t, NULL, kick_main, NULL) != 0) {
		LOG(ERR, "kicks: cannot start: %s", strerror(errno));
		if (doorbell >= 0)
			close(doorbell);
		doorbell = -1;
		return -errno;
	}
	pthread_setname_np(t, "pw-memif-kick");
	pthread_detach(t);
	return 0;
}

void memif_kick_add(struct memif_conn *c)
{
	pthread_mutex_lock(&lock);
	c->kick_next = conns;
	conns = c;
	pthread_mutex_unlock(&lock);
}

void memif_kick_del(struct memif_conn *c)
{
	pthread_mutex_lock(&lock);
	for (struct memif_conn **pp = &conns; *pp != NULL; pp = &(*pp)->kick_next)
		if (*pp == c) {
			*pp = c->kick_next;
			break;
		}
	pthread_mutex_unlock(&lock);
}

void memif_kick_request(struct memif_qring *r)
{
	uint64_t one = 1;

	if (__atomic_load_n(&r->kick_pending, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&r->kick_pending, 1, __ATOMIC_RELEASE);
	/* Our own eventfd, non-blocking, drained by the kicker. */
	if (doorbell >= 0 && write(doorbell, &one, sizeof(one)) < 0)
		__atomic_store_n(&r->kick_pending, 0, __ATOMIC_RELAXED);
}
