/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/view.h"
#include "daemon/log.h"
#include "model/network.h"

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

int network_create(const char *name, enum net_mode mode, uint16_t vlan, struct network **out,
		   int *code, char *msg, size_t len)
{
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
	n->mode = mode;
	n->vlan = vlan;
	n->idx = (uint16_t)idx;
	TAILQ_INIT(&n->ports);
	/* An earlier network with this index may have left MACs. */
	mac_table_flush_net(dp_macs, n->idx);
	by_idx[idx] = n;
	n_networks++;
	TAILQ_INSERT_TAIL(&network_all, n, next);
	PW_LOG(INFO, main, "network \"%s\" created (%s, vlan %u)", name, network_mode_name(mode),
	       vlan);
	*out = n;
	return 0;
}

int network_delete(struct network *n, int *code, char *msg, size_t len)
{
	if (n->n_ports != 0) {
		struct port *p = TAILQ_FIRST(&n->ports);

		*code = API_ERR_IN_USE;
		snprintf(msg, len,
			 "network \"%s\" still has %u port(s) (\"%s\"%s); delete them "
			 "first",
			 n->name, n->n_ports, p->conf.name, n->n_ports > 1 ? ", ..." : "");
		return -EBUSY;
	}
	TAILQ_REMOVE(&network_all, n, next);
	by_idx[n->idx] = NULL;
	n_networks--;
	mac_table_flush_net(dp_macs, n->idx);
	PW_LOG(INFO, main, "network \"%s\" deleted", n->name);
	free(n);
	return 0;
}

cJSON *network_to_json(const struct network *n)
{
	cJSON *o = cJSON_CreateObject(), *ports;
	const struct port *p;

	cJSON_AddStringToObject(o, API_F_NAME, n->name);
	cJSON_AddStringToObject(o, API_F_MODE, network_mode_name(n->mode));
	cJSON_AddNumberToObject(o, API_F_VLAN, n->vlan);
	ports = cJSON_AddArrayToObject(o, "ports");
	TAILQ_FOREACH (p, &n->ports, net_next)
		cJSON_AddItemToArray(ports, cJSON_CreateString(p->conf.name));
	return o;
}
