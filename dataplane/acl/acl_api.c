/* SPDX-License-Identifier: BSD-3-Clause */
/* acl.set/del/list/show/attach/detach. A refused request changes nothing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/session.h"
#include "api/registry.h"
#include "core/config.h"
#include "datapath/worker.h"
#include "validate.h"

/* Parsed rules of one acl.set: large, and the control thread runs one
 * request at a time. */
static struct acl_rule rules[ACL_RULES_MAX];

_Static_assert(ACL_RULES_MAX == API_ACL_RULES_MAX, "one bound for the API and the module");

static int code_of(int rc)
{
	switch (rc) {
	case -ENOENT:
		return API_ERR_NOT_FOUND;
	case -EBUSY:
		return API_ERR_IN_USE;
	case -EEXIST:
		return API_ERR_EXISTS;
	case -EINVAL:
		return API_ERR_INVALID_PARAMS;
	default:
		return API_ERR_RESOURCE;
	}
}

/* The state file after a change: a failure is logged (acl_state_save)
 * and the change stays, as for state.json. */
static void save(void)
{
	char msg[512];

	acl_state_save(msg, sizeof(msg));
}

static cJSON *h_acl_set(const cJSON *params, struct api_err *err)
{
	const char *name = api_get_str(params, API_F_NAME, "");
	const char *dflt_s = api_get_str(params, API_F_DEFAULT, "deny");
	const char *field = NULL;
	enum acl_action dflt;
	uint32_t n = 0;
	bool replaced;
	char msg[sizeof(err->msg) - 64];
	cJSON *o;
	int rc;

	if (validate_name("list", name, err->msg, sizeof(err->msg)) != 0)
		return api_refuse(err, API_ERR_INVALID_PARAMS, API_F_NAME);
	if (acl_action_parse(dflt_s, &dflt) != 0 || dflt == ACL_REFLECT)
		return api_fail(err, API_ERR_INVALID_PARAMS, API_F_DEFAULT,
				"list \"%s\": \"default\" \"%.32s\" is not \"permit\" or \"deny\"",
				name, dflt_s);
	if (acl_rules_parse(cJSON_GetObjectItemCaseSensitive(params, API_F_RULES), rules, &n, msg,
			    sizeof(msg), &field) != 0)
		return api_fail(err, API_ERR_INVALID_PARAMS, field,
				"list \"%s\": %s; nothing changed", name, msg);
	rc = acl_set(name, dflt, rules, n, &replaced, msg, sizeof(msg));
	if (rc != 0)
		return api_fail(err, code_of(rc), API_F_RULES, "list \"%s\": %s", name, msg);
	save();
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, API_F_NAME, name);
	cJSON_AddStringToObject(o, API_F_DEFAULT, acl_action_name(dflt));
	cJSON_AddNumberToObject(o, API_F_RULES, n);
	cJSON_AddBoolToObject(o, API_R_REPLACED, replaced);
	return o;
}

static cJSON *h_acl_del(const cJSON *params, struct api_err *err)
{
	int rc = acl_del(api_get_str(params, API_F_NAME, ""), err->msg, sizeof(err->msg));

	if (rc != 0)
		return api_refuse(err, code_of(rc), API_F_NAME);
	save();
	return cJSON_CreateObject();
}

static cJSON *h_acl_list(const cJSON *params, struct api_err *err)
{
	cJSON *o = cJSON_CreateObject();

	(void)params, (void)err;
	cJSON_AddItemToObject(o, API_R_LISTS, acl_list_all_json());
	return o;
}

static cJSON *h_acl_show(const cJSON *params, struct api_err *err)
{
	const char *name = api_get_str(params, API_F_NAME, "");
	const struct acl_named *a = acl_find(name);

	if (a == NULL)
		return api_fail(
		    err, API_ERR_NOT_FOUND, API_F_NAME,
		    "list \"%.64s\" does not exist; `podwirectl acl list` shows the lists", name);
	/* first and count are in their ranges (api_check_params). */
	return acl_show_json(a, (uint32_t)api_get_int(params, API_F_FIRST, 0),
			     (uint32_t)api_get_int(params, API_F_COUNT, API_ACL_SHOW_MAX));
}

static cJSON *attach_result(const cJSON *params, const char *dir)
{
	cJSON *o = cJSON_CreateObject();
	const char *port = api_get_str(params, API_F_PORT, NULL);
	const char *net = api_get_str(params, API_F_NETWORK, NULL);

	cJSON_AddStringToObject(o, API_F_NAME, api_get_str(params, API_F_NAME, ""));
	if (port != NULL)
		cJSON_AddStringToObject(o, API_F_PORT, port);
	if (net != NULL)
		cJSON_AddStringToObject(o, API_F_NETWORK, net);
	cJSON_AddStringToObject(o, API_F_DIRECTION, dir);
	return o;
}

/* direction: 0 ingress, 1 egress, -1 absent (when may_omit), else -2
 * with err filled. */
