/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver's records: networks and endpoints dockerd made through it,
 * kept in state.json (written atomically after every change) so that a
 * restarted driver answers for everything made before. dockerd caches the
 * plugin's activation and replays nothing after a driver restart.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "files.h"

#define STATE_FILE    "state.json"
#define STATE_VERSION 1

pthread_mutex_t dk_lock = PTHREAD_MUTEX_INITIALIZER;

static struct dk_network **nets;
static unsigned int n_nets, cap_nets;
static struct dk_endpoint **eps;
static unsigned int n_eps, cap_eps;

static const char *const iftype_names[] = {
    [DK_IF_KERNEL] = "kernel", [DK_IF_VHOST] = API_PORT_VHOST, [DK_IF_MEMIF] = API_PORT_MEMIF};

const char *dk_iftype_name(enum dk_iftype t)
{
	return iftype_names[t];
}

static int iftype_parse(const char *s, enum dk_iftype *t)
{
	for (unsigned int i = 0; i < sizeof(iftype_names) / sizeof(iftype_names[0]); i++)
		if (strcmp(s, iftype_names[i]) == 0) {
			*t = (enum dk_iftype)i;
			return 0;
		}
	return -EINVAL;
}

/* Appends p to a growing array of pointers. */
static int push(void ***arr, unsigned int *n, unsigned int *cap, void *p)
{
	if (*n == *cap) {
		unsigned int c = *cap ? *cap * 2 : 16;
		void **a = realloc(*arr, c * sizeof(*a));

		if (a == NULL)
			return -ENOMEM;
		*arr = a;
		*cap = c;
	}
	(*arr)[(*n)++] = p;
	return 0;
}

static void drop(void **arr, unsigned int *n, const void *p)
{
	for (unsigned int i = 0; i < *n; i++)
		if (arr[i] == p) {
			arr[i] = arr[--*n];
			return;
		}
}

struct dk_network *store_network(const char *id)
{
	for (unsigned int i = 0; i < n_nets; i++)
		if (strcmp(nets[i]->id, id) == 0)
			return nets[i];
	return NULL;
}

struct dk_endpoint *store_endpoint(const char *id)
{
	for (unsigned int i = 0; i < n_eps; i++)
		if (strcmp(eps[i]->id, id) == 0)
			return eps[i];
	return NULL;
}

struct dk_network *store_network_add(const struct dk_network *n)
{
	struct dk_network *c = malloc(sizeof(*c));

	if (c == NULL)
		return NULL;
	*c = *n;
	if (push((void ***)&nets, &n_nets, &cap_nets, c) != 0) {
		free(c);
		return NULL;
	}
	return c;
}

struct dk_endpoint *store_endpoint_add(const struct dk_endpoint *e)
{
	struct dk_endpoint *c = malloc(sizeof(*c));

	if (c == NULL)
		return NULL;
	*c = *e;
	if (push((void ***)&eps, &n_eps, &cap_eps, c) != 0) {
		free(c);
		return NULL;
	}
	return c;
}

void store_network_del(struct dk_network *n)
{
	drop((void **)nets, &n_nets, n);
	free(n);
}

void store_endpoint_del(struct dk_endpoint *e)
{
	drop((void **)eps, &n_eps, e);
	free(e);
}

unsigned int store_endpoint_count(void)
{
	return n_eps;
}

struct dk_endpoint *store_endpoint_at(unsigned int i)
{
	return i < n_eps ? eps[i] : NULL;
}

unsigned int store_network_count(void)
{
	return n_nets;
}

struct dk_network *store_network_at(unsigned int i)
{
	return i < n_nets ? nets[i] : NULL;
}

unsigned int store_endpoints_of(const char *network_id)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n_eps; i++)
		k += strcmp(eps[i]->network_id, network_id) == 0;
	return k;
}

