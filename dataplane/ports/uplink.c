/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared part of every uplink kind: one ethdev per device, opened by
 * the first uplink port on it; a VLAN demultiplexer on receive and VLAN
 * tagging on transmit. See uplink.h.
 *
 * Threads: the control thread creates and destroys; the one worker that
 * polls the device's ports runs uplink_rx; any worker may run uplink_tx
 * (the device's tx queue is shared by its ports, so it is locked per
 * burst: the one lock; the kinds say tx_locks_itself, so the datapath
 * takes no per-port lock on top).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "core/log.h"
#include "datapath/observe.h"
#include "datapath/stats.h"
#include "model/network.h"
#include "ports/ethdev.h"
#include "ports/uplink.h"
#include "ports/uplink_vdev.h"

PW_LOG_TYPE("uplink");

#define UPLINK_RING  1024
#define UPLINK_STASH (2 * PW_BURST)

struct uplink_port;

struct uplink_dev {
	char name[API_SOCKET_PATH_MAX + 1]; /* interface or PCI address */
	const struct uplink_kind *kind;
	char vdev[32];
	char driver[64];
	uint16_t port_id;
	struct ethdev_xsks xsks; /* AF_XDP sockets made while it started */
	unsigned int refs;
	unsigned int worker;
	rte_spinlock_t tx_lock;
	/* Receiving port by VLAN id (0: untagged). The control thread stores,
	 * the polling worker loads. */
	struct uplink_port *by_vlan[RTE_ETHER_MAX_VLAN_ID + 1];
	TAILQ_ENTRY(uplink_dev) next;
};

/* A port's private state: its network's view of the device. */
struct uplink_port {
	struct uplink_dev *dev;
	struct port *port;
	uint16_t vlan;
	/* Frames the device gave while another port of it was polled. */
	uint16_t n_stash;
	struct rte_mbuf *stash[UPLINK_STASH];
};

static TAILQ_HEAD(, uplink_dev) devs = TAILQ_HEAD_INITIALIZER(devs);

const char *uplink_device_name(const struct port_conf *c)
{
	return c->pci[0] != '\0' ? c->pci : c->iface;
}

static const struct uplink_kind *kind_of(const struct port *p)
{
	return p->ops->data;
}

static struct uplink_dev *dev_find(const char *name)
{
	struct uplink_dev *d;

