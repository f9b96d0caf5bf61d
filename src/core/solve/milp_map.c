/*
 * milp_map.c — full mode's way back from the model to a plan: mapping an
 * aggregate schedule (a target start and size per job, a GPU count per
 * service and step) onto aligned GPU blocks and physical service GPUs, and
 * the translations between plans, model solutions and schedules that the
 * search (milp_search.c) needs around it.  The model counts GPUs, not which
 * ones; everything that places actual GPUs lives here.
 *
 * Steps are simulated in order.  At every step each service first keeps the
 * GPUs it held (dropping its lowest ones when it shrinks), then the jobs due
 * to start take an aligned block that is free for their whole run, then
 * services grow into free GPUs.  A job only starts where every step of its
 * run leaves room for the service counts (slack), so services always get
 * their counts, and a service's set only grows or shrinks, so its physical
 * churn is the change of its count.
 *
 * Placement is best fit in the buddy sense: a job takes the free aligned
 * block lying in the most broken-up larger block (lowest first on ties), and
 * a service grows into the free GPU whose largest free aligned block is the
 * smallest (highest first on ties).  Batch thus packs from the low end,
 * services from the high end, and both fill the holes pins and drained GPUs
 * leave before cutting into whole blocks.
 *
 * The slack also carries the protect rule (ga_protect_room) in two guards,
 * one per tier, so a mapped plan keeps it as the fast plan does; a job
 * after a running job on its block is counted there without the fast
 * mode's sharing of the running job's lengthened run, which only makes
 * the mapping more careful.
 *
 * When only service GPUs stand in the way of a job's block, the service
 * hands them over and takes others, if its churn limit and budget (after the
 * count changes still to come) allow.  A job that does not fit waits for a
 * later step while its deadline allows; whatever is idle at the end is then
 * filled with any job that fits there.
 */
#include "solve/milp_internal.h"
#include "model/tenant_quota.h"
#include "model/validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The mapping's state while it simulates the steps in order. */
typedef struct map_state
{
	const milp_model *m;
	ga_plan    *plan;
	occ_map		occ;
	int		   *slack;			/* [n_pools*T] free GPUs beyond service
								 * counts */
	int		   *guard;			/* [2*n_pools*T] the protect rule's room in
								 * both tiers (protect_guard) */
	int		   *above;			/* [2*n_services*T] guarded curve above the
								 * count in both tiers, kept out of the
								 * guard */
	int		   *hold;			/* [n_gpus] service holding the GPU, or -1 */
	const int  *svc_count;		/* [n_services*T] */
	int		   *largest;		/* [n_gpus] scratch: largest free aligned
								 * block containing the GPU */
	int		   *prev_count;		/* [n_services] GPUs held at t-1, -1 when
								 * step 0 is free of churn */
	int		   *kept;			/* [n_services] of those still held at t */
	int		   *used;			/* [n_services] churn spent before t */
	int		   *future;			/* [n_services*(T+1)] count changes after t */
	bool		best_fit;		/* false: plain lowest block / highest GPU */
	ga_quota   *quota;			/* tenant quotas (model/tenant_quota.h) */
	int		   *quota_use;		/* the tenants' GPUs mapped so far */
} map_state;

static void
map_state_free(map_state *st)
{
	free(st->occ.bits);
	free(st->slack);
	free(st->above);
	free(st->guard);
	free(st->hold);
	free(st->largest);
	free(st->prev_count);
	free(st->kept);
	free(st->used);
	free(st->future);
	ga_quota_destroy(st->quota);
	free(st->quota_use);
	ga_plan_destroy(st->plan);
}

/* Count changes each service still has to make after every step. */
static void
plan_future_churn(map_state *st)
{
	const ga_problem *p = st->m->problem;
	int			T = st->m->T;

	for (int s = 0; s < p->n_services; s++)
	{
		int		   *f = st->future + (size_t) s * (T + 1);

		f[T] = 0;
		f[T - 1] = 0;
		for (int t = T - 2; t >= 0; t--)
			f[t] = f[t + 1] + abs(st->svc_count[s * T + t + 1] - st->svc_count[s * T + t]);
	}
}

