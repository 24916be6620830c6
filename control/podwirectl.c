/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwirectl: the command line client of podwired. Each command maps to one
 * API method; arguments are only parsed here, the daemon validates them so
 * every client gets the same answer.
 *
 * Exit codes: 0 success, 1 the daemon refused the request, 2 bad command
 * line, 3 podwired could not be reached or did not answer.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "client.h"
#include "files.h"
#include "validate.h"
#include "ctl.h"
#include "ctl_table.h"

/* Creating a port may wait for DPDK to set up a vhost socket; allow time. */
#define CTL_TIMEOUT_MS_DEFAULT 10000

static const char *prog = "podwirectl";

/* ---- output: tables and "label: value" lists are ctl_table.c's ---------- */

static const struct column network_cols[] = {{"NAME", API_F_NAME, COL_STR},
					     {"MODE", API_F_MODE, COL_STR},
					     {"VLAN", API_F_VLAN, COL_ID},
					     {"PORTS", API_R_PORTS, COL_LIST},
					     {NULL}};

static const struct column port_cols[] = {{"NAME", API_F_NAME, COL_STR},
					  {"NETWORK", API_F_NETWORK, COL_STR},
					  {"TYPE", API_F_TYPE, COL_STR},
					  {"MODE", API_F_MODE, COL_STR},
					  {"MAC", API_F_MAC, COL_STR},
					  {"MTU", API_F_MTU, COL_INT},
					  {"LINK", API_F_LINK, COL_STR},
					  {"WORKER", API_F_WORKER, COL_INT},
					  {"SOCKET/DEVICE", API_F_SOCKET, COL_ENDPOINT},
					  {NULL}};

static const struct column uplink_fields[] = {{"UPLINK", API_R_DEVICE, COL_STR},
					      {"DRIVER", API_R_DRIVER, COL_STR},
					      {"TAG", API_F_VLAN, COL_ID},
					      {"SHARED-BY", API_R_PORTS_ON_DEVICE, COL_INT},
					      {"UNKNOWN-VLAN", API_R_UNKNOWN_VLAN, COL_U64},
					      {NULL}};

/* A pod's connection (vhost-user, memif): why it is down. */
static const struct column conn_fields[] = {{"STATE", API_R_STATE, COL_STR},
					    {"CONNECTS", API_R_CONNECTS, COL_U64},
					    {"DISCONNECTS", API_R_DISCONNECTS, COL_U64},
					    {"LAST-DISCONNECT", API_R_LAST_DISCONNECT, COL_STR},
					    {NULL}};
static const struct column vhost_fields[] = {{"REFUSED-CONNS", API_R_REFUSED_CONNS, COL_U64},
					     {"REFUSED-MSGS", API_R_REFUSED_MSGS, COL_U64},
					     {"FAULTS", API_R_FAULTS, COL_U64},
					     {NULL}};

static const struct column stats_cols[] = {{"PORT", API_F_NAME, COL_STR},
					   {"RX-PKTS", API_R_RX_PACKETS, COL_U64},
					   {"RX-BYTES", API_R_RX_BYTES, COL_U64},
					   {"TX-PKTS", API_R_TX_PACKETS, COL_U64},
					   {"TX-BYTES", API_R_TX_BYTES, COL_U64},
					   {"DROPS", API_R_DROPS, COL_DROPS},
					   /* "-": the kind reads through no kernel socket */
					   {"KDROPS", API_R_KERNEL_DROPS, COL_COUNT},
					   {NULL}};

static const struct column reasons_col[] = {{"DROP-REASONS", API_R_DROPS, COL_REASONS}, {NULL}};

static const struct column memif_fields[] = {{"MEMIF", API_R_STATE, COL_STR},
					     {"PEER", API_R_PEER, COL_STR},
					     {"MAPPED-BYTES", API_R_MAPPED_BYTES, COL_U64},
					     {"CONNECTS", API_R_CONNECTS, COL_U64},
					     {"DISCONNECTS", API_R_DISCONNECTS, COL_U64},
					     {"REFUSED", API_R_REFUSED, COL_U64},
					     {"FLAPS", API_R_FLAPS, COL_U64},
					     {"BACKOFF-MS", API_R_BACKOFF_MS, COL_U64},
					     {"LAST-REASON", API_R_LAST_DISCONNECT, COL_STR},
					     {NULL}};

/* Port security and limits, in port show. */
static const struct column guard_fields[] = {
    {"PORT-SECURITY", API_F_PORT_SECURITY, COL_BOOL}, {"ALLOWED-MACS", API_F_ALLOWED_MACS, COL_STR},
    {"MAC-LIMIT", API_F_MAC_LIMIT, COL_INT},	      {"FLOOD-LIMIT", API_F_FLOOD_LIMIT, COL_INT},
    {"TX-RETRIES", API_F_TX_RETRIES, COL_INT},	      {NULL}};
static const struct column guard_stats[] = {{"MACS-LEARNED", API_R_MACS_LEARNED, COL_U64},
					    {"LEARN-LIMIT", API_R_LEARN_LIMIT, COL_U64},
					    {"TX-RETRIES", API_F_TX_RETRIES, COL_U64},
					    {NULL}};

/* stats.get workers carry no port list, system.info ones do. */
#define WORKER_COLS                                                                                \
	{"LCORE", API_R_LCORE, COL_INT}, {"BUSY-CYCLES", API_R_BUSY_CYCLES, COL_U64},              \
	    {"IDLE-CYCLES", API_R_IDLE_CYCLES, COL_U64},                                           \
	{                                                                                          \
		"BUSY", NULL, COL_BUSY                                                             \
	}
/* stats: and the naps of --idle-sleep-max. */
static const struct column worker_cols[] = {
    WORKER_COLS, {"SLEEPS", API_R_SLEEPS, COL_U64}, {"SLEEP-US", API_R_SLEEP_US, COL_U64}, {NULL}};
static const struct column info_worker_cols[] = {
    WORKER_COLS, {"PORTS", API_R_PORTS, COL_LIST}, {NULL}};

