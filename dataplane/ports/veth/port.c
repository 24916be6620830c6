/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kind veth: a kernel container's interface. podwired makes a veth pair,
 * keeps the host end (conf.iface) and reads and writes it with its own
 * AF_PACKET I/O (packet.c: offloads on, GSO super-frames cross whole),
 * or with AF_XDP (xdp.c, "io": "xdp": offloads off; where XDP cannot be
 * had, AF_PACKET again); the other end is handed to the container
 * (Docker moves it into its namespace and renames it eth0).
 * perf/README.md says why this and not a tap over vhost-net or net_tap.
 *
 * Lifetimes: the pair outlives podwired (a restart reopens the host end
 * it finds, by name and alias, so the container keeps its eth0); it is
 * deleted with the port (port.delete). When the container's namespace
 * goes, the kernel deletes its end and the host end with it: the port
 * then says "gone" (link down) until it is deleted.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/config.h"
#include "core/log.h"
#include "datapath/stats.h"
#include "datapath/worker.h"
#include "link.h"
#include "model/port.h"
#include "offload/offload.h"
#include "ports/veth/veth.h"

PW_LOG_TYPE("veth");

#define ALIAS_PREFIX "podwire:"

/* The container's end: a name derived from the host end's, so that a
 * restarted podwired (or a test) finds the same one. */
static void peer_name(const char *iface, char *out, size_t len)
{
	uint32_t h = 2166136261u;

	for (const char *c = iface; *c != '\0'; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	snprintf(out, len, "pwc%08x", h);
}

/* IFF_RUNNING of the host end: a veth has carrier while both ends are up. */
static int iface_running(const char *name)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	rc = ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 ? (ifr.ifr_flags & IFF_RUNNING) != 0 : -errno;
	close(fd);
	return rc;
}

/* An existing host end may be reused only when it is the veth this port
 * made before podwired restarted (its alias says so). */
static int reuse_check(const struct port *p, const char *alias, char *msg, size_t len)
{
	char have[128];

	if (link_is_veth(p->conf.iface) && link_alias(p->conf.iface, have, sizeof(have)) == 0 &&
	    strcmp(have, alias) == 0)
		return 0;
	snprintf(msg, len,
		 "port \"%s\": interface \"%s\" already exists and is not the veth podwired made "
		 "for this port; pick another \"iface\" or delete the interface",
		 p->conf.name, p->conf.iface);
	return -EEXIST;
}

static int make_pair(struct port *p, struct veth_priv *v, const char *alias, char *msg, size_t len)
{
	char why[256];
	int rc =
	    link_veth_create(p->conf.iface, v->peer, p->conf.mtu, p->conf.mac, why, sizeof(why));

	if (rc == -EEXIST) {
		snprintf(msg, len,
			 "port \"%s\": cannot make the veth pair %s/%s: one of the names is taken; "
			 "pick another \"iface\" or delete the interface",
			 p->conf.name, p->conf.iface, v->peer);
		return rc;
	}
	/* AF_XDP carries no offload metadata: frames must cross the pair as
	 * they are on the wire, whole (no TSO or GSO super-frames) and with
	 * their checksums. The packet I/O carries it in the virtio-net
	 * header, so the offloads stay on (the kernel's defaults). */
	if (rc == 0 && v->io == VETH_IO_XDP)
		rc = link_offloads_off(v->peer, why, sizeof(why));
	if (rc == 0 && v->io == VETH_IO_XDP)
		rc = link_offloads_off(p->conf.iface, why, sizeof(why));
	if (rc == 0)
		rc = link_set_up(p->conf.iface, alias, why, sizeof(why));
	if (rc != 0) {
		unsigned int idx = if_nametoindex(p->conf.iface);

		if (idx != 0)
			link_delete(idx, msg, len);
		snprintf(msg, len, "port \"%s\": %s", p->conf.name, why);
	}
	return rc;
}

/* A container's frames reach the host end on the CPU that sent them:
 * its own (a send from a syscall) and, for TCP, podwired's worker's too
 * (data an ACK set off, sent in the softirq of podwired's sendmmsg that
 * delivered the ACK). Each CPU's backlog then hands its frames to the
 * packet socket on its own, and a flow arrives reordered: a TCP stream
 * between two containers (perf/bench_docker.sh) met 140-150 out-of-order
 * super-frames and 300-560 retransmissions in 5 s, with no frame lost.
 * RPS on the host end's queue steers each flow to one CPU's backlog (by
 * its hash, whichever CPU sent it), as a device with one rx queue does.
 * Mask: every CPU the kernel may have but the workers' (a backlog run on
 * a worker's CPU preempts the worker, and under load moves to ksoftirqd,
 * which then shares the CPU with it: the packet socket's ring, not
 * drained meanwhile, overflows; test_acl lost 36 of 3,000 frames so);
 * every CPU when the workers have them all. 0 or -errno, why set. */
