/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Call eventfds: librte_vhost writes a vring's call eventfd from the
 * worker's enqueue and dequeue bursts whenever the guest's ring asks for
 * an interrupt. The frontend shares that eventfd's file description: it
 * can clear O_NONBLOCK and fill the counter, and the worker's next write
 * would block it, and every port it polls, for good. So librte_vhost gets
 * an eventfd of podwired's own (non-blocking, nobody else holds it), and
 * this thread forwards each signal on it to the frontend's eventfd, every
 * write bounded (ports/doorbell.h, as memif's kicks). A write that would block ends that connection
 * only: the owner's fail callback marks it and the control thread ends
 * it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "ports/doorbell.h"
#include "ports/vhost/vhost.h"

PW_LOG_TYPE("vhost");

#define CALL_SIGNAL (SIGRTMIN + 5)
#define CALL_EVENTS 64

/* One vring's forwarding. Only the forwarding thread frees entries and
 * closes their fds: the others unhook the owner (under the lock) and wake
 * it, so an event it holds never points to freed memory. */
struct vhost_call {
	void *owner; /* NULL: removed */
	void (*fail)(void *owner);
	int ours;    /* the eventfd librte_vhost writes (it holds a duplicate) */
	int theirs;  /* the frontend's */
	bool failed; /* a write would have blocked: not tried again */
	struct vhost_call *next;
};

static int epfd = -1, wake = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct vhost_call *calls;

/* Frees the removed entries. */
static void sweep(void)
{
	pthread_mutex_lock(&lock);
	for (struct vhost_call **pp = &calls; *pp != NULL;) {
		struct vhost_call *c = *pp;

		if (c->owner != NULL) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		epoll_ctl(epfd, EPOLL_CTL_DEL, c->ours, NULL);
		close(c->ours);
		close(c->theirs);
		free(c);
	}
	pthread_mutex_unlock(&lock);
}

static void *call_main(void *arg)
{
	struct epoll_event ev[CALL_EVENTS];
	timer_t guard;

	(void)arg;
	if (doorbell_timer(CALL_SIGNAL, &guard) != 0) {
		LOG(ERR, "call eventfds: cannot make a timer: %s; guests get no interrupts",
		    strerror(errno));
		return NULL;
	}
	for (;;) {
		int n = epoll_wait(epfd, ev, CALL_EVENTS, -1);
		bool removed = false;
		uint64_t val;

		for (int i = 0; i < n; i++) {
			struct vhost_call *c = ev[i].data.ptr;
			int theirs = -1;

			if (c == NULL) {
				if (read(wake, &val, sizeof(val)) < 0) {
					/* Already drained. */
				}
				removed = true;
				continue;
			}
			if (read(c->ours, &val, sizeof(val)) != sizeof(val))
				continue;
			pthread_mutex_lock(&lock);
			if (c->owner != NULL && !c->failed)
				theirs = c->theirs;
			pthread_mutex_unlock(&lock);
			/* Outside the lock: a frontend that makes a write slow
			 * holds up only the calls behind it, never the threads
			 * that add and remove. */
			if (theirs < 0 || doorbell_ring(guard, theirs))
				continue;
			pthread_mutex_lock(&lock);
			c->failed = true;
			if (c->owner != NULL)
				c->fail(c->owner);
			pthread_mutex_unlock(&lock);
		}
		if (removed)
			sweep();
	}
	return NULL;
}

int vhost_call_start(void)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	pthread_t t;
	int rc;

	if (epfd >= 0)
		return 0;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (epfd < 0 || wake < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, wake, &ev) != 0 ||
	    doorbell_signal_init(CALL_SIGNAL) != 0 ||
	    pthread_create(&t, NULL, call_main, NULL) != 0) {
		rc = -errno;
		LOG(ERR, "call eventfds: cannot start: %s", strerror(errno));
		if (epfd >= 0)
			close(epfd);
		if (wake >= 0)
			close(wake);
		epfd = wake = -1;
		return rc;
	}
	pthread_setname_np(t, "pw-vhost-call");
	pthread_detach(t);
	return 0;
}

struct vhost_call *vhost_call_add(int theirs, void (*fail)(void *owner), void *owner, int *ours)
{
	struct vhost_call *c = calloc(1, sizeof(*c));
	struct epoll_event ev = {.events = EPOLLIN};

	*ours = -1;
	if (c == NULL || epfd < 0)
		goto err;
	c->owner = owner;
	c->fail = fail;
	c->theirs = theirs;
	c->ours = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->ours < 0)
		goto err;
	*ours = fcntl(c->ours, F_DUPFD_CLOEXEC, 0);
	ev.data.ptr = c;
	if (*ours < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, c->ours, &ev) != 0)
		goto err;
	pthread_mutex_lock(&lock);
	c->next = calls;
	calls = c;
	pthread_mutex_unlock(&lock);
	return c;
err:
	if (*ours >= 0)
		close(*ours);
	*ours = -1;
	if (c != NULL && c->ours > 0)
		close(c->ours);
	free(c);
	return NULL;
}

void vhost_call_del(struct vhost_call *c)
{
	uint64_t one = 1;

	if (c == NULL)
		return;
	pthread_mutex_lock(&lock);
	c->owner = NULL;
	pthread_mutex_unlock(&lock);
	/* The forwarding thread closes the fds and frees c when it wakes. */
	if (write(wake, &one, sizeof(one)) < 0) {
		/* Full: it is awake anyway. */
	}
}
