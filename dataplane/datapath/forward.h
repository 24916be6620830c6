/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forwarding, called by a worker for each rx burst of one port: the L2
 * bridge (l2_bridge.c) and the cross-connect (xconnect.c). Both take
 * ownership of the n mbufs.
 */
#ifndef PODWIRE_DATAPATH_FORWARD_H
#define PODWIRE_DATAPATH_FORWARD_H

#include <stdint.h>

#include "datapath/mac_table.h"
#include "datapath/view.h"

struct dp_frame;
struct worker;

/* The MAC table of every bridge network, and the coarse clock (seconds)
 * its entries are stamped with, advanced by the control thread. */
extern struct mac_table *l2_macs;
extern volatile uint32_t l2_clock;

int l2_bridge_init(uint32_t mac_capacity);
void l2_bridge_fini(void);

/* Where the bridge sends a frame: a port index, or one of these. */
#define L2_FLOOD UINT16_MAX	  /* every other port of the network */
#define L2_DROP	 (UINT16_MAX - 1) /* counted under its reason already */

/*
 * The bridge's decision for n frames, given for each its first hlen
 * bytes (hdr, a copy the sender cannot change, for frames in shared
 * memory) and its length: learns the sources, looks the destinations up
 * in bulk, counts rx and every ingress drop on in, in w's counters.
 * Port security, learning limits and the flood limit apply here. dst[i] is a port, L2_FLOOD or
 * L2_DROP; strip[i] says the network's VLAN tag comes off. Returns how many are not dropped.
 */
uint16_t l2_bridge_decide(struct worker *w, const struct view *v, const struct dp_port *in,
			  const struct dp_net *net, const uint8_t *const *hdr, const uint32_t *hlen,
			  const uint32_t *len, uint16_t n, uint16_t *dst, uint8_t *strip);

void l2_bridge_input(struct worker *w, const struct view *v, struct dp_port *in,
		     const struct dp_net *net, struct rte_mbuf **pkts, uint16_t n);
/* Frames that came without mbufs (datapath/frame.h), bridge or
 * cross-connect by net's mode; all are sent before it returns. */
void frames_input(struct worker *w, const struct view *v, struct dp_port *in,
		  const struct dp_net *net, struct dp_frame *f, uint16_t n);
void xconnect_input(struct worker *w, const struct view *v, struct dp_port *in,
		    struct rte_mbuf **pkts, uint16_t n);

#endif
