/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vhost-user ports on librte_vhost directly. Server role: podwired creates
 * the socket and the pod's virtio-user connects. Client role: podwired
 * connects to the pod's socket and librte_vhost reconnects when the pod
 * restarts. The link follows the device: up on new_device, down on
 * destroy_device or when a vring is disabled.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_vhost.h>

#include "daemon/log.h"
#include "model/port.h"

PW_LOG_TYPE("vhost");

#define VHOST_RXQ 0 /* the guest's receive ring: we enqueue into it */
#define VHOST_TXQ 1 /* the guest's transmit ring: we dequeue from it */

struct vhost_priv {
	volatile int vid; /* -1 while no device */
	struct port *port;
	bool registered;
};

/* Callbacks run on librte_vhost's thread; they find ports by socket path.
 * The map is the only state they share with the control thread. */
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vhost_priv *map[PW_MAX_PORTS];

static struct vhost_priv *map_find_vid(int vid)
{
	char path[PATH_MAX];

	if (rte_vhost_get_ifname(vid, path, sizeof(path)) != 0)
		return NULL;
	for (unsigned int i = 0; i < PW_MAX_PORTS; i++)
		if (map[i] != NULL && strcmp(map[i]->port->conf.socket, path) == 0)
			return map[i];
	return NULL;
}

static int new_device(int vid)
{
	struct vhost_priv *v;

	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL) {
		/* We poll: the guest need not kick us. */
		rte_vhost_enable_guest_notification(vid, VHOST_RXQ, 0);
		rte_vhost_enable_guest_notification(vid, VHOST_TXQ, 0);
		v->vid = vid;
		__atomic_store_n(&v->port->dp.link_up, true, __ATOMIC_RELEASE);
		PORT_LOG(v->port, INFO, "peer connected (vid %d), link up", vid);
	}
	pthread_mutex_unlock(&map_lock);
	return v != NULL ? 0 : -1;
}

static void destroy_device(int vid)
{
	struct vhost_priv *v;

	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL) {
		__atomic_store_n(&v->port->dp.link_up, false, __ATOMIC_RELEASE);
		v->vid = -1;
		PORT_LOG(v->port, INFO, "peer gone, link down");
	}
	pthread_mutex_unlock(&map_lock);
	/* librte_vhost frees the rings when we return; the vhost contract is
	 * that no burst on this vid is in flight by then. It does not hold the
	 * queue locks here (see its GET_VRING_BASE note), so waiting is safe. */
	if (v != NULL)
		view_wait();
}

static int vring_state_changed(int vid, uint16_t queue, int enable)
{
	struct vhost_priv *v;

	pthread_mutex_lock(&map_lock);
	v = map_find_vid(vid);
	if (v != NULL && v->vid == vid && queue <= VHOST_TXQ)
		__atomic_store_n(&v->port->dp.link_up, enable != 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&map_lock);
	return 0;
}

static const struct rte_vhost_device_ops vhost_ops = {
    .new_device = new_device,
    .destroy_device = destroy_device,
    .vring_state_changed = vring_state_changed,
};

static int vhost_create(struct port *p, char *msg, size_t len)
{
	const uint64_t no_offloads =
	    1ULL << VIRTIO_NET_F_HOST_TSO4 | 1ULL << VIRTIO_NET_F_HOST_TSO6 |
	    1ULL << VIRTIO_NET_F_CSUM | 1ULL << VIRTIO_NET_F_GUEST_CSUM |
	    1ULL << VIRTIO_NET_F_GUEST_TSO4 | 1ULL << VIRTIO_NET_F_GUEST_TSO6;
	uint64_t flags = 0;
	struct vhost_priv *v;
	int rc;

	if (p->conf.role == PORT_ROLE_SERVER) {
		rc = port_clear_stale_socket(p, msg, len);
		if (rc != 0)
			return rc;
	} else {
		char why[320];

		/* librte_vhost connects (and reconnects) by path itself: what is
		 * there is checked now, and only now. */
		rc = port_check_client_socket(p, -1, why, sizeof(why));
		if (rc != 0 && rc != -ENOENT) {
			snprintf(msg, len, "port \"%s\": %s", p->conf.name, why);
			return rc;
		}
		flags |= RTE_VHOST_USER_CLIENT;
	}
	v = calloc(1, sizeof(*v));
	if (v == NULL) {
		snprintf(msg, len, "port \"%s\": out of memory", p->conf.name);
		return -ENOMEM;
	}
	v->vid = -1;
	v->port = p;
	p->dp.priv = v;
	pthread_mutex_lock(&map_lock);
	map[p->dp.idx] = v;
	pthread_mutex_unlock(&map_lock);

	if (rte_vhost_driver_register(p->conf.socket, flags) != 0) {
		snprintf(msg, len,
			 "port \"%s\": cannot register vhost-user socket %s; check "
			 "the directory and that no other port uses it",
			 p->conf.name, p->conf.socket);
		goto fail;
	}
	v->registered = true;
	if (rte_vhost_driver_disable_features(p->conf.socket, no_offloads) != 0 ||
	    rte_vhost_driver_callback_register(p->conf.socket, &vhost_ops) != 0 ||
	    rte_vhost_driver_start(p->conf.socket) != 0) {
		snprintf(msg, len,
			 "port \"%s\": cannot start vhost-user on %s (%s); check that "
			 "the directory is writable",
			 p->conf.name, p->conf.socket,
			 p->conf.role == PORT_ROLE_SERVER ? "bind failed" : "setup failed");
		goto fail;
	}
	return 0;
fail:
	p->ops->destroy(p);
	return -EIO;
}

static void vhost_destroy(struct port *p)
{
	struct vhost_priv *v = p->dp.priv;

	if (v == NULL)
		return;
	/* Unregistering disconnects the peer (destroy_device runs here) and,
	 * in server role, removes the socket file. */
	if (v->registered && rte_vhost_driver_unregister(p->conf.socket) != 0)
		PORT_LOG(p, WARNING, "unregistering %s failed", p->conf.socket);
	pthread_mutex_lock(&map_lock);
	map[p->dp.idx] = NULL;
	pthread_mutex_unlock(&map_lock);
	if (p->conf.role == PORT_ROLE_SERVER)
		unlink(p->conf.socket);
	free(v);
	p->dp.priv = NULL;
}

static uint16_t vhost_rx(struct dp_port *p, struct rte_mbuf **pkts, uint16_t n,
			 struct port_counters *ctr)
{
	const struct vhost_priv *v = p->priv;
	int vid = v->vid;

	RTE_SET_USED(ctr);
	if (unlikely(vid < 0))
		return 0;
	return rte_vhost_dequeue_burst(vid, VHOST_TXQ, pw_mbuf_pool, pkts, n);
}

static uint16_t vhost_tx(struct dp_port *p, struct rte_mbuf **pkts, uint16_t n)
{
	const struct vhost_priv *v = p->priv;
	int vid = v->vid;
	uint16_t sent;

	if (unlikely(vid < 0))
		return 0;
	sent = rte_vhost_enqueue_burst(vid, VHOST_RXQ, pkts, n);
	/* The guest has its copy. */
	rte_pktmbuf_free_bulk(pkts, sent);
	return sent;
}

static const struct port_ops vhost_port_ops = {
    .kind = API_PORT_VHOST,
    .summary = "pod interface over vhost-user (librte_vhost); the pod runs virtio-user",
    .fields = PORT_FIELD_SOCKET,
    .create = vhost_create,
    .destroy = vhost_destroy,
    .dp = {.rx_burst = vhost_rx, .tx_burst = vhost_tx},
};

PORT_KIND(vhost_port_ops)
