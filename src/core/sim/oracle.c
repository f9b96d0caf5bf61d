/*
 * oracle.c — the bounds of oracle.h: a time-indexed model of the whole
 * window, solved by column generation in GLPK and reported as a Lagrangian
 * bound that is valid whatever the solver's accuracy.
 */
#include "sim/oracle.h"
#include "solve/glpk_guard.h"

#include <glpk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each of the four programs stops generating columns after this long. */
#define ORC_PROGRAM_MS 6000.0

typedef enum lp_kind
{
	LP_VALUE,
	LP_UTIL,
	LP_DONE_VALUE,
	LP_DONE_JOBS
} lp_kind;

/*
 * A block-counting row family: in pool `pool`, jobs of at least `size` GPUs
 * fill whole aligned blocks of `size`, of which the pool has `blocks`.
 */
typedef struct orc_level
{
	int			pool;
	int			size;
	int			blocks;
} orc_level;

/* The model's data, shared by the four programs. */
typedef struct orc
{
	const ga_scenario *scn;
	int			T;
	int			n_jobs;			/* jobs that can start inside the window */
	int		   *job;			/* [n_jobs] scenario index */
	int		   *release;		/* [n_jobs] first step a start is possible */
	int		   *n_sizes;		/* [n_jobs] */
	int			stride;			/* (pool, size) choices of the job with most */
	int		   *size;			/* [n_jobs * stride] allowed sizes */
	int		   *dur;			/* [n_jobs * stride] true steps */
	int		   *pool;			/* [n_jobs * stride] pool of the size */
	int			n_levels;
	orc_level  *level;
	int			n_series;		/* capacity series: pools, then levels */
	double	   *served_cap;		/* [n_services * T] */
	double		demanded;		/* GPU-steps of true demand */
	double		servable;		/* ... up to max_gpus */
	double		reachable;		/* ... that also fit the pools */
	double		floor_used;		/* coverage floor of the value programs */
	double		cover_rhs;		/* floor_used x demanded; 0: no row */
} orc;

/* The simulator's visibility rule: the first step boundary at or after. */
static int
release_step(const ga_scenario *scn, const ga_scn_job *j)
{
	return ga_scenario_release_step(scn, j->submit);
}

/*
 * True duration at g GPUs, the simulator's own (ga_scenario_run_steps):
 * the model must never let a job finish sooner than it really can.
 */
static int
true_duration(const ga_scenario *scn, const ga_scn_job *sj, int q, int g)
{
	return ga_scenario_run_steps(scn, sj, q, g);
}

/* How many legal sizes job sj has on pool q: powers of two in its range. */
static int
pool_size_count(const ga_scenario *scn, const ga_scn_job *sj, int q)
{
	int			pmax = ga_pow2_floor(scn->pools[q].n_gpus);
	int			hi = sj->gpus_max < pmax ? sj->gpus_max : pmax;
	int			n = 0;

	for (int g = 1; g <= hi; g *= 2)
		n += g >= sj->gpus_min;
	return n;
}

/* The most (pool, size) choices any job has: the stride of the job arrays. */
static int
most_choices(const ga_scenario *scn)
{
	int			most = 1;

	for (int j = 0; j < scn->n_jobs; j++)
	{
		const ga_scn_job *sj = &scn->jobs[j];
		int			n = pool_size_count(scn, sj, sj->pool);

		for (int i = 0; i < sj->n_alt_pools; i++)
			n += pool_size_count(scn, sj, sj->alt_pool[i]);
		most = n > most ? n : most;
	}
	return most;
}

/*
 * The legal sizes of job k (scenario job sj) on pool q, appended after its
 * n options; the new count.
 */
static int
add_pool_sizes(orc *o, int k, const ga_scn_job *sj, int q, int n)
{
	int			pmax = ga_pow2_floor(o->scn->pools[q].n_gpus);
	int			hi = sj->gpus_max < pmax ? sj->gpus_max : pmax;

	for (int g = 1; g <= hi; g *= 2)
		if (g >= sj->gpus_min)
		{
			o->size[k * o->stride + n] = g;
			o->dur[k * o->stride + n] = true_duration(o->scn, sj, q, g);
			o->pool[k * o->stride + n] = q;
			n++;
		}
	return n;
}

