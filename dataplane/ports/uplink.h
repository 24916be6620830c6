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
 * The port kinds (port_af_xdp.c, port_af_packet.c, port_pci.c) only know
 * how to open their device; everything else is here.
 */
#ifndef PODWIRE_UPLINK_H
#define PODWIRE_UPLINK_H

#include <stddef.h>
#include <stdint.h>

#include "model/port.h"

/* Opens a kind's device for port p. Returns 0 with *port_id and a short
 * description of the driver in use ("af_xdp", "af_packet (XDP unavailable)"),
 * or -errno with msg naming the port and the fix. vdev is a buffer the
 * kind fills with the vdev name it made ("" for a probed PCI device). */
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
};

/* The device an uplink port of this kind and conf would use: the
 * interface name or PCI address. */
const char *uplink_device_name(const struct port_conf *c);

/* port_ops callbacks shared by every uplink kind; create needs the kind's
 * uplink_kind, found through the port's type. */
void uplink_kind_register(const struct uplink_kind *uk);
int uplink_create(struct port *p, char *msg, size_t len);
void uplink_destroy(struct port *p);
void uplink_poll_link(struct port *p);
uint16_t uplink_rx(struct port *p, struct rte_mbuf **pkts, uint16_t n);
uint16_t uplink_tx(struct port *p, struct rte_mbuf **pkts, uint16_t n);
void uplink_to_json(const struct port *p, cJSON *obj);

/* Declares and registers an uplink port kind in one line. */
#define UPLINK_KIND(name, wire, open_fn, close_fn)                                                 \
	UPLINK_KIND_FALLBACK(name, wire, open_fn, close_fn, NULL)
#define UPLINK_KIND_FALLBACK(name, wire, open_fn, close_fn, fallback_fn)                           \
	static const struct port_ops name##_port_ops = {                                           \
	    .kind = wire,                                                                          \
	    .needs_socket = false,                                                                 \
	    .create = uplink_create,                                                               \
	    .destroy = uplink_destroy,                                                             \
	    .rx_burst = uplink_rx,                                                                 \
	    .tx_burst = uplink_tx,                                                                 \
	    .poll_link = uplink_poll_link,                                                         \
	    .to_json = uplink_to_json,                                                             \
	};                                                                                         \
	static const struct uplink_kind name##_uplink_kind = {wire, open_fn, close_fn,             \
							      fallback_fn};                        \
	RTE_INIT(port_##name##_register)                                                           \
	{                                                                                          \
		port_kind_register(&name##_port_ops);                                              \
		uplink_kind_register(&name##_uplink_kind);                                         \
	}

#endif
