/* SPDX-License-Identifier: BSD-3-Clause */
/* The method table and the JSON-RPC framing shared by daemon and clients. */
#include <stdio.h>
#include <string.h>

#include "api.h"

static const struct api_field no_params[] = {{NULL}};
#define SYSTEM_INFO_params  no_params
#define NETWORK_LIST_params no_params

static const struct api_field NETWORK_CREATE_params[] = {
    {API_F_NAME, API_T_STRING, true, "1-63 characters of [A-Za-z0-9._-]"},
    {API_F_MODE, API_T_STRING, false, "\"bridge\" (default) or \"xconnect\""},
    {API_F_VLAN, API_T_INT, false, "a VLAN id 1-4094, or 0 for none"},
    {NULL}};

static const struct api_field name_only_params[] = {
    {API_F_NAME, API_T_STRING, true, "the name of an existing object"}, {NULL}};
#define NETWORK_DELETE_params name_only_params
#define PORT_DELETE_params    name_only_params
#define PORT_GET_params	      name_only_params

static const struct api_field PORT_CREATE_params[] = {
    {API_F_NAME, API_T_STRING, true, "1-63 characters of [A-Za-z0-9._-]"},
    {API_F_NETWORK, API_T_STRING, true, "the name of an existing network"},
    {API_F_TYPE, API_T_STRING, true,
     "\"vhost-user\", \"memif\", \"af_xdp\", \"af_packet\", \"pci\" or \"null\""},
    {API_F_SOCKET, API_T_STRING, false,
     "an absolute path of at most 107 bytes in an existing directory"},
    {API_F_MODE, API_T_STRING, false,
     "\"server\" (podwired creates the socket, default) or \"client\""},
    {API_F_MAC, API_T_STRING, false, "a unicast MAC such as 02:00:00:00:00:01"},
    {API_F_MTU, API_T_INT, false, "68-9000 (default 1500)"},
    {API_F_SECRET, API_T_STRING, false, "memif secret, at most 24 characters"},
    {API_F_IFACE, API_T_STRING, false, "af_xdp/af_packet: an existing kernel interface"},
    {API_F_PCI, API_T_STRING, false, "pci: a PCI address such as 0000:01:10.2"},
    {NULL}};

static const struct api_field PORT_LIST_params[] = {
    {API_F_NETWORK, API_T_STRING, false, "the name of an existing network"}, {NULL}};

static const struct api_field stats_params[] = {
    {API_F_PORT, API_T_STRING, false, "the name of an existing port"}, {NULL}};
#define STATS_GET_params   stats_params
#define STATS_CLEAR_params stats_params

static const struct api_field MAC_LIST_params[] = {
    {API_F_NETWORK, API_T_STRING, true, "the name of an existing network"}, {NULL}};

static const struct api_field VF_LIST_params[] = {
    {API_F_PHYSNET, API_T_STRING, false, "a physical network named in --physnets"}, {NULL}};

static const struct api_field VF_ALLOC_params[] = {
    {API_F_PHYSNET, API_T_STRING, true, "a physical network named in --physnets"},
    {API_F_OWNER, API_T_STRING, true,
     "who holds the VF, e.g. \"<containerID>/<ifname>\"; one VF per owner and physnet"},
    {API_F_VLAN, API_T_INT, false, "a VLAN id 1-4094 set on the VF through its PF, or 0"},
    {API_F_MAC, API_T_STRING, false, "a unicast MAC set on the VF through its PF"},
    {API_F_SPOOFCHK, API_T_BOOL, false, "true or false: the PF's spoof check for the VF"},
    {API_F_TRUST, API_T_BOOL, false, "true or false: the PF's trust setting for the VF"},
    {NULL}};

static const struct api_field VF_RELEASE_params[] = {
    {API_F_PCI, API_T_STRING, false, "the PCI address of an allocated VF"},
    {API_F_OWNER, API_T_STRING, false, "release every VF this owner holds"},
    {NULL}};

const struct api_method_desc api_methods[API_METHOD_COUNT] = {
#define API_DESC(id, wire, summary) [API_M_##id] = {wire, summary, id##_params},
    API_METHODS(API_DESC)
#undef API_DESC
};