static int rps_steer(const char *iface, char *why, size_t len)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	static uint32_t cpus[4096 / 32];
	char path[96], mask[1024];
	bool any = false;
	size_t at = 0;
	FILE *f;
	int rc = 0;

	if (n < 1 || n > 4096)
		n = 1;
	for (int pass = 0; pass < 2 && !any; pass++) {
		memset(cpus, 0, sizeof(cpus));
		for (long c = 0; c < n; c++)
			cpus[c / 32] |= 1u << (c % 32);
		for (unsigned int i = 0; pass == 0 && i < n_workers; i++)
			if (workers[i] != NULL && workers[i]->cpu < (unsigned int)n)
				cpus[workers[i]->cpu / 32] &= ~(1u << (workers[i]->cpu % 32));
		for (long g = 0; g <= (n - 1) / 32; g++)
			any |= cpus[g] != 0;
	}
	/* Hex, 32 CPUs a group, the highest group first. */
	for (long g = (n - 1) / 32; g >= 0 && at + 10 < sizeof(mask); g--)
		at += (size_t)snprintf(mask + at, sizeof(mask) - at, g > 0 ? "%x," : "%x", cpus[g]);
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-0/rps_cpus", iface);
	f = fopen(path, "we");
	if (f == NULL || fputs(mask, f) < 0)
		rc = -errno;
	if (f != NULL && fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0)
		snprintf(why, len, "cannot set RPS (%s): %s", path, strerror(-rc));
	return rc;
}

/* AF_XDP when asked for and available, else the packet I/O. */
static int open_io(struct port *p, struct veth_priv *v, char *msg, size_t len)
{
	bool xdp = v->io == VETH_IO_XDP;
	char why[256];
	int rc;

	v->pkt.fd = -1;
	if (xdp) {
		if (veth_xdp_open(p, &v->xdp) == 0) {
			snprintf(v->driver, sizeof(v->driver), "af_xdp");
			p->dp.tx_ol = 0;
			return 0;
		}
		PORT_LOG(p, WARNING, "AF_XDP is unavailable on \"%s\"; falling back to AF_PACKET",
			 p->conf.iface);
		v->io = VETH_IO_PACKET;
	}
	rc = veth_packet_open(p, &v->pkt, v->ifindex, msg, len);
	if (rc != 0)
		return rc;
	/* Without it the port works, with TCP resending what came reordered. */
	if (rps_steer(p->conf.iface, why, sizeof(why)) != 0)
		PORT_LOG(p, WARNING, "%s; TCP from the container may arrive reordered", why);
	snprintf(v->driver, sizeof(v->driver), "%s",
		 xdp ? "af_packet (AF_XDP unavailable)" : "af_packet");
	/* The kernel takes every request a virtio-net header can carry, and
	 * makes segments and checksums itself where the frame goes on. */
	p->dp.tx_ol = OFFLOAD_ALL;
	return 0;
}

static void close_io(struct veth_priv *v)
{
	if (v->io == VETH_IO_XDP)
		veth_xdp_close(&v->xdp);
	else
		veth_packet_close(&v->pkt);
}

static void veth_poll_link(struct port *p);

static int veth_create(struct port *p, char *msg, size_t len)
{
	struct veth_priv *v = calloc(1, sizeof(*v));
	char alias[API_NAME_MAX + sizeof(ALIAS_PREFIX)];
	bool made = false;
	int rc;

	if (v == NULL) {
		snprintf(msg, len, "port \"%s\": out of memory", p->conf.name);
		return -ENOMEM;
	}
	/* The port's own choice, else the daemon's (--veth-io). */
	v->io = strcmp(p->conf.io[0] != '\0' ? p->conf.io : pw_cfg.veth_io, API_IO_XDP) == 0
		    ? VETH_IO_XDP
		    : VETH_IO_PACKET;
	peer_name(p->conf.iface, v->peer, sizeof(v->peer));
	snprintf(alias, sizeof(alias), ALIAS_PREFIX "%s", p->conf.name);
	if (if_nametoindex(p->conf.iface) != 0) {
		rc = reuse_check(p, alias, msg, len);
		if (rc == 0)
			PORT_LOG(p, INFO, "reusing veth host end %s", p->conf.iface);
	} else {
		rc = make_pair(p, v, alias, msg, len);
		made = rc == 0;
	}
	if (rc == 0) {
		v->ifindex = if_nametoindex(p->conf.iface);
		rc = open_io(p, v, msg, len);
		if (rc != 0 && made)
			link_delete(v->ifindex, alias, sizeof(alias));
	}
	if (rc != 0) {
		free(v);
		return rc;
	}
	p->dp.priv = v;
	veth_poll_link(p);
	PORT_LOG(p, INFO, "veth %s (container end %s) through %s", p->conf.iface, v->peer,
		 v->driver);
	return 0;
}

