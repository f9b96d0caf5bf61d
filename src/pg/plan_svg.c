/*
 * plan_svg.c — gpualloc.plan_svg(plan_id): a plan as an SVG Gantt chart.
 *
 * GPUs are rows, grouped by pool and node, in topology order; steps are
 * columns.  Each planned job is one <g class="job"> with its block and name,
 * real-time services are green, idle GPU-steps are hatched, down GPUs dark.
 * Below the grid: idle GPUs per step with the idle windows outlined, and per
 * service its planned GPUs against the demand forecast the planner used, the
 * steps where the plan falls short (coverage risk) in red.  The step that
 * contains now is outlined.
 *
 * Up to DETAIL_MAX_ROWS topology indexes get a row each; a larger cluster is
 * drawn in bands of 2^k consecutive GPUs per row (a node or more), each GPU a
 * fraction of the row's height, so every block keeps its true shape.
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "gpualloc_pg.h"

PG_FUNCTION_INFO_V1(gpualloc_plan_svg);

#define DETAIL_MAX_ROWS 128		/* one row per GPU up to this many */
#define DETAIL_ROW_H	16.0
#define BAND_ROW_H		12.0
#define LEFT			170.0	/* row labels */
#define RIGHT			24.0
#define TOP				88.0	/* title and time axis */
#define POOL_HEAD		18.0
#define POOL_GAP		10.0
#define IDLE_H			52.0
#define SERVICE_H		70.0
#define LEGEND_H		34.0
#define CHAR_W			6.0		/* average glyph width at font-size 10 */

typedef struct SvgPool
{
	int			pool_id;
	char	   *name;
	char	   *model;
	int			node_size;
	int			n_index;		/* highest topology index + 1 */
	char	   *state;			/* [n_index]: 0 none, 'u' up, 'r' drain, 'd' down */
	int			n_gpus;
	int			usable;			/* not down */
	int			n_down;
	int			n_drain;
	double		y0;				/* top of topology index 0 */
} SvgPool;

typedef struct SvgBlock
{
	int			pool;			/* index into pools, -1 when not drawn */
	int64		job_id;			/* 0 for a service */
	int			service_id;
	int			gpu_first;
	int			gpu_count;
	int			step_first;
	int			step_count;
	char	   *job_name;
	char	   *kind;
	char	   *tenant;
	double		priority;
	char	   *service;
} SvgBlock;

typedef struct SvgService
{
	int			service_id;
	char	   *name;
	char	   *pool;
	int			pool_id;
	double		capacity;
	int			churn_limit;
	int			min_gpus;
	int			max_gpus;
	int		   *planned;		/* [T] GPUs the plan gives it */
	int		   *forecast;		/* [T] churn-shaped forecast the planner plans for */
	int		   *actual;			/* [T] recorded demand in GPUs, -1 unknown */
	char	   *forecast_error; /* NULL when the forecast worked */
} SvgService;

typedef struct SvgPlan
{
	int64		plan_id;
	char	   *mode;
	char	   *status;
	TimestampTz plan_start;
	int64		step_usecs;
	int			T;
	double		objective;
	bool		objective_null;
	double		gap;
	bool		gap_null;
	double		solve_ms;
	bool		solve_null;
	int			n_pools;
	SvgPool    *pools;
	int			n_blocks;
	SvgBlock   *blocks;
	int			n_services;
	SvgService *services;
	int			n_jobs;
	/* layout */
	bool		detailed;
	int			band;			/* GPUs per row */
	double		gh;				/* height of one GPU */
	double		cw;				/* width of one step */
	double		x0;
	double		grid_bottom;
} SvgPlan;

/* ---- output helpers ---- */

/* Text or attribute content, escaped for XML; control characters become '?'. */
static void
append_xml(StringInfo buf, const char *s)
{
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		switch (c)
		{
			case '&':
				appendStringInfoString(buf, "&amp;");
				break;
			case '<':
				appendStringInfoString(buf, "&lt;");
				break;
			case '>':
				appendStringInfoString(buf, "&gt;");
				break;
			case '"':
				appendStringInfoString(buf, "&quot;");
				break;
			case '\'':
				appendStringInfoString(buf, "&apos;");
				break;
			default:
				if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
					appendStringInfoChar(buf, '?');
				else
					appendStringInfoChar(buf, (char) c);
		}
	}
}

