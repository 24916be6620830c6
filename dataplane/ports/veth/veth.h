/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kind veth, shared between its files: port.c (the pair, the kind),
 * packet.c (podwire's own AF_PACKET I/O, the default) and xdp.c (AF_XDP
 * through net_af_xdp, selected with "io": "xdp").
 */
#ifndef PODWIRE_PORTS_VETH_VETH_H
#define PODWIRE_PORTS_VETH_VETH_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "model/port.h"
#include "ports/ethdev.h"

enum veth_io {
	VETH_IO_PACKET, /* AF_PACKET + PACKET_VNET_HDR: offloads on */
	VETH_IO_XDP,	/* AF_XDP (net_af_xdp): offloads off on both ends */
};

/* The most bytes one frame from the kernel can have: a GSO super-frame of
 * 64 KiB (a veth's gso_max_size) and its Ethernet and VLAN headers. */
#define VETH_PKT_MAX (65536 + 512)
/* Mbufs a frame of VETH_PKT_MAX takes (data rooms of 2048 bytes). */
#define VETH_PKT_SEGS 34

/* The AF_PACKET I/O of one port. */
struct veth_pkt {
	int fd;
	uint8_t *ring; /* mmap'ed TPACKET_V2 rx ring */
	size_t ring_len;
	uint32_t frames;     /* slots in the ring */
	uint32_t frame_size; /* bytes per slot */
	/* The polling worker's (one rx queue, one poller at a time): */
	uint32_t next;	    /* the slot to look at next */
	uint64_t truncated; /* frames cut to a slot: no room to queue them whole */
	/* The sending workers' (under the datapath's tx_lock when several
	 * send): frames the kernel refused, and the last reason. */
	uint64_t tx_errors;
	int tx_errno;
	/* The control thread's: PACKET_STATISTICS tp_drops so far (the
	 * kernel resets them on every read). */
	uint64_t drops;
};

/* The AF_XDP I/O of one port (an ethdev). */
struct veth_xdp {
	uint16_t port_id;
	bool started;
	char vdev[32];
	struct ethdev_xsks xsks;
};

struct veth_priv {
	enum veth_io io;      /* what the port uses (xdp asked but unavailable: packet) */
	bool gone;	      /* the host end went (with the container's namespace) */
	unsigned int ifindex; /* of the host end, to never delete another's */
	char driver[48];
	char peer[IF_NAMESIZE];
	struct veth_pkt pkt;
	struct veth_xdp xdp;
	uint64_t tx_errors_told; /* pkt.tx_errors when poll_link last logged */
};

/* packet.c. Opens the AF_PACKET I/O on the host end (ifindex): 0 or
 * -errno with msg naming the port and the fix. Control thread. */
int veth_packet_open(struct port *p, struct veth_pkt *k, unsigned int ifindex, char *msg,
		     size_t len);
/* Closes it (accepts one never opened: fd -1). Control thread, with the
 * port in no view. */
void veth_packet_close(struct veth_pkt *k);
/* Frames the kernel dropped on their way to the port since it was
 * opened. Control thread. */
uint64_t veth_packet_kernel_drops(struct veth_pkt *k);
/* The datapath's rx and tx (view.h contracts); pc: the port's counters
 * of the polling worker. */
uint16_t veth_packet_rx(struct veth_pkt *k, struct rte_mbuf **pkts, uint16_t n,
			struct port_counters *pc);
uint16_t veth_packet_tx(struct veth_pkt *k, struct rte_mbuf **pkts, uint16_t n);

/* xdp.c. Opens net_af_xdp on the host end and starts it: 0, or -errno
 * (the reason in the log) and nothing left open. Control thread. */
int veth_xdp_open(struct port *p, struct veth_xdp *x);
/* Stops and closes it, with the fds DPDK 22.11 leaves open. */
void veth_xdp_close(struct veth_xdp *x);
uint16_t veth_xdp_rx(struct veth_xdp *x, struct rte_mbuf **pkts, uint16_t n);
uint16_t veth_xdp_tx(struct veth_xdp *x, struct rte_mbuf **pkts, uint16_t n);

#endif