/*
 * Job data: release step and every legal (pool, size) with its true
 * duration (none left out: a bound missing a choice could fall below what
 * a policy achieves).
 */
static void
orc_jobs(orc *o)
{
	const ga_scenario *scn = o->scn;

	for (int j = 0; j < scn->n_jobs; j++)
	{
		const ga_scn_job *sj = &scn->jobs[j];
		int			r = release_step(scn, sj);
		int			k = o->n_jobs;
		int			n = add_pool_sizes(o, k, sj, sj->pool, 0);

		if (r >= o->T)
			continue;
		for (int i = 0; i < sj->n_alt_pools; i++)
			n = add_pool_sizes(o, k, sj, sj->alt_pool[i], n);
		if (n == 0)
			continue;			/* no legal block: it can never start */
		o->job[k] = j;
		o->release[k] = r;
		o->n_sizes[k] = n;
		o->n_jobs++;
	}
}

/* At most one level per pool and power of two from 2 up to its size. */
static size_t
max_levels(const ga_scenario *scn)
{
	size_t		n = 0;

	for (int p = 0; p < scn->n_pools; p++)
		for (int g = 2; g <= scn->pools[p].n_gpus; g *= 2)
			n++;
	return n;
}

/*
 * Block-counting rows that the pool capacity does not already imply: in a
 * pool of G GPUs there are floor(G / g) aligned blocks of g, which is less
 * than G / g only when g does not divide G.
 */
static void
orc_levels(orc *o)
{
	const ga_scenario *scn = o->scn;

	for (int p = 0; p < scn->n_pools; p++)
	{
		int			G = scn->pools[p].n_gpus;

		for (int g = 2; g <= G; g *= 2)
			if (G % g != 0)
				o->level[o->n_levels++] = (orc_level) {p, g, G / g};
	}
	o->n_series = scn->n_pools + o->n_levels;
}

/*
 * GPUs of pool p open to services over step t: not in a maintenance window
 * nor in any advance reservation (a service is no tenant's), as the
 * simulator's window_violations counts them.
 */
static int
orc_open_gpus(const orc *o, int p, int t)
{
	const ga_scenario *scn = o->scn;
	const ga_pool *pool = &scn->pools[p];
	int64_t		from = scn->start + (int64_t) t * scn->step_minutes;
	int			open = 0;

	if (scn->n_windows == 0 && scn->n_reservations == 0)
		return pool->n_gpus;
	for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
		open += !ga_scenario_closed(scn, -1, g, from, from + scn->step_minutes);
	return open;
}

/*
 * Serving caps per service and step, and the coverage bound: true demand
 * up to max_gpus and the GPUs of the service's pool open then (a run that
 * keeps the windows serves nothing on closed GPUs).  Churn limits are
 * dropped here as everywhere in the oracle's model: the baselines' static
 * reservations do not keep them.
 */
static void
orc_services(orc *o)
{
	const ga_scenario *scn = o->scn;

	for (int s = 0; s < scn->n_services; s++)
	{
		const ga_scn_service *svc = &scn->services[s];

		for (int t = 0; t < o->T; t++)
		{
			int			d = ga_scenario_true_demand(scn, s, scn->start + (int64_t) t * scn->step_minutes);
			double		c = fmin(d, fmin(svc->max_gpus, orc_open_gpus(o, svc->pool, t)));

			o->demanded += d;
			o->served_cap[(size_t) s * o->T + t] = c;
			o->servable += c;
		}
	}
	for (int p = 0; p < scn->n_pools; p++)
		for (int t = 0; t < o->T; t++)
		{
			double		want = 0;

			for (int s = 0; s < scn->n_services; s++)
				if (scn->services[s].pool == p)
					want += o->served_cap[(size_t) s * o->T + t];
			o->reachable += fmin(want, scn->pools[p].n_gpus);
		}
}