static cJSON *network_json(const struct dk_network *n)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "id", n->id);
	cJSON_AddStringToObject(o, "podwired_network", n->pw_network);
	cJSON_AddBoolToObject(o, "created", n->created);
	cJSON_AddStringToObject(o, "iftype", dk_iftype_name(n->iftype));
	cJSON_AddNumberToObject(o, "mtu", n->mtu);
	cJSON_AddNumberToObject(o, "queues", n->queues);
	cJSON_AddBoolToObject(o, "offloads", !n->no_offloads);
	cJSON_AddStringToObject(o, "rate_in", n->rate[0]);
	cJSON_AddStringToObject(o, "rate_out", n->rate[1]);
	cJSON_AddStringToObject(o, "acl_in", n->acl[0]);
	cJSON_AddStringToObject(o, "acl_out", n->acl[1]);
	cJSON_AddStringToObject(o, "gateway4", n->gateway4);
	cJSON_AddStringToObject(o, "gateway6", n->gateway6);
	return o;
}

static cJSON *endpoint_json(const struct dk_endpoint *e)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "id", e->id);
	cJSON_AddStringToObject(o, "network_id", e->network_id);
	cJSON_AddStringToObject(o, "port", e->port);
	cJSON_AddStringToObject(o, "iftype", dk_iftype_name(e->iftype));
	cJSON_AddNumberToObject(o, "queues", e->queues);
	cJSON_AddStringToObject(o, "acl_in", e->acl[0]);
	cJSON_AddStringToObject(o, "acl_out", e->acl[1]);
	cJSON_AddStringToObject(o, "mac", e->mac);
	cJSON_AddStringToObject(o, "address", e->addr4);
	cJSON_AddStringToObject(o, "address6", e->addr6);
	cJSON_AddStringToObject(o, "iface", e->iface);
	cJSON_AddStringToObject(o, "host_iface", e->host_iface);
	cJSON_AddStringToObject(o, "dir", e->dir);
	cJSON_AddStringToObject(o, "sandbox", e->sandbox);
	cJSON_AddBoolToObject(o, "sandbox_seen", e->sandbox_seen);
	cJSON_AddNumberToObject(o, "created", (double)e->created);
	return o;
}

int store_save(char *msg, size_t len)
{
	cJSON *doc = cJSON_CreateObject(), *a;
	char path[DK_PATH_MAX + 16];
	int rc;

	cJSON_AddNumberToObject(doc, "version", STATE_VERSION);
	a = cJSON_AddArrayToObject(doc, "networks");
	for (unsigned int i = 0; i < n_nets; i++)
		cJSON_AddItemToArray(a, network_json(nets[i]));
	a = cJSON_AddArrayToObject(doc, "endpoints");
	for (unsigned int i = 0; i < n_eps; i++)
		cJSON_AddItemToArray(a, endpoint_json(eps[i]));
	snprintf(path, sizeof(path), "%s/" STATE_FILE, dk_cfg.state_dir);
	rc = json_file_write(path, doc, 0600, (gid_t)-1, msg, len);
	cJSON_Delete(doc);
	return rc;
}

