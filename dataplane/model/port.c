/* SPDX-License-Identifier: BSD-3-Clause */
/* The port registry and the lifecycle every kind shares. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_malloc.h>

#include "core/log.h"
#include "core/notify.h"
#include "datapath/forward.h"
#include "datapath/stats.h"
#include "datapath/worker.h"
#include "model/network.h"
#include "model/port.h"
#include "model/port_failed.h"
#include "model/publish.h"
#include "model/queue.h"

PW_LOG_TYPE("port");

struct rte_mempool *pw_mbuf_pool;
struct port_list port_all = TAILQ_HEAD_INITIALIZER(port_all);
static struct port *by_idx[PW_MAX_PORTS];
static unsigned int n_ports;

struct port *port_find(const char *name)
{
	struct port *p;

	TAILQ_FOREACH (p, &port_all, next)
		if (strcmp(p->conf.name, name) == 0)
			return p;
	return NULL;
}

struct port *port_by_idx(uint16_t idx)
{
	return idx < PW_MAX_PORTS ? by_idx[idx] : NULL;
}

unsigned int port_count(void)
{
	return n_ports;
}

struct port *port_by_pci(const char *pci)
{
	struct port *p;

	TAILQ_FOREACH (p, &port_all, next)
		if (p->conf.pci[0] != '\0' && strcmp(p->conf.pci, pci) == 0)
			return p;
	return NULL;
}

static struct port *port_by_socket(const char *path)
{
	struct port *p;

	TAILQ_FOREACH (p, &port_all, next)
		if (p->conf.socket[0] != '\0' && strcmp(p->conf.socket, path) == 0)
			return p;
	return NULL;
}

/* Whether a live process listens on path, from /proc/net/unix: probing by
 * connecting would disturb the owner (a memif server of DPDK 22.11 can
 * crash when a peer hangs up before the hello). */
static bool socket_is_listened(const char *path)
{
	FILE *f = fopen("/proc/net/unix", "r");
	char line[512 + PATH_MAX];
	bool found = false;

	while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL) {
		unsigned long flags;
		char name[PATH_MAX];

		/* Num RefCount Protocol Flags Type St Inode Path */
		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %4095s", &flags, name) == 2)
			found = (flags & 0x10000) != 0 && strcmp(name, path) == 0;
	}
	if (f != NULL)
		fclose(f);
	return found;
}

int port_clear_stale_socket(const struct port *p, char *msg, size_t len)
{
	struct stat st;

	if (stat(p->conf.socket, &st) != 0)
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(msg, len,
			 "port \"%s\": %s exists and is not a socket; remove it or "
			 "pick another path",
			 p->conf.name, p->conf.socket);
		return -EEXIST;
	}
	if (socket_is_listened(p->conf.socket)) {
		snprintf(msg, len,
			 "port \"%s\": socket %s is in use by another process; pick "
			 "another path",
			 p->conf.name, p->conf.socket);
		return -EADDRINUSE;
	}
	unlink(p->conf.socket);
	return 0;
}

static gid_t socket_gid;

void port_set_socket_group(gid_t gid)
{
	socket_gid = gid == (gid_t)-1 ? 0 : gid;
}

int port_check_client_socket(const struct port *p, int fd, char *msg, size_t len)
{
	const char *path = p->conf.socket;
	struct stat st;

	if ((fd >= 0 ? fstat(fd, &st) : lstat(path, &st)) != 0) {
		int e = errno;

		snprintf(msg, len, "cannot connect to %s: %s", path, strerror(e));
		return e == ENOENT ? -ENOENT : -EACCES;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(msg, len,
			 "%s is a symbolic link; podwired connects only to a socket "
			 "the pod made there itself (a link could lead to another port's socket "
			 "and join two networks): remove the link",
			 path);
		return -EACCES;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(msg, len, "%s is not a socket; the pod creates its socket there", path);
		return -EACCES;
	}
	if (st.st_nlink != 1) {
		snprintf(msg, len,
			 "%s has %lu hard links; podwired connects only to a socket "
			 "with one (a link could be another port's socket): remove the link",
			 path, (unsigned long)st.st_nlink);
		return -EACCES;
	}
	if (st.st_uid != 0 && st.st_gid != socket_gid) {
		snprintf(msg, len,
			 "%s belongs to uid %u, gid %u; podwired connects only to a "
			 "socket owned by root or by its socket group (gid %u, --socket-group)",
			 path, (unsigned int)st.st_uid, (unsigned int)st.st_gid,
			 (unsigned int)socket_gid);
		return -EACCES;
	}
	return 0;
}