	TAILQ_FOREACH (d, &devs, next)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

static struct port *port_on_vlan(const struct uplink_dev *d, uint16_t vlan)
{
	return d->by_vlan[vlan] != NULL ? d->by_vlan[vlan]->port : NULL;
}

static int dev_start(struct uplink_dev *d, const struct port *p, char *msg, size_t len)
{
	int rc = ethdev_start(d->port_id, UPLINK_RING, pw_mbuf_pool);

	if (rc != 0) {
		snprintf(msg, len, "port \"%s\": cannot start %s on %s: %s; see podwired's log",
			 p->conf.name, d->driver, d->name, strerror(-rc));
		return rc;
	}
	/* Frames for pods carry the pods' MACs, not the device's. A VF needs
	 * trust on for this; without it only its own MAC arrives. */
	if (rte_eth_promiscuous_enable(d->port_id) != 0)
		LOG(WARNING, "%s: cannot enable promiscuous mode", d->name);
	return 0;
}

static int dev_stop_cb(void *arg)
{
	struct uplink_dev *d = arg;

	rte_eth_dev_stop(d->port_id);
	rte_eth_dev_close(d->port_id);
	if (d->kind->close != NULL)
		d->kind->close(d->vdev, d->name);
	return 0;
}

/* Stops and closes the ethdev and undoes the kind's open; d stays. The
 * XDP fds libxdp opens to detach its program (and keeps when the
 * interface went first) are closed as those of the start. */
static void dev_release(struct uplink_dev *d)
{
	struct ethdev_xsks more;

	ethdev_xsks_track(dev_stop_cb, d, &more);
	ethdev_xsks_close(&more, d->name);
	ethdev_xsks_close(&d->xsks, d->name);
}

struct dev_start_args {
	struct uplink_dev *d;
	const struct port *p;
	char *msg;
	size_t len;
};

static int dev_start_cb(void *arg)
{
	struct dev_start_args *a = arg;

	return dev_start(a->d, a->p, a->msg, a->len);
}

/* dev_start, recording the AF_XDP sockets it makes. */
static int dev_start_tracked(struct uplink_dev *d, const struct port *p, char *msg, size_t len)
{
	struct dev_start_args a = {d, p, msg, len};

	return ethdev_xsks_track(dev_start_cb, &a, &d->xsks);
}

static void dev_close(struct uplink_dev *d)
{
	dev_release(d);
	LOG(INFO, "%s (%s) closed", d->name, d->driver);
	TAILQ_REMOVE(&devs, d, next);
	rte_free(d);
}

static int dev_open(struct port *p, const struct uplink_kind *uk, struct uplink_dev **out,
		    char *msg, size_t len)
{
	struct uplink_dev *d;
	int rc;

	d = rte_zmalloc("pw_uplink", sizeof(*d), RTE_CACHE_LINE_SIZE);
	if (d == NULL) {
		snprintf(msg, len, "port \"%s\": out of hugepage memory", p->conf.name);
		return -ENOMEM;
	}
	snprintf(d->name, sizeof(d->name), "%s", uplink_device_name(&p->conf));
	d->kind = uk;
	d->worker = p->rxq[0].worker;
	rte_spinlock_init(&d->tx_lock);
	rc = uk->open(p, &d->port_id, d->vdev, sizeof(d->vdev), d->driver, sizeof(d->driver), msg,
		      len);
	if (rc == 0) {
		rc = dev_start_tracked(d, p, msg, len);
		if (rc != 0 && uk->fallback != NULL) {
			PORT_LOG(p, WARNING, "%s; trying the fallback", msg);
			dev_release(d);
			rc = uk->fallback(p, &d->port_id, d->vdev, sizeof(d->vdev), d->driver,
					  sizeof(d->driver), msg, len);
			if (rc != 0) {
				rte_free(d);
				return rc;
			}
			rc = dev_start_tracked(d, p, msg, len);
		}
		if (rc != 0)
			dev_release(d);
	}
	if (rc != 0) {
		rte_free(d);
		return rc;
	}
	TAILQ_INSERT_TAIL(&devs, d, next);
	LOG(INFO, "%s opened with %s (ethdev %u)", d->name, d->driver, d->port_id);
	*out = d;
	return 0;
}

int uplink_create(struct port *p, char *msg, size_t len)
{
	const struct uplink_kind *uk = kind_of(p);
	struct uplink_dev *d = dev_find(uplink_device_name(&p->conf));
	struct uplink_port *u;
	struct port *other;
	int rc;

	if (uk == NULL)
		return -EINVAL;
	if (d != NULL && d->kind != uk) {
		snprintf(msg, len,
			 "port \"%s\": %s is already an uplink of type %s; give this port "
			 "type \"%s\" too",
			 p->conf.name, d->name, d->kind->kind, d->kind->kind);
		return -EADDRINUSE;
	}
	if (d != NULL && (other = port_on_vlan(d, p->net->vlan)) != NULL) {
		snprintf(msg, len,
			 "port \"%s\": uplink %s already carries VLAN %u for port \"%s\" of "
			 "network \"%s\"; networks sharing an uplink need distinct VLANs",
			 p->conf.name, d->name, p->net->vlan, other->conf.name, other->net->name);
		return -EADDRINUSE;
	}
	u = rte_zmalloc("pw_uplink_port", sizeof(*u), RTE_CACHE_LINE_SIZE);
	if (u == NULL) {
		snprintf(msg, len, "port \"%s\": out of hugepage memory", p->conf.name);
		return -ENOMEM;
	}
	if (d == NULL) {
		rc = dev_open(p, uk, &d, msg, len);
		if (rc != 0) {
			rte_free(u);
			return rc;
		}
	}
	d->refs++;
	u->dev = d;
	u->port = p;
	u->vlan = p->net->vlan;
	p->dp.priv = u;
	/* One worker polls every port of a device: the demultiplexer hands
	 * frames between them without locks. */
	for (uint16_t q = 0; q < p->dp.n_rxq; q++)
		p->rxq[q].worker = (uint8_t)d->worker;
	p->rxq_fixed = true;
	__atomic_store_n(&d->by_vlan[u->vlan], u, __ATOMIC_RELEASE);
	return 0;
}

void uplink_destroy(struct port *p)
{
	struct uplink_port *u = p->dp.priv;
	struct uplink_dev *d;

	if (u == NULL)
		return;
	d = u->dev;
	__atomic_store_n(&d->by_vlan[u->vlan], NULL, __ATOMIC_RELEASE);
	/* The worker may have just loaded u from by_vlan: wait until it is
	 * past that burst before freeing what it stashed. */
	view_wait();
	rte_pktmbuf_free_bulk(u->stash, u->n_stash);
	rte_free(u);
	p->dp.priv = NULL;
	if (--d->refs == 0)
		dev_close(d);
}

void uplink_poll_link(struct port *p)
{
	const struct uplink_port *u = p->dp.priv;
	bool known, up = ethdev_link_up(u->dev->port_id, &known);

	if (!known)
		return;
	if (up != p->dp.link_up)
		PORT_LOG(p, INFO, "link %s", up ? "up" : "down");
	__atomic_store_n(&p->dp.link_up, up, __ATOMIC_RELEASE);
}

/* The VLAN id of a frame, 0 when untagged or priority-tagged (VLAN 0),
 * UINT16_MAX when the tag cannot be removed; removes the tag. */
static inline uint16_t take_vlan(struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint16_t vid;

	if (m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr) ||
	    eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_VLAN))
		return 0;
	vid = rte_be_to_cpu_16(((const struct rte_vlan_hdr *)(eth + 1))->vlan_tci) & 0xfff;
	if (rte_vlan_strip(m) != 0)
		return UINT16_MAX;
	return vid;
}