static const struct column info_fields[] = {
    {"VERSION", API_R_VERSION, COL_STR},	 {"PID", API_R_PID, COL_INT},
    {"SOCKET", API_F_SOCKET, COL_STR},		 {"STATE-DIR", API_R_STATE_DIR, COL_STR},
    {"MAIN-LCORE", API_R_MAIN_CORE, COL_INT},	 {"UPTIME-SEC", API_R_UPTIME, COL_U64},
    {"NETWORKS", API_R_NETWORKS, COL_U64},	 {"PORTS", API_R_PORTS, COL_U64},
    {"MAC-ENTRIES", API_R_MAC_ENTRIES, COL_U64}, {NULL}};

static const struct column mac_cols[] = {{"MAC", API_F_MAC, COL_STR},
					 {"PORT", API_F_PORT, COL_STR},
					 {"AGE-SEC", API_R_AGE, COL_U64},
					 {NULL}};
static const struct column mac_port_cols[] = {{"PORT", API_F_NAME, COL_STR},
					      {"MACS-LEARNED", API_R_MACS_LEARNED, COL_U64},
					      {"MAC-LIMIT", API_F_MAC_LIMIT, COL_INT},
					      {"LEARN-LIMIT", API_R_LEARN_LIMIT, COL_U64},
					      {NULL}};

struct reply {
	const struct command *cmd;
	const cJSON *params; /* the request: delete results are empty */
	const cJSON *result;
};

enum opt_kind {
	OPT_STR,
	OPT_INT,
	OPT_FLAG,     /* sets the field to the string in metavar */
	OPT_ONOFF,    /* on|off: a JSON bool */
	OPT_FLAG_OFF, /* a flag that sets the field false: --no-port-security */
	OPT_FLAG_ON,  /* a flag that sets the field true: --run */
	OPT_NUM,      /* a number with an optional k, m or g: --bps 100m */
	OPT_RATE,     /* pps=N[,burst=N] | bps=N[,burst=N] into field's _pps, _bps, _burst */
};

struct opt {
	const char *name;    /* "--vlan" */
	const char *metavar; /* "ID"; for OPT_FLAG, the value the flag sets */
	enum opt_kind kind;
	const char *field;
	bool required;
};

struct command {
	const char *words; /* "network add" */
	const char *args;  /* for the usage text */
	enum api_method method;
	const char *pos; /* field filled by the positional argument, if any */
	bool pos_required;
	const struct opt *opts;
	void (*print)(const struct reply *r); /* NULL: ctl_print_table(list, cols) */
	const char *list;
	const struct column *cols;
	const char *summary; /* NULL: the method's */
	/* Fields of the positional arguments after the first (queue pin
	 * PORT QUEUE WORKER), all required when pos_required. */
	const char *const *pos_more;
};

static void print_network(const struct reply *r)
{
	long vlan = api_get_int(r->result, API_F_VLAN, 0);

	printf("network \"%s\" created (%s, ", ctl_str(r->result, API_F_NAME),
	       ctl_str(r->result, API_F_MODE));
	if (vlan > 0)
		printf("vlan %ld)\n", vlan);
	else
		printf("no vlan)\n");
}

static void print_port_created(const struct reply *r)
{
	const cJSON *p = r->result;

	printf("port \"%s\" created: %s", ctl_str(p, API_F_NAME), ctl_str(p, API_F_TYPE));
	if (ctl_member(p, API_F_SOCKET) != NULL)
		printf(" %s socket %s", ctl_str(p, API_F_MODE), ctl_str(p, API_F_SOCKET));
	if (ctl_member(p, API_R_UPLINK) != NULL)
		printf(" uplink %s via %s, vlan %ld",
		       ctl_str(ctl_member(p, API_R_UPLINK), "device"),
		       ctl_str(ctl_member(p, API_R_UPLINK), "driver"),
		       api_get_int(ctl_member(p, API_R_UPLINK), API_F_VLAN, 0));
	if (ctl_member(p, API_F_MAC) != NULL && ctl_member(p, API_R_UPLINK) == NULL)
		printf(" mac %s", ctl_str(p, API_F_MAC));
	putchar('\n');
}

/* The kind of object is the command's first word. */
static void print_deleted(const struct reply *r)
{
	printf("%.*s \"%s\" deleted\n", (int)strcspn(r->cmd->words, " "), r->cmd->words,
	       ctl_str(r->params, API_F_NAME));
}

/* port list: the table, then why each failed port failed. */
static void print_port_list(const struct reply *r)
{
	const cJSON *p, *ports = ctl_member(r->result, API_R_PORTS);

	ctl_print_table(ports, port_cols);
	cJSON_ArrayForEach (p, ports)
		if (ctl_member(p, API_R_REASON) != NULL)
			printf("  %s failed: %s\n", ctl_str(p, API_F_NAME),
			       ctl_str(p, API_R_REASON));
}

/* port show: its rx queues (`queue list PORT` shows where they are). */
static const struct column port_queue_fields[] = {
    {"QUEUES", API_F_QUEUES, COL_INT}, {"RXQ-PINS", API_F_RXQ_PINS, COL_STR}, {NULL}};

static void print_port(const struct reply *r)
{
	const cJSON *stats = ctl_member(r->result, API_R_STATS);

	ctl_print_fields(r->result, port_cols);
	ctl_print_fields(r->result, port_queue_fields);
	if (ctl_member(r->result, API_R_REASON) != NULL)
		printf("%-13s %s\n", "reason:", ctl_str(r->result, API_R_REASON));
	if (ctl_member(r->result, API_R_UPLINK) != NULL)
		ctl_print_fields(ctl_member(r->result, API_R_UPLINK), uplink_fields);
	if (ctl_member(r->result, API_R_MEMIF) != NULL)
		ctl_print_fields(ctl_member(r->result, API_R_MEMIF), memif_fields);
	if (ctl_member(r->result, API_R_VHOST) != NULL) {
		ctl_print_fields(ctl_member(r->result, API_R_VHOST), conn_fields);
		ctl_print_fields(ctl_member(r->result, API_R_VHOST), vhost_fields);
	}
	ctl_print_fields(r->result, guard_fields);
	ctl_print_rates(r->result);
	if (stats != NULL) {
		/* Skip the PORT column: the name is printed above. */
		ctl_print_fields(stats, stats_cols + 1);
		ctl_print_fields(stats, reasons_col);
		ctl_print_fields(stats, guard_stats);
	}
}

