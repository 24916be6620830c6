/* SPDX-License-Identifier: BSD-3-Clause */
/* Modules in dependency order; see module.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/module.h"

PW_LOG_TYPE("module");

/* In registration order (the constructors' order: link order). */
static struct pw_module *modules, **modules_tail = &modules;
/* The started ones, in start order, for module_stop_all. */
static struct pw_module **started;
static unsigned int n_started;

void module_register(struct pw_module *m)
{
	m->next = NULL;
	m->started = 0;
	*modules_tail = m;
	modules_tail = &m->next;
}

void module_forget_all(void)
{
	modules = NULL;
	modules_tail = &modules;
	free(started);
	started = NULL;
	n_started = 0;
}

static struct pw_module *find(const char *name)
{
	for (struct pw_module *m = modules; m != NULL; m = m->next)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

static unsigned int count(void)
{
	unsigned int n = 0;

	for (struct pw_module *m = modules; m != NULL; m = m->next)
		n++;
	return n;
}

/* A module of all that are not placed needs one that is not placed
 * either: follows such needs from there until one comes round again, and
 * writes that cycle. */
static void describe_cycle(struct pw_module **all, const int *placed, unsigned int n, char *msg,
			   size_t len)
{
	struct pw_module *path[n + 1], *m = NULL;
	unsigned int depth = 0, from = 0;
	size_t off;

	memset(path, 0, sizeof(path));
	for (unsigned int i = 0; i < n && m == NULL; i++)
		if (!placed[i])
			m = all[i];
	for (;;) {
		struct pw_module *next = NULL;

		for (from = 0; from < depth; from++)
			if (path[from] == m)
				break;
		if (from < depth || depth == n)
			break;
		path[depth++] = m;
		for (const char *const *d = m->deps; *d != NULL && next == NULL; d++) {
			for (unsigned int i = 0; i < n; i++)
				if (!placed[i] && strcmp(all[i]->name, *d) == 0)
					next = all[i];
		}
		m = next;
	}
	off = (size_t)snprintf(msg, len, "modules need each other (a cycle): ");
	for (unsigned int i = from; i < depth && off < len; i++)
		off += (size_t)snprintf(msg + off, len - off, "\"%s\" (%s) needs \"%s\", ",
					path[i]->name, path[i]->where,
					(i + 1 < depth ? path[i + 1] : path[from])->name);
	if (off < len)
		snprintf(msg + off, len - off, "so none can start first; drop one of these needs");
}

/* Kahn's sort: fills order[] with the n modules, each after its needs,
 * the ready ones by name. */
static int sort(struct pw_module **order, unsigned int n, char *msg, size_t len)
{
	struct pw_module *all[n + 1];
	int placed[n + 1];
	unsigned int i = 0, done = 0;

	for (struct pw_module *m = modules; m != NULL; m = m->next) {
		for (struct pw_module *o = m->next; o != NULL; o = o->next)
			if (strcmp(m->name, o->name) == 0) {
				snprintf(msg, len,
					 "two modules are named \"%s\" (%s, %s); rename one",
					 m->name, m->where, o->where);
				return -EEXIST;
			}
		for (const char *const *d = m->deps; *d != NULL; d++)
			if (find(*d) == NULL) {
				snprintf(msg, len,
					 "module \"%s\" (%s) needs module \"%s\", which is not "
					 "built in; add \"%s\" or drop the need",
					 m->name, m->where, *d, *d);
				return -ENOENT;
			}
		placed[i] = 0;
		all[i++] = m;
	}
	while (done < n) {
		int best = -1;

		for (i = 0; i < n; i++) {
			int ready = !placed[i];

			for (const char *const *d = all[i]->deps; ready && *d != NULL; d++)
				for (unsigned int j = 0; j < n; j++)
					if (!placed[j] && strcmp(all[j]->name, *d) == 0)
						ready = 0;
			if (ready && (best < 0 || strcmp(all[i]->name, all[best]->name) < 0))
				best = (int)i;
		}
		if (best < 0) {
			describe_cycle(all, placed, n, msg, len);
			return -ELOOP;
		}
		/* Placed only after the scan: a module never counts as its own
		 * need met within one round. */
		placed[best] = 1;
		order[done++] = all[best];
	}
	return 0;
}

int module_check(char *msg, size_t len)
{
	unsigned int n = count();
	struct pw_module *order[n + 1];

	return sort(order, n, msg, len);
}

int module_start_all(char *msg, size_t len)
{
	unsigned int n = count();
	struct pw_module *order[n + 1];
	char names[1024];
	size_t off = 0;
	int rc;

	rc = sort(order, n, msg, len);
	if (rc != 0) {
		LOG(ERR, "%s", msg);
		return rc;
	}
	free(started);
	started = calloc(n + 1, sizeof(*started));
	n_started = 0;
	if (started == NULL) {
		snprintf(msg, len, "out of memory starting %u modules", n);
		return -ENOMEM;
	}
	names[0] = '\0';
	for (unsigned int i = 0; i < n && off < sizeof(names); i++)
		off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", i ? ", " : "",
					order[i]->name);
	LOG(INFO, "starting modules: %s", names);
	for (unsigned int i = 0; i < n; i++) {
		rc = order[i]->init != NULL ? order[i]->init() : 0;
		if (rc != 0) {
			snprintf(msg, len,
				 "module \"%s\" failed to start (%s); stopping the %u started",
				 order[i]->name, strerror(rc < 0 ? -rc : rc), n_started);
			LOG(ERR, "%s", msg);
			module_stop_all();
			return rc < 0 ? rc : -rc;
		}
		order[i]->started = 1;
		started[n_started++] = order[i];
	}
	return 0;
}

void module_stop_all(void)
{
	while (n_started > 0) {
		struct pw_module *m = started[--n_started];

		if (m->fini != NULL)
			m->fini();
		m->started = 0;
	}
}
