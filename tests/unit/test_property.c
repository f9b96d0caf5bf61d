/*
 * test_property.c — properties of the fast mode over many generated
 * problems of varied shape: every plan is legal, pinned jobs stay put,
 * churn stays within its limits, the same input gives the same plan, the
 * reported objective is the grid's, and no job left out would still fit
 * where it raises the objective.
 *
 * The problems are small (up to 64 GPUs, 25 jobs) so the whole sweep runs
 * in a few seconds; a few have more than 64 steps so step bitmaps of more
 * than one word are exercised too.
 */
#include "unit.h"
#include "sim/generate.h"
#include "solve/heuristic.h"
#include "model/protect_horizon.h"
#include "model/validate.h"

#include <math.h>
#include <stdlib.h>

#define N_INSTANCES 240

/* Spec choices come from their own fixed stream (never rand()). */
static uint64_t
next_choice(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static int
choose(uint64_t *state, int lo, int hi)
{
	return lo + (int) (next_choice(state) % (uint64_t) (hi - lo + 1));
}

static double
choose_share(uint64_t *state, double hi)
{
	return hi * choose(state, 0, 100) / 100.0;
}

static void
varied_spec(int i, ga_generate_spec *spec)
{
	uint64_t	state = 1000 + i;
	int			steps = i % 20 == 7 ? choose(&state, 65, 130) : choose(&state, 1, 48);

	ga_generate_defaults(spec, choose(&state, 1, 64), choose(&state, 0, 25),
						 steps, 7919 * (uint64_t) i + 1);
	spec->services = choose(&state, 0, 3);
	spec->pinned_share = choose_share(&state, 0.5);
	spec->deadline_share = choose_share(&state, 0.5);
	spec->release_zero_share = choose_share(&state, 1.0);
	spec->service_share = choose_share(&state, 0.6);
	spec->unusable_share = choose_share(&state, 0.3);
	spec->budget_share = choose_share(&state, 1.0);
	spec->held_known_share = choose_share(&state, 1.0);
	spec->max_job_gpus = 1 << choose(&state, 0, 5);
	/* a third of the instances with a protect curve, headroom and overrun margin */
	if (i % 3 == 1)
	{
		spec->protect_share = choose_share(&state, 1.0);
		spec->headroom = choose_share(&state, 1.0);
		spec->overrun_margin = choose_share(&state, 1.0);
	}
}

/*
 * Half the instances with an overrun margin also lengthen runs by their
 * estimates' spreads: most jobs get one (p90 1 to 3 times the p50), the
 * rest keep the margin.
 */
static void
add_duration_spreads(int i, ga_problem *p)
{
	uint64_t	state = 5000 + i;

	if (i % 6 != 1)
		return;
	p->params.overrun_spread = choose_share(&state, 1.5);
	for (int j = 0; j < p->n_jobs; j++)
		p->jobs[j].duration_p90_ratio = choose(&state, 0, 3) == 0 ? 0 : 1 + choose_share(&state, 2.0);
}

static bool
block_fits(const ga_problem *p, const ga_plan *plan, int first, int size,
		   int from, int to)
{
	for (int g = first; g < first + size; g++)
	{
		if (!p->gpu_usable[g])
			return false;
		for (int t = from; t < to; t++)
			if (ga_plan_get(plan, g, t) != GA_IDLE)
				return false;
	}
	return true;
}

/* Start and estimated steps of a scheduled job's run (a pinned job's from its pin). */
static void
job_run(const ga_problem *p, const ga_plan *plan, int j, int *start, int *steps)
{
	const ga_job *job = &p->jobs[j];

	*start = job->pinned ? job->pinned_start : plan->job_start[j];
	*steps = job->pinned ? job->pinned_end - job->pinned_start :
		ga_job_duration(job, ga_pool_of_gpu(p, plan->job_first_gpu[j]), plan->job_size[j]);
}

/* GPU g at step t lies in a running job's lengthened run past its estimate. */
static bool
under_running_tail(const ga_problem *p, int g, int t)
{
	for (int k = 0; k < p->n_jobs; k++)
	{
		const ga_job *job = &p->jobs[k];

		if (job->pinned && g >= job->pinned_first_gpu &&
			g < job->pinned_first_gpu + job->pinned_size && t >= job->pinned_end &&
			t < job->pinned_start + ga_protect_steps(p, job, job->pinned_end - job->pinned_start))
			return true;
	}
	return false;
}

/*
 * Batch GPUs of a pool at step t on usable GPUs for one tier of the protect
 * rule (ga_protect_room): every scheduled job over its estimated run, or
 * over its run lengthened by the overrun margin, a job that is not pinned
 * not counting the GPUs of its block still under a running job's
 * lengthened run (they count once, for the running job).
 */
static int
batch_at(const ga_problem *p, const ga_plan *plan, int pool, int t,
		 bool lengthened)
{
	int			n = 0;

	for (int j = 0; j < p->n_jobs; j++)
	{
		int			start;
		int			steps;

		if (p->jobs[j].pool != pool || plan->job_size[j] <= 0)
			continue;
		job_run(p, plan, j, &start, &steps);
		if (lengthened)
			steps = ga_protect_steps(p, &p->jobs[j], steps);
		if (t < start || t >= start + steps)
			continue;
		for (int g = plan->job_first_gpu[j]; g < plan->job_first_gpu[j] + plan->job_size[j]; g++)
			n += p->gpu_usable[g] &&
				!(lengthened && !p->jobs[j].pinned && under_running_tail(p, g, t));
	}
	return n;
}

/* The protect rule binds only in pools with services. */
static bool
pool_has_service(const ga_problem *p, int pool)
{
	for (int s = 0; s < p->n_services; s++)
		if (p->services[s].pool == pool)
			return true;
	return false;
}

/*
 * The rule past the horizon (model/protect_horizon.h) for job j added on g
 * GPUs from start for d steps: within the room its priority leaves at every
 * step past the horizon its run reaches, with the plan's batch work there.
 */
static bool
past_horizon_allows(const ga_problem *p, const ga_plan *plan, int j, int g,
					int start, int d)
{
	ga_terminal *tm = ga_terminal_create(p);
	int		   *held = tm != NULL ? ga_terminal_plan_held(tm, plan) : NULL;
	int			pool = p->jobs[j].pool;
	int			from;
	int			to;
	bool		ok;

	if (held == NULL)
	{
		ga_terminal_destroy(tm);
		return false;
	}
	ga_terminal_range(tm, start, start + d, &from, &to);
	ok = ga_protect_first_blocked_after(tm, pool, held + (size_t) pool * tm->steps, from, to,
										g, p->jobs[j].priority) >= to;
	free(held);
	ga_terminal_destroy(tm);
	return ok;
}

/*
 * The protect rule lets job j run on the block of g GPUs at `first` from
 * `start` for d steps.
 */
static bool
protect_allows(const ga_problem *p, const ga_plan *plan, int j, int first,
			   int g, int start, int d)
{
	int			T = p->params.n_steps;
	int			pool = p->jobs[j].pool;
	int		   *room = malloc(sizeof(int) * (size_t) p->n_pools * T);
	bool		ok = true;

	for (int tier = 0; tier < 2 && ok && pool_has_service(p, pool); tier++)
	{
		int			steps = tier ? ga_protect_steps(p, &p->jobs[j], d) : d;

		ga_protect_room(p, p->jobs[j].priority, tier, room);
		for (int t = start; t < start + steps && t < T && ok; t++)
		{
			int			add = 0;

			for (int k = first; k < first + g; k++)
				add += !(tier && under_running_tail(p, k, t));
			ok = batch_at(p, plan, pool, t, tier) + add <= room[pool * T + t];
		}
	}
	free(room);
	return ok && past_horizon_allows(p, plan, j, g, start, d);
}

/*
 * The densest job that is not pinned running at step t in a tier, or -1.
 * The room grows with a job's priority (a dense job may displace a
 * service), so the last job placed at a step never had more room than the
 * densest one there.
 */
static int
densest_at(const ga_problem *p, const ga_plan *plan, int pool, int t,
		   bool lengthened)
{
	int			pick = -1;

	for (int j = 0; j < p->n_jobs; j++)
	{
		int			start;
		int			steps;

		if (p->jobs[j].pool != pool || p->jobs[j].pinned || plan->job_size[j] <= 0)
			continue;
		job_run(p, plan, j, &start, &steps);
		if (lengthened)
			steps = ga_protect_steps(p, &p->jobs[j], steps);
		if (t >= start && t < start + steps &&
			(pick < 0 || p->jobs[j].priority > p->jobs[pick].priority))
			pick = j;
	}
	return pick;
}

/*
 * Wherever a job that is not pinned runs (in either tier), batch work stays
 * within the protect rule's room for the densest such job there.
 */
static void
check_protect(int i, const ga_problem *p, const ga_plan *plan)
{
	int			T = p->params.n_steps;
	int		   *room = malloc(sizeof(int) * (size_t) p->n_pools * T);

	for (int q = 0; q < p->n_pools; q++)
		for (int tier = 0; tier < 2 && pool_has_service(p, q); tier++)
			for (int t = 0; t < T; t++)
			{
				int			j = densest_at(p, plan, q, t, tier);

				if (j < 0)
					continue;
				ga_protect_room(p, p->jobs[j].priority, tier, room);
				CHECK_MSG(batch_at(p, plan, q, t, tier) <= room[q * T + t],
						  "instance %d: batch work breaks the protect rule (tier %d) of pool %d at step %d",
						  i, tier, q, t);
			}
	CHECK_MSG(ga_plan_protects_past_horizon(p, plan),
			  "instance %d: a run breaks the protect rule past the horizon", i);
	free(room);
}

/*
 * Whether plan with job j added on [first, first + g) from start has a
 * higher objective: a job left out must not be worth its place.
 */
static bool
placement_pays(const ga_problem *p, const ga_plan *plan, int j, int start,
			   int first, int g)
{
	ga_plan    *with = ga_plan_copy(plan);
	double		before = ga_plan_objective(p, plan);
	bool		pays;

	if (with == NULL)
		return true;
	ga_plan_place_job(with, p, j, start, first, g);
	pays = ga_plan_objective(p, with) > before + 1e-9 * (1 + fabs(before));
	ga_plan_destroy(with);
	return pays;
}

/*
 * A legal placement of job j in the idle cells of plan that the protect
 * rule allows and that raises the objective, by brute force.  Per size only
 * the earliest start is valued: a later one earns less inside the horizon
 * and holds its GPUs further past it, where the objective charges them.
 */
static bool
job_still_fits(const ga_problem *p, const ga_plan *plan, int j)
{
	const ga_job *job = &p->jobs[j];
	const ga_pool *pool = &p->pools[job->pool];
	int			T = p->params.n_steps;

	for (int g = job->gpus_min; g <= job->gpus_max && g <= pool->n_gpus; g *= 2)
	{
		int			d = ga_job_duration(job, job->pool, g);
		bool		fits = false;

		for (int start = job->release_step; start < T && !fits; start++)
		{
			int			to = start + d < T ? start + d : T;

			if (job->deadline_step >= 0 && start + d > job->deadline_step)
				break;
			for (int rel = 0; rel + g <= pool->n_gpus && !fits; rel += g)
				if (block_fits(p, plan, pool->first_gpu + rel, g, start, to) &&
					protect_allows(p, plan, j, pool->first_gpu + rel, g, start, d))
				{
					fits = true;
					if (placement_pays(p, plan, j, start, pool->first_gpu + rel, g))
						return true;
				}
		}
	}
	return false;
}

static void
check_pins_and_churn(int i, const ga_problem *p, const ga_plan *plan)
{
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];

		if (!job->pinned)
			continue;
		CHECK_MSG(plan->job_start[j] == job->pinned_start &&
				  plan->job_first_gpu[j] == job->pinned_first_gpu &&
				  plan->job_size[j] == job->pinned_size,
				  "instance %d: pinned job %d moved", i, j);
	}
	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];

		for (int t = svc->held_known ? 0 : 1; t < p->params.n_steps; t++)
			CHECK_MSG(ga_service_churn(p, plan, s, t) <= svc->churn_limit,
					  "instance %d: service %d churn %d at step %d", i, s,
					  ga_service_churn(p, plan, s, t), t);
		if (svc->churn_budget >= 0)
			CHECK_MSG(ga_service_total_churn(p, plan, s) <= svc->churn_budget,
					  "instance %d: service %d over its churn budget", i, s);
	}
}

