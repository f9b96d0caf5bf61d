/*
 * serial.h — a problem or a plan as one flat, self-contained buffer, so
 * another process can solve a problem and hand its plan back through shared
 * memory.
 *
 * Format: a header (magic, format version, kind, length of the whole
 * buffer), then the fields in a fixed order as fixed-width values in the
 * host's byte order (a buffer never leaves the machine): 32-bit integers,
 * 64-bit integers, doubles, bytes for names and flags.  No pointer is
 * stored.  A reader refuses a buffer of another
 * kind or of a version it does not read (below), a truncated one, or one whose counts do not fit its
 * length, with GA_EINVAL naming what is wrong; it never reads past the
 * length it is given.
 *
 * A problem is read back finished (ga_problem_finish: checked, decay
 * derived), so a reader gets only problems the solvers accept.  A plan is
 * read back as written, its mode one of "", "fast" or "full".
 *
 * The buffers are written into caller memory (sized by the *_serial_size
 * functions) so a caller can write straight into a shared segment.
 */
#ifndef GPUALLOC_SERIAL_H
#define GPUALLOC_SERIAL_H

#include "model/plan.h"

/*
 * Bump when the layout changes.  A reader takes its own version and the
 * four before it: version 8, the layout before the services' day peaks
 * (read as 0: the terminal charge of a short horizon as that version made
 * it), version 7, before the overrun spread and the
 * jobs' duration spreads (read as 0: every job lengthened by the overrun
 * margin, as that version planned), version 6, before headroom_min too
 * (read as 0), and version 5, before the tenants' forecast needs too (a
 * problem without any).  Plans are laid out alike in all five.  A pool
 * solver loads the library from disk when it starts, so after a package
 * upgrade it may read a problem that a planner still running the old
 * library wrote.
 */
#define GA_SERIAL_VERSION 9
#define GA_SERIAL_VERSION_NO_DAY_PEAK 8
#define GA_SERIAL_VERSION_NO_SPREAD 7
#define GA_SERIAL_VERSION_NO_HEADROOM_MIN 6
#define GA_SERIAL_VERSION_NO_NEEDS 5

/* Bytes ga_problem_write needs for this problem. */
size_t		ga_problem_serial_size(const ga_problem *problem);

/*
 * Write the problem into buf (cap bytes, at least ga_problem_serial_size);
 * GA_EINVAL when it does not fit.
 */
ga_status	ga_problem_write(const ga_problem *problem, void *buf, size_t cap,
							 ga_error *err);

/* A new finished problem from buf (len bytes); the caller destroys it. */
ga_status	ga_problem_read(const void *buf, size_t len, ga_problem **out,
							ga_error *err);

/* Bytes ga_plan_write needs for a plan of this problem. */
size_t		ga_plan_serial_size(const ga_problem *problem);

/* Write the plan into buf (cap bytes); GA_EINVAL when it does not fit. */
ga_status	ga_plan_write(const ga_plan *plan, void *buf, size_t cap,
						  ga_error *err);

/*
 * A new plan from buf (len bytes), which must be a plan of `problem` (same
 * GPUs, steps, jobs and services); the caller destroys it.
 */
ga_status	ga_plan_read(const void *buf, size_t len, const ga_problem *problem,
						 ga_plan **out, ga_error *err);

#endif
