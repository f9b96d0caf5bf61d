/*
 * serial.c — problems and plans as flat buffers (serial.h).
 *
 * One traversal per type writes the fields in order; run with no buffer it
 * only counts bytes, so the size and the layout cannot drift apart.  The
 * reader walks the same order with a bounds check on every field.
 */
#include "model/serial.h"
#include "model/advance_reservation.h"
#include "model/tenant_quota.h"

#include <stdlib.h>
#include <string.h>

#define SERIAL_MAGIC 0x47415342u	/* "GASB" */
#define KIND_PROBLEM 1u
#define KIND_PLAN 2u
#define HEADER_BYTES (3 * sizeof(uint32_t) + sizeof(uint64_t))

/*
 * A field added to one of these structs must be written and read here too:
 * the sizes below stop the build until it is (and the sizes are updated).
 */
_Static_assert(sizeof(ga_params) == 56, "ga_params changed: update serial.c");
_Static_assert(sizeof(ga_pool) == 72, "ga_pool changed: update serial.c");
_Static_assert(sizeof(ga_job) == 248, "ga_job changed: update serial.c");
_Static_assert(sizeof(ga_service) == 144, "ga_service changed: update serial.c");
_Static_assert(sizeof(ga_plan) == 88, "ga_plan changed: update serial.c");
_Static_assert(sizeof(ga_tenant_policy) == 40, "ga_tenant_policy changed: update serial.c");

/* The modes a plan may carry, as the static strings the solvers set. */
static const char *const plan_modes[] = {"", "fast", "full"};

typedef struct writer
{
	uint8_t    *buf;			/* NULL: count only */
	size_t		pos;
	size_t		cap;
} writer;

static void
put(writer *w, const void *src, size_t n)
{
	if (w->buf != NULL && w->pos + n <= w->cap)
		memcpy(w->buf + w->pos, src, n);
	w->pos += n;
}

static void
put_i32(writer *w, int32_t v)
{
	put(w, &v, sizeof(v));
}

static void
put_i64(writer *w, int64_t v)
{
	put(w, &v, sizeof(v));
}

static void
put_f64(writer *w, double v)
{
	put(w, &v, sizeof(v));
}

static void
put_u8(writer *w, uint8_t v)
{
	put(w, &v, sizeof(v));
}

typedef struct reader
{
	const uint8_t *buf;
	size_t		pos;
	size_t		len;
	bool		short_read;		/* a field ran past the end */
	uint32_t	version;		/* the buffer's format version */
} reader;

static void
get(reader *r, void *dst, size_t n)
{
	if (r->short_read || n > r->len - r->pos)
	{
		r->short_read = true;
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, r->buf + r->pos, n);
	r->pos += n;
}

static int32_t
get_i32(reader *r)
{
	int32_t		v;

	get(r, &v, sizeof(v));
	return v;
}

static int64_t
get_i64(reader *r)
{
	int64_t		v;

	get(r, &v, sizeof(v));
	return v;
}

static double
get_f64(reader *r)
{
	double		v;

	get(r, &v, sizeof(v));
	return v;
}

static uint8_t
get_u8(reader *r)
{
	uint8_t		v;

	get(r, &v, sizeof(v));
	return v;
}

/* A name is stored as its whole fixed-size array and read back terminated. */
static void
get_name(reader *r, char *name)
{
	get(r, name, GA_NAME_LEN);
	name[GA_NAME_LEN - 1] = '\0';
}

/* Whether `count` items of at least `each` bytes can still be in the buffer. */
static bool
room_for(const reader *r, int32_t count, size_t each)
{
	return count >= 0 && (size_t) count <= (r->len - r->pos) / each;
}

static void
put_header(writer *w, uint32_t kind, size_t total)
{
	uint32_t	head[3] = {SERIAL_MAGIC, GA_SERIAL_VERSION, kind};

	put(w, head, sizeof(head));
	put_i64(w, (int64_t) total);
}