/* A coordinate with at most two decimals and no trailing zeros. */
static void
append_num(StringInfo buf, double v)
{
	char		tmp[64];
	int			n;

	snprintf(tmp, sizeof(tmp), "%.2f", fabs(v) < 0.005 ? 0.0 : v);
	n = strlen(tmp);
	while (n > 0 && tmp[n - 1] == '0')
		tmp[--n] = '\0';
	if (n > 0 && tmp[n - 1] == '.')
		tmp[--n] = '\0';
	appendStringInfoString(buf, tmp);
}

static void
append_rect(StringInfo buf, const char *cls, double x, double y, double w, double h)
{
	appendStringInfo(buf, "<rect class=\"%s\" x=\"", cls);
	append_num(buf, x);
	appendStringInfoString(buf, "\" y=\"");
	append_num(buf, y);
	appendStringInfoString(buf, "\" width=\"");
	append_num(buf, w);
	appendStringInfoString(buf, "\" height=\"");
	append_num(buf, h);
	appendStringInfoChar(buf, '"');
}

/* <text> at (x, y) with escaped content, optionally clipped to max_chars. */
static void
append_text(StringInfo buf, const char *cls, double x, double y, const char *s, int max_chars)
{
	appendStringInfo(buf, "<text class=\"%s\" x=\"", cls);
	append_num(buf, x);
	appendStringInfoString(buf, "\" y=\"");
	append_num(buf, y);
	appendStringInfoString(buf, "\">");
	if (max_chars > 0 && pg_mbstrlen(s) > max_chars)
	{
		int			bytes = pg_mbcharcliplen(s, strlen(s), Max(max_chars - 1, 1));
		char	   *clipped = pnstrdup(s, bytes);

		append_xml(buf, clipped);
		appendStringInfoString(buf, GetDatabaseEncoding() == PG_UTF8 ? "\xE2\x80\xA6" : "~");
	}
	else
		append_xml(buf, s);
	appendStringInfoString(buf, "</text>\n");
}

/* Local time of ts in the session's time zone. */
static void
format_time(TimestampTz ts, bool with_date, char *out, size_t len)
{
	struct pg_tm tm;
	fsec_t		fsec;
	int			tz;

	if (timestamp2tm(ts, &tz, &tm, &fsec, NULL, NULL) != 0)
	{
		snprintf(out, len, "?");
		return;
	}
	if (with_date)
		snprintf(out, len, "%04d-%02d-%02d %02d:%02d", tm.tm_year, tm.tm_mon, tm.tm_mday,
				 tm.tm_hour, tm.tm_min);
	else
		snprintf(out, len, "%02d:%02d", tm.tm_hour, tm.tm_min);
}

static int
day_of(TimestampTz ts)
{
	struct pg_tm tm;
	fsec_t		fsec;
	int			tz;

	if (timestamp2tm(ts, &tz, &tm, &fsec, NULL, NULL) != 0)
		return -1;
	return tm.tm_year * 400 + tm.tm_mon * 32 + tm.tm_mday;
}

/* ---- reading the plan ---- */

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
							  "horizon_steps, objective, gap, solve_ms, coalesce(message, '') "
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
	p->plan_start = DatumGetTimestampTz(SPI_getbinval(tup, desc, 3, &isnull));
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
			pool->state = palloc0(pool->n_index);
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
}

static int
pool_index(const SvgPlan *p, int pool_id)
{
	for (int i = 0; i < p->n_pools; i++)
		if (p->pools[i].pool_id == pool_id)
			return i;
	return -1;
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
							  "       coalesce(j.priority, 0), coalesce(s.name, 'service ' || b.service_id) "
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
		Datum		job = SPI_getbinval(tup, desc, 2, &isnull);

		b->pool = pool_index(p, get_int(tup, desc, 1));
		b->job_id = isnull ? 0 : DatumGetInt64(job);
		b->service_id = get_int(tup, desc, 3);
		b->gpu_first = get_int(tup, desc, 4);
		b->gpu_count = get_int(tup, desc, 5);
		b->step_first = get_int(tup, desc, 6);
		b->step_count = get_int(tup, desc, 7);
		if (b->job_id != 0)
		{
			b->job_name = get_text(tup, desc, 8);
			b->kind = get_text(tup, desc, 9);
			b->tenant = get_text(tup, desc, 10);
			b->priority = get_float(tup, desc, 11, &isnull);
			if (b->job_id != last_job)
				p->n_jobs++;
			last_job = b->job_id;
		}
		else
			b->service = get_text(tup, desc, 12);
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
		ga_pg_forecast_service(&req, NULL, NULL, s->forecast, NULL);
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
								  "WHERE service_id = $1 AND hour >= pg_catalog.date_trunc('hour', $2) AND hour < $3",
								  3, types, args, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "gpualloc: could not read demand_history");
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			bool		isnull;
			TimestampTz hour = DatumGetTimestampTz(SPI_getbinval(tup, SPI_tuptable->tupdesc, 1, &isnull));
			double		traffic = get_float(tup, SPI_tuptable->tupdesc, 2, &isnull);
			int			gpus = (int) ceil(traffic / s->capacity - 1e-9);

			for (int t = 0; t < p->T; t++)
			{
				TimestampTz st = p->plan_start + t * p->step_usecs;

				if (st >= hour && st < hour + USECS_PER_HOUR)
					s->actual[t] = gpus;
			}
		}
	}
}