static void print_stats(const struct reply *r)
{
	const cJSON *p, *ports = ctl_member(r->result, API_R_PORTS);
	char reasons[512];

	ctl_print_table(ports, stats_cols);
	cJSON_ArrayForEach (p, ports) {
		ctl_format_cell(reasons, sizeof(reasons), p, reasons_col);
		if (strcmp(reasons, "-") != 0)
			printf("  %s drops: %s\n", ctl_str(p, API_F_NAME), reasons);
		if (ctl_u64(ctl_member(p, API_R_LEARN_LIMIT)) +
			ctl_u64(ctl_member(p, API_F_TX_RETRIES)) !=
		    0)
			printf("  %s: learn_limit=%llu tx_retries=%llu\n", ctl_str(p, API_F_NAME),
			       ctl_u64(ctl_member(p, API_R_LEARN_LIMIT)),
			       ctl_u64(ctl_member(p, API_F_TX_RETRIES)));
	}
	putchar('\n');
	ctl_print_table(ctl_member(r->result, API_R_WORKERS), worker_cols);
}

/* The learned MACs, then how full the table is: for the network and for
 * each of its ports. */
static void print_mac_list(const struct reply *r)
{
	ctl_print_table(ctl_member(r->result, API_R_ENTRIES), mac_cols);
	printf("\n%llu of %llu MACs learned on network \"%s\"\n",
	       ctl_u64(ctl_member(r->result, API_R_MACS_LEARNED)),
	       ctl_u64(ctl_member(r->result, API_F_MAC_LIMIT)), ctl_str(r->result, API_F_NETWORK));
	ctl_print_table(ctl_member(r->result, API_R_PORTS), mac_port_cols);
}

static void print_cleared(const struct reply *r)
{
	if (ctl_member(r->params, API_F_PORT) != NULL)
		printf("counters of port \"%s\" cleared\n", ctl_str(r->params, API_F_PORT));
	else
		printf("counters cleared on %llu ports\n",
		       ctl_u64(ctl_member(r->result, API_R_CLEARED)));
}

static void print_info(const struct reply *r)
{
	const cJSON *m = ctl_member(r->result, API_R_MEMORY);

	ctl_print_fields(r->result, info_fields);
	if (m != NULL)
		printf("%-13s heap %llu B, hugepage heap %llu B in %llu allocations, "
		       "%llu fds\n",
		       "memory:", ctl_u64(ctl_member(m, API_R_HEAP_BYTES)),
		       ctl_u64(ctl_member(m, API_R_DPDK_HEAP_BYTES)),
		       ctl_u64(ctl_member(m, API_R_DPDK_ALLOCS)),
		       ctl_u64(ctl_member(m, API_R_FDS)));
	putchar('\n');
	ctl_print_table(ctl_member(r->result, API_R_WORKERS), info_worker_cols);
}

/* How a usage line shows each port.create field a kind takes. */
static const struct {
	const char *field, *usage;
} kind_usage[] = {
    {API_F_SOCKET, "--socket PATH"},
    {API_F_MODE, "[--server|--client]"},
    {API_F_SECRET, "[--secret S]"},
    {API_F_IFACE, "--iface IFNAME"},
    {API_F_PCI, "--pci BDF"},
    {API_F_QUEUES, "[--queues N]"},
    {API_F_IO, "[--io packet|xdp]"},
    {API_F_OFFLOADS, "[--offloads on|off]"},
    {API_F_RINGS, "[--rings podwire|librte]"},
};

static const char *field_usage(const char *field)
{
	for (size_t i = 0; i < sizeof(kind_usage) / sizeof(kind_usage[0]); i++)
		if (strcmp(kind_usage[i].field, field) == 0)
			return kind_usage[i].usage;
	return field; /* a daemon newer than this podwirectl: its name */
}

/* One kind a line: what it is, then the port add options it takes. */
static void print_kinds(const struct reply *r)
{
	const cJSON *k, *f;

	cJSON_ArrayForEach (k, ctl_member(r->result, API_R_KINDS)) {
		printf("%-10s %s%s\n", ctl_str(k, API_F_NAME), ctl_str(k, API_R_SUMMARY),
		       cJSON_IsTrue(ctl_member(k, API_R_UPLINK)) ? " [uplink]" : "");
		printf("%-10s port add NAME --network NET --type %s", "", ctl_str(k, API_F_NAME));
		cJSON_ArrayForEach (f, ctl_member(k, API_R_FIELDS))
			if (cJSON_IsString(f))
				printf(" %s", field_usage(f->valuestring));
		printf(" [--mac MAC] [--mtu N]\n");
	}
}

/* ---- SR-IOV VFs: ctl_vf.c ---------------------------------------------------- */

static void print_vf_list(const struct reply *r)
{
	ctl_print_vf_list(r->result);
}

static void print_vf_alloc(const struct reply *r)
{
	ctl_print_vf_alloc(r->result);
}

static void print_vf_released(const struct reply *r)
{
	ctl_print_vf_released(r->params, r->result);
}

/* ---- CDI ---------------------------------------------------------------- */

/* A printer that fails (cdi write) says so here; run() returns it. */
static int print_rc = CTL_EXIT_OK;
#define CDI_WRITE_DIR	  "dir" /* cdi write's DIR: podwirectl's own, not sent */
#define CDI_WRITE_DEFAULT "/etc/cdi"

static void print_cdi_list(const struct reply *r)
{
	ctl_print_cdi_list(r->result);
}

static void print_cdi_write(const struct reply *r)
{
	print_rc =
	    ctl_cdi_write(api_get_str(r->params, CDI_WRITE_DIR, CDI_WRITE_DEFAULT), r->result);
}

/* ---- capture list, trace (API 1.5) ---------------------------------------- */

static void print_capture_list(const struct reply *r)
{
	ctl_print_capture_list(r->result);
}

static void print_trace(const struct reply *r)
{
	ctl_print_trace(r->result);
}

static void print_trace_added(const struct reply *r)
{
	char ports[512];
	const struct column col = {"", API_F_PORTS, COL_LIST};

	ctl_format_cell(ports, sizeof(ports), r->result, &col);
	printf("tracing the next %ld frames received on %s; `podwirectl trace show` prints them\n",
	       api_get_int(r->result, API_F_COUNT, 0), ports);
}

