/*
 * test_problem_split.c — cutting a problem into its independent pools and
 * merging the parts' plans: each part is the pool it came from, solving the
 * parts and merging gives the plan of solving the whole, merged plans are
 * legal, and plans that do not belong together are refused.
 */
#include "unit.h"
#include "split_fixture.h"
#include "model/problem_split.h"
#include "model/serial.h"
#include "model/validate.h"
#include "sim/generate.h"
#include "solve/heuristic.h"
#include "solve/milp.h"

#include <stdlib.h>

ga_problem *
sf_pool(uint64_t seed, int gpus, int jobs, int steps)
{
	ga_generate_spec spec;
	ga_error	err;

	ga_generate_defaults(&spec, gpus, jobs, steps, seed);
	spec.services = 1 + (int) (seed % 2);
	spec.pinned_share = 0.25;
	spec.deadline_share = 0.3;
	spec.service_share = 0.4;
	spec.unusable_share = seed % 3 == 0 ? 0.2 : 0;
	spec.held_known_share = 0.5;
	spec.budget_share = 0.5;
	spec.max_job_gpus = 8;
	spec.protect_share = 0.3;
	spec.headroom = 0.5;
	spec.overrun_margin = 0.6;
	return ga_generate(&spec, &err);
}

static void
stack_jobs(ga_problem *p, const ga_problem *from, int q, int first_job, int first_gpu)
{
	for (int j = 0; j < from->n_jobs; j++)
	{
		ga_job	   *job = &p->jobs[first_job + j];

		*job = from->jobs[j];
		job->pool = q;
		if (job->pinned)
			job->pinned_first_gpu += first_gpu;
	}
}

static bool
stack_services(ga_problem *p, const ga_problem *from, int q, int first_svc, int first_gpu)
{
	int			T = p->params.n_steps;

	for (int s = 0; s < from->n_services; s++)
	{
		const ga_service *src = &from->services[s];
		ga_service *svc = &p->services[first_svc + s];
		int		   *demand = svc->demand;
		int		   *protect = svc->protect;

		*svc = *src;
		svc->pool = q;
		svc->demand = demand;
		svc->protect = protect;
		svc->held_known = false;
		svc->n_held = 0;
		svc->held_gpus = NULL;
		memcpy(demand, src->demand, sizeof(int) * T);
		memcpy(protect, src->protect, sizeof(int) * T);
		if (src->held_known)
		{
			if (ga_problem_set_held(p, first_svc + s, src->held_gpus, src->n_held, NULL) != GA_OK)
				return false;
			for (int i = 0; i < svc->n_held; i++)
				svc->held_gpus[i] += first_gpu;
		}
	}
	return true;
}

ga_problem *
sf_stack(ga_problem *const *pools, int n)
{
	int			n_gpus = 0;
	int			n_jobs = 0;
	int			n_services = 0;
	ga_problem *p;
	ga_error	err;

	for (int q = 0; q < n; q++)
	{
		n_gpus += pools[q]->n_gpus;
		n_jobs += pools[q]->n_jobs;
		n_services += pools[q]->n_services;
	}
	p = ga_problem_create(n, n_gpus, n_jobs, n_services, &pools[0]->params);
	if (p == NULL)
		return NULL;
	n_gpus = n_jobs = n_services = 0;
	for (int q = 0; q < n; q++)
	{
		const ga_problem *from = pools[q];

		snprintf(p->pools[q].name, GA_NAME_LEN, "pool%d", q);
		p->pools[q].first_gpu = n_gpus;
		p->pools[q].n_gpus = from->n_gpus;
		memcpy(p->gpu_usable + n_gpus, from->gpu_usable, sizeof(bool) * from->n_gpus);
		stack_jobs(p, from, q, n_jobs, n_gpus);
		if (!stack_services(p, from, q, n_services, n_gpus))
			break;
		n_gpus += from->n_gpus;
		n_jobs += from->n_jobs;
		n_services += from->n_services;
	}
	if (ga_problem_finish(p, &err) != GA_OK)
	{
		printf("    sf_stack: %s\n", err.message);
		ga_problem_destroy(p);
		return NULL;
	}
	return p;
}

