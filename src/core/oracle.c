/*
 * oracle.c — the LP bounds of oracle.h, in GLPK.
 */
#include "oracle.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum lp_kind
{
	LP_VALUE,
	LP_UTIL,
	LP_DONE_VALUE,
	LP_DONE_JOBS
} lp_kind;

/* The relaxation's data, shared by the four programs. */
typedef struct orc
{
	const ga_scenario *scn;
	int			T;
	int			n_int;			/* intervals */
	int		   *bound;			/* [n_int + 1] interval boundaries in steps */
	int			n_jobs;			/* jobs that take part */
	int		   *job;			/* [n_jobs] scenario index */
	int		   *first_int;		/* [n_jobs] first interval after release */
	double	   *cap;			/* [n_jobs] GPUs at once */
	double	   *work;			/* [n_jobs] true work, GPU-steps */
	double	   *occupy;			/* [n_jobs] U_j */
	double	   *served_cap;		/* [n_services * n_int] */
	double		demanded;		/* GPU-steps of true demand */
	double		servable;		/* ... up to max_gpus and pool size */
} orc;

static int
pow2_floor(int x)
{
	int			p = 1;

	while (p * 2 <= x)
		p *= 2;
	return p;
}

static int
release_step(const ga_scenario *scn, const ga_scn_job *j)
{
	int64_t		d = j->submit - scn->start;

	return d <= 0 ? 0 : (int) ((d + scn->step_minutes - 1) / scn->step_minutes);
}

static int
int_cmp(const void *a, const void *b)
{
	return *(const int *) a - *(const int *) b;
}

/* Job data: caps, work, U_j, release intervals. */
static void
orc_jobs(orc *o)
{
	const ga_scenario *scn = o->scn;
	double		step_h = scn->step_minutes / 60.0;

	for (int j = 0; j < scn->n_jobs; j++)
	{
		const ga_scn_job *sj = &scn->jobs[j];
		int			pmax = pow2_floor(scn->pools[sj->pool].n_gpus);
		int			r = release_step(scn, sj);
		int			k = o->n_jobs;
		int			hi = sj->gpus_max < pmax ? sj->gpus_max : pmax;

		if (r >= o->T || sj->gpus_min > pmax)
			continue;
		o->job[k] = j;
		o->cap[k] = hi;
		o->work[k] = sj->work_gpu_hours / step_h;
		o->occupy[k] = 0;
		for (int g = sj->gpus_min; g <= hi; g *= 2)
		{
			double		u = g * fmax(1.0, ceil(o->work[k] / g - 1e-9));

			if (u > o->occupy[k])
				o->occupy[k] = u;
		}
		o->first_int[k] = 0;
		while (o->bound[o->first_int[k]] < r)
			o->first_int[k]++;
		o->n_jobs++;
	}
}

/* Serving caps per service and interval, and the coverage bound. */
static void
orc_services(orc *o)
{
	const ga_scenario *scn = o->scn;

	for (int s = 0; s < scn->n_services; s++)
	{
		const ga_scn_service *svc = &scn->services[s];

		for (int i = 0; i < o->n_int; i++)
		{
			double		sum = 0;

			for (int t = o->bound[i]; t < o->bound[i + 1]; t++)
			{
				int			d = ga_scenario_true_demand(scn, s, scn->start + (int64_t) t * scn->step_minutes);
				int			c = d < svc->max_gpus ? d : svc->max_gpus;

				o->demanded += d;
				sum += c;
			}
			o->served_cap[(size_t) s * o->n_int + i] = sum;
			o->servable += sum;
		}
	}
}

static void
orc_free(orc *o)
{
	free(o->bound);
	free(o->job);
	free(o->first_int);
	free(o->cap);
	free(o->work);
	free(o->occupy);
	free(o->served_cap);
}

