/* SPDX-License-Identifier: BSD-3-Clause */
/* The one registry of port kinds, filled by constructors in ports/. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/port.h"

static const struct port_ops *kinds[PORT_KINDS_MAX];
static unsigned int n_kinds;
/* Registrations that could not be kept, for port_kinds_check. */
static const char *dropped, *twice;

void port_kind_register(const struct port_ops *ops)
{
	if (port_kind_find(ops->kind) != NULL) {
		twice = ops->kind;
		return;
	}
	if (n_kinds == PORT_KINDS_MAX) {
		dropped = ops->kind;
		return;
	}
	kinds[n_kinds++] = ops;
}

int port_kinds_check(char *msg, size_t len)
{
	if (dropped != NULL) {
		snprintf(msg, len,
			 "port kind \"%s\" does not fit: the registry holds %d kinds; raise "
			 "PORT_KINDS_MAX in model/port.h",
			 dropped, PORT_KINDS_MAX);
		return -EINVAL;
	}
	if (twice != NULL) {
		snprintf(msg, len, "port kind \"%s\" is registered twice; keep one", twice);
		return -EINVAL;
	}
	return 0;
}

const struct port_ops *port_kind_find(const char *kind)
{
	for (unsigned int i = 0; i < n_kinds; i++)
		if (strcmp(kinds[i]->kind, kind) == 0)
			return kinds[i];
	return NULL;
}

unsigned int port_kind_count(void)
{
	return n_kinds;
}

const struct port_ops *port_kind_at(unsigned int i)
{
	return i < n_kinds ? kinds[i] : NULL;
}

/* The kinds with field (all when 0), joined by sep, the last by last. */
static void names_with(unsigned int field, const char *sep, const char *last, char *buf, size_t len)
{
	unsigned int n = 0, k = 0;
	size_t off = 0;

	for (unsigned int i = 0; i < n_kinds; i++)
		n += field == 0 || (kinds[i]->fields & field);
	buf[0] = '\0';
	for (unsigned int i = 0; i < n_kinds && off < len; i++) {
		if (field != 0 && !(kinds[i]->fields & field))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					k == 0	     ? ""
					: k + 1 == n ? last
						     : sep,
					kinds[i]->kind);
		k++;
	}
}

void port_kind_names(char *buf, size_t len)
{
	names_with(0, ", ", ", ", buf, len);
}

const char *port_kind_names_with(unsigned int field)
{
	static char buf[5][256];
	unsigned int slot = field & PORT_FIELD_SOCKET	? 0
			    : field & PORT_FIELD_SECRET ? 1
			    : field & PORT_FIELD_IFACE	? 2
			    : field & PORT_FIELD_PCI	? 3
							: 4;

	names_with(field, ", ", " and ", buf[slot], sizeof(buf[slot]));
	return buf[slot];
}
