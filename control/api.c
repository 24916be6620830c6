/* SPDX-License-Identifier: BSD-3-Clause */
/* The JSON-RPC framing shared by daemon and clients, and the checks of
 * messages against the method table (api_methods.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

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
	case API_T_NUMBER:
		return "a number";
	case API_T_OBJECT:
		return "an object";
	case API_T_ARRAY:
		return "an array";
	}
	return "?";
}

static bool type_matches(const cJSON *v, enum api_type t)
{
	switch (t) {
	case API_T_STRING:
		return cJSON_IsString(v);
	case API_T_INT:
		return cJSON_IsNumber(v) && api_number_is_long(v->valuedouble);
	case API_T_BOOL:
		return cJSON_IsBool(v);
	case API_T_NUMBER:
		return cJSON_IsNumber(v);
	case API_T_OBJECT:
		return cJSON_IsObject(v);
	case API_T_ARRAY:
		return cJSON_IsArray(v);
	}
	return false;
}

/* What a good value of f is, for messages: its range and unit, then its help. */
static const char *describe(const struct api_field *f, char *buf, size_t len)
{
	if (f->unit == NULL)
		return f->help;
	if (f->type == API_T_STRING)
		snprintf(buf, len, "%s; at most %ld %s", f->help, f->max, f->unit);
	else
		snprintf(buf, len, "%ld-%ld (%s); %s", f->min, f->max, f->unit, f->help);
	return buf;
}

int api_field_check_int(const struct api_field *f, const char *what, long v, char *msg,
			size_t msglen)
{
	if (f->unit == NULL || (v >= f->min && v <= f->max))
		return 0;
	snprintf(msg, msglen, "%s is %ld, it must be %ld-%ld (%s); %s", what, v, f->min, f->max,
		 f->unit, f->help);
	return -ERANGE;
}

/* The value of item within f's bounds: 0, or API_ERR_INVALID_PARAMS. The
 * message names the method and, when params name one, the object:
 * "port.create: port "pod1": "mtu" is 67, ...". */
static int check_bounds(const char *method, const cJSON *params, const struct api_field *f,
			const cJSON *item, char *msg, size_t msglen)
{
	const char *name = api_get_str(params, API_F_NAME, NULL);
	const char *dot = strchr(method, '.');
	char what[192];
	size_t n;

	if (f->unit == NULL)
		return 0;
	n = (size_t)snprintf(what, sizeof(what), "%s: ", method);
	if (name != NULL && name[0] != '\0' && strlen(name) <= API_NAME_MAX && dot != NULL &&
	    strcmp(f->name, API_F_NAME) != 0)
		n += (size_t)snprintf(what + n, sizeof(what) - n,
				      "%.*s \"%s\": ", (int)(dot - method), method, name);
	snprintf(what + n, sizeof(what) - n, "\"%s\"", f->name);
	if (f->type == API_T_STRING) {
		size_t len = strlen(item->valuestring);

		if (len <= (size_t)f->max)
			return 0;
		snprintf(msg, msglen, "%s is %zu bytes, the limit is %ld; %s", what, len, f->max,
			 f->help);
		return API_ERR_INVALID_PARAMS;
	}
	if (f->type == API_T_INT &&
	    api_field_check_int(f, what, api_number_to_long(item->valuedouble), msg, msglen) != 0)
		return API_ERR_INVALID_PARAMS;
	return 0;
}

int api_check_params(enum api_method m, const cJSON *params, char *msg, size_t msglen,
		     const char **field)
{
	const struct api_method_desc *d = &api_methods[m];
	const struct api_field *f;
	const cJSON *item;
	char hint[512];

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
			snprintf(msg, msglen, "%s: field \"%s\" must be %s: %s", d->name, f->name,
				 type_name(f->type), describe(f, hint, sizeof(hint)));
			return API_ERR_INVALID_PARAMS;
		}
		if (check_bounds(d->name, params, f, item, msg, msglen) != 0) {
			*field = f->name;
			return API_ERR_INVALID_PARAMS;
		}
	}
	for (f = d->params; f->name != NULL; f++) {
		if (f->required && cJSON_GetObjectItemCaseSensitive(params, f->name) == NULL) {
			*field = f->name;
			snprintf(msg, msglen, "%s: field \"%s\" is required: %s", d->name, f->name,
				 describe(f, hint, sizeof(hint)));
			return API_ERR_INVALID_PARAMS;
		}
	}
	return 0;
}