static int dir_of(const cJSON *params, bool may_omit, struct api_err *err)
{
	const char *d = api_get_str(params, API_F_DIRECTION, NULL);

	if (d == NULL && may_omit)
		return -1;
	if (d != NULL && strcmp(d, API_DIR_INGRESS) == 0)
		return ACL_IN;
	if (d != NULL && strcmp(d, API_DIR_EGRESS) == 0)
		return ACL_OUT;
	api_fail(err, API_ERR_INVALID_PARAMS, API_F_DIRECTION,
		 "\"direction\" \"%.32s\" is not \"ingress\" or \"egress\"", d ? d : "");
	return -2;
}

static cJSON *h_acl_attach(const cJSON *params, struct api_err *err)
{
	int d = dir_of(params, false, err), rc;

	if (d < 0)
		return NULL;
	rc = acl_attach(api_get_str(params, API_F_NAME, ""), api_get_str(params, API_F_PORT, NULL),
			api_get_str(params, API_F_NETWORK, NULL), (enum acl_dir)d, err->msg,
			sizeof(err->msg));
	if (rc != 0)
		return api_refuse(err, code_of(rc),
				  rc == -EEXIST || rc == -ENOENT ? API_F_NAME : API_F_PORT);
	save();
	return attach_result(params, d == ACL_IN ? API_DIR_INGRESS : API_DIR_EGRESS);
}

static cJSON *h_acl_detach(const cJSON *params, struct api_err *err)
{
	int d = dir_of(params, true, err), rc;

	if (d == -2)
		return NULL;
	rc = acl_detach(api_get_str(params, API_F_NAME, ""), api_get_str(params, API_F_PORT, NULL),
			api_get_str(params, API_F_NETWORK, NULL), d, err->msg, sizeof(err->msg));
	if (rc != 0)
		return api_refuse(err, code_of(rc), API_F_NAME);
	save();
	return attach_result(params, d < 0	   ? API_DIR_BOTH
				     : d == ACL_IN ? API_DIR_INGRESS
						   : API_DIR_EGRESS);
}

API_HANDLER(ACL_SET, h_acl_set)
API_HANDLER(ACL_DEL, h_acl_del)
API_HANDLER(ACL_LIST, h_acl_list)
API_HANDLER(ACL_SHOW, h_acl_show)
API_HANDLER(ACL_ATTACH, h_acl_attach)
API_HANDLER(ACL_DETACH, h_acl_detach)

/* Only the timeouts given change; the answer is all three. */
static cJSON *h_acl_timeouts(const cJSON *params, struct api_err *err)
{
	static const char *const names[ACL_TMO_N] = {API_F_TCP, API_F_UDP, API_F_OTHER};
	uint32_t t[ACL_TMO_N];
	bool changed = false;
	cJSON *o;

	acl_timeouts_get(t);
	for (int i = 0; i < ACL_TMO_N; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, names[i]);

		if (v == NULL)
			continue;
		if (!cJSON_IsNumber(v) || v->valuedouble < 1 ||
		    v->valuedouble > API_ACL_TIMEOUT_MAX ||
		    v->valuedouble != (uint32_t)v->valuedouble)
			return api_fail(err, API_ERR_INVALID_PARAMS, names[i],
					"\"%s\" must be whole seconds from 1 to %d", names[i],
					API_ACL_TIMEOUT_MAX);
		t[i] = (uint32_t)v->valuedouble;
		changed = true;
	}
	if (changed) {
		acl_timeouts_set(t);
		save();
	}
	o = cJSON_CreateObject();
	for (int i = 0; i < ACL_TMO_N; i++)
		cJSON_AddNumberToObject(o, names[i], t[i]);
	return o;
}

static cJSON *h_acl_sessions(const cJSON *params, struct api_err *err)
{
	cJSON *o = cJSON_CreateObject(), *arr;

	(void)params, (void)err;
	cJSON_AddNumberToObject(o, API_R_MAX, pw_cfg.acl_sessions);
	arr = cJSON_AddArrayToObject(o, API_R_WORKERS);
	for (unsigned int w = 0; w < n_workers; w++) {
		struct acl_session_stats st;
		cJSON *x = cJSON_CreateObject();

		acl_sessions_stats(w, &st);
		cJSON_AddNumberToObject(x, API_R_LCORE, workers[w]->cpu);
		cJSON_AddNumberToObject(x, API_R_LIVE, (double)st.live);
		cJSON_AddNumberToObject(x, API_R_CREATED, (double)st.created);
		cJSON_AddNumberToObject(x, API_R_EXPIRED, (double)st.expired);
		cJSON_AddNumberToObject(x, API_R_FULL, (double)st.full);
		cJSON_AddItemToArray(arr, x);
	}
	return o;
}

API_HANDLER(ACL_TIMEOUTS, h_acl_timeouts)
API_HANDLER(ACL_SESSIONS, h_acl_sessions)