uint16_t uplink_rx(struct dp_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
		   struct port_counters *ctr)
{
	struct uplink_port *u = p->priv;
	struct uplink_dev *d = u->dev;
	struct rte_mbuf *got[PW_BURST];
	uint16_t k = 0, g;

	if (u->n_stash != 0) {
		k = RTE_MIN(n, u->n_stash);
		memcpy(pkts, u->stash, k * sizeof(*pkts));
		u->n_stash -= k;
		memmove(u->stash, u->stash + k, u->n_stash * sizeof(*pkts));
		return k;
	}
	RTE_SET_USED(q); /* one queue */
	g = rte_eth_rx_burst(d->port_id, 0, got, RTE_MIN(n, PW_BURST));
	for (uint16_t i = 0; i < g; i++) {
		struct rte_mbuf *m = got[i];
		uint16_t vid = take_vlan(m);
		struct uplink_port *to = vid == UINT16_MAX ? NULL
					 : vid == u->vlan
					     ? u
					     : __atomic_load_n(&d->by_vlan[vid], __ATOMIC_ACQUIRE);

		if (to == u) {
			pkts[k++] = m;
		} else if (to == NULL) {
			ctr[p->idx].drops[DROP_UNKNOWN_VLAN]++;
			capture_dropped(p, m, CAPTURE_IN, DROP_UNKNOWN_VLAN);
			rte_pktmbuf_free(m);
		} else if (to->n_stash < UPLINK_STASH) {
			to->stash[to->n_stash++] = m;
		} else {
			ctr[to->port->dp.idx].drops[DROP_STASH_FULL]++;
			capture_dropped(&to->port->dp, m, CAPTURE_IN, DROP_STASH_FULL);
			rte_pktmbuf_free(m);
		}
	}
	return k;
}

/* Tags m with vlan; a frame shared by a flood is copied first. NULL when
 * memory is short (m is then left as it was). */
static struct rte_mbuf *tag(struct rte_mbuf *m, uint16_t vlan)
{
	struct rte_mbuf *t = m;

	if (rte_mbuf_refcnt_read(m) > 1 || !RTE_MBUF_DIRECT(m) || rte_pktmbuf_headroom(m) < 4) {
		t = rte_pktmbuf_copy(m, pw_mbuf_pool, 0, UINT32_MAX);
		if (t == NULL)
			return NULL;
	}
	t->vlan_tci = vlan;
	if (rte_vlan_insert(&t) != 0) {
		if (t != m)
			rte_pktmbuf_free(t);
		return NULL;
	}
	if (t != m)
		rte_pktmbuf_free(m);
	return t;
}

/* The shortest frame a NIC sends without a runt, less its CRC. */
#define UPLINK_MIN_FRAME (RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN)

/* Pads m with zeroes to UPLINK_MIN_FRAME; a frame shared by a flood, or
 * without room in its last segment, is copied first. NULL when memory is
 * short (m is then left as it was). */
static struct rte_mbuf *pad(struct rte_mbuf *m)
{
	uint16_t add = (uint16_t)(UPLINK_MIN_FRAME - m->pkt_len);
	struct rte_mbuf *t = m;
	char *tail;

