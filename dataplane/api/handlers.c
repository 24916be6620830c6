/* SPDX-License-Identifier: BSD-3-Clause */
/* The API methods. Each validates everything before it changes anything,
 * and undoes its change when the state cannot be saved. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "api/server.h"
#include "model/network.h"
#include "daemon/config.h"
#include "model/port_conf.h"
#include "datapath/stats.h"
#include "validate.h"
#include "datapath/worker.h"

#define FAIL(c, f, ...)                                                                            \
	do {                                                                                       \
		*code = (c);                                                                       \
		*field = (f);                                                                      \
		snprintf(msg, len, __VA_ARGS__);                                                   \
		return NULL;                                                                       \
	} while (0)

/* The message is already in msg. */
#define FAIL_KEEP(c, f)                                                                            \
	do {                                                                                       \
		*code = (c);                                                                       \
		*field = (f);                                                                      \
		return NULL;                                                                       \
	} while (0)

static struct network *need_network(const char *name, int *code, char *msg, size_t len,
				    const char **field, const char *fname)
{
	struct network *n = network_find(name);

	if (n == NULL) {
		*code = API_ERR_NOT_FOUND;
		*field = fname;
		snprintf(msg, len,
			 "network \"%s\" does not exist; create it with `podwirectl "
			 "network add %s`",
			 name, name);
	}
	return n;
}

static struct port *need_port(const char *name, int *code, char *msg, size_t len,
			      const char **field, const char *fname)
{
	struct port *p = port_find(name);

	if (p == NULL) {
		*code = API_ERR_NOT_FOUND;
		*field = fname;
		snprintf(msg, len,
			 "port \"%s\" does not exist; `podwirectl port list` shows the "
			 "ports",
			 name);
	}
	return p;
}

static cJSON *port_json(const struct port *p, bool with_stats)
{
	cJSON *o = port_conf_to_json(&p->conf, false);

	cJSON_AddStringToObject(o, API_F_LINK, p->link_up ? "up" : "down");
	cJSON_AddNumberToObject(o, API_F_WORKER, workers[p->worker]->lcore);
	if (p->ops->to_json != NULL)
		p->ops->to_json(p, o);
	if (with_stats)
		cJSON_AddItemToObject(o, "stats", stats_port_json(p));
	return o;
}

static cJSON *workers_json(void)
{
	cJSON *a = stats_workers_json(), *w;
	unsigned int i = 0;

	cJSON_ArrayForEach (w, a) {
		cJSON *ports = cJSON_CreateArray();
		struct port *p;

		TAILQ_FOREACH (p, &port_all, next)
			if (p->worker == i)
				cJSON_AddItemToArray(ports, cJSON_CreateString(p->conf.name));
		cJSON_AddNumberToObject(w, "lcore", workers[i]->lcore);
		cJSON_AddItemToObject(w, "ports", ports);
		i++;
	}
	return a;
}

static cJSON *h_system_info(const cJSON *params, int *code, char *msg, size_t len,
			    const char **field)
{
	cJSON *o = cJSON_CreateObject();

	(void)params, (void)code, (void)msg, (void)len, (void)field;
	cJSON_AddStringToObject(o, "version", PODWIRE_VERSION);
	cJSON_AddNumberToObject(o, "pid", getpid());
	cJSON_AddStringToObject(o, "socket", pw_cfg.socket);
	cJSON_AddStringToObject(o, "state_dir", pw_cfg.state_dir);
	cJSON_AddNumberToObject(o, "main_core", pw_cfg.main_core);
	cJSON_AddNumberToObject(o, "uptime_sec", (double)(time(NULL) - pw_start_time));
	cJSON_AddNumberToObject(o, "tsc_hz", (double)rte_get_tsc_hz());
	cJSON_AddStringToObject(o, "dpdk_runtime_dir", rte_eal_get_runtime_dir());
	cJSON_AddNumberToObject(o, "networks", network_count());
	cJSON_AddNumberToObject(o, "ports", port_count());
	cJSON_AddNumberToObject(o, "mac_entries", mac_table_count(dp_macs));
	cJSON_AddNumberToObject(o, "mac_aging_sec", pw_cfg.mac_aging_sec);
	cJSON_AddBoolToObject(o, "ready", true);
	cJSON_AddItemToObject(o, "workers", workers_json());
	return o;
}

