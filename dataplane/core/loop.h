/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's event loop, open to every module: every fd of the
 * control thread (the API server's socket and clients, the signalfd,
 * memif's control channels, capture streams, timers) is a watch here, so
 * every event is dispatched the same way and all control work runs on one
 * thread, under ctl_lock, with no lock of its own. Callbacks must not
 * block.
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

/* Calls fn(arg, epoll events) when fd has events. NULL on failure, with
 * errno set. Control thread only, as for every function below. */
struct loop_watch *loop_watch_add(int fd, uint32_t events, loop_watch_fn fn, void *arg);
/* Changes the events w waits for; 0 or -errno. */
int loop_watch_mod(struct loop_watch *w, uint32_t events);
/* Stops watching (before the fd is closed). No callback runs for w after
 * this, even for events already fetched; w is freed once the batch being
 * dispatched is done. NULL is fine. */
void loop_watch_del(struct loop_watch *w);
/* loop_watch_del, and release(arg) once w is freed: what arg points to
 * then outlives every event fetched for w (a watch deleted from a
 * callback may still be named by a later event of the same batch). */
void loop_watch_del_release(struct loop_watch *w, void (*release)(void *arg));

/* Runs the loop on the calling thread until loop_stop: each turn waits up
 * to tick_ms for events (without ctl_lock), then, holding ctl_lock,
 * dispatches the batch to its watches, frees the watches deleted
 * meanwhile and calls turn (not after loop_stop). 0 once stopped, -errno
 * when epoll fails. */
int loop_run(int tick_ms, void (*turn)(void));
/* Makes loop_run return once the batch being dispatched is done. */
void loop_stop(void);
/* One turn without a turn callback, for tests: the number of events
 * fetched (0 after timeout_ms without any), or -errno. */
int loop_run_once(int timeout_ms);

#endif
