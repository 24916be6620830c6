/* SPDX-License-Identifier: BSD-3-Clause */
/* podwirectl's tables and "label: value" lists of API results. */
#ifndef PODWIRE_CTL_TABLE_H
#define PODWIRE_CTL_TABLE_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* How one value of a result is shown in a table or a "label: value" list. */
enum col_kind {
	COL_STR,      /* "-" when empty */
	COL_INT,      /* "-" when missing or negative (a port with no worker) */
	COL_ID,	      /* "-" when 0 or less (no VLAN) */
	COL_U64,      /* a counter */
	COL_COUNT,    /* a counter some rows lack: "-" there (not counted) */
	COL_LIST,     /* an array of names, comma separated */
	COL_DROPS,    /* sum of a drops object */
	COL_REASONS,  /* the non-zero members of a drops object: "tx_full=12" */
	COL_BUSY,     /* busy_cycles / (busy_cycles + idle_cycles) */
	COL_ENDPOINT, /* what a port attaches to: socket, interface or PCI address */
	COL_BOOL,     /* "on" or "off" */
	COL_PCT,      /* a share in %, one decimal; "-" when missing */
};

struct column {
	const char *header; /* table header, or label in a list */
	const char *field;
	enum col_kind kind;
};

/* A member of obj (NULL when absent), a counter (JSON doubles shown as
 * integers), a string member ("-" when absent or empty). */
const cJSON *ctl_member(const cJSON *obj, const char *field);
unsigned long long ctl_u64(const cJSON *v);
const char *ctl_str(const cJSON *obj, const char *field);
/* One value of obj as col shows it. */
void ctl_format_cell(char *buf, size_t len, const cJSON *obj, const struct column *col);
/* rows (an array of objects) as a table with a header; obj as one
 * "label: value" line per column. cols ends with a NULL header. */
void ctl_print_table(const cJSON *rows, const struct column *cols);
void ctl_print_fields(const cJSON *obj, const struct column *cols);

#endif
