/* SPDX-License-Identifier: BSD-3-Clause */
/* port.create, port.delete, port.get, port.list. */
#include <stdio.h>
#include <string.h>

#include "api/registry.h"
#include "datapath/worker.h"
#include "model/json.h"
#include "model/network.h"
#include "model/port_conf.h"
#include "model/port_failed.h"
#include "model/state.h"

static struct port *need_port(const char *name, struct api_err *err, const char *field)
{
	struct port *p = port_find(name);

	if (p == NULL)
		api_fail(err, API_ERR_NOT_FOUND, field,
			 "port \"%s\" does not exist; `podwirectl port list` shows the ports",
			 name);
	return p;
}

cJSON *port_json(const struct port *p, bool with_stats)
{
	cJSON *o = port_conf_to_json(&p->conf, false);

	/* The limit in force, its own or its network's. */
	cJSON_DeleteItemFromObjectCaseSensitive(o, API_F_FLOOD_LIMIT);
	cJSON_AddNumberToObject(o, API_F_FLOOD_LIMIT, port_flood_limit(p));
	cJSON_AddStringToObject(o, API_F_LINK, p->dp.link_up ? "up" : "down");
	cJSON_AddNumberToObject(o, API_F_WORKER, workers[p->rxq[0].worker]->cpu);
	/* What was asked for, and the rx queues that gives (a memif port
	 * polls as many rings as its peer brings, up to 8). */
	cJSON_DeleteItemFromObjectCaseSensitive(o, API_F_QUEUES);
	cJSON_AddNumberToObject(o, API_F_QUEUES, RTE_MAX(p->conf.queues, (uint8_t)1));
	cJSON_AddNumberToObject(o, API_R_RX_QUEUES, p->dp.n_rxq);
	if (p->ops->to_json != NULL)
		p->ops->to_json(p, o);
	if (with_stats)
		cJSON_AddItemToObject(o, API_R_STATS, port_stats_json(p));
	return o;
}

static cJSON *h_port_create(const cJSON *params, struct api_err *err)
{
	struct port_conf conf;
	struct network *n;
	struct port *p;
	char smsg[512];

	err->code = port_conf_parse(params, true, &conf, err->msg, sizeof(err->msg), &err->field);
	if (err->code != 0)
		return NULL;
	for (unsigned int q = 0; q < API_QUEUES_MAX; q++) {
		bool found = conf.rxq_pin[q] == 0;

		for (unsigned int w = 0; w < n_workers && !found; w++)
			found = workers[w]->cpu == conf.rxq_pin[q] - 1U;
		if (!found)
			return api_fail(err, API_ERR_INVALID_PARAMS, API_F_RXQ_PINS,
					"port \"%s\": \"rxq_pins\" pins queue %u on core %u, which "
					"runs no worker; `podwirectl info` lists the worker cores",
					conf.name, q, conf.rxq_pin[q] - 1U);
	}
	n = network_need(conf.network, err, API_F_NETWORK);
	if (n == NULL)
		return NULL;
	if (port_create(&conf, n, &p, &err->code, err->msg, sizeof(err->msg)) != 0) {
		err->field = err->code == API_ERR_EXISTS		     ? API_F_NAME
			     : err->code == API_ERR_IN_USE && conf.socket[0] ? API_F_SOCKET
									     : NULL;
		return NULL;
	}
	if (state_save(smsg, sizeof(smsg)) != 0) {
		if (port_destroy(p, err->msg, sizeof(err->msg)) != 0)
			return api_fail(err, API_ERR_INTERNAL, NULL, "%s; and %s", smsg, err->msg);
		return api_fail(err, API_ERR_INTERNAL, NULL, "%s", smsg);
	}
	return port_json(p, false);
}

/* A port that failed to restore goes from the state file; nothing of it
 * runs. */
static cJSON *delete_failed(struct port_failed *f, struct api_err *err)
{
	char smsg[512];

	port_failed_delete(f);
	if (state_save(smsg, sizeof(smsg)) != 0)
		return api_fail(err, API_ERR_INTERNAL, NULL, "port deleted, but %s", smsg);
	return cJSON_CreateObject();
}

static cJSON *h_port_delete(const cJSON *params, struct api_err *err)
{
	const char *name = api_get_str(params, API_F_NAME, "");
	struct port_failed *f = port_failed_find(name);
	struct port *p;
	char smsg[512];

	if (f != NULL)
		return delete_failed(f, err);
	p = need_port(name, err, API_F_NAME);
	if (p == NULL)
		return NULL;
	if (port_destroy(p, err->msg, sizeof(err->msg)) != 0)
		return api_refuse(err, API_ERR_RESOURCE, NULL);
	if (state_save(smsg, sizeof(smsg)) != 0)
		return api_fail(err, API_ERR_INTERNAL, NULL, "port deleted, but %s", smsg);
	return cJSON_CreateObject();
}

static cJSON *h_port_get(const cJSON *params, struct api_err *err)
{
	const char *name = api_get_str(params, API_F_NAME, "");
	const struct port_failed *f = port_failed_find(name);
	struct port *p;

	if (f != NULL)
		return port_failed_json(f);
	p = need_port(name, err, API_F_NAME);
	return p == NULL ? NULL : port_json(p, true);
}

static cJSON *h_port_list(const cJSON *params, struct api_err *err)
{
	const char *net = api_get_str(params, API_F_NETWORK, NULL);
	const struct port_failed *f;
	cJSON *o, *a;
	struct port *p;

	if (net != NULL && network_need(net, err, API_F_NETWORK) == NULL)
		return NULL;
	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, API_R_PORTS);
	TAILQ_FOREACH (p, &port_all, next)
		if (net == NULL || strcmp(p->conf.network, net) == 0)
			cJSON_AddItemToArray(a, port_json(p, false));
	TAILQ_FOREACH (f, &port_failed_all, next)
		if (net == NULL || strcmp(f->conf.network, net) == 0)
			cJSON_AddItemToArray(a, port_failed_json(f));
	return o;
}

API_HANDLER(PORT_CREATE, h_port_create)
API_HANDLER(PORT_DELETE, h_port_delete)
API_HANDLER(PORT_GET, h_port_get)
API_HANDLER(PORT_LIST, h_port_list)
