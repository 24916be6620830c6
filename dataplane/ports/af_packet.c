/* SPDX-License-Identifier: BSD-3-Clause */
/* Uplink kind af_packet: a kernel interface through net_af_packet. Slower
 * than AF_XDP (a copy each way) but works on any interface and kernel. */
#include <stdio.h>

#include "ports/uplink.h"
#include "ports/uplink_vdev.h"

static int af_packet_open(struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len,
			  char *driver, size_t driver_len, char *msg, size_t len)
{
	int rc = uplink_iface_check(p, msg, len);

	if (rc == 0)
		rc = uplink_af_packet_open(p, port_id, vdev, vdev_len, msg, len);
	if (rc == 0)
		snprintf(driver, driver_len, "af_packet");
	return rc;
}

UPLINK_KIND(af_packet, API_PORT_AF_PACKET, PORT_FIELD_IFACE,
	    "uplink on a kernel interface through AF_PACKET", af_packet_open, uplink_vdev_close,
	    NULL, NULL)