bool port_fd_is_eventfd(int fd)
{
	char path[64], line[128];
	bool yes = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f != NULL && !yes && fgets(line, sizeof(line), f) != NULL)
		yes = strncmp(line, "eventfd-count:", 14) == 0;
	if (f != NULL)
		fclose(f);
	return yes;
}

static void port_free(struct port *p);

/* Port security and the limits, as workers read them (see dp_port). */
void port_guards_apply(struct port *p, const struct network *net)
{
	const struct port_conf *c = &p->conf;
	uint32_t rate = c->flood_limit_set ? c->flood_limit : net->flood_limit;

	p->dp.port_security = c->port_security;
	p->dp.mac = dp_mac_word(c->mac);
	p->dp.n_allowed = c->n_allowed;
	for (uint8_t i = 0; i < c->n_allowed; i++)
		p->dp.allowed[i] = dp_mac_word(c->allowed[i]);
	p->dp.mac_limit = c->mac_limit;
	p->dp.tx_retries = c->tx_retries;
	/* A frame costs hz/rate cycles of credit; a second's worth of frames
	 * (64 at least) may come at once, as storm control counts per second:
	 * a pod's first burst to a peer not yet learned is not cut short. */
	p->dp.flood_cycles = rate != 0 ? rte_get_tsc_hz() / rate : 0;
	p->dp.flood_burst = p->dp.flood_cycles * RTE_MAX(64u, rate);
}

/* The flood limit in force on p: its own, or its network's. */
uint32_t port_flood_limit(const struct port *p)
{
	return p->conf.flood_limit_set ? p->conf.flood_limit : p->net->flood_limit;
}

void port_flood_limit_note(struct port *p)
{
	struct port_counters c;

	if (p->flood_limit_told)
		return;
	stats_port_sum(p->dp.idx, &c);
	if (c.drops[DROP_FLOOD_LIMIT] == 0)
		return;
	p->flood_limit_told = true;
	PORT_LOG(p, WARNING,
		 "its flood limit (%u extra copies/s) dropped %" PRIu64
		 " flooded frames (broadcast, multicast or unknown unicast sent to more than one "
		 "port); if this traffic is wanted, raise the limit with --flood-limit N on the "
		 "port or its network (0: no limit); counted as drop flood_limit",
		 port_flood_limit(p), c.drops[DROP_FLOOD_LIMIT]);
}