/* One tier's guard of a pool, or the curves above the counts of a service. */
static inline int *
guard_of(const map_state *st, bool lengthened, int pool)
{
	return st->guard + ((size_t) lengthened * st->m->problem->n_pools + pool) * st->m->T;
}

static inline int *
above_of(const map_state *st, bool lengthened, int s)
{
	return st->above + ((size_t) lengthened * st->m->problem->n_services + s) * st->m->T;
}

/* Take size GPUs off one tier's guard over [start, start + steps). */
static void
guard_take(int *guard, int T, int start, int steps, int size)
{
	int			to = steps < T - start ? start + steps : T;

	for (int t = start > 0 ? start : 0; t < to; t++)
		guard[t] -= size;
}

/* A job's run of `duration` from start on its pool, in both tiers. */
static void
guard_run(map_state *st, const ga_job *job, int start, int duration, int size)
{
	guard_take(guard_of(st, false, job->pool), st->m->T, start, duration, size);
	guard_take(guard_of(st, true, job->pool), st->m->T, start,
			   ga_protect_steps(st->m->problem, job, duration), size);
}

/*
 * The protect rule (ga_protect_room): besides the slack, a job needs room
 * in both tiers' guards, which also keep free at every step the part of
 * each service's guarded curve above its count (the protect curve over
 * estimated runs, the demand over runs lengthened by the overrun margin).
 * The slack already leaves out pinned jobs over their estimated runs; the
 * rest of their lengthened runs is taken here.  A guard may go negative:
 * no job runs there.
 */
static void
protect_guard(map_state *st)
{
	const ga_problem *p = st->m->problem;
	int			T = st->m->T;

	for (int tier = 0; tier < 2; tier++)
	{
		for (int q = 0; q < p->n_pools; q++)
			memcpy(guard_of(st, tier, q), st->slack + (size_t) q * T, sizeof(int) * T);
		for (int s = 0; s < p->n_services; s++)
			for (int t = 0; t < T; t++)
			{
				int			above = ga_service_guarded(&p->services[s], t, tier) - st->svc_count[s * T + t];

				above_of(st, tier, s)[t] = above > 0 ? above : 0;
				guard_of(st, tier, p->services[s].pool)[t] -= above_of(st, tier, s)[t];
			}
	}
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		int			d = job->pinned_end - job->pinned_start;

		if (!job->pinned)
			continue;
		guard_take(guard_of(st, true, job->pool), T, job->pinned_start + d,
				   ga_protect_steps(p, job, d) - d,
				   ga_usable_gpus(p, job->pinned_first_gpu, job->pinned_size));
	}
}

