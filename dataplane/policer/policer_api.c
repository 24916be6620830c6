/* SPDX-License-Identifier: BSD-3-Clause */
/* policer.set and policer.del. A refused request changes nothing. */
#include <string.h>

#include "api/registry.h"
#include "model/json.h"
#include "model/state.h"
#include "policer/policer.h"

static const struct port_rate_names set_fields = {API_F_PPS, API_F_BPS, API_F_BURST};

/* "direction": which of PORT_DIR_IN/OUT it names, as bits; 0 when bad. */
static unsigned int need_dirs(const cJSON *params, struct api_err *err)
{
	const char *dir = api_get_str(params, API_F_DIRECTION, API_DIR_BOTH);

	if (strcmp(dir, API_DIR_INGRESS) == 0)
		return 1u << PORT_DIR_IN;
	if (strcmp(dir, API_DIR_EGRESS) == 0)
		return 1u << PORT_DIR_OUT;
	if (strcmp(dir, API_DIR_BOTH) == 0)
		return 1u << PORT_DIR_IN | 1u << PORT_DIR_OUT;
	api_fail(err, API_ERR_INVALID_PARAMS, API_F_DIRECTION,
		 "direction \"%.32s\" is not ingress (what the pod sends), egress (what it "
		 "receives) or both",
		 dir);
	return 0;
}

/* Gives p the limits rate[], saved; on any failure p is left as it was. */
static cJSON *change(struct port *p, const struct port_rate rate[PORT_DIRS], struct api_err *err)
{
	struct port_rate was[PORT_DIRS];
	char msg[512];

	memcpy(was, p->conf.rate, sizeof(was));
	if (policer_apply(p, rate, err->msg, sizeof(err->msg)) != 0)
		return api_refuse(err, API_ERR_RESOURCE, NULL);
	memcpy(p->conf.rate, rate, sizeof(was));
	if (state_save(msg, sizeof(msg)) != 0) {
		memcpy(p->conf.rate, was, sizeof(was));
		/* Back to the buckets of before; the old settings fit, so only
		 * memory could refuse, and then the log says so. */
		policer_apply(p, was, err->msg, sizeof(err->msg));
		return api_fail(err, API_ERR_INTERNAL, NULL, "%s; the rate limit is not changed",
				msg);
	}
	return port_json(p, false);
}

static struct port *need_port(const cJSON *params, struct api_err *err)
{
	const char *name = api_get_str(params, API_F_PORT, "");
	struct port *p = port_find(name);

	if (p == NULL)
		api_fail(err, API_ERR_NOT_FOUND, API_F_PORT,
			 "port \"%s\" does not exist; `podwirectl port list` shows the ports",
			 name);
	return p;
}

static cJSON *h_policer_set(const cJSON *params, struct api_err *err)
{
	struct port_rate rate[PORT_DIRS], r;
	unsigned int dirs;
	struct port *p;
	char what[96];
	bool given;

	err->code = 0;
	p = need_port(params, err);
	if (p == NULL)
		return NULL;
	dirs = need_dirs(params, err);
	if (dirs == 0)
		return NULL;
	snprintf(what, sizeof(what), "policer.set: port \"%s\"", p->conf.name);
	err->code = port_rate_parse(params, &set_fields, p->conf.mtu, what, &r, &given, err->msg,
				    sizeof(err->msg), &err->field);
	if (err->code != 0)
		return NULL;
	if (!given || (cJSON_GetObjectItemCaseSensitive(params, API_F_PPS) == NULL &&
		       cJSON_GetObjectItemCaseSensitive(params, API_F_BPS) == NULL))
		return api_fail(err, API_ERR_INVALID_PARAMS, API_F_PPS,
				"%s: give \"pps\" (frames/s) or \"bps\" (bits/s); policer.del "
				"removes a limit",
				what);
	memcpy(rate, p->conf.rate, sizeof(rate));
	for (int d = 0; d < PORT_DIRS; d++)
		if (dirs & 1u << d)
			rate[d] = r;
	return change(p, rate, err);
}

static cJSON *h_policer_del(const cJSON *params, struct api_err *err)
{
	struct port_rate rate[PORT_DIRS];
	unsigned int dirs;
	struct port *p;

	err->code = 0;
	p = need_port(params, err);
	if (p == NULL)
		return NULL;
	dirs = need_dirs(params, err);
	if (dirs == 0)
		return NULL;
	memcpy(rate, p->conf.rate, sizeof(rate));
	for (int d = 0; d < PORT_DIRS; d++)
		if (dirs & 1u << d)
			memset(&rate[d], 0, sizeof(rate[d]));
	return change(p, rate, err);
}

API_HANDLER(POLICER_SET, h_policer_set)
API_HANDLER(POLICER_DEL, h_policer_del)
