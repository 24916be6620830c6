/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU sets as the kernel's cpuset files write them ("0-3,6"). */
#ifndef PODWIRE_NRI_CPUSET_H
#define PODWIRE_NRI_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX 1024

struct cpuset {
	uint64_t bits[CPUSET_MAX / 64];
};

/* "0-3,6" (spaces and a trailing newline allowed; "" is empty). 0, or
 * -EINVAL with msg saying what is wrong. */
int cpuset_parse(const char *text, struct cpuset *s, char *msg, size_t len);
/* The list form, "" for an empty set. */
void cpuset_format(const struct cpuset *s, char *buf, size_t len);
void cpuset_add(struct cpuset *s, unsigned int cpu);
bool cpuset_has(const struct cpuset *s, unsigned int cpu);
bool cpuset_empty(const struct cpuset *s);
/* out = a minus b; out = a and b; a within b. */
void cpuset_minus(const struct cpuset *a, const struct cpuset *b, struct cpuset *out);
void cpuset_and(const struct cpuset *a, const struct cpuset *b, struct cpuset *out);
bool cpuset_subset(const struct cpuset *a, const struct cpuset *b);

#endif