static bool
map_state_init(map_state *st, const milp_model *m, const int *svc_count,
			   bool best_fit)
{
	const ga_problem *p = m->problem;
	int			T = m->T;
	int			ns = p->n_services > 0 ? p->n_services : 1;

	memset(st, 0, sizeof(*st));
	st->m = m;
	st->svc_count = svc_count;
	st->best_fit = best_fit;
	st->plan = ga_plan_create(p);
	st->slack = malloc(sizeof(int) * (size_t) (p->n_pools > 0 ? p->n_pools : 1) * T);
	st->above = malloc(sizeof(int) * (size_t) 2 * ns * T);
	st->guard = malloc(sizeof(int) * (size_t) 2 * (p->n_pools > 0 ? p->n_pools : 1) * T);
	st->hold = malloc(sizeof(int) * (p->n_gpus > 0 ? p->n_gpus : 1));
	st->largest = malloc(sizeof(int) * (p->n_gpus > 0 ? p->n_gpus : 1));
	st->prev_count = calloc(ns, sizeof(int));
	st->kept = calloc(ns, sizeof(int));
	st->used = calloc(ns, sizeof(int));
	st->future = calloc((size_t) ns * (T + 1), sizeof(int));
	st->quota = ga_quota_create(p);
	st->quota_use = st->quota ? calloc(ga_quota_use_len(st->quota), sizeof(int)) : NULL;
	if (!st->plan || !st->slack || !st->above || !st->guard || !st->hold || !st->largest || !st->prev_count ||
		!st->kept || !st->used || !st->future || !st->quota_use ||
		!milp_occ_copy(&st->occ, &m->base))
		return false;
	memcpy(st->slack, m->cap, sizeof(int) * (size_t) p->n_pools * T);
	for (int s = 0; s < p->n_services; s++)
		for (int t = 0; t < T; t++)
			st->slack[p->services[s].pool * T + t] -= svc_count[s * T + t];
	for (int i = 0; i < p->n_pools * T; i++)
		if (st->slack[i] < 0)
			return false;		/* the service counts do not fit */
	protect_guard(st);
	plan_future_churn(st);
	for (int g = 0; g < p->n_gpus; g++)
		st->hold[g] = -1;
	for (int s = 0; s < p->n_services; s++)
	{
		st->prev_count[s] = p->services[s].held_known ? p->services[s].n_held : -1;
		for (int i = 0; i < p->services[s].n_held; i++)
			if (st->hold[p->services[s].held_gpus[i]] < 0)
				st->hold[p->services[s].held_gpus[i]] = s;
	}
	for (int j = 0; j < p->n_jobs; j++)
		if (p->jobs[j].pinned)
		{
			ga_plan_place_job(st->plan, p, j, p->jobs[j].pinned_start,
							  p->jobs[j].pinned_first_gpu, p->jobs[j].pinned_size);
			ga_quota_count(st->quota, st->quota_use, p->jobs[j].tenant, p->jobs[j].pool,
						   p->jobs[j].pinned_start, p->jobs[j].pinned_end,
						   p->jobs[j].pinned_size, true, 1);
		}
	return true;
}

/*
 * For every GPU of the pool, the size of the largest aligned block holding
 * it that is free over [from, to) (0 when the GPU itself is taken).  With
 * services_free, GPUs held by services at step `from` count as free there.
 */
static void
compute_largest_free(map_state *st, const ga_pool *pool, int from, int to,
					 bool services_free)
{
	int		   *L = st->largest + pool->first_gpu;
	int			n = pool->n_gpus;

	for (int i = 0; i < n; i++)
	{
		int			g = pool->first_gpu + i;

		if (services_free && st->hold[g] >= 0)
			L[i] = milp_occ_range_free(&st->occ, g, from + 1, to) ? 1 : 0;
		else
			L[i] = milp_occ_range_free(&st->occ, g, from, to) ? 1 : 0;
	}
	for (int size = 2; size <= n; size *= 2)
		for (int rel = 0; rel + size <= n; rel += size)
		{
			int			half = size / 2;

			if (L[rel] == half && L[rel + half] == half)
				for (int i = rel; i < rel + size; i++)
					L[i] = size;
		}
}

/* A block of `size` at rel is free when its first GPU's free block covers it. */
static bool
block_is_free(const int *L, int rel, int size)
{
	return L[rel] >= size;
}

/*
 * Best-fit aligned free block of `size` (see above) that no maintenance
 * window touches over [t, end), end past the horizon too; or -1.
 */
static int
best_fit_block(const map_state *st, const ga_pool *pool, int tenant, int size,
			   int t, int end)
{
	const int  *L = st->largest + pool->first_gpu;
	int			best = -1;
	int			best_score = 0;

	for (int rel = 0; rel + size <= pool->n_gpus; rel += size)
	{
		int			parent = rel - rel % (2 * size);
		int			score;

		if (!block_is_free(L, rel, size) ||
			ga_block_closed(st->m->problem, tenant, pool->first_gpu + rel, size, t, end))
			continue;
		if (!st->best_fit)
			return pool->first_gpu + rel;

		/*
		 * The free block it sits in, measured one level up: a block whose
		 * buddy is taken scores `size`, in an otherwise empty parent more.
		 */
		score = L[rel];
		if (parent + 2 * size <= pool->n_gpus && L[parent] >= 2 * size)
			score = L[parent];
		if (best < 0 || score < best_score)
		{
			best = rel;
			best_score = score;
		}
	}
	return best < 0 ? -1 : pool->first_gpu + best;
}