/*
 * The coverage row of the value programs.  A floor no run can reach would
 * leave nothing to bound (and an infeasible model): it is lowered to the
 * share the pools can serve at most.
 */
static void
orc_floor(orc *o, double floor)
{
	o->floor_used = floor > 0 ? floor : 0;	/* no -0 in the output */
	o->cover_rhs = o->floor_used * o->demanded;
	if (o->cover_rhs > o->reachable)
	{
		o->cover_rhs = o->reachable;
		o->floor_used = o->reachable / o->demanded;
	}
}

static void
orc_free(orc *o)
{
	free(o->job);
	free(o->release);
	free(o->n_sizes);
	free(o->size);
	free(o->dur);
	free(o->pool);
	free(o->level);
	free(o->served_cap);
}

static ga_status
orc_init(orc *o, const ga_scenario *scn, double floor, ga_error *err)
{
	size_t		nj = scn->n_jobs > 0 ? scn->n_jobs : 1;
	size_t		ns = scn->n_services > 0 ? scn->n_services : 1;

	memset(o, 0, sizeof(*o));
	o->scn = scn;
	o->T = ga_scenario_steps(scn);
	o->job = malloc(sizeof(int) * nj);
	o->release = malloc(sizeof(int) * nj);
	o->n_sizes = malloc(sizeof(int) * nj);
	o->stride = most_choices(scn);
	o->size = malloc(sizeof(int) * nj * o->stride);
	o->dur = malloc(sizeof(int) * nj * o->stride);
	o->pool = malloc(sizeof(int) * nj * o->stride);
	o->level = malloc(sizeof(orc_level) * (max_levels(scn) + 1));
	o->served_cap = calloc(ns * (o->T > 0 ? o->T : 1), sizeof(double));
	if (!o->job || !o->release || !o->n_sizes || !o->size || !o->dur ||
		!o->pool || !o->level || !o->served_cap)
	{
		orc_free(o);
		return ga_error_set(err, GA_ENOMEM, "out of memory building the oracle");
	}
	orc_jobs(o);
	orc_levels(o);
	orc_services(o);
	orc_floor(o, floor);
	return GA_OK;
}

/* ---- one program, by column generation ---- */

/*
 * Rows: capacity of series q at step t is row 1 + q * T + t (pools first,
 * then block levels); job k's "at most one start" row is 1 + n_series * T + k.
 * A column is a start of job k at size index i and step s: it holds g GPUs
 * in every capacity row of its pool, and in every level row of its pool
 * whose block size is at most g, from s to min(s + dur, T).
 */
typedef struct cg
{
	const orc  *o;
	lp_kind		kind;
	glp_prob   *lp;
	double	   *pi;				/* [n_series * T] capacity duals, >= 0 */
	double		mu;				/* coverage row's dual, >= 0 */
	double	   *prefix;			/* [n_series * (T + 1)] running sums of pi */
	unsigned char *have;		/* [n_jobs * stride * T] column added */
	int		   *new_k;			/* columns found by one pricing pass */
	int		   *new_i;
	int		   *new_s;
	int			n_new;
	int		   *ind;			/* one column's rows, 1-based */
	double	   *val;
	double		bound;			/* best Lagrangian bound so far */
	double		started_ms;
	char		message[256];
} cg;

static void
cg_free(cg *c)
{
	free(c->pi);
	free(c->prefix);
	free(c->have);
	free(c->new_k);
	free(c->new_i);
	free(c->new_s);
	free(c->ind);
	free(c->val);
}

