/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The veth kind's AF_XDP I/O ("io": "xdp"): the host end through
 * net_af_xdp, queue 0. Frames must cross the pair whole and with their
 * checksums (port.c turns the offloads off on both ends), since XDP
 * carries no offload metadata; the port takes no requests (tx_ol 0).
 * Each port is a DPDK ethdev, and DPDK has RTE_MAX_ETHPORTS of them.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_version.h>

#include "core/log.h"
#include "ports/veth/veth.h"

PW_LOG_TYPE("veth");

/* net_af_xdp fills its ring from podwired's mbuf pool (the pool is its
 * UMEM) and keeps about twice the ring in flight per port: 1024 took the
 * default 32768 mbufs at 16 ports. A kernel container needs no deep ring. */
#define VETH_XDP_RING 256

static int start_cb(void *arg)
{
	struct veth_xdp *x = arg;
	int rc = ethdev_start(x->port_id, VETH_XDP_RING, pw_mbuf_pool);

	x->started = rc == 0;
	return rc;
}

static int stop_cb(void *arg)
{
	struct veth_xdp *x = arg;

	if (x->started)
		rte_eth_dev_stop(x->port_id);
	ethdev_vdev_destroy(x->port_id, x->vdev);
	return 0;
}

void veth_xdp_close(struct veth_xdp *x)
{
	struct ethdev_xsks more;

	if (x->vdev[0] == '\0')
		return;
	/* libxdp opens the XDP programs' fds again to detach them, and keeps
	 * them when the interface went first (the container's namespace was
	 * deleted with its end of the pair): those are closed too. */
	ethdev_xsks_track(stop_cb, x, &more);
	ethdev_xsks_close(&more, x->vdev);
	ethdev_xsks_close(&x->xsks, x->vdev);
	x->vdev[0] = '\0';
	x->started = false;
}

int veth_xdp_open(struct port *p, struct veth_xdp *x)
{
	char args[128];

	/* XDP is attached only when the queues start: a failed start is
	 * "unavailable" too. */
	if (rte_eth_dev_count_total() >= RTE_MAX_ETHPORTS) {
		PORT_LOG(p, WARNING,
			 "podwired has %u DPDK ports, the most DPDK %s allows (RTE_MAX_ETHPORTS)",
			 rte_eth_dev_count_total(), rte_version());
		return -ENOSPC;
	}
	snprintf(args, sizeof(args), "iface=%s,start_queue=0,queue_count=1,busy_budget=0",
		 p->conf.iface);
	if (ethdev_vdev_create("net_af_xdp_pwv", args, &x->port_id, x->vdev, sizeof(x->vdev)) != 0)
		return -EIO;
	if (ethdev_xsks_track(start_cb, x, &x->xsks) != 0) {
		veth_xdp_close(x);
		return -EIO;
	}
	if (rte_eth_promiscuous_enable(x->port_id) != 0)
		PORT_LOG(p, WARNING, "cannot enable promiscuous mode on %s", p->conf.iface);
	return 0;
}

uint16_t veth_xdp_rx(struct veth_xdp *x, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_rx_burst(x->port_id, 0, pkts, n);
}

uint16_t veth_xdp_tx(struct veth_xdp *x, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_tx_burst(x->port_id, 0, pkts, n);
}