/*
 * Whether one tier's guard (plus the curves of the services the job is
 * dense enough to displace, ga_service_protected_from) has room for `size`
 * over [from, from + steps), cut off at the horizon.
 */
static bool
guard_allows(const map_state *st, const ga_job *job, bool lengthened,
			 int size, int from, int steps)
{
	const ga_problem *p = st->m->problem;
	int			T = st->m->T;
	int			to = steps < T - from ? from + steps : T;
	const int  *guard = guard_of(st, lengthened, job->pool);

	for (int t = from; t < to; t++)
	{
		int			room = guard[t];

		for (int s = 0; s < p->n_services; s++)
			if (p->services[s].pool == job->pool &&
				!ga_service_protected_from(p, &p->services[s], job->priority))
				room += above_of(st, lengthened, s)[t];
		if (room < size)
			return false;
	}
	return true;
}

/*
 * Room for job on `size` GPUs from step `from`: the slack over its run,
 * and both tiers of the protect rule.
 */
static bool
slack_allows(const map_state *st, const ga_job *job, int size, int from)
{
	int			T = st->m->T;
	int			d = ga_job_duration(job, job->pool, size);

	for (int t = from; t < from + d && t < T; t++)
		if (st->slack[job->pool * T + t] < size)
			return false;
	if (!ga_quota_fits(st->quota, st->quota_use, job->tenant, job->pool, from, from + d, size))
		return false;			/* rules R9 and R10 over its run */
	return guard_allows(st, job, false, size, from, d) &&
		guard_allows(st, job, true, size, from, ga_protect_steps(st->m->problem, job, d));
}

static void
commit_job(map_state *st, int j, int start, int first, int size)
{
	const milp_model *m = st->m;
	const ga_job *job = &m->problem->jobs[j];
	int			end = start + ga_job_duration(job, job->pool, size);
	int			to = end < m->T ? end : m->T;

	for (int g = first; g < first + size; g++)
		milp_occ_mark_range(&st->occ, g, start, to);
	for (int t = start; t < to; t++)
		st->slack[job->pool * m->T + t] -= size;
	guard_run(st, job, start, end - start, size);
	ga_quota_count(st->quota, st->quota_use, job->tenant, job->pool, start, end, size, false, 1);
	ga_plan_place_job(st->plan, m->problem, j, start, first, size);
}

/* Churn service s spends at step t when it keeps `kept` of its GPUs. */
static int
step_churn(const map_state *st, int s, int t, int kept)
{
	if (st->prev_count[s] < 0)
		return 0;
	return st->prev_count[s] + st->svc_count[s * st->m->T + t] - 2 * kept;
}

/*
 * Can the services holding GPUs in [first, first+size) hand them over at
 * step t and take others, within churn limit and budget?
 */
static bool
eviction_allowed(const map_state *st, int first, int size, int t)
{
	const ga_problem *p = st->m->problem;

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		int			evicted = 0;
		int			churn;

		for (int g = first; g < first + size; g++)
			evicted += st->hold[g] == s;
		if (evicted == 0)
			continue;
		churn = step_churn(st, s, t, st->kept[s] - evicted);
		if (churn > svc->churn_limit && !(t == 0 && !svc->held_known))
			return false;
		if (svc->churn_budget >= 0 &&
			st->used[s] + churn + st->future[(size_t) s * (st->m->T + 1) + t] > svc->churn_budget)
			return false;
	}
	return true;
}

static void
evict_services(map_state *st, int first, int size, int t)
{
	for (int g = first; g < first + size; g++)
	{
		int			s = st->hold[g];

		if (s < 0)
			continue;
		st->hold[g] = -1;
		st->kept[s]--;
		st->occ.bits[(size_t) g * st->occ.words + (t >> 6)] &= ~(UINT64_C(1) << (t & 63));
		ga_plan_set(st->plan, g, t, GA_IDLE);
	}
}

/*
 * A block for job j of `size` over [t, end): best fit among free blocks, else
 * the lowest block that only service GPUs at step t stand in the way of and
 * whose services may hand them over.  No maintenance window may touch it
 * before `reach`, the run lengthened by the overrun margin, so the pool
 * drains ahead of a window.
 */
