/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of control/api.c: the method table, parameter checks and the
 * JSON-RPC 2.0 message builders. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>

#include "api.h"
#include "unit.h"

/* The methods as the X-macro lists them, independently of api_methods[]. */
static const struct {
	int id;
	const char *wire;
} listed[] = {
#define LISTED(id, wire, summary) {API_M_##id, wire},
    API_METHODS(LISTED)
#undef LISTED
};
#define N_LISTED (sizeof(listed) / sizeof(listed[0]))

static cJSON *good_value(const struct api_field *f)
{
	switch (f->type) {
	case API_T_STRING:
		return cJSON_CreateString("x1");
	case API_T_INT: /* within its range */
		return cJSON_CreateNumber(f->unit != NULL ? (double)f->min : 100);
	case API_T_BOOL:
		return cJSON_CreateTrue();
	case API_T_ARRAY: /* acl.set's rules: an empty list is a list */
		return cJSON_CreateArray();
	default: /* results only: no parameter has these types */
		CU_FAIL("a parameter of a result-only type");
	}
	return NULL;
}

/* Params with every required field of m set to a value of the right type,
 * except skip (may be NULL); with all optional ones too when all is set. */
static cJSON *params_for(int m, const char *skip, bool all)
{
	cJSON *p = cJSON_CreateObject();

	for (const struct api_field *f = api_methods[m].params; f->name != NULL; f++) {
		if (skip != NULL && strcmp(f->name, skip) == 0)
			continue;
		if (f->required || all)
			cJSON_AddItemToObject(p, f->name, good_value(f));
	}
	return p;
}

static bool has_required(int m)
{
	for (const struct api_field *f = api_methods[m].params; f->name != NULL; f++)
		if (f->required)
			return true;
	return false;
}

static void test_method_lookup(void)
{
	ASSERT_INT_EQ(N_LISTED, API_METHOD_COUNT);
	for (size_t i = 0; i < N_LISTED; i++) {
		ASSERT_INT_EQ(api_method_lookup(listed[i].wire), listed[i].id);
		ASSERT_STR_EQ(api_methods[listed[i].id].name, listed[i].wire);
		CU_ASSERT_PTR_NOT_NULL(api_methods[listed[i].id].params);
		CU_ASSERT(api_methods[listed[i].id].summary != NULL &&
			  api_methods[listed[i].id].summary[0] != '\0');
	}
	/* Spot checks that the wire names are the documented ones. */
	ASSERT_INT_EQ(api_method_lookup("port.create"), API_M_PORT_CREATE);
	ASSERT_INT_EQ(api_method_lookup("system.info"), API_M_SYSTEM_INFO);
	ASSERT_INT_EQ(api_method_lookup("mac.list"), API_M_MAC_LIST);
}

static void test_method_lookup_unknown(void)
{
	static const char *const bad[] = {"",
					  "port",
					  "port.",
					  "port.create ",
					  "Port.Create",
					  "SYSTEM.INFO",
					  "port.destroy",
					  "network.createx",
					  "system",
					  ".info",
					  NULL};

	for (int i = 0; bad[i] != NULL; i++) {
		int rc = api_method_lookup(bad[i]);

		unit_check(rc == -1, __LINE__, __FILE__, "api_method_lookup(\"%s\") = %d", bad[i],
			   rc);
	}
	ASSERT_INT_EQ(api_method_lookup(NULL), -1);
}

/* Every method accepts its required fields, and all its fields. */
static void test_params_ok(void)
{
	char msg[512];
	const char *field;

	for (int m = 0; m < API_METHOD_COUNT; m++) {
		cJSON *p = params_for(m, NULL, false);
		int rc;

		field = "untouched";
		rc = api_check_params(m, p, msg, sizeof(msg), &field);
		unit_check(rc == 0, __LINE__, __FILE__, "%s: required fields rejected: %s",
			   api_methods[m].name, rc ? msg : "");
		CU_ASSERT_PTR_NULL(field);
		cJSON_Delete(p);

		p = params_for(m, NULL, true);
		rc = api_check_params(m, p, msg, sizeof(msg), &field);
		unit_check(rc == 0, __LINE__, __FILE__, "%s: all fields rejected: %s",
			   api_methods[m].name, rc ? msg : "");
		cJSON_Delete(p);
	}

	/* A whole number written with a fraction part is an integer. */
	{
		cJSON *p = cJSON_Parse("{\"name\":\"p\",\"network\":\"n\",\"type\":\"null\","
				       "\"mtu\":1500.0}");

		ASSERT_INT_EQ(api_check_params(API_M_PORT_CREATE, p, msg, sizeof(msg), &field), 0);
		cJSON_Delete(p);
		p = cJSON_Parse("{\"name\":\"n\",\"vlan\":-0}");
		ASSERT_INT_EQ(api_check_params(API_M_NETWORK_CREATE, p, msg, sizeof(msg), &field),
			      0);
		cJSON_Delete(p);
	}
}

