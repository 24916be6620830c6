/* SPDX-License-Identifier: BSD-3-Clause */
/* The null kind: always up, receives nothing, counts and drops what it is
 * sent. For tests of the control plane and of flooding without peers. */
#include <rte_mbuf.h>

#include "model/port.h"

static int null_create(struct port *p, char *msg, size_t len)
{
	RTE_SET_USED(msg);
	RTE_SET_USED(len);
	p->link_up = true;
	return 0;
}

static void null_destroy(struct port *p)
{
	RTE_SET_USED(p);
}

static uint16_t null_rx(struct port *p, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(p);
	RTE_SET_USED(pkts);
	RTE_SET_USED(n);
	return 0;
}

static uint16_t null_tx(struct port *p, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(p);
	rte_pktmbuf_free_bulk(pkts, n);
	return n;
}

static const struct port_ops null_ops = {
    .kind = API_PORT_NULL,
    .needs_socket = false,
    .create = null_create,
    .destroy = null_destroy,
    .rx_burst = null_rx,
    .tx_burst = null_tx,
};

RTE_INIT(port_null_register)
{
	port_kind_register(&null_ops);
}
