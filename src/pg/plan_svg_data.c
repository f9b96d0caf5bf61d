/*
 * plan_svg_data.c — reading a plan for its picture.
 *
 * The plan run, its pools and GPUs, its blocks, the allocation in force now
 * (which of the plan's blocks are committed: a running job's, or step 0 held
 * by the same workload), each service's forecast and recorded demand, and
 * the queued or booked jobs the plan has no block for, each with the reason
 * worked out from the tables.  The caller holds an SPI connection.
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "gpualloc_pg.h"
#include "plan_svg.h"

static char *
get_text(HeapTuple tup, TupleDesc desc, int col)
{
	char	   *v = SPI_getvalue(tup, desc, col);

	return v ? v : pstrdup("");
}

static double
get_float(HeapTuple tup, TupleDesc desc, int col, bool *isnull)
{
	Datum		d = SPI_getbinval(tup, desc, col, isnull);

	return *isnull ? 0.0 : DatumGetFloat8(d);
}

static int
get_int(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? 0 : DatumGetInt32(d);
}

static int64
get_int64(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? 0 : DatumGetInt64(d);
}

static TimestampTz
get_time(HeapTuple tup, TupleDesc desc, int col, bool *isnull)
{
	Datum		d = SPI_getbinval(tup, desc, col, isnull);

	return *isnull ? 0 : DatumGetTimestampTz(d);
}

static void
read_run(SvgPlan *p)
{
	Datum		arg = Int64GetDatum(p->plan_id);
	Oid			type = INT8OID;
	HeapTuple	tup;
	TupleDesc	desc;
	bool		isnull;
	double		step_s;
	char	   *message;

	if (SPI_execute_with_args("SELECT mode, status, plan_start, extract(epoch FROM step)::float8, "
							  "horizon_steps, objective, gap, solve_ms, coalesce(message, ''), started_at "
							  "FROM gpualloc.plan_runs WHERE plan_id = $1",
							  1, &type, &arg, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read plan_runs");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("plan " INT64_FORMAT " does not exist", p->plan_id),
				 errhint("Plans are listed in gpualloc.plan_runs.")));
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	p->mode = get_text(tup, desc, 1);
	p->status = get_text(tup, desc, 2);
	message = get_text(tup, desc, 9);
	if (strcmp(p->status, "succeeded") != 0 && strcmp(p->status, "fallback") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("plan " INT64_FORMAT " has no grid: its status is %s", p->plan_id, p->status),
				 errdetail("%s", message)));
	p->plan_start = get_time(tup, desc, 3, &isnull);
	step_s = get_float(tup, desc, 4, &isnull);
	p->T = get_int(tup, desc, 5);
	if (!(step_s > 0) || p->T <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("plan " INT64_FORMAT " has no step length or horizon", p->plan_id)));
	p->step_usecs = (int64) rint(step_s * USECS_PER_SEC);
	p->objective = get_float(tup, desc, 6, &p->objective_null);
	p->gap = get_float(tup, desc, 7, &p->gap_null);
	p->solve_ms = get_float(tup, desc, 8, &p->solve_null);
	p->started_at = get_time(tup, desc, 10, &isnull);
}

/* The largest aligned block of GPUs that are all up (what a job can get). */
static int
largest_block(const SvgPool *pool)
{
	int			best = 0;
	int			chunk = 1;

	/* the planner's chunk: the largest power of two not above the GPU count */
	while (chunk * 2 <= pool->n_gpus)
		chunk *= 2;
	for (int size = 1; size <= chunk && size <= pool->n_index; size *= 2)
	{
		bool		found = false;

		for (int first = 0; first + size <= pool->n_index && !found; first += size)
		{
			int			i = first;

			while (i < first + size && pool->state[i] == 'u')
				i++;
			found = i == first + size;
		}
		if (!found)
			break;
		best = size;
	}
	return best;
}