static void
check_same_plan(int i, const ga_plan *a, const ga_plan *b)
{
	size_t		cells = (size_t) a->n_gpus * a->n_steps;
	int			nj = a->n_jobs;

	CHECK_MSG(memcmp(a->cell, b->cell, sizeof(int32_t) * cells) == 0,
			  "instance %d: two solves gave different grids", i);
	CHECK_MSG(nj == 0 || (memcmp(a->job_start, b->job_start, sizeof(int) * nj) == 0 &&
						  memcmp(a->job_size, b->job_size, sizeof(int) * nj) == 0 &&
						  memcmp(a->job_first_gpu, b->job_first_gpu, sizeof(int) * nj) == 0),
			  "instance %d: two solves placed jobs differently", i);
	CHECK_MSG(a->objective == b->objective, "instance %d: objectives differ", i);
}

static void
check_instance(int i)
{
	ga_generate_spec spec;
	ga_solve_options opts = {.time_limit_ms = 60000};
	ga_fast_stats stats;
	ga_problem *p;
	ga_plan    *plan = NULL;
	ga_plan    *again = NULL;
	ga_error	err;

	varied_spec(i, &spec);
	p = ga_generate(&spec, &err);
	CHECK_MSG(p != NULL, "instance %d: generator failed: %s", i, err.message);
	if (p == NULL)
		return;
	add_duration_spreads(i, p);
	CHECK_MSG(ga_solve_fast_stats(p, &opts, &plan, &stats, &err) == GA_OK,
			  "instance %d: %s", i, err.message);
	CHECK_MSG(ga_solve_fast(p, &opts, &again, &err) == GA_OK, "instance %d: %s", i, err.message);
	if (plan != NULL && again != NULL)
	{
		CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "instance %d: %s", i, err.message);
		CHECK_MSG(stats.converged, "instance %d: improvement stopped by the clock", i);
		CHECK_NEAR(plan->objective, ga_plan_objective(p, plan), 1e-9);
		CHECK_MSG(plan->objective >= stats.construct_objective - 1e-6 * (1 + fabs(plan->objective)),
				  "instance %d: improvement lost value", i);
		check_pins_and_churn(i, p, plan);
		check_protect(i, p, plan);
		check_same_plan(i, plan, again);
		for (int j = 0; j < p->n_jobs; j++)
			if (plan->job_size[j] <= 0)
				CHECK_MSG(!job_still_fits(p, plan, j),
						  "instance %d: job %d left out but fits and pays", i, j);
	}
	ga_plan_destroy(plan);
	ga_plan_destroy(again);
	ga_problem_destroy(p);
}