	if (rte_mbuf_refcnt_read(m) > 1 || !RTE_MBUF_DIRECT(m) || m->nb_segs > 1 ||
	    rte_pktmbuf_tailroom(m) < add) {
		t = rte_pktmbuf_copy(m, pw_mbuf_pool, 0, UINT32_MAX);
		if (t == NULL)
			return NULL;
		if (t->nb_segs > 1 && rte_pktmbuf_linearize(t) != 0) {
			rte_pktmbuf_free(t);
			return NULL;
		}
	}
	tail = rte_pktmbuf_append(t, add);
	if (tail == NULL) {
		if (t != m)
			rte_pktmbuf_free(t);
		return NULL;
	}
	memset(tail, 0, add);
	if (t != m)
		rte_pktmbuf_free(m);
	return t;
}

/* Tags frames with the port's VLAN and pads those shorter than 60 bytes:
 * Intel VFs take a runt for a malicious driver and disable the VF, for
 * every network on it. (Frames under 14 bytes never get this far.) */
uint16_t uplink_tx_prepare(struct dp_port *p, struct rte_mbuf **pkts, uint16_t n,
			   struct port_counters *c)
{
	const struct uplink_port *u = p->priv;
	uint16_t k = 0;

	/* A frame that cannot be tagged or padded (no mbuf for a copy) is
	 * dropped here, as no_mbuf; the others keep their order. */
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *t = pkts[i], *padded;

		/* tag and pad return the frame to send from here on (the one
		 * given, or a copy: then the one given is freed), or NULL and
		 * leave the one given as it was. */
		if (u->vlan != 0) {
			t = tag(t, u->vlan);
			if (unlikely(t == NULL)) {
				c->drops[DROP_NO_MBUF]++;
				rte_pktmbuf_free(pkts[i]);
				continue;
			}
		}
		if (unlikely(t->pkt_len < UPLINK_MIN_FRAME)) {
			padded = pad(t);
			if (unlikely(padded == NULL)) {
				c->drops[DROP_NO_MBUF]++;
				rte_pktmbuf_free(t);
				continue;
			}
			t = padded;
		}
		pkts[k++] = t;
	}
	return k;
}

uint16_t uplink_tx(struct dp_port *p, uint16_t w, struct rte_mbuf **pkts, uint16_t n)
{
	const struct uplink_port *u = p->priv;
	struct uplink_dev *d = u->dev;
	uint16_t sent;

	RTE_SET_USED(w);
	rte_spinlock_lock(&d->tx_lock);
	sent = rte_eth_tx_burst(d->port_id, 0, pkts, n);
	rte_spinlock_unlock(&d->tx_lock);
	return sent;
}

/* Device-wide sums of two drop reasons, over the device's ports. */
static void dev_drops(const struct uplink_dev *d, uint64_t *unknown_vlan, uint64_t *stash_full)
{
	*unknown_vlan = *stash_full = 0;
	for (unsigned int vid = 0; vid <= RTE_ETHER_MAX_VLAN_ID; vid++) {
		const struct uplink_port *u = d->by_vlan[vid];
		struct port_counters c;

		if (u == NULL)
			continue;
		stats_port_sum(u->port->dp.idx, &c);
		*unknown_vlan += c.drops[DROP_UNKNOWN_VLAN];
		*stash_full += c.drops[DROP_STASH_FULL];
	}
}

void uplink_to_json(const struct port *p, cJSON *obj)
{
	const struct uplink_port *u = p->dp.priv;
	const struct uplink_dev *d = u->dev;
	cJSON *o = cJSON_AddObjectToObject(obj, API_R_UPLINK);
	uint64_t unknown_vlan, stash_full;

	dev_drops(d, &unknown_vlan, &stash_full);
	cJSON_AddStringToObject(o, API_R_DEVICE, d->name);
	cJSON_AddStringToObject(o, API_R_DRIVER, d->driver);
	cJSON_AddNumberToObject(o, API_F_VLAN, u->vlan);
	cJSON_AddNumberToObject(o, API_R_PORTS_ON_DEVICE, d->refs);
	cJSON_AddNumberToObject(o, API_R_UNKNOWN_VLAN, (double)unknown_vlan);
	cJSON_AddNumberToObject(o, API_R_STASH_FULL, (double)stash_full);
}