static ga_status
get_header(reader *r, uint32_t kind, ga_error *err)
{
	uint32_t	head[3];
	int64_t		total;

	get(r, head, sizeof(head));
	total = get_i64(r);
	if (r->short_read || head[0] != SERIAL_MAGIC)
		return ga_error_set(err, GA_EINVAL, "serialised %s: not a gpualloc buffer",
							kind == KIND_PLAN ? "plan" : "problem");
	if (head[1] < GA_SERIAL_VERSION_NO_NEEDS || head[1] > GA_SERIAL_VERSION)
		return ga_error_set(err, GA_EINVAL, "serialised %s: format version %u, this build reads %d to %d",
							kind == KIND_PLAN ? "plan" : "problem", head[1],
							GA_SERIAL_VERSION_NO_NEEDS, GA_SERIAL_VERSION);
	r->version = head[1];
	if (head[2] != kind)
		return ga_error_set(err, GA_EINVAL, "serialised %s: the buffer holds a %s",
							kind == KIND_PLAN ? "plan" : "problem", head[2] == KIND_PLAN ? "plan" : "problem");
	if (total != (int64_t) r->len)
		return ga_error_set(err, GA_EINVAL, "serialised %s: length %lld, but %zu bytes were given",
							kind == KIND_PLAN ? "plan" : "problem", (long long) total, r->len);
	return GA_OK;
}

/* ------------------------------------------------------------------------
 * Problems
 * ------------------------------------------------------------------------ */

static void
put_policy(writer *w, const ga_tenant_policy *tp)
{
	put_i32(w, tp->tenant);
	put_i32(w, tp->pool);
	put_i32(w, tp->guarantee);
	put_i32(w, tp->limit);
	put_i32(w, tp->borrow_limit);
	put_f64(w, tp->weight);
	put_i32(w, tp->cohort);
}

static void
put_window(writer *w, const ga_window *win)
{
	put_i32(w, win->pool);
	put_i32(w, win->first_gpu);
	put_i32(w, win->n_gpus);
	put_i32(w, win->start_step);
	put_i32(w, win->end_step);
}

static void
put_job(writer *w, const ga_job *job)
{
	put_i64(w, job->id);
	put(w, job->name, GA_NAME_LEN);
	put_i32(w, job->pool);
	put_f64(w, job->priority);
	put_i32(w, job->gpus_min);
	put_i32(w, job->gpus_max);
	put_f64(w, job->work_gpu_steps);
	put_i32(w, job->release_step);
	put_i32(w, job->deadline_step);
	put_u8(w, job->pinned);
	put_i32(w, job->pinned_start);
	put_i32(w, job->pinned_end);
	put_i32(w, job->pinned_first_gpu);
	put_i32(w, job->pinned_size);
	put_i32(w, job->time_limit_steps);
	put_i32(w, job->n_preds);
	for (int i = 0; i < GA_MAX_PREDS; i++)
	{
		put_i32(w, job->preds[i]);
		put_u8(w, job->pred_kind[i]);
	}
	put_i32(w, job->n_alt_pools);
	for (int i = 0; i < GA_MAX_JOB_POOLS - 1; i++)
	{
		put_i32(w, job->alt_pools[i].pool);
		put_f64(w, job->alt_pools[i].work_gpu_steps);
	}
	put_i32(w, job->tenant);
}

/*
 * The overrun spread and each job's duration spread, last, so that the
 * layout before them (version 7) is this one without its tail.
 */
static void
put_spreads(writer *w, const ga_problem *p)
{
	put_f64(w, p->params.overrun_spread);
	for (int j = 0; j < p->n_jobs; j++)
		put_f64(w, p->jobs[j].duration_p90_ratio);
}

