/*
 * unit.h — a minimal unit-test harness for the core.
 *
 * A test is declared with TEST(name) { ... } in any tests/unit/test_*.c file;
 * it registers itself before main runs, so adding a file is all it takes.
 * CHECK* macros record a failure with file and line and let the test go on,
 * so one run reports every broken assertion.  The runner ends with the line
 * "N passed, N failed".
 */
#ifndef GPUALLOC_UNIT_H
#define GPUALLOC_UNIT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef void (*unit_fn) (void);

void		unit_register(const char *name, const char *file, unit_fn fn);
void		unit_fail(const char *file, int line, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

#define TEST(name) \
	static void name(void); \
	__attribute__((constructor)) static void register_##name(void) \
	{ unit_register(#name, __FILE__, name); } \
	static void name(void)

#define CHECK(cond) \
	do { if (!(cond)) unit_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); } while (0)

#define CHECK_MSG(cond, ...) \
	do { if (!(cond)) unit_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)

#define CHECK_INT_EQ(a, b) \
	do { long long a_ = (long long) (a), b_ = (long long) (b); \
		if (a_ != b_) unit_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, a_, b_); \
	} while (0)

#define CHECK_NEAR(a, b, tol) \
	do { double a_ = (double) (a), b_ = (double) (b); \
		if (!(fabs(a_ - b_) <= (tol))) \
			unit_fail(__FILE__, __LINE__, "%s ~ %s: %g vs %g (tol %g)", #a, #b, a_, b_, (double) (tol)); \
	} while (0)

#define CHECK_STR_CONTAINS(haystack, needle) \
	do { const char *h_ = (haystack), *n_ = (needle); \
		if (h_ == NULL || strstr(h_, n_) == NULL) \
			unit_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", n_); \
	} while (0)

#endif