static void
read_pools(SvgPlan *p)
{
	int			n;
	int			cur = -1;

	if (SPI_execute("SELECT p.pool_id, p.name, p.gpu_model, p.node_size, "
					"       g.node * p.node_size + g.slot AS idx, g.state, "
					"       pg_catalog.max(g.node * p.node_size + g.slot) OVER (PARTITION BY p.pool_id) + 1 "
					"FROM gpualloc.pools p JOIN gpualloc.gpus g USING (pool_id) "
					"ORDER BY p.name, idx", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read pools and GPUs");
	n = (int) SPI_processed;
	p->pools = palloc0(sizeof(SvgPool) * Max(n, 1));
	p->n_pools = 0;
	for (int i = 0; i < n; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		int			pool_id = get_int(tup, desc, 1);
		int			idx = get_int(tup, desc, 5);
		char	   *state = get_text(tup, desc, 6);
		SvgPool    *pool;

		if (cur < 0 || p->pools[cur].pool_id != pool_id)
		{
			cur = p->n_pools++;
			pool = &p->pools[cur];
			pool->pool_id = pool_id;
			pool->name = get_text(tup, desc, 2);
			pool->model = get_text(tup, desc, 3);
			pool->node_size = Max(get_int(tup, desc, 4), 1);
			pool->n_index = get_int(tup, desc, 7);
			pool->state = palloc0(pool->n_index + 1);
			pool->held_job = palloc0(sizeof(int64) * (pool->n_index + 1));
			pool->held_service = palloc0(sizeof(int) * (pool->n_index + 1));
		}
		pool = &p->pools[cur];
		if (idx < 0 || idx >= pool->n_index)
			continue;
		pool->n_gpus++;
		if (strcmp(state, "down") == 0)
		{
			pool->state[idx] = 'd';
			pool->n_down++;
		}
		else
		{
			pool->state[idx] = strcmp(state, "drain") == 0 ? 'r' : 'u';
			pool->usable++;
			if (pool->state[idx] == 'r')
				pool->n_drain++;
		}
	}
	for (int i = 0; i < p->n_pools; i++)
	{
		SvgPool    *pool = &p->pools[i];

		pool->largest_block = largest_block(pool);
		p->has_down |= pool->n_down > 0;
		p->has_drain |= pool->n_drain > 0;
		p->has_missing |= pool->n_gpus < pool->n_index;
	}
}

static int
pool_index(const SvgPlan *p, int pool_id)
{
	for (int i = 0; i < p->n_pools; i++)
		if (p->pools[i].pool_id == pool_id)
			return i;
	return -1;
}

/* The allocation in force: the open rows, GPU by GPU. */
static void
read_held(SvgPlan *p)
{
	if (SPI_execute("SELECT g.pool_id, g.node * p.node_size + g.slot, a.job_id, a.service_id "
					"FROM gpualloc.allocations a JOIN gpualloc.gpus g USING (gpu_id) "
					"JOIN gpualloc.pools p USING (pool_id) WHERE a.end_seq IS NULL",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read the allocation");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		int			pi = pool_index(p, get_int(tup, desc, 1));
		int			idx = get_int(tup, desc, 2);

		if (pi < 0 || idx < 0 || idx >= p->pools[pi].n_index)
			continue;
		p->pools[pi].held_job[idx] = get_int64(tup, desc, 3);
		p->pools[pi].held_service[idx] = get_int(tup, desc, 4);
	}
}

/* Does the allocation in force give every GPU of b to b's workload? */
static bool
block_held(const SvgPlan *p, const SvgBlock *b)
{
	const SvgPool *pool = &p->pools[b->pool];

	if (b->gpu_first < 0 || b->gpu_first + b->gpu_count > pool->n_index)
		return false;
	for (int i = b->gpu_first; i < b->gpu_first + b->gpu_count; i++)
	{
		if (b->job_id != 0 ? pool->held_job[i] != b->job_id : pool->held_service[i] != b->service_id)
			return false;
	}
	return true;
}

static void
read_blocks(SvgPlan *p)
{
	Datum		arg = Int64GetDatum(p->plan_id);
	Oid			type = INT8OID;
	int64		last_job = 0;

	if (SPI_execute_with_args("SELECT b.pool_id, b.job_id, b.service_id, b.gpu_first, b.gpu_count, "
							  "       b.step_first, b.step_count, coalesce(j.name, 'job ' || b.job_id), "
							  "       coalesce(j.kind, 'unknown'), coalesce(j.tenant::text, ''), "
							  "       coalesce(j.priority, 0), coalesce(s.name, 'service ' || b.service_id), "
							  "       coalesce(j.status, '') "
							  "FROM gpualloc.plan_blocks b "
							  "LEFT JOIN gpualloc.jobs j ON j.job_id = b.job_id "
							  "LEFT JOIN gpualloc.services s ON s.service_id = b.service_id "
							  "WHERE b.plan_id = $1 "
							  "ORDER BY b.job_id NULLS LAST, b.service_id, b.pool_id, b.gpu_first, b.step_first",
							  1, &type, &arg, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read plan_blocks");
	p->n_blocks = (int) SPI_processed;
	p->blocks = palloc0(sizeof(SvgBlock) * Max(p->n_blocks, 1));
	p->n_jobs = 0;
	for (int i = 0; i < p->n_blocks; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		SvgBlock   *b = &p->blocks[i];
		bool		isnull;

		b->pool = pool_index(p, get_int(tup, desc, 1));
		b->job_id = get_int64(tup, desc, 2);
		b->service_id = get_int(tup, desc, 3);
		b->gpu_first = get_int(tup, desc, 4);
		b->gpu_count = get_int(tup, desc, 5);
		b->step_first = get_int(tup, desc, 6);
		b->step_count = get_int(tup, desc, 7);
		b->color = -1;
		if (b->job_id != 0)
		{
			b->job_name = get_text(tup, desc, 8);
			b->kind = get_text(tup, desc, 9);
			b->tenant = get_text(tup, desc, 10);
			b->priority = get_float(tup, desc, 11, &isnull);
			b->job_status = get_text(tup, desc, 13);
			if (b->job_id != last_job)
				p->n_jobs++;
			last_job = b->job_id;
		}
		else
			b->service = get_text(tup, desc, 12);

		/* how firm it is, against the allocation in force now */
		b->state = SVG_TENTATIVE;
		if (b->pool >= 0 && b->step_first == 0)
		{
			if (b->job_id != 0 && strcmp(b->job_status, "running") == 0)
				b->state = SVG_RUNNING;
			else if (block_held(p, b))
				b->state = SVG_COMMITTED;
		}
		if (b->pool >= 0 && b->step_first < p->T)
		{
			p->has_state[b->state] = true;
			/* a service's later steps are planned, not committed */
			if (b->job_id == 0 && b->step_count > 1)
				p->has_state[SVG_TENTATIVE] = true;
		}
	}
}

/*
 * The forecast the planner used (history before the plan's start), inside a
 * subtransaction: a service whose history cannot be forecast is drawn without
 * it, with the reason, rather than failing the picture.
 */
static void
forecast_service(SvgPlan *p, SvgService *s)
{
	MemoryContext oldcontext = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	GaServiceForecastRequest req;

	req.service_id = s->service_id;
	req.name = s->name;
	req.from = p->plan_start;
	req.n_steps = p->T;
	req.step_minutes = (int) (p->step_usecs / USECS_PER_MINUTE);
	req.capacity_per_gpu = s->capacity;
	req.churn_limit = s->churn_limit;
	req.min_gpus = s->min_gpus;
	req.max_gpus = s->max_gpus;
	if (req.step_minutes <= 0 || 60 % req.step_minutes != 0)
	{
		s->forecast_error = pstrdup("the plan's step does not divide an hour");
		return;
	}

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcontext);
	PG_TRY();
	{
		ga_pg_forecast_service(&req, NULL, NULL, s->forecast, NULL, NULL);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcontext);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcontext);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcontext);
		CurrentResourceOwner = oldowner;
		s->forecast_error = pstrdup(edata->message);
		FreeErrorData(edata);
	}
	PG_END_TRY();
}

static void
read_services(SvgPlan *p)
{
	Datum		args[3];
	Oid			types[3] = {INT4OID, TIMESTAMPTZOID, TIMESTAMPTZOID};
	int			n;
	SPITupleTable *tab;

	if (SPI_execute("SELECT s.service_id, s.name, p.name, s.pool_id, s.capacity_per_gpu, "
					"       s.churn_limit, s.min_gpus, s.max_gpus "
					"FROM gpualloc.services s JOIN gpualloc.pools p USING (pool_id) "
					"ORDER BY p.name, s.name", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read services");
	n = (int) SPI_processed;
	tab = SPI_tuptable;
	p->services = palloc0(sizeof(SvgService) * Max(n, 1));
	p->n_services = 0;
	for (int i = 0; i < n; i++)
	{
		HeapTuple	tup = tab->vals[i];
		TupleDesc	desc = tab->tupdesc;
		SvgService *s = &p->services[p->n_services];
		bool		isnull;

		s->pool_id = get_int(tup, desc, 4);
		if (pool_index(p, s->pool_id) < 0)
			continue;
		p->n_services++;
		s->service_id = get_int(tup, desc, 1);
		s->name = get_text(tup, desc, 2);
		s->pool = get_text(tup, desc, 3);
		s->capacity = get_float(tup, desc, 5, &isnull);
		s->churn_limit = get_int(tup, desc, 6);
		s->min_gpus = get_int(tup, desc, 7);
		s->max_gpus = get_int(tup, desc, 8);
		s->color = -1;
		s->planned = palloc0(sizeof(int) * p->T);
		s->forecast = palloc0(sizeof(int) * p->T);
		s->actual = palloc(sizeof(int) * p->T);
		for (int t = 0; t < p->T; t++)
			s->actual[t] = -1;
	}

	for (int i = 0; i < p->n_services; i++)
	{
		SvgService *s = &p->services[i];

		for (int b = 0; b < p->n_blocks; b++)
		{
			SvgBlock   *blk = &p->blocks[b];

			if (blk->job_id != 0 || blk->service_id != s->service_id)
				continue;
			for (int t = blk->step_first; t < blk->step_first + blk->step_count && t < p->T; t++)
				s->planned[t] += blk->gpu_count;
		}
		forecast_service(p, s);

		/* recorded demand in the horizon: known once the hours have passed */
		args[0] = Int32GetDatum(s->service_id);
		args[1] = TimestampTzGetDatum(p->plan_start);
		args[2] = TimestampTzGetDatum(p->plan_start + p->T * p->step_usecs);
		if (SPI_execute_with_args("SELECT hour, traffic FROM gpualloc.demand_history "
								  "WHERE service_id = $1 AND hour >= pg_catalog.date_trunc('hour', $2, 'UTC') AND hour < $3",
								  3, types, args, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "gpualloc: could not read demand_history");
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			bool		isnull;
			TimestampTz hour = get_time(tup, SPI_tuptable->tupdesc, 1, &isnull);
			double		traffic = get_float(tup, SPI_tuptable->tupdesc, 2, &isnull);
			int			gpus = (int) ceil(traffic / s->capacity - 1e-9);

			for (int t = 0; t < p->T; t++)
			{
				TimestampTz st = p->plan_start + t * p->step_usecs;

				if (st >= hour && st < hour + USECS_PER_HOUR)
					s->actual[t] = gpus;
			}
		}
		for (int t = 0; t < p->T; t++)
		{
			p->has_actual |= s->actual[t] >= 0;
			if (!s->forecast_error && s->planned[t] < s->forecast[t])
				p->has_risk = true;
		}
		p->has_forecast |= s->forecast_error == NULL;
	}
}

/* Steps from the plan's start to ts, rounded down or up, clamped. */
static int
steps_to(const SvgPlan *p, TimestampTz ts, bool round_up)
{
	double		steps = (double) (ts - p->plan_start) / (double) p->step_usecs;
	double		r = round_up ? ceil(steps - 1e-9) : floor(steps + 1e-9);

	return (int) Max(Min(r, 1e6), -1e6);
}

/*
 * Why the plan has no block for a job, as far as the tables tell: the same
 * tests the planner makes before it looks for room (problem_build.c and the
 * solvers' release, size and deadline rules), against the plan's start and
 * the pool as it stands now.
 */
static char *
unplanned_reason(SvgPlan *p, HeapTuple tup, TupleDesc desc, SvgUnplanned *u)
{
	bool		isnull;
	bool		no_estimate;
	double		work = get_float(tup, desc, 9, &no_estimate);
	TimestampTz submitted = get_time(tup, desc, 10, &isnull);
	bool		no_not_before;
	TimestampTz not_before = get_time(tup, desc, 11, &no_not_before);
	bool		no_deadline;
	TimestampTz deadline = get_time(tup, desc, 12, &no_deadline);
	int			pi = pool_index(p, get_int(tup, desc, 13));
	SvgPool    *pool = pi >= 0 ? &p->pools[pi] : NULL;
	TimestampTz released = no_not_before ? submitted : Max(submitted, not_before);
	int			release_step;
	int			size;
	int			d;
	char		when[40];

	if (submitted > p->started_at)
		return pstrdup("submitted after this plan was made");
	if (no_estimate)
		return pstrdup("no estimate of its work yet");
	if (pool == NULL)
		return pstrdup("its pool has no GPUs");
	if (u->gpus_min > pool->largest_block)
	{
		if (pool->largest_block == 0)
			return psprintf("gpus_min %d larger than the usable pool (no GPU up)", u->gpus_min);
		return psprintf("gpus_min %d larger than the usable pool (at most %d GPU%s up in one block)",
						u->gpus_min, pool->largest_block, pool->largest_block == 1 ? "" : "s");
	}
	release_step = released <= p->started_at ? 0 : Max(0, steps_to(p, released, true));
	if (release_step >= p->T)
	{
		svg_format_time(released, true, when, sizeof(when));
		return psprintf("not before %s, after the horizon", when);
	}
	/* the shortest run: as many GPUs as it may take, up to the largest block */
	size = Min(u->gpus_max, pool->largest_block);
	d = (int) Min(ceil(work / size * USECS_PER_HOUR / p->step_usecs - 1e-9), 1e8);
	d = Max(d, 1);
	if (!no_deadline)
	{
		int			deadline_step = Max(0, steps_to(p, deadline, false));

		svg_format_time(deadline, true, when, sizeof(when));
		if (deadline <= p->started_at)
			return psprintf("deadline unreachable: it passed at %s", when);
		if (deadline_step - d < release_step)
			return psprintf("deadline unreachable: %.1f h at %d GPU%s, due %s",
							work / size, size, size == 1 ? "" : "s", when);
		return psprintf("does not fit before its deadline %s (no %d-GPU block frees up)",
						when, u->gpus_min);
	}
	return psprintf("does not fit in the horizon (no %d-GPU block frees up)", u->gpus_min);
}

static void
read_unplanned(SvgPlan *p)
{
	Datum		arg = Int64GetDatum(p->plan_id);
	Oid			type = INT8OID;

	if (SPI_execute_with_args("SELECT j.job_id, j.name, j.kind, j.tenant::text, j.status, p.name, "
							  "       j.gpus_min, j.gpus_max, j.est_work_gpu_hours, j.submitted_at, "
							  "       j.not_before, j.deadline, j.pool_id "
							  "FROM gpualloc.jobs j JOIN gpualloc.pools p USING (pool_id) "
							  "WHERE j.status IN ('queued', 'booked') AND NOT EXISTS "
							  "  (SELECT 1 FROM gpualloc.plan_blocks b WHERE b.plan_id = $1 AND b.job_id = j.job_id) "
							  "ORDER BY j.job_id",
							  1, &type, &arg, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read the jobs left out of the plan");
	p->n_unplanned = (int) SPI_processed;
	p->unplanned = palloc0(sizeof(SvgUnplanned) * Max(p->n_unplanned, 1));
	for (int i = 0; i < p->n_unplanned; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		SvgUnplanned *u = &p->unplanned[i];

		u->job_id = get_int64(tup, desc, 1);
		u->name = get_text(tup, desc, 2);
		u->kind = get_text(tup, desc, 3);
		u->tenant = get_text(tup, desc, 4);
		u->status = get_text(tup, desc, 5);
		u->pool = get_text(tup, desc, 6);
		u->gpus_min = get_int(tup, desc, 7);
		u->gpus_max = get_int(tup, desc, 8);
		u->reason = unplanned_reason(p, tup, desc, u);
	}
}

/* Idle GPU-steps: usable GPUs that no block covers. */
static void
find_idle(SvgPlan *p)
{
	int			usable = 0;

	for (int i = 0; i < p->n_pools; i++)
		usable += p->pools[i].usable;
	for (int t = 0; t < p->T && !p->has_idle; t++)
	{
		int			busy = 0;

		for (int i = 0; i < p->n_blocks; i++)
		{
			SvgBlock   *b = &p->blocks[i];

			if (t >= b->step_first && t < b->step_first + b->step_count)
				busy += b->gpu_count;
		}
		p->has_idle = busy < usable;
	}
}

/*
 * The ranges of `sql` (pool_id, first_gpu, gpus, starts_at, ends_at, reason
 * and, with tenants, tenant) that overlap the plan's horizon, on the GPUs
 * the pool has indexes for, each cell one touches counted whole (as the
 * planner closes the whole step), into *out; returns how many.
 */
static int
read_closed(SvgPlan *p, const char *sql, bool tenants, SvgWindow **out)
{
	Datum		args[2] = {TimestampTzGetDatum(p->plan_start),
	TimestampTzGetDatum(p->plan_start + p->T * p->step_usecs)};
	Oid			types[2] = {TIMESTAMPTZOID, TIMESTAMPTZOID};
	int			n = 0;

	if (SPI_execute_with_args(sql, 2, types, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read %s", tenants ? "advance reservations" : "maintenance windows");
	*out = palloc0(sizeof(SvgWindow) * (SPI_processed + 1));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		SvgWindow  *w = &(*out)[n];
		int			q = pool_index(p, get_int(tup, desc, 1));
		bool		isnull;
		int64		last;
		int			from;
		int			to;

		if (q < 0)
			continue;
		w->pool = q;
		w->gpu_first = get_int(tup, desc, 2);
		(void) SPI_getbinval(tup, desc, 3, &isnull);
		last = isnull ? p->pools[q].n_index : Min((int64) w->gpu_first + get_int(tup, desc, 3),
												   (int64) p->pools[q].n_index);
		w->starts_at = get_time(tup, desc, 4, &isnull);
		w->ends_at = get_time(tup, desc, 5, &isnull);
		w->reason = get_text(tup, desc, 6);
		w->tenant = tenants ? get_text(tup, desc, 7) : NULL;
		from = Max(steps_to(p, w->starts_at, false), 0);
		to = Min(steps_to(p, w->ends_at, true), p->T);
		if (last <= w->gpu_first || to <= from)
			continue;
		w->gpu_count = (int) (last - w->gpu_first);
		w->step_first = from;
		w->step_count = to - from;
		n++;
	}
	return n;
}

/* The maintenance windows and advance reservations over the horizon. */
static void
read_windows(SvgPlan *p)
{
	p->n_windows = read_closed(p, "SELECT w.pool_id, w.first_gpu, w.gpus, w.starts_at, w.ends_at, w.reason "
							   "FROM gpualloc.maintenance_windows w "
							   "WHERE w.ends_at > $1 AND w.starts_at < $2 ORDER BY w.starts_at, w.window_id",
							   false, &p->windows);
	p->has_window = p->n_windows > 0;
	p->n_reservations = read_closed(p, "SELECT r.pool_id, r.first_gpu, r.gpus, r.starts_at, r.ends_at, r.reason, "
									"       r.tenant::text "
									"FROM gpualloc.advance_reservations r "
									"WHERE r.ends_at > $1 AND r.starts_at < $2 "
									"ORDER BY r.starts_at, r.reservation_id",
									true, &p->reservations);
	p->has_reservation = p->n_reservations > 0;
}

void
svg_read_plan(SvgPlan *p)
{
	read_run(p);
	read_pools(p);
	read_held(p);
	read_blocks(p);
	read_services(p);
	read_unplanned(p);
	read_windows(p);
	find_idle(p);
	p->has_now = p->now >= p->plan_start && p->now < p->plan_start + p->T * p->step_usecs;
}
