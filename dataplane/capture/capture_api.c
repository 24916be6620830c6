/* SPDX-License-Identifier: BSD-3-Clause */
/* capture.start and capture.list. A refused capture.start changes nothing. */
#include <errno.h>
#include <string.h>

#include "api/registry.h"
#include "api/server.h"
#include "capture/capture.h"
#include "model/network.h"

static cJSON *fail_ports(struct api_err *err, int code, const char *fmt, const char *name)
{
	return api_fail(err, code, API_F_PORTS, fmt, name);
}

/* Fills r->ports from "ports", names separated by commas: 1-16 distinct
 * existing ports that no capture has yet. */
static cJSON *need_ports(const cJSON *params, struct capture_req *r, struct api_err *err)
{
	const char *list = api_get_str(params, API_F_PORTS, "");
	char buf[API_CAPTURE_PORTS * (API_NAME_MAX + 1) + 1], *save = NULL, *name;

	r->n_ports = 0;
	if (strlen(list) >= sizeof(buf))
		return api_fail(err, API_ERR_INVALID_PARAMS, API_F_PORTS,
				"capture.start: \"ports\" is too long; name 1-%d ports",
				API_CAPTURE_PORTS);
	snprintf(buf, sizeof(buf), "%s", list);
	for (name = strtok_r(buf, ",", &save); name != NULL; name = strtok_r(NULL, ",", &save)) {
		struct port *p = port_find(name);

		if (r->n_ports == API_CAPTURE_PORTS)
			return api_fail(err, API_ERR_INVALID_PARAMS, API_F_PORTS,
					"capture.start: more than %d ports; capture at most %d at "
					"once",
					API_CAPTURE_PORTS, API_CAPTURE_PORTS);
		if (p == NULL)
			return fail_ports(
			    err, API_ERR_NOT_FOUND,
			    "port \"%s\" does not exist; `podwirectl port list` shows the ports",
			    name);
		for (unsigned int i = 0; i < r->n_ports; i++)
			if (r->ports[i] == p)
				return fail_ports(err, API_ERR_INVALID_PARAMS,
						  "port \"%s\" is named twice; name each port once",
						  p->conf.name);
		if (p->dp.capture != NULL)
			return api_fail(
			    err, API_ERR_IN_USE, API_F_PORTS,
			    "port \"%s\" is already being captured (`podwirectl capture "
			    "list` shows by which); end that capture first, or capture "
			    "other ports",
			    p->conf.name);
		r->ports[r->n_ports++] = p;
	}
	if (r->n_ports == 0)
		return api_fail(
		    err, API_ERR_INVALID_PARAMS, API_F_PORTS,
		    "capture.start: \"ports\" names no port; give e.g. \"pod-a,pod-b\"");
	return NULL;
}

static cJSON *h_capture_start(const cJSON *params, struct api_err *err)
{
	struct capture_req r = {.dirs = CAPTURE_IN | CAPTURE_OUT, .snaplen = API_SNAPLEN_MAX};
	const char *dir = api_get_str(params, API_F_DIRECTION, API_DIR_BOTH);
	long count = api_get_int(params, API_F_COUNT, 0);
	long duration = api_get_int(params, API_F_DURATION, 0);
	long snaplen = api_get_int(params, API_F_SNAPLEN, API_SNAPLEN_MAX);
	struct capture *c;
	cJSON *o, *a;

	err->code = 0;
	need_ports(params, &r, err);
	if (err->code != 0)
		return NULL;
	if (strcmp(dir, API_DIR_RX) == 0)
		r.dirs = CAPTURE_IN;
	else if (strcmp(dir, API_DIR_TX) == 0)
		r.dirs = CAPTURE_OUT;
	else if (strcmp(dir, API_DIR_BOTH) != 0)
		return api_fail(err, API_ERR_INVALID_PARAMS, API_F_DIRECTION,
				"direction \"%.32s\" is not rx, tx or both", dir);
	/* count, duration and snaplen are in the ranges the API table gives
	 * them: api_check_params saw to it before this handler runs. */
	r.count = (uint64_t)count;
	r.duration = (uint32_t)duration;
	r.snaplen = (uint32_t)snaplen;
	r.filter = api_get_str(params, API_F_FILTER, "");
	switch (capture_create(&r, &c, err->msg, sizeof(err->msg))) {
	case 0:
		break;
	case -EINVAL:
		return api_refuse(err, API_ERR_INVALID_PARAMS, API_F_FILTER);
	default:
		return api_refuse(err, API_ERR_RESOURCE, NULL);
	}
	if (api_server_take_connection(capture_takeover, c) != 0) {
		capture_discard(c);
		return api_fail(err, API_ERR_INVALID_REQUEST, NULL,
				"capture.start streams pcapng on the connection that asks; send it "
				"over podwired's API socket");
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, API_R_ID, capture_id(c));
	cJSON_AddStringToObject(o, API_R_FORMAT, API_CAPTURE_FORMAT);
	a = cJSON_AddArrayToObject(o, API_F_PORTS);
	for (unsigned int i = 0; i < r.n_ports; i++) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddStringToObject(p, API_F_NAME, r.ports[i]->conf.name);
		cJSON_AddNumberToObject(p, API_R_INTERFACE, i);
		cJSON_AddStringToObject(p, API_R_KIND, r.ports[i]->ops->kind);
		cJSON_AddStringToObject(p, API_F_NETWORK, r.ports[i]->net->name);
		cJSON_AddItemToArray(a, p);
	}
	cJSON_AddStringToObject(o, API_F_DIRECTION, dir);
	cJSON_AddNumberToObject(o, API_F_COUNT, (double)count);
	cJSON_AddNumberToObject(o, API_F_DURATION, (double)duration);
	cJSON_AddNumberToObject(o, API_F_SNAPLEN, (double)snaplen);
	cJSON_AddStringToObject(o, API_F_FILTER, r.filter);
	return o;
}

static cJSON *h_capture_list(const cJSON *params, struct api_err *err)
{
	cJSON *o = cJSON_CreateObject();

	RTE_SET_USED(params);
	RTE_SET_USED(err);
	cJSON_AddItemToObject(o, API_R_CAPTURES, capture_list_json());
	return o;
}

API_HANDLER(CAPTURE_START, h_capture_start)
API_HANDLER(CAPTURE_LIST, h_capture_list)