static void
put_service(writer *w, const ga_service *svc, int n_steps)
{
	put_i64(w, svc->id);
	put(w, svc->name, GA_NAME_LEN);
	put_i32(w, svc->pool);
	put_f64(w, svc->priority);
	put_i32(w, svc->churn_limit);
	put_i32(w, svc->churn_budget);
	put_i32(w, svc->min_gpus);
	put_i32(w, svc->max_gpus);
	for (int t = 0; t < n_steps; t++)
		put_i32(w, svc->demand[t]);
	for (int t = 0; t < n_steps; t++)
		put_i32(w, svc->protect[t]);
	put_u8(w, svc->held_known);
	put_i32(w, svc->n_held);
	for (int i = 0; i < svc->n_held; i++)
		put_i32(w, svc->held_gpus[i]);
}

static void
put_problem(writer *w, const ga_problem *p, size_t total)
{
	const ga_params *pr = &p->params;

	put_header(w, KIND_PROBLEM, total);
	put_i32(w, pr->n_steps);
	put_i32(w, pr->step_minutes);
	put_f64(w, pr->penalty);
	put_f64(w, pr->half_life_hours);
	put_f64(w, pr->headroom);
	put_f64(w, pr->overrun_margin);
	put_i32(w, pr->headroom_min);
	put_i32(w, p->n_pools);
	put_i32(w, p->n_gpus);
	put_i32(w, p->n_jobs);
	put_i32(w, p->n_services);
	for (int q = 0; q < p->n_pools; q++)
	{
		put(w, p->pools[q].name, GA_NAME_LEN);
		put_i32(w, p->pools[q].first_gpu);
		put_i32(w, p->pools[q].n_gpus);
	}
	for (int g = 0; g < p->n_gpus; g++)
		put_u8(w, p->gpu_usable[g]);
	for (int j = 0; j < p->n_jobs; j++)
		put_job(w, &p->jobs[j]);
	for (int s = 0; s < p->n_services; s++)
		put_service(w, &p->services[s], pr->n_steps);
	put_i32(w, p->n_windows);
	for (int i = 0; i < p->n_windows; i++)
		put_window(w, &p->windows[i]);
	put_i32(w, p->n_reservations);
	for (int i = 0; i < p->n_reservations; i++)
	{
		put_window(w, &p->reservations[i].cells);
		put_i32(w, p->reservations[i].tenant);
	}
	put_i32(w, p->n_policies);
	for (int i = 0; i < p->n_policies; i++)
		put_policy(w, &p->policies[i]);
	put_i32(w, p->n_needs);
	for (int i = 0; i < p->n_needs; i++)
	{
		put_i32(w, p->needs[i].tenant);
		put_i32(w, p->needs[i].pool);
		for (int t = 0; t < pr->n_steps; t++)
			put_i32(w, p->needs[i].gpus[t]);
	}
	put_spreads(w, p);
	/* the services' day peaks, after the spreads: version 8 is this without them */
	for (int s = 0; s < p->n_services; s++)
		put_i32(w, p->services[s].day_peak);
}

size_t
ga_problem_serial_size(const ga_problem *problem)
{
	writer		w = {0};

	put_problem(&w, problem, 0);
	return w.pos;
}

ga_status
ga_problem_write(const ga_problem *problem, void *buf, size_t cap, ga_error *err)
{
	size_t		need = ga_problem_serial_size(problem);
	writer		w = {.buf = buf, .cap = cap};

	if (need > cap)
		return ga_error_set(err, GA_EINVAL, "serialised problem: needs %zu bytes, %zu given", need, cap);
	put_problem(&w, problem, need);
	return GA_OK;
}

