/*
 * problem_split.c — independent parts of a problem and the merge of their
 * plans (problem_split.h).
 */
#include "model/problem_split.h"
#include "model/advance_reservation.h"
#include "model/tenant_quota.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
ga_pool_group_root(int *parent, int q)
{
	while (parent[q] != q)
	{
		parent[q] = parent[parent[q]];
		q = parent[q];
	}
	return q;
}

bool
ga_pool_groups_join(int *parent, int a, int b)
{
	a = ga_pool_group_root(parent, a);
	b = ga_pool_group_root(parent, b);
	if (a == b)
		return false;
	if (a < b)
		parent[b] = a;
	else
		parent[a] = b;
	return true;
}

/*
 * Link every pool a workload may use with the first of them.
 */
static void
link_pools(int *parent, const int *pools, int n)
{
	for (int i = 1; i < n; i++)
		(void) ga_pool_groups_join(parent, pools[0], pools[i]);
}

/* part[q]: the part of pool q, parts numbered by their first pool. */
static int
pool_parts(const ga_problem *p, int *parent, int *part)
{
	int			n_parts = 0;

	for (int q = 0; q < p->n_pools; q++)
		parent[q] = q;
	/* a job of several pools may take any of them: one part */
	for (int j = 0; j < p->n_jobs; j++)
		for (int i = 1; i < ga_job_n_pools(&p->jobs[j]); i++)
		{
			int			pair[2] = {p->jobs[j].pool, ga_job_pool_at(&p->jobs[j], i)};

			link_pools(parent, pair, 2);
		}
	/* a job and its predecessors are planned together: one part */
	for (int j = 0; j < p->n_jobs; j++)
		for (int i = 0; i < p->jobs[j].n_preds; i++)
		{
			int			pair[2] = {p->jobs[j].pool, p->jobs[p->jobs[j].preds[i]].pool};

			link_pools(parent, pair, 2);
		}
	for (int s = 0; s < p->n_services; s++)
		link_pools(parent, &p->services[s].pool, 1);
	for (int q = 0; q < p->n_pools; q++)
	{
		int			r = ga_pool_group_root(parent, q);

		part[q] = r == q ? n_parts++ : part[r];
	}
	return n_parts;
}

static void
part_free(ga_part *part)
{
	ga_problem_destroy(part->problem);
	free(part->pool_map);
	free(part->gpu_map);
	free(part->job_map);
	free(part->service_map);
}

void
ga_split_destroy(ga_split *split)
{
	if (split == NULL)
		return;
	for (int i = 0; i < split->n_parts; i++)
		part_free(&split->parts[i]);
	free(split->parts);
	free(split);
}

/* Counts of part k's pools, GPUs, jobs and services. */
static void
part_counts(const ga_problem *p, const int *part, int k, int *n)
{
	memset(n, 0, 4 * sizeof(int));
	for (int q = 0; q < p->n_pools; q++)
		if (part[q] == k)
		{
			n[0]++;
			n[1] += p->pools[q].n_gpus;
		}
	for (int j = 0; j < p->n_jobs; j++)
		n[2] += part[p->jobs[j].pool] == k;
	for (int s = 0; s < p->n_services; s++)
		n[3] += part[p->services[s].pool] == k;
}

static bool
alloc_maps(ga_part *pt, const int *n)
{
	pt->pool_map = malloc(sizeof(int) * (n[0] > 0 ? n[0] : 1));
	pt->gpu_map = malloc(sizeof(int) * (n[1] > 0 ? n[1] : 1));
	pt->job_map = malloc(sizeof(int) * (n[2] > 0 ? n[2] : 1));
	pt->service_map = malloc(sizeof(int) * (n[3] > 0 ? n[3] : 1));
	return pt->pool_map && pt->gpu_map && pt->job_map && pt->service_map;
}

/*
 * The part's pools and GPUs, renumbered contiguously in the whole's order;
 * pool_of[q] is the part's number for pool q of the whole (where it is in
 * the part), gpu_of[g] likewise for GPUs.
 */