static int
find_job_block(map_state *st, const ga_pool *pool, int tenant, int size, int t,
			   int end, int reach)
{
	int			to = end < st->m->T ? end : st->m->T;
	int			first;

	compute_largest_free(st, pool, t, to, false);
	first = best_fit_block(st, pool, tenant, size, t, reach);
	if (first >= 0 || st->m->problem->n_services == 0)
		return first;
	compute_largest_free(st, pool, t, to, true);
	for (int rel = 0; rel + size <= pool->n_gpus; rel += size)
		if (block_is_free(st->largest + pool->first_gpu, rel, size) &&
			!ga_block_closed(st->m->problem, tenant, pool->first_gpu + rel, size, t, reach) &&
			eviction_allowed(st, pool->first_gpu + rel, size, t))
		{
			evict_services(st, pool->first_gpu + rel, size, t);
			return pool->first_gpu + rel;
		}
	return -1;
}

/*
 * Try to start job j at step t, its preferred size first and then the other
 * sizes by value; the service counts are protected by the slack.
 */
static bool
try_start_job(map_state *st, int j, int t, int preferred)
{
	const milp_model *m = st->m;
	const ga_job *job = &m->problem->jobs[j];
	const ga_pool *pool = &m->problem->pools[job->pool];
	const job_cols *jc = &m->jobs[j];
	bool		tried[MAX_SIZES] = {false};

	for (int attempt = 0; attempt < jc->n_sizes; attempt++)
	{
		int			k = -1;
		double		best = -1;

		for (int i = 0; i < jc->n_sizes; i++)
		{
			double		v = milp_start_value(m, job, jc->size[i], t);

			if (tried[i])
				continue;
			if (jc->size[i] == preferred)
				v = HUGE_VAL;
			if (v > best)
			{
				best = v;
				k = i;
			}
		}
		tried[k] = true;
		if (t >= job->release_step && t <= jc->last_start[k])
		{
			int			size = jc->size[k];
			int			end = t + ga_job_duration(job, job->pool, size);
			int			first;

			if (!slack_allows(st, job, size, t))
				continue;
			first = find_job_block(st, pool, job->tenant, size, t, end,
								   t + ga_protect_steps(m->problem, job, end - t));
			if (first >= 0)
			{
				commit_job(st, j, t, first, size);
				return true;
			}
		}
	}
	return false;
}

static void
hold_gpu(map_state *st, int g, int s, int t)
{
	st->hold[g] = s;
	milp_occ_mark_range(&st->occ, g, t, t + 1);
	ga_plan_set(st->plan, g, t, ga_service_workload(st->m->problem, s));
}

/* Services keep their GPUs at step t, dropping the lowest when shrinking. */
static void
services_keep(map_state *st, int t)
{
	const ga_problem *p = st->m->problem;

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_pool *pool = &p->pools[p->services[s].pool];
		int			lo = pool->first_gpu;
		int			hi = pool->first_gpu + pool->n_gpus;
		int			kept = 0;

		for (int g = lo; g < hi; g++)
			if (st->hold[g] == s)
			{
				if (milp_occ_free_at(&st->occ, g, t) && !ga_gpu_closed(p, g, t))
					kept++;
				else
					st->hold[g] = -1;
			}
		for (int g = lo; g < hi && kept > st->svc_count[s * st->m->T + t]; g++)
			if (st->hold[g] == s)
			{
				st->hold[g] = -1;
				kept--;
			}
		for (int g = lo; g < hi; g++)
			if (st->hold[g] == s)
				hold_gpu(st, g, s, t);
		st->kept[s] = kept;
	}
}

