/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For unit tests of podwired's datapath and model without hugepages: EAL
 * started with --no-huge in this process, the datapath's pieces made as
 * podwired makes them, workers made but not launched (the test forwards
 * on its own thread, one burst at a time), and frame builders.
 */
#ifndef PODWIRE_DP_HARNESS_H
#define PODWIRE_DP_HARNESS_H

#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "datapath/burst.h"
#include "datapath/forward.h"
#include "datapath/observe.h"
#include "datapath/stats.h"
#include "datapath/worker.h"
#include "model/network.h"
#include "model/port.h"
#include "unit.h"

/* Starts EAL without hugepages and the datapath with nw workers (not
 * launched). Exits the test program when it cannot. */
static inline void dp_harness_init(unsigned int nw)
{
	char prefix[64];
	char *argv[] = {"unit",
			"--no-huge",
			"-m",
			"512",
			"--no-pci",
			"--no-shconf",
			"--no-telemetry",
			"--file-prefix",
			prefix,
			"-l",
			"0",
			"--log-level=*:error",
			NULL};
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1;

	snprintf(prefix, sizeof(prefix), "pwunit-%d", (int)getpid());
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "cannot start EAL without hugepages\n");
		exit(2);
	}
	pw_mbuf_pool = rte_pktmbuf_pool_create("unit_mbufs", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					       SOCKET_ID_ANY);
	if (pw_mbuf_pool == NULL || stats_init(nw) != 0 || view_init(nw) != 0 ||
	    l2_bridge_init(4096) != 0) {
		fprintf(stderr, "cannot make the datapath\n");
		exit(2);
	}
	for (unsigned int i = 0; i < nw; i++)
		workers[i] = worker_new(i, 0, pw_mbuf_pool);
	n_workers = nw;
	/* This thread drives workers[0] (dp_harness_input). */
	RTE_PER_LCORE(dp_worker_id) = 0;
	/* The test thread reports quiescence itself (see dp_harness_burst);
	 * unregistered, it is not waited for by view_publish. */
}

/* Ends EAL and removes the runtime directory it made. */
static inline void dp_harness_fini(void)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	rmdir(dir);
}

/* A frame of len bytes (at least 60) from src to dst, EtherType type, the
 * payload filled with fill; vlan != 0 inserts an 802.1Q tag. */
static inline struct rte_mbuf *dp_frame(const char *dst, const char *src, uint16_t vlan,
					uint16_t len, uint8_t fill)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pw_mbuf_pool);
	struct rte_ether_hdr *eth;
	char *data;

	if (m == NULL)
		return NULL;
	data = rte_pktmbuf_append(m, len);
	if (data == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(data, fill, len);
	eth = (struct rte_ether_hdr *)data;
	rte_ether_unformat_addr(dst, &eth->dst_addr);
	rte_ether_unformat_addr(src, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(0x0800);
	if (vlan != 0) {
		m->vlan_tci = vlan;
		if (rte_vlan_insert(&m) != 0) {
			rte_pktmbuf_free(m);
			return NULL;
		}
	}
	return m;
}

/* Hands one burst received on port p to the forwarding code, as the
 * worker loop does, then sends what it buffered. */
static inline void dp_harness_input(struct port *p, struct rte_mbuf **pkts, uint16_t n)
{
	const struct view *v = view_current;
	struct worker *w = workers[0];

	dp_input_mbufs(w, v, &p->dp, pkts, n);
	txbuf_flush_all(w, v);
}

/* One port's counters, summed. */
static inline struct port_counters dp_counters(const struct port *p)
{
	struct port_counters c;

	stats_port_sum(p->dp.idx, &c);
	return c;
}

/* Creates a network or a port, failing the test when it cannot. */
static inline struct network *dp_net(const char *name, enum net_mode mode, uint16_t vlan)
{
	struct net_conf c = {.mode = mode, .vlan = vlan, .mac_limit = API_NET_MAC_LIMIT};
	struct network *n = NULL;
	char msg[512];
	int code;

	snprintf(c.name, sizeof(c.name), "%s", name);
	if (network_create(&c, &n, &code, msg, sizeof(msg)) != 0)
		unit_check(false, __LINE__, __FILE__, "network %s: %s", name, msg);
	return n;
}

static inline struct port *dp_port(const char *name, struct network *n, const char *type,
				   const char *mac)
{
	struct port_conf c;
	struct port *p = NULL;
	char msg[512];
	int code;

	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", name);
	snprintf(c.network, sizeof(c.network), "%s", n->name);
	snprintf(c.type, sizeof(c.type), "%s", type);
	rte_ether_unformat_addr(mac, (struct rte_ether_addr *)c.mac);
	c.mtu = 1500;
	c.mac_limit = API_PORT_MAC_LIMIT;
	if (port_create(&c, n, &p, &code, msg, sizeof(msg)) != 0)
		unit_check(false, __LINE__, __FILE__, "port %s: %s", name, msg);
	return p;
}

#endif