/* ---- layout and drawing ---- */

static void
layout(SvgPlan *p)
{
	int			rows = 0;
	double		y = TOP;

	for (int i = 0; i < p->n_pools; i++)
		rows += p->pools[i].n_index;
	p->detailed = rows <= DETAIL_MAX_ROWS;
	p->band = 1;
	if (!p->detailed)
		while ((double) rows / p->band > DETAIL_MAX_ROWS)
			p->band *= 2;
	p->gh = p->detailed ? DETAIL_ROW_H : BAND_ROW_H / p->band;
	p->cw = Min(24.0, Max(3.0, 1200.0 / p->T));
	p->x0 = LEFT;
	for (int i = 0; i < p->n_pools; i++)
	{
		SvgPool    *pool = &p->pools[i];
		int			n_rows = (pool->n_index + p->band - 1) / p->band;

		y += POOL_HEAD;
		pool->y0 = y;
		y += n_rows * p->band * p->gh + POOL_GAP;
	}
	p->grid_bottom = y;
}

static const char *
kind_class(const char *kind)
{
	if (strcmp(kind, "training") == 0)
		return "k-training";
	if (strcmp(kind, "batch_inference") == 0)
		return "k-batch_inference";
	if (strcmp(kind, "quantization") == 0)
		return "k-quantization";
	return "k-job";
}

static void
draw_header(StringInfo buf, SvgPlan *p, double width, TimestampTz now)
{
	char		start[40];
	char		end[40];
	int			gpus = 0;

	for (int i = 0; i < p->n_pools; i++)
		gpus += p->pools[i].n_gpus;
	format_time(p->plan_start, true, start, sizeof(start));
	format_time(p->plan_start + p->T * p->step_usecs, true, end, sizeof(end));
	appendStringInfo(buf, "<text class=\"title\" x=\"10\" y=\"20\">Plan " INT64_FORMAT " (", p->plan_id);
	append_xml(buf, p->mode);
	appendStringInfoString(buf, ", ");
	append_xml(buf, p->status);
	appendStringInfoString(buf, "): ");
	append_xml(buf, start);
	appendStringInfoString(buf, " to ");
	append_xml(buf, end);
	appendStringInfo(buf, " (%s)</text>\n", pg_get_timezone_name(session_timezone));
	appendStringInfo(buf, "<text class=\"sub\" x=\"10\" y=\"36\">%d GPUs in %d pool%s, %d planned job%s, %d service%s, "
					 "%d steps of %d min",
					 gpus, p->n_pools, p->n_pools == 1 ? "" : "s", p->n_jobs, p->n_jobs == 1 ? "" : "s",
					 p->n_services, p->n_services == 1 ? "" : "s", p->T, (int) (p->step_usecs / USECS_PER_MINUTE));
	if (!p->objective_null)
		appendStringInfo(buf, "; objective %.2f", p->objective);
	if (!p->gap_null)
		appendStringInfo(buf, ", gap %.2f%%", 100.0 * p->gap);
	if (!p->solve_null)
		appendStringInfo(buf, ", solved in %.1f ms", p->solve_ms);
	if (!p->detailed)
		appendStringInfo(buf, "; one row per %d GPUs", p->band);
	if (now < p->plan_start || now >= p->plan_start + p->T * p->step_usecs)
		appendStringInfoString(buf, "; now is outside this plan's horizon");
	appendStringInfoString(buf, "</text>\n");
	(void) width;
}