/* Services grow into the best-fit free GPUs of their pool at step t. */
static void
services_grow(map_state *st, int t)
{
	const ga_problem *p = st->m->problem;

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_pool *pool = &p->pools[p->services[s].pool];
		int			need = st->svc_count[s * st->m->T + t];
		int			count;

		for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
			need -= st->hold[g] == s;
		while (need > 0)
		{
			int			pick = -1;

			compute_largest_free(st, pool, t, t + 1, false);
			for (int g = pool->first_gpu + pool->n_gpus - 1; g >= pool->first_gpu; g--)
				if (st->hold[g] < 0 && st->largest[g] > 0 && !ga_gpu_closed(p, g, t) &&
					(pick < 0 || st->largest[g] < st->largest[pick]))
				{
					pick = g;
					if (!st->best_fit)
						break;
				}
			if (pick < 0)
				break;
			hold_gpu(st, pick, s, t);
			need--;
		}
		count = 0;
		for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
			count += st->hold[g] == s;
		if (st->prev_count[s] >= 0 || t > 0)
			st->used[s] += (st->prev_count[s] < 0 ? 0 : st->prev_count[s]) + count - 2 * st->kept[s];
		st->prev_count[s] = count;
	}
}

/* Jobs are ordered by up to three keys, ascending, then by index. */
typedef struct job_key
{
	double		k[3];
	int			job;
} job_key;

static int
compare_job_keys(const void *a, const void *b)
{
	const job_key *x = a;
	const job_key *y = b;

	for (int i = 0; i < 3; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

/*
 * Sort order[0..n) by keys[order[i]] (keys indexed by job).  Ordering only
 * steers quality, so without memory the order is left as it is.
 */
static void
sort_jobs_by_keys(int *order, int n, const job_key *keys)
{
	job_key    *tmp = malloc(sizeof(job_key) * (n > 0 ? n : 1));

	if (tmp == NULL)
		return;
	for (int i = 0; i < n; i++)
		tmp[i] = keys[order[i]];
	qsort(tmp, n, sizeof(job_key), compare_job_keys);
	for (int i = 0; i < n; i++)
		order[i] = tmp[i].job;
	free(tmp);
}

/* Target order: by start, then larger blocks, then higher priority. */
static void
target_keys(const ga_problem *p, const int *tgt_start, const int *tgt_size,
			job_key *keys)
{
	for (int j = 0; j < p->n_jobs; j++)
	{
		keys[j].k[0] = tgt_start[j];
		keys[j].k[1] = -tgt_size[j];
		keys[j].k[2] = -p->jobs[j].priority;
		keys[j].job = j;
	}
}

/* Fill order: higher priority, then more work. */
static void
fill_keys(const ga_problem *p, job_key *keys)
{
	for (int j = 0; j < p->n_jobs; j++)
	{
		keys[j].k[0] = -p->jobs[j].priority;
		keys[j].k[1] = -p->jobs[j].work_gpu_steps;
		keys[j].k[2] = 0;
		keys[j].job = j;
	}
}

/* Run the step simulation for the jobs that have a target start. */
static void
simulate_targets(map_state *st, int *order, int n_order, const int *tgt_start,
				 const int *tgt_size)
{
	int			T = st->m->T;

	for (int t = 0; t < T; t++)
	{
		services_keep(st, t);
		/* first the jobs due now, then those that had to wait */
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < n_order; i++)
			{
				int			j = order[i];

				if (j < 0 || (pass == 0 ? tgt_start[j] != t : tgt_start[j] >= t))
					continue;
				if (try_start_job(st, j, t, tgt_size[j]))
					order[i] = -1;
			}
		services_grow(st, t);
	}
}

/* Place every job still unplaced at its best position in the idle cells. */
static void
fill_idle(map_state *st, int *order, int n, job_key *keys)
{
	const milp_model *m = st->m;
	const ga_problem *p = m->problem;

	fill_keys(p, keys);
	sort_jobs_by_keys(order, n, keys);
	for (int i = 0; i < n; i++)
	{
		int			j = order[i];
		const ga_job *job = &p->jobs[j];
		const job_cols *jc = &m->jobs[j];
		double		best = 0;
		int			best_start = -1,
					best_first = -1,
					best_size = 0;

		for (int k = 0; k < jc->n_sizes; k++)
		{
			int			size = jc->size[k];
			int			d = ga_job_duration(job, job->pool, size);

			/* value only falls with a later start: the first fit is best */
			for (int s = job->release_step; s <= jc->last_start[k]; s++)
			{
				int			to = s + d < m->T ? s + d : m->T;
				int			first;

				if (milp_start_value(m, job, size, s) <= best)
					break;
				if (!slack_allows(st, job, size, s))
					continue;
				compute_largest_free(st, &p->pools[job->pool], s, to, false);
				first = best_fit_block(st, &p->pools[job->pool], job->tenant, size, s,
									   s + ga_protect_steps(p, job, d));
				if (first >= 0)
				{
					best = milp_start_value(m, job, size, s);
					best_start = s;
					best_first = first;
					best_size = size;
					break;
				}
			}
		}
		if (best_start >= 0)
			commit_job(st, j, best_start, best_first, best_size);
	}
}

/* The churn of every service (ga_service_churn) within its limit and budget. */
static bool
services_churn_ok(const ga_problem *p, const ga_plan *plan)
{
	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		long		total = 0;

		for (int t = 0; t < plan->n_steps; t++)
		{
			int			churn = ga_service_churn(p, plan, s, t);

			if (churn > svc->churn_limit && (t > 0 || svc->held_known))
				return false;
			total += churn;
		}
		if (svc->churn_budget >= 0 && total > svc->churn_budget)
			return false;
	}
	return true;
}

