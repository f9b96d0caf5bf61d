/*
 * main.c — runs every registered unit test (optionally only those whose name
 * contains argv[1]) and prints "N passed, N failed" last.
 */
#include "unit.h"

#include <stdarg.h>
#include <stdlib.h>

#define MAX_TESTS 1024

typedef struct unit_case
{
	const char *name;
	const char *file;
	unit_fn		fn;
} unit_case;

static unit_case cases[MAX_TESTS];
static int	n_cases;
static int	current_failures;

void
unit_register(const char *name, const char *file, unit_fn fn)
{
	if (n_cases >= MAX_TESTS)
	{
		fprintf(stderr, "too many unit tests (max %d)\n", MAX_TESTS);
		exit(2);
	}
	cases[n_cases].name = name;
	cases[n_cases].file = file;
	cases[n_cases].fn = fn;
	n_cases++;
}

void
unit_fail(const char *file, int line, const char *fmt,...)
{
	va_list		ap;

	current_failures++;
	fprintf(stdout, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static int
compare_cases(const void *a, const void *b)
{
	const unit_case *x = a;
	const unit_case *y = b;
	int			c = strcmp(x->file, y->file);

	return c != 0 ? c : strcmp(x->name, y->name);
}

int
main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int			passed = 0;
	int			failed = 0;

	qsort(cases, n_cases, sizeof(unit_case), compare_cases);
	for (int i = 0; i < n_cases; i++)
	{
		if (filter && strstr(cases[i].name, filter) == NULL)
			continue;
		current_failures = 0;
		cases[i].fn();
		if (current_failures == 0)
		{
			passed++;
			printf("ok   %s\n", cases[i].name);
		}
		else
		{
			failed++;
			printf("FAIL %s (%d failed checks)\n", cases[i].name, current_failures);
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
