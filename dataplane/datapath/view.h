/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datapath view: what workers read. The control thread builds a new
 * immutable view after every change, publishes it with one pointer store,
 * waits a grace period (rte_rcu_qsbr) and frees the old one. Workers never
 * stop and never lock to see a change.
 */
#ifndef PODWIRE_DP_H
#define PODWIRE_DP_H

#include <stdint.h>

#include <rte_rcu_qsbr.h>

#include "datapath/mac_table.h"
#include "model/port.h"

#define PW_MAX_WORKERS 64

/* Members of one network, as workers see them. */
struct dp_net {
	uint16_t mode; /* enum net_mode */
	uint16_t vlan;
	uint16_t n_ports;
	uint16_t ports[]; /* port indexes */
};

struct dp_view {
	struct port *ports[PW_MAX_PORTS];  /* by index; NULL when unused */
	struct dp_net *nets[PW_MAX_PORTS]; /* by port index: its network */
	uint16_t xc_peer[PW_MAX_PORTS];	   /* cross-connect peer or UINT16_MAX */
	uint16_t n_poll[PW_MAX_WORKERS];
	uint16_t *poll[PW_MAX_WORKERS]; /* port indexes each worker polls */
};

extern struct dp_view *volatile dp_current;
extern struct rte_rcu_qsbr *dp_qsbr;
extern struct mac_table *dp_macs;
/* Coarse clock in seconds, advanced by the control thread. */
extern volatile uint32_t dp_clock;

int dp_init(unsigned int n_workers, uint32_t mac_capacity);
void dp_fini(void);

/* Rebuilds and publishes the view from the registries, then waits until
 * no worker can still see the old one. Control thread (or vhost thread for
 * dp_wait only). Returns 0 or -ENOMEM (the old view stays). */
int dp_publish(void);
/* Waits until every worker has passed a quiescent point. */
void dp_wait(void);

#endif
