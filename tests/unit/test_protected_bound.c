/*
 * test_protected_bound.c — the bound on the planners' plans (the block-level
 * model with the protect rule, ga_block_bound_with, and the aggregate model
 * with protect chains, ga_milp_protected_bound): it covers
 * every plan fast and full make, never exceeds the bound on every legal
 * plan, branch and bound only tightens it, a legal plan that trades a
 * service's demand for a job the rule holds off may exceed it, every plan
 * the planners make is a point of every model (legal and protected), and
 * the models written for an independent solver carry the same bound.
 */
#include "unit.h"
#include "problem_fixture.h"
#include "mps_fixture.h"
#include "solve/block_model_internal.h"
#include "solve/milp.h"
#include "solve/milp_internal.h"
#include "model/validate.h"
#include "sim/generate.h"

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static double
bound_of(const ga_problem *p, bool protect_rule, bool branch)
{
	ga_block_bound_spec spec = {.time_limit_ms = 2000, .max_size = 4000000,
	.protect_rule = protect_rule, .branch = branch};
	double		bound = NAN;
	ga_error	err;

	CHECK_MSG(ga_block_bound_with(p, &spec, &bound, &err) == GA_OK, "bound: %s", err.message);
	return bound;
}

static bool
within(double lower, double upper)
{
	return lower <= upper + 1e-6 * (1 + fabs(upper));
}

/* A generated problem of the property tests below (seed 1..16). */
static ga_problem *
generated(uint64_t seed)
{
	ga_generate_spec spec;
	ga_problem *p;
	ga_error	err;

	ga_generate_defaults(&spec, seed % 3 == 0 ? 16 : 8, 4 + (int) (seed % 7), 24, seed);
	spec.protect_share = seed % 2 ? 0.3 : 0;
	spec.overrun_margin = seed % 3 == 1 ? 0.6 : 0;
	spec.budget_share = 0.5;
	spec.two_pools = seed % 4 == 0;
	p = ga_generate(&spec, &err);
	CHECK_MSG(p != NULL, "generate: %s", p ? "" : err.message);
	return p;
}

/*
 * Generated problems with services, pins and drained GPUs, protect curves
 * above the demand on half of them and an overrun margin on a third: the
 * protected LP bound is at most the legal one (and below it somewhere),
 * branch and bound at most the LP, and both planners' plans at most that.
 */
TEST(protected_bound_covers_the_planners_plans)
{
	int			checked = 0;
	int			tighter = 0;
	int			tighter_aggregate = 0;

	for (uint64_t seed = 1; seed <= 16; seed++)
	{
		ga_solve_options opts = {.time_limit_ms = 500};
		ga_plan    *fast = NULL;
		ga_plan    *full = NULL;
		ga_problem *p = generated(seed);
		ga_error	err;

		if (p == NULL)
			continue;
		if (ga_solve_fast(p, &opts, &fast, &err) == GA_OK &&
			ga_solve_full(p, &opts, &full, &err) == GA_OK)
		{
			double		legal = bound_of(p, false, false);
			double		lp = bound_of(p, true, false);
			double		branched = bound_of(p, true, true);
			double		best = fmax(fast->objective, full->objective);
			ga_solve_options bound_opts = {.time_limit_ms = 5000};
			double		aggregate_legal = NAN;
			double		aggregate = NAN;

			CHECK_INT_EQ(ga_solve_bound(p, &bound_opts, &aggregate_legal, &err), GA_OK);
			CHECK_INT_EQ(ga_milp_protected_bound(p, &bound_opts, &aggregate, &err), GA_OK);
			CHECK_MSG(within(aggregate, aggregate_legal), "seed %lu: protected %.9g above legal %.9g",
					  (unsigned long) seed, aggregate, aggregate_legal);
			CHECK_MSG(within(best, aggregate), "seed %lu: a plan worth %.9g above the protected LP bound %.9g",
					  (unsigned long) seed, best, aggregate);
			tighter_aggregate += aggregate < aggregate_legal - 1e-6 * (1 + fabs(aggregate_legal));

			CHECK_MSG(within(lp, legal), "seed %lu: protected %.9g above legal %.9g",
					  (unsigned long) seed, lp, legal);
			CHECK_MSG(within(branched, lp), "seed %lu: branch and bound %.9g above its LP %.9g",
					  (unsigned long) seed, branched, lp);
			CHECK_MSG(within(best, branched), "seed %lu: a plan worth %.9g above the protected bound %.9g",
					  (unsigned long) seed, best, branched);
			tighter += lp < legal - 1e-6 * (1 + fabs(legal));
			checked++;
		}
		ga_plan_destroy(fast);
		ga_plan_destroy(full);
		ga_problem_destroy(p);
	}
	CHECK_INT_EQ(checked, 16);
	CHECK(tighter >= 1);
	CHECK(tighter_aggregate >= 1);
}