static void
draw_axis(StringInfo buf, SvgPlan *p)
{
	int			every = 1;
	int			last_day = -1;
	double		y_day = TOP - 26;
	double		y_time = TOP - 14;

	while (every * p->cw < 40 && every < p->T)
		every *= 2;
	appendStringInfoString(buf, "<g class=\"axis\">\n");
	for (int t = 0; t < p->T; t++)
	{
		TimestampTz st = p->plan_start + t * p->step_usecs;
		double		x = p->x0 + t * p->cw;
		int			day = day_of(st);
		char		label[40];

		if (day != last_day)
		{
			char		date[40];

			format_time(st, true, date, sizeof(date));
			date[10] = '\0';
			append_text(buf, "day", x + 2, y_day, date, 0);
			appendStringInfoString(buf, "<line class=\"dayline\" x1=\"");
			append_num(buf, x);
			appendStringInfoString(buf, "\" x2=\"");
			append_num(buf, x);
			appendStringInfoString(buf, "\" y1=\"");
			append_num(buf, y_day - 10);
			appendStringInfoString(buf, "\" y2=\"");
			append_num(buf, p->grid_bottom);
			appendStringInfoString(buf, "\"/>\n");
			last_day = day;
		}
		if (t % every == 0)
		{
			format_time(st, false, label, sizeof(label));
			append_text(buf, "tick", x + 2, y_time, label, 0);
		}
	}
	appendStringInfoString(buf, "</g>\n");
}

static void
draw_pool(StringInfo buf, SvgPlan *p, SvgPool *pool)
{
	double		x0 = p->x0;
	double		w = p->T * p->cw;
	int			n_rows = (pool->n_index + p->band - 1) / p->band;
	double		row_h = p->band * p->gh;

	appendStringInfoString(buf, "<g class=\"pool\">\n");
	{
		StringInfoData head;

		initStringInfo(&head);
		appendStringInfo(&head, "%s (%s): %d GPUs", pool->name, pool->model, pool->n_gpus);
		if (pool->n_down > 0)
			appendStringInfo(&head, ", %d down", pool->n_down);
		if (pool->n_drain > 0)
			appendStringInfo(&head, ", %d draining", pool->n_drain);
		append_text(buf, "poolname", 10, pool->y0 - 5, head.data, 0);
	}
	/* idle everywhere first; blocks are drawn over it */
	append_rect(buf, "idle", x0, pool->y0, w, n_rows * row_h);
	appendStringInfoString(buf, "/>\n");

	/* GPUs that are down or missing, in runs of consecutive indexes */
	for (int i = 0; i < pool->n_index;)
	{
		char		st = pool->state[i];
		int			j = i;

		while (j < pool->n_index && pool->state[j] == st)
			j++;
		if (st == 'd' || st == 0)
		{
			append_rect(buf, st == 'd' ? "down" : "missing", x0, pool->y0 + i * p->gh, w, (j - i) * p->gh);
			appendStringInfo(buf, "><title>%s GPUs %d-%d</title></rect>\n", st == 'd' ? "down:" : "no", i, j - 1);
		}
		i = j;
	}

	/* row labels and separators */
	for (int r = 0; r < n_rows; r++)
	{
		int			first = r * p->band;
		int			last = Min(first + p->band, pool->n_index) - 1;
		double		y = pool->y0 + r * row_h;
		char		label[96];

		if (p->detailed)
		{
			char		st = pool->state[first];

			snprintf(label, sizeof(label), "node %d slot %d%s", first / pool->node_size, first % pool->node_size,
					 st == 'd' ? " (down)" : st == 'r' ? " (drain)" : st == 0 ? " (none)" : "");
		}
		else if (p->band >= pool->node_size)
		{
			int			n0 = first / pool->node_size;
			int			n1 = last / pool->node_size;

			if (n0 == n1)
				snprintf(label, sizeof(label), "node %d", n0);
			else
				snprintf(label, sizeof(label), "nodes %d-%d", n0, n1);
		}
		else
			snprintf(label, sizeof(label), "node %d slots %d-%d", first / pool->node_size,
					 first % pool->node_size, last % pool->node_size);
		append_text(buf, "rowlabel", 10, y + Min(row_h, 14.0) - 3, label, 0);
		if (first % pool->node_size == 0 || !p->detailed)
		{
			bool		node_edge = first % pool->node_size == 0;

			if (node_edge && r > 0)
			{
				appendStringInfoString(buf, "<line class=\"node\" x1=\"0\" x2=\"");
				append_num(buf, x0 + w);
				appendStringInfoString(buf, "\" y1=\"");
				append_num(buf, y);
				appendStringInfoString(buf, "\" y2=\"");
				append_num(buf, y);
				appendStringInfoString(buf, "\"/>\n");
			}
		}
	}
	appendStringInfoString(buf, "</g>\n");
}