static cJSON *h_network_create(const cJSON *params, int *code, char *msg, size_t len,
			       const char **field)
{
	const char *name = api_get_str(params, API_F_NAME, "");
	const char *mode = api_get_str(params, API_F_MODE, API_NET_BRIDGE);
	long vlan = api_get_int(params, API_F_VLAN, 0);
	char obj[96], smsg[512];
	struct network *n;
	enum net_mode m;

	if (validate_name("network", name, msg, len) != 0)
		FAIL_KEEP(API_ERR_INVALID_PARAMS, API_F_NAME);
	snprintf(obj, sizeof(obj), "network \"%s\"", name);
	if (strcmp(mode, API_NET_BRIDGE) == 0)
		m = NET_BRIDGE;
	else if (strcmp(mode, API_NET_XCONNECT) == 0)
		m = NET_XCONNECT;
	else
		FAIL(API_ERR_INVALID_PARAMS, API_F_MODE,
		     "%s: mode \"%s\" is not valid; use "
		     "\"bridge\" or \"xconnect\"",
		     obj, mode);
	if (validate_vlan(obj, vlan, msg, len) != 0)
		FAIL_KEEP(API_ERR_INVALID_PARAMS, API_F_VLAN);
	if (network_create(name, m, (uint16_t)vlan, &n, code, msg, len) != 0) {
		*field = API_F_NAME;
		return NULL;
	}
	if (state_save(smsg, sizeof(smsg)) != 0) {
		network_delete(n, code, msg, len);
		FAIL(API_ERR_INTERNAL, NULL, "%s", smsg);
	}
	return network_to_json(n);
}

static cJSON *h_network_delete(const cJSON *params, int *code, char *msg, size_t len,
			       const char **field)
{
	const char *name = api_get_str(params, API_F_NAME, "");
	struct network *n = need_network(name, code, msg, len, field, API_F_NAME);
	enum net_mode mode;
	char smsg[512];
	uint16_t vlan;

	if (n == NULL)
		return NULL;
	mode = n->mode;
	vlan = n->vlan;
	if (network_delete(n, code, msg, len) != 0) {
		*field = API_F_NAME;
		return NULL;
	}
	if (state_save(smsg, sizeof(smsg)) != 0) {
		network_create(name, mode, vlan, &n, code, msg, len);
		FAIL(API_ERR_INTERNAL, NULL, "%s", smsg);
	}
	return cJSON_CreateObject();
}

static cJSON *h_network_list(const cJSON *params, int *code, char *msg, size_t len,
			     const char **field)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "networks");
	struct network *n;

	(void)params, (void)code, (void)msg, (void)len, (void)field;
	TAILQ_FOREACH (n, &network_all, next)
		cJSON_AddItemToArray(a, network_to_json(n));
	return o;
}

static cJSON *h_port_create(const cJSON *params, int *code, char *msg, size_t len,
			    const char **field)
{
	struct port_conf conf;
	struct network *n;
	struct port *p;
	char smsg[512];

	*code = port_conf_parse(params, port_kind_list(), true, &conf, msg, len, field);
	if (*code != 0)
		return NULL;
	n = need_network(conf.network, code, msg, len, field, API_F_NETWORK);
	if (n == NULL)
		return NULL;
	if (port_create(&conf, n, &p, code, msg, len) != 0) {
		*field = *code == API_ERR_EXISTS		     ? API_F_NAME
			 : *code == API_ERR_IN_USE && conf.socket[0] ? API_F_SOCKET
								     : NULL;
		return NULL;
	}
	if (state_save(smsg, sizeof(smsg)) != 0) {
		port_destroy(p);
		FAIL(API_ERR_INTERNAL, NULL, "%s", smsg);
	}
	return port_json(p, false);
}

static cJSON *h_port_delete(const cJSON *params, int *code, char *msg, size_t len,
			    const char **field)
{
	struct port *p =
	    need_port(api_get_str(params, API_F_NAME, ""), code, msg, len, field, API_F_NAME);
	char smsg[512];

	if (p == NULL)
		return NULL;
	port_destroy(p);
	if (state_save(smsg, sizeof(smsg)) != 0)
		FAIL(API_ERR_INTERNAL, NULL, "port deleted, but %s", smsg);
	return cJSON_CreateObject();
}

