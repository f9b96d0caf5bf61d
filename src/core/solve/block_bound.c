/*
 * block_bound.c — an upper bound on every legal plan from the block-level
 * model's LP relaxation over whole pools (ga_block_bound, block_model.h).
 *
 * Relaxed to the rules of a legal plan (no protect rule, windows over the
 * estimated run, tenant limits but not the quota admission), every job
 * that is not pinned free, every service cell a variable, each pool's
 * model holds every legal plan's part in that pool, and the plan's
 * objective is the model's plus constants: the pinned jobs' value and the
 * terminal charge of the pinned jobs alone (the model's w is the charge
 * on top of it).  Pools share nothing in the objective, so the sum of the
 * pools' LP bounds plus the constants bounds every legal plan.  As in
 * milp_model.c the LP value is taken as a Lagrangian value of the duals,
 * valid whatever the simplex's tolerances or an early stop.
 */
#include "solve/block_model_internal.h"
#include "solve/glpk_guard.h"
#include "solve/milp_internal.h"
#include "model/terminal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct bound_run
{
	block_model *m;
	double		t_end;
	double		bound;
	glp_prob   *lp;
	char		message[160];
} bound_run;

static ga_status
bound_body(void *arg)
{
	bound_run  *run = arg;
	block_model *m = run->m;
	glp_smcp	smcp;
	double	   *pi = calloc(m->n_rows + 1, sizeof(double));
	double	   *lo = calloc(m->n_vars + 1, sizeof(double));

	if (pi == NULL || lo == NULL)
	{
		free(pi);
		free(lo);
		return GA_ENOMEM;
	}
	run->lp = glp_create_prob();
	block_model_load(m, run->lp);
	glp_init_smcp(&smcp);
	smcp.msg_lev = GLP_MSG_OFF;
	smcp.tm_lim = block_model_ms_left(run->t_end);
	glp_scale_prob(run->lp, GLP_SF_AUTO);
	glp_adv_basis(run->lp, 0);
	glp_simplex(run->lp, &smcp);
	for (int i = 1; i <= m->n_rows; i++)
		pi[i] = glp_get_row_dual(run->lp, i);
	run->bound = milp_lagrangian_bound(&(milp_model) {
		.n_cols = m->n_vars, .obj = m->obj, .col_lo = lo, .col_hi = m->hi,
		.n_rows = m->n_rows, .row_lo = m->row_lo, .row_hi = m->row_hi,
		.nnz = m->nnz, .ia = m->ia, .ja = m->ja, .ar = m->ar}, pi);
	free(pi);
	free(lo);
	return GA_OK;
}

/* The value of the pinned jobs and their terminal charge (a plan's constants). */
static double
bound_constants(const ga_problem *p, const ga_plan *pinned)
{
	int			T = p->params.n_steps;
	double		value = -ga_terminal_cost(p, pinned);

	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];

		if (!job->pinned)
			continue;
		value += ga_job_tail_value(p, job, job->pinned_size, job->pinned_start, job->pinned_end);
		for (int t = job->pinned_start > 0 ? job->pinned_start : 0; t < job->pinned_end && t < T; t++)
			value += job->priority * job->pinned_size * p->decay[t];
	}
	return value;
}

static ga_status
pool_bound(const ga_problem *p, const ga_plan *pinned, bool *freed, int q,
		   double t_end, long max_size, double *bound, ga_error *err)
{
	const ga_pool *pool = &p->pools[q];
	ga_neighbourhood nb = {q, pool->first_gpu, pool->n_gpus, 0, p->params.n_steps, freed};
	block_model m = {0};
	bound_run	run = {0};
	ga_status	rc;

	for (int j = 0; j < p->n_jobs; j++)
		freed[j] = !p->jobs[j].pinned && p->jobs[j].pool == q;
	if (ga_block_size_estimate(p, &nb) > max_size)
		return ga_error_set(err, GA_EINVAL, "the pool's block model would exceed %ld nonzeros",
							max_size);
	m.p = p;
	m.nb = &nb;
	m.plan = pinned;
	m.T = p->params.n_steps;
	m.t1 = m.T;
	m.g0 = pool->first_gpu;
	m.g1 = pool->first_gpu + pool->n_gpus;
	m.relaxed = true;
	rc = block_model_build(&m, err);
	if (rc == GA_OK && m.n_vars == 0)
		*bound = 0;
	else if (rc == GA_OK)
	{
		run.m = &m;
		run.t_end = t_end;
		rc = ga_glpk_solve_guarded(&run.lp, run.message, sizeof(run.message), bound_body, &run,
								   "the block model", err);
		if (rc == GA_OK)
			*bound = run.bound;
	}
	block_model_free(&m);
	return rc;
}

ga_status
ga_block_bound(const ga_problem *p, double time_limit_ms, long max_size,
			   double *bound, ga_error *err)
{
	double		t_end = ga_now_ms() + time_limit_ms;
	ga_plan    *pinned = ga_plan_create(p);
	bool	   *freed = calloc(p->n_jobs > 0 ? p->n_jobs : 1, sizeof(bool));
	ga_status	rc = GA_OK;
	double		sum = 0;

	*bound = HUGE_VAL;
	if (pinned == NULL || freed == NULL)
		rc = ga_error_set(err, GA_ENOMEM, "out of memory in the block model");
	for (int j = 0; rc == GA_OK && j < p->n_jobs; j++)
	{
		if (p->jobs[j].n_alt_pools > 0)
			rc = ga_error_set(err, GA_EINVAL, "job \"%s\" names several pools", p->jobs[j].name);
		else if (p->jobs[j].pinned)
			ga_plan_place_job(pinned, p, j, p->jobs[j].pinned_start,
							  p->jobs[j].pinned_first_gpu, p->jobs[j].pinned_size);
	}
	for (int q = 0; rc == GA_OK && q < p->n_pools; q++)
	{
		double		b = HUGE_VAL;
		double		left = (t_end - ga_now_ms()) / (p->n_pools - q);

		rc = pool_bound(p, pinned, freed, q, ga_now_ms() + left, max_size, &b, err);
		sum += b;
	}
	if (rc == GA_OK)
	{
		double		constants = bound_constants(p, pinned);

		*bound = isfinite(constants) ? sum + constants : HUGE_VAL;
	}
	ga_plan_destroy(pinned);
	free(freed);
	return rc;
}
