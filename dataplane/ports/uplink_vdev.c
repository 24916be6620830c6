/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <rte_bus_vdev.h>
#include <rte_common.h>
#include <rte_ethdev.h>

#include "core/log.h"
#include "ports/ethdev.h"
#include "ports/uplink.h"
#include "ports/uplink_vdev.h"

PW_LOG_TYPE("uplink");

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

void uplink_vdev_close(const char *vdev, const char *device)
{
	(void)device;
	rte_vdev_uninit(vdev);
}

/* An AF_PACKET socket also gets the frames the host's own stack sends out
 * of the interface; they must not be taken for frames from the wire (AF_XDP
 * never sees them). net_af_packet does not say which socket it made, so
 * find ours by its bound interface. Returns how many were set. */
static int af_packet_ignore_outgoing(unsigned int ifindex)
{
	/* PACKET_IGNORE_OUTGOING would not do: it applies to the socket's own
	 * hook, and net_af_packet puts its socket in a fanout group, whose hook
	 * is the one registered. A socket filter applies either way. */
	static struct sock_filter drop_outgoing[] = {
	    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, 0),
	    BPF_STMT(BPF_RET | BPF_K, UINT32_MAX),
	};
	struct sock_fprog prog = {RTE_DIM(drop_outgoing), drop_outgoing};
	int fds[ETHDEV_MAX_SOCKETS];
	unsigned int n_fds = ethdev_sockets(AF_PACKET, fds, RTE_DIM(fds));
	int n = 0;

	for (unsigned int i = 0; i < n_fds; i++) {
		struct sockaddr_ll sll;
		socklen_t sl = sizeof(sll);

		if (getsockname(fds[i], (struct sockaddr *)&sll, &sl) != 0 ||
		    (unsigned int)sll.sll_ifindex != ifindex)
			continue;
		if (setsockopt(fds[i], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) == 0)
			n++;
	}
	LOG(DEBUG, "ifindex %u: outgoing frames filtered on %d socket(s)", ifindex, n);
	return n;
}

int uplink_af_packet_open(const struct port *p, uint16_t *port_id, char *vdev, size_t vdev_len,
			  char *msg, size_t len)
{
	char args[128];

	/* Frames of up to 2 KiB: one mbuf each. A socket per queue pair, in a
	 * PACKET_FANOUT_HASH group: the kernel spreads flows over them. */
	snprintf(args, sizeof(args), "iface=%s,qpairs=%u,framesz=2048,framecnt=1024", p->conf.iface,
		 (unsigned int)RTE_MAX(p->dp.n_rxq, 1u));
	if (ethdev_vdev_create("net_af_packet_pw", args, port_id, vdev, vdev_len) == 0) {
		if (af_packet_ignore_outgoing(if_nametoindex(p->conf.iface)) == 0)
			PORT_LOG(p, WARNING,
				 "cannot make AF_PACKET ignore what the host sends on \"%s\"; "
				 "the host's own frames will look received",
				 p->conf.iface);
		return 0;
	}
	snprintf(msg, len,
		 "port \"%s\": AF_PACKET refused interface \"%s\"; see podwired's log "
		 "(is it up, and not already used by another DPDK process?)",
		 p->conf.name, p->conf.iface);
	return -EIO;
}