/*
 * Every job of pool q the plan places (pinned jobs aside) at a start of
 * the model's: x sets exactly one of its variables.  Without this a plan
 * whose start the model leaves out would read as a point with that job
 * waiting.
 */
static bool
every_start_is_a_variable(const ga_problem *p, const ga_plan *plan, int q,
						  const block_model *m, const double *x)
{
	for (int j = 0; j < p->n_jobs; j++)
	{
		double		set = 0;

		if (p->jobs[j].pinned || plan->job_size[j] <= 0 ||
			ga_pool_of_gpu(p, plan->job_first_gpu[j]) != q)
			continue;
		for (int c = 1; c <= m->n_vars; c++)
			if (m->var[c].kind == 'x' && m->var[c].a == j)
				set += x[c];
		if (fabs(set - 1) > 1e-9)
			return false;
	}
	return true;
}

/*
 * Whether plan is a point of pool q's whole-pool model (relaxed, for the
 * bound).  The model is built over the pinned jobs alone, as the bound
 * builds it: built over the plan, its protect rule's room would grow to
 * what the plan's jobs hold.
 */
static bool
pool_model_holds(const ga_problem *p, const ga_plan *plan, int q, bool protect_rule)
{
	bool	   *freed = calloc(p->n_jobs > 0 ? p->n_jobs : 1, sizeof(bool));
	ga_neighbourhood nb = {q, p->pools[q].first_gpu, p->pools[q].n_gpus, 0, p->params.n_steps, freed};
	block_model m = {0};
	ga_plan    *pinned = ga_plan_create(p);
	double	   *x = NULL;
	bool		holds = false;
	ga_error	err;

	for (int j = 0; j < p->n_jobs; j++)
	{
		freed[j] = !p->jobs[j].pinned && p->jobs[j].pool == q;
		if (p->jobs[j].pinned)
			ga_plan_place_job(pinned, p, j, p->jobs[j].pinned_start,
							  p->jobs[j].pinned_first_gpu, p->jobs[j].pinned_size);
	}
	m.p = p;
	m.nb = &nb;
	m.plan = pinned;
	m.T = p->params.n_steps;
	m.t1 = m.T;
	m.g0 = nb.first_gpu;
	m.g1 = nb.first_gpu + nb.n_gpus;
	m.relaxed = true;
	m.protect_bound = protect_rule;
	if (block_model_build(&m, &err) == GA_OK)
	{
		m.plan = plan;
		x = calloc((size_t) m.n_vars + 1, sizeof(double));
		holds = x != NULL && block_model_point_of_plan(&m, x) &&
			every_start_is_a_variable(p, plan, q, &m, x);
	}
	free(x);
	block_model_free(&m);
	ga_plan_destroy(pinned);
	free(freed);
	return holds;
}

/* Whether plan is a point of the aggregate model with protect chains. */
static bool
protected_aggregate_holds(const ga_problem *p, const ga_plan *plan)
{
	milp_model	m;
	ga_error	err;
	double	   *x = NULL;
	bool		holds = false;

	if (milp_model_build_protected(&m, p, &err) == GA_OK)
	{
		x = calloc((size_t) m.n_cols + 1, sizeof(double));
		holds = x != NULL && milp_plan_to_columns(&m, plan, x);
	}
	free(x);
	milp_model_free(&m);
	return holds;
}

/*
 * The bounds rest on every plan being a point of each model: fast's and
 * full's plans of the generated problems (half the services with a churn
 * budget, some with two pools) are points of each pool's block-level
 * model, legal and protected, and of the aggregate model with protect
 * chains.
 */