static ga_status
orc_init(orc *o, const ga_scenario *scn, ga_error *err)
{
	int			nj = scn->n_jobs > 0 ? scn->n_jobs : 1;
	int			n = 0;

	memset(o, 0, sizeof(*o));
	o->scn = scn;
	o->T = ga_scenario_steps(scn);
	o->bound = malloc(sizeof(int) * (scn->n_jobs + 2));
	o->job = malloc(sizeof(int) * nj);
	o->first_int = malloc(sizeof(int) * nj);
	o->cap = malloc(sizeof(double) * nj);
	o->work = malloc(sizeof(double) * nj);
	o->occupy = malloc(sizeof(double) * nj);
	if (!o->bound || !o->job || !o->first_int || !o->cap || !o->work || !o->occupy)
	{
		orc_free(o);
		return ga_error_set(err, GA_ENOMEM, "out of memory building the oracle");
	}
	/* interval boundaries: 0, every release inside the window, T */
	o->bound[n++] = 0;
	for (int j = 0; j < scn->n_jobs; j++)
	{
		int			r = release_step(scn, &scn->jobs[j]);

		if (r > 0 && r < o->T)
			o->bound[n++] = r;
	}
	qsort(o->bound, n, sizeof(int), int_cmp);
	o->n_int = 0;
	for (int i = 0; i < n; i++)
		if (i == 0 || o->bound[i] != o->bound[i - 1])
			o->bound[o->n_int++] = o->bound[i];
	o->bound[o->n_int] = o->T;
	o->served_cap = calloc((size_t) (scn->n_services > 0 ? scn->n_services : 1) * o->n_int,
						   sizeof(double));
	if (o->served_cap == NULL)
	{
		orc_free(o);
		return ga_error_set(err, GA_ENOMEM, "out of memory building the oracle");
	}
	orc_jobs(o);
	orc_services(o);
	return GA_OK;
}

/* A growable sparse matrix in GLPK's 1-based triplet form. */
typedef struct triplets
{
	int			n;
	int			cap;
	int		   *ia;
	int		   *ja;
	double	   *ar;
} triplets;

static bool
trip_add(triplets *m, int row, int col, double v)
{
	if (m->n + 1 >= m->cap)
	{
		int			nc = m->cap > 0 ? m->cap * 2 : 1024;
		int		   *ia = realloc(m->ia, sizeof(int) * nc);

		if (ia == NULL)
			return false;
		m->ia = ia;
		int		   *ja = realloc(m->ja, sizeof(int) * nc);

		if (ja == NULL)
			return false;
		m->ja = ja;
		double	   *ar = realloc(m->ar, sizeof(double) * nc);

		if (ar == NULL)
			return false;
		m->ar = ar;
		m->cap = nc;
	}
	m->n++;
	m->ia[m->n] = row;
	m->ja[m->n] = col;
	m->ar[m->n] = v;
	return true;
}

static double
job_weight(const orc *o, int k, lp_kind kind)
{
	const ga_scn_job *sj = &o->scn->jobs[o->job[k]];

	switch (kind)
	{
		case LP_VALUE:
			return sj->priority;
		case LP_UTIL:
			return 1;
		case LP_DONE_VALUE:
			return sj->priority * o->occupy[k];
		case LP_DONE_JOBS:
			return 1;
	}
	return 0;
}

/* Bounds [0, ub] of a column; GLPK wants a fixed column when ub is 0. */
static void
col_upto(glp_prob *lp, int c, double ub)
{
	if (ub > 0)
		glp_set_col_bnds(lp, c, GLP_DB, 0, ub);
	else
		glp_set_col_bnds(lp, c, GLP_FX, 0, 0);
}

