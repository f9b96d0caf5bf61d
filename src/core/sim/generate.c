/*
 * generate.c — the random instance generator (see generate.h).
 *
 * Every random draw goes through one splitmix64 stream in a fixed order, so
 * a spec and seed always give the same problem.
 */
#include "sim/generate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_GPUS 8
#define TWO_POOLS_FROM 256
#define TWO_PI 6.283185307179586

typedef struct rng
{
	uint64_t	state;
} rng;

static uint64_t
rng_next(rng *r)
{
	uint64_t	z = (r->state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double
rng_unit(rng *r)
{
	return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [lo, hi] (hi >= lo). */
static int
rng_int(rng *r, int lo, int hi)
{
	return lo + (int) (rng_next(r) % (uint64_t) (hi - lo + 1));
}

static double
rng_range(rng *r, double lo, double hi)
{
	return lo + (hi - lo) * rng_unit(r);
}

/* Standard normal by Box-Muller (one of the pair is enough here). */
static double
rng_normal(rng *r)
{
	double		u = 1.0 - rng_unit(r);
	double		v = rng_unit(r);

	return sqrt(-2.0 * log(u)) * cos(TWO_PI * v);
}

static bool
rng_chance(rng *r, double p)
{
	return rng_unit(r) < p;
}

void
ga_generate_defaults(ga_generate_spec *spec, int gpus, int jobs, int steps,
					 uint64_t seed)
{
	memset(spec, 0, sizeof(*spec));
	spec->gpus = gpus;
	spec->jobs = jobs;
	spec->steps = steps;
	spec->seed = seed;
	spec->services = 2;
	spec->step_minutes = 30;
	spec->penalty = 8;
	spec->half_life_hours = 12;
	spec->pinned_share = 0.15;
	spec->release_zero_share = 0.6;
	spec->deadline_share = 0.1;
	spec->service_share = 0.25;
	spec->unusable_share = 0;
	spec->held_known_share = 0.9;
	spec->budget_share = 0.25;
	spec->max_job_gpus = 32;
}

static bool
share_ok(double x)
{
	return isfinite(x) && x >= 0 && x <= 1;
}

static ga_status
check_spec(const ga_generate_spec *spec, ga_error *err)
{
	if (spec->gpus < 1 || spec->jobs < 0 || spec->steps < 1 || spec->services < 0)
		return ga_error_set(err, GA_EINVAL,
							"generator needs gpus >= 1, jobs >= 0, steps >= 1 and services >= 0");
	if (spec->step_minutes <= 0 || !ga_is_pow2(spec->max_job_gpus))
		return ga_error_set(err, GA_EINVAL,
							"generator needs step_minutes > 0 and max_job_gpus a power of two");
	if (!share_ok(spec->pinned_share) || !share_ok(spec->release_zero_share) ||
		!share_ok(spec->deadline_share) || !share_ok(spec->service_share) ||
		!share_ok(spec->unusable_share) || !share_ok(spec->held_known_share) ||
		!share_ok(spec->budget_share) || !share_ok(spec->protect_share) ||
		!share_ok(spec->headroom) || !share_ok(spec->overrun_margin) ||
		!share_ok(spec->alt_pool_share))
		return ga_error_set(err, GA_EINVAL, "generator shares must lie in [0, 1]");
	return GA_OK;
}

static int
pool_count(const ga_generate_spec *spec)
{
	return spec->gpus >= TWO_POOLS_FROM || (spec->two_pools && spec->gpus >= 2) ? 2 : 1;
}

static void
make_pools(ga_problem *p, const ga_generate_spec *spec)
{
	int			first_size = spec->gpus;

	if (p->n_pools == 2 && spec->gpus >= 2 * NODE_GPUS)
		first_size = (spec->gpus * 5 / 8) / NODE_GPUS * NODE_GPUS;
	else if (p->n_pools == 2)
		first_size = spec->gpus * 5 / 8 > 0 ? spec->gpus * 5 / 8 : 1;
	snprintf(p->pools[0].name, GA_NAME_LEN, "h100");
	p->pools[0].first_gpu = 0;
	p->pools[0].n_gpus = first_size;
	if (p->n_pools == 2)
	{
		snprintf(p->pools[1].name, GA_NAME_LEN, "a100");
		p->pools[1].first_gpu = first_size;
		p->pools[1].n_gpus = spec->gpus - first_size;
	}
}

/* Drain whole nodes, never the last usable one of a pool. */
static void
drain_nodes(ga_problem *p, const ga_generate_spec *spec, rng *r)
{
	for (int i = 0; i < p->n_pools; i++)
	{
		const ga_pool *pool = &p->pools[i];

		for (int node = NODE_GPUS; node < pool->n_gpus; node += NODE_GPUS)
		{
			if (!rng_chance(r, spec->unusable_share))
				continue;
			for (int g = node; g < node + NODE_GPUS && g < pool->n_gpus; g++)
				p->gpu_usable[pool->first_gpu + g] = false;
		}
	}
}

static int
largest_pow2_at_most(int n)
{
	int			g = 1;

	while (g * 2 <= n)
		g *= 2;
	return g;
}

/* Demand curve of one service: cosine peaking at 14:00, plus noise. */
static void
make_demand(ga_service *svc, const ga_generate_spec *spec, rng *r, int peak,
			int base, double start_hour)
{
	for (int t = 0; t < spec->steps; t++)
	{
		double		hour = start_hour + t * spec->step_minutes / 60.0;
		double		wave = 0.5 + 0.5 * cos(TWO_PI * (hour - 14.0) / 24.0);
		double		level = base + (peak - base) * wave + 0.06 * peak * rng_normal(r);
		int			d = (int) lround(level);

		if (d < svc->min_gpus)
			d = svc->min_gpus;
		if (d > svc->max_gpus)
			d = svc->max_gpus;
		svc->demand[t] = d;
	}
}

/* Hand service s the highest usable GPUs of its pool no one holds yet. */
static ga_status
make_held(ga_problem *p, int s, bool *taken, ga_error *err)
{
	ga_service *svc = &p->services[s];
	const ga_pool *pool = &p->pools[svc->pool];
	int			want = svc->demand[0];
	int		   *gpus = malloc(sizeof(int) * (want > 0 ? want : 1));
	int			n = 0;
	ga_status	rc;

	if (gpus == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory generating held GPUs");
	for (int g = pool->first_gpu + pool->n_gpus - 1; g >= pool->first_gpu && n < want; g--)
		if (p->gpu_usable[g] && !taken[g])
		{
			taken[g] = true;
			gpus[n++] = g;
		}
	rc = ga_problem_set_held(p, s, gpus, n, err);
	free(gpus);
	return rc;
}

static int
services_in_pool(const ga_problem *p, int pool)
{
	int			n = 0;

	for (int s = 0; s < p->n_services; s++)
		if (s % p->n_pools == pool)
			n++;
	return n;
}

static ga_status
make_services(ga_problem *p, const ga_generate_spec *spec, rng *r, bool *taken,
			  ga_error *err)
{
	double		start_hour = rng_int(r, 0, 23);

	for (int s = 0; s < p->n_services; s++)
	{
		ga_service *svc = &p->services[s];
		int			pool_size = p->pools[s % p->n_pools].n_gpus;
		int			sharing = services_in_pool(p, s % p->n_pools);
		int			peak = (int) lround(spec->service_share * pool_size / sharing * rng_range(r, 0.75, 1.25));
		int			base;

		if (peak < 1)
			peak = 1;
		if (peak > pool_size / 2)
			peak = pool_size / 2 > 0 ? pool_size / 2 : pool_size;
		base = (int) lround(peak * rng_range(r, 0.3, 0.5));
		svc->id = 1000 + s;
		snprintf(svc->name, GA_NAME_LEN, "service%d", s);
		svc->pool = s % p->n_pools;
		svc->priority = rng_chance(r, 0.5) ? 2 : 1;
		svc->churn_limit = rng_int(r, 1, 4);
		svc->max_gpus = peak + (peak / 4 > 1 ? peak / 4 : 1);
		if (svc->max_gpus > pool_size)
			svc->max_gpus = pool_size;
		svc->min_gpus = base / 2;
		make_demand(svc, spec, r, peak, base, start_hour);
		svc->churn_budget = -1;
		if (rng_chance(r, spec->budget_share))
			svc->churn_budget = (int) lround(2.0 * (peak - base) * rng_range(r, 0.5, 1.5));
		if (rng_chance(r, spec->held_known_share))
		{
			ga_status	rc = make_held(p, s, taken, err);

			if (rc != GA_OK)
				return rc;
		}
	}
	return GA_OK;
}

static int
pick_priority(rng *r)
{
	double		u = rng_unit(r);

	if (u < 0.45)
		return 1;
	if (u < 0.75)
		return 2;
	if (u < 0.97)
		return 4;
	return 10;
}

static int
pick_gpus_max(rng *r, int cap)
{
	static const int sizes[] = {1, 2, 4, 8, 16, 32};
	static const double cumulative[] = {0.2, 0.4, 0.6, 0.8, 0.92, 1.0};
	double		u = rng_unit(r);
	int			g = 32;

	for (int i = 0; i < 6; i++)
		if (u < cumulative[i])
		{
			g = sizes[i];
			break;
		}
	return g < cap ? g : cap;
}

/* Shape, priority and work of one job (timing comes later). */
static void
make_job_shape(ga_problem *p, int j, const ga_generate_spec *spec, rng *r)
{
	ga_job	   *job = &p->jobs[j];
	int			pool = p->n_pools == 2 && rng_unit(r) >= (double) p->pools[0].n_gpus / spec->gpus ? 1 : 0;
	int			cap = largest_pow2_at_most(p->pools[pool].n_gpus);
	double		hours = exp(rng_range(r, log(1.0), log(72.0)));
	double		steps_at_max = ceil(hours * 60.0 / spec->step_minutes);

	if (cap > spec->max_job_gpus)
		cap = spec->max_job_gpus;
	job->id = j + 1;
	snprintf(job->name, GA_NAME_LEN, "job%d", j);
	job->pool = pool;
	job->priority = pick_priority(r);
	job->gpus_max = pick_gpus_max(r, cap);
	job->gpus_min = job->gpus_max;
	if (rng_chance(r, 0.6))
		job->gpus_min = job->gpus_max >> rng_int(r, 1, 2);
	if (job->gpus_min < 1)
		job->gpus_min = 1;
	job->work_gpu_steps = steps_at_max * job->gpus_max;
	job->deadline_step = -1;
}

static void
make_job_timing(ga_job *job, const ga_generate_spec *spec, rng *r)
{
	job->release_step = 0;
	if (!rng_chance(r, spec->release_zero_share) && spec->steps > 1)
		job->release_step = rng_int(r, 1, spec->steps - 1);
	if (rng_chance(r, spec->deadline_share))
	{
		int			d = ga_job_duration(job, job->pool, job->gpus_max);

		job->deadline_step = job->release_step + (int) ceil(d * rng_range(r, 1.2, 3.0)) + rng_int(r, 0, 4);
	}
}

/* Lowest aligned block of size g in the pool with no GPU taken, or -1. */
static int
lowest_free_block(const ga_pool *pool, const bool *taken, int g)
{
	for (int rel = 0; rel + g <= pool->n_gpus; rel += g)
	{
		bool		free_block = true;

		for (int k = 0; k < g && free_block; k++)
			free_block = !taken[pool->first_gpu + rel + k];
		if (free_block)
			return pool->first_gpu + rel;
	}
	return -1;
}

/* Turn job j into one already running; false when no block is left. */
static bool
make_pinned(ga_problem *p, int j, rng *r, bool *taken, int *pinned_gpus)
{
	ga_job	   *job = &p->jobs[j];
	const ga_pool *pool = &p->pools[job->pool];
	int			g = job->gpus_min << rng_int(r, 0, 2);
	int			first;
	int			d;
	int			elapsed;

	if (g > job->gpus_max)
		g = job->gpus_max;
	if (pinned_gpus[job->pool] + g > pool->n_gpus * 0.7)
		return false;
	first = lowest_free_block(pool, taken, g);
	if (first < 0)
		return false;
	for (int k = first; k < first + g; k++)
		taken[k] = true;
	pinned_gpus[job->pool] += g;
	d = ga_job_duration(job, job->pool, g);
	elapsed = d > 1 ? rng_int(r, 1, d - 1) : 0;
	job->pinned = true;
	job->pinned_size = g;
	job->pinned_first_gpu = first;
	job->pinned_start = -elapsed;
	job->pinned_end = job->pinned_start + d;
	if (job->pinned_end < 1)
		job->pinned_end = 1;
	job->release_step = 0;
	job->deadline_step = -1;
	return true;
}

/* The other pool as the job's alternative, at another speed. */
static void
make_alt_pool(ga_job *job, rng *r)
{
	job->n_alt_pools = 1;
	job->alt_pools[0].pool = 1 - job->pool;
	job->alt_pools[0].work_gpu_steps = job->work_gpu_steps * exp(rng_range(r, log(0.5), log(2.0)));
}

static void
make_jobs(ga_problem *p, const ga_generate_spec *spec, rng *r, bool *taken)
{
	int			pinned_gpus[2] = {0, 0};

	for (int j = 0; j < p->n_jobs; j++)
	{
		make_job_shape(p, j, spec, r);
		if (p->n_pools == 2 && spec->alt_pool_share > 0 && rng_chance(r, spec->alt_pool_share))
			make_alt_pool(&p->jobs[j], r);
		if (rng_chance(r, spec->pinned_share) && make_pinned(p, j, r, taken, pinned_gpus))
			continue;
		make_job_timing(&p->jobs[j], spec, r);
	}
}

/* Protect curves above the demand, without a random draw. */
static void
make_protect(ga_problem *p, const ga_generate_spec *spec)
{
	for (int s = 0; s < p->n_services; s++)
		for (int t = 0; t < spec->steps; t++)
			p->services[s].protect[t] = p->services[s].demand[t] +
				(int) ceil(spec->protect_share * p->services[s].demand[t]);
}

ga_problem *
ga_generate(const ga_generate_spec *spec, ga_error *err)
{
	ga_params	params = {0};
	ga_problem *p;
	bool	   *taken;
	rng			r = {.state = spec->seed};
	ga_status	rc;

	if (check_spec(spec, err) != GA_OK)
		return NULL;
	params.n_steps = spec->steps;
	params.step_minutes = spec->step_minutes;
	params.penalty = spec->penalty;
	params.half_life_hours = spec->half_life_hours;
	params.headroom = spec->headroom;
	params.overrun_margin = spec->overrun_margin;
	p = ga_problem_create(pool_count(spec), spec->gpus,
						  spec->jobs, spec->services, &params);
	taken = calloc(spec->gpus, sizeof(bool));
	if (p == NULL || taken == NULL)
	{
		ga_problem_destroy(p);
		free(taken);
		ga_error_set(err, GA_ENOMEM, "out of memory generating a problem");
		return NULL;
	}
	make_pools(p, spec);
	drain_nodes(p, spec, &r);
	rc = make_services(p, spec, &r, taken, err);
	if (rc == GA_OK)
	{
		make_protect(p, spec);
		make_jobs(p, spec, &r, taken);
		rc = ga_problem_finish(p, err);
	}
	free(taken);
	if (rc != GA_OK)
	{
		ga_problem_destroy(p);
		return NULL;
	}
	return p;
}
