/*
 * glpk_guard.h — running GLPK code so that it can neither abort the process
 * nor leak.
 *
 * GLPK reports an internal error by calling abort() unless an error hook
 * takes over, and after such an error its whole environment is unusable.
 * Inside a PostgreSQL backend an abort() would take the server down, so every
 * use of GLPK in the core runs under this guard: GLPK's terminal output is
 * kept quiet (its last line is remembered for the error message), an
 * internal error releases all of GLPK's memory and returns here instead of
 * aborting, and on every path the problem and GLPK's environment are freed.
 */
#ifndef GPUALLOC_GLPK_GUARD_H
#define GPUALLOC_GLPK_GUARD_H

#include "model/common.h"

#include <glpk.h>
#include <stddef.h>

/*
 * Run body(arg) under the guard.  *lp is the problem the body creates; it is
 * deleted afterwards (or already gone after an internal error) and set to
 * NULL.  message (message_size bytes) receives GLPK's last terminal line
 * and may be written by the body too.  Returns the body's status, or
 * GA_ESOLVER with *glpk_failed set when GLPK failed internally.
 */
ga_status	ga_glpk_guarded(glp_prob **lp, char *message, size_t message_size,
							ga_status (*body) (void *arg), void *arg,
							bool *glpk_failed);

/*
 * ga_glpk_guarded for a solve, its outcome as an error in err: GLPK's
 * internal failure (GA_ESOLVER, with GLPK's last line), a cancel
 * (GA_ECANCEL), any other status of the body as out of memory in `what`.
 */
ga_status	ga_glpk_solve_guarded(glp_prob **lp, char *message, size_t message_size,
								  ga_status (*body) (void *arg), void *arg,
								  const char *what, ga_error *err);

#endif
