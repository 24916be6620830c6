/* SPDX-License-Identifier: BSD-3-Clause */
/* podwired's settings, fixed at start-up: the command line over the
 * configuration file over the built-in defaults (daemon/options.c fills
 * them before any module starts). Modules may read them; only the daemon
 * writes them. */
#ifndef PODWIRE_CORE_CONFIG_H
#define PODWIRE_CORE_CONFIG_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "core/limits.h"

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
	char cdi_dir[256];    /* CDI spec files; "" writes none */
	char dev_root[256];   /* where device nodes are (CDI hostPath) */
	char metrics[64];     /* Prometheus /metrics on ADDR:PORT; "" for none */
	uint32_t memif_backoff_max_ms;
	uint32_t memif_peer_memory_mb;	/* memif: what one peer may have podwired map */
	uint32_t memif_total_memory_mb; /* and all peers together */
	uint32_t idle_sleep_max_us;	/* a worker's longest idle nap; 0: none */
	/* Rx queue rebalancing at start-up (the API changes it later). */
	char rebalance[8]; /* "on" or "off" */
	char veth_io[8];   /* veth ports that name no "io": "packet" or "xdp" */
	uint32_t rebalance_interval_s;
	uint32_t rebalance_threshold_pct;
	uint32_t rebalance_improvement_pct;
	uint32_t acl_sessions; /* permit+reflect sessions per worker */
};

extern struct pw_config pw_cfg;
extern time_t pw_start_time;

#endif