const struct api_field *api_param_find(enum api_method m, const char *name)
{
	for (const struct api_field *f = api_methods[m].params; f->name != NULL; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

static const struct api_field *field_find(const struct api_field *fields, const char *name)
{
	for (const struct api_field *f = fields; f != NULL && f->name != NULL; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/* Checks the members of obj against fields; path names obj in messages. */
static int check_members(const cJSON *obj, const struct api_field *fields, const char *path,
			 char *msg, size_t len)
{
	const cJSON *item;

	cJSON_ArrayForEach (item, obj) {
		const struct api_field *f = field_find(fields, item->string);
		char sub[256];
		int i = 0;

		if (f == NULL) {
			snprintf(msg, len, "%s.%s is not declared", path, item->string);
			return -EPROTO;
		}
		if (!cJSON_IsNull(item) && !type_matches(item, f->type)) {
			snprintf(msg, len, "%s.%s must be %s", path, f->name, type_name(f->type));
			return -EPROTO;
		}
		if (f->members == NULL)
			continue;
		snprintf(sub, sizeof(sub), "%s.%s", path, f->name);
		if (cJSON_IsObject(item) && check_members(item, f->members, sub, msg, len) != 0)
			return -EPROTO;
		if (!cJSON_IsArray(item))
			continue;
		for (const cJSON *e = item->child; e != NULL; e = e->next, i++) {
			snprintf(sub, sizeof(sub), "%s.%s[%d]", path, f->name, i);
			if (!cJSON_IsObject(e)) {
				snprintf(msg, len, "%s must be an object", sub);
				return -EPROTO;
			}
			if (check_members(e, f->members, sub, msg, len) != 0)
				return -EPROTO;
		}
	}
	for (const struct api_field *f = fields; f->name != NULL; f++)
		if (f->required && cJSON_GetObjectItemCaseSensitive(obj, f->name) == NULL) {
			snprintf(msg, len, "%s.%s is declared required but missing", path, f->name);
			return -EPROTO;
		}
	return 0;
}

int api_check_result(enum api_method m, const cJSON *result, char *msg, size_t msglen)
{
	if (!cJSON_IsObject(result)) {
		snprintf(msg, msglen, "%s: the result is not an object", api_methods[m].name);
		return -EPROTO;
	}
	return check_members(result, api_methods[m].results, api_methods[m].name, msg, msglen);
}

int api_version_parse(const char *text, int *major, int *minor)
{
	char *end;
	long a, b;

	if (text == NULL)
		return -1;
	a = strtol(text, &end, 10);
	if (end == text || *end != '.' || a < 0 || a > 1000)
		return -1;
	text = end + 1;
	b = strtol(text, &end, 10);
	if (end == text || *end != '\0' || b < 0 || b > 1000)
		return -1;
	*major = (int)a;
	*minor = (int)b;
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

/* 2^63: the first double a long cannot hold. */
#define LONG_LIMIT 9223372036854775808.0

bool api_number_is_long(double v)
{
	return v >= -LONG_LIMIT && v < LONG_LIMIT && v == (double)(long)v;
}

long api_number_to_long(double v)
{
	if (!(v == v))
		return 0;
	if (v >= LONG_LIMIT)
		return LONG_MAX;
	if (v < -LONG_LIMIT)
		return LONG_MIN;
	return (long)v;
}

long api_get_int(const cJSON *obj, const char *field, long dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, field);

	return cJSON_IsNumber(v) ? api_number_to_long(v->valuedouble) : dflt;
}

bool api_get_bool(const cJSON *obj, const char *field, bool dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, field);

	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}
