/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's event loop, open to every module: a port kind with
 * sockets of its own (memif's control channels) watches them here, so all
 * control work runs on one thread, under ctl_lock, with no lock of its own.
 * Callbacks must not block.
 */
#ifndef PODWIRE_CORE_LOOP_H
#define PODWIRE_CORE_LOOP_H

#include <pthread.h>
#include <stdint.h>

/* Held by the control thread while it handles events (so always when it
 * changes registries), and by readers on other threads (telemetry,
 * metrics). */
extern pthread_mutex_t ctl_lock;

struct loop_watch;
typedef void (*loop_watch_fn)(void *arg, uint32_t events);

/* Creates the loop's epoll instance; 0 or -errno. Before any watch. */
int loop_init(void);
int loop_epfd(void);

/* Calls fn(arg, epoll events) when fd has events. NULL on failure. */
struct loop_watch *loop_watch_add(int fd, uint32_t events, loop_watch_fn fn, void *arg);
/* Stops watching (before the fd is closed). No callback runs for w after
 * this, even for events already fetched; w is freed after the current
 * dispatch. NULL is fine. */
void loop_watch_del(struct loop_watch *w);

/* For the loop: runs a fetched event's watch, if it is one (returns 1). */
int loop_watch_dispatch(void *ptr, uint32_t events);
/* For the loop: frees the watches deleted during the last dispatch. */
void loop_watch_reap(void);

#endif
