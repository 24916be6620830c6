/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Uplinks: a kernel NIC (AF_XDP, AF_PACKET) or a PCI device (a VF bound to
 * vfio-pci) that carries the traffic of one or more networks off the node.
 * Like a VPP sub-interface, each uplink port is one network's view of a
 * shared device: frames leave tagged with the network's VLAN (untagged for
 * a network without one), and frames arriving are handed to the port whose
 * network has their VLAN, with the tag removed. The device is opened by
 * the first uplink port on it and closed with the last.
 *
 * A device has N rx queues (a port's "queues", as far as the device has
 * them) spread by the device (RSS, or what the kind has instead), and a tx
 * queue per worker where it has enough. Every port of a device has the
 * device's queues: rx queue q of any of them polls the device's queue q
 * and hands other ports' frames to their queue q, which the same worker
 * polls (uplink.c).
 *
 * The port kinds (af_xdp.c, af_packet.c, pci.c) only know how to open
 * their device; everything else is here. Drops are counted on ports:
 * unknown_vlan on the uplink port whose poll received the frame,
 * stash_full on the port the frame was for, no_mbuf on the port a frame
 * could not be tagged for.
 */
#ifndef PODWIRE_PORTS_UPLINK_H
#define PODWIRE_PORTS_UPLINK_H

#include <stddef.h>
#include <stdint.h>

#include "model/port.h"

/* Opens a kind's device for port p, with p->dp.n_rxq rx queues where it
 * can (fewer where the device has fewer: uplink.c configures what the
 * device then reports). Returns 0 with *port_id and a short description of
 * the driver in use ("af_xdp", "af_packet (XDP unavailable)"), or -errno
 * with msg naming the port and the fix. vdev is a buffer the kind fills
 * with the vdev name it made ("" for a probed PCI device). */
typedef int (*uplink_open_fn)(struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len,
			      char *driver, size_t driver_len, char *msg, size_t len);
/* Undoes a successful open (after the ethdev is stopped and closed). */
typedef void (*uplink_close_fn)(const char *vdev, const char *device);

struct uplink_kind {
	const char *kind; /* API type name */
	uplink_open_fn open;
	uplink_close_fn close;
	/* Optional: opens the device another way when what open made cannot
	 * start (af_xdp: XDP is attached only when the queues are set up). */
	uplink_open_fn fallback;
	/* Optional: where open's device has fewer queues than p asks, opens
	 * one more device carrying only queue q of the interface (af_xdp on
	 * an interface with rx queues but no combined channels, as a veth).
	 * 0 with *port_id and vdev filled, or -errno (the interface has no
	 * such queue): then the device has the queues it got so far. */
	int (*open_queue)(const struct port *p, uint16_t q, uint16_t *port_id, char *vdev,
			  size_t vdev_len);
};

/* The device an uplink port of this kind and conf would use: the
 * interface name or PCI address. */
const char *uplink_device_name(const struct port_conf *c);

/* port_ops callbacks shared by every uplink kind; the kind's struct
 * uplink_kind is its port_ops.data. */
int uplink_create(struct port *p, char *msg, size_t len);
void uplink_destroy(struct port *p);
void uplink_poll_link(struct port *p);
uint16_t uplink_rx(struct dp_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
		   struct port_counters *ctr);
uint16_t uplink_tx_prepare(struct dp_port *p, struct rte_mbuf **pkts, uint16_t n,
			   struct port_counters *c);
uint16_t uplink_tx(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n);
void uplink_to_json(const struct port *p, cJSON *obj);
/* port_ops.kernel_drops of kinds whose device has AF_XDP sockets: what
 * the kernel dropped on the device's way in since p joined it. The
 * frames' VLANs are never seen, so every port of a device shows the
 * device's drops (as its uplink.unknown_vlan): a sum over the ports of
 * one device counts them once per port. */
uint64_t uplink_kernel_drops(struct port *p);

/* Declares and registers an uplink port kind: its name, what it takes
 * (PORT_FIELD_IFACE or PORT_FIELD_PCI; every uplink takes "queues"), a
 * summary and its functions (struct uplink_kind); then, optionally, more
 * port_ops members (.kernel_drops = uplink_kernel_drops). */
#define UPLINK_KIND(name, wire, field, text, open_fn, close_fn, fallback_fn, queue_fn, ...)        \
	static const struct uplink_kind name##_uplink_kind = {wire, open_fn, close_fn,             \
							      fallback_fn, queue_fn};              \
	static const struct port_ops name##_port_ops = {                                           \
	    .kind = wire,                                                                          \
	    .summary = text,                                                                       \
	    .fields = (field) | PORT_FIELD_QUEUES,                                                 \
	    .uplink = true,                                                                        \
	    .tx_locks_itself = true,                                                               \
	    .data = &name##_uplink_kind,                                                           \
	    .create = uplink_create,                                                               \
	    .destroy = uplink_destroy,                                                             \
	    .poll_link = uplink_poll_link,                                                         \
	    .to_json = uplink_to_json,                                                             \
	    .dp = {.rx_burst = uplink_rx, .tx_burst = uplink_tx, .tx_prepare = uplink_tx_prepare}, \
	    __VA_ARGS__};                                                                          \
	PORT_KIND(name##_port_ops)

#endif
