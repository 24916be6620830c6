/* SPDX-License-Identifier: BSD-3-Clause */
/* The daemon's parts that other files call: the control loop, start-up
 * checks, options. (Telemetry is a module: core/module.h.) */
#ifndef PODWIRE_DAEMON_DAEMON_H
#define PODWIRE_DAEMON_DAEMON_H

#include "core/config.h"

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

/* Parses argv (and --config FILE) into cfg. Returns 0, 1 when the program
 * should exit 0 (--help, --version), or -EINVAL with a message printed. */
int options_parse(int argc, char **argv, struct pw_config *cfg);

#endif
