/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Signalling a pod's eventfd without trusting it. The pod shares the
 * eventfd's file description: it can clear O_NONBLOCK and fill the
 * counter, and a plain write would then block its writer for good. So
 * the eventfds of pods (memif's interrupt fds, vhost-user's call fds) are
 * written only by a thread of podwired's own (memif/kick.c, vhost/call.c),
 * each write bounded by a repeating timer signal aimed at that thread.
 */
#ifndef PODWIRE_PORTS_DOORBELL_H
#define PODWIRE_PORTS_DOORBELL_H

#include <stdbool.h>
#include <time.h>

/* How long one write may take before it is given up. */
#define DOORBELL_TIMEOUT_NS (20 * 1000 * 1000)

/* Makes signo interrupt a blocked write (a handler that does nothing,
 * no SA_RESTART). Once, before the writing thread starts. 0 or -errno. */
int doorbell_signal_init(int signo);
/* In the writing thread: a timer that sends signo to this thread, and
 * signo unblocked here. 0 or -errno. */
int doorbell_timer(int signo, timer_t *guard);
/* Writes 1 to the eventfd fd, giving up (false) when that does not finish
 * at once. The timer repeats, so a write that blocks is interrupted even
 * if the first signal came before it started. */
bool doorbell_ring(timer_t guard, int fd);

#endif
