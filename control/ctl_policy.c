/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwirectl's printers for per-port policy: mirrors, rate limits and the sessions' timeouts
 * (podwirectl.c has the command table).
 */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "ctl.h"
#include "ctl_table.h"

static const struct column mirror_cols[] = {{"NAME", API_F_NAME, COL_STR},
					    {"PORTS", API_F_PORTS, COL_LIST},
					    {"DIRECTION", API_F_DIRECTION, COL_STR},
					    {"TO", API_F_TO, COL_STR},
					    {"ACL", API_F_ACL, COL_STR},
					    {"COPIES", API_R_COPIES, COL_U64},
					    {"DROPPED", API_R_DROPPED, COL_U64},
					    {NULL}};

void ctl_print_mirror_created(const cJSON *result)
{
	char ports[1200];
	const struct column col = {"", API_F_PORTS, COL_LIST};

	const cJSON *acl = ctl_member(result, API_F_ACL);

	ctl_format_cell(ports, sizeof(ports), result, &col);
	printf("mirror \"%s\" created: %s of %s%s%s%s copied to port \"%s\", which receives "
	       "nothing else\n",
	       ctl_str(result, API_F_NAME), ctl_str(result, API_F_DIRECTION), ports,
	       cJSON_IsString(acl) ? " (what list \"" : "",
	       cJSON_IsString(acl) ? acl->valuestring : "",
	       cJSON_IsString(acl) ? "\" permits)" : "", ctl_str(result, API_F_TO));
}

void ctl_print_mirror_list(const cJSON *result)
{
	const cJSON *all = ctl_member(result, API_R_MIRRORS);

	if (cJSON_GetArraySize(all) == 0) {
		printf("no mirror\n");
		return;
	}
	ctl_print_table(all, mirror_cols);
}

/* "10000 frames/s, burst 100 frames" or "none", for one direction. */
static void format_rate(char *buf, size_t len, const cJSON *port, const char *dir)
{
	char pps[32], bps[32], burst[32];
	const cJSON *v;

	snprintf(pps, sizeof(pps), "rate_%s_pps", dir);
	snprintf(bps, sizeof(bps), "rate_%s_bps", dir);
	snprintf(burst, sizeof(burst), "rate_%s_burst", dir);
	v = ctl_member(port, pps);
	if (v == NULL)
		v = ctl_member(port, bps);
	if (!cJSON_IsNumber(v)) {
		snprintf(buf, len, "none");
		return;
	}
	snprintf(buf, len, "%.0f %s, burst %.0f %s", v->valuedouble,
		 v == ctl_member(port, pps) ? "frames/s" : "bits/s",
		 cJSON_IsNumber(ctl_member(port, burst)) ? ctl_member(port, burst)->valuedouble : 0,
		 v == ctl_member(port, pps) ? "frames" : "bytes");
}

void ctl_print_rates(const cJSON *port)
{
	char buf[128];

	format_rate(buf, sizeof(buf), port, "in");
	printf("%-13s %s\n", "rate in:", buf);
	format_rate(buf, sizeof(buf), port, "out");
	printf("%-13s %s\n", "rate out:", buf);
}

void ctl_print_policer(const cJSON *result)
{
	char in[128], out[128];

	format_rate(in, sizeof(in), result, "in");
	format_rate(out, sizeof(out), result, "out");
	printf("port \"%s\": ingress (what its pod sends) %s; egress (what it receives) %s\n",
	       ctl_str(result, API_F_NAME), in, out);
}

void ctl_print_acl_timeouts(const cJSON *result)
{
	printf("permit+reflect sessions end after idle: tcp %llu s, udp %llu s, other %llu s\n",
	       ctl_u64(ctl_member(result, API_F_TCP)), ctl_u64(ctl_member(result, API_F_UDP)),
	       ctl_u64(ctl_member(result, API_F_OTHER)));
}
