/*
 * saved_query.c — statements prepared once per backend and kept: the
 * parse and plan of a hot path's queries are paid on first use only.
 *
 * A kept plan is revalidated by the plan cache when a table it reads
 * changes, so a dropped and re-created extension is planned afresh.
 */
#include "postgres.h"

#include "executor/spi.h"

#include "gpualloc_pg.h"

/* q's kept plan, prepared the first time (inside SPI). */
SPIPlanPtr
ga_saved_query_plan(GaSavedQuery *q)
{
	if (q->plan == NULL)
	{
		/*
		 * A generic plan from the first call: these statements look rows up
		 * by key, where a plan made for the parameters' values is no
		 * better, and planning each call afresh would cost more than the
		 * statement itself.  A query read through a cursor that stops
		 * early is planned for its first rows (cursor_tuple_fraction).
		 */
		int			options = CURSOR_OPT_GENERIC_PLAN | (q->fast_start ? CURSOR_OPT_FAST_PLAN : 0);
		SPIPlanPtr	plan = SPI_prepare_cursor(q->sql, q->nargs, q->types, options);

		if (plan == NULL)
			elog(ERROR, "gpualloc: could not prepare (%s): %s", SPI_result_code_string(SPI_result), q->sql);
		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "gpualloc: could not keep the plan of: %s", q->sql);
		q->plan = plan;
	}
	return q->plan;
}

/* Run q (inside SPI), preparing and keeping its plan the first time. */
int
ga_saved_query_run(GaSavedQuery *q, Datum *args, const char *nulls, bool read_only, long count)
{
	return SPI_execute_plan(ga_saved_query_plan(q), args, nulls, read_only, count);
}

/* Run q and insist on the result kind expected (SPI_OK_SELECT, ...). */
void
ga_saved_query_expect(GaSavedQuery *q, Datum *args, const char *nulls, int expected)
{
	int			rc = ga_saved_query_run(q, args, nulls, false, 0);

	if (rc != expected)
		elog(ERROR, "gpualloc: query failed (%s): %s", SPI_result_code_string(rc), q->sql);
}
