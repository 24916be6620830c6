/* SPDX-License-Identifier: BSD-3-Clause */
/* The port registry and the lifecycle every kind shares. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_malloc.h>

#include "daemon/log.h"
#include "model/network.h"
#include "model/port.h"
#include "datapath/stats.h"
#include "datapath/worker.h"

#define MAX_KINDS 8

static const struct port_ops *kinds[MAX_KINDS];
static unsigned int n_kinds;
struct port_list port_all = TAILQ_HEAD_INITIALIZER(port_all);
static struct port *by_idx[PW_MAX_PORTS];
static unsigned int n_ports;

void port_kind_register(const struct port_ops *ops)
{
	if (n_kinds < MAX_KINDS)
		kinds[n_kinds++] = ops;
}

const struct port_ops *port_kind_find(const char *kind)
{
	for (unsigned int i = 0; i < n_kinds; i++)
		if (strcmp(kinds[i]->kind, kind) == 0)
			return kinds[i];
	return NULL;
}

const char *const *port_kind_list(void)
{
	static const char *names[MAX_KINDS + 1];

	for (unsigned int i = 0; i < n_kinds; i++)
		names[i] = kinds[i]->kind;
	names[n_kinds] = NULL;
	return names;
}

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

static struct port *port_by_socket(const char *path)
{
	struct port *p;

	TAILQ_FOREACH (p, &port_all, next)
		if (p->conf.socket[0] != '\0' && strcmp(p->conf.socket, path) == 0)
			return p;
	return NULL;
}

/* A socket file left by a dead podwired is removed; a live one is not. */
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

int port_create(const struct port_conf *conf, struct network *net, struct port **out, int *code,
		char *msg, size_t len)
{
	const struct port_ops *ops = port_kind_find(conf->type);
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
	p->idx = (uint16_t)idx;
	p->net = net;
	p->net_idx = net->idx;
	p->max_frame = conf->mtu + RTE_ETHER_HDR_LEN;
	p->worker = worker_pick();
	p->tx_shared = n_workers > 1;
	rte_spinlock_init(&p->tx_lock);
	stats_reset_port(p->idx);
	/* Stale MACs of an earlier port with this index must not survive. */
	mac_table_flush_port(dp_macs, p->idx);

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
	if (dp_publish() != 0) {
		*code = API_ERR_RESOURCE;
		snprintf(msg, len, "port \"%s\": out of memory publishing the datapath",
			 conf->name);
		port_destroy(p);
		return -ENOMEM;
	}
	PW_LOG(INFO, main, "port \"%s\" (%s) created on network \"%s\", worker %u", conf->name,
	       conf->type, net->name, p->worker);
	*out = p;
	return 0;
}

void port_destroy(struct port *p)
{
	if (p == NULL)
		return;
	TAILQ_REMOVE(&port_all, p, next);
	TAILQ_REMOVE(&p->net->ports, p, net_next);
	p->net->n_ports--;
	by_idx[p->idx] = NULL;
	n_ports--;
	/* After this no worker holds p: safe to tear the kind down. */
	if (dp_publish() != 0)
		dp_wait();
	mac_table_flush_port(dp_macs, p->idx);
	p->ops->destroy(p);
	PW_LOG(INFO, main, "port \"%s\" destroyed", p->conf.name);
	rte_free(p);
}