int api_method_lookup(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < API_METHOD_COUNT; i++)
		if (strcmp(api_methods[i].name, name) == 0)
			return i;
	return -1;
}

static const char *type_name(enum api_type t)
{
	switch (t) {
	case API_T_STRING:
		return "a string";
	case API_T_INT:
		return "an integer";
	case API_T_BOOL:
		return "true or false";
	}
	return "?";
}

static bool type_matches(const cJSON *v, enum api_type t)
{
	switch (t) {
	case API_T_STRING:
		return cJSON_IsString(v);
	case API_T_INT:
		return cJSON_IsNumber(v) && v->valuedouble == (double)(long)v->valuedouble;
	case API_T_BOOL:
		return cJSON_IsBool(v);
	}
	return false;
}

int api_check_params(enum api_method m, const cJSON *params, char *msg, size_t msglen,
		     const char **field)
{
	const struct api_method_desc *d = &api_methods[m];
	const struct api_field *f;
	const cJSON *item;

	*field = NULL;
	if (params != NULL && !cJSON_IsObject(params) && !cJSON_IsNull(params)) {
		snprintf(msg, msglen, "%s: \"params\" must be an object", d->name);
		return API_ERR_INVALID_PARAMS;
	}
	cJSON_ArrayForEach (item, params) {
		for (f = d->params; f->name != NULL; f++)
			if (strcmp(f->name, item->string) == 0)
				break;
		if (f->name == NULL) {
			char known[256] = "";
			size_t off = 0;

			for (f = d->params; f->name != NULL && off < sizeof(known); f++)
				off += snprintf(known + off, sizeof(known) - off, "%s%s",
						off ? ", " : "", f->name);
			*field = item->string;
			snprintf(msg, msglen, "%s: unknown field \"%s\"; known fields: %s", d->name,
				 item->string, off ? known : "none");
			return API_ERR_INVALID_PARAMS;
		}
		if (!type_matches(item, f->type)) {
			*field = f->name;
			snprintf(msg, msglen, "%s: field \"%s\" must be %s (%s)", d->name, f->name,
				 type_name(f->type), f->help);
			return API_ERR_INVALID_PARAMS;
		}
	}
	for (f = d->params; f->name != NULL; f++) {
		if (f->required && cJSON_GetObjectItemCaseSensitive(params, f->name) == NULL) {
			*field = f->name;
			snprintf(msg, msglen, "%s: field \"%s\" is required (%s)", d->name, f->name,
				 f->help);
			return API_ERR_INVALID_PARAMS;
		}
	}
	return 0;
}

cJSON *api_request_new(int id, const char *method, cJSON *params)
{
	cJSON *req = cJSON_CreateObject();

	cJSON_AddStringToObject(req, "jsonrpc", "2.0");
	cJSON_AddNumberToObject(req, "id", id);
	cJSON_AddStringToObject(req, "method", method);
	cJSON_AddItemToObject(req, "params", params ? params : cJSON_CreateObject());
	return req;
}

static cJSON *response_new(const cJSON *id)
{
	cJSON *resp = cJSON_CreateObject();

	cJSON_AddStringToObject(resp, "jsonrpc", "2.0");
	cJSON_AddItemToObject(resp, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
	return resp;
}

cJSON *api_result_new(const cJSON *id, cJSON *result)
{
	cJSON *resp = response_new(id);

	cJSON_AddItemToObject(resp, "result", result ? result : cJSON_CreateObject());
	return resp;
}

cJSON *api_error_new(const cJSON *id, int code, const char *msg, const char *field)
{
	cJSON *resp = response_new(id);
	cJSON *err = cJSON_AddObjectToObject(resp, "error");

	cJSON_AddNumberToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", msg);
	if (field != NULL) {
		cJSON *data = cJSON_AddObjectToObject(err, "data");

		cJSON_AddStringToObject(data, "field", field);
	}
	return resp;
}

const char *api_get_str(const cJSON *obj, const char *field, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, field);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

long api_get_int(const cJSON *obj, const char *field, long dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, field);

	return cJSON_IsNumber(v) ? (long)v->valuedouble : dflt;
}

bool api_get_bool(const cJSON *obj, const char *field, bool dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, field);

	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}
