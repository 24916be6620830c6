/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kind veth: a kernel container's interface. podwired makes a veth pair,
 * keeps the host end (conf.iface) and reads and writes it with AF_XDP
 * (net_af_xdp, queue 0; AF_PACKET where XDP is unavailable); the other
 * end is handed to the container (Docker moves it into its namespace and
 * renames it eth0). perf/README.md says why this and not a tap over
 * vhost-net or net_tap.
 *
 * Lifetimes: the pair outlives podwired (a restart reopens the host end
 * it finds, by name and alias, so the container keeps its eth0); it is
 * deleted with the port (port.delete). When the container's namespace
 * goes, the kernel deletes its end and the host end with it: the port
 * then says "gone" (link down) until it is deleted.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_version.h>

#include "core/log.h"
#include "link.h"
#include "model/port.h"
#include "ports/ethdev.h"
#include "ports/uplink_vdev.h"

PW_LOG_TYPE("veth");

/* net_af_xdp fills its ring from podwired's mbuf pool (the pool is its
 * UMEM) and keeps about twice the ring in flight per port: 1024 took the
 * default 32768 mbufs at 16 ports. A kernel container needs no deep ring. */
#define VETH_RING    256
#define ALIAS_PREFIX "podwire:"

struct veth_priv {
	uint16_t port_id;
	bool started;
	bool gone;	      /* the host end went (with the container's namespace) */
	unsigned int ifindex; /* of the host end, to never delete another's */
	char vdev[32];
	char driver[48];
	char peer[IF_NAMESIZE];
	struct ethdev_xsks xsks;
};

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
	/* Frames cross the pair as they are on the wire: whole (no TSO or
	 * GSO superframes) and with their checksums. */
	if (rc == 0)
		rc = link_offloads_off(v->peer, why, sizeof(why));
	if (rc == 0)
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

static int start_cb(void *arg)
{
	struct veth_priv *v = arg;
	int rc = ethdev_start(v->port_id, VETH_RING, pw_mbuf_pool);

	v->started = rc == 0;
	return rc;
}

static int stop_cb(void *arg)
{
	struct veth_priv *v = arg;

	if (v->started)
		rte_eth_dev_stop(v->port_id);
	ethdev_vdev_destroy(v->port_id, v->vdev);
	return 0;
}

static void release(struct veth_priv *v)
{
	struct ethdev_xsks more;

	if (v->vdev[0] == '\0')
		return;
	/* libxdp opens the XDP programs' fds again to detach them, and keeps
	 * them when the interface went first (the container's namespace was
	 * deleted with its end of the pair): those are closed too. */
	ethdev_xsks_track(stop_cb, v, &more);
	ethdev_xsks_close(&more, v->vdev);
	ethdev_xsks_close(&v->xsks, v->vdev);
	v->vdev[0] = '\0';
	v->started = false;
}

/* AF_XDP on the host end, or AF_PACKET where XDP cannot be had (XDP is
 * attached only when the queues start, so a failed start falls back too). */
static int open_dev(struct port *p, struct veth_priv *v, char *msg, size_t len)
{
	char args[128];
	int rc;

	snprintf(args, sizeof(args), "iface=%s,start_queue=0,queue_count=1,busy_budget=0",
		 p->conf.iface);
	if (ethdev_vdev_create("net_af_xdp_pwv", args, &v->port_id, v->vdev, sizeof(v->vdev)) ==
	    0) {
		if (ethdev_xsks_track(start_cb, v, &v->xsks) == 0) {
			snprintf(v->driver, sizeof(v->driver), "af_xdp");
			return 0;
		}
		release(v);
	}
	PORT_LOG(p, WARNING, "AF_XDP is unavailable on \"%s\"; falling back to AF_PACKET",
		 p->conf.iface);
	rc = uplink_af_packet_open(p, &v->port_id, v->vdev, sizeof(v->vdev), msg, len);
	if (rc != 0)
		return rc;
	rc = start_cb(v);
	if (rc != 0) {
		release(v);
		snprintf(msg, len, "port \"%s\": cannot start AF_PACKET on \"%s\": %s",
			 p->conf.name, p->conf.iface, strerror(-rc));
		return rc;
	}
	snprintf(v->driver, sizeof(v->driver), "af_packet (AF_XDP unavailable)");
	return 0;
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
	/* Each veth port is an ethdev (net_af_xdp or net_af_packet), and DPDK
	 * has a fixed number of them: say so rather than leave a pair behind. */
	if (rte_eth_dev_count_total() >= RTE_MAX_ETHPORTS) {
		snprintf(msg, len,
			 "port \"%s\": podwired has %u DPDK ports, the most DPDK %s allows "
			 "(RTE_MAX_ETHPORTS); delete veth or uplink ports first",
			 p->conf.name, rte_eth_dev_count_total(), rte_version());
		free(v);
		return -ENOSPC;
	}
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
		rc = open_dev(p, v, msg, len);
		if (rc != 0 && made)
			link_delete(v->ifindex, alias, sizeof(alias));
	}
	if (rc != 0) {
		free(v);
		return rc;
	}
	if (rte_eth_promiscuous_enable(v->port_id) != 0)
		PORT_LOG(p, WARNING, "cannot enable promiscuous mode on %s", p->conf.iface);
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
	release(v);
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
}

static void veth_to_json(const struct port *p, cJSON *obj)
{
	const struct veth_priv *v = p->dp.priv;
	cJSON *o = cJSON_AddObjectToObject(obj, API_R_VETH);

	cJSON_AddStringToObject(o, API_R_PEER, v->peer);
	cJSON_AddStringToObject(o, API_R_DRIVER, v->driver);
	cJSON_AddStringToObject(o, API_R_STATE, v->gone ? "gone" : p->dp.link_up ? "up" : "down");
	cJSON_AddNumberToObject(o, API_R_IFINDEX, v->ifindex);
}

/* AF_XDP's drops; none counted under the AF_PACKET fallback (no sockets
 * in xsks). */
static uint64_t veth_kernel_drops(struct port *p)
{
	const struct veth_priv *v = p->dp.priv;

	return ethdev_xsks_drops(&v->xsks);
}

static uint16_t veth_rx(struct dp_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
			struct port_counters *ctr)
{
	const struct veth_priv *v = p->priv;

	RTE_SET_USED(q); /* one queue */
	RTE_SET_USED(ctr);
	return rte_eth_rx_burst(v->port_id, 0, pkts, n);
}

static uint16_t veth_tx(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n)
{
	const struct veth_priv *v = p->priv;

	RTE_SET_USED(w); /* one queue, under the datapath's tx_lock */
	return rte_eth_tx_burst(v->port_id, 0, pkts, n);
}

static const struct port_ops veth_port_ops = {
    .kind = API_PORT_VETH,
    .summary = "a container's kernel interface: a veth pair made by podwired, the host end "
	       "through AF_XDP (AF_PACKET where XDP is unavailable)",
    .fields = PORT_FIELD_IFACE,
    .create = veth_create,
    .destroy = veth_destroy,
    .poll_link = veth_poll_link,
    .kernel_drops = veth_kernel_drops,
    .to_json = veth_to_json,
    .dp = {.rx_burst = veth_rx, .tx_burst = veth_tx},
};

PORT_KIND(veth_port_ops)