static cJSON *h_port_get(const cJSON *params, int *code, char *msg, size_t len, const char **field)
{
	struct port *p =
	    need_port(api_get_str(params, API_F_NAME, ""), code, msg, len, field, API_F_NAME);

	return p == NULL ? NULL : port_json(p, true);
}

static cJSON *h_port_list(const cJSON *params, int *code, char *msg, size_t len, const char **field)
{
	const char *net = api_get_str(params, API_F_NETWORK, NULL);
	cJSON *o, *a;
	struct port *p;

	if (net != NULL && need_network(net, code, msg, len, field, API_F_NETWORK) == NULL)
		return NULL;
	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, "ports");
	TAILQ_FOREACH (p, &port_all, next)
		if (net == NULL || strcmp(p->conf.network, net) == 0)
			cJSON_AddItemToArray(a, port_json(p, false));
	return o;
}

static cJSON *h_stats_get(const cJSON *params, int *code, char *msg, size_t len, const char **field)
{
	const char *name = api_get_str(params, API_F_PORT, NULL);
	struct port *one = NULL, *p;
	cJSON *o, *a;

	if (name != NULL && (one = need_port(name, code, msg, len, field, API_F_PORT)) == NULL)
		return NULL;
	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, "ports");
	TAILQ_FOREACH (p, &port_all, next)
		if (one == NULL || p == one)
			cJSON_AddItemToArray(a, stats_port_json(p));
	cJSON_AddItemToObject(o, "workers", workers_json());
	return o;
}

static cJSON *h_stats_clear(const cJSON *params, int *code, char *msg, size_t len,
			    const char **field)
{
	const char *name = api_get_str(params, API_F_PORT, NULL);
	struct port *one = NULL, *p;
	cJSON *o;
	int n = 0;

	if (name != NULL && (one = need_port(name, code, msg, len, field, API_F_PORT)) == NULL)
		return NULL;
	TAILQ_FOREACH (p, &port_all, next)
		if (one == NULL || p == one) {
			stats_clear_port(p->idx);
			n++;
		}
	if (one == NULL)
		stats_clear_workers();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "cleared", n);
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
	cJSON_AddNumberToObject(e, "age_sec", dp_clock - seen);
	cJSON_AddItemToArray(arg, e);
}

static cJSON *h_mac_list(const cJSON *params, int *code, char *msg, size_t len, const char **field)
{
	const char *name = api_get_str(params, API_F_NETWORK, "");
	struct network *n = need_network(name, code, msg, len, field, API_F_NETWORK);
	cJSON *o;

	if (n == NULL)
		return NULL;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, API_F_NETWORK, n->name);
	mac_table_walk(dp_macs, n->idx, mac_entry_json, cJSON_AddArrayToObject(o, "entries"));
	return o;
}

/* SR-IOV VF pools: api_vf.c. */
cJSON *h_vf_list(const cJSON *params, int *code, char *msg, size_t len, const char **field);
cJSON *h_vf_alloc(const cJSON *params, int *code, char *msg, size_t len, const char **field);
cJSON *h_vf_release(const cJSON *params, int *code, char *msg, size_t len, const char **field);

const api_handler_fn api_handlers[API_METHOD_COUNT] = {
    [API_M_SYSTEM_INFO] = h_system_info,
    [API_M_NETWORK_CREATE] = h_network_create,
    [API_M_NETWORK_DELETE] = h_network_delete,
    [API_M_NETWORK_LIST] = h_network_list,
    [API_M_PORT_CREATE] = h_port_create,
    [API_M_PORT_DELETE] = h_port_delete,
    [API_M_PORT_GET] = h_port_get,
    [API_M_PORT_LIST] = h_port_list,
    [API_M_STATS_GET] = h_stats_get,
    [API_M_STATS_CLEAR] = h_stats_clear,
    [API_M_MAC_LIST] = h_mac_list,
    [API_M_VF_LIST] = h_vf_list,
    [API_M_VF_ALLOC] = h_vf_alloc,
    [API_M_VF_RELEASE] = h_vf_release,
};
