/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nri/cpuset.h"

void cpuset_add(struct cpuset *s, unsigned int cpu)
{
	if (cpu < CPUSET_MAX)
		s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

bool cpuset_has(const struct cpuset *s, unsigned int cpu)
{
	return cpu < CPUSET_MAX && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

bool cpuset_empty(const struct cpuset *s)
{
	for (size_t i = 0; i < CPUSET_MAX / 64; i++)
		if (s->bits[i] != 0)
			return false;
	return true;
}

void cpuset_minus(const struct cpuset *a, const struct cpuset *b, struct cpuset *out)
{
	for (size_t i = 0; i < CPUSET_MAX / 64; i++)
		out->bits[i] = a->bits[i] & ~b->bits[i];
}

void cpuset_and(const struct cpuset *a, const struct cpuset *b, struct cpuset *out)
{
	for (size_t i = 0; i < CPUSET_MAX / 64; i++)
		out->bits[i] = a->bits[i] & b->bits[i];
}

bool cpuset_subset(const struct cpuset *a, const struct cpuset *b)
{
	for (size_t i = 0; i < CPUSET_MAX / 64; i++)
		if ((a->bits[i] & ~b->bits[i]) != 0)
			return false;
	return true;
}

static int bad(const char *text, const char *why, char *msg, size_t len)
{
	snprintf(msg, len, "\"%s\" is not a CPU list such as \"0-3,6\": %s", text, why);
	return -EINVAL;
}

int cpuset_parse(const char *text, struct cpuset *s, char *msg, size_t len)
{
	const char *p = text;

	memset(s, 0, sizeof(*s));
	while (isspace((unsigned char)*p))
		p++;
	while (*p != '\0' && !isspace((unsigned char)*p)) {
		char *end;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*p))
			return bad(text, "a CPU number was expected", msg, len);
		lo = strtoul(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return bad(text, "a range needs an end", msg, len);
			hi = strtoul(end + 1, &end, 10);
		}
		if (hi < lo)
			return bad(text, "a range is backwards", msg, len);
		if (hi >= CPUSET_MAX)
			return bad(text, "CPU numbers go up to 1023", msg, len);
		for (unsigned long c = lo; c <= hi; c++)
			cpuset_add(s, (unsigned int)c);
		p = end;
		if (*p == ',' && isdigit((unsigned char)p[1]))
			p++;
		else if (*p != '\0' && !isspace((unsigned char)*p))
			return bad(text, "CPUs and ranges are separated by ','", msg, len);
	}
	while (isspace((unsigned char)*p))
		p++;
	return *p == '\0' ? 0 : bad(text, "text after the list", msg, len);
}

void cpuset_format(const struct cpuset *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int c = 0; c < CPUSET_MAX && off < len; c++) {
		unsigned int e = c;

		if (!cpuset_has(s, c))
			continue;
		while (e + 1 < CPUSET_MAX && cpuset_has(s, e + 1))
			e++;
		off += (size_t)(e == c ? snprintf(buf + off, len - off, "%s%u", off ? "," : "", c)
				       : snprintf(buf + off, len - off, "%s%u-%u", off ? "," : "",
						  c, e));
		c = e;
	}
}
