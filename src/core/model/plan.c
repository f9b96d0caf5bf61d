/*
 * plan.c — the plan grid, job placement and the objective (docs/model.md, Objective).
 */
#include "model/plan.h"
#include "model/terminal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ga_plan *
ga_plan_create(const ga_problem *problem)
{
	ga_plan    *plan = calloc(1, sizeof(*plan));
	size_t		cells = (size_t) problem->n_gpus * problem->params.n_steps;
	int			nj = problem->n_jobs > 0 ? problem->n_jobs : 1;

	if (plan == NULL)
		return NULL;
	plan->n_gpus = problem->n_gpus;
	plan->n_steps = problem->params.n_steps;
	plan->n_jobs = problem->n_jobs;
	plan->n_services = problem->n_services;
	plan->cell = malloc(sizeof(int32_t) * (cells > 0 ? cells : 1));
	plan->job_start = malloc(sizeof(int) * nj);
	plan->job_size = malloc(sizeof(int) * nj);
	plan->job_first_gpu = malloc(sizeof(int) * nj);
	if (!plan->cell || !plan->job_start || !plan->job_size || !plan->job_first_gpu)
	{
		ga_plan_destroy(plan);
		return NULL;
	}
	for (size_t i = 0; i < cells; i++)
		plan->cell[i] = GA_IDLE;
	for (int j = 0; j < nj; j++)
	{
		plan->job_start[j] = -1;
		plan->job_size[j] = -1;
		plan->job_first_gpu[j] = -1;
	}
	plan->objective = 0;
	plan->bound = NAN;
	plan->gap = NAN;
	plan->mode = "";
	return plan;
}

void
ga_plan_destroy(ga_plan *plan)
{
	if (plan == NULL)
		return;
	free(plan->cell);
	free(plan->job_start);
	free(plan->job_size);
	free(plan->job_first_gpu);
	free(plan);
}

ga_plan *
ga_plan_copy(const ga_plan *src)
{
	ga_plan    *dst = calloc(1, sizeof(*dst));
	size_t		cells = (size_t) src->n_gpus * src->n_steps;
	int			nj = src->n_jobs > 0 ? src->n_jobs : 1;

	if (dst == NULL)
		return NULL;
	*dst = *src;
	dst->cell = malloc(sizeof(int32_t) * (cells > 0 ? cells : 1));
	dst->job_start = malloc(sizeof(int) * nj);
	dst->job_size = malloc(sizeof(int) * nj);
	dst->job_first_gpu = malloc(sizeof(int) * nj);
	if (!dst->cell || !dst->job_start || !dst->job_size || !dst->job_first_gpu)
	{
		ga_plan_destroy(dst);
		return NULL;
	}
	memcpy(dst->cell, src->cell, sizeof(int32_t) * cells);
	memcpy(dst->job_start, src->job_start, sizeof(int) * nj);
	memcpy(dst->job_size, src->job_size, sizeof(int) * nj);
	memcpy(dst->job_first_gpu, src->job_first_gpu, sizeof(int) * nj);
	return dst;
}

int
ga_plan_job_end(const ga_problem *problem, const ga_plan *plan, int j)
{
	const ga_job *job = &problem->jobs[j];

	return job->pinned ? job->pinned_end :
		plan->job_start[j] + ga_job_duration(job, ga_pool_of_gpu(problem, plan->job_first_gpu[j]),
											 plan->job_size[j]);
}

void
ga_plan_place_job(ga_plan *plan, const ga_problem *problem, int j, int start,
				  int first, int size)
{
	const ga_job *job = &problem->jobs[j];
	int			end = job->pinned ? job->pinned_end :
		start + ga_job_duration(job, ga_pool_of_gpu(problem, first), size);
	int			from = start < 0 ? 0 : start;
	int			to = end < plan->n_steps ? end : plan->n_steps;

	for (int g = first; g < first + size; g++)
		for (int t = from; t < to; t++)
			ga_plan_set(plan, g, t, j);
	plan->job_start[j] = start;
	plan->job_size[j] = size;
	plan->job_first_gpu[j] = first;
}

int
ga_plan_service_gpus(const ga_problem *problem, const ga_plan *plan, int s, int t)
{
	const ga_pool *pool = &problem->pools[problem->services[s].pool];
	int32_t		w = ga_service_workload(problem, s);
	int			count = 0;

	for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
		if (ga_plan_get(plan, g, t) == w)
			count++;
	return count;
}

/* The job as valued on the pool of its block (ga_job_on_pool). */
static ga_job
placed_job(const ga_problem *problem, const ga_plan *plan, int j)
{
	const ga_job *job = &problem->jobs[j];
	int			rank = job->n_alt_pools == 0 ? 0 :
		ga_job_pool_rank(job, ga_pool_of_gpu(problem, plan->job_first_gpu[j]));

	return ga_job_on_pool(job, rank > 0 ? rank : 0);
}

/* Value of a GPU-step of each job on the pool the plan gives it [n_jobs]. */
static double *
job_rates(const ga_problem *problem, const ga_plan *plan)
{
	double	   *rate = malloc(sizeof(double) * (problem->n_jobs > 0 ? problem->n_jobs : 1));

	if (rate == NULL)
		return NULL;
	for (int j = 0; j < problem->n_jobs; j++)
		rate[j] = problem->jobs[j].n_alt_pools == 0 || j >= plan->n_jobs ||
			plan->job_size[j] <= 0 ? problem->jobs[j].priority
			: placed_job(problem, plan, j).priority;
	return rate;
}

double
ga_plan_objective(const ga_problem *problem, const ga_plan *plan)
{
	double		value = 0;
	int			T = plan->n_steps;
	int		   *svc_count = calloc((size_t) (problem->n_services > 0 ? problem->n_services : 1) * T, sizeof(int));
	double	   *rate = job_rates(problem, plan);

	if (svc_count == NULL || rate == NULL)
	{
		free(svc_count);
		free(rate);
		return NAN;
	}
	for (int g = 0; g < plan->n_gpus; g++)
		for (int t = 0; t < T; t++)
		{
			int32_t		w = ga_plan_get(plan, g, t);

			if (w == GA_IDLE)
				continue;
			if (w < problem->n_jobs)
				value += rate[w] * problem->decay[t];
			else
				svc_count[(size_t) (w - problem->n_jobs) * T + t]++;
		}
	for (int j = 0; j < problem->n_jobs && j < plan->n_jobs; j++)
	{
		ga_job		job;
		int			size = plan->job_size[j];
		int			start = plan->job_start[j];

		if (size <= 0)
			continue;
		job = placed_job(problem, plan, j);
		value += ga_job_tail_value(problem, &job, size, start,
								   job.pinned ? job.pinned_end :
								   start + ga_job_duration(&job, job.pool, size));
	}
	free(rate);
	for (int s = 0; s < problem->n_services; s++)
	{
		const ga_service *svc = &problem->services[s];

		for (int t = 0; t < T; t++)
		{
			int			shortfall = svc->demand[t] - svc_count[(size_t) s * T + t];

			if (shortfall > 0)
				value -= problem->params.penalty * svc->priority * problem->decay[t] * shortfall;
		}
	}
	free(svc_count);
	return value - ga_terminal_cost(problem, plan);
}