static void
fill_pools(const ga_problem *p, const int *part, int k, ga_part *pt,
		   int *pool_of, int *gpu_of)
{
	ga_problem *sub = pt->problem;
	int			n_pools = 0;
	int			n_gpus = 0;

	for (int q = 0; q < p->n_pools; q++)
	{
		const ga_pool *pool = &p->pools[q];

		if (part[q] != k)
			continue;
		sub->pools[n_pools] = *pool;
		sub->pools[n_pools].first_gpu = n_gpus;
		pt->pool_map[n_pools] = q;
		pool_of[q] = n_pools++;
		for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
		{
			sub->gpu_usable[n_gpus] = p->gpu_usable[g];
			pt->gpu_map[n_gpus] = g;
			gpu_of[g] = n_gpus++;
		}
	}
}

/* The part's number of job `whole` (its map is sorted), -1 when absent. */
static int
part_job_of(const ga_part *pt, int n_jobs, int whole)
{
	int			lo = 0;
	int			hi = n_jobs - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;

		if (pt->job_map[mid] == whole)
			return mid;
		if (pt->job_map[mid] < whole)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/*
 * The part's jobs in the whole's order.  A predecessor lies in the same
 * part as its successor (pool_parts links their pools), so the part's
 * number for it is its rank among the part's jobs before it.
 */
static void
fill_jobs(const ga_problem *p, const int *part, int k, ga_part *pt,
		  const int *pool_of, const int *gpu_of)
{
	int			n_jobs = 0;

	for (int j = 0; j < p->n_jobs; j++)
	{
		ga_job	   *job;

		if (part[p->jobs[j].pool] != k)
			continue;
		job = &pt->problem->jobs[n_jobs];
		*job = p->jobs[j];
		job->pool = pool_of[job->pool];
		for (int i = 0; i < job->n_alt_pools; i++)
			job->alt_pools[i].pool = pool_of[job->alt_pools[i].pool];
		if (job->pinned)
			job->pinned_first_gpu = gpu_of[job->pinned_first_gpu];
		pt->job_map[n_jobs++] = j;
	}
	for (int j = 0; j < n_jobs; j++)
	{
		ga_job	   *job = &pt->problem->jobs[j];

		for (int i = 0; i < job->n_preds; i++)
			job->preds[i] = part_job_of(pt, n_jobs, job->preds[i]);
	}
}

static ga_status
fill_services(const ga_problem *p, const int *part, int k, ga_part *pt,
			  const int *pool_of, const int *gpu_of, ga_error *err)
{
	int			T = p->params.n_steps;
	int			n_services = 0;

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *from = &p->services[s];
		ga_service *svc;
		int		   *demand;
		int		   *protect;

		if (part[from->pool] != k)
			continue;
		svc = &pt->problem->services[n_services];
		demand = svc->demand;
		protect = svc->protect;
		*svc = *from;
		svc->pool = pool_of[from->pool];
		svc->demand = demand;
		svc->protect = protect;
		memcpy(demand, from->demand, sizeof(int) * T);
		memcpy(protect, from->protect, sizeof(int) * T);
		svc->held_known = false;
		svc->n_held = 0;
		svc->held_gpus = NULL;
		if (from->held_known)
		{
			ga_status	rc = ga_problem_set_held(pt->problem, n_services, from->held_gpus,
												 from->n_held, err);

			if (rc != GA_OK)
				return rc;
			for (int i = 0; i < svc->n_held; i++)
				svc->held_gpus[i] = gpu_of[svc->held_gpus[i]];
		}
		pt->service_map[n_services++] = s;
	}
	return GA_OK;
}

/* A window's cells on the part's pool and GPU numbers. */
static ga_window
part_window(const ga_window *w, const int *pool_of, const int *gpu_of)
{
	ga_window	out = *w;

	out.pool = pool_of[w->pool];
	out.first_gpu = gpu_of[w->first_gpu];
	return out;
}