static void
block_box(SvgPlan *p, SvgBlock *b, double *x, double *y, double *w, double *h)
{
	SvgPool    *pool = &p->pools[b->pool];
	int			steps = Min(b->step_first + b->step_count, p->T) - b->step_first;

	*x = p->x0 + b->step_first * p->cw;
	*w = Max(steps, 0) * p->cw;
	*y = pool->y0 + b->gpu_first * p->gh;
	*h = b->gpu_count * p->gh;
}

static void
append_step_range(StringInfo buf, SvgPlan *p, int first, int count)
{
	char		a[40];
	char		b[40];

	format_time(p->plan_start + first * p->step_usecs, true, a, sizeof(a));
	format_time(p->plan_start + (first + count) * p->step_usecs, true, b, sizeof(b));
	append_xml(buf, a);
	appendStringInfoString(buf, " to ");
	append_xml(buf, b);
}

static void
draw_blocks(StringInfo buf, SvgPlan *p)
{
	/* services: one rectangle per block */
	appendStringInfoString(buf, "<g class=\"services\">\n");
	for (int i = 0; i < p->n_blocks; i++)
	{
		SvgBlock   *b = &p->blocks[i];
		double		x,
					y,
					w,
					h;

		if (b->job_id != 0 || b->pool < 0)
			continue;
		block_box(p, b, &x, &y, &w, &h);
		append_rect(buf, "k-service", x, y, w, h);
		appendStringInfoString(buf, "><title>");
		append_xml(buf, b->service);
		appendStringInfo(buf, ": GPUs %d-%d, ", b->gpu_first, b->gpu_first + b->gpu_count - 1);
		append_step_range(buf, p, b->step_first, b->step_count);
		appendStringInfoString(buf, "</title></rect>\n");
	}
	appendStringInfoString(buf, "</g>\n");

	/* jobs: one group per job, its block(s), its name when it fits */
	for (int i = 0; i < p->n_blocks;)
	{
		SvgBlock   *first = &p->blocks[i];
		int			j = i;

		if (first->job_id == 0)
			break;
		while (j < p->n_blocks && p->blocks[j].job_id == first->job_id)
			j++;
		appendStringInfo(buf, "<g class=\"job\" data-job-id=\"" INT64_FORMAT "\" data-kind=\"", first->job_id);
		append_xml(buf, first->kind);
		appendStringInfoString(buf, "\"><title>");
		append_xml(buf, first->job_name);
		appendStringInfo(buf, " (job " INT64_FORMAT ", ", first->job_id);
		append_xml(buf, first->kind);
		if (first->tenant[0] != '\0')
		{
			appendStringInfoString(buf, ", tenant ");
			append_xml(buf, first->tenant);
		}
		appendStringInfo(buf, ", priority %g): GPUs %d-%d, ", first->priority, first->gpu_first,
						 first->gpu_first + first->gpu_count - 1);
		append_step_range(buf, p, first->step_first, first->step_count);
		appendStringInfoString(buf, "</title>\n");
		for (int k = i; k < j; k++)
		{
			SvgBlock   *b = &p->blocks[k];
			double		x,
						y,
						w,
						h;

			if (b->pool < 0)
				continue;
			block_box(p, b, &x, &y, &w, &h);
			append_rect(buf, kind_class(b->kind), x, y, w, h);
			appendStringInfoString(buf, "/>\n");
			if (k == i && h >= 10 && w >= 3 * CHAR_W)
				append_text(buf, "jobname", x + 3, y + Min(h, DETAIL_ROW_H) / 2 + 3.5,
							b->job_name, (int) ((w - 5) / CHAR_W));
		}
		appendStringInfoString(buf, "</g>\n");
		i = j;
	}
}

static void
draw_now(StringInfo buf, SvgPlan *p, TimestampTz now)
{
	int64		cur;
	double		x;

	if (now < p->plan_start)
		return;
	cur = (now - p->plan_start) / p->step_usecs;
	if (cur >= p->T)
		return;
	x = p->x0 + cur * p->cw;
	append_rect(buf, "now", x, TOP + POOL_HEAD - 2, p->cw, p->grid_bottom - TOP - POOL_HEAD - POOL_GAP + 4);
	appendStringInfoString(buf, "><title>the step under way now</title></rect>\n");
	append_text(buf, "nowlabel", x, TOP - 40, "now", 0);
}

