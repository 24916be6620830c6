/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening a kernel interface as a DPDK vdev (AF_XDP, AF_PACKET). */
#ifndef PODWIRE_UPLINK_VDEV_H
#define PODWIRE_UPLINK_VDEV_H

#include <stddef.h>
#include <stdint.h>

#include "model/port.h"

/* Checks that p's interface exists in podwired's network namespace. */
int uplink_iface_check(const struct port *p, char *msg, size_t len);
/* Makes vdev <prefix><n> with args; 0 with *port_id and vdev filled, or
 * -EIO (the PMD's reason is in podwired's log). */
int uplink_vdev_init(const char *prefix, const char *args, uint16_t *port_id, char *vdev,
		     size_t vdev_len);
/* uplink_close_fn for vdev kinds. */
void uplink_vdev_close(const char *vdev, const char *device);
/* The open sockets of address family domain (AF_PACKET, AF_XDP), at most
 * max, into fds; returns how many. The PMDs do not say which sockets they
 * make, so the uplink workarounds for DPDK 22.11 find them this way. */
#define UPLINK_MAX_SOCKETS 1024
unsigned int uplink_sockets(int domain, int *fds, unsigned int max);
/* Opens p's interface with net_af_packet (used by af_packet, and by af_xdp
 * where XDP is unavailable). */
int uplink_af_packet_open(const struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len,
			  char *msg, size_t len);

#endif
