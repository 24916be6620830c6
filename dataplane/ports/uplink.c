/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared part of every uplink kind: one ethdev per device, opened by
 * the first uplink port on it; a VLAN demultiplexer on receive and VLAN
 * tagging on transmit. See uplink.h.
 *
 * Queues: the device has n_rxq rx queues, spread by its RSS (or, where
 * it has none, by what the kind has: the NIC's own RSS under AF_XDP, a
 * fanout hash under AF_PACKET). Every port of the device has n_rxq rx
 * queues too: polling queue q of any port reads the device's queue q, keeps
 * that port's frames and stashes the others' in their queue q's stash.
 * Device queue q of every port goes to one worker (rxq_worker[q], from
 * the placement of the device's first port: its queues one per worker,
 * the least loaded first), so each stash has one reader and one writer,
 * the same thread, and the demultiplexer needs no lock. Queues are
 * rxq_fixed: neither pins nor the balancer move them, since moving one
 * port's queue would split a stash between two workers.
 *
 * Tx: one queue per worker where the device has enough (worker w sends on
 * w % n_txq); then no lock. Where workers outnumber tx queues (AF_XDP and
 * AF_PACKET have as many tx as rx queues), each tx queue has its own lock,
 * taken per burst (tx_locked). The kinds say tx_locks_itself, so the
 * datapath takes no per-port lock on top.
 *
 * Threads: the control thread creates and destroys; queue q's worker runs
 * uplink_rx(q) for every port of the device; any worker may run uplink_tx.
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
#include "datapath/worker.h"
#include "model/network.h"
#include "ports/ethdev.h"
#include "ports/uplink.h"
#include "ports/uplink_vdev.h"

PW_LOG_TYPE("uplink");

#define UPLINK_RING  1024
#define UPLINK_STASH (2 * PW_BURST)

/* What uplinks ask of a device's RSS, where it has RSS. */
#define UPLINK_RSS_HF (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP)

struct uplink_port;

/* A tx queue's lock, used only when workers share tx queues; a line of
 * its own, so that workers on other queues do not bounce it. */
struct uplink_txq {
	rte_spinlock_t lock;
} __rte_cache_aligned;

/* Frames the device gave on one queue for another port: written and read
 * only by that queue's worker. A line (or more) of its own per queue. */
struct uplink_stash {
	uint16_t n;
	struct rte_mbuf *m[UPLINK_STASH];
} __rte_cache_aligned;

