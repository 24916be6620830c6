/* SPDX-License-Identifier: BSD-3-Clause */
/* The daemon's parts that other files call: the control loop and its
 * lock, start-up checks, telemetry. */
#ifndef PODWIRE_DAEMON_DAEMON_H
#define PODWIRE_DAEMON_DAEMON_H

#include <pthread.h>

/* Held by the control thread while it handles events (so always when it
 * changes registries), and by readers on other threads (telemetry). */
extern pthread_mutex_t ctl_lock;

/* MAC aging, link polling: once per loop turn. */
void housekeeping(void);
/* Serves the API until SIGINT or SIGTERM. 0, or -errno at start. */
int control_loop(void);

/* Start-up checks: hugepages, one instance per state dir and socket, a
 * raised fd limit. Each prints what is wrong and the fix. */
int check_hugepages(void);
int check_single_instance(void);
void release_instance_lock(void);
void raise_fd_limit(void);

void telemetry_init(void);
/* Points sriov/'s log and port lookup at the daemon's. */
void sriov_hooks_install(void);

#endif
