/*
 * solve_pg.c — run a core solver inside a backend.
 *
 * The core reports errors by return code, so nothing here longjmps through
 * solver frames: a cancel request is noticed by the callback, the solver
 * unwinds and frees its memory, and only then CHECK_FOR_INTERRUPTS raises.
 * The plan the solver returns is freed with the caller's memory context.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "gpualloc_pg.h"
#include "solve/solve.h"
#include "model/validate.h"

static bool
cancel_requested(void *arg)
{
	return QueryCancelPending || ProcDiePending;
}

static void
destroy_plan_callback(void *arg)
{
	ga_plan_destroy((ga_plan *) arg);
}

/*
 * Solve in the given mode.  Returns the plan, or NULL with the reason in
 * errbuf when the solver failed (the caller records it and keeps the last
 * committed allocation).  A plan that breaks a rule of the model is treated
 * as a failure: it is never committed.
 */
ga_plan *
ga_pg_solve(GaBuild *build, const char *mode, double time_limit_ms,
			char *errbuf, size_t errlen)
{
	ga_solve_options options = {0};
	ga_plan    *plan = NULL;
	ga_error	err;
	ga_status	rc;
	MemoryContextCallback *cb;

	options.time_limit_ms = time_limit_ms;
	options.cancel = cancel_requested;
	ga_error_clear(&err);
	if (strcmp(mode, "full") == 0)
		rc = ga_solve_full(build->problem, &options, &plan, &err);
	else
		rc = ga_solve_fast(build->problem, &options, &plan, &err);
	CHECK_FOR_INTERRUPTS();
	if (rc != GA_OK)
	{
		ga_plan_destroy(plan);
		snprintf(errbuf, errlen, "%s solve failed (%s): %s", mode, ga_status_name(rc), err.message);
		return NULL;
	}
	if (ga_validate(build->problem, plan, &err) != GA_OK)
	{
		ga_plan_destroy(plan);
		snprintf(errbuf, errlen, "%s solve produced an illegal plan: %s", mode, err.message);
		return NULL;
	}
	cb = palloc0(sizeof(MemoryContextCallback));
	cb->func = destroy_plan_callback;
	cb->arg = plan;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	return plan;
}
