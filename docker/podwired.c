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
	/* Each try consumes its params: a copy is kept for a second try,
	 * made when the first finds the connection gone (podwired restarted). */
	cJSON *again = params != NULL ? cJSON_Duplicate(params, true) : NULL;
	cJSON *res = NULL;

	if (result != NULL)
		*result = NULL;
	for (int attempt = 0; attempt < 2; attempt++) {
		cJSON *p = attempt == 0 ? params : again;

		if (attempt == 1)
			again = NULL;
		if (ensure(pe) != 0) {
			cJSON_Delete(p);
			break;
		}
		if (pw_client_call(conn, method, p, &res, pe) == 0) {
			cJSON_Delete(again);
			if (result != NULL)
				*result = res;
			else
				cJSON_Delete(res);
			return 0;
		}
		if (pe->code != 0)
			break; /* podwired answered: a refusal, not a lost connection */
		pw_client_close(conn);
		conn = NULL;
	}
	cJSON_Delete(again);
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
