/* SPDX-License-Identifier: BSD-3-Clause */
/* trace show, printed as VPP prints its traces: one packet, its nodes. */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "ctl.h"

static const char *lookup_text(const char *l)
{
	if (strcmp(l, "learned") == 0)
		return "destination learned";
	if (strcmp(l, "flood") == 0)
		return "broadcast/multicast: flooded";
	if (strcmp(l, "unknown") == 0)
		return "unknown unicast: flooded";
	if (strcmp(l, "xconnect") == 0)
		return "cross-connect: to the peer, no lookup";
	return "none";
}

void ctl_print_trace(const cJSON *result)
{
	const cJSON *t, *o;
	int n = 0;

	cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive(result, API_R_TRACES)) {
		const cJSON *tv = cJSON_GetObjectItemCaseSensitive(t, API_R_TIME);
		double ts = cJSON_IsNumber(tv) ? tv->valuedouble : 0;
		const char *drop = api_get_str(t, API_R_DROP, "");
		const char *lookup = api_get_str(t, API_R_LOOKUP, "none");
		const cJSON *outs = cJSON_GetObjectItemCaseSensitive(t, API_R_OUTPUTS);
		long dsts = api_get_int(t, API_R_DESTINATIONS, 0);

		n++;
		printf("%sPacket %ld\n\n", n > 1 ? "\n" : "", api_get_int(t, API_R_SEQ, 0));
		printf("%.6f: podwire-input\n", ts);
		printf("  port %s, network %s, %ld bytes\n", api_get_str(t, API_F_PORT, "?"),
		       api_get_str(t, API_F_NETWORK, "?"), api_get_int(t, API_R_LEN, 0));
		printf("  %s -> %s, type %s\n", api_get_str(t, API_R_SRC, "?"),
		       api_get_str(t, API_R_DST, "?"), api_get_str(t, API_R_ETHERTYPE, "?"));
		printf("%.6f: vlan\n  %s\n", ts, api_get_str(t, API_R_VLAN_ACTION, "?"));
		if (cJSON_GetObjectItemCaseSensitive(t, API_R_ACL) != NULL)
			printf("%.6f: acl\n  %s\n", ts, api_get_str(t, API_R_ACL, "?"));
		if (strcmp(lookup, "none") != 0) {
			printf("%.6f: l2-lookup\n  %s", ts, lookup_text(lookup));
			if (strcmp(lookup, "learned") == 0 || strcmp(lookup, "xconnect") == 0)
				printf(": %s", cJSON_GetArraySize(outs) > 0
						   ? api_get_str(cJSON_GetArrayItem(outs, 0),
								 API_F_PORT, "?")
						   : "its ingress port");
			putchar('\n');
		}
		if (cJSON_GetArraySize(outs) > 0) {
			printf("%.6f: l2-output\n", ts);
			cJSON_ArrayForEach (o, outs)
				printf("  %s: %s\n", api_get_str(o, API_F_PORT, "?"),
				       api_get_str(o, API_R_RESULT, "?"));
			if (dsts > cJSON_GetArraySize(outs))
				printf("  ... and %ld more\n", dsts - cJSON_GetArraySize(outs));
		}
		if (drop[0] != '\0')
			printf("%.6f: error-drop\n  %s\n", ts, drop);
	}
	if (n == 0)
		printf("no frames traced");
	else
		printf("\n%d frames traced", n);
	printf("; %ld still to trace\n", api_get_int(result, API_R_REMAINING, 0));
}
