/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Uplink kind af_xdp: a kernel interface through net_af_xdp (libbpf and
 * libxdp), queue 0. Where XDP is unavailable (no driver or generic XDP
 * support, MTU too large, a program already attached) the port falls back
 * to AF_PACKET and says so in its "uplink.driver".
 */
#include <stdio.h>

#include "core/log.h"
#include "ports/ethdev.h"
#include "ports/uplink.h"
#include "ports/uplink_vdev.h"

PW_LOG_TYPE("uplink");

/* AF_PACKET in place of AF_XDP: when net_af_xdp refuses the interface
 * (af_xdp_open), or, since XDP is attached and the socket made only when
 * the queues are set up, when the device it made cannot start (uplink.c). */
static int af_xdp_fallback(struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len,
			   char *driver, size_t driver_len, char *msg, size_t len)
{
	int rc = uplink_af_packet_open(p, port_id, vdev, vdev_len, msg, len);

	if (rc == 0)
		snprintf(driver, driver_len, "af_packet (AF_XDP unavailable)");
	return rc;
}

static int af_xdp_open(struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len, char *driver,
		       size_t driver_len, char *msg, size_t len)
{
	char args[128];
	int rc = uplink_iface_check(p, msg, len);

	if (rc != 0)
		return rc;
	/* busy_budget=0: no preferred busy polling, which costs a recvfrom()
	 * on every poll of the port (the worker polls pods too) and helps only
	 * where the NIC's interrupts are deferred by sysctl. */
	snprintf(args, sizeof(args), "iface=%s,start_queue=0,queue_count=1,busy_budget=0",
		 p->conf.iface);
	if (ethdev_vdev_create("net_af_xdp_pw", args, port_id, vdev, vdev_len) == 0) {
		snprintf(driver, driver_len, "af_xdp");
		return 0;
	}
	PORT_LOG(p, WARNING,
		 "AF_XDP is unavailable on \"%s\" (see the net_af_xdp lines above); falling back "
		 "to AF_PACKET",
		 p->conf.iface);
	return af_xdp_fallback(p, port_id, vdev, vdev_len, driver, driver_len, msg, len);
}

UPLINK_KIND(af_xdp, API_PORT_AF_XDP, PORT_FIELD_IFACE,
	    "uplink on a kernel interface through AF_XDP (AF_PACKET where XDP is unavailable)",
	    af_xdp_open, uplink_vdev_close, af_xdp_fallback)
