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
#include "datapath/stats.h"
#include "datapath/view.h"

struct dp_frame;
struct worker;

/* The MAC table of every bridge network, and the coarse clock (seconds)
 * its entries are stamped with, advanced by the control thread. */
extern struct mac_table *l2_macs;
extern volatile uint32_t l2_clock;

int l2_bridge_init(uint32_t mac_capacity);
void l2_bridge_fini(void);

/* Where the bridge sends a frame: a port index (below PW_MAX_PORTS),
 * every other port of the network, or nowhere: dropped and counted under
 * the reason the value carries (a capture tags the frame with it). */
#define L2_FLOOD      (UINT16_MAX - DROP_MAX - 1)
#define L2_DROP_AS(r) ((uint16_t)(L2_FLOOD + 1 + (r)))

static inline bool l2_is_drop(uint16_t dst)
{
	return dst > L2_FLOOD;
}

static inline enum drop_reason l2_drop_reason(uint16_t dst)
{
	return (enum drop_reason)(dst - L2_FLOOD - 1);
}

/*
 * The bridge's decision for n frames, given for each its first hlen
 * bytes (hdr, a copy the sender cannot change, for frames in shared
 * memory) and its length: learns the sources, looks the destinations up
 * in bulk, counts rx and every ingress drop on in, in w's counters.
 * Port security, learning limits and the flood limit apply here. dst[i] is a port, L2_FLOOD or
 * L2_DROP_AS(reason); strip[i] says the network's VLAN tag comes off. Returns how many are not
 * dropped.
 */
uint16_t l2_bridge_decide(struct worker *w, const struct view *v, const struct dp_port *in,
			  const struct dp_net *net, const uint8_t *const *hdr, const uint32_t *hlen,
			  const uint32_t *len, uint16_t n, uint16_t *dst, uint8_t *strip);

/* Why each frame of a decided burst was dropped at ingress: the reason
 * its dst carries, no_route for a flood on a network of one port, or
 * DROP_MAX. For captures. */
void l2_drop_reasons(const struct dp_net *net, const uint16_t *dst, uint16_t n, uint8_t *why);

void l2_bridge_input(struct worker *w, const struct view *v, struct dp_port *in,
		     const struct dp_net *net, struct rte_mbuf **pkts, uint16_t n);
/* Frames that came without mbufs (datapath/frame.h), bridge or
 * cross-connect by net's mode; all are sent before it returns. */
void frames_input(struct worker *w, const struct view *v, struct dp_port *in,
		  const struct dp_net *net, struct dp_frame *f, uint16_t n);
void xconnect_input(struct worker *w, const struct view *v, struct dp_port *in,
		    struct rte_mbuf **pkts, uint16_t n);

#endif
