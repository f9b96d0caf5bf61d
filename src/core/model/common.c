/*
 * common.c — error helpers and the monotonic clock used for time budgets.
 */
#include "model/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

ga_status
ga_error_set(ga_error *err, ga_status code, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

void
ga_error_clear(ga_error *err)
{
	if (err == NULL)
		return;
	err->code = GA_OK;
	err->message[0] = '\0';
}

const char *
ga_status_name(ga_status code)
{
	switch (code)
	{
		case GA_OK:
			return "ok";
		case GA_EINVAL:
			return "invalid input";
		case GA_ENOMEM:
			return "out of memory";
		case GA_ECANCEL:
			return "cancelled";
		case GA_ESOLVER:
			return "solver error";
		case GA_EILLEGAL:
			return "illegal plan";
	}
	return "unknown";
}

double
ga_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1.0e6;
}

int
ga_compare_int(const void *a, const void *b)
{
	int			x = *(const int *) a;
	int			y = *(const int *) b;

	return (x > y) - (x < y);
}