TEST(bound_models_hold_every_plan_the_planners_make)
{
	int			checked = 0;

	for (uint64_t seed = 1; seed <= 16; seed++)
	{
		ga_solve_options opts = {.time_limit_ms = 500};
		ga_plan    *plans[2] = {NULL, NULL};
		ga_problem *p = generated(seed);
		ga_error	err;

		if (p == NULL)
			continue;
		CHECK_INT_EQ(ga_solve_fast(p, &opts, &plans[0], &err), GA_OK);
		CHECK_INT_EQ(ga_solve_full(p, &opts, &plans[1], &err), GA_OK);
		for (int k = 0; k < 2 && plans[k] != NULL; k++)
			for (int q = 0; q < p->n_pools; q++)
				for (int protect_rule = 0; protect_rule < 2; protect_rule++)
				{
					CHECK_MSG(pool_model_holds(p, plans[k], q, protect_rule),
							  "seed %lu: the %s plan is not a point of pool %d's %s model",
							  (unsigned long) seed, k ? "full" : "fast", q,
							  protect_rule ? "protected" : "legal");
					checked++;
				}
		for (int k = 0; k < 2 && plans[k] != NULL; k++)
			CHECK_MSG(protected_aggregate_holds(p, plans[k]),
					  "seed %lu: the %s plan is not a point of the protected aggregate model",
					  (unsigned long) seed, k ? "full" : "fast");
		ga_plan_destroy(plans[0]);
		ga_plan_destroy(plans[1]);
		ga_problem_destroy(p);
	}
	CHECK(checked >= 64);
}

/*
 * Four GPUs over 24 steps (penalty 8, no decay to speak of), one job of
 * priority 4 on exactly `gpus` GPUs for `work` GPU-steps from step 0, and
 * a service of priority 1 needing `demand` GPUs from step `from` on.
 */
static ga_problem *
job_beside_a_service(double overrun_margin, int gpus, double work, int from, int demand)
{
	ga_params	params = {.n_steps = 24, .step_minutes = 30, .penalty = 8, .half_life_hours = 1e6,
	.overrun_margin = overrun_margin};
	ga_problem *p = ga_problem_create(1, 4, 1, 1, &params);
	ga_error	err;

	snprintf(p->pools[0].name, GA_NAME_LEN, "p");
	p->pools[0].n_gpus = 4;
	snprintf(p->jobs[0].name, GA_NAME_LEN, "job");
	tp_set_job(p, 0, 4, gpus, gpus, work, 0, -1);
	snprintf(p->services[0].name, GA_NAME_LEN, "svc");
	p->services[0].priority = 1;
	p->services[0].churn_limit = 4;
	p->services[0].max_gpus = 4;
	for (int t = from; t < 24; t++)
		p->services[0].demand[t] = demand;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	return p;
}

/*
 * A service needing one of the four GPUs at every step and the job on all
 * four for 10 steps.  Running
 * it is legal and worth 4 x 4 x 10 against a shortfall of 8 x 10, so the
 * legal optimum runs it; the protect rule holds the job off the service's
 * GPU (4 is not above 8 x 1), so no planner does, and the protected bound
 * stays below that legal plan while the legal bound covers it.
 */
TEST(protected_bound_leaves_out_a_legal_trade_of_the_service)
{
	ga_problem *p = job_beside_a_service(0, 4, 40, 0, 1);
	ga_plan    *trade;
	ga_plan    *fast = NULL;
	ga_solve_options opts = {0};
	ga_error	err;
	double		legal;
	double		protected_bound;

	trade = ga_plan_create(p);
	ga_plan_place_job(trade, p, 0, 0, 0, 4);
	for (int t = 10; t < 24; t++)
		ga_plan_set(trade, 0, t, ga_service_workload(p, 0));
	CHECK_MSG(ga_validate(p, trade, &err) == GA_OK, "the trade is legal: %s", err.message);
	trade->objective = ga_plan_objective(p, trade);

	legal = bound_of(p, false, false);
	protected_bound = bound_of(p, true, true);
	CHECK_INT_EQ(ga_solve_fast(p, &opts, &fast, &err), GA_OK);
	CHECK(trade->objective > 0);
	CHECK(within(trade->objective, legal));
	CHECK_MSG(protected_bound < trade->objective - 1,
			  "protected bound %.6g does not leave out the trade worth %.6g",
			  protected_bound, trade->objective);
	{
		ga_solve_options bound_opts = {.time_limit_ms = 5000};
		double		aggregate = NAN;

		CHECK_INT_EQ(ga_milp_protected_bound(p, &bound_opts, &aggregate, &err), GA_OK);
		CHECK_MSG(aggregate < trade->objective - 1,
				  "protected LP bound %.6g does not leave out the trade worth %.6g",
				  aggregate, trade->objective);
		CHECK(fast == NULL || within(fast->objective, aggregate));
	}
	{
		/* the aggregate model alone, as written out, leaves it out too */
		char		path[64];
		double		constant = NAN;
		double		optimum;

		snprintf(path, sizeof(path), "/tmp/gpualloc-trade-%ld.mps", (long) getpid());
		CHECK_INT_EQ(ga_milp_write_mps(p, true, path, &constant, &err), GA_OK);
		optimum = constant - tp_mps_minimum(path, true, 5000);
		unlink(path);
		CHECK_MSG(optimum < trade->objective - 1,
				  "protected aggregate optimum %.6g does not leave out the trade worth %.6g",
				  optimum, trade->objective);
	}
	if (fast != NULL)
	{
		CHECK(fast->job_size[0] <= 0);
		CHECK(within(fast->objective, protected_bound));
	}
	ga_plan_destroy(fast);
	ga_plan_destroy(trade);
	ga_problem_destroy(p);
}