static bool
cg_alloc(cg *c, const orc *o, lp_kind kind)
{
	size_t		nj = o->n_jobs > 0 ? o->n_jobs : 1;
	size_t		T = o->T > 0 ? o->T : 1;
	size_t		per_col = (size_t) o->n_series * T + 2;

	memset(c, 0, sizeof(*c));
	c->o = o;
	c->kind = kind;
	c->bound = INFINITY;
	c->pi = calloc((size_t) o->n_series * T, sizeof(double));
	c->prefix = calloc((size_t) o->n_series * (T + 1), sizeof(double));
	c->have = calloc(nj * o->stride * T, 1);
	c->new_k = malloc(sizeof(int) * nj * o->stride);
	c->new_i = malloc(sizeof(int) * nj * o->stride);
	c->new_s = malloc(sizeof(int) * nj * o->stride);
	c->ind = malloc(sizeof(int) * per_col);
	c->val = malloc(sizeof(double) * per_col);
	return c->pi && c->prefix && c->have && c->new_k && c->new_i &&
		c->new_s && c->ind && c->val;
}

static bool
is_done_kind(lp_kind kind)
{
	return kind == LP_DONE_VALUE || kind == LP_DONE_JOBS;
}

/* Programs that carry the services: utilisation, and the floored ones. */
static bool
has_services(const orc *o, lp_kind kind)
{
	return kind == LP_UTIL || o->cover_rhs > 0;
}

static bool
has_cover_row(const orc *o, lp_kind kind)
{
	return kind != LP_UTIL && o->cover_rhs > 0;
}

/* What a served GPU-step earns in this program. */
static double
served_obj(lp_kind kind)
{
	return kind == LP_UTIL ? 1 : 0;
}

/* Does series q count a job of g GPUs in pool p? */
static bool
series_counts(const orc *o, int q, int p, int g)
{
	const orc_level *l;

	if (q < o->scn->n_pools)
		return q == p;
	l = &o->level[q - o->scn->n_pools];
	return l->pool == p && g >= l->size;
}

/*
 * What a start of job k at size index i and step s earns in this program.
 * For the completion programs only a run that ends inside the window
 * earns anything; the caller never offers the others.
 */
static double
column_obj(const cg *c, int k, int i, int s)
{
	const orc  *o = c->o;
	const ga_scn_job *sj = &o->scn->jobs[o->job[k]];
	int			g = o->size[k * o->stride + i];
	int			d = o->dur[k * o->stride + i];
	int			e = s + d < o->T ? s + d : o->T;
	/* a GPU-hour on a pool of factor f does 1/f of the work: as the metrics count it */
	double		rate = sj->priority / ga_scn_job_factor(sj, o->pool[k * o->stride + i]);

	switch (c->kind)
	{
		case LP_VALUE:
			return rate * g * (e - s);
		case LP_UTIL:
			return (double) g * (e - s);
		case LP_DONE_VALUE:
			return rate * g * d;
		case LP_DONE_JOBS:
			return 1;
	}
	return 0;
}

/* Capacity the column's GPU-steps cost at the current duals. */
static double
column_cost(const cg *c, int k, int i, int s)
{
	const orc  *o = c->o;
	int			p = o->pool[k * o->stride + i];
	int			g = o->size[k * o->stride + i];
	int			d = o->dur[k * o->stride + i];
	int			e = s + d < o->T ? s + d : o->T;
	double		cost = 0;

	for (int q = 0; q < o->n_series; q++)
		if (series_counts(o, q, p, g))
		{
			const double *pre = c->prefix + (size_t) q * (o->T + 1);

			cost += g * (pre[e] - pre[s]);
		}
	return cost;
}

/*
 * One pricing pass at the current duals.  Returns the Lagrangian bound
 * L(pi, mu) of oracle.h, which holds for any pi, mu >= 0, and queues the
 * best column of every size whose reduced profit is positive and that is
 * not in the model yet.
 */
