/*
 * common.h — error reporting and cancellation shared by every core module.
 *
 * The core never includes a PostgreSQL header.  Functions that can fail
 * return a ga_status and, when handed a ga_error, fill it with a message that
 * names the field and the rule that was broken.  Long-running work polls a
 * caller-supplied cancel callback so the backend can honour query cancel.
 */
#ifndef GPUALLOC_COMMON_H
#define GPUALLOC_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ga_status
{
	GA_OK = 0,
	GA_EINVAL,		/* bad input: message names the field and the rule */
	GA_ENOMEM,		/* allocation failed */
	GA_ECANCEL,		/* the cancel callback asked us to stop */
	GA_ESOLVER,		/* the solver library reported an internal error */
	GA_EILLEGAL		/* a plan breaks a rule of the model (validator) */
} ga_status;

#define GA_ERROR_MESSAGE_LEN 512

typedef struct ga_error
{
	ga_status	code;
	char		message[GA_ERROR_MESSAGE_LEN];
} ga_error;

/* Returns true when the caller wants the current computation abandoned. */
typedef bool (*ga_cancel_fn) (void *arg);

/* Record an error (err may be NULL) and return code, for one-line returns. */
ga_status	ga_error_set(ga_error *err, ga_status code, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

void		ga_error_clear(ga_error *err);

const char *ga_status_name(ga_status code);

/* Monotonic wall clock in milliseconds, for time budgets. */
double		ga_now_ms(void);

/* qsort comparator of ints, lowest first. */
int			ga_compare_int(const void *a, const void *b);

#endif
