/*
 * block_bound.c — an upper bound on every legal plan from the block-level
 * model over whole pools (ga_block_bound, block_model.h).
 *
 * Relaxed to the rules of a legal plan (no protect rule, windows over the
 * estimated run, tenant limits but not the quota admission), every job
 * that is not pinned free, every service cell a variable, each pool's
 * model holds every legal plan's part in that pool, and the plan's
 * objective is the model's plus constants: the pinned jobs' value and the
 * terminal charge of the pinned jobs alone (the model's w is the charge
 * on top of it).  Pools share nothing in the objective, so the sum of the
 * pools' bounds plus the constants bounds every legal plan.  As in
 * milp_model.c the LP value is taken as a Lagrangian value of the duals,
 * valid whatever the simplex's tolerances or an early stop.
 *
 * With the protect rule the model also keeps the rule's two tiers for the
 * jobs it holds to every service of the pool (block_model.c,
 * protect_tiers): every plan the planners make keeps at least that, so
 * the bound covers their plans, not every legal one; the gap between the
 * two bounds is what the rule may cost.  With branching, GLPK's branch and
 * bound continues from the LP within the time left, and its best node
 * bound (or the optimum it proves) replaces the LP's when smaller: that
 * one rests on GLPK's tolerances, as any branch and bound's does.
 */
#include "solve/block_model_internal.h"
#include "solve/glpk_guard.h"
#include "solve/milp_internal.h"
#include "model/terminal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bound_run
{
	block_model *m;
	double		t_end;
	bool		branch;
	double		bound;
	double		tree_bound;		/* best active node's, HUGE_VAL before */
	glp_prob   *lp;
	char		message[160];
} bound_run;

/* The search's bound so far (milp_tree_bound): the lowest seen stays valid. */
static void
on_bound_tree(glp_tree *tree, void *info)
{
	bound_run  *run = info;
	double		bound;

	if (milp_tree_bound(tree, &bound))
		run->tree_bound = fmin(run->tree_bound, bound);
}

/* Branch and bound from the solved LP; the bound it proves, or HUGE_VAL. */
static double
branch_bound(bound_run *run)
{
	glp_iocp	iocp;
	int			status;

	run->tree_bound = HUGE_VAL;
	block_model_iocp(&iocp, run->t_end, on_bound_tree, run);
	iocp.mir_cuts = GLP_ON;
	status = glp_intopt(run->lp, &iocp);
	if (status == 0 && glp_mip_status(run->lp) == GLP_OPT)
		return glp_mip_obj_val(run->lp);
	return run->tree_bound;
}

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
	if (run->branch && glp_get_status(run->lp) == GLP_OPT && block_model_ms_left(run->t_end) > 1)
	{
		double		proved = branch_bound(run);

		/* a relative 1e-9 for the tolerances a node's LP is solved to */
		if (proved < HUGE_VAL)
			run->bound = fmin(run->bound, proved + 1e-9 * (fabs(proved) + 1));
	}
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


/*
 * The whole-pool model of pool q over the pinned plan, relaxed for a bound,
 * when its size is within max_size and what time_ms can set up.
 */
static ga_status
build_pool_model(block_model *m, ga_neighbourhood *nb, const ga_problem *p,
				 const ga_plan *pinned, bool *freed, int q, bool protect_rule,
				 long max_size, double time_ms, ga_error *err)
{
	const ga_pool *pool = &p->pools[q];
	long		size;
	ga_status	rc;

	*nb = (ga_neighbourhood) {q, pool->first_gpu, pool->n_gpus, 0, p->params.n_steps, freed};
	for (int j = 0; j < p->n_jobs; j++)
		freed[j] = !p->jobs[j].pinned && p->jobs[j].pool == q;
	size = ga_block_size_estimate(p, nb);
	if (size > max_size)
		return ga_error_set(err, GA_EINVAL, "the pool's block model would exceed %ld nonzeros",
							max_size);
	if (!block_model_fits(size, time_ms))
		return ga_error_set(err, GA_EINVAL,
							"the pool's block model (%ld nonzeros) cannot be set up in the %.1f ms left for it",
							size, time_ms);
	m->p = p;
	m->nb = nb;
	m->plan = pinned;
	m->T = p->params.n_steps;
	m->t1 = m->T;
	m->g0 = pool->first_gpu;
	m->g1 = pool->first_gpu + pool->n_gpus;
	m->relaxed = true;
	m->protect_bound = protect_rule;
	rc = block_model_build(m, err);
	/* the estimate may fall short of the model built: its size decides */
	if (rc == GA_OK && !block_model_fits(m->nnz, time_ms))
		rc = ga_error_set(err, GA_EINVAL,
						  "the pool's block model (%d nonzeros) cannot be set up in the %.1f ms left for it",
						  m->nnz, time_ms);
	return rc;
}

