/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwired's parts start and stop as modules: each declares, where it
 * lives, what it needs started first and how it starts and stops:
 *
 *     static int cdi_init(void) { ...; return 0; }
 *     static void cdi_fini(void) { ... }
 *     PW_MODULE(cdi, cdi_init, cdi_fini, "model", "sriov");
 *
 * The declaration registers the module from a constructor (as PW_LOG_TYPE
 * registers a log type), so main knows no module by name: it calls
 * module_start_all once EAL runs and module_stop_all before EAL goes.
 * init returns 0 or -errno and says why itself (log or stderr); fini
 * undoes init and may be NULL, as may init. A dependency is on the name
 * of a module, not on its headers: it says what must already run (the
 * model restores ports, so the port kinds' settings come first), which
 * the #include graph (tests/lint/modules.py) does not. Control thread.
 */
#ifndef PODWIRE_CORE_MODULE_H
#define PODWIRE_CORE_MODULE_H

#include <stddef.h>

struct pw_module {
	const char *name;
	const char *const *deps; /* names, NULL-terminated */
	int (*init)(void);
	void (*fini)(void);
	const char *where; /* the declaring file, for messages */
	/* The registry's: */
	struct pw_module *next;
	int started;
};

/* Adds m to the modules; from constructors, before main. */
void module_register(struct pw_module *m);

/* The names needed follow fini_fn (none: nothing needed). The array
 * starts with a "" that is skipped: GNU's `, ##__VA_ARGS__` drops the comma
 * before an empty list (C11 alone has no way; __VA_OPT__ is C23, and
 * cppcheck cannot read it). */
#define PW_MODULE(id, init_fn, fini_fn, ...)                                                       \
	static const char *const pw_module_deps_##id[] = {"", ##__VA_ARGS__, NULL};                \
	static struct pw_module pw_module_##id = {                                                 \
	    .name = #id,                                                                           \
	    .deps = pw_module_deps_##id + 1,                                                       \
	    .init = init_fn,                                                                       \
	    .fini = fini_fn,                                                                       \
	    .where = __FILE__,                                                                     \
	};                                                                                         \
	static void __attribute__((constructor)) pw_module_register_##id(void)                     \
	{                                                                                          \
		module_register(&pw_module_##id);                                                  \
	}

/*
 * Orders the modules so that each comes after what it needs (modules
 * free to go in either order go by name, so the order does not hang on
 * link order). 0; or, with msg naming the modules and the fix: -EEXIST
 * two modules of one name, -ENOENT a module needs one that is not built
 * in, -ELOOP modules that need each other (a cycle). Starts nothing:
 * main checks this before EAL.
 */
int module_check(char *msg, size_t len);

/*
 * Runs every module's init in that order and logs the order. When an
 * init fails, the fini of those already started run in reverse and its
 * -errno is returned (msg names the module; the module said why); an
 * order that module_check refuses starts nothing.
 */
int module_start_all(char *msg, size_t len);

/* Runs the fini of the started modules, the last started first. */
void module_stop_all(void);

/* For tests: forgets every registered module (started or not). */
void module_forget_all(void);

#endif
