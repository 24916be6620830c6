/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: one file per kind (vhost-user, memif, null) behind struct
 * port_ops, registered from a constructor with port_kind_register().
 * The control thread owns creation and destruction; workers call only
 * rx_burst and tx_burst, and only on ports of the published view (dp.h).
 */
#ifndef PODWIRE_PORT_H
#define PODWIRE_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <cjson/cJSON.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "api.h"

#define PW_MAX_PORTS 1024
#define PW_BURST     32

struct network;

enum port_role {
	PORT_ROLE_SERVER, /* podwired creates the socket */
	PORT_ROLE_CLIENT, /* podwired connects to the pod's socket */
};

/* What a port is made from: the API request, the state file. Plain data. */
struct port_conf {
	char name[API_NAME_MAX + 1];
	char network[API_NAME_MAX + 1];
	char type[16];
	char socket[API_SOCKET_PATH_MAX + 1];
	char secret[API_SECRET_MAX + 1];
	char iface[16]; /* af_xdp, af_packet: kernel interface (IFNAMSIZ) */
	char pci[16];	/* pci: domain:bus:device.function */
	enum port_role role;
	uint8_t mac[6];
	uint16_t mtu;
};

struct port;

struct port_ops {
	const char *kind; /* API type name */
	bool needs_socket;
	/* Makes the kind's private state; 0 or -errno with msg filled. */
	int (*create)(struct port *p, char *msg, size_t len);
	/* Undoes create. The port is out of every view (no worker uses it). */
	void (*destroy)(struct port *p);
	/* Datapath, per burst, from the port's one polling worker. */
	uint16_t (*rx_burst)(struct port *p, struct rte_mbuf **pkts, uint16_t n);
	/* Sends up to n; takes ownership of those sent; returns how many. */
	uint16_t (*tx_burst)(struct port *p, struct rte_mbuf **pkts, uint16_t n);
	/* Control thread, every housekeeping tick (optional): link polling. */
	void (*poll_link)(struct port *p);
	/* Adds kind-specific fields to a port's JSON (optional). */
	void (*to_json)(const struct port *p, cJSON *obj);
};

struct port {
	/* Datapath fields first, read by workers every burst. */
	const struct port_ops *ops;
	void *priv;
	volatile bool link_up;
	bool tx_shared; /* several workers may send: take tx_lock per burst */
	uint16_t idx;
	uint16_t net_idx;
	uint32_t max_frame; /* MTU + Ethernet header (+ VLAN tag) */
	rte_spinlock_t tx_lock;

	/* Control-plane fields. */
	struct port_conf conf;
	struct network *net;
	unsigned int worker; /* index into the worker array */
	TAILQ_ENTRY(port) next;
	TAILQ_ENTRY(port) net_next;
} __rte_cache_aligned;

TAILQ_HEAD(port_list, port);

void port_kind_register(const struct port_ops *ops);
const struct port_ops *port_kind_find(const char *kind);
/* "vhost-user, memif, null": the registered kinds, for error messages. */
/* The registered kind names, NULL-terminated. */
const char *const *port_kind_list(void);

/* The registry (control thread). */
extern struct port_list port_all;
struct port *port_find(const char *name);
struct port *port_by_idx(uint16_t idx);
unsigned int port_count(void);

/*
 * Creates a port from conf on net: validates, makes the kind's state,
 * registers it and publishes a new view. On failure nothing is left behind
 * and *code/msg say why (API error code).
 */
int port_create(const struct port_conf *conf, struct network *net, struct port **out, int *code,
		char *msg, size_t len);
/* Removes the port from the datapath, waits for workers, then frees it. */
void port_destroy(struct port *p);

/* Server role: removes a socket file no process listens on (left by a
 * podwired that died); fails when it is not a socket or is live. */
int port_clear_stale_socket(const struct port *p, char *msg, size_t len);

/* Shared mbuf pool (made at start-up). */
extern struct rte_mempool *pw_mbuf_pool;

#endif