/* Idle GPUs per step, and the windows in which some GPUs stay idle. */
static void
draw_idle(StringInfo buf, SvgPlan *p)
{
	int		   *idle = palloc0(sizeof(int) * p->T);
	int			usable = 0;
	double		top = p->grid_bottom + 14;
	double		h = IDLE_H - 22;

	for (int i = 0; i < p->n_pools; i++)
		usable += p->pools[i].usable;
	for (int t = 0; t < p->T; t++)
		idle[t] = usable;
	for (int i = 0; i < p->n_blocks; i++)
	{
		SvgBlock   *b = &p->blocks[i];

		for (int t = b->step_first; t < b->step_first + b->step_count && t < p->T; t++)
			idle[t] -= b->gpu_count;
	}
	appendStringInfoString(buf, "<g class=\"idle-strip\">\n");
	append_text(buf, "rowlabel", 10, top + 12, "idle GPUs", 0);
	appendStringInfo(buf, "<text class=\"rowlabel\" x=\"10\" y=\"");
	append_num(buf, top + 24);
	appendStringInfo(buf, "\">of %d usable</text>\n", usable);
	append_rect(buf, "strip", p->x0, top, p->T * p->cw, h);
	appendStringInfoString(buf, "/>\n");
	for (int t = 0; t < p->T;)
	{
		int			u = t;
		double		gpu_hours = 0;

		if (idle[t] <= 0)
		{
			t++;
			continue;
		}
		while (u < p->T && idle[u] > 0)
			gpu_hours += idle[u++] * (double) p->step_usecs / USECS_PER_HOUR;
		append_rect(buf, "idle-window", p->x0 + t * p->cw, top, (u - t) * p->cw, h);
		appendStringInfoString(buf, "><title>idle window ");
		append_step_range(buf, p, t, u - t);
		appendStringInfo(buf, ": %.1f idle GPU-hours</title></rect>\n", gpu_hours);
		t = u;
	}
	for (int t = 0; t < p->T; t++)
	{
		double		bh;

		if (idle[t] <= 0 || usable == 0)
			continue;
		bh = h * Min(idle[t], usable) / usable;
		append_rect(buf, "idle-bar", p->x0 + t * p->cw + 0.5, top + h - bh, Max(p->cw - 1, 1), bh);
		appendStringInfo(buf, "><title>%d idle</title></rect>\n", idle[t]);
	}
	appendStringInfoString(buf, "</g>\n");
}

/* A step curve as a polyline through each step's start and end. */
static void
append_step_line(StringInfo buf, const char *cls, SvgPlan *p, const int *v, double base, double scale)
{
	bool		open = false;

	for (int t = 0; t < p->T; t++)
	{
		if (v[t] < 0)
		{
			if (open)
				appendStringInfoString(buf, "\"/>\n");
			open = false;
			continue;
		}
		if (!open)
			appendStringInfo(buf, "<polyline class=\"%s\" points=\"", cls);
		else
			appendStringInfoChar(buf, ' ');
		open = true;
		append_num(buf, p->x0 + t * p->cw);
		appendStringInfoChar(buf, ',');
		append_num(buf, base - v[t] * scale);
		appendStringInfoChar(buf, ' ');
		append_num(buf, p->x0 + (t + 1) * p->cw);
		appendStringInfoChar(buf, ',');
		append_num(buf, base - v[t] * scale);
	}
	if (open)
		appendStringInfoString(buf, "\"/>\n");
}

