/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two modules (core/module.h): "datapath", the mbuf pool, counters, view,
 * MAC table and the workers; and "model", the networks and ports of
 * state.json. The datapath's start lives here because the mbuf pool the
 * workers are handed is the model's (pw_mbuf_pool, shared by the port
 * kinds), and datapath/ includes no model.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "core/config.h"
#include "core/loop.h"
#include "core/module.h"
#include "core/notify.h"
#include "datapath/forward.h"
#include "datapath/stats.h"
#include "datapath/worker.h"
#include "model/port.h"
#include "model/queue.h"
#include "model/state.h"

static int datapath_init(void)
{
	struct timespec ts;

	pw_mbuf_pool = rte_pktmbuf_pool_create("pw_mbufs", pw_cfg.mbufs, 256, 0,
					       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pw_mbuf_pool == NULL) {
		fprintf(stderr, "podwired: cannot allocate %u mbufs: %s; reserve more hugepages\n",
			pw_cfg.mbufs, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	if (stats_init(pw_cfg.n_worker_cores) != 0 || view_init(pw_cfg.n_worker_cores) != 0 ||
	    l2_bridge_init(pw_cfg.mac_capacity) != 0 ||
	    workers_start(pw_cfg.worker_cores, pw_cfg.n_worker_cores, pw_mbuf_pool,
			  pw_cfg.idle_sleep_max_us) != 0) {
		fprintf(stderr, "podwired: cannot start the datapath: out of hugepage memory or a "
				"worker core is busy\n");
		workers_stop();
		return -ENOMEM;
	}
	queue_balance_cfg = (struct queue_balance){
	    .on = strcmp(pw_cfg.rebalance, "on") == 0,
	    .interval_s = pw_cfg.rebalance_interval_s,
	    .threshold_pct = pw_cfg.rebalance_threshold_pct,
	    .improvement_pct = pw_cfg.rebalance_improvement_pct,
	};
	/* MACs learnt from the ports restored next are stamped with the
	 * time of now, not 0 (the control loop's housekeeping keeps it). */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	l2_clock = (uint32_t)ts.tv_sec;
	return 0;
}

static void datapath_fini(void)
{
	workers_stop();
	view_fini();
	l2_bridge_fini();
	stats_fini();
	rte_mempool_free(pw_mbuf_pool);
	pw_mbuf_pool = NULL;
}

PW_MODULE(datapath, datapath_init, datapath_fini);

/* NOTIFY_PCI_USER: a pci port holds its device. */
static void pci_user(const void *arg, void *ctx)
{
	const struct notify_pci_user *q = arg;
	const struct port *p = port_by_pci(q->pci);

	(void)ctx;
	if (p != NULL)
		*q->user = p->conf.name;
}

static int model_init(void)
{
	int rc;

	port_set_socket_group(pw_cfg.socket_gid);
	rc = notify_subscribe(NOTIFY_PCI_USER, pci_user, NULL);
	if (rc != 0) {
		fprintf(stderr, "podwired: out of memory starting the model\n");
		return rc;
	}
	pthread_mutex_lock(&ctl_lock);
	state_set_dir(pw_cfg.state_dir);
	rc = state_restore();
	pthread_mutex_unlock(&ctl_lock);
	/* -EIO: what could not be restored is logged and kept for the next
	 * start; the rest runs. Only an unreadable file stops podwired, so
	 * that nothing overwrites it. */
	if (rc == -EBADMSG) {
		fprintf(stderr, "podwired: cannot restore %s/state.json; see the log above\n",
			pw_cfg.state_dir);
		notify_unsubscribe(NOTIFY_PCI_USER, pci_user, NULL);
		return rc;
	}
	return 0;
}

static void model_fini(void)
{
	/* Ports go while the workers still run: the empty view is published
	 * and its grace period waits on their quiescent reports. The state
	 * file keeps the ports for the next start. */
	pthread_mutex_lock(&ctl_lock);
	port_destroy_all();
	pthread_mutex_unlock(&ctl_lock);
	notify_unsubscribe(NOTIFY_PCI_USER, pci_user, NULL);
}

/* The port kinds' settings ("ports") are made before ports are restored. */
PW_MODULE(model, model_init, model_fini, "datapath", "ports");
