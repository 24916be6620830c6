/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif ports on the net_memif PMD, ethernet mode, filesystem sockets.
 * The link is polled from the control thread; a client-role port whose
 * server is absent (not there yet, or gone) is restarted once a second,
 * which makes it connect again (the PMD connects only at start).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "datapath/view.h"
#include "daemon/log.h"
#include "model/port.h"

#define MEMIF_RING 1024

struct memif_priv {
	uint16_t port_id;
	bool started;
	uint64_t down_since; /* TSC, 0 while up */
	char vdev[32];
};

static int memif_setup(struct port *p, struct memif_priv *m, char *msg, size_t len)
{
	struct rte_eth_conf conf;
	int sock = (int)rte_eth_dev_socket_id(m->port_id);
	unsigned int s = sock < 0 ? 0 : (unsigned int)sock;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(m->port_id, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(m->port_id, 0, MEMIF_RING, s, NULL, pw_mbuf_pool) != 0 ||
	    rte_eth_tx_queue_setup(m->port_id, 0, MEMIF_RING, s, NULL) != 0) {
		snprintf(msg, len, "port \"%s\": cannot configure memif on %s", p->conf.name,
			 p->conf.socket);
		return -EIO;
	}
	/* A client whose server is not there yet fails to start: that is not
	 * an error, poll_link starts it again once a second. */
	m->started = rte_eth_dev_start(m->port_id) == 0;
	if (!m->started && p->conf.role == PORT_ROLE_SERVER) {
		snprintf(msg, len, "port \"%s\": cannot start memif on %s", p->conf.name,
			 p->conf.socket);
		return -EIO;
	}
	return 0;
}

static int memif_create(struct port *p, char *msg, size_t len)
{
	struct memif_priv *m;
	char args[512];
	int rc, off;

	if (p->conf.role == PORT_ROLE_SERVER) {
		rc = port_clear_stale_socket(p, msg, len);
		if (rc != 0)
			return rc;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		snprintf(msg, len, "port \"%s\": out of memory", p->conf.name);
		return -ENOMEM;
	}
	p->priv = m;
	snprintf(m->vdev, sizeof(m->vdev), "net_memif_pw%u", p->idx);
	off = snprintf(args, sizeof(args), "id=0,role=%s,socket=%s,socket-abstract=no",
		       p->conf.role == PORT_ROLE_SERVER ? "server" : "client", p->conf.socket);
	if (p->conf.secret[0] != '\0')
		snprintf(args + off, sizeof(args) - (size_t)off, ",secret=%s", p->conf.secret);
	if (rte_vdev_init(m->vdev, args) != 0 ||
	    rte_eth_dev_get_port_by_name(m->vdev, &m->port_id) != 0) {
		snprintf(msg, len,
			 "port \"%s\": the memif driver refused %s; check the "
			 "socket directory",
			 p->conf.name, p->conf.socket);
		free(m);
		p->priv = NULL;
		return -EIO;
	}
	rc = memif_setup(p, m, msg, len);
	if (rc != 0) {
		p->ops->destroy(p);
		return rc;
	}
	return 0;
}

static void memif_destroy(struct port *p)
{
	struct memif_priv *m = p->priv;

	if (m == NULL)
		return;
	if (m->started)
		rte_eth_dev_stop(m->port_id);
	rte_eth_dev_close(m->port_id);
	rte_vdev_uninit(m->vdev);
	if (p->conf.role == PORT_ROLE_SERVER)
		unlink(p->conf.socket);
	free(m);
	p->priv = NULL;
}

static void memif_poll_link(struct port *p)
{
	struct memif_priv *m = p->priv;
	struct rte_eth_link link;
	bool up;

	if (rte_eth_link_get_nowait(m->port_id, &link) != 0)
		return;
	up = link.link_status == RTE_ETH_LINK_UP;
	if (up != p->link_up)
		PW_LOG(INFO, memif, "port \"%s\": link %s", p->conf.name, up ? "up" : "down");
	__atomic_store_n(&p->link_up, up, __ATOMIC_RELEASE);
	if (up) {
		m->down_since = 0;
		return;
	}
	if (m->down_since == 0) {
		m->down_since = rte_get_tsc_cycles();
		return;
	}
	if (p->conf.role == PORT_ROLE_CLIENT &&
	    rte_get_tsc_cycles() - m->down_since > rte_get_tsc_hz()) {
		/* Workers skip a port whose link is down; after a grace period
		 * none is inside the PMD and it can be restarted. */
		dp_wait();
		if (m->started)
			rte_eth_dev_stop(m->port_id);
		m->started = rte_eth_dev_start(m->port_id) == 0;
		m->down_since = rte_get_tsc_cycles();
	}
}

static uint16_t memif_rx(struct port *p, struct rte_mbuf **pkts, uint16_t n)
{
	const struct memif_priv *m = p->priv;

	return rte_eth_rx_burst(m->port_id, 0, pkts, n);
}

static uint16_t memif_tx(struct port *p, struct rte_mbuf **pkts, uint16_t n)
{
	const struct memif_priv *m = p->priv;

	return rte_eth_tx_burst(m->port_id, 0, pkts, n);
}

static const struct port_ops memif_port_ops = {
    .kind = API_PORT_MEMIF,
    .needs_socket = true,
    .create = memif_create,
    .destroy = memif_destroy,
    .rx_burst = memif_rx,
    .tx_burst = memif_tx,
    .poll_link = memif_poll_link,
};

RTE_INIT(port_memif_register)
{
	port_kind_register(&memif_port_ops);
}
