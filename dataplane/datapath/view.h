/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datapath view: everything a worker reads. The control plane (model/)
 * builds a new immutable view after every change and hands it to
 * view_publish(), which swaps it in with one pointer store, waits a grace
 * period (rte_rcu_qsbr) and frees the old one. Workers never stop and never
 * lock to see a change.
 *
 * A port is seen by workers as a struct dp_port: its kind's burst
 * functions, its private state and a few fields read every burst. The
 * model's struct port starts with one.
 */
#ifndef PODWIRE_DATAPATH_VIEW_H
#define PODWIRE_DATAPATH_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_spinlock.h>

#include "core/limits.h"

struct dp_port;
struct dp_frame;
struct dp_capture;
struct policer;
struct port_counters;
struct mirror_port;
struct acl_port;

/* A port kind's burst functions. Called only by workers, only on ports of
 * the published view, and only while the port's link is up. A port has
 * n_rxq receive queues, each polled by one worker (q names it); on
 * transmit, w is the sending worker, and the kind picks its queue for
 * it (a queue of the worker's own where the port has enough, so the
 * fast path takes no lock; frames one worker sends leave in order). */
struct dp_port_ops {
	/* Receives up to n frames from queue q. Only q's polling worker
	 * calls it. ctr is that worker's counters (indexed by port) for
	 * frames the kind drops itself, under their reason. */
	uint16_t (*rx_burst)(struct dp_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
			     struct port_counters *ctr);
	/* Sends up to n; takes ownership of those sent; returns how many. Any
	 * worker may call it: under p->tx_lock when p->tx_shared. */
	uint16_t (*tx_burst)(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n);
	/* Optional, before tx_burst and outside any lock: may replace frames
	 * (a VLAN tag) or drop them (freed and counted in c); returns how many
	 * remain, packed at the start of pkts. */
	uint16_t (*tx_prepare)(struct dp_port *p, struct rte_mbuf **pkts, uint16_t n,
			       struct port_counters *c);
	/* Frames without mbufs (datapath/frame.h), optional. A kind with
	 * rx_frames is polled with it instead of rx_burst: it fills up to n
	 * frames of queue q whose memory stays valid, and unchanged by
	 * podwired, until rx_release(q), which the worker calls once it has
	 * sent them all. */
	uint16_t (*rx_frames)(struct dp_port *p, uint16_t q, struct dp_frame *f, uint16_t n,
			      struct port_counters *ctr);
	void (*rx_release)(struct dp_port *p, uint16_t q);
	/* Copies up to n frames (strip[i]: without their VLAN tag) into the
	 * port's ring; returns how many. Called like tx_burst. */
	uint16_t (*tx_frames)(struct dp_port *p, uint16_t w, struct dp_frame *const *f,
			      const uint8_t *strip, uint16_t n);
};

#define DP_ALLOWED_MACS 8

/* What is watching a port (datapath/observe.h): bits of dp_port.observe,
 * tested once per burst so that a port nobody watches pays one branch. */
enum dp_observe {
	DP_OBS_CAP_RX = 1, /* capture frames received, and dropped on the way in */
	DP_OBS_CAP_TX = 2, /* capture frames sent, and dropped on the way out */
	DP_OBS_TRACE = 4,  /* trace the path of frames received */
};

struct dp_port {
	const struct dp_port_ops *ops;
	void *priv; /* the kind's state */
	volatile bool link_up;
	bool tx_shared; /* several workers may send: take tx_lock per burst */
	/* What the port takes of the frames' offload requests (enum
	 * offload_cap of offload/offload.h): frames asking for more are made
	 * into frames it takes before they are sent (datapath/tx.c). */
	uint8_t tx_ol;
	volatile uint8_t observe; /* enum dp_observe bits; 0 when nobody watches */
	/* The egress stages (datapath/burst.h) acting on the port, a bit
	 * each; 0 when none does. Their modules set and clear their bits. */
	volatile uint8_t egress;
	uint16_t idx;
	uint16_t net_idx;
	/* Receive queues the port has (1..PW_MAX_QUEUES, set at create) and
	 * those its peer enabled (bit q), which the kind keeps: the control
	 * thread polls only enabled queues and publishes a new view when
	 * the bits change (model/port.h: port_queues_check). */
	uint8_t n_rxq;
	volatile uint16_t rxq_on;
	uint32_t max_frame; /* MTU + Ethernet header */
	rte_spinlock_t tx_lock;
	/* Port security: on a bridge, frames from another source MAC than
	 * mac (or allowed[]) are dropped. mac is the 6 bytes as a word, as
	 * the bridge reads them (l2_bridge.c: mac_word). */
	bool port_security;
	uint8_t n_allowed;
	uint16_t tx_retries; /* a full ring is tried again this many times */
	uint32_t mac_limit;  /* MACs it may have learned; 0: no limit */
	uint64_t mac;
	/* Flood limit: TSC cycles of credit per flooded frame (0: none) and
	 * the most credit saved up (the burst allowed). */
	uint64_t flood_cycles;
	uint64_t flood_burst;
	uint64_t allowed[DP_ALLOWED_MACS];
	/* The capture of this port (observe & DP_OBS_CAP_*), set by the
	 * control thread before the bits and freed a grace period after it
	 * clears them; capture_if is the port's interface in it. */
	struct dp_capture *volatile capture;
	uint16_t capture_if;
	/* Rate limits (policer/): [0] what the port's pod sends, [1] what
	 * is sent to it; NULL: none. Replaced by the control thread, the old
	 * one freed after view_wait. */
	struct policer *volatile pol[2];
	/* Port mirroring (mirror/tap.h): the mirrors copying this port's
	 * frames, or that it is a mirror's destination; NULL when neither.
	 * Set by the control thread, freed a grace period after it changes.
	 * mirror_dst: a mirror's destination, kept out of its network's
	 * forwarding by the view (model/publish.c). */
	struct mirror_port *volatile mirror;
	bool mirror_dst;
	/* Its access lists (acl/acl.h), NULL when none applies: replaced
	 * whole by the control thread, freed a grace period after. */
	struct acl_port *volatile acl;
} __rte_cache_aligned;