int port_create(const struct port_conf *conf, struct network *net, struct port **out, int *code,
		char *msg, size_t len)
{
	const struct port_ops *ops = port_kind_find(conf->type);
	const struct port_failed *failed;
	struct view *v;
	struct port *p, *other;
	int idx = -1, rc;

	*out = NULL;
	if (ops == NULL) {
		*code = API_ERR_INVALID_PARAMS;
		snprintf(msg, len, "port \"%s\": unknown type \"%s\"", conf->name, conf->type);
		return -EINVAL;
	}
	if (port_find(conf->name) != NULL) {
		*code = API_ERR_EXISTS;
		snprintf(msg, len,
			 "port \"%s\" already exists; delete it first or pick another "
			 "name",
			 conf->name);
		return -EEXIST;
	}
	failed = port_failed_find(conf->name);
	if (failed == NULL && conf->socket[0] != '\0')
		failed = port_failed_by_socket(conf->socket);
	if (failed != NULL) {
		/* Both would be in the state file: one would fail at the next
		 * start, or take the other's place. */
		*code = API_ERR_EXISTS;
		snprintf(
		    msg, len,
		    "port \"%s\": %s already used by port \"%s\", which failed to "
		    "restore (%s); delete it first (podwirectl port del %s) or pick another %s",
		    conf->name,
		    strcmp(failed->conf.name, conf->name) == 0 ? "the name is" : "its socket is",
		    failed->conf.name, failed->reason, failed->conf.name,
		    strcmp(failed->conf.name, conf->name) == 0 ? "name" : "path");
		return -EEXIST;
	}
	other = conf->socket[0] ? port_by_socket(conf->socket) : NULL;
	if (other != NULL) {
		*code = API_ERR_IN_USE;
		snprintf(msg, len,
			 "port \"%s\": socket %s is already used by port \"%s\"; pick "
			 "another path",
			 conf->name, conf->socket, other->conf.name);
		return -EADDRINUSE;
	}
	if (net->mode == NET_XCONNECT && net->n_ports >= 2) {
		*code = API_ERR_IN_USE;
		snprintf(msg, len,
			 "port \"%s\": cross-connect network \"%s\" already has two "
			 "ports; use a bridge network or another cross-connect",
			 conf->name, net->name);
		return -ENOSPC;
	}
	for (int i = 0; i < PW_MAX_PORTS; i++)
		if (by_idx[i] == NULL) {
			idx = i;
			break;
		}
	if (idx < 0) {
		*code = API_ERR_RESOURCE;
		snprintf(msg, len, "port \"%s\": the limit of %d ports is reached", conf->name,
			 PW_MAX_PORTS);
		return -ENOSPC;
	}
	p = rte_zmalloc("pw_port", sizeof(*p), RTE_CACHE_LINE_SIZE);
	if (p == NULL) {
		*code = API_ERR_RESOURCE;
		snprintf(msg, len, "port \"%s\": out of hugepage memory", conf->name);
		return -ENOMEM;
	}
	p->ops = ops;
	p->conf = *conf;
	p->net = net;
	p->dp.ops = &ops->dp;
	p->dp.n_rxq = ops->max_rxq != 0 ? ops->max_rxq : RTE_MAX(conf->queues, (uint8_t)1);
	/* Every queue is enabled unless the kind says otherwise (in
	 * create: a memif or vhost-user peer enables its own). */
	p->dp.rxq_on = (uint16_t)((1u << p->dp.n_rxq) - 1);
	queue_place_port(p);
	p->dp.idx = (uint16_t)idx;
	p->dp.net_idx = net->idx;
	p->dp.max_frame = conf->mtu + RTE_ETHER_HDR_LEN;
	p->dp.tx_shared = n_workers > 1 && !ops->tx_locks_itself;
	rte_spinlock_init(&p->dp.tx_lock);
	port_guards_apply(p, net);
	stats_reset_port(p->dp.idx);
	/* Stale MACs of an earlier port with this index must not survive. */
	mac_table_flush_port(l2_macs, p->dp.idx);

	rc = ops->create(p, msg, len);
	if (rc != 0) {
		*code = rc == -ENOENT || rc == -EACCES ? API_ERR_PATH
			: rc == -EADDRINUSE	       ? API_ERR_IN_USE
						       : API_ERR_RESOURCE;
		rte_free(p);
		return rc;
	}
	by_idx[idx] = p;
	n_ports++;
	TAILQ_INSERT_TAIL(&port_all, p, next);
	TAILQ_INSERT_TAIL(&net->ports, p, net_next);
	net->n_ports++;
	notify_publish(NOTIFY_PORT_ADDING, p);
	v = model_view_build(NULL);
	if (v == NULL) {
		*code = API_ERR_RESOURCE;
		snprintf(msg, len, "port \"%s\": out of memory publishing the datapath",
			 conf->name);
		/* What NOTIFY_PORT_ADDING set up goes too. No view holds p:
		 * it goes without a grace period. */
		notify_publish(NOTIFY_PORT_DELETED, p);
		port_free(p);
		return -ENOMEM;
	}
	view_publish(v);
	PORT_LOG(p, INFO, "%s, created on network \"%s\", %s%u rx queue(s), queue 0 on core %u",
		 conf->type, net->name, ops->max_rxq != 0 ? "up to " : "", p->dp.n_rxq,
		 workers[p->rxq[0].worker]->cpu);
	notify_publish(NOTIFY_PORT_CREATED, p);
	*out = p;
	return 0;
}

/* Unregisters p and tears it down. No view may hold it any more. */
static void port_free(struct port *p)
{
	TAILQ_REMOVE(&port_all, p, next);
	TAILQ_REMOVE(&p->net->ports, p, net_next);
	p->net->n_ports--;
	by_idx[p->dp.idx] = NULL;
	n_ports--;
	mac_table_flush_port(l2_macs, p->dp.idx);
	p->ops->destroy(p);
	PORT_LOG(p, INFO, "destroyed");
	rte_free(p);
}

int port_destroy(struct port *p, char *msg, size_t len)
{
	struct view *v;

	if (p == NULL)
		return 0;
	/* The view without p is built before anything changes: if memory is
	 * short, p stays whole and in the published view, never freed under
	 * a worker that still polls it. */
	v = model_view_build(p);
	if (v == NULL) {
		snprintf(msg, len,
			 "port \"%s\": out of memory building the datapath without it; the "
			 "port is kept, try again",
			 p->conf.name);
		return -ENOMEM;
	}
	/* After this no worker holds p: safe to tear the kind down. */
	view_publish(v);
	p->deleting = true;
	notify_publish(NOTIFY_PORT_DELETED, p);
	port_free(p);
	return 0;
}

void port_destroy_all(void)
{
	struct port *p;

	view_publish_empty();
	while ((p = TAILQ_FIRST(&port_all)) != NULL) {
		notify_publish(NOTIFY_PORT_DELETED, p);
		port_free(p);
	}
	port_failed_delete_all();
}