struct uplink_dev {
	char name[API_SOCKET_PATH_MAX + 1]; /* interface or PCI address */
	const struct uplink_kind *kind;
	char vdev[32];
	char driver[64];
	uint16_t port_id;
	struct ethdev_xsks xsks; /* AF_XDP sockets made while it started */
	unsigned int refs;
	uint16_t n_rxq, n_txq;
	/* Workers outnumber tx queues: a tx queue's burst takes its lock. */
	bool tx_locked;
	char spread[48];		   /* how frames are spread over rx queues */
	uint8_t rxq_worker[PW_MAX_QUEUES]; /* worker index polling queue q */
	uint8_t txq_of[PW_MAX_WORKERS];	   /* tx queue of worker w: w % n_txq */
	struct uplink_txq txq[PW_MAX_QUEUES];
	/* Queue q of the device as an ethdev's queue: port_id's queue q, or
	 * (a device per queue: uplink_kind.open_queue) queue 0 of the
	 * ethdev made for it, vdev qvdev[q]. */
	uint16_t q_port[PW_MAX_QUEUES];
	uint16_t q_id[PW_MAX_QUEUES];
	char qvdev[PW_MAX_QUEUES][32];
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
	/* The device's kernel drops when the port joined it. */
	uint64_t kernel_drops_base;
	/* Frames the device gave on queue q while another port of it was
	 * polled. */
	struct uplink_stash stash[PW_MAX_QUEUES];
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

/* Configures the device's queues: want rx queues (fewer where it has
 * fewer), spread by RSS over IP, TCP and UDP where it has RSS; a tx queue
 * per worker where it has enough. Then sets them up. 0 or -errno. */
static int dev_configure(struct uplink_dev *d, uint16_t want)
{
	int sock = (int)rte_eth_dev_socket_id(d->port_id);
	unsigned int s = sock < 0 ? 0 : (unsigned int)sock;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	uint16_t n_rx, n_tx;
	uint64_t hf = 0;
	int rc = rte_eth_dev_info_get(d->port_id, &info);

	if (rc != 0)
		return rc;
	n_rx = RTE_MAX(RTE_MIN(want, RTE_MIN(info.max_rx_queues, (uint16_t)PW_MAX_QUEUES)), 1);
	/* As many tx as rx queues at least (AF_XDP pairs them), and one per
	 * worker where the device has that many. */
	n_tx = (uint16_t)RTE_MAX(n_rx, (uint16_t)n_workers);
	n_tx = RTE_MAX(RTE_MIN(n_tx, RTE_MIN(info.max_tx_queues, (uint16_t)PW_MAX_QUEUES)), 1);
	memset(&conf, 0, sizeof(conf));
	if (n_rx > 1)
		hf = UPLINK_RSS_HF & info.flow_type_rss_offloads;
	if (hf != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = hf;
		snprintf(d->spread, sizeof(d->spread), "rss");
	} else if (n_rx == 1) {
		snprintf(d->spread, sizeof(d->spread), "none (one queue)");
	} else if (strncmp(d->driver, "af_packet", 9) == 0) {
		/* net_af_packet puts its sockets in a PACKET_FANOUT_HASH group. */
		snprintf(d->spread, sizeof(d->spread), "fanout hash");
	} else {
		/* AF_XDP: the queues are the NIC's, spread by its RSS as the
		 * kernel set it (ethtool -x). */
		snprintf(d->spread, sizeof(d->spread), "the interface's rss");
	}
	rc = rte_eth_dev_configure(d->port_id, n_rx, n_tx, &conf);
	if (rc != 0 && n_tx > n_rx) {
		/* Some PMDs want rx and tx queues paired. */
		n_tx = n_rx;
		rc = rte_eth_dev_configure(d->port_id, n_rx, n_tx, &conf);
	}
	for (uint16_t q = 0; rc == 0 && q < n_rx; q++)
		rc = rte_eth_rx_queue_setup(d->port_id, q, UPLINK_RING, s, NULL, pw_mbuf_pool);
	for (uint16_t q = 0; rc == 0 && q < n_tx; q++)
		rc = rte_eth_tx_queue_setup(d->port_id, q, UPLINK_RING, s, NULL);
	if (rc != 0)
		return rc > 0 ? -rc : rc;
	d->n_rxq = n_rx;
	d->n_txq = n_tx;
	for (uint16_t q = 0; q < PW_MAX_QUEUES; q++) {
		d->q_port[q] = d->port_id;
		d->q_id[q] = q;
		d->qvdev[q][0] = '\0';
		rte_spinlock_init(&d->txq[q].lock);
	}
	return 0;
}

/* Where the device has fewer queues than want and the kind can open a
 * device per queue: adds them, queue 1 up, until the kind or a device
 * refuses. Each has one rx and one tx queue. */
static void dev_add_queues(struct uplink_dev *d, const struct port *p, uint16_t want)
{
	for (uint16_t q = d->n_rxq; q < want && q < PW_MAX_QUEUES; q++) {
		uint16_t id;

		/* Paired queues only: tx queue q is rx queue q's device. */
		if (d->n_txq != d->n_rxq ||
		    d->kind->open_queue(p, q, &id, d->qvdev[q], sizeof(d->qvdev[q])) != 0)
			break;
		if (ethdev_start(id, UPLINK_RING, pw_mbuf_pool) != 0) {
			LOG(WARNING,
			    "%s: cannot start %s for queue %u; the device keeps %u queue(s)",
			    d->name, d->qvdev[q], q, q);
			rte_eth_dev_stop(id);
			rte_eth_dev_close(id);
			d->kind->close(d->qvdev[q], d->name);
			d->qvdev[q][0] = '\0';
			break;
		}
		d->q_port[q] = id;
		d->q_id[q] = 0;
		d->n_rxq++;
		d->n_txq++;
		snprintf(d->spread, sizeof(d->spread), "the interface's (a device per queue)");
	}
}

static int dev_start(struct uplink_dev *d, const struct port *p, char *msg, size_t len)
{
	int rc = dev_configure(d, p->dp.n_rxq);

	if (rc == 0)
		rc = rte_eth_dev_start(d->port_id);
	if (rc > 0)
		rc = -rc;
	if (rc != 0) {
		snprintf(msg, len, "port \"%s\": cannot start %s on %s: %s; see podwired's log",
			 p->conf.name, d->driver, d->name, strerror(-rc));
		return rc;
	}
	/* Frames for pods carry the pods' MACs, not the device's. A VF needs
	 * trust on for this; without it only its own MAC arrives. */
	if (rte_eth_promiscuous_enable(d->port_id) != 0)
		LOG(WARNING, "%s: cannot enable promiscuous mode", d->name);
	if (d->n_rxq < p->dp.n_rxq && d->kind->open_queue != NULL)
		dev_add_queues(d, p, p->dp.n_rxq);
	if (d->n_rxq < p->dp.n_rxq)
		PORT_LOG(p, WARNING, "%u rx queues asked, but %s on %s has %u; using %u",
			 p->dp.n_rxq, d->driver, d->name, d->n_rxq, d->n_rxq);
	d->tx_locked = d->n_txq < n_workers;
	for (unsigned int w = 0; w < PW_MAX_WORKERS; w++)
		d->txq_of[w] = (uint8_t)(w % d->n_txq);
	return 0;
}

static int dev_stop_cb(void *arg)
{
	struct uplink_dev *d = arg;

	/* The queues' own devices first: the first device's close detaches
	 * the XDP program they share. */
	for (uint16_t q = 1; q < PW_MAX_QUEUES; q++) {
		if (d->qvdev[q][0] == '\0')
			continue;
		rte_eth_dev_stop(d->q_port[q]);
		rte_eth_dev_close(d->q_port[q]);
		d->kind->close(d->qvdev[q], d->name);
		d->qvdev[q][0] = '\0';
	}
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
	/* Its queues where queue_place_port put the first port's: one per
	 * worker, the least loaded first (or where "rxq_pins" said). */
	for (uint16_t q = 0; q < d->n_rxq; q++)
		d->rxq_worker[q] = p->rxq[q].worker;
	TAILQ_INSERT_TAIL(&devs, d, next);
	LOG(INFO, "%s opened with %s (ethdev %u): %u rx queue(s) (spread: %s), %u tx queue(s)%s",
	    d->name, d->driver, d->port_id, d->n_rxq, d->spread, d->n_txq,
	    d->tx_locked ? ", shared by workers under a lock each" : ", one per worker");
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
	u->kernel_drops_base = ethdev_xsks_drops(&d->xsks);
	u->port = p;
	u->vlan = p->net->vlan;
	p->dp.priv = u;
	/* Every port of a device has its queues, queue q on the device's
	 * queue q worker: the demultiplexer hands frames between the ports'
	 * queues q without locks. */
	if (p->dp.n_rxq != d->n_rxq && d->refs > 1)
		PORT_LOG(p, INFO,
			 "has the %u rx queue(s) of %s (asked %u): the ports of a device share its "
			 "queues",
			 d->n_rxq, d->name, p->dp.n_rxq);
	p->dp.n_rxq = (uint8_t)d->n_rxq;
	p->dp.rxq_on = (uint16_t)((1u << d->n_rxq) - 1);
	for (uint16_t q = 0; q < d->n_rxq; q++) {
		p->rxq[q].worker = d->rxq_worker[q];
		/* Where the device's queue is, not where this port asked. */
		if (d->refs > 1)
			p->rxq[q].pinned = false;
	}
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
	for (uint16_t q = 0; q < PW_MAX_QUEUES; q++)
		rte_pktmbuf_free_bulk(u->stash[q].m, u->stash[q].n);
	rte_free(u);
	p->dp.priv = NULL;
	if (--d->refs == 0)
		dev_close(d);
}

uint64_t uplink_kernel_drops(struct port *p)
{
	const struct uplink_port *u = p->dp.priv;

	return ethdev_xsks_drops(&u->dev->xsks) - u->kernel_drops_base;
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
	struct uplink_stash *mine = &u->stash[q];
	struct rte_mbuf *got[PW_BURST];
	uint16_t k = 0, g;

	if (mine->n != 0) {
		k = RTE_MIN(n, mine->n);
		memcpy(pkts, mine->m, k * sizeof(*pkts));
		mine->n -= k;
		memmove(mine->m, mine->m + k, mine->n * sizeof(*pkts));
		return k;
	}
	g = rte_eth_rx_burst(d->q_port[q], d->q_id[q], got, RTE_MIN(n, PW_BURST));
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
		} else if (to->stash[q].n < UPLINK_STASH) {
			/* Queue q of to is this worker's too (uplink_create). */
			to->stash[q].m[to->stash[q].n++] = m;
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
	uint16_t t = d->txq_of[w], sent;

	if (likely(!d->tx_locked)) {
		sent = rte_eth_tx_burst(d->q_port[t], d->q_id[t], pkts, n);
	} else {
		rte_spinlock_lock(&d->txq[t].lock);
		sent = rte_eth_tx_burst(d->q_port[t], d->q_id[t], pkts, n);
		rte_spinlock_unlock(&d->txq[t].lock);
	}
	stats_queue(w, p->idx, t)->tx_packets += sent;
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
	cJSON_AddNumberToObject(o, API_R_TX_QUEUES, d->n_txq);
	cJSON_AddBoolToObject(o, API_R_TX_LOCKED, d->tx_locked);
	cJSON_AddStringToObject(o, API_R_RX_SPREAD, d->spread);
	cJSON_AddNumberToObject(o, API_R_UNKNOWN_VLAN, (double)unknown_vlan);
	cJSON_AddNumberToObject(o, API_R_STASH_FULL, (double)stash_full);
}