static void test_params_unknown_field(void)
{
	char msg[512];
	const char *field;

	for (int m = 0; m < API_METHOD_COUNT; m++) {
		cJSON *p = params_for(m, NULL, false);
		const struct api_field *f;

		cJSON_AddStringToObject(p, "colour", "red");
		msg[0] = '\0';
		ASSERT_INT_EQ(api_check_params(m, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		ASSERT_STR_EQ(field, "colour");
		ASSERT_CONTAINS(msg, api_methods[m].name);
		ASSERT_CONTAINS(msg, "unknown field \"colour\"");
		ASSERT_CONTAINS(msg, "known fields: ");
		for (f = api_methods[m].params; f->name != NULL; f++) {
			char quoted[64];

			/* Listed as a word: preceded by ": " or ", ". */
			snprintf(quoted, sizeof(quoted), " %s", f->name);
			ASSERT_CONTAINS(strstr(msg, "known fields:"), quoted);
		}
		if (api_methods[m].params[0].name == NULL)
			ASSERT_CONTAINS(msg, "known fields: none");
		cJSON_Delete(p);
	}

	/* The list is exact for port.create, in table order. */
	{
		cJSON *p = cJSON_Parse("{\"name\":\"p\",\"sockett\":\"/x\"}");

		ASSERT_INT_EQ(api_check_params(API_M_PORT_CREATE, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		ASSERT_STR_EQ(field, "sockett");
		ASSERT_CONTAINS(msg, "known fields: name, network, type, socket, mode, mac, mtu, "
				     "secret");
		cJSON_Delete(p);
	}
	/* Field names are case-sensitive. */
	{
		cJSON *p = cJSON_Parse("{\"Name\":\"n\"}");

		ASSERT_INT_EQ(api_check_params(API_M_NETWORK_DELETE, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		ASSERT_STR_EQ(field, "Name");
		cJSON_Delete(p);
	}
}

static void test_params_missing_required(void)
{
	char msg[512];
	const char *field;
	int checked = 0;

	for (int m = 0; m < API_METHOD_COUNT; m++) {
		for (const struct api_field *f = api_methods[m].params; f->name != NULL; f++) {
			cJSON *p;
			char want[80];

			if (!f->required)
				continue;
			p = params_for(m, f->name, true);
			msg[0] = '\0';
			field = NULL;
			ASSERT_INT_EQ(api_check_params(m, p, msg, sizeof(msg), &field),
				      API_ERR_INVALID_PARAMS);
			ASSERT_STR_EQ(field, f->name);
			snprintf(want, sizeof(want), "field \"%s\" is required", f->name);
			ASSERT_CONTAINS(msg, api_methods[m].name);
			ASSERT_CONTAINS(msg, want);
			ASSERT_CONTAINS(msg, f->help);
			cJSON_Delete(p);
			checked++;
		}
	}
	/* network.create, port.create (3), port.delete/get, network.delete, mac.list */
	CU_ASSERT(checked >= 8);

	/* Empty object for port.create: the first required field is named. */
	{
		cJSON *p = cJSON_CreateObject();

		ASSERT_INT_EQ(api_check_params(API_M_PORT_CREATE, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		ASSERT_STR_EQ(field, API_F_NAME);
		cJSON_Delete(p);
	}
}

static void test_params_wrong_type(void)
{
	char msg[512];
	const char *field;

	for (int m = 0; m < API_METHOD_COUNT; m++) {
		for (const struct api_field *f = api_methods[m].params; f->name != NULL; f++) {
			cJSON *wrong[4];
			int nw = 0;

			switch (f->type) {
			case API_T_STRING:
				wrong[nw++] = cJSON_CreateNumber(5);
				wrong[nw++] = cJSON_CreateTrue();
				wrong[nw++] = cJSON_CreateNull();
				wrong[nw++] = cJSON_CreateObject();
				break;
			case API_T_INT:
				wrong[nw++] = cJSON_CreateString("5");
				wrong[nw++] = cJSON_CreateNumber(1.5);
				wrong[nw++] = cJSON_CreateFalse();
				/* Beyond a long (found by fuzz-api_request under
				 * UBSan: converting it was undefined). */
				wrong[nw++] = cJSON_CreateNumber(9.02222e+55);
				break;
			case API_T_BOOL:
				wrong[nw++] = cJSON_CreateString("true");
				wrong[nw++] = cJSON_CreateNumber(1);
				break;
			case API_T_ARRAY:
				wrong[nw++] = cJSON_CreateObject();
				wrong[nw++] = cJSON_CreateString("[]");
				break;
			default:
				CU_FAIL("a parameter of a result-only type");
			}
			for (int w = 0; w < nw; w++) {
				cJSON *p = params_for(m, f->name, false);
				char want[80];

				cJSON_AddItemToObject(p, f->name, wrong[w]);
				msg[0] = '\0';
				field = NULL;
				ASSERT_INT_EQ(api_check_params(m, p, msg, sizeof(msg), &field),
					      API_ERR_INVALID_PARAMS);
				ASSERT_STR_EQ(field, f->name);
				snprintf(want, sizeof(want), "field \"%s\" must be %s", f->name,
					 f->type == API_T_STRING  ? "a string"
					 : f->type == API_T_INT	  ? "an integer"
					 : f->type == API_T_ARRAY ? "an array"
								  : "true or false");
				ASSERT_CONTAINS(msg, want);
				ASSERT_CONTAINS(msg, f->help);
				cJSON_Delete(p);
			}
		}
	}

	/* The cases the task names, spelled out. */
	{
		cJSON *p = cJSON_Parse("{\"name\":\"p\",\"network\":\"n\",\"type\":\"null\","
				       "\"mtu\":\"1500\"}");

		ASSERT_INT_EQ(api_check_params(API_M_PORT_CREATE, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		ASSERT_STR_EQ(field, "mtu");
		ASSERT_CONTAINS(msg,
				"port.create: field \"mtu\" must be an integer: 68-9000 (bytes); "
				"the largest frame payload");
		cJSON_Delete(p);

		p = cJSON_Parse("{\"name\":\"n\",\"vlan\":10.25}");
		ASSERT_INT_EQ(api_check_params(API_M_NETWORK_CREATE, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		ASSERT_STR_EQ(field, "vlan");
		ASSERT_CONTAINS(msg, "must be an integer");

		cJSON_Delete(p);
		p = cJSON_Parse("{\"name\":42}");
		ASSERT_INT_EQ(api_check_params(API_M_PORT_GET, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		ASSERT_STR_EQ(field, "name");
		ASSERT_CONTAINS(msg, "port.get: field \"name\" must be a string");
		cJSON_Delete(p);
	}
}

static void test_params_not_object(void)
{
	static const char *const bad[] = {"[]", "[{\"name\":\"x\"}]", "\"name\"", "3", "true",
					  NULL};
	char msg[512];
	const char *field;

	for (int i = 0; bad[i] != NULL; i++) {
		cJSON *p = cJSON_Parse(bad[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		msg[0] = '\0';
		field = "untouched";
		ASSERT_INT_EQ(api_check_params(API_M_NETWORK_DELETE, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		CU_ASSERT_PTR_NULL(field);
		ASSERT_CONTAINS(msg, "network.delete: \"params\" must be an object");
		/* Also for a method with no fields at all. */
		ASSERT_INT_EQ(api_check_params(API_M_SYSTEM_INFO, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		cJSON_Delete(p);
	}
}

/* No params (NULL, or JSON null) is fine exactly when nothing is required. */
static void test_params_null(void)
{
	cJSON *jnull = cJSON_CreateNull();
	char msg[512];
	const char *field;
	int without = 0, with = 0;

	for (int m = 0; m < API_METHOD_COUNT; m++) {
		int want = has_required(m) ? API_ERR_INVALID_PARAMS : 0;

		field = "untouched";
		ASSERT_INT_EQ(api_check_params(m, NULL, msg, sizeof(msg), &field), want);
		if (want == 0) {
			CU_ASSERT_PTR_NULL(field);
			without++;
		} else {
			CU_ASSERT(field != NULL && api_methods[m].params[0].name != NULL);
			ASSERT_CONTAINS(msg, "is required");
			with++;
		}
		ASSERT_INT_EQ(api_check_params(m, jnull, msg, sizeof(msg), &field), want);
	}
	CU_ASSERT(without > 0 && with > 0);
	ASSERT_INT_EQ(api_check_params(API_M_SYSTEM_INFO, NULL, msg, sizeof(msg), &field), 0);
	ASSERT_INT_EQ(api_check_params(API_M_PORT_LIST, NULL, msg, sizeof(msg), &field), 0);
	ASSERT_INT_EQ(api_check_params(API_M_MAC_LIST, NULL, msg, sizeof(msg), &field),
		      API_ERR_INVALID_PARAMS);
	ASSERT_STR_EQ(field, API_F_NETWORK);
	cJSON_Delete(jnull);
}

/* Every integer parameter declares its range and unit; strings with a
 * bound are lengths in bytes. */
static void test_ranges_declared(void)
{
	int ints = 0, strings = 0;

	for (int m = 0; m < API_METHOD_COUNT; m++) {
		for (const struct api_field *f = api_methods[m].params; f->name != NULL; f++) {
			if (f->type == API_T_INT) {
				unit_check(f->unit != NULL && f->unit[0] != '\0', __LINE__,
					   __FILE__, "%s \"%s\": an integer without a unit",
					   api_methods[m].name, f->name);
				unit_check(f->min <= f->max, __LINE__, __FILE__,
					   "%s \"%s\": min %ld > max %ld", api_methods[m].name,
					   f->name, f->min, f->max);
				ints++;
			} else if (f->type == API_T_STRING && f->unit != NULL) {
				ASSERT_STR_EQ(f->unit, "bytes");
				ASSERT_INT_EQ(f->min, 0);
				CU_ASSERT(f->max > 0);
				strings++;
			} else {
				unit_check(f->unit == NULL, __LINE__, __FILE__,
					   "%s \"%s\": a bound on a %s", api_methods[m].name,
					   f->name, f->type == API_T_BOOL ? "bool" : "result type");
			}
		}
	}
	/* network.create 3, port.create 5, vf.alloc 1, capture.start 3, trace.add 1,
	 * queue.pin 2, queue.unpin 1, queue.balance 3; rate limits: port.create 6,
	 * policer.set 3, acl.show 2, acl.timeouts 3 */
	ASSERT_INT_EQ(ints, 33);
	CU_ASSERT(strings >= 10);

	/* The bounds are api.h's constants, which other readers share. */
	ASSERT_INT_EQ(api_param_find(API_M_PORT_CREATE, API_F_MTU)->min, API_MTU_MIN);
	ASSERT_INT_EQ(api_param_find(API_M_PORT_CREATE, API_F_MTU)->max, API_MTU_MAX);
	ASSERT_INT_EQ(api_param_find(API_M_NETWORK_CREATE, API_F_VLAN)->max, API_VLAN_MAX);
	ASSERT_INT_EQ(api_param_find(API_M_VF_ALLOC, API_F_VLAN)->max, API_VLAN_MAX);
	ASSERT_INT_EQ(api_param_find(API_M_PORT_CREATE, API_F_MAC_LIMIT)->max,
		      API_PORT_MAC_LIMIT_MAX);
	ASSERT_INT_EQ(api_param_find(API_M_NETWORK_CREATE, API_F_MAC_LIMIT)->max,
		      API_NET_MAC_LIMIT_MAX);
	ASSERT_INT_EQ(api_param_find(API_M_PORT_CREATE, API_F_SOCKET)->max, API_SOCKET_PATH_MAX);
	/* The defaults lie within their ranges. */
	ASSERT_INT_EQ(api_field_check_int(api_param_find(API_M_PORT_CREATE, API_F_MTU), "d",
					  API_MTU_DEFAULT, NULL, 0),
		      0);
	ASSERT_INT_EQ(api_field_check_int(api_param_find(API_M_PORT_CREATE, API_F_MAC_LIMIT), "d",
					  API_PORT_MAC_LIMIT, NULL, 0),
		      0);
	ASSERT_INT_EQ(api_field_check_int(api_param_find(API_M_NETWORK_CREATE, API_F_MAC_LIMIT),
					  "d", API_NET_MAC_LIMIT, NULL, 0),
		      0);
	ASSERT_INT_EQ(api_field_check_int(api_param_find(API_M_PORT_CREATE, API_F_FLOOD_LIMIT), "d",
					  API_FLOOD_LIMIT, NULL, 0),
		      0);
	ASSERT_INT_EQ(api_field_check_int(api_param_find(API_M_PORT_CREATE, API_F_TX_RETRIES), "d",
					  API_TX_RETRIES, NULL, 0),
		      0);
}

/* f of method m set to v (with m's other required fields): api_check_params'
 * verdict, checking that it left params as they were. */
static int check_one(int m, const struct api_field *f, cJSON *v, char *msg, size_t len,
		     const char **field)
{
	cJSON *p = params_for(m, f->name, false), *before;
	int rc;

	cJSON_AddItemToObject(p, f->name, v);
	before = cJSON_Duplicate(p, true);
	msg[0] = '\0';
	*field = NULL;
	rc = api_check_params(m, p, msg, len, field);
	CU_ASSERT(cJSON_Compare(before, p, true));
	cJSON_Delete(before);
	cJSON_Delete(p);
	return rc;
}

/* Every integer: min-1 and max+1 refused, naming the field and the range;
 * min and max taken. */
static void test_ranges_boundaries(void)
{
	char msg[512], want[128];
	const char *field;

	for (int m = 0; m < API_METHOD_COUNT; m++) {
		for (const struct api_field *f = api_methods[m].params; f->name != NULL; f++) {
			const long ok[] = {f->min, f->max}, bad[] = {f->min - 1, f->max + 1};
			int rc;

			if (f->type != API_T_INT)
				continue;
			for (int i = 0; i < 2; i++) {
				rc = check_one(m, f, cJSON_CreateNumber((double)ok[i]), msg,
					       sizeof(msg), &field);
				unit_check(rc == 0, __LINE__, __FILE__, "%s \"%s\" = %ld: %s",
					   api_methods[m].name, f->name, ok[i], msg);
			}
			for (int i = 0; i < 2; i++) {
				rc = check_one(m, f, cJSON_CreateNumber((double)bad[i]), msg,
					       sizeof(msg), &field);
				unit_check(rc == API_ERR_INVALID_PARAMS, __LINE__, __FILE__,
					   "%s \"%s\" = %ld taken", api_methods[m].name, f->name,
					   bad[i]);
				ASSERT_STR_EQ(field, f->name);
				ASSERT_CONTAINS(msg, api_methods[m].name);
				snprintf(want, sizeof(want),
					 "\"%s\" is %ld, it must be %ld-%ld (%s)", f->name, bad[i],
					 f->min, f->max, f->unit);
				ASSERT_CONTAINS(msg, want);
				ASSERT_CONTAINS(msg, f->help);
			}
		}
	}
	/* Far out: beyond an int, and beyond a long (saturated, not wrapped). */
	{
		cJSON *p = cJSON_Parse("{\"name\":\"n\",\"vlan\":4294967296}");

		ASSERT_INT_EQ(api_check_params(API_M_NETWORK_CREATE, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		ASSERT_STR_EQ(field, "vlan");
		cJSON_Delete(p);
		p = cJSON_Parse("{\"name\":\"n\",\"mac_limit\":-9223372036854775808}");
		ASSERT_INT_EQ(api_check_params(API_M_NETWORK_CREATE, p, msg, sizeof(msg), &field),
			      API_ERR_INVALID_PARAMS);
		ASSERT_STR_EQ(field, "mac_limit");
		cJSON_Delete(p);
	}
}

static void test_ranges_string_lengths(void)
{
	char msg[512], want[128], text[2048];
	const char *field;

	for (int m = 0; m < API_METHOD_COUNT; m++) {
		for (const struct api_field *f = api_methods[m].params; f->name != NULL; f++) {
			int rc;

			if (f->type != API_T_STRING || f->unit == NULL)
				continue;
			CU_ASSERT_FATAL(f->max + 1 < (long)sizeof(text));
			memset(text, 'a', (size_t)f->max);
			text[f->max] = '\0';
			/* The length alone is checked here; the shape by the
			 * validators after. */
			rc = check_one(m, f, cJSON_CreateString(text), msg, sizeof(msg), &field);
			unit_check(rc == 0, __LINE__, __FILE__, "%s \"%s\" of %ld bytes: %s",
				   api_methods[m].name, f->name, f->max, msg);
			text[f->max] = 'a';
			text[f->max + 1] = '\0';
			rc = check_one(m, f, cJSON_CreateString(text), msg, sizeof(msg), &field);
			unit_check(rc == API_ERR_INVALID_PARAMS, __LINE__, __FILE__,
				   "%s \"%s\" of %ld bytes taken", api_methods[m].name, f->name,
				   f->max + 1);
			ASSERT_STR_EQ(field, f->name);
			snprintf(want, sizeof(want), "\"%s\" is %ld bytes, the limit is %ld",
				 f->name, f->max + 1, f->max);
			ASSERT_CONTAINS(msg, want);
		}
	}
}

static void test_ranges_message(void)
{
	char msg[512];
	const char *field;
	cJSON *p;

	/* The object is named when the request names it. */
	p = cJSON_Parse("{\"name\":\"x\",\"network\":\"n\",\"type\":\"null\",\"mtu\":70000}");
	ASSERT_INT_EQ(api_check_params(API_M_PORT_CREATE, p, msg, sizeof(msg), &field),
		      API_ERR_INVALID_PARAMS);
	ASSERT_STR_EQ(field, "mtu");
	ASSERT_STR_EQ(msg, "port.create: port \"x\": \"mtu\" is 70000, it must be 68-9000 (bytes); "
			   "the largest frame payload (default 1500)");
	cJSON_Delete(p);

	p = cJSON_Parse("{\"name\":\"n1\",\"flood_limit\":-1}");
	ASSERT_INT_EQ(api_check_params(API_M_NETWORK_CREATE, p, msg, sizeof(msg), &field),
		      API_ERR_INVALID_PARAMS);
	ASSERT_CONTAINS(msg, "network.create: network \"n1\": \"flood_limit\" is -1, it must be "
			     "0-10000000 (frames/s); ");
	ASSERT_CONTAINS(msg, "0 for no limit");
	cJSON_Delete(p);

	/* No name: the method alone. */
	p = cJSON_Parse("{\"physnet\":\"p\",\"owner\":\"o\",\"vlan\":4095}");
	ASSERT_INT_EQ(api_check_params(API_M_VF_ALLOC, p, msg, sizeof(msg), &field),
		      API_ERR_INVALID_PARAMS);
	ASSERT_STR_EQ(field, "vlan");
	ASSERT_CONTAINS(msg, "vf.alloc: \"vlan\" is 4095, it must be 0-4094 (VLAN id); ");
	cJSON_Delete(p);

	p = cJSON_Parse("{\"count\":1001}");
	ASSERT_INT_EQ(api_check_params(API_M_TRACE_ADD, p, msg, sizeof(msg), &field),
		      API_ERR_INVALID_PARAMS);
	ASSERT_STR_EQ(msg, "trace.add: \"count\" is 1001, it must be 1-1000 (frames); frames to "
			   "record");
	cJSON_Delete(p);

	/* A name too long is not repeated in the other fields' messages. */
	p = cJSON_Parse(
	    "{\"name\":\"a234567890123456789012345678901234567890123456789012345678901234\","
	    "\"network\":\"n\",\"type\":\"null\",\"tx_retries\":65}");
	ASSERT_INT_EQ(api_check_params(API_M_PORT_CREATE, p, msg, sizeof(msg), &field),
		      API_ERR_INVALID_PARAMS);
	ASSERT_STR_EQ(field, "name");
	ASSERT_STR_EQ(msg, "port.create: \"name\" is 64 bytes, the limit is 63; characters of "
			   "[A-Za-z0-9._-]");
	cJSON_Delete(p);

	/* A required field's hint carries the range. */
	p = cJSON_CreateObject();
	ASSERT_INT_EQ(api_check_params(API_M_TRACE_ADD, p, msg, sizeof(msg), &field),
		      API_ERR_INVALID_PARAMS);
	ASSERT_STR_EQ(msg, "trace.add: field \"count\" is required: 1-1000 (frames); frames to "
			   "record");
	cJSON_Delete(p);
}

static void test_ranges_lookup(void)
{
	const struct api_field *f = api_param_find(API_M_PORT_CREATE, API_F_MAC_LIMIT);
	char msg[512];

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	ASSERT_STR_EQ(f->name, "mac_limit");
	CU_ASSERT_PTR_NULL(api_param_find(API_M_PORT_CREATE, "macLimit"));
	CU_ASSERT_PTR_NULL(api_param_find(API_M_SYSTEM_INFO, API_F_NAME));
	/* A reader's own name for the field in the message. */
	ASSERT_INT_EQ(api_field_check_int(f, "\"macLimit\"", 1, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(api_field_check_int(f, "\"macLimit\"", 65536, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(api_field_check_int(f, "\"macLimit\"", 0, msg, sizeof(msg)), -ERANGE);
	ASSERT_CONTAINS(msg, "\"macLimit\" is 0, it must be 1-65536 (MACs); ");
	ASSERT_INT_EQ(api_field_check_int(f, "\"macLimit\"", 65537, msg, sizeof(msg)), -ERANGE);
	/* A field without a range takes anything. */
	ASSERT_INT_EQ(api_field_check_int(api_param_find(API_M_PORT_CREATE, API_F_MAC), "m", -5,
					  msg, sizeof(msg)),
		      0);
}

/* Serialises and parses back, so the test sees what goes on the wire. */
static cJSON *wire(const cJSON *o)
{
	char *text = cJSON_PrintUnformatted(o);
	cJSON *back;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(strchr(text, '\n') == NULL); /* one object per line */
	back = cJSON_Parse(text);
	free(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(back);
	return back;
}

static int n_members(const cJSON *o)
{
	return cJSON_GetArraySize(o);
}

static void test_request_new(void)
{
	cJSON *params = cJSON_CreateObject(), *req, *w, *p;

	cJSON_AddStringToObject(params, "name", "pod1");
	req = api_request_new(7, "port.get", params);
	CU_ASSERT_PTR_NOT_NULL_FATAL(req);
	w = wire(req);
	ASSERT_STR_EQ(api_get_str(w, "jsonrpc", NULL), "2.0");
	CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(w, "id")));
	ASSERT_INT_EQ(api_get_int(w, "id", -1), 7);
	ASSERT_STR_EQ(api_get_str(w, "method", NULL), "port.get");
	p = cJSON_GetObjectItemCaseSensitive(w, "params");
	CU_ASSERT_FATAL(cJSON_IsObject(p));
	ASSERT_STR_EQ(api_get_str(p, "name", NULL), "pod1");
	ASSERT_INT_EQ(n_members(w), 4);
	cJSON_Delete(w);
	cJSON_Delete(req); /* owns params */

	/* No params: an empty object, so servers need not special-case it. */
	req = api_request_new(0, "system.info", NULL);
	w = wire(req);
	p = cJSON_GetObjectItemCaseSensitive(w, "params");
	CU_ASSERT(cJSON_IsObject(p));
	ASSERT_INT_EQ(n_members(p), 0);
	ASSERT_INT_EQ(api_get_int(w, "id", -1), 0);
	cJSON_Delete(w);
	cJSON_Delete(req);
}

static void test_result_new(void)
{
	cJSON *id = cJSON_CreateNumber(42), *sid = cJSON_CreateString("abc");
	cJSON *result = cJSON_CreateObject(), *resp, *w, *r;

	cJSON_AddNumberToObject(result, "ports", 3);
	resp = api_result_new(id, result);
	CU_ASSERT_PTR_NOT_NULL_FATAL(resp);
	w = wire(resp);
	ASSERT_STR_EQ(api_get_str(w, "jsonrpc", NULL), "2.0");
	ASSERT_INT_EQ(api_get_int(w, "id", -1), 42);
	r = cJSON_GetObjectItemCaseSensitive(w, "result");
	CU_ASSERT_FATAL(cJSON_IsObject(r));
	ASSERT_INT_EQ(api_get_int(r, "ports", -1), 3);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(w, "error"));
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(w, "method"));
	ASSERT_INT_EQ(n_members(w), 3);
	cJSON_Delete(w);
	cJSON_Delete(resp);
	/* The id is copied, not taken: the request can still be freed. */
	ASSERT_INT_EQ((long)id->valuedouble, 42);

	/* A string id comes back as a string. */
	resp = api_result_new(sid, NULL);
	w = wire(resp);
	ASSERT_STR_EQ(api_get_str(w, "id", NULL), "abc");
	r = cJSON_GetObjectItemCaseSensitive(w, "result");
	CU_ASSERT(cJSON_IsObject(r) && n_members(r) == 0);
	cJSON_Delete(w);
	cJSON_Delete(resp);

	/* Without an id (unparsable request): "id": null, still present. */
	resp = api_result_new(NULL, cJSON_CreateArray());
	w = wire(resp);
	CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(w, "id")));
	CU_ASSERT(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(w, "result")));
	cJSON_Delete(w);
	cJSON_Delete(resp);

	cJSON_Delete(id);
	cJSON_Delete(sid);
}

static void test_error_new(void)
{
	cJSON *id = cJSON_CreateNumber(9), *resp, *w, *e, *d;

	resp = api_error_new(id, API_ERR_INVALID_PARAMS, "port \"p\": MTU 9001 is out of range",
			     "mtu");
	CU_ASSERT_PTR_NOT_NULL_FATAL(resp);
	w = wire(resp);
	ASSERT_STR_EQ(api_get_str(w, "jsonrpc", NULL), "2.0");
	ASSERT_INT_EQ(api_get_int(w, "id", -1), 9);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(w, "result"));
	ASSERT_INT_EQ(n_members(w), 3);
	e = cJSON_GetObjectItemCaseSensitive(w, "error");
	CU_ASSERT_FATAL(cJSON_IsObject(e));
	CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "code")));
	ASSERT_INT_EQ(api_get_int(e, "code", 0), -32602);
	ASSERT_STR_EQ(api_get_str(e, "message", NULL), "port \"p\": MTU 9001 is out of range");
	d = cJSON_GetObjectItemCaseSensitive(e, "data");
	CU_ASSERT_FATAL(cJSON_IsObject(d));
	ASSERT_STR_EQ(api_get_str(d, "field", NULL), "mtu");
	cJSON_Delete(w);
	cJSON_Delete(resp);

	/* No field: no data member. Application codes pass through. */
	resp = api_error_new(NULL, API_ERR_NOT_FOUND, "network \"n9\" does not exist", NULL);
	w = wire(resp);
	CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(w, "id")));
	e = cJSON_GetObjectItemCaseSensitive(w, "error");
	CU_ASSERT_FATAL(cJSON_IsObject(e));
	ASSERT_INT_EQ(api_get_int(e, "code", 0), 1001);
	ASSERT_STR_EQ(api_get_str(e, "message", NULL), "network \"n9\" does not exist");
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(e, "data"));
	cJSON_Delete(w);
	cJSON_Delete(resp);
	cJSON_Delete(id);
}

static void test_error_codes(void)
{
	/* JSON-RPC 2.0 reserves these values. */
	ASSERT_INT_EQ(API_ERR_PARSE, -32700);
	ASSERT_INT_EQ(API_ERR_INVALID_REQUEST, -32600);
	ASSERT_INT_EQ(API_ERR_NO_METHOD, -32601);
	ASSERT_INT_EQ(API_ERR_INVALID_PARAMS, -32602);
	ASSERT_INT_EQ(API_ERR_INTERNAL, -32603);
}

static void test_getters(void)
{
	cJSON *o = cJSON_Parse("{\"s\":\"v\",\"i\":12,\"b\":true,\"f\":false,\"n\":null}");

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	ASSERT_STR_EQ(api_get_str(o, "s", "d"), "v");
	ASSERT_STR_EQ(api_get_str(o, "i", "d"), "d");
	ASSERT_STR_EQ(api_get_str(o, "missing", "d"), "d");
	CU_ASSERT_PTR_NULL(api_get_str(o, "n", NULL));
	ASSERT_INT_EQ(api_get_int(o, "i", -1), 12);
	ASSERT_INT_EQ(api_get_int(o, "s", -1), -1);
	ASSERT_INT_EQ(api_get_int(o, "missing", 77), 77);
	CU_ASSERT(api_get_bool(o, "b", false) == true);
	CU_ASSERT(api_get_bool(o, "f", true) == false);
	CU_ASSERT(api_get_bool(o, "i", true) == true);
	CU_ASSERT(api_get_bool(o, "missing", false) == false);
	/* A missing object is the same as a missing field. */
	ASSERT_STR_EQ(api_get_str(NULL, "s", "d"), "d");
	ASSERT_INT_EQ(api_get_int(NULL, "i", 5), 5);
	cJSON_Delete(o);
	/* Numbers a long cannot hold: never an integer, saturated when read. */
	o = cJSON_Parse("{\"big\":1e300,\"small\":-1e300,\"edge\":9223372036854775807}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	ASSERT_INT_EQ(api_get_int(o, "big", 0), LONG_MAX);
	ASSERT_INT_EQ(api_get_int(o, "small", 0), LONG_MIN);
	CU_ASSERT(!api_number_is_long(1e300));
	CU_ASSERT(!api_number_is_long(9223372036854775808.0));
	CU_ASSERT(api_number_is_long(-9223372036854775808.0));
	CU_ASSERT(!api_number_is_long(1.0 / 0.0));
	CU_ASSERT(api_number_is_long(42));
	ASSERT_INT_EQ(api_number_to_long(0.0 / 0.0), 0);
	cJSON_Delete(o);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"method lookup: every method", test_method_lookup},
	    {"method lookup: unknown", test_method_lookup_unknown},
	    {"params: required and all fields accepted", test_params_ok},
	    {"params: unknown field lists the known ones", test_params_unknown_field},
	    {"params: missing required field", test_params_missing_required},
	    {"params: wrong type", test_params_wrong_type},
	    {"params: not an object", test_params_not_object},
	    {"params: none given", test_params_null},
	    {"ranges: every integer has one, with a unit", test_ranges_declared},
	    {"ranges: each bound enforced at the boundary", test_ranges_boundaries},
	    {"ranges: strings' lengths enforced at the limit", test_ranges_string_lengths},
	    {"ranges: the message names method, object, field, range, unit", test_ranges_message},
	    {"ranges: lookup by method and field for other readers", test_ranges_lookup},
	    {"request shape", test_request_new},
	    {"result shape", test_result_new},
	    {"error shape", test_error_new},
	    {"standard error codes", test_error_codes},
	    {"field getters", test_getters},
	    {NULL, NULL},
	};

	return unit_run("api", tests);
}