TEST(property_fast_plans_are_legal_stable_and_maximal)
{
	for (int i = 0; i < N_INSTANCES; i++)
		check_instance(i);
}

TEST(property_generator_is_deterministic_and_valid)
{
	for (int i = 0; i < 20; i++)
	{
		ga_generate_spec spec;
		ga_problem *a;
		ga_problem *b;
		ga_error	err;

		varied_spec(i, &spec);
		a = ga_generate(&spec, &err);
		b = ga_generate(&spec, &err);
		CHECK(a != NULL && b != NULL);
		if (a == NULL || b == NULL)
			continue;
		CHECK_INT_EQ(a->n_jobs, b->n_jobs);
		for (int j = 0; j < a->n_jobs; j++)
		{
			CHECK(a->jobs[j].work_gpu_steps == b->jobs[j].work_gpu_steps);
			CHECK_INT_EQ(a->jobs[j].release_step, b->jobs[j].release_step);
			CHECK(ga_is_pow2(a->jobs[j].gpus_min) && a->jobs[j].gpus_min <= a->jobs[j].gpus_max);
			CHECK(a->jobs[j].gpus_max <= spec.max_job_gpus);
		}
		for (int s = 0; s < a->n_services; s++)
			for (int t = 0; t < spec.steps; t++)
				CHECK_INT_EQ(a->services[s].demand[t], b->services[s].demand[t]);
		ga_problem_destroy(a);
		ga_problem_destroy(b);
	}
}