/*
 * The job on two GPUs for 8 steps, the service needing three GPUs from
 * step 10, and an overrun margin of 0.6 (13 steps lengthened).  Started at
 * once the job ends its estimated run before the rise, so the first tier
 * alone lets it run, but its lengthened run reaches steps where the demand
 * leaves one GPU, and no later start fits either: the planners never start
 * it, and the bound with both tiers proves their plan optimal.  Without
 * the margin the job runs before the rise, and the bound is higher by its
 * value (4 x 2 GPUs x 8 steps).
 */
TEST(protected_bound_keeps_the_overrun_tier)
{
	ga_problem *p = job_beside_a_service(0.6, 2, 16, 10, 3);
	ga_problem *no_margin = job_beside_a_service(0, 2, 16, 10, 3);
	ga_plan    *plans[2] = {NULL, NULL};
	ga_solve_options opts = {.time_limit_ms = 1000};
	ga_error	err;
	double		both = bound_of(p, true, true);

	CHECK_INT_EQ(ga_protect_steps(p, &p->jobs[0], 8), 13);
	CHECK_INT_EQ(ga_solve_fast(p, &opts, &plans[0], &err), GA_OK);
	CHECK_INT_EQ(ga_solve_full(p, &opts, &plans[1], &err), GA_OK);
	for (int k = 0; k < 2; k++)
		if (plans[k] != NULL)
		{
			CHECK(plans[k]->job_size[0] <= 0);
			CHECK_MSG(within(plans[k]->objective, both), "a plan worth %.9g above the bound %.9g",
					  plans[k]->objective, both);
			CHECK_MSG(within(both, plans[k]->objective), "the bound %.9g above the optimum %.9g",
					  both, plans[k]->objective);
			CHECK(pool_model_holds(p, plans[k], 0, true));
		}
	CHECK_NEAR(bound_of(no_margin, true, true), both + 4 * 2 * 8, 0.01);
	ga_plan_destroy(plans[0]);
	ga_plan_destroy(plans[1]);
	ga_problem_destroy(p);
	ga_problem_destroy(no_margin);
}

/* Whether the file at path holds text. */
static bool
file_holds(const char *path, const char *text)
{
	FILE	   *f = fopen(path, "r");
	char		line[4096];
	bool		found = false;

	while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, text) != NULL;
	if (f != NULL)
		fclose(f);
	return found;
}

/*
 * A service with nothing before the first step leaves its churn there a
 * column of no coefficient.  GLPK would write it as "$ empty column", a
 * line other solvers (CBC) refuse; the models written out leave it out,
 * and solved back they still give the optimum of the model.
 */