static void
draw_service(StringInfo buf, SvgPlan *p, SvgService *s, double top)
{
	double		h = SERVICE_H - 26;
	double		base = top + h;
	int			peak = 1;
	double		scale;
	int			risk_steps = 0;
	double		short_gpu_hours = 0;
	double		step_h = (double) p->step_usecs / USECS_PER_HOUR;
	StringInfoData label;

	for (int t = 0; t < p->T; t++)
	{
		peak = Max(peak, s->planned[t]);
		if (!s->forecast_error)
			peak = Max(peak, s->forecast[t]);
		peak = Max(peak, s->actual[t]);
		if (!s->forecast_error && s->planned[t] < s->forecast[t])
		{
			risk_steps++;
			short_gpu_hours += (s->forecast[t] - s->planned[t]) * step_h;
		}
	}
	scale = h / peak;

	appendStringInfo(buf, "<g class=\"service-strip\" data-service-id=\"%d\">\n", s->service_id);
	initStringInfo(&label);
	appendStringInfo(&label, "%s (%s)", s->name, s->pool);
	append_text(buf, "rowlabel", 10, top + 12, label.data, 26);
	resetStringInfo(&label);
	if (s->forecast_error)
		appendStringInfoString(&label, "no forecast");
	else if (risk_steps > 0)
		appendStringInfo(&label, "%d step%s at risk", risk_steps, risk_steps == 1 ? "" : "s");
	else
		appendStringInfoString(&label, "covered");
	append_text(buf, risk_steps > 0 ? "risklabel" : "rowlabel", 10, top + 24, label.data, 0);
	appendStringInfo(buf, "<text class=\"rowlabel\" x=\"10\" y=\"");
	append_num(buf, top + 36);
	appendStringInfo(buf, "\">scale 0-%d GPUs</text>\n", peak);

	append_rect(buf, "strip", p->x0, top, p->T * p->cw, h);
	appendStringInfoString(buf, "><title>");
	append_xml(buf, s->name);
	if (s->forecast_error)
	{
		appendStringInfoString(buf, ": no forecast (");
		append_xml(buf, s->forecast_error);
		appendStringInfoChar(buf, ')');
	}
	else
		appendStringInfo(buf, ": %.1f forecast GPU-hours not planned", short_gpu_hours);
	appendStringInfoString(buf, "</title></rect>\n");

	/* coverage risk: planned below the forecast */
	for (int t = 0; t < p->T; t++)
	{
		if (s->forecast_error || s->planned[t] >= s->forecast[t])
			continue;
		append_rect(buf, "risk", p->x0 + t * p->cw, top, p->cw, h);
		appendStringInfo(buf, "><title>coverage risk: %d planned, %d forecast</title></rect>\n",
						 s->planned[t], s->forecast[t]);
		/* and a mark under the time axis, above the grid */
		append_rect(buf, "risk", p->x0 + t * p->cw, TOP - 6, p->cw, 4);
		appendStringInfoString(buf, "/>\n");
	}
	/* planned GPUs as bars */
	for (int t = 0; t < p->T; t++)
	{
		if (s->planned[t] <= 0)
			continue;
		append_rect(buf, "k-service planned", p->x0 + t * p->cw, base - s->planned[t] * scale, p->cw,
					s->planned[t] * scale);
		appendStringInfo(buf, "><title>%d planned</title></rect>\n", s->planned[t]);
	}
	if (!s->forecast_error)
		append_step_line(buf, "forecast", p, s->forecast, base, scale);
	append_step_line(buf, "actual", p, s->actual, base, scale);
	appendStringInfoString(buf, "</g>\n");
}

/* A short line of the given class with its label; returns where the next item goes. */
static double
append_legend_line(StringInfo buf, const char *cls, double x, double y, const char *label)
{
	appendStringInfo(buf, "<polyline class=\"%s\" points=\"", cls);
	append_num(buf, x);
	appendStringInfoChar(buf, ',');
	append_num(buf, y - 3);
	appendStringInfoChar(buf, ' ');
	append_num(buf, x + 14);
	appendStringInfoChar(buf, ',');
	append_num(buf, y - 3);
	appendStringInfoString(buf, "\"/>\n");
	append_text(buf, "legend", x + 18, y + 1, label, 0);
	return x + 30 + CHAR_W * strlen(label);
}

static void
draw_legend(StringInfo buf, double x, double y)
{
	static const char *const items[][2] = {
		{"k-training", "training"},
		{"k-batch_inference", "batch inference"},
		{"k-quantization", "quantization"},
		{"k-service", "real-time service"},
		{"idle", "idle"},
		{"down", "down"},
		{"risk", "coverage risk"},
		{"now", "now"},
	};

	appendStringInfoString(buf, "<g class=\"legend\">\n");
	for (size_t i = 0; i < lengthof(items); i++)
	{
		char		cls[64];

		snprintf(cls, sizeof(cls), "swatch %s", items[i][0]);
		append_rect(buf, cls, x, y - 9, 12, 12);
		appendStringInfoString(buf, "/>\n");
		append_text(buf, "legend", x + 16, y + 1, items[i][1], 0);
		x += 30 + CHAR_W * strlen(items[i][1]);
	}
	x = append_legend_line(buf, "forecast", x, y, "forecast GPUs");
	append_legend_line(buf, "actual", x, y, "recorded demand");
	appendStringInfoString(buf, "</g>\n");
}

