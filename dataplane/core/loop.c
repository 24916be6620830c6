/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/loop.h"

pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;

struct loop_watch {
	uint32_t magic; /* tells watches from the API server's pointers */
	bool dead;
	int fd;
	loop_watch_fn fn;
	void *arg;
	struct loop_watch *next_dead;
};

#define WATCH_MAGIC 0x70776174u

static int epfd = -1;
static struct loop_watch *dead;

int loop_init(void)
{
	if (epfd < 0)
		epfd = epoll_create1(EPOLL_CLOEXEC);
	return epfd < 0 ? -errno : 0;
}

int loop_epfd(void)
{
	return epfd;
}

struct loop_watch *loop_watch_add(int fd, uint32_t events, loop_watch_fn fn, void *arg)
{
	struct loop_watch *w = calloc(1, sizeof(*w));
	struct epoll_event ev = {.events = events};

	if (w == NULL)
		return NULL;
	w->magic = WATCH_MAGIC;
	w->fd = fd;
	w->fn = fn;
	w->arg = arg;
	ev.data.ptr = w;
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		free(w);
		return NULL;
	}
	return w;
}

void loop_watch_del(struct loop_watch *w)
{
	if (w == NULL || w->dead)
		return;
	epoll_ctl(epfd, EPOLL_CTL_DEL, w->fd, NULL);
	w->dead = true;
	w->next_dead = dead;
	dead = w;
}

int loop_watch_dispatch(void *ptr, uint32_t events)
{
	struct loop_watch *w = ptr;

	if (w == NULL || w->magic != WATCH_MAGIC)
		return 0;
	if (!w->dead)
		w->fn(w->arg, events);
	return 1;
}

void loop_watch_reap(void)
{
	while (dead != NULL) {
		struct loop_watch *w = dead;

		dead = w->next_dead;
		w->magic = 0;
		free(w);
	}
}