static ga_status
pool_bound(const ga_problem *p, const ga_plan *pinned, bool *freed, int q,
		   double t_end, const ga_block_bound_spec *spec, double *bound, ga_error *err)
{
	ga_neighbourhood nb;
	block_model m = {0};
	bound_run	run = {0};
	ga_status	rc;

	rc = build_pool_model(&m, &nb, p, pinned, freed, q, spec->protect_rule, spec->max_size,
						  t_end - ga_now_ms(), err);
	if (rc == GA_OK && m.n_vars == 0)
		*bound = 0;
	else if (rc == GA_OK)
	{
		run.m = &m;
		run.t_end = t_end;
		run.branch = spec->branch;
		rc = ga_glpk_solve_guarded(&run.lp, run.message, sizeof(run.message), bound_body, &run,
								   "the block model", err);
		if (rc == GA_OK)
			*bound = run.bound;
	}
	block_model_free(&m);
	return rc;
}

/* The plan of the pinned jobs alone; GA_EINVAL for a job naming several pools. */
static ga_status
pinned_plan(const ga_problem *p, ga_plan **pinned, ga_error *err)
{
	*pinned = ga_plan_create(p);
	if (*pinned == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory in the block model");
	for (int j = 0; j < p->n_jobs; j++)
	{
		if (p->jobs[j].n_alt_pools > 0)
			return ga_error_set(err, GA_EINVAL, "job \"%s\" names several pools", p->jobs[j].name);
		if (p->jobs[j].pinned)
			ga_plan_place_job(*pinned, p, j, p->jobs[j].pinned_start,
							  p->jobs[j].pinned_first_gpu, p->jobs[j].pinned_size);
	}
	return GA_OK;
}

ga_status
ga_block_bound_with(const ga_problem *p, const ga_block_bound_spec *spec, double *bound,
					ga_error *err)
{
	double		t_end = ga_now_ms() + spec->time_limit_ms;
	ga_plan    *pinned = NULL;
	bool	   *freed = calloc(p->n_jobs > 0 ? p->n_jobs : 1, sizeof(bool));
	ga_status	rc = freed == NULL ? ga_error_set(err, GA_ENOMEM, "out of memory in the block model")
		: pinned_plan(p, &pinned, err);
	double		sum = 0;

	*bound = HUGE_VAL;
	for (int q = 0; rc == GA_OK && q < p->n_pools; q++)
	{
		double		b = HUGE_VAL;
		double		left = (t_end - ga_now_ms()) / (p->n_pools - q);

		rc = pool_bound(p, pinned, freed, q, ga_now_ms() + left, spec, &b, err);
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

ga_status
ga_block_bound(const ga_problem *p, double time_limit_ms, long max_size,
			   double *bound, ga_error *err)
{
	ga_block_bound_spec spec = {.time_limit_ms = time_limit_ms, .max_size = max_size};

	return ga_block_bound_with(p, &spec, bound, err);
}

/* ----------------------------------------------------------------------
 * The models written out for an independent solver.
 * ----------------------------------------------------------------------
 */
typedef struct write_run
{
	const block_model *m;
	const char *path;
	glp_prob   *lp;
	bool		write_failed;
} write_run;

static ga_status
write_body(void *arg)
{
	write_run  *run = arg;

	run->lp = glp_create_prob();
	block_model_load(run->m, run->lp);
	run->write_failed = !milp_write_negated_mps(run->lp, run->path);
	return GA_OK;
}

static ga_status
write_pool(const block_model *m, const char *path, ga_error *err)
{
	write_run	run = {m, path, NULL, false};
	char		message[160] = "";
	ga_status	rc = ga_glpk_solve_guarded(&run.lp, message, sizeof(message), write_body, &run,
										   "the block model", err);

	if (rc == GA_OK && run.write_failed)
		rc = ga_error_set(err, GA_EINVAL, "path: cannot write the model to %s", path);
	return rc;
}

ga_status
ga_block_write_mps(const ga_problem *p, bool protect_rule, const char *prefix,
				   double *constant, ga_error *err)
{
	ga_plan    *pinned = NULL;
	bool	   *freed = calloc(p->n_jobs > 0 ? p->n_jobs : 1, sizeof(bool));
	ga_status	rc = freed == NULL ? ga_error_set(err, GA_ENOMEM, "out of memory in the block model")
		: pinned_plan(p, &pinned, err);

	for (int q = 0; rc == GA_OK && q < p->n_pools; q++)
	{
		char		path[1200];
		ga_neighbourhood nb;
		block_model m = {0};

		snprintf(path, sizeof(path), "%s-pool%d.mps", prefix, q);
		rc = build_pool_model(&m, &nb, p, pinned, freed, q, protect_rule, LONG_MAX,
							  HUGE_VAL, err);
		if (rc == GA_OK)
			rc = write_pool(&m, path, err);
		block_model_free(&m);
	}
	if (rc == GA_OK)
		*constant = bound_constants(p, pinned);
	ga_plan_destroy(pinned);
	free(freed);
	return rc;
}