static double
price(cg *c)
{
	const orc  *o = c->o;
	const ga_scenario *scn = o->scn;
	int			T = o->T;
	double		L = 0;

	for (int q = 0; q < o->n_series; q++)
	{
		double	   *pre = c->prefix + (size_t) q * (T + 1);
		double		rhs = q < scn->n_pools ? scn->pools[q].n_gpus :
			(double) o->level[q - scn->n_pools].size * o->level[q - scn->n_pools].blocks;

		pre[0] = 0;
		for (int t = 0; t < T; t++)
		{
			pre[t + 1] = pre[t] + c->pi[(size_t) q * T + t];
			L += c->pi[(size_t) q * T + t] * rhs;
		}
	}
	c->n_new = 0;
	for (int k = 0; k < o->n_jobs; k++)
	{
		double		best_job = 0;

		for (int i = 0; i < o->n_sizes[k]; i++)
		{
			int			last = T - 1;
			double		best = 1e-9;
			int			best_s = -1;

			if (is_done_kind(c->kind))
				last = T - o->dur[k * o->stride + i];
			for (int s = o->release[k]; s <= last; s++)
			{
				double		red = column_obj(c, k, i, s) - column_cost(c, k, i, s);

				if (red > best_job)
					best_job = red;
				if (red > best)
				{
					best = red;
					best_s = s;
				}
			}
			if (best_s >= 0 && !c->have[((size_t) k * o->stride + i) * T + best_s])
			{
				c->new_k[c->n_new] = k;
				c->new_i[c->n_new] = i;
				c->new_s[c->n_new] = best_s;
				c->n_new++;
			}
		}
		L += best_job;
	}
	if (has_cover_row(o, c->kind))
		L -= c->mu * o->cover_rhs;
	if (has_services(o, c->kind))
		for (int s = 0; s < scn->n_services; s++)
			for (int t = 0; t < T; t++)
			{
				double		gain = served_obj(c->kind) + c->mu -
					c->pi[(size_t) scn->services[s].pool * T + t];

				if (gain > 0)
					L += gain * o->served_cap[(size_t) s * T + t];
			}
	return L;
}

/* The coverage row follows the capacity and one-start rows. */
static int
cover_row(const orc *o)
{
	return 1 + o->n_series * o->T + o->n_jobs;
}

/*
 * Rows of the model: capacity per series and step, one start per job, and
 * the coverage floor where the program has one.
 */
static void
add_rows(cg *c)
{
	const orc  *o = c->o;
	const ga_scenario *scn = o->scn;
	int			T = o->T;

	glp_add_rows(c->lp, o->n_series * T + o->n_jobs);
	for (int q = 0; q < o->n_series; q++)
	{
		double		rhs = q < scn->n_pools ? scn->pools[q].n_gpus :
			(double) o->level[q - scn->n_pools].size * o->level[q - scn->n_pools].blocks;

		for (int t = 0; t < T; t++)
			glp_set_row_bnds(c->lp, 1 + q * T + t, GLP_UP, 0, rhs);
	}
	for (int k = 0; k < o->n_jobs; k++)
		glp_set_row_bnds(c->lp, 1 + o->n_series * T + k, GLP_UP, 0, 1);
	if (has_cover_row(o, c->kind))
	{
		glp_add_rows(c->lp, 1);
		glp_set_row_bnds(c->lp, cover_row(o), GLP_LO, o->cover_rhs, 0);
	}
}

/* The services' served GPU-steps. */
static void
add_service_cols(cg *c)
{
	const orc  *o = c->o;
	const ga_scenario *scn = o->scn;

	for (int s = 0; s < scn->n_services; s++)
		for (int t = 0; t < o->T; t++)
		{
			double		ub = o->served_cap[(size_t) s * o->T + t];
			int			col,
						n = 1;

			if (ub <= 0)
				continue;
			col = glp_add_cols(c->lp, 1);
			glp_set_col_bnds(c->lp, col, GLP_DB, 0, ub);
			glp_set_obj_coef(c->lp, col, served_obj(c->kind));
			c->ind[1] = 1 + scn->services[s].pool * o->T + t;
			c->val[1] = 1;
			if (has_cover_row(o, c->kind))
			{
				n++;
				c->ind[n] = cover_row(o);
				c->val[n] = 1;
			}
			glp_set_mat_col(c->lp, col, n, c->ind, c->val);
		}
}

