/* SPDX-License-Identifier: BSD-3-Clause */
/* queue list, pin, unpin and balance: what the daemon answered, for people. */
#include <stdio.h>

#include "api.h"
#include "ctl.h"
#include "ctl_table.h"

/* Made here from queue.list's figures (frames and a share over the
 * window), so the table shows rates. */
#define Q_RX_PPS "rx_pps"
#define Q_PINNED "pinned_text"

static const struct column queue_cols[] = {
    {"PORT", API_F_PORT, COL_STR},	   {"QUEUE", API_F_QUEUE, COL_INT},
    {"WORKER", API_F_WORKER, COL_INT},	   {"ENABLED", API_F_ENABLED, COL_BOOL},
    {"PINNED", Q_PINNED, COL_STR},	   {"RX/S", Q_RX_PPS, COL_U64},
    {"BUSY", API_R_BUSY_PCT, COL_PCT},	   {"RX-TOTAL", API_R_RX_TOTAL, COL_U64},
    {"TX-TOTAL", API_R_TX_TOTAL, COL_U64}, {NULL}};

static double number(const cJSON *o, const char *field)
{
	const cJSON *v = ctl_member(o, field);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

void ctl_print_queue_list(const cJSON *result)
{
	double window = number(result, API_R_WINDOW);
	cJSON *rows = cJSON_CreateArray();
	const cJSON *q, *w;
	int n = 0;

	cJSON_ArrayForEach (q, ctl_member(result, API_R_QUEUES)) {
		cJSON *row = cJSON_Duplicate(q, true);

		if (row == NULL)
			continue;
		/* Nothing measured yet: no rate and no share rather than 0. */
		if (window > 0)
			cJSON_AddNumberToObject(row, Q_RX_PPS,
						number(q, API_R_RX_PACKETS) / window);
		else
			cJSON_DeleteItemFromObjectCaseSensitive(row, API_R_BUSY_PCT);
		cJSON_AddStringToObject(row, Q_PINNED,
					cJSON_IsTrue(ctl_member(q, API_R_FIXED))    ? "uplink"
					: cJSON_IsTrue(ctl_member(q, API_R_PINNED)) ? "yes"
										    : "no");
		cJSON_AddItemToArray(rows, row);
	}
	ctl_print_table(rows, queue_cols);
	cJSON_Delete(rows);
	if (window > 0)
		printf("\nworkers, load over the last %.0f s:", window);
	else
		printf("\nworkers (no load measured yet):");
	cJSON_ArrayForEach (w, ctl_member(result, API_R_WORKERS)) {
		long nq = api_get_int(w, API_R_QUEUES, 0);

		printf("%s core %ld: %ld queue%s", n++ ? ";" : "", api_get_int(w, API_R_LCORE, -1),
		       nq, nq == 1 ? "" : "s");
		if (window > 0)
			printf(", %.1f%% busy", number(w, API_R_BUSY_PCT));
	}
	putchar('\n');
}

void ctl_print_queue_pin(const cJSON *params, const cJSON *result, bool pin)
{
	(void)params;
	if (pin)
		printf("port \"%s\" queue %ld pinned on the worker on core %ld\n",
		       ctl_str(result, API_F_PORT), api_get_int(result, API_F_QUEUE, -1),
		       api_get_int(result, API_F_WORKER, -1));
	else
		printf("port \"%s\" queue %ld unpinned: it stays on core %ld until the balancer "
		       "moves it\n",
		       ctl_str(result, API_F_PORT), api_get_int(result, API_F_QUEUE, -1),
		       api_get_int(result, API_F_WORKER, -1));
}

void ctl_print_queue_balance(const cJSON *result)
{
	const cJSON *moved = ctl_member(result, API_R_MOVED);
	const char *last = api_get_str(result, API_R_LAST, "");

	printf("balancer: %s, a check every %ld s: it moves unpinned queues when the busiest "
	       "worker is %ld%% busy or more and a new placement narrows the gap to the idlest "
	       "by %ld%% or more\n",
	       cJSON_IsTrue(ctl_member(result, API_F_ENABLED)) ? "on" : "off",
	       api_get_int(result, API_F_INTERVAL, 0), api_get_int(result, API_F_THRESHOLD, 0),
	       api_get_int(result, API_F_IMPROVEMENT, 0));
	printf("checks: %llu, %llu moved queues (the last move: %llu queues)\n",
	       ctl_u64(ctl_member(result, API_R_CHECKS)), ctl_u64(ctl_member(result, API_R_MOVES)),
	       ctl_u64(ctl_member(result, API_R_LAST_MOVED)));
	printf("last check: %s\n", last[0] != '\0' ? last : "none yet");
	if (moved != NULL)
		printf("this check %s\n", cJSON_IsTrue(moved) ? "moved queues" : "moved nothing");
}