static void print_trace_cleared(const struct reply *r)
{
	printf("trace cleared: %llu frames forgotten\n",
	       ctl_u64(ctl_member(r->result, API_R_CLEARED)));
}

/* ---- rx queues (API 1.6): ctl_queue.c --------------------------------------- */

static void print_queue_list(const struct reply *r)
{
	ctl_print_queue_list(r->result);
}

static void print_queue_pin(const struct reply *r)
{
	ctl_print_queue_pin(r->params, r->result, r->cmd->method == API_M_QUEUE_PIN);
}

static void print_queue_balance(const struct reply *r)
{
	ctl_print_queue_balance(r->result);
}

/* ---- mirrors, rate limits (API 1.8): ctl_policy.c ------------------------------ */

static void print_mirror_created(const struct reply *r)
{
	ctl_print_mirror_created(r->result);
}

static void print_mirror_list(const struct reply *r)
{
	ctl_print_mirror_list(r->result);
}

static void print_policer(const struct reply *r)
{
	ctl_print_policer(r->result);
}

static void print_acl_timeouts(const struct reply *r)
{
	ctl_print_acl_timeouts(r->result);
}

/* ---- access lists (API 1.8): ctl_acl.c ---------------------------------------- */

static void print_acl_list(const struct reply *r)
{
	ctl_print_acl_list(r->result);
}

static void print_acl_show(const struct reply *r)
{
	ctl_print_acl_show(r->result);
}

static void print_acl_attach(const struct reply *r)
{
	ctl_print_acl_attach(r->result, r->cmd->method == API_M_ACL_ATTACH);
}

static const struct column acl_session_cols[] = {
    {"LCORE", API_R_LCORE, COL_U64},	 {"LIVE", API_R_LIVE, COL_U64},
    {"CREATED", API_R_CREATED, COL_U64}, {"EXPIRED", API_R_EXPIRED, COL_U64},
    {"FULL", API_R_FULL, COL_U64},	 {NULL}};

/* ---- command line ------------------------------------------------------ */

static const struct opt network_add_opts[] = {{"--vlan", "ID", OPT_INT, API_F_VLAN},
					      {"--mode", "MODE", OPT_STR, API_F_MODE},
					      {"--mac-limit", "N", OPT_INT, API_F_MAC_LIMIT},
					      {"--flood-limit", "N", OPT_INT, API_F_FLOOD_LIMIT},
					      {NULL}};

static const struct opt port_add_opts[] = {
    {"--network", "NET", OPT_STR, API_F_NETWORK, true},
    {"--type", "TYPE", OPT_STR, API_F_TYPE, true},
    {"--socket", "PATH", OPT_STR, API_F_SOCKET},
    {"--server", API_ROLE_SERVER, OPT_FLAG, API_F_MODE},
    {"--client", API_ROLE_CLIENT, OPT_FLAG, API_F_MODE},
    {"--mac", "MAC", OPT_STR, API_F_MAC},
    {"--mtu", "N", OPT_INT, API_F_MTU},
    {"--secret", "S", OPT_STR, API_F_SECRET},
    {"--iface", "IFNAME", OPT_STR, API_F_IFACE},
    {"--pci", "BDF", OPT_STR, API_F_PCI},
    {"--no-port-security", "", OPT_FLAG_OFF, API_F_PORT_SECURITY},
    {"--port-security", "on|off", OPT_ONOFF, API_F_PORT_SECURITY},
    {"--allowed-macs", "MAC,...", OPT_STR, API_F_ALLOWED_MACS},
    {"--mac-limit", "N", OPT_INT, API_F_MAC_LIMIT},
    {"--flood-limit", "N", OPT_INT, API_F_FLOOD_LIMIT},
    {"--tx-retries", "N", OPT_INT, API_F_TX_RETRIES},
    {"--queues", "N", OPT_INT, API_F_QUEUES},
    {"--rxq-pins", "Q:CORE,...", OPT_STR, API_F_RXQ_PINS},
    {"--io", "packet|xdp", OPT_STR, API_F_IO},
    {"--offloads", "on|off", OPT_ONOFF, API_F_OFFLOADS},
    {"--rings", "podwire|librte", OPT_STR, API_F_RINGS},
    {"--rate-in", "pps=N|bps=N[,burst=N]", OPT_RATE, "rate_in"},
    {"--rate-out", "pps=N|bps=N[,burst=N]", OPT_RATE, "rate_out"},
    {NULL}};

static const struct opt policer_set_opts[] = {{"--pps", "N", OPT_NUM, API_F_PPS},
					      {"--bps", "N", OPT_NUM, API_F_BPS},
					      {"--burst", "N", OPT_NUM, API_F_BURST},
					      {"--direction", "D", OPT_STR, API_F_DIRECTION},
					      {NULL}};
static const struct opt policer_del_opts[] = {{"--direction", "D", OPT_STR, API_F_DIRECTION},
					      {NULL}};

static const struct opt vf_list_opts[] = {{"--physnet", "P", OPT_STR, API_F_PHYSNET}, {NULL}};
static const struct opt vf_alloc_opts[] = {{"--physnet", "P", OPT_STR, API_F_PHYSNET, true},
					   {"--owner", "O", OPT_STR, API_F_OWNER, true},
					   {"--vlan", "N", OPT_INT, API_F_VLAN},
					   {"--mac", "MAC", OPT_STR, API_F_MAC},
					   {"--spoof-check", "on|off", OPT_ONOFF, API_F_SPOOFCHK},
					   {"--trust", "on|off", OPT_ONOFF, API_F_TRUST},
					   {NULL}};
static const struct opt vf_release_opts[] = {
    {"--pci", "BDF", OPT_STR, API_F_PCI}, {"--owner", "O", OPT_STR, API_F_OWNER}, {NULL}};

static const struct opt port_list_opts[] = {{"--network", "NET", OPT_STR, API_F_NETWORK}, {NULL}};
static const struct opt trace_add_opts[] = {{"--port", "PORT", OPT_STR, API_F_PORT}, {NULL}};
static const struct opt no_opts[] = {{NULL}};
static const struct opt queue_balance_opts[] = {
    {"--on", "", OPT_FLAG_ON, API_F_ENABLED},
    {"--off", "", OPT_FLAG_OFF, API_F_ENABLED},
    {"--interval", "S", OPT_INT, API_F_INTERVAL},
    {"--threshold", "PCT", OPT_INT, API_F_THRESHOLD},
    {"--improvement", "PCT", OPT_INT, API_F_IMPROVEMENT},
    {"--run", "", OPT_FLAG_ON, API_F_RUN},
    {NULL}};