static void
add_job_col(cg *c, int k, int i, int s)
{
	const orc  *o = c->o;
	int			p = o->pool[k * o->stride + i];
	int			g = o->size[k * o->stride + i];
	int			d = o->dur[k * o->stride + i];
	int			e = s + d < o->T ? s + d : o->T;
	int			col = glp_add_cols(c->lp, 1);
	int			n = 0;

	glp_set_col_bnds(c->lp, col, GLP_DB, 0, 1);
	glp_set_obj_coef(c->lp, col, column_obj(c, k, i, s));
	for (int q = 0; q < o->n_series; q++)
		if (series_counts(o, q, p, g))
			for (int t = s; t < e; t++)
			{
				n++;
				c->ind[n] = 1 + q * o->T + t;
				c->val[n] = g;
			}
	n++;
	c->ind[n] = 1 + o->n_series * o->T + k;
	c->val[n] = 1;
	glp_set_mat_col(c->lp, col, n, c->ind, c->val);
	c->have[((size_t) k * o->stride + i) * o->T + s] = 1;
}

/* Re-solve the restricted model; its capacity duals become the new pi. */
static ga_status
resolve(cg *c, double *master)
{
	const orc  *o = c->o;
	glp_smcp	parm;
	double		left = ORC_PROGRAM_MS - (ga_now_ms() - c->started_ms);

	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.tm_lim = left > 1 ? (int) left : 1;
	if (glp_simplex(c->lp, &parm) != 0 || glp_get_status(c->lp) != GLP_OPT)
		return GA_ESOLVER;
	*master = glp_get_obj_val(c->lp);
	for (int r = 0; r < o->n_series * o->T; r++)
		c->pi[r] = fmax(0.0, glp_get_row_dual(c->lp, 1 + r));
	/* a ">=" row of a maximisation has a dual <= 0: raising it costs */
	if (has_cover_row(o, c->kind))
		c->mu = fmax(0.0, -glp_get_row_dual(c->lp, cover_row(o)));
	return GA_OK;
}

/*
 * Column generation: price at the current duals (every pass gives a valid
 * bound), add the improving columns, re-solve, until no column improves,
 * the bound meets the restricted optimum, or the time is up.  A stop on
 * time still leaves a valid, only looser, bound.
 */
static ga_status
cg_body(cg *c)
{
	double		master = 0;

	c->lp = glp_create_prob();
	glp_set_obj_dir(c->lp, GLP_MAX);
	add_rows(c);
	if (has_services(c->o, c->kind))
		add_service_cols(c);
	for (;;)
	{
		double		L = price(c);

		if (L < c->bound)
			c->bound = L;
		if (c->n_new == 0 || c->bound - master <= 1e-7 * fmax(1.0, fabs(c->bound)) ||
			ga_now_ms() - c->started_ms > ORC_PROGRAM_MS)
			return GA_OK;
		for (int n = 0; n < c->n_new; n++)
			add_job_col(c, c->new_k[n], c->new_i[n], c->new_s[n]);
		if (resolve(c, &master) != GA_OK)
		{
			/* out of time inside the simplex: the bound so far stands */
			if (ga_now_ms() - c->started_ms > ORC_PROGRAM_MS)
				return GA_OK;
			snprintf(c->message, sizeof(c->message), "the restricted model was not solved");
			return GA_ESOLVER;
		}
	}
}

static ga_status
cg_body_guarded(void *arg)
{
	return cg_body(arg);
}

/* Run the column generation under the GLPK guard; GLPK memory is freed. */
static ga_status
cg_guarded(cg *c, ga_error *err)
{
	bool		glpk_failed;
	ga_status	rc;

	rc = ga_glpk_guarded(&c->lp, c->message, sizeof(c->message),
						 cg_body_guarded, c, &glpk_failed);
	if (glpk_failed)
		return ga_error_set(err, GA_ESOLVER, "GLPK failed in the oracle: %s",
							c->message[0] ? c->message : "internal error");
	if (rc != GA_OK)
		return ga_error_set(err, rc, "oracle: %s", c->message);
	return GA_OK;
}