static const char *const svg_style =
"<defs>\n"
"<pattern id=\"hatch-idle\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
"<rect width=\"6\" height=\"6\" fill=\"#f6f6f6\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#e0e0e0\" stroke-width=\"2\"/></pattern>\n"
"<pattern id=\"hatch-down\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(-45)\">"
"<rect width=\"6\" height=\"6\" fill=\"#6b6b6b\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#3f3f3f\" stroke-width=\"3\"/></pattern>\n"
"</defs>\n"
"<style>\n"
"text{font-family:Helvetica,Arial,sans-serif;font-size:10px;fill:#222}\n"
".title{font-size:15px;font-weight:bold}.sub{font-size:11px;fill:#444}\n"
".poolname{font-size:11px;font-weight:bold}.rowlabel{fill:#444}.tick,.day{fill:#555}\n"
".jobname{fill:#fff;pointer-events:none}.legend{fill:#333}.nowlabel{fill:#c0392b;font-weight:bold}\n"
".risklabel{fill:#c0392b;font-weight:bold}\n"
".k-training{fill:#4e79a7}.k-batch_inference{fill:#f28e2b}.k-quantization{fill:#b07aa1}.k-job{fill:#7f7f7f}\n"
".k-service{fill:#59a14f}.planned{opacity:0.8}\n"
"g.job rect{stroke:#fff;stroke-width:0.6}\n"
".idle{fill:url(#hatch-idle)}.down{fill:url(#hatch-down)}.missing{fill:#fff}\n"
".strip{fill:#fafafa;stroke:#ddd}.risk{fill:#e15759;opacity:0.35}\n"
".idle-window{fill:#fff3c4;stroke:#e0b000;stroke-width:0.8}.idle-bar{fill:#c9a227}\n"
".forecast{fill:none;stroke:#222;stroke-width:1.5}.actual{fill:none;stroke:#1f4e9c;stroke-width:1.2;stroke-dasharray:3 2}\n"
".now{fill:#ffe066;fill-opacity:0.25;stroke:#c0392b;stroke-width:1.2}\n"
".node{stroke:#888;stroke-width:0.8}.dayline{stroke:#bbb;stroke-width:0.8}\n"
"</style>\n";

Datum
gpualloc_plan_svg(PG_FUNCTION_ARGS)
{
	SvgPlan		p;
	StringInfoData buf;
	TimestampTz now = GetCurrentTransactionStartTimestamp();
	double		width;
	double		height;
	double		y;
	text	   *result;

	memset(&p, 0, sizeof(p));
	p.plan_id = PG_GETARG_INT64(0);
	initStringInfo(&buf);

	SPI_connect();
	read_run(&p);
	read_pools(&p);
	read_blocks(&p);
	read_services(&p);
	layout(&p);

	width = p.x0 + p.T * p.cw + RIGHT;
	height = p.grid_bottom + IDLE_H + p.n_services * SERVICE_H + LEGEND_H;
	appendStringInfoString(&buf, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"");
	append_num(&buf, width);
	appendStringInfoString(&buf, "\" height=\"");
	append_num(&buf, height);
	appendStringInfoString(&buf, "\" viewBox=\"0 0 ");
	append_num(&buf, width);
	appendStringInfoChar(&buf, ' ');
	append_num(&buf, height);
	appendStringInfo(&buf, "\" data-plan-id=\"" INT64_FORMAT "\">\n", p.plan_id);
	appendStringInfo(&buf, "<title>gpualloc plan " INT64_FORMAT "</title>\n", p.plan_id);
	appendStringInfoString(&buf, svg_style);
	append_rect(&buf, "background", 0, 0, width, height);
	appendStringInfoString(&buf, " fill=\"#fff\"/>\n");

	draw_header(&buf, &p, width, now);
	draw_axis(&buf, &p);
	for (int i = 0; i < p.n_pools; i++)
		draw_pool(&buf, &p, &p.pools[i]);
	draw_blocks(&buf, &p);
	draw_now(&buf, &p, now);
	draw_idle(&buf, &p);
	y = p.grid_bottom + IDLE_H;
	for (int i = 0; i < p.n_services; i++)
	{
		draw_service(&buf, &p, &p.services[i], y + 8);
		y += SERVICE_H;
	}
	draw_legend(&buf, 10, y + 20);
	appendStringInfoString(&buf, "</svg>\n");

	SPI_finish();
	result = cstring_to_text_with_len(buf.data, buf.len);
	PG_RETURN_TEXT_P(result);
}