static const struct opt mirror_create_opts[] = {
    {"--ports", "PORT,...", OPT_STR, API_F_PORTS, true},
    {"--to", "PORT", OPT_STR, API_F_TO, true},
    {"--direction", "ingress|egress|both", OPT_STR, API_F_DIRECTION},
    {"--acl", "LIST", OPT_STR, API_F_ACL},
    {NULL}};
static const struct opt acl_attach_opts[] = {
    {"--port", "PORT", OPT_STR, API_F_PORT},
    {"--network", "NET", OPT_STR, API_F_NETWORK},
    {"--direction", "ingress|egress", OPT_STR, API_F_DIRECTION},
    {NULL}};
static const struct opt acl_show_opts[] = {
    {"--first", "N", OPT_INT, API_F_FIRST}, {"--count", "N", OPT_INT, API_F_COUNT}, {NULL}};
static const struct opt acl_timeouts_opts[] = {{"--tcp", "S", OPT_INT, API_F_TCP},
					       {"--udp", "S", OPT_INT, API_F_UDP},
					       {"--other", "S", OPT_INT, API_F_OTHER},
					       {NULL}};
static const char *const queue_pin_pos[] = {API_F_QUEUE, API_F_WORKER, NULL};
static const char *const queue_unpin_pos[] = {API_F_QUEUE, NULL};

/* Two-word commands come before the one-word command they extend. */
static const struct command commands[] = {
    {"network add", "NAME [--vlan ID] [--mode bridge|xconnect] [--mac-limit N] [--flood-limit N]",
     API_M_NETWORK_CREATE, API_F_NAME, true, network_add_opts, print_network},
    {"network del", "NAME", API_M_NETWORK_DELETE, API_F_NAME, true, no_opts, print_deleted},
    {"network list", "", API_M_NETWORK_LIST, NULL, false, no_opts, NULL, API_R_NETWORKS,
     network_cols},
    {"port add",
     "NAME --network NET --type KIND [--mac MAC] [--mtu N]\n"
     "           [--socket PATH] [--server|--client] [--secret S] [--iface IFNAME] [--pci BDF]\n"
     "           [--no-port-security] [--allowed-macs MAC,...] [--mac-limit N]\n"
     "           [--flood-limit N] [--tx-retries N] [--queues N] [--rxq-pins Q:CORE,...]\n"
     "           [--rate-in pps=N|bps=N[,burst=N]] [--rate-out pps=N|bps=N[,burst=N]]\n"
     "           (`kinds` lists the kinds podwired offers and which options each takes)",
     API_M_PORT_CREATE, API_F_NAME, true, port_add_opts, print_port_created},
    {"port del", "NAME", API_M_PORT_DELETE, API_F_NAME, true, no_opts, print_deleted},
    {"port list", "[--network NET]", API_M_PORT_LIST, NULL, false, port_list_opts, print_port_list},
    {"port show", "NAME", API_M_PORT_GET, API_F_NAME, true, no_opts, print_port},
    {"stats clear", "[PORT]", API_M_STATS_CLEAR, API_F_PORT, false, no_opts, print_cleared},
    {"stats", "[PORT]", API_M_STATS_GET, API_F_PORT, false, no_opts, print_stats},
    {"info", "", API_M_SYSTEM_INFO, NULL, false, no_opts, print_info},
    {"kinds", "", API_M_SYSTEM_INFO, NULL, false, no_opts, print_kinds, NULL, NULL,
     "the port kinds podwired offers and the options each takes"},
    {"mac list", "NETWORK", API_M_MAC_LIST, API_F_NETWORK, true, no_opts, print_mac_list},
    {"vf list", "[--physnet P]", API_M_VF_LIST, NULL, false, vf_list_opts, print_vf_list},
    {"vf alloc",
     "--physnet P --owner O [--vlan N] [--mac MAC]\n"
     "           [--spoof-check on|off] [--trust on|off]",
     API_M_VF_ALLOC, NULL, false, vf_alloc_opts, print_vf_alloc},
    {"vf release", "--pci BDF | --owner O", API_M_VF_RELEASE, NULL, false, vf_release_opts,
     print_vf_released},
    {"cdi list", "", API_M_CDI_LIST, NULL, false, no_opts, print_cdi_list},
    {"cdi write", "[DIR]", API_M_CDI_LIST, CDI_WRITE_DIR, false, no_opts, print_cdi_write, NULL,
     NULL, "write podwired's CDI spec files into DIR (default " CDI_WRITE_DEFAULT ")"},
    {"capture list", "", API_M_CAPTURE_LIST, NULL, false, no_opts, print_capture_list},
    {"trace add", "N [--port PORT]", API_M_TRACE_ADD, API_F_COUNT, true, trace_add_opts,
     print_trace_added},
    {"trace show", "", API_M_TRACE_SHOW, NULL, false, no_opts, print_trace},
    {"trace clear", "", API_M_TRACE_CLEAR, NULL, false, no_opts, print_trace_cleared},
    {"queue list", "[PORT]", API_M_QUEUE_LIST, API_F_PORT, false, no_opts, print_queue_list, NULL,
     NULL, "every rx queue (or PORT's): its worker's core, rate and load; the workers' load"},
    {"queue pin", "PORT QUEUE WORKER", API_M_QUEUE_PIN, API_F_PORT, true, no_opts, print_queue_pin,
     NULL, NULL,
     "poll PORT's rx QUEUE on WORKER (a worker's core: `queue list` shows them), kept there",
     queue_pin_pos},
    {"queue unpin", "PORT QUEUE", API_M_QUEUE_UNPIN, API_F_PORT, true, no_opts, print_queue_pin,
     NULL, NULL, NULL, queue_unpin_pos},
    {"policer set", "PORT (--pps N | --bps N) [--burst N] [--direction ingress|egress|both]",
     API_M_POLICER_SET, API_F_PORT, true, policer_set_opts, print_policer, NULL, NULL,
     "rate-limit what PORT's pod sends (ingress) and/or receives (egress): frames/s or\n"
     "      bits/s (k, m, g: thousands, millions, billions); --burst: frames or bytes"},
    {"policer del", "PORT [--direction ingress|egress|both]", API_M_POLICER_DEL, API_F_PORT, true,
     policer_del_opts, print_policer},
    {"queue balance", "[--on|--off] [--interval S] [--threshold PCT] [--improvement PCT] [--run]",
     API_M_QUEUE_BALANCE, NULL, false, queue_balance_opts, print_queue_balance, NULL, NULL,
     "the rx queue balancer: change its settings; --run: check now; none: show them"},
    {"mirror create",
     "NAME --ports PORT,... --to PORT [--direction ingress|egress|both] [--acl LIST]",
     API_M_MIRROR_CREATE, API_F_NAME, true, mirror_create_opts, print_mirror_created, NULL, NULL,
     "copy what the pods of PORTs send (ingress), are sent (egress) or both to port TO, "
     "which then receives nothing else"},
    {"mirror del", "NAME", API_M_MIRROR_DEL, API_F_NAME, true, no_opts, print_deleted},
    {"mirror list", "", API_M_MIRROR_LIST, NULL, false, no_opts, print_mirror_list},
    {"acl set", CTL_ACL_SET_ARGS, API_M_ACL_SET, API_F_NAME, true, no_opts, NULL, NULL, NULL,
     "create or replace (atomically) access list NAME: rules as a JSON array (or {\"default\","
     "\n      \"rules\"}) in a file, or one JSON object per --rule; first match wins"},
    {"acl del", "NAME", API_M_ACL_DEL, API_F_NAME, true, no_opts, print_deleted},
    {"acl list", "", API_M_ACL_LIST, NULL, false, no_opts, print_acl_list},
    {"acl show", "NAME [--first N] [--count N]", API_M_ACL_SHOW, API_F_NAME, true, acl_show_opts,
     print_acl_show},
    {"acl attach", "NAME (--port PORT | --network NET) --direction ingress|egress",
     API_M_ACL_ATTACH, API_F_NAME, true, acl_attach_opts, print_acl_attach},
    {"acl detach", "NAME (--port PORT | --network NET) [--direction ingress|egress]",
     API_M_ACL_DETACH, API_F_NAME, true, acl_attach_opts, print_acl_attach},
    {"acl timeouts", "[--tcp S] [--udp S] [--other S]", API_M_ACL_TIMEOUTS, NULL, false,
     acl_timeouts_opts, print_acl_timeouts, NULL, NULL,
     "permit+reflect sessions end after this long idle; none given: show them"},
    {"acl sessions", "", API_M_ACL_SESSIONS, NULL, false, no_opts, NULL, API_R_WORKERS,
     acl_session_cols},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s [--socket PATH] [--json] [--timeout MS] COMMAND ...\n\nCommands:\n",
		prog);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %s%s%s\n      %s\n", commands[i].words,
			commands[i].args[0] ? " " : "", commands[i].args,
			commands[i].summary ? commands[i].summary
					    : api_methods[commands[i].method].summary);
	fprintf(f, "  capture %s\n      %s\n  top %s\n      %s\n", CTL_CAPTURE_ARGS,
		"write the ports' frames as pcapng to FILE (- : stdout) until Ctrl-C", CTL_TOP_ARGS,
		"per-port rates and drops per second, per-worker busy %; also stats --watch;\n"
		"      --queues (r on a terminal): per rx queue, its worker, rate and load");
	fprintf(f,
		"  help\n\n"
		"port add --server: podwired creates the socket (default);\n"
		"         --client: podwired connects to a socket the pod created.\n"
		"Uplink kinds carry a network off the node, tagged with its VLAN;\n"
		"networks with distinct VLANs may share one uplink device.\n"
		"vf: SR-IOV VFs of the PFs podwired was given with --physnets; alloc binds\n"
		"    a free one to vfio-pci, release gives it back to its driver.\n\n"
		"Global options, before COMMAND:\n"
		"  --socket PATH  podwired socket (default $PODWIRE_SOCKET, else %s)\n"
		"  --json         print the daemon's result as JSON\n"
		"  --timeout MS   give up after MS milliseconds (default %d, 0: wait forever)\n"
		"  --help, --version\n",
		PODWIRE_DEFAULT_SOCKET, CTL_TIMEOUT_MS_DEFAULT);
}