static void
get_job(reader *r, ga_job *job)
{
	job->id = get_i64(r);
	get_name(r, job->name);
	job->pool = get_i32(r);
	job->priority = get_f64(r);
	job->gpus_min = get_i32(r);
	job->gpus_max = get_i32(r);
	job->work_gpu_steps = get_f64(r);
	job->release_step = get_i32(r);
	job->deadline_step = get_i32(r);
	job->pinned = get_u8(r) != 0;
	job->pinned_start = get_i32(r);
	job->pinned_end = get_i32(r);
	job->pinned_first_gpu = get_i32(r);
	job->pinned_size = get_i32(r);
	job->time_limit_steps = get_i32(r);
	job->n_preds = get_i32(r);
	for (int i = 0; i < GA_MAX_PREDS; i++)
	{
		job->preds[i] = get_i32(r);
		job->pred_kind[i] = get_u8(r);
	}
	job->n_alt_pools = get_i32(r);
	for (int i = 0; i < GA_MAX_JOB_POOLS - 1; i++)
	{
		job->alt_pools[i].pool = get_i32(r);
		job->alt_pools[i].work_gpu_steps = get_f64(r);
	}
	job->tenant = get_i32(r);
}

static ga_status
get_service(reader *r, ga_problem *p, int s, ga_error *err)
{
	ga_service *svc = &p->services[s];
	bool		held_known;
	int32_t		n_held;
	int		   *held;
	ga_status	rc;

	svc->id = get_i64(r);
	get_name(r, svc->name);
	svc->pool = get_i32(r);
	svc->priority = get_f64(r);
	svc->churn_limit = get_i32(r);
	svc->churn_budget = get_i32(r);
	svc->min_gpus = get_i32(r);
	svc->max_gpus = get_i32(r);
	for (int t = 0; t < p->params.n_steps; t++)
		svc->demand[t] = get_i32(r);
	for (int t = 0; t < p->params.n_steps; t++)
		svc->protect[t] = get_i32(r);
	held_known = get_u8(r) != 0;
	n_held = get_i32(r);
	if (r->short_read || !room_for(r, n_held, sizeof(int32_t)) || (!held_known && n_held != 0))
		return ga_error_set(err, GA_EINVAL, "serialised problem: service %d has a bad held GPU list", s);
	if (!held_known)
		return GA_OK;
	held = malloc(sizeof(int) * (n_held > 0 ? n_held : 1));
	if (held == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory reading a problem");
	for (int i = 0; i < n_held; i++)
		held[i] = get_i32(r);
	rc = ga_problem_set_held(p, s, held, n_held, err);
	free(held);
	return rc;
}

/* Counts of a problem, each checked against what the buffer can hold. */
static ga_status
get_counts(reader *r, ga_params *pr, int32_t *n, ga_error *err)
{
	pr->n_steps = get_i32(r);
	pr->step_minutes = get_i32(r);
	pr->penalty = get_f64(r);
	pr->half_life_hours = get_f64(r);
	pr->headroom = get_f64(r);
	pr->overrun_margin = get_f64(r);
	pr->headroom_min = r->version > GA_SERIAL_VERSION_NO_HEADROOM_MIN ? get_i32(r) : 0;
	for (int i = 0; i < 4; i++)
		n[i] = get_i32(r);
	if (r->short_read || pr->n_steps <= 0 || pr->n_steps > 10000)
		return ga_error_set(err, GA_EINVAL, "serialised problem: n_steps must be between 1 and 10000");
	if (!room_for(r, n[0], GA_NAME_LEN) || !room_for(r, n[1], 1) ||
		!room_for(r, n[2], GA_NAME_LEN) || !room_for(r, n[3], GA_NAME_LEN))
		return ga_error_set(err, GA_EINVAL,
							"serialised problem: %d pools, %d GPUs, %d jobs and %d services do not fit in %zu bytes",
							n[0], n[1], n[2], n[3], r->len);
	return GA_OK;
}

static void
get_window(reader *r, ga_window *win)
{
	win->pool = get_i32(r);
	win->first_gpu = get_i32(r);
	win->n_gpus = get_i32(r);
	win->start_step = get_i32(r);
	win->end_step = get_i32(r);
}

/* The maintenance windows, checked by ga_problem_finish. */
static ga_status
get_windows(reader *r, ga_problem *p, ga_error *err)
{
	int32_t		n = get_i32(r);
	ga_window  *windows;
	ga_status	rc;

	if (r->short_read || !room_for(r, n, 5 * sizeof(int32_t)))
		return ga_error_set(err, GA_EINVAL, "serialised problem: %d windows do not fit in its %zu bytes",
							(int) n, r->len);
	windows = malloc(sizeof(ga_window) * (n > 0 ? n : 1));
	if (windows == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory reading a problem");
	for (int i = 0; i < n; i++)
		get_window(r, &windows[i]);
	rc = ga_problem_set_windows(p, windows, n, err);
	free(windows);
	return rc;
}

/* The advance reservations, checked by ga_problem_finish. */
static ga_status
get_reservations(reader *r, ga_problem *p, ga_error *err)
{
	int32_t		n = get_i32(r);
	ga_advance_reservation *rs;
	ga_status	rc;

	if (r->short_read || !room_for(r, n, 6 * sizeof(int32_t)))
		return ga_error_set(err, GA_EINVAL, "serialised problem: %d reservations do not fit in its %zu bytes",
							(int) n, r->len);
	rs = malloc(sizeof(ga_advance_reservation) * (n > 0 ? n : 1));
	if (rs == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory reading a problem");
	for (int i = 0; i < n; i++)
	{
		get_window(r, &rs[i].cells);
		rs[i].tenant = get_i32(r);
	}
	rc = ga_problem_set_advance_reservations(p, rs, n, err);
	free(rs);
	return rc;
}

/* The tenant policies, checked by ga_problem_finish. */
static ga_status
get_policies(reader *r, ga_problem *p, ga_error *err)
{
	int32_t		n = get_i32(r);
	ga_tenant_policy *tps;
	ga_status	rc;

	if (r->short_read || !room_for(r, n, 6 * sizeof(int32_t) + sizeof(double)))
		return ga_error_set(err, GA_EINVAL, "serialised problem: %d tenant policies do not fit in its %zu bytes",
							(int) n, r->len);
	tps = malloc(sizeof(ga_tenant_policy) * (n > 0 ? n : 1));
	if (tps == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory reading a problem");
	for (int i = 0; i < n; i++)
	{
		tps[i].tenant = get_i32(r);
		tps[i].pool = get_i32(r);
		tps[i].guarantee = get_i32(r);
		tps[i].limit = get_i32(r);
		tps[i].borrow_limit = get_i32(r);
		tps[i].weight = get_f64(r);
		tps[i].cohort = get_i32(r);
	}
	rc = ga_problem_set_tenant_policies(p, tps, n, err);
	free(tps);
	return rc;
}

/*
 * The tenants' forecast needs, checked by ga_problem_finish; a buffer of
 * the format before them has none.
 */
static ga_status
get_needs(reader *r, ga_problem *p, ga_error *err)
{
	int			T = p->params.n_steps;
	int32_t		n;
	ga_tenant_need *needs;
	int		   *gpus;
	ga_status	rc;

	if (r->version == GA_SERIAL_VERSION_NO_NEEDS)
		return GA_OK;
	n = get_i32(r);
	if (r->short_read || !room_for(r, n, (2 + (size_t) T) * sizeof(int32_t)))
		return ga_error_set(err, GA_EINVAL, "serialised problem: %d tenant needs do not fit in its %zu bytes",
							(int) n, r->len);
	needs = malloc(sizeof(ga_tenant_need) * (n > 0 ? n : 1));
	gpus = malloc(sizeof(int) * ((size_t) n * T + 1));
	if (needs == NULL || gpus == NULL)
	{
		free(needs);
		free(gpus);
		return ga_error_set(err, GA_ENOMEM, "out of memory reading a problem");
	}
	for (int i = 0; i < n; i++)
	{
		needs[i].tenant = get_i32(r);
		needs[i].pool = get_i32(r);
		needs[i].gpus = gpus + (size_t) i * T;
		for (int t = 0; t < T; t++)
			needs[i].gpus[t] = get_i32(r);
	}
	rc = ga_problem_set_tenant_needs(p, needs, n, err);
	free(needs);
	free(gpus);
	return rc;
}

/* Version 7 and before: no spread, every job lengthened by the margin. */
static void
get_spreads(reader *r, ga_problem *p)
{
	if (r->version <= GA_SERIAL_VERSION_NO_SPREAD)
		return;
	p->params.overrun_spread = get_f64(r);
	for (int j = 0; j < p->n_jobs; j++)
		p->jobs[j].duration_p90_ratio = get_f64(r);
}

static ga_status
get_body(reader *r, ga_problem *p, ga_error *err)
{
	ga_status	rc;

	for (int q = 0; q < p->n_pools; q++)
	{
		get_name(r, p->pools[q].name);
		p->pools[q].first_gpu = get_i32(r);
		p->pools[q].n_gpus = get_i32(r);
	}
	for (int g = 0; g < p->n_gpus; g++)
		p->gpu_usable[g] = get_u8(r) != 0;
	for (int j = 0; j < p->n_jobs; j++)
		get_job(r, &p->jobs[j]);
	for (int s = 0; s < p->n_services; s++)
		if ((rc = get_service(r, p, s, err)) != GA_OK)
			return rc;
	if ((rc = get_windows(r, p, err)) != GA_OK)
		return rc;
	if ((rc = get_reservations(r, p, err)) != GA_OK)
		return rc;
	if ((rc = get_policies(r, p, err)) != GA_OK)
		return rc;
	if ((rc = get_needs(r, p, err)) != GA_OK)
		return rc;
	get_spreads(r, p);
	if (r->version > GA_SERIAL_VERSION_NO_DAY_PEAK)
		for (int s = 0; s < p->n_services; s++)
			p->services[s].day_peak = get_i32(r);
	if (r->short_read || r->pos != r->len)
		return ga_error_set(err, GA_EINVAL, "serialised problem: the fields do not fill its %zu bytes", r->len);
	return GA_OK;
}

ga_status
ga_problem_read(const void *buf, size_t len, ga_problem **out, ga_error *err)
{
	reader		r = {.buf = buf, .len = len};
	ga_params	params = {0};
	int32_t		n[4];
	ga_problem *p;
	ga_status	rc;

	*out = NULL;
	if ((rc = get_header(&r, KIND_PROBLEM, err)) != GA_OK)
		return rc;
	if ((rc = get_counts(&r, &params, n, err)) != GA_OK)
		return rc;
	p = ga_problem_create(n[0], n[1], n[2], n[3], &params);
	if (p == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory reading a problem");
	rc = get_body(&r, p, err);
	if (rc == GA_OK)
		rc = ga_problem_finish(p, err);
	if (rc != GA_OK)
	{
		ga_problem_destroy(p);
		return rc;
	}
	*out = p;
	return GA_OK;
}

/* ------------------------------------------------------------------------
 * Plans
 * ------------------------------------------------------------------------ */

static int
mode_code(const char *mode)
{
	for (size_t i = 0; i < sizeof(plan_modes) / sizeof(plan_modes[0]); i++)
		if (mode != NULL && strcmp(mode, plan_modes[i]) == 0)
			return (int) i;
	return -1;
}

static void
put_plan(writer *w, const ga_plan *plan, int mode, size_t total)
{
	size_t		cells = (size_t) plan->n_gpus * plan->n_steps;

	put_header(w, KIND_PLAN, total);
	put_i32(w, plan->n_gpus);
	put_i32(w, plan->n_steps);
	put_i32(w, plan->n_jobs);
	put_i32(w, plan->n_services);
	put(w, plan->cell, sizeof(int32_t) * cells);
	for (int j = 0; j < plan->n_jobs; j++)
	{
		put_i32(w, plan->job_start[j]);
		put_i32(w, plan->job_size[j]);
		put_i32(w, plan->job_first_gpu[j]);
	}
	put_f64(w, plan->objective);
	put_f64(w, plan->bound);
	put_f64(w, plan->gap);
	put_f64(w, plan->solve_ms);
	put_u8(w, (uint8_t) mode);
}

size_t
ga_plan_serial_size(const ga_problem *problem)
{
	return HEADER_BYTES + 4 * sizeof(int32_t)
		+ sizeof(int32_t) * (size_t) problem->n_gpus * problem->params.n_steps
		+ 3 * sizeof(int32_t) * (size_t) problem->n_jobs + 4 * sizeof(double) + 1;
}

ga_status
ga_plan_write(const ga_plan *plan, void *buf, size_t cap, ga_error *err)
{
	writer		count = {0};
	writer		w = {.buf = buf, .cap = cap};
	int			mode = mode_code(plan->mode);

	if (mode < 0)
		return ga_error_set(err, GA_EINVAL, "serialised plan: mode \"%s\" is not one of \"\", \"fast\", \"full\"",
							plan->mode ? plan->mode : "(null)");
	put_plan(&count, plan, mode, 0);
	if (count.pos > cap)
		return ga_error_set(err, GA_EINVAL, "serialised plan: needs %zu bytes, %zu given", count.pos, cap);
	put_plan(&w, plan, mode, count.pos);
	return GA_OK;
}

static ga_status
check_plan_shape(reader *r, const ga_problem *problem, ga_error *err)
{
	int32_t		n_gpus = get_i32(r);
	int32_t		n_steps = get_i32(r);
	int32_t		n_jobs = get_i32(r);
	int32_t		n_services = get_i32(r);

	if (r->short_read || n_gpus != problem->n_gpus || n_steps != problem->params.n_steps ||
		n_jobs != problem->n_jobs || n_services != problem->n_services)
		return ga_error_set(err, GA_EINVAL,
							"serialised plan: %d GPUs, %d steps, %d jobs, %d services, "
							"but the problem has %d, %d, %d, %d",
							n_gpus, n_steps, n_jobs, n_services, problem->n_gpus,
							problem->params.n_steps, problem->n_jobs, problem->n_services);
	return GA_OK;
}

ga_status
ga_plan_read(const void *buf, size_t len, const ga_problem *problem, ga_plan **out,
			 ga_error *err)
{
	reader		r = {.buf = buf, .len = len};
	ga_plan    *plan;
	ga_status	rc;
	uint8_t		mode;

	*out = NULL;
	if ((rc = get_header(&r, KIND_PLAN, err)) != GA_OK)
		return rc;
	if ((rc = check_plan_shape(&r, problem, err)) != GA_OK)
		return rc;
	if ((plan = ga_plan_create(problem)) == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory reading a plan");
	get(&r, plan->cell, sizeof(int32_t) * (size_t) plan->n_gpus * plan->n_steps);
	for (int j = 0; j < plan->n_jobs; j++)
	{
		plan->job_start[j] = get_i32(&r);
		plan->job_size[j] = get_i32(&r);
		plan->job_first_gpu[j] = get_i32(&r);
	}
	plan->objective = get_f64(&r);
	plan->bound = get_f64(&r);
	plan->gap = get_f64(&r);
	plan->solve_ms = get_f64(&r);
	mode = get_u8(&r);
	if (r.short_read || r.pos != r.len || mode >= sizeof(plan_modes) / sizeof(plan_modes[0]))
	{
		ga_plan_destroy(plan);
		return ga_error_set(err, GA_EINVAL, "serialised plan: the fields do not fill its %zu bytes or its mode is unknown",
							len);
	}
	plan->mode = plan_modes[mode];
	*out = plan;
	return GA_OK;
}