/* Columns and entries of one program; rows are laid out by the caller. */
static bool
build_lp(const orc *o, glp_prob *lp, lp_kind kind, triplets *m)
{
	const ga_scenario *scn = o->scn;
	int			cap_row = 0;	/* row of (pool, interval) = 1 + pool * n_int + i */
	int			job_row = scn->n_pools * o->n_int;	/* + 1 + k */
	bool		done = kind == LP_DONE_VALUE || kind == LP_DONE_JOBS;

	glp_add_rows(lp, job_row + o->n_jobs);
	for (int p = 0; p < scn->n_pools; p++)
		for (int i = 0; i < o->n_int; i++)
			glp_set_row_bnds(lp, 1 + p * o->n_int + i, GLP_UP, 0,
							 (double) scn->pools[p].n_gpus * (o->bound[i + 1] - o->bound[i]));
	for (int k = 0; k < o->n_jobs; k++)
	{
		if (done)
			glp_set_row_bnds(lp, job_row + 1 + k, GLP_LO, 0, 0);
		else
			glp_set_row_bnds(lp, job_row + 1 + k, GLP_UP, 0, o->occupy[k]);
	}
	for (int k = 0; k < o->n_jobs; k++)
	{
		int			pool = scn->jobs[o->job[k]].pool;

		for (int i = o->first_int[k]; i < o->n_int; i++)
		{
			int			c = glp_add_cols(lp, 1);

			col_upto(lp, c, o->cap[k] * (o->bound[i + 1] - o->bound[i]));
			if (!done)
				glp_set_obj_coef(lp, c, job_weight(o, k, kind));
			cap_row = 1 + pool * o->n_int + i;
			if (!trip_add(m, cap_row, c, 1) || !trip_add(m, job_row + 1 + k, c, 1))
				return false;
		}
		if (done)
		{
			int			c = glp_add_cols(lp, 1);

			glp_set_col_bnds(lp, c, GLP_DB, 0, 1);
			glp_set_obj_coef(lp, c, job_weight(o, k, kind));
			if (!trip_add(m, job_row + 1 + k, c, -o->work[k]))
				return false;
		}
	}
	if (kind != LP_UTIL)
		return true;
	for (int s = 0; s < scn->n_services; s++)
		for (int i = 0; i < o->n_int; i++)
		{
			int			c = glp_add_cols(lp, 1);

			col_upto(lp, c, o->served_cap[(size_t) s * o->n_int + i]);
			glp_set_obj_coef(lp, c, 1);
			if (!trip_add(m, 1 + scn->services[s].pool * o->n_int + i, c, 1))
				return false;
		}
	return true;
}

/* Solve one program; its optimum in *obj (0 when it has no columns). */
static ga_status
solve_lp(const orc *o, lp_kind kind, double *obj, ga_error *err)
{
	glp_prob   *lp = glp_create_prob();
	triplets	m = {0};
	glp_smcp	parm;
	ga_status	rc = GA_OK;

	glp_set_obj_dir(lp, GLP_MAX);
	if (!build_lp(o, lp, kind, &m))
		rc = ga_error_set(err, GA_ENOMEM, "out of memory building the oracle LP");
	else if (glp_get_num_cols(lp) == 0)
		*obj = 0;
	else
	{
		glp_load_matrix(lp, m.n, m.ia, m.ja, m.ar);
		glp_init_smcp(&parm);
		parm.msg_lev = GLP_MSG_OFF;
		parm.presolve = GLP_ON;
		if (glp_simplex(lp, &parm) != 0 || glp_get_status(lp) != GLP_OPT)
			rc = ga_error_set(err, GA_ESOLVER, "oracle LP was not solved to optimality");
		else
			*obj = glp_get_obj_val(lp);
	}
	glp_delete_prob(lp);
	free(m.ia);
	free(m.ja);
	free(m.ar);
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

	if ((rc = solve_lp(o, LP_VALUE, &v, err)) != GA_OK ||
		(rc = solve_lp(o, LP_UTIL, &u, err)) != GA_OK ||
		(rc = solve_lp(o, LP_DONE_VALUE, &dv, err)) != GA_OK ||
		(rc = solve_lp(o, LP_DONE_JOBS, &dj, err)) != GA_OK)
		return rc;
	memset(m, 0, sizeof(*m));
	m->is_bound = true;
	m->value = v * step_h;
	m->utilization = u / ((double) scn->n_gpus * o->T);
	/* a policy's completed value never exceeds its value: keep the tighter */
	m->completed_value = fmin(dv, v) * step_h;
	m->completed_jobs = dj;
	m->coverage = o->demanded > 0 ? o->servable / o->demanded : 1.0;
	m->unmet_gpu_hours = (o->demanded - o->servable) * step_h;
	m->churn = NAN;
	m->wait_mean_h = NAN;
	m->wait_p95_h = NAN;
	m->solve_p50_ms = NAN;
	m->solve_p99_ms = NAN;
	return GA_OK;
}

ga_status
ga_oracle(const ga_scenario *scn, ga_sim_result **out, ga_error *err)
{
	orc			o;
	ga_sim_result *res;
	ga_status	rc;

	*out = NULL;
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
	if ((rc = orc_init(&o, scn, err)) != GA_OK)
	{
		ga_sim_result_destroy(res);
		return rc;
	}
	rc = fill_metrics(&o, &res->metrics, err);
	orc_free(&o);
	if (rc != GA_OK)
	{
		ga_sim_result_destroy(res);
		return rc;
	}
	*out = res;
	return GA_OK;
}
