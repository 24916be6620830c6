/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening a kernel interface as a DPDK vdev (AF_XDP, AF_PACKET). */
#ifndef PODWIRE_PORTS_UPLINK_VDEV_H
#define PODWIRE_PORTS_UPLINK_VDEV_H

#include <stddef.h>
#include <stdint.h>

#include "model/port.h"

/* Checks that p's interface exists in podwired's network namespace. */
int uplink_iface_check(const struct port *p, char *msg, size_t len);
/* uplink_close_fn for vdev kinds. */
void uplink_vdev_close(const char *vdev, const char *device);
/* Opens p's interface with net_af_packet (used by af_packet, and by af_xdp
 * where XDP is unavailable), with p->dp.n_rxq queue pairs. */
int uplink_af_packet_open(const struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len,
			  char *msg, size_t len);

#endif