/* One mapping pass with the given placement policy (see above). */
static ga_plan *
map_with_policy(const milp_model *m, const int *tgt_start, const int *tgt_size,
				const int *svc_count, bool best_fit)
{
	const ga_problem *p = m->problem;
	map_state	st;
	int		   *order = malloc(sizeof(int) * (p->n_jobs > 0 ? p->n_jobs : 1));
	job_key    *keys = malloc(sizeof(job_key) * (p->n_jobs > 0 ? p->n_jobs : 1));
	int			n = 0;
	ga_plan    *result = NULL;

	if (order != NULL && keys != NULL && map_state_init(&st, m, svc_count, best_fit))
	{
		for (int j = 0; j < p->n_jobs; j++)
			if (!p->jobs[j].pinned && tgt_start[j] >= 0 && m->jobs[j].n_sizes > 0)
				order[n++] = j;
		target_keys(p, tgt_start, tgt_size, keys);
		sort_jobs_by_keys(order, n, keys);
		simulate_targets(&st, order, n, tgt_start, tgt_size);
		n = 0;
		for (int j = 0; j < p->n_jobs; j++)
			if (!p->jobs[j].pinned && st.plan->job_start[j] < 0 && m->jobs[j].n_sizes > 0)
				order[n++] = j;
		fill_idle(&st, order, n, keys);
		if (services_churn_ok(p, st.plan))
		{
			result = st.plan;
			st.plan = NULL;
			result->objective = ga_plan_objective(p, result);
		}
	}
	if (order != NULL && keys != NULL)
		map_state_free(&st);
	free(order);
	free(keys);
	return result;
}

/*
 * Turn target starts/sizes (-1 = none) and service counts into a legal plan,
 * or NULL when out of memory or when the service counts cannot be honoured.
 * Neither placement policy wins everywhere, so both run and the better plan
 * is kept.
 */
ga_plan *
milp_map_schedule(const milp_model *m, const int *tgt_start, const int *tgt_size,
			 const int *svc_count)
{
	const ga_problem *p = m->problem;
	size_t		n = (size_t) p->n_services * m->T;
	int		   *raised = NULL;
	ga_plan    *fit;
	ga_plan    *low;

	if (m->svc_floor != NULL && n > 0)
	{
		raised = malloc(sizeof(int) * n);
		if (raised == NULL)
			return NULL;
		for (size_t i = 0; i < n; i++)
			raised[i] = svc_count[i] > m->svc_floor[i] ? svc_count[i] : m->svc_floor[i];
		svc_count = raised;
	}
	fit = map_with_policy(m, tgt_start, tgt_size, svc_count, true);
	low = map_with_policy(m, tgt_start, tgt_size, svc_count, false);
	free(raised);

	if (fit == NULL || (low != NULL && low->objective > fit->objective))
	{
		ga_plan_destroy(fit);
		return low;
	}
	ga_plan_destroy(low);
	return fit;
}

/* ----------------------------------------------------------------------
 * Translations between plans, model solutions and aggregate schedules.
 * ----------------------------------------------------------------------
 */