enum dp_net_mode { DP_NET_BRIDGE, DP_NET_XCONNECT };

/* Members of one network, as workers see them. */
struct dp_net {
	uint16_t mode; /* enum dp_net_mode */
	uint16_t vlan;
	uint16_t n_ports;
	uint32_t mac_limit; /* MACs the network may have learned; 0: no limit */
	uint16_t ports[];   /* port indexes */
};

/* One receive queue a worker polls. */
struct dp_poll {
	uint16_t port; /* port index */
	uint16_t q;    /* its queue */
};

struct view {
	struct dp_port *ports[PW_MAX_PORTS]; /* by index; NULL when unused */
	struct dp_net *nets[PW_MAX_PORTS];   /* by port index: its network */
	uint16_t xc_peer[PW_MAX_PORTS];	     /* cross-connect peer or UINT16_MAX */
	uint32_t n_poll[PW_MAX_WORKERS];
	uint32_t poll_cap[PW_MAX_WORKERS];
	struct dp_poll *poll[PW_MAX_WORKERS]; /* the queues each worker polls */
};

/* A MAC address as the bridge compares it: its 6 bytes as one word. */
static inline uint64_t dp_mac_word(const uint8_t mac[6])
{
	uint64_t v = 0;

#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	memcpy(&v, mac, 6);
#else
	memcpy((uint8_t *)&v + 2, mac, 6);
#endif
	return v;
}

/* The same read from a frame: 8 bytes loaded in one go (p + 8 must lie
 * in the frame; a source address is followed by the EtherType). Copying
 * 6 bytes into a uint64_t on the stack and reading it back made two
 * stores and a wider load, which the CPU cannot forward, and that stall
 * was 3/4 of the bridge's cycles. */
static inline uint64_t dp_mac_load(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return v & 0xffffffffffffull;
#else
	return v >> 16;
#endif
}

extern struct view *volatile view_current;
extern struct rte_rcu_qsbr *view_qsbr;

/* Sets up the grace-period machinery for n_workers and publishes an
 * empty view. Control thread, before the workers start. 0 or -ENOMEM. */
int view_init(unsigned int n_workers);
void view_fini(void);

/* A new empty view (no port, no network, nothing polled: poll lists grow
 * with view_add_poll), for the model to fill; NULL when memory is short.
 * view_free takes any view but the published one. */
struct view *view_alloc(void);
/* Adds a network of n ports (polled by nobody yet). -ENOMEM leaves v as
 * it was. */
int view_add_net(struct view *v, enum dp_net_mode mode, uint16_t vlan, uint32_t mac_limit,
		 struct dp_port *const *ports, uint16_t n);
/* Worker w polls queue q of the port at index port (a port of v). 0 or
 * -ENOMEM (v then stays usable: view_free). */
int view_add_poll(struct view *v, unsigned int w, uint16_t port, uint16_t q);
void view_free(struct view *v);

/* Publishes v and returns once no worker can still see the old view,
 * which is then freed. Cannot fail. Control thread. */
void view_publish(struct view *v);
/* Publishes the view with no port at all (made at init, so it cannot
 * fail): at shutdown, before every port goes. */
void view_publish_empty(void);
/* Waits until every worker has passed a quiescent point. Any thread but
 * a worker. */
void view_wait(void);

#endif
