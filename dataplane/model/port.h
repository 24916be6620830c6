/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports and port kinds. A kind is one file in ports/ with a struct port_ops
 * registered from a constructor (PORT_KIND); adding a kind touches nothing
 * else. The control thread owns creation and destruction; workers reach a
 * port only through the view (datapath/view.h), as the struct dp_port that
 * starts every struct port.
 */
#ifndef PODWIRE_MODEL_PORT_H
#define PODWIRE_MODEL_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include <cjson/cJSON.h>
#include <rte_common.h>

#include "datapath/view.h"
#include "model/port_conf.h"

struct network;
struct port;

/* Load history kept per rx queue: the balancer's interval in chunks, so
 * the load "over the last interval" slides (as OVS's pmd-rxq-show). */
#define PORT_RXQ_CHUNKS 6

/* One rx queue of a port, as the control thread places it. */
struct port_rxq {
	uint8_t worker; /* index of the worker polling it */
	bool pinned;	/* `queue pin`: the balancer leaves it there */
	bool moving;	/* between workers: polled by none (model/queue.c: move_queues) */
	uint64_t seen_cycles, seen_packets; /* its counters when the chunk began */
	uint64_t cycles[PORT_RXQ_CHUNKS];   /* busy cycles of each chunk */
	uint64_t packets[PORT_RXQ_CHUNKS];
};

/* A port kind. Everything about the kind (its name, what it takes, how it
 * works) lives in its file. */
struct port_ops {
	const char *kind;    /* the API type name */
	const char *summary; /* one line for `podwirectl info` */
	unsigned int fields; /* enum port_field: what port.create takes */
	bool uplink;	     /* carries networks off the node */
	/* The kind serialises its own tx (uplinks: one lock per device;
	 * memif: a lock per ring only when workers outnumber rings;
	 * vhost-user: librte_vhost's lock per virtqueue), so the datapath
	 * takes no per-port lock. */
	bool tx_locks_itself;
	/* Rx queues every port of the kind has (memif: the rings a peer may
	 * ask for); 0: the port's "queues". */
	uint8_t max_rxq;
	const void *data; /* the kind's own description (uplinks: uplink.h) */
	/* Makes the kind's private state; 0 or -errno with msg filled. */
	int (*create)(struct port *p, char *msg, size_t len);
	/* Undoes create. The port is out of every view (no worker uses it). */
	void (*destroy)(struct port *p);
	/* Control thread, every housekeeping tick (optional): link polling. */
	void (*poll_link)(struct port *p);
	/* Frames the kernel dropped on their way to podwired because the
	 * port's socket or ring was full (PACKET_STATISTICS, XDP ring stats),
	 * since the port was made (optional; control thread). */
	uint64_t (*kernel_drops)(struct port *p);
	/* Adds kind-specific fields to a port's JSON (optional). */
	void (*to_json)(const struct port *p, cJSON *obj);
	/* What workers call (datapath/view.h). */
	struct dp_port_ops dp;
};

struct port {
	struct dp_port dp; /* first: what workers read, every burst */
	const struct port_ops *ops;
	struct port_conf conf;
	struct network *net;
	/* Its rx queues as placed on workers (model/queue.h). */
	struct port_rxq rxq[PW_MAX_QUEUES];
	/* The kind placed the queues itself (an uplink's ports all go to
	 * its device's worker): neither pins nor the balancer move them. */
	bool rxq_fixed;
	uint16_t rxq_published; /* dp.rxq_on as the published view polls it */
	/* Set by port_destroy: the port is deleted for good, not stopped
	 * with podwired, so a kind also removes what outlives podwired (a
	 * veth pair a container uses). */
	bool deleting;
	/* Its flood limit dropped frames and the log said so (once). */
	bool flood_limit_told;
	TAILQ_ENTRY(port) next;
	TAILQ_ENTRY(port) net_next;
} __rte_cache_aligned;

TAILQ_HEAD(port_list, port);