/* Four varied pools of different sizes, stacked; pools[] keeps each. */
static ga_problem *
four_pools(uint64_t seed, ga_problem **pools)
{
	static const int gpus[4] = {16, 8, 32, 12};

	for (int q = 0; q < 4; q++)
		pools[q] = sf_pool(seed * 31 + q, gpus[q], 6 + 3 * q, 24);
	return sf_stack(pools, 4);
}

static void
free_pools(ga_problem **pools, int n)
{
	for (int q = 0; q < n; q++)
		ga_problem_destroy(pools[q]);
}

/* Whether two problems serialise to the same bytes (every field equal). */
static bool
same_problem(const ga_problem *a, const ga_problem *b)
{
	size_t		na = ga_problem_serial_size(a);
	size_t		nb = ga_problem_serial_size(b);
	char	   *ba = malloc(na);
	char	   *bb = malloc(nb);
	bool		same = ba && bb && na == nb &&
		ga_problem_write(a, ba, na, NULL) == GA_OK &&
		ga_problem_write(b, bb, nb, NULL) == GA_OK && memcmp(ba, bb, na) == 0;

	free(ba);
	free(bb);
	return same;
}

static bool
same_grid(const ga_plan *a, const ga_plan *b)
{
	size_t		cells = (size_t) a->n_gpus * a->n_steps;
	size_t		nj = (size_t) a->n_jobs;

	return a->n_gpus == b->n_gpus && a->n_steps == b->n_steps && a->n_jobs == b->n_jobs &&
		memcmp(a->cell, b->cell, sizeof(int32_t) * cells) == 0 &&
		memcmp(a->job_start, b->job_start, sizeof(int) * nj) == 0 &&
		memcmp(a->job_size, b->job_size, sizeof(int) * nj) == 0 &&
		memcmp(a->job_first_gpu, b->job_first_gpu, sizeof(int) * nj) == 0;
}

TEST(split_gives_back_each_independent_pool)
{
	for (uint64_t seed = 1; seed <= 6; seed++)
	{
		ga_problem *pools[4];
		ga_problem *p = four_pools(seed, pools);
		ga_split   *split = NULL;
		ga_error	err;

		CHECK(p != NULL);
		if (p == NULL)
		{
			free_pools(pools, 4);
			continue;
		}
		CHECK_MSG(ga_problem_split(p, &split, &err) == GA_OK, "%s", err.message);
		CHECK_INT_EQ(split->n_parts, 4);
		for (int k = 0; k < split->n_parts && k < 4; k++)
		{
			const ga_part *pt = &split->parts[k];

			/* the part is the pool it came from, but for the pool's name */
			snprintf(pools[k]->pools[0].name, GA_NAME_LEN, "pool%d", k);
			CHECK_MSG(same_problem(pt->problem, pools[k]), "seed %llu part %d differs from its pool",
					  (unsigned long long) seed, k);
			CHECK_INT_EQ(pt->pool_map[0], k);
			CHECK_INT_EQ(pt->gpu_map[0], p->pools[k].first_gpu);
			for (int j = 0; j < pt->problem->n_jobs; j++)
				CHECK_INT_EQ(p->jobs[pt->job_map[j]].id, pt->problem->jobs[j].id);
			for (int s = 0; s < pt->problem->n_services; s++)
				CHECK_INT_EQ(p->services[pt->service_map[s]].pool, k);
		}
		ga_split_destroy(split);
		ga_problem_destroy(p);
		free_pools(pools, 4);
	}
}

