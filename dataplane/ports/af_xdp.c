/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Uplink kind af_xdp: a kernel interface through net_af_xdp (libbpf and
 * libxdp), an AF_XDP socket on each of its queues 0..N-1 (N: the port's
 * "queues", as far as the interface has them; the NIC's RSS spreads frames
 * over them). One net_af_xdp device takes them all where the interface has
 * as many combined channels; an interface with rx queues but no combined
 * channels (a veth) gets a net_af_xdp device per queue, since net_af_xdp
 * refuses more queues than combined channels (and takes a driver that
 * reports none to have one). Where XDP is unavailable (no driver or
 * generic XDP support, MTU too large, a program already attached) the port
 * falls back to AF_PACKET and says so in its "uplink.driver".
 */
#include <dirent.h>
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

/* The rx queues the kernel gives iface (its /sys/class/net/IF/queues/rx-N),
 * at least 1. */
static unsigned int iface_rx_queues(const char *iface)
{
	char path[64 + IF_NAMESIZE];
	unsigned int n = 0;
	struct dirent *e;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", iface);
	dir = opendir(path);
	while (dir != NULL && (e = readdir(dir)) != NULL)
		if (strncmp(e->d_name, "rx-", 3) == 0)
			n++;
	if (dir != NULL)
		closedir(dir);
	return RTE_MAX(n, 1u);
}

/* Mbufs net_af_xdp puts in each queue's fill ring for good (its default
 * ring size, whatever the ring size asked). */
#define AF_XDP_FILL_MBUFS 2048

/* The queues AF_XDP gets on p's interface: p's "queues", no more than the
 * interface has (combined channels, or rx queues where it has no combined
 * channels), and no more than half the mbufs can fill. With say, logs why
 * when fewer. */
static unsigned int af_xdp_queues(const struct port *p, bool say)
{
	unsigned int want = RTE_MAX(p->dp.n_rxq, (uint8_t)1), n = want;
	unsigned int ch = af_xdp_channels(p->conf.iface);
	unsigned int have = ch > 1 ? ch : iface_rx_queues(p->conf.iface);
	unsigned int by_mbufs = RTE_MAX(pw_cfg.mbufs / 2 / AF_XDP_FILL_MBUFS, 1u);

	if (n > have) {
		n = have;
		if (say)
			PORT_LOG(p, WARNING,
				 "%u queues asked, but \"%s\" has %u; using %u (raise them with "
				 "\"ethtool -L %s combined %u\"; a veth has the queues it was made "
				 "with: numrxqueues, numtxqueues)",
				 want, p->conf.iface, have, n, p->conf.iface, want);
	}
	if (n > by_mbufs) {
		n = by_mbufs;
		if (say)
			PORT_LOG(p, WARNING,
				 "%u AF_XDP queues would hold %u of the %u mbufs in their fill "
				 "rings; using %u (give podwired more --mbufs)",
				 want, want * AF_XDP_FILL_MBUFS, pw_cfg.mbufs, n);
	}
	return n;
}

/* A net_af_xdp device on queues first..first+count-1 of iface. */
static int af_xdp_vdev(const char *iface, unsigned int first, unsigned int count, uint16_t *port_id,
		       char *vdev, size_t vdev_len)
{
	char args[128];

	/* busy_budget=0: no preferred busy polling, which costs a recvfrom()
	 * on every poll of the port (the worker polls pods too) and helps only
	 * where the NIC's interrupts are deferred by sysctl. */
	snprintf(args, sizeof(args), "iface=%s,start_queue=%u,queue_count=%u,busy_budget=0", iface,
		 first, count);
	return ethdev_vdev_create("net_af_xdp_pw", args, port_id, vdev, vdev_len);
}

/* uplink_kind.open_queue: queue q of an interface without combined
 * channels (af_xdp_open took queue 0 only). Its socket joins the XDP
 * program the first device attached (libxdp finds it on the interface). */
static int af_xdp_open_queue(const struct port *p, uint16_t q, uint16_t *port_id, char *vdev,
			     size_t vdev_len)
{
	if (af_xdp_channels(p->conf.iface) > 1 || q >= af_xdp_queues(p, false))
		return -ENOENT;
	return af_xdp_vdev(p->conf.iface, q, 1, port_id, vdev, vdev_len) == 0 ? 0 : -EIO;
}

static int af_xdp_open(struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len, char *driver,
		       size_t driver_len, char *msg, size_t len)
{
	int rc = uplink_iface_check(p, msg, len);
	unsigned int n, ch;

	if (rc != 0)
		return rc;
	n = af_xdp_queues(p, true);
	ch = af_xdp_channels(p->conf.iface);
	/* Without as many combined channels: queue 0 here, the others each a
	 * device of its own (af_xdp_open_queue, called by uplink.c). */
	if (af_xdp_vdev(p->conf.iface, 0, ch >= n ? n : 1, port_id, vdev, vdev_len) == 0) {
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
	    af_xdp_open, uplink_vdev_close, af_xdp_fallback, af_xdp_open_queue,
	    .kernel_drops = uplink_kernel_drops)
