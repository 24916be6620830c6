/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-docker: the libnetwork remote network driver (Docker's remote
 * driver protocol, shared/specs/001). dockerd POSTs JSON to the plugin
 * socket; each call is answered from the driver's own records and, for
 * what changes the datapath, by podwired through the control client
 * library. One lock serialises the handlers and the garbage collector.
 */
#ifndef PODWIRE_DOCKER_DRIVER_H
#define PODWIRE_DOCKER_DRIVER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "api.h"
#include "client.h"

#define DK_ID_MAX     64  /* dockerd's ids: 64 hex digits */
#define DK_ID_SHORT   12  /* what names of ports and interfaces carry */
#define DK_ADDR_MAX   64  /* an address in CIDR form */
#define DK_PATH_MAX   256 /* paths of the driver's own files */
#define DK_MEDIA_TYPE "application/vnd.docker.plugins.v1.2+json"

/* Where the driver is and what it talks to (options of podwire-docker). */
struct dk_config {
	char plugin_socket[DK_PATH_MAX];   /* /run/docker/plugins/podwire.sock */
	char podwired_socket[DK_PATH_MAX]; /* /run/podwire/podwired.sock */
	char state_dir[DK_PATH_MAX];	   /* /var/lib/podwire-docker */
	/* DPDK containers' socket directories: on the host, and as the
	 * containers mount it (the same path by default). */
	char socket_dir[DK_PATH_MAX];
	char container_socket_dir[DK_PATH_MAX];
	int podwired_timeout_ms;
	int gc_interval_sec; /* how often the garbage collector runs */
	int gc_grace_sec;    /* an endpoint never joined for this long is stale */
	bool verbose;
};
extern struct dk_config dk_cfg;

enum dk_iftype { DK_IF_KERNEL, DK_IF_VHOST, DK_IF_MEMIF };

#define DK_RATE_MAX 64 /* a podwire.rate value, e.g. "pps=10000,burst=100" */

struct dk_network {
	char id[DK_ID_MAX + 1];
	char pw_network[API_NAME_MAX + 1]; /* the podwired network */
	bool created;			   /* the driver made it (and deletes it) */
	enum dk_iftype iftype;
	int mtu;
	/* podwire.queues: queue pairs of its endpoints' ports unless an
	 * endpoint says otherwise; 1 by default. DPDK iftypes only. */
	unsigned int queues;
	/* podwire.offloads=off: its vhost-user ports offer the containers no
	 * checksum or TSO offload (port.create "offloads": false). Stored
	 * negated so that a zeroed record, and one written before the option,
	 * has them on, as podwired's ports do by default. */
	bool no_offloads;
	char rate[2][DK_RATE_MAX]; /* podwire.rate*: ingress, egress; "" none */
	/* podwire.acl*: the operator's lists the driver attached to the
	 * podwired network (ingress, egress; "" none), detached at delete. */
	char acl[2][API_NAME_MAX + 1];
	char gateway4[DK_ADDR_MAX]; /* as IPAM gave it, without the prefix length */
	char gateway6[DK_ADDR_MAX];
};

struct dk_endpoint {
	char id[DK_ID_MAX + 1];
	char network_id[DK_ID_MAX + 1];
	char port[API_NAME_MAX + 1]; /* the podwired port */
	enum dk_iftype iftype;
	unsigned int queues; /* queue pairs of its port (podwire.queues), 1 by default */
	/* Its port's rate limits (podwire.rate*: its own, else its network's),
	 * for the port's creation; podwired keeps them. */
	char rate[2][DK_RATE_MAX];
	/* podwire.acl* endpoint options: the operator's lists attached to its
	 * port (ingress, egress; "" none). */
	char acl[2][API_NAME_MAX + 1];
	char mac[18];
	char addr4[DK_ADDR_MAX];
	char addr6[DK_ADDR_MAX];
	/* The interface handed to dockerd: the container end of a veth, or
	 * the placeholder (a dummy) of a DPDK container. */
	char iface[16];
	char host_iface[16];   /* kernel: the veth's host end podwired keeps */
	char dir[DK_PATH_MAX]; /* DPDK: the socket directory on the host */
	/* memif: the secret podwired asks of the container (podwire.json);
	 * made with the endpoint, not kept in the driver's state. */
	char secret[API_SECRET_MAX + 1];
	char sandbox[DK_PATH_MAX]; /* set by Join: the container's netns path */
	/* The sandbox file was seen: dockerd makes it after Join (its OCI
	 * hook), so only a sandbox once seen is gone when missing. */
	bool sandbox_seen;
	time_t created; /* made, joined or left: when the grace period starts */
};

