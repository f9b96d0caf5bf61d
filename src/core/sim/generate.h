/*
 * generate.h — random planning problems for property tests and benchmarks.
 *
 * The generator is driven by a private splitmix64 stream seeded from
 * spec->seed, so the same spec gives the same problem on every platform and
 * in every process (it never touches rand()).
 *
 * What an instance looks like (defaults in brackets):
 *   - GPUs in nodes of 8; one pool "h100", or, from 256 GPUs on, two pools
 *     ("h100" with about 5/8 of the nodes, "a100" with the rest).  A share of
 *     nodes may be drained [0].
 *   - Real-time services [2], spread over the pools, each with a daily
 *     demand curve (a cosine peaking at 14:00 plus noise, from a base of 30-50%
 *     of the peak), peaks summing to about service_share [0.25] of a pool,
 *     churn limits 1-4, sometimes a churn budget [25% of services], and the
 *     GPUs held now matching the step-0 demand (known for 90% of services),
 *     taken from the high end of the pool.  A protect curve above the
 *     demand by protect_share of it [0: none], the headroom and the
 *     overrun margin [0 each] are derived without random draws, so they
 *     change nothing else of an instance.
 *   - Batch jobs: gpus_max a power of two from 1 to max_job_gpus [32] (capped
 *     at the pool), moldable down to a quarter of that for most jobs;
 *     duration at gpus_max log-uniform between 1 hour and 3 days; priority 1,
 *     2 or 4 with a few at 10; release at step 0 for release_zero_share [0.6]
 *     of queued jobs, else uniform over the horizon; a deadline for
 *     deadline_share [0.1] of them; pinned_share [0.15] already running at
 *     plan time, pinned to disjoint aligned blocks packed from the low end.
 *   - Several pools: with two pools (two_pools [false] makes two below 256
 *     GPUs too: the first holds 5/8 of the GPUs, whole nodes from 16 GPUs
 *     on), alt_pool_share [0] of the jobs may also run on the other pool,
 *     with the work there their own times a factor drawn log-uniformly
 *     from 0.5 to 2.  These draws are made only when the share is
 *     positive, so other instances are unchanged.
 *
 * The returned problem is finished (ga_problem_finish) and valid.
 */
#ifndef GPUALLOC_GENERATE_H
#define GPUALLOC_GENERATE_H

#include "model/problem.h"

typedef struct ga_generate_spec
{
	int			gpus;			/* cluster size, >= 1 */
	int			jobs;			/* batch jobs, >= 0 */
	int			steps;			/* horizon in steps, >= 1 */
	uint64_t	seed;
	int			services;		/* real-time services, >= 0 */
	int			step_minutes;
	double		penalty;
	double		half_life_hours;
	double		pinned_share;	/* jobs already running at plan time */
	double		release_zero_share; /* queued jobs released at step 0 */
	double		deadline_share; /* queued jobs with a deadline */
	double		service_share;	/* sum of service peaks over pool size */
	double		unusable_share; /* nodes drained */
	double		held_known_share;	/* services whose held GPUs are known */
	double		budget_share;	/* services with a churn budget */
	int			max_job_gpus;	/* largest gpus_max, a power of two */
	double		protect_share;	/* protect curve: demand raised by this
								 * share of it, rounded up [0] */
	double		headroom;		/* ga_params.headroom [0] */
	double		overrun_margin; /* ga_params.overrun_margin [0] */
	bool		two_pools;		/* two pools below 256 GPUs too [false] */
	double		alt_pool_share; /* with two pools, jobs that may also run
								 * on the other pool [0] */
} ga_generate_spec;

/* Fill spec with the defaults above for the given size and seed. */
void		ga_generate_defaults(ga_generate_spec *spec, int gpus, int jobs,
								 int steps, uint64_t seed);

/* A new finished problem (caller destroys it), or NULL with err set. */
ga_problem *ga_generate(const ga_generate_spec *spec, ga_error *err);

#endif
