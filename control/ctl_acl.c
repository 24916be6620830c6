/* SPDX-License-Identifier: BSD-3-Clause */
/* podwirectl acl: set (rules from a file or the command line) and the
 * printers of list, show, attach and detach. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "client.h"
#include "ctl.h"
#include "ctl_table.h"
#include "files.h"

/* Largest rules file: 16384 rules of a hundred bytes or so. */
#define RULES_FILE_MAX (8u << 20)

static int set_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "podwirectl: error: acl set: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: podwirectl acl set %s\n", CTL_ACL_SET_ARGS);
	return CTL_EXIT_USAGE;
}

/* --file: a JSON array of rules, or an object with "rules" (and
 * "default", which --default overrides). */
static int read_rules_file(const char *path, cJSON *params)
{
	cJSON *doc = NULL, *rules;
	char msg[512];

	if (json_file_read(path, RULES_FILE_MAX, &doc, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "podwirectl: error: acl set --file: %s\n", msg);
		return CTL_EXIT_USAGE;
	}
	if (cJSON_IsObject(doc)) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, API_F_DEFAULT);

		if (cJSON_IsString(d) &&
		    cJSON_GetObjectItemCaseSensitive(params, API_F_DEFAULT) == NULL)
			cJSON_AddStringToObject(params, API_F_DEFAULT, d->valuestring);
		rules = cJSON_DetachItemFromObjectCaseSensitive(doc, API_F_RULES);
	} else {
		rules = cJSON_IsArray(doc) ? cJSON_Duplicate(doc, true) : NULL;
	}
	cJSON_Delete(doc);
	if (!cJSON_IsArray(rules)) {
		cJSON_Delete(rules);
		fprintf(stderr,
			"podwirectl: error: acl set --file %s: give a JSON array of rules, or an "
			"object {\"default\": ..., \"rules\": [...]}\n",
			path);
		return CTL_EXIT_USAGE;
	}
	cJSON_AddItemToObject(params, API_F_RULES, rules);
	return CTL_EXIT_OK;
}

int ctl_acl_set(const char *sock, int timeout_ms, bool json, int argc, char **argv)
{
	cJSON *params = cJSON_CreateObject(), *rules = NULL, *result = NULL;
	const char *file = NULL;
	struct pw_error err = {0};
	struct pw_client *c;
	int ret = CTL_EXIT_OK;

	for (int i = 0; i < argc && ret == CTL_EXIT_OK; i++) {
		const char *a = argv[i];

		if ((strcmp(a, "--file") == 0 || strcmp(a, "--rule") == 0 ||
		     strcmp(a, "--default") == 0) &&
		    i + 1 >= argc) {
			ret = set_usage("%s needs a value", a);
		} else if (strcmp(a, "--file") == 0) {
			file = argv[++i];
		} else if (strcmp(a, "--default") == 0) {
			cJSON_DeleteItemFromObjectCaseSensitive(params, API_F_DEFAULT);
			cJSON_AddStringToObject(params, API_F_DEFAULT, argv[++i]);
		} else if (strcmp(a, "--rule") == 0) {
			cJSON *r = cJSON_Parse(argv[++i]);

			if (!cJSON_IsObject(r)) {
				cJSON_Delete(r);
				ret = set_usage(
				    "--rule %s is not a JSON object such as "
				    "'{\"action\":\"deny\",\"proto\":\"tcp\",\"dport\":22}'",
				    argv[i]);
				break;
			}
			if (rules == NULL)
				rules = cJSON_AddArrayToObject(params, API_F_RULES);
			cJSON_AddItemToArray(rules, r);
		} else if (a[0] == '-') {
			ret = set_usage("unknown option \"%s\"", a);
		} else if (cJSON_GetObjectItemCaseSensitive(params, API_F_NAME) == NULL) {
			cJSON_AddStringToObject(params, API_F_NAME, a);
		} else {
			ret = set_usage("unexpected argument \"%s\"", a);
		}
	}
	if (ret == CTL_EXIT_OK && cJSON_GetObjectItemCaseSensitive(params, API_F_NAME) == NULL)
		ret = set_usage("%s", "missing NAME");
	if (ret == CTL_EXIT_OK && file != NULL && rules != NULL)
		ret = set_usage("%s", "give --file or --rule, not both");
	if (ret == CTL_EXIT_OK && file != NULL)
		ret = read_rules_file(file, params);
	else if (ret == CTL_EXIT_OK && rules == NULL) /* no rule: only the default */
		cJSON_AddArrayToObject(params, API_F_RULES);
	if (ret != CTL_EXIT_OK) {
		cJSON_Delete(params);
		return ret;
	}
	c = pw_client_connect(sock, timeout_ms, &err);
	if (c == NULL) {
		cJSON_Delete(params);
		fprintf(stderr, "podwirectl: error: %s\n", err.message);
		return CTL_EXIT_TRANSPORT;
	}
	if (pw_client_call(c, API_NAME(ACL_SET), params, &result, &err) != 0) {
		pw_client_close(c);
		fprintf(stderr, "podwirectl: error: %s\n", err.message);
		return err.code == 0 ? CTL_EXIT_TRANSPORT : CTL_EXIT_DAEMON;
	}
	pw_client_close(c);
	if (json) {
		char *text = cJSON_Print(result);

		puts(text != NULL ? text : "null");
		free(text);
	} else {
		long n = api_get_int(result, API_F_RULES, 0);

		printf("list \"%s\" %s: %ld rule%s, default %s\n", ctl_str(result, API_F_NAME),
		       cJSON_IsTrue(ctl_member(result, API_R_REPLACED)) ? "replaced" : "created", n,
		       n == 1 ? "" : "s", ctl_str(result, API_F_DEFAULT));
	}
	cJSON_Delete(result);
	return CTL_EXIT_OK;
}

