/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the CUnit unit tests: assertions that print the values
 * they compared (CUnit alone prints only the expression), a runner that
 * makes the exit status reflect failures, and a scratch directory.
 */
#ifndef PODWIRE_UNIT_H
#define PODWIRE_UNIT_H

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>

/* CUnit copies the condition text, so a formatted one may live on the stack. */
static inline void unit_check(bool ok, int line, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline void unit_check(bool ok, int line, const char *file, const char *fmt, ...)
{
	char text[1024] = "";

	if (!ok) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(text, sizeof(text), fmt, ap);
		va_end(ap);
	}
	CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned int)line, text, file, "",
				CU_FALSE);
}

/* The message hay contains needle. */
#define ASSERT_CONTAINS(hay, needle)                                                               \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		unit_check(h_ != NULL && strstr(h_, n_) != NULL, __LINE__, __FILE__,               \
			   "\"%s\" should contain \"%s\"", h_ ? h_ : "(null)", n_);                \
	} while (0)

#define ASSERT_NOT_CONTAINS(hay, needle)                                                           \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		unit_check(h_ != NULL && strstr(h_, n_) == NULL, __LINE__, __FILE__,               \
			   "\"%s\" should not contain \"%s\"", h_ ? h_ : "(null)", n_);            \
	} while (0)

#define ASSERT_INT_EQ(actual, expected)                                                            \
	do {                                                                                       \
		long long a_ = (long long)(actual), e_ = (long long)(expected);                    \
		unit_check(a_ == e_, __LINE__, __FILE__, "%s == %lld, expected %s == %lld",        \
			   #actual, a_, #expected, e_);                                            \
	} while (0)

#define ASSERT_STR_EQ(actual, expected)                                                            \
	do {                                                                                       \
		const char *a_ = (actual), *e_ = (expected);                                       \
		unit_check(a_ != NULL && e_ != NULL && strcmp(a_, e_) == 0, __LINE__, __FILE__,    \
			   "%s is \"%s\", expected \"%s\"", #actual, a_ ? a_ : "(null)",           \
			   e_ ? e_ : "(null)");                                                    \
	} while (0)

struct unit_test {
	const char *name;
	CU_TestFunc fn;
};

/* Runs tests (terminated by a NULL name) as one suite; the exit status is 0
 * only when every assertion passed. */
static inline int unit_run(const char *suite, const struct unit_test *tests)
{
	unsigned int failures;
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite(suite, NULL, NULL);
	if (s == NULL)
		goto err;
	for (const struct unit_test *t = tests; t->name != NULL; t++)
		if (CU_add_test(s, t->name, t->fn) == NULL)
			goto err;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS)
		goto err;
	failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failures > 0 ? 1 : 0;
err:
	fprintf(stderr, "%s: CUnit error: %s\n", suite, CU_get_error_msg());
	CU_cleanup_registry();
	return 2;
}

/* A fresh directory under $TMPDIR (or /tmp); path must hold 64 bytes. */
static inline bool unit_tmpdir(char *path, size_t len)
{
	const char *base = getenv("TMPDIR");

	snprintf(path, len, "%s/pwunit.XXXXXX", base != NULL && base[0] == '/' ? base : "/tmp");
	return mkdtemp(path) != NULL;
}

static inline int unit_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

/* Removes a directory made by unit_tmpdir and everything in it. */
static inline void unit_rmtree(const char *path)
{
	if (path != NULL && path[0] != '\0')
		nftw(path, unit_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* unit_run in a fresh temp directory (dir, of len bytes, gets its path
 * for the tests to use), removed afterwards whatever the result. 2 when
 * it cannot be made. */
static inline int unit_run_in_tmpdir(const char *suite, const struct unit_test *tests, char *dir,
				     size_t len)
{
	int rc;

	if (!unit_tmpdir(dir, len)) {
		fprintf(stderr, "%s: cannot make a temp directory: %s\n", suite, strerror(errno));
		return 2;
	}
	rc = unit_run(suite, tests);
	unit_rmtree(dir);
	dir[0] = '\0';
	return rc;
}

#endif