static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n\n", stderr);
	usage(stderr);
	return CTL_EXIT_USAGE;
}

static bool is_help(const char *a)
{
	return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* Global options land in a JSON object too, under these keys. */
static const struct opt global_opts[] = {{"--socket", "PATH", OPT_STR, "socket"},
					 {"--timeout", "MS", OPT_INT, "timeout"},
					 {"--json", "true", OPT_FLAG, "json"},
					 {NULL}};

/* Matches "--opt" and "--opt=VALUE". */
static const struct opt *find_opt(const struct opt *opts, const char *arg)
{
	for (const struct opt *o = opts; o->name != NULL; o++) {
		size_t len = strlen(o->name);

		if (strncmp(arg, o->name, len) == 0 && (arg[len] == '\0' || arg[len] == '='))
			return o;
	}
	return NULL;
}

/* --bps 100m (a field), --rate-in pps=N,burst=N (field is the prefix of
 * port.create's rate_in_pps, _bps and _burst). */
static int add_number_option(const struct opt *o, const char *val, cJSON *params)
{
	char msg[256], name[64];
	long v[3];

	if (o->kind == OPT_NUM) {
		if (validate_si_number(o->name, "value", val, &v[0], msg, sizeof(msg)) != 0)
			return usage_error("%s", msg);
		cJSON_AddNumberToObject(params, o->field, (double)v[0]);
		return 0;
	}
	if (validate_rate_spec(o->name, val, &v[0], &v[1], &v[2], msg, sizeof(msg)) != 0)
		return usage_error("%s", msg);
	for (int k = 0; k < 3; k++) {
		static const char *const suffix[] = {"_pps", "_bps", "_burst"};

		snprintf(name, sizeof(name), "%s%s", o->field, suffix[k]);
		cJSON_DeleteItemFromObjectCaseSensitive(params, name);
		if (v[k] >= 0)
			cJSON_AddNumberToObject(params, name, (double)v[k]);
	}
	return 0;
}

/* Adds the option at argv[*i] ("--opt VALUE" or "--opt=VALUE") to params and
 * moves *i past its value. where ("port add", "global") is for messages.
 * Returns 0 or CTL_EXIT_USAGE. */
static int add_option(const struct opt *opts, const char *where, int argc, char **argv, int *i,
		      cJSON *params)
{
	const char *arg = argv[*i], *val = NULL;
	const struct opt *o = find_opt(opts, arg);
	char *end;
	long n;

	if (o == NULL && opts != global_opts && find_opt(global_opts, arg) != NULL)
		return usage_error("%s is a global option; put it before the command: %s %s %s",
				   arg, prog, arg, where);
	if (o == NULL)
		return usage_error("unknown %s option \"%s\"", where, arg);
	if (o->kind == OPT_FLAG_OFF || o->kind == OPT_FLAG_ON) {
		const cJSON *was = ctl_member(params, o->field);

		/* queue balance --on --off: refuse, as --server --client. */
		if (o->kind == OPT_FLAG_ON && cJSON_IsFalse(was))
			return usage_error("%s: conflicts with an option given before that turns "
					   "it off",
					   o->name);
		if (o->kind == OPT_FLAG_OFF && cJSON_IsTrue(was) && opts == queue_balance_opts)
			return usage_error("%s: conflicts with --on given before", o->name);
		cJSON_DeleteItemFromObjectCaseSensitive(params, o->field);
		cJSON_AddBoolToObject(params, o->field, o->kind == OPT_FLAG_ON);
		return 0;
	}
	if (o->kind == OPT_FLAG) {
		val = o->metavar;
	} else {
		val = strchr(arg, '=') ? strchr(arg, '=') + 1 : *i + 1 < argc ? argv[++*i] : "";
		if (val[0] == '\0')
			return usage_error("%s needs a value: %s %s", o->name, o->name, o->metavar);
	}
	/* --server and --client set the same field; refuse both, allow repeats. */
	if (o->kind == OPT_FLAG && strcmp(api_get_str(params, o->field, val), val) != 0)
		return usage_error("%s: conflicts with \"%s\" given before", o->name,
				   api_get_str(params, o->field, ""));
	cJSON_DeleteItemFromObjectCaseSensitive(params, o->field);
	if (o->kind == OPT_ONOFF) {
		bool on = strcmp(val, "on") == 0 || strcmp(val, "true") == 0;

		if (!on && strcmp(val, "off") != 0 && strcmp(val, "false") != 0)
			return usage_error("%s: \"%s\" is not on or off", o->name, val);
		cJSON_AddBoolToObject(params, o->field, on);
		return 0;
	}
	if (o->kind == OPT_NUM || o->kind == OPT_RATE)
		return add_number_option(o, val, params);
	if (o->kind != OPT_INT) {
		cJSON_AddStringToObject(params, o->field, val);
		return 0;
	}
	errno = 0;
	n = strtol(val, &end, 10);
	if (*end != '\0' || isspace((unsigned char)val[0]))
		return usage_error("%s: \"%s\" is not a number", o->name, val);
	if (errno == ERANGE || n < INT_MIN || n > INT_MAX)
		return usage_error("%s: \"%s\" is out of range", o->name, val);
	cJSON_AddNumberToObject(params, o->field, n);
	return 0;
}

/* The field of positional argument k of cmd, or NULL when it takes fewer. */
static const char *pos_field(const struct command *cmd, int k)
{
	if (k == 0 || cmd->pos == NULL)
		return cmd->pos;
	for (int j = 1; cmd->pos_more != NULL && cmd->pos_more[j - 1] != NULL; j++)
		if (j == k)
			return cmd->pos_more[j - 1];
	return NULL;
}

/* The name of positional argument k in the usage text: "QUEUE" of
 * "PORT QUEUE WORKER", "PORT" of "[PORT]". */
static int pos_name(const struct command *cmd, int k, const char **name)
{
	const char *a = cmd->args;

	for (int j = 0; j < k && a[strcspn(a, " \n")] != '\0'; j++)
		a += strcspn(a, " \n") + 1;
	a += strspn(a, "[");
	*name = a;
	return (int)strcspn(a, " \n]");
}

/* Fills params from the words after the command. Returns 0 or CTL_EXIT_USAGE. */
static int build_params(const struct command *cmd, int argc, char **argv, cJSON *params)
{
	int have_pos = 0, len;
	const char *field, *name;

	for (int i = 0; i < argc; i++) {
		const struct api_field *f;

		/* "-1" is a (bad) number for the daemon to refuse, not an option. */
		if (argv[i][0] == '-' && argv[i][1] != '\0' &&
		    !isdigit((unsigned char)argv[i][1])) {
			if (add_option(cmd->opts, cmd->words, argc, argv, &i, params) != 0)
				return CTL_EXIT_USAGE;
			continue;
		}
		field = pos_field(cmd, have_pos);
		if (field == NULL)
			return usage_error("%s: unexpected argument \"%s\"", cmd->words, argv[i]);
		f = api_param_find(cmd->method, field);
		if (f != NULL && f->type == API_T_INT) {
			/* A number: trace add N, queue pin PORT QUEUE WORKER. */
			char *end;
			long n;

			errno = 0;
			n = strtol(argv[i], &end, 10);
			len = pos_name(cmd, have_pos, &name);
			if (*end != '\0' || end == argv[i] || errno == ERANGE || n < INT_MIN ||
			    n > INT_MAX)
				return usage_error("%s: %.*s \"%s\" is not a number", cmd->words,
						   len, name, argv[i]);
			cJSON_AddNumberToObject(params, field, n);
		} else {
			cJSON_AddStringToObject(params, field, argv[i]);
		}
		have_pos++;
	}
	if (cmd->pos_required && pos_field(cmd, have_pos) != NULL) {
		len = pos_name(cmd, have_pos, &name);
		return usage_error("%s: missing %.*s", cmd->words, len, name);
	}
	for (const struct opt *o = cmd->opts; o->name != NULL; o++)
		if (o->required && ctl_member(params, o->field) == NULL)
			return usage_error("%s: %s %s is required", cmd->words, o->name,
					   o->metavar);
	return 0;
}

/* Finds the command argv starts with; *used is its number of words. */
static const struct command *find_command(int argc, char **argv, int *used)
{
	char verbs[256] = "";
	size_t off = 0, n = strlen(argv[0]);

	for (size_t c = 0; c < N_COMMANDS; c++) {
		const char *w = commands[c].words;

		if (strncmp(w, argv[0], n) != 0 || (w[n] != '\0' && w[n] != ' '))
			continue;
		*used = w[n] == '\0' ? 1 : 2;
		if (w[n] == '\0' || (argc > 1 && strcmp(w + n + 1, argv[1]) == 0))
			return &commands[c];
		if (off < sizeof(verbs))
			off += snprintf(verbs + off, sizeof(verbs) - off, "%s%s", off ? ", " : "",
					w + n + 1);
	}
	if (off == 0)
		usage_error("unknown command \"%s\"", argv[0]);
	else if (argc > 1)
		usage_error("unknown %s command \"%s\"; %s commands are: %s", argv[0], argv[1],
			    argv[0], verbs);
	else
		usage_error("%s needs a subcommand; %s commands are: %s", argv[0], argv[0], verbs);
	return NULL;
}

/* Sends the request and prints the answer. Returns an exit code. */
static int run(const struct command *cmd, const cJSON *globals, cJSON *params)
{
	const char *sock = getenv("PODWIRE_SOCKET");
	long timeout = api_get_int(globals, "timeout", CTL_TIMEOUT_MS_DEFAULT);
	struct pw_error err = {0};
	struct pw_client *c;
	cJSON *result = NULL, *call;
	int ret;

	if (timeout < 0)
		return usage_error("--timeout: %ld is negative; use 0 to wait forever", timeout);
	sock = api_get_str(globals, "socket", sock && sock[0] ? sock : PODWIRE_DEFAULT_SOCKET);
	c = pw_client_connect(sock, (int)timeout, &err);
	/* The printers read the request too, so the call gets a copy, without
	 * what is podwirectl's own (cdi write's DIR). */
	call = cJSON_Duplicate(params, true);
	if (cmd->print == print_cdi_write)
		cJSON_DeleteItemFromObjectCaseSensitive(call, CDI_WRITE_DIR);
	ret =
	    c == NULL ? -1 : pw_client_call(c, api_methods[cmd->method].name, call, &result, &err);
	if (c == NULL)
		cJSON_Delete(call);
	pw_client_close(c);
	if (ret != 0) {
		fprintf(stderr, "%s: error: %s\n", prog, err.message);
		return err.code == 0 ? CTL_EXIT_TRANSPORT : CTL_EXIT_DAEMON;
	}
	if (ctl_member(globals, "json") != NULL) {
		char *text = cJSON_Print(result);

		puts(text != NULL ? text : "null");
		free(text);
	} else {
		struct reply r = {cmd, params, result};

		if (cmd->print != NULL)
			cmd->print(&r);
		else
			ctl_print_table(ctl_member(result, cmd->list), cmd->cols);
	}
	cJSON_Delete(result);
	if (print_rc != CTL_EXIT_OK)
		return print_rc;
	if (fflush(stdout) != 0) {
		fprintf(stderr, "%s: error: cannot write the output: %s\n", prog, strerror(errno));
		return CTL_EXIT_DAEMON;
	}
	return CTL_EXIT_OK;
}

/* capture (not capture list) and top (or stats --watch) stream or
 * refresh: their own files run them. True when argv was one of them. */
static bool observe_command(int argc, char **argv, const cJSON *globals, int *ret)
{
	const char *env = getenv("PODWIRE_SOCKET");
	const char *sock =
	    api_get_str(globals, "socket", env && env[0] ? env : PODWIRE_DEFAULT_SOCKET);
	int timeout = (int)api_get_int(globals, "timeout", CTL_TIMEOUT_MS_DEFAULT);

	if (strcmp(argv[0], "capture") == 0 && !(argc > 1 && strcmp(argv[1], "list") == 0))
		*ret = ctl_capture(sock, timeout, argc - 1, argv + 1);
	else if (strcmp(argv[0], "top") == 0)
		*ret = ctl_top(sock, timeout, argc - 1, argv + 1);
	else if (strcmp(argv[0], "stats") == 0 && argc > 1 && strcmp(argv[1], "--watch") == 0)
		*ret = ctl_top(sock, timeout, argc - 2, argv + 2);
	else if (strcmp(argv[0], "acl") == 0 && argc > 1 && strcmp(argv[1], "set") == 0)
		*ret = ctl_acl_set(sock, timeout, ctl_member(globals, "json") != NULL, argc - 2,
				   argv + 2);
	else
		return false;
	return true;
}

int main(int argc, char **argv)
{
	cJSON *globals = cJSON_CreateObject(), *params = cJSON_CreateObject();
	const struct command *cmd = NULL;
	int i, used, ret = CTL_EXIT_OK;

	for (i = 1; i < argc && argv[i][0] == '-' && ret == CTL_EXIT_OK; i++) {
		if (is_help(argv[i]) || strcmp(argv[i], "--version") == 0)
			break;
		ret = add_option(global_opts, "global", argc, argv, &i, globals);
	}
	if (ret != CTL_EXIT_OK)
		goto out;
	if (i < argc && strcmp(argv[i], "--version") == 0) {
		printf("%s %s\n", prog, PODWIRE_VERSION);
	} else if (i < argc && (is_help(argv[i]) || strcmp(argv[i], "help") == 0 ||
				(i + 1 < argc && is_help(argv[i + 1])))) {
		usage(stdout);
	} else if (i >= argc) {
		ret = usage_error("no command given");
	} else if (observe_command(argc - i, argv + i, globals, &ret)) {
		/* capture, top: done */
	} else if ((cmd = find_command(argc - i, argv + i, &used)) == NULL) {
		ret = CTL_EXIT_USAGE;
	} else {
		ret = build_params(cmd, argc - i - used, argv + i + used, params);
		if (ret == CTL_EXIT_OK)
			ret = run(cmd, globals, params);
	}
out:
	cJSON_Delete(globals);
	cJSON_Delete(params);
	return ret;
}