TEST(property_generator_rejects_bad_spec)
{
	ga_generate_spec spec;
	ga_error	err;

	ga_generate_defaults(&spec, 8, 4, 48, 1);
	spec.pinned_share = 1.5;
	CHECK(ga_generate(&spec, &err) == NULL);
	CHECK_STR_CONTAINS(err.message, "shares");
	ga_generate_defaults(&spec, 0, 4, 48, 1);
	CHECK(ga_generate(&spec, &err) == NULL);
	CHECK_STR_CONTAINS(err.message, "gpus >= 1");
}

TEST(property_benchmark_sizes_generate_two_pools_from_256)
{
	ga_generate_spec spec;
	ga_problem *p;
	ga_error	err;

	ga_generate_defaults(&spec, 1024, 500, 48, 42);
	p = ga_generate(&spec, &err);
	CHECK(p != NULL);
	if (p == NULL)
		return;
	CHECK_INT_EQ(p->n_pools, 2);
	CHECK_INT_EQ(p->pools[0].n_gpus % 8, 0);
	CHECK_INT_EQ(p->pools[0].n_gpus + p->pools[1].n_gpus, 1024);
	CHECK_INT_EQ(p->n_services, 2);
	for (int s = 0; s < p->n_services; s++)
		CHECK(p->services[s].churn_limit >= 1 && p->services[s].churn_limit <= 4);
	ga_problem_destroy(p);
}