/* The windows of the part's pools, on the part's GPU numbers. */
static ga_status
fill_windows(const ga_problem *p, const int *part, int k, ga_part *pt,
			 const int *pool_of, const int *gpu_of, ga_error *err)
{
	ga_window  *windows = malloc(sizeof(ga_window) * (p->n_windows > 0 ? p->n_windows : 1));
	int			n = 0;
	ga_status	rc;

	if (windows == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory splitting the problem");
	for (int i = 0; i < p->n_windows; i++)
	{
		const ga_window *w = &p->windows[i];

		if (part[w->pool] != k)
			continue;
		windows[n++] = part_window(w, pool_of, gpu_of);
	}
	rc = ga_problem_set_windows(pt->problem, windows, n, err);
	free(windows);
	return rc;
}

/*
 * The advance reservations of the part's pools, likewise.  A reservation
 * links no pools: its tenant's jobs stay in the parts of their own pools.
 */
static ga_status
fill_reservations(const ga_problem *p, const int *part, int k, ga_part *pt,
				  const int *pool_of, const int *gpu_of, ga_error *err)
{
	ga_advance_reservation *rs = malloc(sizeof(ga_advance_reservation) *
										(p->n_reservations > 0 ? p->n_reservations : 1));
	int			n = 0;
	ga_status	rc;

	if (rs == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory splitting the problem");
	for (int i = 0; i < p->n_reservations; i++)
	{
		if (part[p->reservations[i].cells.pool] != k)
			continue;
		rs[n].cells = part_window(&p->reservations[i].cells, pool_of, gpu_of);
		rs[n++].tenant = p->reservations[i].tenant;
	}
	rc = ga_problem_set_advance_reservations(pt->problem, rs, n, err);
	free(rs);
	return rc;
}

/*
 * The tenant policies of the part's pools, with the pools renumbered.
 * Rules R9 and R10 hold per pool (a cohort lends in one pool only), so a
 * policy links no pools: a tenant whose jobs span several parts is bounded
 * in each pool by that pool's policy alone, in the part holding the pool.
 */
static ga_status
fill_policies(const ga_problem *p, const int *part, int k, ga_part *pt,
			  const int *pool_of, ga_error *err)
{
	ga_tenant_policy *tps = malloc(sizeof(ga_tenant_policy) *
								   (p->n_policies > 0 ? p->n_policies : 1));
	int			n = 0;
	ga_status	rc;

	if (tps == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory splitting the problem");
	for (int i = 0; i < p->n_policies; i++)
	{
		if (part[p->policies[i].pool] != k)
			continue;
		tps[n] = p->policies[i];
		tps[n++].pool = pool_of[p->policies[i].pool];
	}
	rc = ga_problem_set_tenant_policies(pt->problem, tps, n, err);
	free(tps);
	return rc;
}

/* The tenants' forecast needs in the part's pools, the pools renumbered. */
static ga_status
fill_needs(const ga_problem *p, const int *part, int k, ga_part *pt,
		   const int *pool_of, ga_error *err)
{
	ga_tenant_need *needs = malloc(sizeof(ga_tenant_need) * (p->n_needs > 0 ? p->n_needs : 1));
	int			n = 0;
	ga_status	rc;

	if (needs == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory splitting the problem");
	for (int i = 0; i < p->n_needs; i++)
	{
		if (part[p->needs[i].pool] != k)
			continue;
		needs[n] = p->needs[i];
		needs[n++].pool = pool_of[p->needs[i].pool];
	}
	rc = ga_problem_set_tenant_needs(pt->problem, needs, n, err);
	free(needs);
	return rc;
}

static ga_status
build_part(const ga_problem *p, const int *part, int k, ga_part *pt,
		   int *pool_of, int *gpu_of, ga_error *err)
{
	int			n[4];
	ga_status	rc;

	part_counts(p, part, k, n);
	pt->problem = ga_problem_create(n[0], n[1], n[2], n[3], &p->params);
	if (pt->problem == NULL || !alloc_maps(pt, n))
		return ga_error_set(err, GA_ENOMEM, "out of memory splitting the problem");
	fill_pools(p, part, k, pt, pool_of, gpu_of);
	fill_jobs(p, part, k, pt, pool_of, gpu_of);
	if ((rc = fill_services(p, part, k, pt, pool_of, gpu_of, err)) != GA_OK)
		return rc;
	if ((rc = fill_windows(p, part, k, pt, pool_of, gpu_of, err)) != GA_OK)
		return rc;
	if ((rc = fill_reservations(p, part, k, pt, pool_of, gpu_of, err)) != GA_OK)
		return rc;
	if ((rc = fill_policies(p, part, k, pt, pool_of, err)) != GA_OK)
		return rc;
	if ((rc = fill_needs(p, part, k, pt, pool_of, err)) != GA_OK)
		return rc;
	return ga_problem_finish(pt->problem, err);
}

ga_status
ga_problem_split(const ga_problem *p, ga_split **out, ga_error *err)
{
	int			nq = p->n_pools > 0 ? p->n_pools : 1;
	int		   *parent = malloc(sizeof(int) * nq);
	int		   *part = malloc(sizeof(int) * nq);
	int		   *pool_of = malloc(sizeof(int) * nq);
	int		   *gpu_of = malloc(sizeof(int) * (p->n_gpus > 0 ? p->n_gpus : 1));
	ga_split   *split = calloc(1, sizeof(*split));
	ga_status	rc = GA_OK;

	*out = NULL;
	if (!parent || !part || !pool_of || !gpu_of || !split)
		rc = ga_error_set(err, GA_ENOMEM, "out of memory splitting the problem");
	if (rc == GA_OK)
	{
		int			n_parts = pool_parts(p, parent, part);

		split->parts = calloc(n_parts > 0 ? n_parts : 1, sizeof(ga_part));
		if (split->parts == NULL)
			rc = ga_error_set(err, GA_ENOMEM, "out of memory splitting the problem");
		for (int k = 0; k < n_parts && rc == GA_OK; k++)
		{
			split->n_parts++;
			rc = build_part(p, part, k, &split->parts[k], pool_of, gpu_of, err);
		}
	}
	free(parent);
	free(part);
	free(pool_of);
	free(gpu_of);
	if (rc != GA_OK)
	{
		ga_split_destroy(split);
		return rc;
	}
	*out = split;
	return GA_OK;
}

/* ------------------------------------------------------------------------
 * Merge
 * ------------------------------------------------------------------------ */

static ga_status
check_part_plan(const ga_part *pt, const ga_plan *plan, int k, const char *mode,
				ga_error *err)
{
	const ga_problem *sub = pt->problem;

	if (plan == NULL)
		return ga_error_set(err, GA_EINVAL, "part %d has no plan", k);
	if (plan->n_gpus != sub->n_gpus || plan->n_steps != sub->params.n_steps ||
		plan->n_jobs != sub->n_jobs || plan->n_services != sub->n_services)
		return ga_error_set(err, GA_EINVAL, "the plan of part %d is not a plan of that part", k);
	if (strcmp(plan->mode, mode) != 0)
		return ga_error_set(err, GA_EINVAL, "the plan of part %d is of mode \"%s\", part 0's of \"%s\"",
							k, plan->mode, mode);
	return GA_OK;
}

/* Copy a part's grid and placements into the whole's plan. */
static void
map_part(const ga_problem *p, const ga_part *pt, const ga_plan *from, ga_plan *to)
{
	const ga_problem *sub = pt->problem;
	int			T = from->n_steps;

	for (int g = 0; g < sub->n_gpus; g++)
		for (int t = 0; t < T; t++)
		{
			int32_t		w = ga_plan_get(from, g, t);

			if (w != GA_IDLE)
				w = w < sub->n_jobs ? pt->job_map[w]
					: ga_service_workload(p, pt->service_map[w - sub->n_jobs]);
			ga_plan_set(to, pt->gpu_map[g], t, w);
		}
	for (int j = 0; j < sub->n_jobs; j++)
	{
		int			whole = pt->job_map[j];

		to->job_start[whole] = from->job_start[j];
		to->job_size[whole] = from->job_size[j];
		to->job_first_gpu[whole] = from->job_first_gpu[j] < 0 ? from->job_first_gpu[j]
			: pt->gpu_map[from->job_first_gpu[j]];
	}
}

ga_status
ga_plan_merge(const ga_problem *p, const ga_split *split, ga_plan *const *plans,
			  ga_plan **out, ga_error *err)
{
	const char *mode = split->n_parts > 0 && plans[0] != NULL ? plans[0]->mode : "";
	ga_plan    *plan;
	double		bound = 0;
	ga_status	rc;

	*out = NULL;
	for (int k = 0; k < split->n_parts; k++)
		if ((rc = check_part_plan(&split->parts[k], plans[k], k, mode, err)) != GA_OK)
			return rc;
	if ((plan = ga_plan_create(p)) == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory merging plans");
	plan->solve_ms = 0;
	for (int k = 0; k < split->n_parts; k++)
	{
		map_part(p, &split->parts[k], plans[k], plan);
		bound += plans[k]->bound;
		plan->solve_ms = fmax(plan->solve_ms, plans[k]->solve_ms);
	}
	plan->mode = mode;
	plan->objective = ga_plan_objective(p, plan);
	plan->bound = bound;
	plan->gap = isfinite(bound) ? (bound - plan->objective) / fmax(fabs(bound), 1e-9) : NAN;
	*out = plan;
	return GA_OK;
}