/* ---- records (store.c); caller holds dk_lock --------------------------- */

extern pthread_mutex_t dk_lock;

int store_load(char *msg, size_t len);
/* Writes state.json atomically; 0 or -errno with msg. */
int store_save(char *msg, size_t len);
struct dk_network *store_network(const char *id);
struct dk_endpoint *store_endpoint(const char *id);
/* Adds a copy; returns it, or NULL when memory is short. */
struct dk_network *store_network_add(const struct dk_network *n);
struct dk_endpoint *store_endpoint_add(const struct dk_endpoint *e);
void store_network_del(struct dk_network *n);
void store_endpoint_del(struct dk_endpoint *e);
unsigned int store_endpoint_count(void);
struct dk_endpoint *store_endpoint_at(unsigned int i);
unsigned int store_network_count(void);
struct dk_network *store_network_at(unsigned int i);
unsigned int store_endpoints_of(const char *network_id);
const char *dk_iftype_name(enum dk_iftype t);

/* ---- protocol handlers ---------------------------------------------------- */

/* How a call failed: the HTTP status (400 the request is malformed, 404
 * unknown method, 500 the operation failed) and the Err text. */
struct dk_err {
	int status;
	char msg[1024];
};

/* A handler: req is the decoded body (an object, never NULL). Returns the
 * response object, or NULL with err filled. Called under dk_lock. */
typedef cJSON *(*dk_handler)(const cJSON *req, struct dk_err *err);

