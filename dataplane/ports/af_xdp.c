/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Uplink kind af_xdp: a kernel interface through net_af_xdp (libbpf and
 * libxdp), an AF_XDP socket on each of its queues 0..N-1 (N: the port's
 * "queues", as far as the interface has combined channels; the NIC's RSS
 * spreads frames over them). Where XDP is unavailable (no driver or generic
 * XDP support, MTU too large, a program already attached) the port falls
 * back to AF_PACKET and says so in its "uplink.driver".
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>

#include "core/config.h"

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

/* The queues net_af_xdp lets a socket set use on iface: its combined
 * channels, by net_af_xdp's own rule (1 where the driver reports none, as a
 * veth does: it has rx and tx queues but no combined channels, so AF_XDP
 * takes only its queue 0). */
static unsigned int af_xdp_channels(const char *iface)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	unsigned int n = 1;

	if (fd < 0)
		return 1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ifr.ifr_data = (void *)&ch;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0 && ch.max_combined != 0 && ch.combined_count != 0)
		n = ch.combined_count;
	close(fd);
	return n;
}

/* Mbufs net_af_xdp puts in each queue's fill ring for good (its default
 * ring size, whatever the ring size asked). */
#define AF_XDP_FILL_MBUFS 2048

/* The queues an AF_XDP device on p's interface gets: p's "queues", no more
 * than the interface's combined channels, and no more than half the mbufs
 * can fill. Says why when fewer. */
static unsigned int af_xdp_queues(const struct port *p)
{
	unsigned int want = RTE_MAX(p->dp.n_rxq, (uint8_t)1), n = want;
	unsigned int ch = af_xdp_channels(p->conf.iface);
	unsigned int by_mbufs = RTE_MAX(pw_cfg.mbufs / 2 / AF_XDP_FILL_MBUFS, 1u);

	if (n > ch) {
		n = ch;
		PORT_LOG(p, WARNING,
			 "%u queues asked, but \"%s\" has %u combined channel(s) for AF_XDP; "
			 "using %u (raise them with \"ethtool -L %s combined %u\"; a veth has "
			 "none, so AF_XDP uses its queue 0 only)",
			 want, p->conf.iface, ch, n, p->conf.iface, want);
	}
	if (n > by_mbufs) {
		n = by_mbufs;
		PORT_LOG(p, WARNING,
			 "%u AF_XDP queues would hold %u of the %u mbufs in their fill rings; "
			 "using %u (give podwired more --mbufs)",
			 want, want * AF_XDP_FILL_MBUFS, pw_cfg.mbufs, n);
	}
	return n;
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
	snprintf(args, sizeof(args), "iface=%s,start_queue=0,queue_count=%u,busy_budget=0",
		 p->conf.iface, af_xdp_queues(p));
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