/* Service counts per step of a plan, [n_services*T]. */
void
milp_plan_service_counts(const ga_problem *p, const ga_plan *plan, int *counts)
{
	for (int s = 0; s < p->n_services; s++)
		for (int t = 0; t < plan->n_steps; t++)
			counts[s * plan->n_steps + t] = ga_plan_service_gpus(p, plan, s, t);
}

/*
 * Targets from a (possibly fractional) model solution x (1-based): each job
 * takes its heaviest start column when its total weight reaches threshold.
 */
void
milp_targets_from_solution(const milp_model *m, const double *x, double threshold,
					  int *tgt_start, int *tgt_size)
{
	const ga_problem *p = m->problem;

	for (int j = 0; j < p->n_jobs; j++)
	{
		const job_cols *jc = &m->jobs[j];
		double		total = 0;
		double		top = 0;
		int			pick = -1;

		tgt_start[j] = -1;
		tgt_size[j] = -1;
		for (int k = 0; k < jc->n_sizes; k++)
			for (int i = jc->base[k]; i <= jc->base[k] + jc->last_start[k] - p->jobs[j].release_step; i++)
			{
				total += x[i + 1];
				if (x[i + 1] > top)
				{
					top = x[i + 1];
					pick = i;
				}
			}
		if (pick >= 0 && total >= threshold)
		{
			tgt_start[j] = m->cols[pick].start;
			tgt_size[j] = m->cols[pick].size;
		}
	}
}

/*
 * The model's column values for a legal plan (x 1-based), so GLPK can take
 * the plan as its incumbent.  Returns false when the plan is not a point of
 * the model (checked row by row, since GLPK accepts an incumbent unchecked).
 */
bool
milp_plan_to_columns(const milp_model *m, const ga_plan *plan, double *x)
{
	const ga_problem *p = m->problem;
	int			T = m->T;
	bool		ok = true;
	double	   *activity;

	memset(x, 0, sizeof(double) * (m->n_cols + 1));
	for (int j = 0; j < p->n_jobs && ok; j++)
	{
		int			start = plan->job_start[j];
		int			size = plan->job_size[j];
		int			col;

		if (p->jobs[j].pinned || start < 0)
			continue;
		col = milp_find_start_col(m, j, size, start);
		if (col < 0)
			return false;
		x[col + 1] = 1;
		for (int t = start; t < m->cols[col].end; t++)
			x[U_col(m, p->jobs[j].pool, t)] += size;
		for (int c = 0; c < m->n_chains; c++)
			if (m->chain_pool[c] == p->jobs[j].pool && size >= m->chain_level[c] &&
				(!m->chain_held[c] || milp_job_held(m, j)))
				for (int t = start; t < m->cols[col].end; t++)
					x[V_col(m, c, t)] += size / m->chain_level[c];
	}
	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		const int  *f = m->svc_free_churn + (size_t) s * T;
		int			prev = f[0];

		for (int t = 0; t < T; t++)
		{
			int			y = ga_plan_service_gpus(p, plan, s, t);
			int			fall = prev - y - (t > 0 ? f[t] : 0);
			int			change = y - prev > fall ? y - prev : fall;

			x[y_col(m, s, t)] = y;
			x[u_col(m, s, t)] = svc->demand[t] > y ? svc->demand[t] - y : 0;
			x[c_col(m, s, t)] = (t > 0 || svc->held_known) && change > 0 ? change : 0;
			prev = y;
		}
	}
	for (int j = 1; j <= m->n_cols && ok; j++)
		ok = x[j] >= m->col_lo[j] - 1e-9 && x[j] <= m->col_hi[j] + 1e-9;
	activity = calloc(m->n_rows + 1, sizeof(double));
	if (activity == NULL)
		return false;
	for (int k = 1; k <= m->nnz; k++)
		activity[m->ia[k]] += m->ar[k] * x[m->ja[k]];
	for (int i = 1; i <= m->n_rows && ok; i++)
		ok = activity[i] >= m->row_lo[i] - 1e-6 && activity[i] <= m->row_hi[i] + 1e-6;
	free(activity);
	return ok;
}
