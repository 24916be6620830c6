/* SPDX-License-Identifier: BSD-3-Clause */
/* podwirectl's tables and lists (see ctl_table.h). */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "ctl_table.h"

const cJSON *ctl_member(const cJSON *obj, const char *field)
{
	return cJSON_GetObjectItemCaseSensitive(obj, field);
}

/* Counters travel as JSON doubles; they are shown as integers. */
unsigned long long ctl_u64(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble > 0 ? (unsigned long long)v->valuedouble : 0;
}

const char *ctl_str(const cJSON *obj, const char *field)
{
	const char *s = api_get_str(obj, field, "");

	return s[0] != '\0' ? s : "-";
}

void ctl_format_cell(char *buf, size_t len, const cJSON *obj, const struct column *col)
{
	const cJSON *v = ctl_member(obj, col->field), *e;
	unsigned long long sum = 0, busy, idle;
	size_t off = 0;

	snprintf(buf, len, "-");
	switch (col->kind) {
	case COL_STR:
		snprintf(buf, len, "%s", ctl_str(obj, col->field));
		break;
	case COL_ENDPOINT:
		snprintf(buf, len, "%s",
			 ctl_member(obj, API_F_SOCKET)	? ctl_str(obj, API_F_SOCKET)
			 : ctl_member(obj, API_F_IFACE) ? ctl_str(obj, API_F_IFACE)
							: ctl_str(obj, API_F_PCI));
		break;
	case COL_BOOL:
		snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "on" : "off");
		break;
	case COL_INT:
	case COL_ID:
		if (cJSON_IsNumber(v) && v->valuedouble >= (col->kind == COL_ID ? 1 : 0))
			snprintf(buf, len, "%.0f", v->valuedouble);
		break;
	case COL_U64:
		snprintf(buf, len, "%llu", ctl_u64(v));
		break;
	case COL_COUNT:
		if (cJSON_IsNumber(v))
			snprintf(buf, len, "%llu", ctl_u64(v));
		break;
	case COL_LIST:
		cJSON_ArrayForEach (e, v)
			if (cJSON_IsString(e) && off < len)
				off += snprintf(buf + off, len - off, "%s%s", off ? "," : "",
						e->valuestring);
		break;
	case COL_DROPS:
		cJSON_ArrayForEach (e, v)
			sum += ctl_u64(e);
		snprintf(buf, len, "%llu", sum);
		break;
	case COL_REASONS:
		cJSON_ArrayForEach (e, v)
			if (ctl_u64(e) > 0 && off < len)
				off += snprintf(buf + off, len - off, "%s%s=%llu", off ? " " : "",
						e->string, ctl_u64(e));
		break;
	case COL_PCT:
		if (cJSON_IsNumber(v))
			snprintf(buf, len, "%.1f%%", v->valuedouble);
		break;
	case COL_BUSY:
		busy = ctl_u64(ctl_member(obj, API_R_BUSY_CYCLES));
		idle = ctl_u64(ctl_member(obj, API_R_IDLE_CYCLES));
		if (busy + idle > 0)
			snprintf(buf, len, "%.1f%%", 100.0 * (double)busy / (double)(busy + idle));
		break;
	}
}

/* One line of a table; row NULL prints the headers. Numbers are
 * right-aligned. */
static void print_line(const cJSON *row, const struct column *cols, const int *width)
{
	char buf[512];

	for (int c = 0; cols[c].header != NULL; c++) {
		bool last = cols[c + 1].header == NULL;
		bool right = cols[c].kind != COL_STR && cols[c].kind != COL_LIST &&
			     cols[c].kind != COL_REASONS;

		if (row == NULL)
			snprintf(buf, sizeof(buf), "%s", cols[c].header);
		else
			ctl_format_cell(buf, sizeof(buf), row, &cols[c]);
		printf(right ? "%*s%s" : "%-*s%s", last && !right ? 0 : width[c], buf,
		       last ? "\n" : "  ");
	}
}

void ctl_print_table(const cJSON *rows, const struct column *cols)
{
	int width[16], c;
	const cJSON *row;
	char buf[512];

	for (c = 0; cols[c].header != NULL; c++) {
		width[c] = (int)strlen(cols[c].header);
		cJSON_ArrayForEach (row, rows) {
			ctl_format_cell(buf, sizeof(buf), row, &cols[c]);
			if ((int)strlen(buf) > width[c])
				width[c] = (int)strlen(buf);
		}
	}
	print_line(NULL, cols, width);
	cJSON_ArrayForEach (row, rows)
		print_line(row, cols, width);
}

/* Prints one object as "label: value" lines, labels made from the table
 * headers: "RX-PKTS" reads "rx pkts". */
void ctl_print_fields(const cJSON *obj, const struct column *cols)
{
	char buf[512], label[32];

	for (const struct column *col = cols; col->header != NULL; col++) {
		size_t n = 0;

		for (const char *h = col->header; *h != '\0' && n < sizeof(label) - 2; h++)
			label[n++] = *h == '-' ? ' ' : (char)(*h | 0x20);
		label[n++] = ':';
		label[n] = '\0';
		ctl_format_cell(buf, sizeof(buf), obj, col);
		printf("%-13s %s\n", label, buf);
	}
}
