/* SPDX-License-Identifier: BSD-3-Clause */
/* The driver's connection to podwired: made on first use, remade once
 * when a call fails for want of it (podwired restarted). */
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "driver.h"

static struct pw_client *conn;

static int ensure(struct pw_error *pe)
{
	if (conn != NULL)
		return 0;
	conn = pw_client_connect(dk_cfg.podwired_socket, dk_cfg.podwired_timeout_ms, pe);
	if (conn == NULL) {
		/* The library's hint speaks of podwirectl's --socket. */
		char *hint = strstr(pe->message, "; ");

		if (hint != NULL && pe->code == 0)
			snprintf(hint, sizeof(pe->message) - (size_t)(hint - pe->message),
				 "; start podwired, or give podwire-docker --podwired-socket");
		return -1;
	}
	return 0;
}

int pw_call(const char *method, cJSON *params, cJSON **result, struct pw_error *pe)
{
	cJSON *res = NULL, *copy = NULL;
	int rc;

	if (result != NULL)
		*result = NULL;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (ensure(pe) != 0) {
			cJSON_Delete(params);
			cJSON_Delete(copy);
			return -1;
		}
		/* The call consumes params; keep a copy for the second try. */
		copy = attempt == 0 && params != NULL ? cJSON_Duplicate(params, true) : NULL;
		rc = pw_client_call(conn, method, params, &res, pe);
		params = copy;
		if (rc == 0) {
			cJSON_Delete(copy);
			if (result != NULL)
				*result = res;
			else
				cJSON_Delete(res);
			return 0;
		}
		if (pe->code != 0) {
			cJSON_Delete(copy);
			return -1; /* podwired answered: a refusal, not a lost connection */
		}
		pw_client_close(conn);
		conn = NULL;
	}
	cJSON_Delete(params);
	return -1;
}

int pw_port_delete(const char *name, struct pw_error *pe)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, API_F_NAME, name);
	if (pw_call(API_NAME(PORT_DELETE), p, NULL, pe) == 0 || pe->code == API_ERR_NOT_FOUND)
		return 0;
	return -1;
}
