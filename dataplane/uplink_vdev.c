/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>

#include "uplink.h"
#include "uplink_vdev.h"

int uplink_iface_check(const struct port *p, char *msg, size_t len)
{
	if (if_nametoindex(p->conf.iface) != 0)
		return 0;
	snprintf(msg, len,
		 "port \"%s\": interface \"%s\" does not exist in podwired's network "
		 "namespace; check \"ip link\"",
		 p->conf.name, p->conf.iface);
	return -ENOENT;
}

int uplink_vdev_init(const char *prefix, const char *args, uint16_t *port_id, char *vdev,
		     size_t vdev_len)
{
	static unsigned int seq;

	/* A fresh name each time: a vdev name of a closed device may linger. */
	snprintf(vdev, vdev_len, "%s%u", prefix, seq++);
	if (rte_vdev_init(vdev, args) != 0)
		return -EIO;
	if (rte_eth_dev_get_port_by_name(vdev, port_id) != 0) {
		rte_vdev_uninit(vdev);
		return -EIO;
	}
	return 0;
}

void uplink_vdev_close(const char *vdev, const char *device)
{
	(void)device;
	rte_vdev_uninit(vdev);
}

int uplink_af_packet_open(const struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len,
			  char *msg, size_t len)
{
	char args[128];

	/* Frames of up to 2 KiB: one mbuf each. */
	snprintf(args, sizeof(args), "iface=%s,qpairs=1,framesz=2048,framecnt=1024", p->conf.iface);
	if (uplink_vdev_init("net_af_packet_pw", args, port_id, vdev, vdev_len) == 0)
		return 0;
	snprintf(msg, len,
		 "port \"%s\": AF_PACKET refused interface \"%s\"; see podwired's log "
		 "(is it up, and not already used by another DPDK process?)",
		 p->conf.name, p->conf.iface);
	return -EIO;
}