TEST(split_of_one_pool_or_none)
{
	ga_problem *one = sf_pool(7, 16, 8, 12);
	ga_params	params = {.n_steps = 4, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *none = ga_problem_create(0, 0, 0, 0, &params);
	ga_split   *split = NULL;
	ga_error	err;

	CHECK(ga_problem_finish(none, &err) == GA_OK);
	CHECK(ga_problem_split(one, &split, &err) == GA_OK);
	CHECK_INT_EQ(split->n_parts, 1);
	CHECK(same_problem(split->parts[0].problem, one));
	ga_split_destroy(split);
	CHECK(ga_problem_split(none, &split, &err) == GA_OK);
	CHECK_INT_EQ(split->n_parts, 0);
	ga_split_destroy(split);
	ga_problem_destroy(one);
	ga_problem_destroy(none);
}

/* Solve every part, merge, and return the merged plan (NULL on failure). */
static ga_plan *
solve_parts_bound(const ga_problem *p, const ga_split *split, bool full, double ms,
				  double *bound_sum)
{
	ga_solve_options opts = {.time_limit_ms = ms};
	ga_plan    *plans[8] = {0};
	ga_plan    *merged = NULL;
	ga_error	err;

	for (int k = 0; k < split->n_parts && k < 8; k++)
	{
		ga_status	rc = full ? ga_solve_full(split->parts[k].problem, &opts, &plans[k], &err)
			: ga_solve_fast(split->parts[k].problem, &opts, &plans[k], &err);

		CHECK_MSG(rc == GA_OK, "part %d: %s", k, err.message);
		*bound_sum += plans[k] ? plans[k]->bound : NAN;
	}
	CHECK_MSG(ga_plan_merge(p, split, plans, &merged, &err) == GA_OK, "%s", err.message);
	for (int k = 0; k < 8; k++)
		ga_plan_destroy(plans[k]);
	return merged;
}

static ga_plan *
solve_parts(const ga_problem *p, const ga_split *split, bool full, double ms)
{
	double		bound_sum = 0;

	return solve_parts_bound(p, split, full, ms, &bound_sum);
}

/*
 * The fast mode's construction serves every claim in one order and places
 * each inside its own pool, so it builds the same grid on a pool whether
 * the pool is planned alone or beside others: with no time to improve,
 * merging the parts' plans gives the whole's plan, cell for cell.
 */
TEST(split_solve_merge_equals_solving_the_whole_fast)
{
	for (uint64_t seed = 1; seed <= 8; seed++)
	{
		ga_problem *pools[4];
		ga_problem *p = four_pools(seed, pools);
		ga_solve_options opts = {.time_limit_ms = 1e-9};
		ga_fast_stats stats;
		ga_split   *split = NULL;
		ga_plan    *whole = NULL;
		ga_plan    *merged;
		ga_error	err;

		free_pools(pools, 4);
		if (p == NULL || ga_problem_split(p, &split, &err) != GA_OK)
		{
			CHECK(false);
			ga_problem_destroy(p);
			continue;
		}
		CHECK(ga_solve_fast_stats(p, &opts, &whole, &stats, &err) == GA_OK);
		CHECK_INT_EQ(stats.rounds, 0);
		merged = solve_parts(p, split, false, opts.time_limit_ms);
		if (whole != NULL && merged != NULL)
		{
			CHECK_MSG(ga_validate(p, merged, &err) == GA_OK, "seed %llu: %s", (unsigned long long) seed, err.message);
			CHECK_MSG(same_grid(whole, merged), "seed %llu: merged plan differs from the whole's",
					  (unsigned long long) seed);
			CHECK_NEAR(merged->objective, whole->objective, 1e-9 * (1 + fabs(whole->objective)));
			CHECK(strcmp(merged->mode, "fast") == 0);
			CHECK(isnan(merged->bound) && isnan(merged->gap));
		}
		ga_plan_destroy(whole);
		ga_plan_destroy(merged);
		ga_split_destroy(split);
		ga_problem_destroy(p);
	}
}

/*
 * The improvement phase keeps a change when it raises the objective of
 * what it solves, so on the whole it may keep a change that helps one pool
 * and hurts another, and it ends at another local optimum than on the
 * parts (better or worse; docs/model.md, Independent pools).  Improved, the
 * merged plan is still legal, its objective the sum of the parts', and the
 * same on every run.
 */
TEST(split_solve_merge_fast_improved_is_legal_and_stable)
{
	for (uint64_t seed = 1; seed <= 4; seed++)
	{
		ga_problem *pools[4];
		ga_problem *p = four_pools(seed, pools);
		ga_split   *split = NULL;
		ga_plan    *merged;
		ga_plan    *again;
		ga_error	err;

		free_pools(pools, 4);
		if (p == NULL || ga_problem_split(p, &split, &err) != GA_OK)
		{
			CHECK(false);
			ga_problem_destroy(p);
			continue;
		}
		merged = solve_parts(p, split, false, 60000);
		again = solve_parts(p, split, false, 60000);
		if (merged != NULL && again != NULL)
		{
			double		sum = 0;

			CHECK_MSG(ga_validate(p, merged, &err) == GA_OK, "seed %llu: %s", (unsigned long long) seed, err.message);
			CHECK(same_grid(merged, again));
			for (int k = 0; k < split->n_parts; k++)
			{
				ga_plan    *part = NULL;
				ga_solve_options opts = {.time_limit_ms = 60000};

				CHECK(ga_solve_fast(split->parts[k].problem, &opts, &part, &err) == GA_OK);
				sum += part ? part->objective : NAN;
				ga_plan_destroy(part);
			}
			CHECK_NEAR(merged->objective, sum, 1e-9 * (1 + fabs(sum)));
		}
		ga_plan_destroy(merged);
		ga_plan_destroy(again);
		ga_split_destroy(split);
		ga_problem_destroy(p);
	}
}

/*
 * Full mode is not the same plan under a time limit, but the merged plan is
 * legal, its objective is the sum of the parts' and its bound, the sum of
 * the parts' bounds, holds over it.
 */
TEST(split_solve_merge_full_is_legal_and_bounded)
{
	ga_problem *pools[3];
	ga_problem *p;
	ga_split   *split = NULL;
	ga_plan    *merged;
	double		bound_sum = 0;
	ga_error	err;

	for (int q = 0; q < 3; q++)
		pools[q] = sf_pool(100 + q, 8, 5, 12);
	p = sf_stack(pools, 3);
	free_pools(pools, 3);
	CHECK(p != NULL);
	if (p == NULL)
		return;
	CHECK(ga_problem_split(p, &split, &err) == GA_OK);
	merged = solve_parts_bound(p, split, true, 2000, &bound_sum);
	CHECK(merged != NULL);
	if (merged != NULL)
	{
		CHECK_MSG(ga_validate(p, merged, &err) == GA_OK, "%s", err.message);
		CHECK(strcmp(merged->mode, "full") == 0);
		CHECK(isfinite(merged->bound));
		CHECK_NEAR(merged->bound, bound_sum, 1e-9 * (1 + fabs(bound_sum)));
		CHECK(merged->bound >= merged->objective - 1e-6 * (1 + fabs(merged->objective)));
		CHECK_NEAR(merged->gap, (merged->bound - merged->objective) / fmax(fabs(merged->bound), 1e-9), 1e-12);
	}
	ga_plan_destroy(merged);
	ga_split_destroy(split);
	ga_problem_destroy(p);
}

TEST(merge_refuses_plans_that_do_not_belong)
{
	ga_problem *pools[4];
	ga_problem *p = four_pools(3, pools);
	ga_solve_options opts = {.time_limit_ms = 1000};
	ga_split   *split = NULL;
	ga_plan    *plans[4] = {0};
	ga_plan    *merged = NULL;
	ga_plan    *swap;
	ga_error	err;

	free_pools(pools, 4);
	CHECK(p != NULL && ga_problem_split(p, &split, &err) == GA_OK);
	if (split == NULL)
	{
		ga_problem_destroy(p);
		return;
	}
	for (int k = 0; k < 4; k++)
		CHECK(ga_solve_fast(split->parts[k].problem, &opts, &plans[k], &err) == GA_OK);
	/* a part's plan in another part's place */
	swap = plans[0];
	plans[0] = plans[1];
	plans[1] = swap;
	CHECK(ga_plan_merge(p, split, plans, &merged, &err) == GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "is not a plan of that part");
	CHECK(merged == NULL);
	plans[1] = plans[0];
	plans[0] = swap;
	/* plans of two modes */
	plans[2]->mode = "full";
	CHECK(ga_plan_merge(p, split, plans, &merged, &err) == GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "mode");
	plans[2]->mode = "fast";
	/* a missing plan */
	swap = plans[3];
	plans[3] = NULL;
	CHECK(ga_plan_merge(p, split, plans, &merged, &err) == GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "part 3 has no plan");
	plans[3] = swap;
	CHECK(ga_plan_merge(p, split, plans, &merged, &err) == GA_OK);
	CHECK(merged != NULL && ga_validate(p, merged, &err) == GA_OK);
	ga_plan_destroy(merged);
	for (int k = 0; k < 4; k++)
		ga_plan_destroy(plans[k]);
	ga_split_destroy(split);
	ga_problem_destroy(p);
}