static void veth_destroy(struct port *p)
{
	struct veth_priv *v = p->dp.priv;
	char msg[256];
	int rc;

	if (v == NULL)
		return;
	close_io(v);
	/* Deleted for good: the pair goes (and with it the container's
	 * end). Stopped with podwired: the pair stays for the next start. */
	if (p->deleting && !v->gone && if_nametoindex(p->conf.iface) == v->ifindex) {
		rc = link_delete(v->ifindex, msg, sizeof(msg));
		if (rc != 0 && rc != -ENODEV)
			PORT_LOG(p, WARNING, "%s", msg);
	}
	free(v);
	p->dp.priv = NULL;
}

static void veth_poll_link(struct port *p)
{
	struct veth_priv *v = p->dp.priv;
	uint64_t errs = __atomic_load_n(&v->pkt.tx_errors, __ATOMIC_RELAXED);
	bool up;

	if (!v->gone && if_nametoindex(p->conf.iface) != v->ifindex) {
		v->gone = true;
		PORT_LOG(p, INFO,
			 "veth %s is gone (its container's namespace went); delete the port",
			 p->conf.iface);
	}
	up = !v->gone && iface_running(p->conf.iface) == 1;
	if (up != p->dp.link_up)
		PORT_LOG(p, INFO, "link %s", up ? "up" : "down");
	__atomic_store_n(&p->dp.link_up, up, __ATOMIC_RELEASE);
	if (errs != v->tx_errors_told) {
		PORT_LOG(p, WARNING, "the kernel refused %" PRIu64 " frames sent to %s (%s)",
			 errs - v->tx_errors_told, p->conf.iface, strerror(v->pkt.tx_errno));
		v->tx_errors_told = errs;
	}
}

static uint64_t veth_kernel_drops(struct port *p)
{
	struct veth_priv *v = p->dp.priv;

	/* AF_XDP: XDP_STATISTICS of its sockets, which the kernel never
	 * resets (ethdev.h). */
	return v->io == VETH_IO_PACKET ? veth_packet_kernel_drops(&v->pkt)
				       : ethdev_xsks_drops(&v->xdp.xsks);
}

static void veth_to_json(const struct port *p, cJSON *obj)
{
	struct veth_priv *v = p->dp.priv;
	cJSON *o = cJSON_AddObjectToObject(obj, API_R_VETH);

	cJSON_AddStringToObject(o, API_R_PEER, v->peer);
	cJSON_AddStringToObject(o, API_R_DRIVER, v->driver);
	cJSON_AddStringToObject(o, API_R_STATE, v->gone ? "gone" : p->dp.link_up ? "up" : "down");
	cJSON_AddNumberToObject(o, API_R_IFINDEX, v->ifindex);
	cJSON_AddStringToObject(o, API_F_IO, v->io == VETH_IO_XDP ? API_IO_XDP : API_IO_PACKET);
	if (v->io == VETH_IO_PACKET)
		cJSON_AddNumberToObject(o, API_R_KERNEL_DROPS,
					(double)veth_packet_kernel_drops(&v->pkt));
}

static uint16_t veth_rx(struct dp_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
			struct port_counters *ctr)
{
	struct veth_priv *v = p->priv;

	RTE_SET_USED(q); /* one queue */
	if (likely(v->io == VETH_IO_PACKET))
		return veth_packet_rx(&v->pkt, pkts, n, &ctr[p->idx]);
	return veth_xdp_rx(&v->xdp, pkts, n);
}

static uint16_t veth_tx(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n)
{
	struct veth_priv *v = p->priv;

	RTE_SET_USED(w); /* one socket or queue, under the datapath's tx_lock */
	if (likely(v->io == VETH_IO_PACKET))
		return veth_packet_tx(&v->pkt, pkts, n);
	return veth_xdp_tx(&v->xdp, pkts, n);
}

static const struct port_ops veth_port_ops = {
    .kind = API_PORT_VETH,
    .summary = "a container's kernel interface: a veth pair made by podwired, the host end "
	       "through AF_PACKET with offloads (\"io\": \"xdp\": AF_XDP)",
    .fields = PORT_FIELD_IFACE | PORT_FIELD_IO,
    /* A packet socket would not need it (the kernel serialises sends and
     * each call's arrays are its own), but net_af_xdp's queue does. */
    .tx_locks_itself = false,
    .create = veth_create,
    .destroy = veth_destroy,
    .poll_link = veth_poll_link,
    .kernel_drops = veth_kernel_drops,
    .to_json = veth_to_json,
    .dp = {.rx_burst = veth_rx, .tx_burst = veth_tx},
};

PORT_KIND(veth_port_ops)