TEST(models_written_out_have_no_empty_column)
{
	ga_problem *p = job_beside_a_service(0, 2, 16, 10, 3);
	char		path[64];
	char		pool[80];
	double		constant = NAN;
	ga_error	err;

	snprintf(path, sizeof(path), "/tmp/gpualloc-empty-%ld", (long) getpid());
	for (int protect_rule = 0; protect_rule < 2; protect_rule++)
	{
		ga_solve_options bound_opts = {.time_limit_ms = 5000};
		double		lp_bound = NAN;

		CHECK_INT_EQ(ga_milp_write_mps(p, protect_rule, path, &constant, &err), GA_OK);
		CHECK(!file_holds(path, "$"));
		CHECK_INT_EQ(protect_rule ? ga_milp_protected_bound(p, &bound_opts, &lp_bound, &err)
					 : ga_solve_bound(p, &bound_opts, &lp_bound, &err), GA_OK);
		CHECK(within(constant - tp_mps_minimum(path, true, 5000), lp_bound));
		unlink(path);
	}
	CHECK_INT_EQ(ga_block_write_mps(p, true, path, &constant, &err), GA_OK);
	snprintf(pool, sizeof(pool), "%s-pool0.mps", path);
	CHECK(!file_holds(pool, "$"));
	CHECK_NEAR(constant - tp_mps_minimum(pool, false, 5000), bound_of(p, true, false), 1e-4);
	unlink(pool);
	ga_problem_destroy(p);
}

/*
 * Each pool's protected model, written out and solved back as an LP, gives
 * the protected LP bound: the constant minus the sum of the files' minima
 * (a two-pool problem, so the files are per pool and the sum matters).
 */
TEST(protected_models_written_out_carry_the_same_bound)
{
	ga_generate_spec spec;
	ga_problem *p;
	ga_error	err;
	char		prefix[64];
	double		constant = NAN;
	double		sum = 0;

	ga_generate_defaults(&spec, 16, 8, 24, 5);
	spec.two_pools = true;
	p = ga_generate(&spec, &err);
	CHECK(p != NULL && p->n_pools == 2);
	if (p == NULL)
		return;
	snprintf(prefix, sizeof(prefix), "/tmp/gpualloc-protected-%ld", (long) getpid());
	CHECK_INT_EQ(ga_block_write_mps(p, true, prefix, &constant, &err), GA_OK);
	for (int q = 0; q < p->n_pools; q++)
	{
		char		path[96];

		snprintf(path, sizeof(path), "%s-pool%d.mps", prefix, q);
		sum += tp_mps_minimum(path, false, 60000);
		unlink(path);
	}
	CHECK_NEAR(constant - sum, bound_of(p, true, false), 1e-4 * (1 + fabs(constant - sum)));
	ga_problem_destroy(p);
}

/*
 * The aggregate model with protect chains, written out and solved by GLPK
 * as a MILP: its optimum (the constant less the file's minimum) covers
 * fast's plan and stays within the legal model's.
 */
TEST(protected_aggregate_written_out_covers_the_planners_plans)
{
	int			solved = 0;

	for (uint64_t seed = 1; seed <= 8; seed++)
	{
		ga_problem *p = generated(seed);
		ga_solve_options opts = {0};
		ga_plan    *fast = NULL;
		ga_error	err;
		char		path[64];
		double		protected_constant = NAN;
		double		legal_constant = NAN;
		double		protected_optimum;
		double		legal_optimum;

		if (p == NULL)
			continue;
		snprintf(path, sizeof(path), "/tmp/gpualloc-protected-%ld.mps", (long) getpid());
		CHECK_INT_EQ(ga_solve_fast(p, &opts, &fast, &err), GA_OK);
		CHECK_INT_EQ(ga_milp_write_mps(p, true, path, &protected_constant, &err), GA_OK);
		protected_optimum = protected_constant - tp_mps_minimum(path, true, 5000);
		CHECK_INT_EQ(ga_milp_write_mps(p, false, path, &legal_constant, &err), GA_OK);
		legal_optimum = legal_constant - tp_mps_minimum(path, true, 5000);
		unlink(path);
		if (fast != NULL && isfinite(protected_optimum) && isfinite(legal_optimum))
		{
			CHECK_MSG(within(fast->objective, protected_optimum),
					  "seed %lu: fast's plan %.9g above the protected model's optimum %.9g",
					  (unsigned long) seed, fast->objective, protected_optimum);
			CHECK_MSG(within(protected_optimum, legal_optimum),
					  "seed %lu: protected optimum %.9g above the legal one %.9g",
					  (unsigned long) seed, protected_optimum, legal_optimum);
			solved++;
		}
		ga_plan_destroy(fast);
		ga_problem_destroy(p);
	}
	CHECK(solved >= 4);
}