/* Copies a string member into buf; -1 when missing or too long. */
static int get(const cJSON *o, const char *name, char *buf, size_t len)
{
	const char *s = api_get_str(o, name, NULL);

	if (s == NULL || strlen(s) >= len)
		return -1;
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

static int network_parse(const cJSON *o, struct dk_network *n)
{
	char iftype[16];

	memset(n, 0, sizeof(*n));
	if (get(o, "id", n->id, sizeof(n->id)) ||
	    get(o, "podwired_network", n->pw_network, sizeof(n->pw_network)) ||
	    get(o, "iftype", iftype, sizeof(iftype)) || iftype_parse(iftype, &n->iftype) ||
	    get(o, "gateway4", n->gateway4, sizeof(n->gateway4)) ||
	    get(o, "gateway6", n->gateway6, sizeof(n->gateway6)))
		return -1;
	n->created = api_get_bool(o, "created", false);
	n->mtu = (int)api_get_int(o, "mtu", API_MTU_DEFAULT);
	/* Records from before podwire.queues: one queue pair. */
	n->queues = (unsigned int)api_get_int(o, "queues", 1);
	/* Records from before podwire.offloads: offloads on. */
	n->no_offloads = !api_get_bool(o, "offloads", true);
	/* Records from before podwire.rate: no limits. */
	snprintf(n->rate[0], sizeof(n->rate[0]), "%s", api_get_str(o, "rate_in", ""));
	snprintf(n->rate[1], sizeof(n->rate[1]), "%s", api_get_str(o, "rate_out", ""));
	/* Records from before podwire.acl: no lists. */
	snprintf(n->acl[0], sizeof(n->acl[0]), "%s", api_get_str(o, "acl_in", ""));
	snprintf(n->acl[1], sizeof(n->acl[1]), "%s", api_get_str(o, "acl_out", ""));
	return 0;
}

static int endpoint_parse(const cJSON *o, struct dk_endpoint *e)
{
	char iftype[16];

	memset(e, 0, sizeof(*e));
	if (get(o, "id", e->id, sizeof(e->id)) ||
	    get(o, "network_id", e->network_id, sizeof(e->network_id)) ||
	    get(o, "port", e->port, sizeof(e->port)) || get(o, "iftype", iftype, sizeof(iftype)) ||
	    iftype_parse(iftype, &e->iftype) || get(o, "mac", e->mac, sizeof(e->mac)) ||
	    get(o, "address", e->addr4, sizeof(e->addr4)) ||
	    get(o, "address6", e->addr6, sizeof(e->addr6)) ||
	    get(o, "iface", e->iface, sizeof(e->iface)) ||
	    get(o, "host_iface", e->host_iface, sizeof(e->host_iface)) ||
	    get(o, "dir", e->dir, sizeof(e->dir)) ||
	    get(o, "sandbox", e->sandbox, sizeof(e->sandbox)))
		return -1;
	e->created = (time_t)api_get_int(o, "created", 0);
	e->sandbox_seen = api_get_bool(o, "sandbox_seen", false);
	e->queues = (unsigned int)api_get_int(o, "queues", 1);
	snprintf(e->acl[0], sizeof(e->acl[0]), "%s", api_get_str(o, "acl_in", ""));
	snprintf(e->acl[1], sizeof(e->acl[1]), "%s", api_get_str(o, "acl_out", ""));
	return 0;
}

int store_load(char *msg, size_t len)
{
	char path[DK_PATH_MAX + 16], why[512];
	const cJSON *item;
	cJSON *doc;
	int rc;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, dk_cfg.state_dir);
	rc = json_file_read(path, 64 << 20, &doc, why, sizeof(why));
	if (rc == -ENOENT)
		return 0;
	if (rc != 0) {
		snprintf(msg, len, "%s; move the file away to start with no networks", why);
		return rc;
	}
	if (api_get_int(doc, "version", 0) != STATE_VERSION) {
		snprintf(msg, len, "%s: version %ld, this driver reads %d; move the file away",
			 path, api_get_int(doc, "version", 0), STATE_VERSION);
		cJSON_Delete(doc);
		return -EINVAL;
	}
	cJSON_ArrayForEach (item, cJSON_GetObjectItemCaseSensitive(doc, "networks")) {
		struct dk_network n;

		if (network_parse(item, &n) != 0 || store_network_add(&n) == NULL) {
			snprintf(msg, len, "%s: a network record is damaged; move the file away",
				 path);
			cJSON_Delete(doc);
			return -EINVAL;
		}
	}
	cJSON_ArrayForEach (item, cJSON_GetObjectItemCaseSensitive(doc, "endpoints")) {
		struct dk_endpoint e;

		if (endpoint_parse(item, &e) != 0 || store_endpoint_add(&e) == NULL) {
			snprintf(msg, len, "%s: an endpoint record is damaged; move the file away",
				 path);
			cJSON_Delete(doc);
			return -EINVAL;
		}
	}
	cJSON_Delete(doc);
	return 0;
}
