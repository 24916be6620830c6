/* SPDX-License-Identifier: BSD-3-Clause */
/* The null kind: always up, receives nothing, counts and drops what it is
 * sent. For tests of the control plane and of forwarding without peers. */
#include <rte_mbuf.h>

#include "model/port.h"

static int null_create(struct port *p, char *msg, size_t len)
{
	RTE_SET_USED(msg);
	RTE_SET_USED(len);
	p->dp.link_up = true;
	return 0;
}

static void null_destroy(struct port *p)
{
	RTE_SET_USED(p);
}

static uint16_t null_rx(struct dp_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
			struct port_counters *ctr)
{
	RTE_SET_USED(p);
	RTE_SET_USED(q);
	RTE_SET_USED(pkts);
	RTE_SET_USED(n);
	RTE_SET_USED(ctr);
	return 0;
}

static uint16_t null_tx(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(p);
	RTE_SET_USED(w);
	rte_pktmbuf_free_bulk(pkts, n);
	return n;
}

static const struct port_ops null_ops = {
    .kind = API_PORT_NULL,
    .summary = "no peer: always up, drops what it is sent (for tests)",
    .create = null_create,
    .destroy = null_destroy,
    .dp = {.rx_burst = null_rx, .tx_burst = null_tx},
};

PORT_KIND(null_ops)
