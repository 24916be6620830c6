/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/loop.h"

pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;

/* Events fetched per epoll_wait: a batch. */
#define LOOP_BATCH 32

/* Every epoll event's data.ptr is a watch: a deleted one stays allocated
 * (dead) until the batch that may name it is done. */
struct loop_watch {
	bool dead;
	int fd;
	loop_watch_fn fn;
	void *arg;
	void (*release)(void *arg);
	struct loop_watch *next_dead;
};

static int epfd = -1;
static struct loop_watch *dead;
static bool stopping;

int loop_init(void)
{
	if (epfd < 0)
		epfd = epoll_create1(EPOLL_CLOEXEC);
	return epfd < 0 ? -errno : 0;
}

struct loop_watch *loop_watch_add(int fd, uint32_t events, loop_watch_fn fn, void *arg)
{
	struct loop_watch *w = calloc(1, sizeof(*w));
	struct epoll_event ev = {.events = events};

	if (w == NULL)
		return NULL;
	w->fd = fd;
	w->fn = fn;
	w->arg = arg;
	ev.data.ptr = w;
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		int e = epfd < 0 ? EBADF : errno;

		free(w);
		errno = e;
		return NULL;
	}
	return w;
}

int loop_watch_mod(struct loop_watch *w, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = w};

	if (w == NULL || w->dead)
		return -EINVAL;
	return epoll_ctl(epfd, EPOLL_CTL_MOD, w->fd, &ev) == 0 ? 0 : -errno;
}

void loop_watch_del_release(struct loop_watch *w, void (*release)(void *arg))
{
	if (w == NULL || w->dead)
		return;
	epoll_ctl(epfd, EPOLL_CTL_DEL, w->fd, NULL);
	w->dead = true;
	w->release = release;
	w->next_dead = dead;
	dead = w;
}

void loop_watch_del(struct loop_watch *w)
{
	loop_watch_del_release(w, NULL);
}

/* Frees the watches deleted so far: only between batches, when no
 * fetched event is left to name them. */
static void reap(void)
{
	while (dead != NULL) {
		struct loop_watch *w = dead;

		dead = w->next_dead;
		if (w->release != NULL)
			w->release(w->arg);
		free(w);
	}
}

static int run_once(int timeout_ms, void (*turn)(void))
{
	struct epoll_event evs[LOOP_BATCH];
	int n = epoll_wait(epfd, evs, LOOP_BATCH, timeout_ms);

	if (n < 0 && errno != EINTR)
		return -errno;
	pthread_mutex_lock(&ctl_lock);
	for (int i = 0; i < n; i++) {
		struct loop_watch *w = evs[i].data.ptr;

		/* Deleted by an earlier callback of this batch: its arg may be
		 * gone, its fd closed or reused. */
		if (!w->dead)
			w->fn(w->arg, evs[i].events);
	}
	reap();
	if (turn != NULL && !stopping)
		turn();
	pthread_mutex_unlock(&ctl_lock);
	return n < 0 ? 0 : n;
}

int loop_run_once(int timeout_ms)
{
	return run_once(timeout_ms, NULL);
}

int loop_run(int tick_ms, void (*turn)(void))
{
	stopping = false;
	while (!stopping) {
		int rc = run_once(tick_ms, turn);

		if (rc < 0)
			return rc;
	}
	return 0;
}

void loop_stop(void)
{
	stopping = true;
}
