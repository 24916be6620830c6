/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "datapath/forward.h"
#include "model/network.h"
#include "model/port_failed.h"
#include "validate.h"

PW_LOG_TYPE("network");

struct network_list network_all = TAILQ_HEAD_INITIALIZER(network_all);
static struct network *by_idx[PW_MAX_NETWORKS];
static unsigned int n_networks;

struct network *network_find(const char *name)
{
	struct network *n;

	TAILQ_FOREACH (n, &network_all, next)
		if (strcmp(n->name, name) == 0)
			return n;
	return NULL;
}

unsigned int network_count(void)
{
	return n_networks;
}

const char *network_mode_name(enum net_mode m)
{
	return m == NET_XCONNECT ? API_NET_XCONNECT : API_NET_BRIDGE;
}

int net_conf_parse(const cJSON *obj, struct net_conf *c, char *msg, size_t len, const char **field)
{
	const char *name = api_get_str(obj, API_F_NAME, "");
	const char *mode = api_get_str(obj, API_F_MODE, API_NET_BRIDGE);
	long vlan = api_get_int(obj, API_F_VLAN, 0);
	long mac_limit = api_get_int(obj, API_F_MAC_LIMIT, API_NET_MAC_LIMIT);
	long flood = api_get_int(obj, API_F_FLOOD_LIMIT, API_FLOOD_LIMIT);
	char what[96];
	int rc;

	memset(c, 0, sizeof(*c));
	*field = NULL;
	/* Types, unknown fields and ranges, as for a request: the state file
	 * is held to what the API accepts. */
	rc = api_check_params(API_M_NETWORK_CREATE, obj, msg, len, field);
	if (rc != 0)
		return rc;
	*field = API_F_NAME;
	if (validate_name("network", name, msg, len) != 0)
		return API_ERR_INVALID_PARAMS;
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(what, sizeof(what), "network \"%s\"", name);
	*field = API_F_MODE;
	if (strcmp(mode, API_NET_BRIDGE) == 0) {
		c->mode = NET_BRIDGE;
	} else if (strcmp(mode, API_NET_XCONNECT) == 0) {
		c->mode = NET_XCONNECT;
	} else {
		snprintf(msg, len, "%s: mode \"%s\" is not valid; use \"bridge\" or \"xconnect\"",
			 what, mode);
		return API_ERR_INVALID_PARAMS;
	}
	/* In range: api_check_params held them to api.c's table. */
	c->vlan = (uint16_t)vlan;
	c->mac_limit = (uint32_t)mac_limit;
	c->flood_limit = (uint32_t)flood;
	*field = NULL;
	return 0;
}

cJSON *net_conf_to_json(const struct network *n)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, API_F_NAME, n->name);
	cJSON_AddStringToObject(o, API_F_MODE, network_mode_name(n->mode));
	cJSON_AddNumberToObject(o, API_F_VLAN, n->vlan);
	cJSON_AddNumberToObject(o, API_F_MAC_LIMIT, n->mac_limit);
	cJSON_AddNumberToObject(o, API_F_FLOOD_LIMIT, n->flood_limit);
	return o;
}

int network_create(const struct net_conf *c, struct network **out, int *code, char *msg, size_t len)
{
	const char *name = c->name;
	struct network *n;
	int idx = -1;

	if (network_find(name) != NULL) {
		*code = API_ERR_EXISTS;
		snprintf(msg, len,
			 "network \"%s\" already exists; delete it first or pick "
			 "another name",
			 name);
		return -EEXIST;
	}
	for (int i = 0; i < PW_MAX_NETWORKS; i++)
		if (by_idx[i] == NULL) {
			idx = i;
			break;
		}
	n = idx < 0 ? NULL : calloc(1, sizeof(*n));
	if (n == NULL) {
		*code = API_ERR_RESOURCE;
		snprintf(msg, len, "network \"%s\": the limit of %d networks is reached", name,
			 PW_MAX_NETWORKS);
		return -ENOSPC;
	}
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->mode = c->mode;
	n->vlan = c->vlan;
	n->mac_limit = c->mac_limit;
	n->flood_limit = c->flood_limit;
	n->idx = (uint16_t)idx;
	TAILQ_INIT(&n->ports);
	/* An earlier network with this index may have left MACs. */
	mac_table_flush_net(l2_macs, n->idx);
	by_idx[idx] = n;
	n_networks++;
	TAILQ_INSERT_TAIL(&network_all, n, next);
	LOG(INFO, "network \"%s\" created (%s, vlan %u)", name, network_mode_name(n->mode),
	    n->vlan);
	*out = n;
	return 0;
}

int network_delete(struct network *n, int *code, char *msg, size_t len)
{
	const struct port_failed *failed;

	if (n->n_ports != 0) {
		struct port *p = TAILQ_FIRST(&n->ports);

		*code = API_ERR_IN_USE;
		snprintf(msg, len,
			 "network \"%s\" still has %u port(s) (\"%s\"%s); delete them "
			 "first",
			 n->name, n->n_ports, p->conf.name, n->n_ports > 1 ? ", ..." : "");
		return -EBUSY;
	}
	failed = port_failed_on(n->name);
	if (failed != NULL) {
		*code = API_ERR_IN_USE;
		snprintf(msg, len,
			 "network \"%s\" still has port \"%s\", which failed to restore (%s); "
			 "delete it first",
			 n->name, failed->conf.name, failed->reason);
		return -EBUSY;
	}
	TAILQ_REMOVE(&network_all, n, next);
	by_idx[n->idx] = NULL;
	n_networks--;
	mac_table_flush_net(l2_macs, n->idx);
	LOG(INFO, "network \"%s\" deleted", n->name);
	free(n);
	return 0;
}

cJSON *network_to_json(const struct network *n)
{
	cJSON *o = net_conf_to_json(n), *ports;
	const struct port *p;

	ports = cJSON_AddArrayToObject(o, API_R_PORTS);
	TAILQ_FOREACH (p, &n->ports, net_next)
		cJSON_AddItemToArray(ports, cJSON_CreateString(p->conf.name));
	return o;
}