/* The bound of one program in *bound (GPU-steps or priority GPU-steps). */
static ga_status
solve_program(const orc *o, lp_kind kind, double *bound, ga_error *err)
{
	cg			c;
	ga_status	rc;

	if (!cg_alloc(&c, o, kind))
	{
		cg_free(&c);
		return ga_error_set(err, GA_ENOMEM, "out of memory building the oracle model");
	}
	c.started_ms = ga_now_ms();
	rc = cg_guarded(&c, err);
	*bound = c.bound > 0 ? c.bound : 0;
	cg_free(&c);
	return rc;
}

static ga_status
fill_metrics(const orc *o, ga_metrics *m, ga_error *err)
{
	const ga_scenario *scn = o->scn;
	double		step_h = scn->step_minutes / 60.0;
	double		v,
				u,
				dv,
				dj;
	ga_status	rc;

	if ((rc = solve_program(o, LP_VALUE, &v, err)) != GA_OK ||
		(rc = solve_program(o, LP_UTIL, &u, err)) != GA_OK ||
		(rc = solve_program(o, LP_DONE_VALUE, &dv, err)) != GA_OK ||
		(rc = solve_program(o, LP_DONE_JOBS, &dj, err)) != GA_OK)
		return rc;
	memset(m, 0, sizeof(*m));
	m->is_bound = true;
	m->value = v * step_h;
	m->utilization = scn->n_gpus > 0 && o->T > 0 ?
		fmin(1.0, u / ((double) scn->n_gpus * o->T)) : 0;
	/* a policy's completed value never exceeds its value: keep the tighter */
	m->completed_value = fmin(dv, v) * step_h;
	/* a run completes a whole number of jobs */
	m->completed_jobs = floor(dj + 1e-6);
	m->coverage = o->demanded > 0 ? o->servable / o->demanded : 1.0;
	m->unmet_gpu_hours = (o->demanded - o->servable) * step_h;
	m->churn = NAN;
	m->window_violations = NAN;
	m->reservation_start_delay_steps = NAN;
	m->jain_index = NAN;
	m->min_entitlement_share = NAN;
	m->wait_mean_h = NAN;
	m->wait_p95_h = NAN;
	m->solve_p50_ms = NAN;
	m->solve_p99_ms = NAN;
	return GA_OK;
}

void
ga_oracle_options_default(ga_oracle_options *opt)
{
	opt->coverage_floor = GA_ORACLE_COVERAGE_FLOOR;
}

ga_status
ga_oracle_bound(const ga_scenario *scn, const ga_oracle_options *opt,
				ga_sim_result **out, double *floor_used, ga_error *err)
{
	orc			o;
	ga_sim_result *res;
	ga_status	rc;

	*out = NULL;
	if (!(opt->coverage_floor >= 0 && opt->coverage_floor <= 1))
		return ga_error_set(err, GA_EINVAL,
							"oracle: coverage_floor must be between 0 and 1, got %g",
							opt->coverage_floor);
	res = calloc(1, sizeof(*res));
	if (res == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	res->n_jobs = scn->n_jobs;
	res->jobs = malloc(sizeof(ga_sim_job_trace) * (scn->n_jobs > 0 ? scn->n_jobs : 1));
	if (res->jobs == NULL)
	{
		free(res);
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	}
	for (int j = 0; j < scn->n_jobs; j++)
		res->jobs[j] = (ga_sim_job_trace) {-1, -1, -1, -1};
	if ((rc = orc_init(&o, scn, opt->coverage_floor, err)) != GA_OK)
	{
		ga_sim_result_destroy(res);
		return rc;
	}
	rc = fill_metrics(&o, &res->metrics, err);
	res->coverage_floor = o.floor_used;
	if (floor_used != NULL)
		*floor_used = o.floor_used;
	orc_free(&o);
	if (rc != GA_OK)
	{
		ga_sim_result_destroy(res);
		return rc;
	}
	*out = res;
	return GA_OK;
}
