/* SPDX-License-Identifier: BSD-3-Clause */
/* Daemon-wide settings, fixed at start-up. */
#ifndef PODWIRE_PODWIRED_H
#define PODWIRE_PODWIRED_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "datapath/view.h"

struct pw_config {
	int main_core;
	unsigned int worker_cores[PW_MAX_WORKERS];
	unsigned int n_worker_cores;
	char socket[108];
	char state_dir[256];
	char log_level[16];
	char socket_group[64];
	gid_t socket_gid; /* -1: root's group */
	uint32_t mac_capacity;
	uint32_t mac_aging_sec;
	uint32_t mbufs;
	char physnets[1024];  /* SR-IOV: "physnet2:enp1s0f0,physnet3:enp1s0f1#0-7" */
	char sysfs_root[256]; /* SR-IOV: every sysfs access goes under it */
};

extern struct pw_config pw_cfg;
extern time_t pw_start_time;

/* Held by the control thread while it handles events (so always when it
 * changes registries), and by readers on other threads (telemetry). */
extern pthread_mutex_t ctl_lock;
void telemetry_init(void);

/* Parses argv (and --config FILE) into cfg. Returns 0, 1 when the program
 * should exit 0 (--help, --version), or -EINVAL with a message printed. */
int options_parse(int argc, char **argv, struct pw_config *cfg);

/* Saves networks and ports under the state dir; logs on failure. */
int state_save(char *msg, size_t len);
/* Recreates networks and ports from the state dir. */
int state_restore(void);
/* Re-reads the SR-IOV VF allocations (api_vf.c); the pools themselves are
 * discovered by options_parse, which fails on a bad --physnets. */
void vf_restore(void);

#endif
