/*
 * pool_choice.c — jobs of several pools held to one (pool_choice.h).
 */
#include "model/pool_choice.h"

#include "model/serial.h"

#include <stdlib.h>

bool
ga_problem_has_pool_choice(const ga_problem *problem)
{
	for (int j = 0; j < problem->n_jobs; j++)
		if (problem->jobs[j].n_alt_pools > 0)
			return true;
	return false;
}

/* A finished copy of the problem, through its serial form. */
static ga_status
copy_problem(const ga_problem *problem, ga_problem **out, ga_error *err)
{
	size_t		size = ga_problem_serial_size(problem);
	void	   *buf = malloc(size);
	ga_status	rc;

	*out = NULL;
	if (buf == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory copying a problem");
	rc = ga_problem_write(problem, buf, size, err);
	if (rc == GA_OK)
		rc = ga_problem_read(buf, size, out, err);
	free(buf);
	return rc;
}

ga_status
ga_problem_fix_pools(const ga_problem *problem, const ga_plan *plan,
					 ga_problem **out, ga_error *err)
{
	ga_problem *fixed;
	ga_status	rc = copy_problem(problem, &fixed, err);

	*out = NULL;
	if (rc != GA_OK)
		return rc;
	for (int j = 0; j < fixed->n_jobs; j++)
	{
		ga_job	   *job = &fixed->jobs[j];
		int			rank = 0;

		if (job->n_alt_pools == 0)
			continue;
		if (j < plan->n_jobs && plan->job_size[j] > 0)
			rank = ga_job_pool_rank(job, ga_pool_of_gpu(fixed, plan->job_first_gpu[j]));
		*job = ga_job_on_pool(job, rank > 0 ? rank : 0);
	}
	*out = fixed;
	return GA_OK;
}
