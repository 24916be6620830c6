/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An API request line, read as podwired's server reads it: JSON, the
 * JSON-RPC frame, the method, every method's parameter check against
 * control/api.h, then the validation of the methods that take a
 * configuration (port.create and network.create, the same parsers the
 * state file uses). An accepted port or network is written back as JSON
 * and must parse to the same thing again.
 */
#include "fuzz.h"

#include "api.h"
#include "model/network.h"
#include "model/port_conf.h"
#include "validate.h"

static void port_round_trip(const struct port_conf *c)
{
	cJSON *o = port_conf_to_json(c, true);
	struct port_conf again;
	const char *field;
	char msg[1024];

	if (port_conf_parse(o, false, &again, msg, sizeof(msg), &field) != 0 ||
	    memcmp(&again, c, sizeof(again)) != 0)
		abort(); /* an accepted port must survive the state file */
	cJSON_Delete(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *req = cJSON_ParseWithLength((const char *)data, size);
	const cJSON *method, *params;
	const char *field = NULL;
	char msg[1024];
	int m;

	if (req == NULL)
		return 0;
	method = cJSON_GetObjectItemCaseSensitive(req, "method");
	params = cJSON_GetObjectItemCaseSensitive(req, "params");
	m = cJSON_IsString(method) ? api_method_lookup(method->valuestring) : -1;
	if (m < 0 || api_check_params((enum api_method)m, params, msg, sizeof(msg), &field) != 0)
		goto out;
	if (m == API_M_PORT_CREATE) {
		struct port_conf c;

		if (port_conf_parse(params, false, &c, msg, sizeof(msg), &field) == 0)
			port_round_trip(&c);
	} else if (m == API_M_NETWORK_CREATE) {
		struct net_conf c;

		net_conf_parse(params, &c, msg, sizeof(msg), &field);
	}
	/* Every name a method looks up is checked as a name first. */
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(params, API_F_NAME)))
		validate_name("fuzz",
			      cJSON_GetObjectItemCaseSensitive(params, API_F_NAME)->valuestring,
			      msg, sizeof(msg));
out:
	cJSON_Delete(req);
	return 0;
}