cJSON *dk_fail(struct dk_err *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Request fields: a required string of at most max bytes. NULL with err
 * (400) naming the field when missing or of another type. */
const char *dk_req_str(const cJSON *req, const char *field, size_t max, struct dk_err *err);
/* A dockerd id (12-64 hex digits) in field. */
const char *dk_req_id(const cJSON *req, const char *field, struct dk_err *err);

cJSON *h_create_network(const cJSON *req, struct dk_err *err);
cJSON *h_delete_network(const cJSON *req, struct dk_err *err);
cJSON *h_allocate_network(const cJSON *req, struct dk_err *err);
cJSON *h_free_network(const cJSON *req, struct dk_err *err);
cJSON *h_create_endpoint(const cJSON *req, struct dk_err *err);
cJSON *h_delete_endpoint(const cJSON *req, struct dk_err *err);
cJSON *h_endpoint_info(const cJSON *req, struct dk_err *err);
cJSON *h_join(const cJSON *req, struct dk_err *err);
cJSON *h_leave(const cJSON *req, struct dk_err *err);
cJSON *h_program_external(const cJSON *req, struct dk_err *err);
cJSON *h_revoke_external(const cJSON *req, struct dk_err *err);

/* The network an endpoint call names: NetworkID must be a known one. */
struct dk_network *dk_need_network(const cJSON *req, struct dk_err *err);

/* ---- podwired (podwired.c); caller holds dk_lock -------------------------- */

/* One call over the driver's connection (made, or remade after podwired
 * restarted, as needed). 0 and *result (may be NULL to discard), or -1
 * with pe filled (code 0: podwired unreachable). */
int pw_call(const char *method, cJSON *params, cJSON **result, struct pw_error *pe);
/* Deletes a port; 0 also when it does not exist. */
int pw_port_delete(const char *name, struct pw_error *pe);

/* ---- endpoints' parts (iface.c) -------------------------------------------- */

/* DPDK container: its socket directory, podwire.json and placeholder. */
int dpdk_endpoint_files(const struct dk_network *n, struct dk_endpoint *e, const cJSON *port,
			struct dk_err *err);
/* Removes what an endpoint left on the host: the placeholder interface
 * (when back in the host's namespace), the socket directory. */
void endpoint_host_cleanup(const struct dk_endpoint *e);
/* The socket file name of an iftype in its endpoint directory. */
const char *dpdk_socket_name(enum dk_iftype t);

/* The option podwire.queues: queue pairs of a DPDK container's port, as
 * a network option (its endpoints' default) or an endpoint's driver
 * option. A decimal 1-API_QUEUES_MAX, else 0 (the caller refuses it). */
#define DK_OPT_QUEUES "podwire.queues"
unsigned int dk_queues_parse(const char *v);

/* Rate limits of a container's port (podwired's policers), as network
 * options (every endpoint's) or an endpoint's driver options (its own):
 * podwire.rate both directions, podwire.rate.ingress what the container
 * sends, podwire.rate.egress what it receives; the value
 * "pps=N[,burst=N]" or "bps=N[,burst=N]", N with an optional k, m or g
 * (validate_rate_spec). dk_rate_parse checks one against port.create's
 * ranges: 0, or -1 with err naming the option (what: "option" or
 * "endpoint option") and the fix. */
#define DK_OPT_RATE	"podwire.rate"
#define DK_OPT_RATE_IN	"podwire.rate.ingress"
#define DK_OPT_RATE_OUT "podwire.rate.egress"
int dk_rate_parse(const char *what, const char *opt, const char *v, struct dk_err *err);
/* Which directions option k sets (bit 0 ingress, bit 1 egress); 0 when k
 * is no rate option. */
unsigned int dk_rate_dirs(const char *k);
/* Adds the port.create fields of the specs rate[] (ingress, egress; ""
 * none) to p. */
void dk_rate_params(cJSON *p, const char rate[2][DK_RATE_MAX]);

/* Access lists (podwired's, made by the operator with podwirectl acl set)
 * attached to the containers' podwired network (network options) or to one
 * container's port (endpoint options): podwire.acl and podwire.acl.ingress
 * what the containers send, podwire.acl.egress what they receive; the
 * value a list's name. */
#define DK_OPT_ACL     "podwire.acl"
#define DK_OPT_ACL_IN  "podwire.acl.ingress"
#define DK_OPT_ACL_OUT "podwire.acl.egress"
/* Which direction option k sets: 0 ingress, 1 egress, -1 not an ACL
 * option. */
int dk_acl_dir(const char *k);
/* Checks a list name given as option opt; 0, or -1 with err. */
int dk_acl_name_check(const char *what, const char *opt, const char *v, struct dk_err *err);
/* Attaches the lists acl[] (ingress, egress; "" none) to a port or a
 * network (exactly one non-NULL); all or nothing: on failure what was
 * attached is detached, and err says which list and why (it does not
 * exist: make it with podwirectl acl set). */
int dk_acl_attach(const char acl[2][API_NAME_MAX + 1], const char *port, const char *network,
		  const char *what, struct dk_err *err);
/* Detaches them; a list no longer attached is fine. */
void dk_acl_detach(const char acl[2][API_NAME_MAX + 1], const char *port, const char *network);

/* Removes the endpoint everywhere (port, interfaces, files, record) and
 * saves; used by DeleteEndpoint and the garbage collector. 0 or -1 with
 * err, the record then kept so that a retry can finish. */
int endpoint_remove(struct dk_endpoint *e, struct dk_err *err);

/* ---- garbage collection (gc.c) ------------------------------------------------ */

/* One pass: endpoints no container uses any more (sandbox gone, veth
 * gone with its namespace, never joined within the grace period). Returns
 * how many were removed. Caller holds dk_lock. */
int gc_run(time_t now);
void *gc_thread(void *arg);

/* Logging: to stderr, one line each. */
void dk_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