/* The model's port behind a view's dp_port. */
static inline struct port *port_of(struct dp_port *dp)
{
	return (struct port *)dp;
}

/* ---- the kind registry (port_kinds.c) --------------------------------- */

#define PORT_KINDS_MAX 16

/* Registers a kind; called from constructors, before main. */
void port_kind_register(const struct port_ops *ops);
#define PORT_KIND(ops)                                                                             \
	RTE_INIT(port_kind_register_##ops)                                                         \
	{                                                                                          \
		port_kind_register(&ops);                                                          \
	}
/* 0, or -EINVAL when a kind was dropped (more than PORT_KINDS_MAX) or
 * registered twice, with msg saying which: a start-up error. */
int port_kinds_check(char *msg, size_t len);
const struct port_ops *port_kind_find(const char *kind);
unsigned int port_kind_count(void);
const struct port_ops *port_kind_at(unsigned int i);
/* "vhost-user, memif, null, ...": every kind, for messages. */
void port_kind_names(char *buf, size_t len);
/* The kinds that take field (enum port_field), comma separated. */
const char *port_kind_names_with(unsigned int field);

/* ---- the port registry (port.c), control thread ------------------------ */

extern struct port_list port_all;
struct port *port_find(const char *name);
struct port *port_by_idx(uint16_t idx);
unsigned int port_count(void);
/* The port using PCI address pci (a pci uplink), or NULL. */
struct port *port_by_pci(const char *pci);

/*
 * Creates a port from conf on net: validates, makes the kind's state,
 * registers it, publishes a new view, then NOTIFY_PORT_CREATED (core/
 * notify.h). On failure nothing is left behind and *code/msg say why (API
 * error code).
 */
int port_create(const struct port_conf *conf, struct network *net, struct port **out, int *code,
		char *msg, size_t len);
/*
 * Removes the port from the datapath, waits for workers, publishes
 * NOTIFY_PORT_DELETED (the port still whole), then frees it. -ENOMEM when the view without it
 * cannot be built: the port then stays exactly as it was (workers may still poll it), and msg says
 * so.
 */
int port_destroy(struct port *p, char *msg, size_t len);
/* Sets p's datapath guards (port security, limits, retries) from its
 * configuration and its network's. */
void port_guards_apply(struct port *p, const struct network *net);
/* The flood limit in force on p (frames/s, 0: none): its own or its
 * network's. */
uint32_t port_flood_limit(const struct port *p);
/* Control thread, now and then: the first time p's flood limit drops
 * frames, one log line says so and names the option. */
void port_flood_limit_note(struct port *p);
/* At shutdown: publishes the empty view, then frees every port (each
 * with NOTIFY_PORT_DELETED). */
void port_destroy_all(void);

/* Server role: removes a socket file no process listens on (left by a
 * podwired that died); fails when it is not a socket or is live. */
int port_clear_stale_socket(const struct port *p, char *msg, size_t len);

/* Client role: whether the file at p's socket path is one podwired may
 * connect to: a socket (not a symbolic link: a pod could point one at
 * another port's socket and join two networks), with one link (not a
 * hard link to another's), owned by root or by the socket group. fd: an
 * O_PATH|O_NOFOLLOW descriptor of the path (connecting through it makes
 * the file checked the file connected to), or -1 to lstat the path.
 * 0; -ENOENT when nothing is there yet; -EACCES; msg says why, without
 * the port's name. */
int port_check_client_socket(const struct port *p, int fd, char *msg, size_t len);
/* Whether fd, handed over by a pod (memif's ring fd, a vhost-user vring
 * kick, call or error fd), is an eventfd (its fdinfo says so). */
bool port_fd_is_eventfd(int fd);
/* The group a pod's socket may belong to (--socket-group; -1: root's). */
void port_set_socket_group(gid_t gid);

/* Shared mbuf pool (made at start-up). */
extern struct rte_mempool *pw_mbuf_pool;

#endif