/* "port a ingress, network n egress" */
static void places(const cJSON *atts, char *buf, size_t len)
{
	const cJSON *a;
	size_t off = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach (a, atts) {
		bool net = ctl_member(a, API_F_NETWORK) != NULL;

		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s %s %s",
					off ? ", " : "", net ? "network" : "port",
					ctl_str(a, net ? API_F_NETWORK : API_F_PORT),
					ctl_str(a, API_F_DIRECTION));
		if (off >= len)
			break;
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "-");
}

void ctl_print_acl_list(const cJSON *result)
{
	const cJSON *l;
	char where[1024];

	printf("%-24s %-8s %7s  %s\n", "NAME", "DEFAULT", "RULES", "ATTACHED");
	cJSON_ArrayForEach (l, ctl_member(result, API_R_LISTS)) {
		places(ctl_member(l, API_R_ATTACHMENTS), where, sizeof(where));
		printf("%-24s %-8s %7ld  %s\n", ctl_str(l, API_F_NAME), ctl_str(l, API_F_DEFAULT),
		       api_get_int(l, API_F_RULES, 0), where);
	}
}

/* The rule's fields but its action, index and hits: "proto=tcp dport=22". */
static void rule_text(const cJSON *r, char *buf, size_t len)
{
	static const char *const fields[] = {
	    API_F_SRC_MAC, API_F_DST_MAC, API_F_ETHERTYPE, API_F_VLAN,	API_F_SRC,
	    API_F_DST,	   API_F_PROTO,	  API_F_SPORT,	   API_F_DPORT, API_F_TCP_FLAGS};
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) && off < len; i++)
		if (ctl_member(r, fields[i]) != NULL)
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "",
						fields[i], ctl_str(r, fields[i]));
	if (buf[0] == '\0')
		snprintf(buf, len, "any");
}

void ctl_print_acl_show(const cJSON *result)
{
	const cJSON *r;
	char text[512];

	places(ctl_member(result, API_R_ATTACHMENTS), text, sizeof(text));
	printf("list \"%s\", attached to: %s\n", ctl_str(result, API_F_NAME), text);
	printf("%6s %-15s %14s  %s\n", "RULE", "ACTION", "HITS", "MATCH");
	cJSON_ArrayForEach (r, ctl_member(result, API_F_RULES)) {
		rule_text(r, text, sizeof(text));
		printf("%6ld %-15s %14llu  %s\n", api_get_int(r, API_R_INDEX, -1),
		       ctl_str(r, API_F_ACTION), ctl_u64(ctl_member(r, API_R_HITS)), text);
	}
	if (cJSON_GetArraySize(ctl_member(result, API_F_RULES)) <
	    api_get_int(result, API_R_RULES_TOTAL, 0))
		printf("%6s (%ld rules in all: --first and --count show others)\n", "...",
		       api_get_int(result, API_R_RULES_TOTAL, 0));
	printf("%6s %-15s %14llu\n", "-", ctl_str(result, API_F_DEFAULT),
	       ctl_u64(ctl_member(result, API_R_DEFAULT_HITS)));
	printf("sessions let through %llu frames without the list; %llu replaces, whose "
	       "versions decided %llu frames\n",
	       ctl_u64(ctl_member(result, API_R_SESSION_HITS)),
	       ctl_u64(ctl_member(result, API_R_REPLACES)),
	       ctl_u64(ctl_member(result, API_R_REPLACED_HITS)));
}

void ctl_print_acl_attach(const cJSON *result, bool attach)
{
	bool net = ctl_member(result, API_F_NETWORK) != NULL;

	printf("list \"%s\" %s %s \"%s\" %s\n", ctl_str(result, API_F_NAME),
	       attach ? "attached to" : "detached from", net ? "network" : "port",
	       ctl_str(result, net ? API_F_NETWORK : API_F_PORT), ctl_str(result, API_F_DIRECTION));
}
