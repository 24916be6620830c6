/* SPDX-License-Identifier: BSD-3-Clause */
/* network.create, network.delete, network.list and mac.list. Each
 * validates everything before it changes anything, and undoes its change
 * when the state cannot be saved. */
#include <stdio.h>
#include <string.h>

#include "api/registry.h"
#include "datapath/forward.h"
#include "datapath/stats.h"
#include "model/network.h"
#include "model/state.h"
#include "validate.h"

struct network *network_need(const char *name, struct api_err *err, const char *field)
{
	struct network *n = network_find(name);

	if (n == NULL)
		api_fail(
		    err, API_ERR_NOT_FOUND, field,
		    "network \"%s\" does not exist; create it with `podwirectl network add %s`",
		    name, name);
	return n;
}

static cJSON *h_network_create(const cJSON *params, struct api_err *err)
{
	struct net_conf conf;
	struct network *n;
	char smsg[512];

	err->code = net_conf_parse(params, &conf, err->msg, sizeof(err->msg), &err->field);
	if (err->code != 0)
		return NULL;
	if (network_create(&conf, &n, &err->code, err->msg, sizeof(err->msg)) != 0) {
		err->field = API_F_NAME;
		return NULL;
	}
	if (state_save(smsg, sizeof(smsg)) != 0) {
		network_delete(n, &err->code, err->msg, sizeof(err->msg));
		return api_fail(err, API_ERR_INTERNAL, NULL, "%s", smsg);
	}
	return network_to_json(n);
}

static cJSON *h_network_delete(const cJSON *params, struct api_err *err)
{
	struct network *n = network_need(api_get_str(params, API_F_NAME, ""), err, API_F_NAME);
	struct net_conf conf;
	char smsg[512];

	if (n == NULL)
		return NULL;
	snprintf(conf.name, sizeof(conf.name), "%s", n->name);
	conf.mode = n->mode;
	conf.vlan = n->vlan;
	conf.mac_limit = n->mac_limit;
	conf.flood_limit = n->flood_limit;
	if (network_delete(n, &err->code, err->msg, sizeof(err->msg)) != 0) {
		err->field = API_F_NAME;
		return NULL;
	}
	if (state_save(smsg, sizeof(smsg)) != 0) {
		network_create(&conf, &n, &err->code, err->msg, sizeof(err->msg));
		return api_fail(err, API_ERR_INTERNAL, NULL, "%s", smsg);
	}
	return cJSON_CreateObject();
}

static cJSON *h_network_list(const cJSON *params, struct api_err *err)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, API_R_NETWORKS);
	struct network *n;

	(void)params, (void)err;
	TAILQ_FOREACH (n, &network_all, next)
		cJSON_AddItemToArray(a, network_to_json(n));
	return o;
}

static void mac_entry_json(uint16_t net, const uint8_t mac[6], uint16_t port, uint32_t seen,
			   void *arg)
{
	const struct port *p = port_by_idx(port);
	cJSON *e = cJSON_CreateObject();
	char text[18];

	(void)net;
	format_mac(mac, text);
	cJSON_AddStringToObject(e, API_F_MAC, text);
	cJSON_AddStringToObject(e, API_F_PORT, p ? p->conf.name : "?");
	cJSON_AddNumberToObject(e, API_R_AGE, l2_clock - seen);
	cJSON_AddItemToArray(arg, e);
}

static cJSON *h_mac_list(const cJSON *params, struct api_err *err)
{
	struct network *n =
	    network_need(api_get_str(params, API_F_NETWORK, ""), err, API_F_NETWORK);
	struct port *p;
	cJSON *o, *ports;

	if (n == NULL)
		return NULL;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, API_F_NETWORK, n->name);
	mac_table_walk(l2_macs, n->idx, mac_entry_json, cJSON_AddArrayToObject(o, API_R_ENTRIES));
	/* How full the table is for this network and each of its ports, and
	 * how often a limit refused to learn. */
	cJSON_AddNumberToObject(o, API_R_MACS_LEARNED, mac_table_net_count(l2_macs, n->idx));
	cJSON_AddNumberToObject(o, API_F_MAC_LIMIT, n->mac_limit);
	ports = cJSON_AddArrayToObject(o, API_R_PORTS);
	TAILQ_FOREACH (p, &n->ports, net_next) {
		cJSON *e = cJSON_CreateObject();
		struct port_counters c;

		stats_port_sum(p->dp.idx, &c);
		cJSON_AddStringToObject(e, API_F_NAME, p->conf.name);
		cJSON_AddNumberToObject(e, API_R_MACS_LEARNED,
					mac_table_port_count(l2_macs, p->dp.idx));
		cJSON_AddNumberToObject(e, API_F_MAC_LIMIT, p->dp.mac_limit);
		cJSON_AddNumberToObject(e, API_R_LEARN_LIMIT, (double)c.learn_limit);
		cJSON_AddItemToArray(ports, e);
	}
	return o;
}

API_HANDLER(NETWORK_CREATE, h_network_create)
API_HANDLER(NETWORK_DELETE, h_network_delete)
API_HANDLER(NETWORK_LIST, h_network_list)
API_HANDLER(MAC_LIST, h_mac_list)
