/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Modules (core/module.c) and control-plane events (core/notify.c): the
 * start order follows the needs, stop is its reverse, a failing init
 * unwinds what started, a missing need or a cycle is refused by name, and
 * every subscriber of an event is called, in order. The first test checks
 * podwired's own modules; the others forget them and register their own.
 */
#include <errno.h>

#include "core/module.h"
#include "core/notify.h"
#include "unit.h"

static char calls[512];	    /* "+a +b -b -a": inits and finis, in order */
static const char *failing; /* the module whose init fails */

static void note(const char *what)
{
	size_t n = strlen(calls);

	snprintf(calls + n, sizeof(calls) - n, "%s%s", n ? " " : "", what);
}

#define FAKE(id)                                                                                   \
	static int id##_init(void)                                                                 \
	{                                                                                          \
		note("+" #id);                                                                     \
		return failing != NULL && strcmp(failing, #id) == 0 ? -EIO : 0;                    \
	}                                                                                          \
	static void id##_fini(void)                                                                \
	{                                                                                          \
		note("-" #id);                                                                     \
	}
FAKE(a)
FAKE(b)
FAKE(c)
FAKE(d)

static const char *const none[] = {NULL};
static const char *const need_a[] = {"a", NULL};
static const char *const need_b[] = {"b", NULL};
static const char *const need_c[] = {"c", NULL};
static const char *const need_ab[] = {"a", "b", NULL};
static const char *const need_x[] = {"x", NULL};

static struct pw_module ma, mb, mc, md;

/* Forgets every module; registers those given (NULL deps: no need). */
static void setup(const char *const *da, const char *const *db, const char *const *dc,
		  const char *const *dd)
{
	module_forget_all();
	calls[0] = '\0';
	failing = NULL;
	/* Registered in an order the sort must not keep: d, c, b, a. */
	md = (struct pw_module){"d", dd ? dd : none, d_init, d_fini, "test_d.c", NULL, 0};
	mc = (struct pw_module){"c", dc ? dc : none, c_init, c_fini, "test_c.c", NULL, 0};
	mb = (struct pw_module){"b", db ? db : none, b_init, b_fini, "test_b.c", NULL, 0};
	ma = (struct pw_module){"a", da ? da : none, a_init, a_fini, "test_a.c", NULL, 0};
	module_register(&md);
	module_register(&mc);
	module_register(&mb);
	module_register(&ma);
}

/* podwired's own modules: every need is built in, and there is no cycle.
 * Runs first, before the others forget them. */
static void test_podwired_modules_sort(void)
{
	char msg[1024] = "";

	ASSERT_INT_EQ(module_check(msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(msg, "");
}

static void test_dependency_order_and_reverse_stop(void)
{
	char msg[1024] = "";

	/* d needs c, c needs a and b, b needs a; registered d, c, b, a. */
	setup(NULL, need_a, need_ab, need_c);
	ASSERT_INT_EQ(module_start_all(msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(calls, "+a +b +c +d");
	calls[0] = '\0';
	module_stop_all();
	ASSERT_STR_EQ(calls, "-d -c -b -a");
	/* Stopped once: a second stop runs nothing. */
	calls[0] = '\0';
	module_stop_all();
	ASSERT_STR_EQ(calls, "");
}

static void test_order_against_names(void)
{
	char msg[1024] = "";

	/* a needs d, b needs c: names alone would start a first. */
	setup(NULL, NULL, NULL, NULL);
	{
		static const char *const need_d[] = {"d", NULL};

		ma.deps = need_d;
		mb.deps = need_c;
	}
	ASSERT_INT_EQ(module_start_all(msg, sizeof(msg)), 0);
	/* Ready ones go by name: c and d first (c < d), then b (c met) and
	 * a (d met) by name. */
	ASSERT_STR_EQ(calls, "+c +b +d +a");
	calls[0] = '\0';
	module_stop_all();
	ASSERT_STR_EQ(calls, "-a -d -b -c");
}

static void test_failing_init_unwinds(void)
{
	char msg[1024] = "";

	setup(NULL, need_a, need_b, need_c);
	failing = "c";
	ASSERT_INT_EQ(module_start_all(msg, sizeof(msg)), -EIO);
	/* c's own fini does not run (its init failed), d never started. */
	ASSERT_STR_EQ(calls, "+a +b +c -b -a");
	ASSERT_CONTAINS(msg, "module \"c\" failed to start");
	calls[0] = '\0';
	module_stop_all();
	ASSERT_STR_EQ(calls, "");
}

static void test_missing_dependency(void)
{
	char msg[1024] = "";

	setup(NULL, need_x, NULL, NULL);
	ASSERT_INT_EQ(module_check(msg, sizeof(msg)), -ENOENT);
	ASSERT_CONTAINS(msg, "module \"b\" (test_b.c) needs module \"x\", which is not built in");
	msg[0] = '\0';
	ASSERT_INT_EQ(module_start_all(msg, sizeof(msg)), -ENOENT);
	ASSERT_STR_EQ(calls, ""); /* nothing started */
}

static void test_cycle(void)
{
	char msg[1024] = "";

	/* a is free; b needs c, c needs d, d needs b: a cycle of three. */
	setup(NULL, need_c, NULL, need_b);
	{
		static const char *const need_d[] = {"d", NULL};

		mc.deps = need_d;
	}
	ASSERT_INT_EQ(module_check(msg, sizeof(msg)), -ELOOP);
	ASSERT_CONTAINS(msg, "\"b\" (test_b.c) needs \"c\"");
	ASSERT_CONTAINS(msg, "\"c\" (test_c.c) needs \"d\"");
	ASSERT_CONTAINS(msg, "\"d\" (test_d.c) needs \"b\"");
	ASSERT_NOT_CONTAINS(msg, "\"a\"");
	ASSERT_INT_EQ(module_start_all(msg, sizeof(msg)), -ELOOP);
	ASSERT_STR_EQ(calls, "");

	/* Two that need each other. */
	setup(need_b, need_a, NULL, NULL);
	ASSERT_INT_EQ(module_check(msg, sizeof(msg)), -ELOOP);
	ASSERT_CONTAINS(msg, "\"a\" (test_a.c) needs \"b\"");
	ASSERT_CONTAINS(msg, "\"b\" (test_b.c) needs \"a\"");
}

static void test_duplicate_name(void)
{
	static struct pw_module again = {"b", none, b_init, b_fini, "test_b2.c", NULL, 0};
	char msg[1024] = "";

	setup(NULL, NULL, NULL, NULL);
	module_register(&again);
	ASSERT_INT_EQ(module_check(msg, sizeof(msg)), -EEXIST);
	ASSERT_CONTAINS(msg, "two modules are named \"b\" (test_b.c, test_b2.c)");
}

/* ---- events -------------------------------------------------------------- */

static char heard[256];

static void hear(const void *arg, void *ctx)
{
	size_t n = strlen(heard);

	snprintf(heard + n, sizeof(heard) - n, "%s%s:%s", n ? " " : "", (const char *)ctx,
		 arg != NULL ? (const char *)arg : "-");
}

static void hear_once(const void *arg, void *ctx)
{
	hear(arg, ctx);
	notify_unsubscribe(NOTIFY_STATE_SAVED, hear_once, ctx);
}

static void test_subscribers_in_order(void)
{
	unsigned int before = notify_count(NOTIFY_VF_POOL_CHANGED);

	heard[0] = '\0';
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_VF_POOL_CHANGED, hear, "one"), 0);
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_VF_POOL_CHANGED, hear, "two"), 0);
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_VF_POOL_CHANGED, hear, "three"), 0);
	ASSERT_INT_EQ(notify_count(NOTIFY_VF_POOL_CHANGED), before + 3);
	notify_publish(NOTIFY_VF_POOL_CHANGED, "x");
	ASSERT_STR_EQ(heard, "one:x two:x three:x");
	/* Another event reaches none of them. */
	heard[0] = '\0';
	notify_publish(NOTIFY_PORT_CREATED, "y");
	ASSERT_STR_EQ(heard, "");
	/* One leaves; the others keep their order. */
	notify_unsubscribe(NOTIFY_VF_POOL_CHANGED, hear, "two");
	notify_publish(NOTIFY_VF_POOL_CHANGED, NULL);
	ASSERT_STR_EQ(heard, "one:- three:-");
	notify_unsubscribe(NOTIFY_VF_POOL_CHANGED, hear, "one");
	notify_unsubscribe(NOTIFY_VF_POOL_CHANGED, hear, "three");
	ASSERT_INT_EQ(notify_count(NOTIFY_VF_POOL_CHANGED), before);
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_EVENT_COUNT, hear, "bad"), -EINVAL);
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_STATE_SAVED, NULL, "bad"), -EINVAL);
}

static void test_unsubscribe_from_its_call(void)
{
	heard[0] = '\0';
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_STATE_SAVED, hear_once, "once"), 0);
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_STATE_SAVED, hear, "always"), 0);
	notify_publish(NOTIFY_STATE_SAVED, NULL);
	notify_publish(NOTIFY_STATE_SAVED, NULL);
	ASSERT_STR_EQ(heard, "once:- always:- always:-");
	notify_unsubscribe(NOTIFY_STATE_SAVED, hear, "always");
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"podwired's modules sort", test_podwired_modules_sort},
	    {"dependency order, reverse stop", test_dependency_order_and_reverse_stop},
	    {"needs before names", test_order_against_names},
	    {"a failing init unwinds the started", test_failing_init_unwinds},
	    {"a missing dependency", test_missing_dependency},
	    {"a cycle", test_cycle},
	    {"two modules of one name", test_duplicate_name},
	    {"subscribers in order", test_subscribers_in_order},
	    {"unsubscribe from its own call", test_unsubscribe_from_its_call},
	    {NULL, NULL},
	};

	return unit_run("modules", tests);
}
