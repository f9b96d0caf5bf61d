/*
 * first_claim.c — the jobs a plan starts within their tenant's guarantee
 * (first_claim.h).
 */
#include "model/first_claim.h"
#include "model/tenant_quota.h"

#include <stdlib.h>

/* Sort key of the jobs a plan places: running jobs, then by start, then index. */
typedef struct placed
{
	int			start;
	int			job;
} placed;

static int
compare_placed(const void *a, const void *b)
{
	const placed *x = a;
	const placed *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

/* Count the placed jobs in order, marking those within their guarantee. */
static void
mark_claims(const ga_problem *p, const ga_plan *plan, const ga_quota *quota,
			int *use, const placed *order, int n, int *claim_start)
{
	for (int i = 0; i < n; i++)
	{
		int			j = order[i].job;
		const ga_job *job = &p->jobs[j];
		int			pool = ga_pool_of_gpu(p, plan->job_first_gpu[j]);
		int			start = plan->job_start[j];
		int			end = ga_plan_job_end(p, plan, j);
		int			size = plan->job_size[j];

		if (!job->pinned &&
			ga_quota_within_guarantee(quota, use, job->tenant, pool, start, end, size))
			claim_start[j] = start;
		ga_quota_count(quota, use, job->tenant, pool, start, end, size, job->pinned, 1);
	}
}

ga_status
ga_first_claims(const ga_problem *p, const ga_plan *plan, int *claim_start,
				ga_error *err)
{
	ga_quota   *quota;
	int		   *use;
	placed	   *order;
	int			n = 0;

	for (int j = 0; j < p->n_jobs; j++)
		claim_start[j] = -1;
	if (p->n_policies == 0)
		return GA_OK;
	quota = ga_quota_create(p);
	use = quota != NULL ? calloc(ga_quota_use_len(quota), sizeof(int)) : NULL;
	order = malloc(sizeof(placed) * (p->n_jobs > 0 ? p->n_jobs : 1));
	if (quota == NULL || use == NULL || order == NULL)
	{
		ga_quota_destroy(quota);
		free(use);
		free(order);
		return ga_error_set(err, GA_ENOMEM, "out of memory finding first claims");
	}
	for (int j = 0; j < p->n_jobs; j++)
		if (plan->job_size[j] > 0)
		{
			/* running jobs first: their GPUs are held whatever comes */
			order[n].start = p->jobs[j].pinned ? -1 - p->params.n_steps : plan->job_start[j];
			order[n++].job = j;
		}
	qsort(order, n, sizeof(placed), compare_placed);
	mark_claims(p, plan, quota, use, order, n, claim_start);
	ga_quota_destroy(quota);
	free(use);
	free(order);
	return GA_OK;
}

bool
ga_keeps_first_claims(const ga_problem *p, const ga_plan *plan,
					  const int *claim_start)
{
	for (int j = 0; j < p->n_jobs; j++)
		if (claim_start[j] >= 0 &&
			(plan->job_size[j] <= 0 || plan->job_start[j] > claim_start[j]))
			return false;
	return true;
}
