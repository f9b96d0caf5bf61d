/*
 * test_serial.c — problems and plans through flat buffers: a round trip
 * gives back every field, and a reader refuses buffers that are truncated,
 * of another version or kind, of another problem, or whose counts lie.
 */
#include "unit.h"
#include "split_fixture.h"
#include "model/serial.h"
#include "model/validate.h"
#include "solve/solve.h"

#include <stdlib.h>

static void *
write_problem(const ga_problem *p, size_t *len)
{
	void	   *buf;

	*len = ga_problem_serial_size(p);
	buf = malloc(*len);
	if (buf != NULL && ga_problem_write(p, buf, *len, NULL) != GA_OK)
	{
		free(buf);
		return NULL;
	}
	return buf;
}

static void
check_same_jobs(const ga_problem *a, const ga_problem *b)
{
	for (int j = 0; j < a->n_jobs; j++)
	{
		const ga_job *x = &a->jobs[j];
		const ga_job *y = &b->jobs[j];

		CHECK(x->id == y->id && strcmp(x->name, y->name) == 0 && x->pool == y->pool);
		CHECK(x->priority == y->priority && x->work_gpu_steps == y->work_gpu_steps);
		CHECK(x->gpus_min == y->gpus_min && x->gpus_max == y->gpus_max);
		CHECK(x->release_step == y->release_step && x->deadline_step == y->deadline_step);
		CHECK(x->pinned == y->pinned && x->pinned_start == y->pinned_start &&
			  x->pinned_end == y->pinned_end && x->pinned_first_gpu == y->pinned_first_gpu &&
			  x->pinned_size == y->pinned_size);
		CHECK(x->duration_p90_ratio == y->duration_p90_ratio);
	}
}

static void
check_same_services(const ga_problem *a, const ga_problem *b)
{
	int			T = a->params.n_steps;

	for (int s = 0; s < a->n_services; s++)
	{
		const ga_service *x = &a->services[s];
		const ga_service *y = &b->services[s];

		CHECK(x->id == y->id && strcmp(x->name, y->name) == 0 && x->pool == y->pool);
		CHECK(x->priority == y->priority && x->churn_limit == y->churn_limit &&
			  x->churn_budget == y->churn_budget && x->min_gpus == y->min_gpus &&
			  x->max_gpus == y->max_gpus);
		CHECK(memcmp(x->demand, y->demand, sizeof(int) * T) == 0);
		CHECK(memcmp(x->protect, y->protect, sizeof(int) * T) == 0);
		CHECK(x->day_peak == y->day_peak);
		CHECK(x->held_known == y->held_known && x->n_held == y->n_held);
		CHECK(x->n_held == 0 || memcmp(x->held_gpus, y->held_gpus, sizeof(int) * x->n_held) == 0);
	}
}

static void
check_same_problem(const ga_problem *a, const ga_problem *b)
{
	CHECK(memcmp(&a->params, &b->params, sizeof(ga_params)) == 0);
	CHECK_INT_EQ(a->n_pools, b->n_pools);
	CHECK_INT_EQ(a->n_gpus, b->n_gpus);
	CHECK_INT_EQ(a->n_jobs, b->n_jobs);
	CHECK_INT_EQ(a->n_services, b->n_services);
	if (a->n_pools != b->n_pools || a->n_gpus != b->n_gpus ||
		a->n_jobs != b->n_jobs || a->n_services != b->n_services)
		return;
	CHECK(memcmp(a->pools, b->pools, sizeof(ga_pool) * a->n_pools) == 0);
	CHECK(memcmp(a->gpu_usable, b->gpu_usable, sizeof(bool) * a->n_gpus) == 0);
	CHECK(memcmp(a->decay, b->decay, sizeof(double) * a->params.n_steps) == 0);
	CHECK(a->tail_decay == b->tail_decay && a->step_decay == b->step_decay);
	check_same_jobs(a, b);
	check_same_services(a, b);
}

TEST(serial_problem_round_trip)
{
	for (uint64_t seed = 1; seed <= 12; seed++)
	{
		ga_problem *pools[3];
		ga_problem *p;
		ga_problem *back = NULL;
		size_t		len;
		void	   *buf;
		ga_error	err;

		for (int q = 0; q < 3; q++)
			pools[q] = sf_pool(seed * 7 + q, 8 << q, 4 + q, seed % 4 == 0 ? 70 : 20);
		p = sf_stack(pools, 3);
		for (int q = 0; q < 3; q++)
			ga_problem_destroy(pools[q]);
		CHECK(p != NULL);
		if (p == NULL)
			continue;
		p->params.overrun_spread = 0.25 * (double) (seed % 4);
		for (int j = 0; j < p->n_jobs; j++)
			p->jobs[j].duration_p90_ratio = j % 3 == 0 ? 0 : 1 + 0.1 * (double) j;
		for (int s = 0; s < p->n_services; s++)
			p->services[s].day_peak = (int) (seed + (uint64_t) s) % 5;
		buf = write_problem(p, &len);
		CHECK(buf != NULL);
		CHECK_MSG(ga_problem_read(buf, len, &back, &err) == GA_OK, "%s", err.message);
		if (back != NULL)
		{
			size_t		len2;
			void	   *again = write_problem(back, &len2);

			check_same_problem(p, back);
			CHECK(again != NULL && len2 == len && memcmp(buf, again, len) == 0);
			free(again);
		}
		ga_problem_destroy(back);
		ga_problem_destroy(p);
		free(buf);
	}
}

TEST(serial_plan_round_trip)
{
	ga_problem *p = sf_pool(11, 32, 12, 24);
	ga_solve_options opts = {.time_limit_ms = 1000};
	ga_plan    *plan = NULL;
	ga_plan    *back = NULL;
	size_t		len = ga_plan_serial_size(p);
	char	   *buf = malloc(len);
	ga_error	err;

	CHECK(ga_solve_fast(p, &opts, &plan, &err) == GA_OK);
	plan->bound = 123.5;
	CHECK(ga_plan_write(plan, buf, len - 1, &err) == GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "bytes");
	CHECK_MSG(ga_plan_write(plan, buf, len, &err) == GA_OK, "%s", err.message);
	CHECK_MSG(ga_plan_read(buf, len, p, &back, &err) == GA_OK, "%s", err.message);
	if (back != NULL)
	{
		CHECK(memcmp(plan->cell, back->cell, sizeof(int32_t) * plan->n_gpus * plan->n_steps) == 0);
		CHECK(memcmp(plan->job_start, back->job_start, sizeof(int) * plan->n_jobs) == 0);
		CHECK(memcmp(plan->job_size, back->job_size, sizeof(int) * plan->n_jobs) == 0);
		CHECK(memcmp(plan->job_first_gpu, back->job_first_gpu, sizeof(int) * plan->n_jobs) == 0);
		CHECK(plan->objective == back->objective && back->bound == 123.5 && isnan(back->gap));
		CHECK(plan->solve_ms == back->solve_ms);
		CHECK(strcmp(back->mode, "fast") == 0);
		CHECK(ga_validate(p, back, &err) == GA_OK);
	}
	/* a mode the format does not know is refused by the writer */
	plan->mode = "baseline";
	CHECK(ga_plan_write(plan, buf, len, &err) == GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "mode");
	ga_plan_destroy(plan);
	ga_plan_destroy(back);
	ga_problem_destroy(p);
	free(buf);
}

/*
 * The spreads are the buffer's tail: a version-7 buffer, the layout before
 * them, reads with none (every job lengthened by the overrun margin, as
 * that version planned); a ratio breaking the model's rule is refused.
 */
TEST(serial_spreads_are_the_tail_and_version_7_reads_without)
{
	ga_problem *p = sf_pool(3, 16, 6, 12);
	ga_problem *back = NULL;
	size_t		len;
	char	   *buf;
	uint32_t	version = GA_SERIAL_VERSION_NO_SPREAD;
	int64_t		old_len;
	double		bad = 0.5;
	ga_error	err;

	p->params.overrun_spread = 0.75;
	for (int j = 0; j < p->n_jobs; j++)
		p->jobs[j].duration_p90_ratio = 1.5;
	buf = write_problem(p, &len);
	CHECK(buf != NULL);
	if (buf == NULL)
	{
		ga_problem_destroy(p);
		return;
	}
	/* the last job's ratio, the 8 bytes before the services' day peaks, below 1 */
	memcpy(buf + len - sizeof(int32_t) * p->n_services - sizeof(double), &bad, sizeof(bad));
	CHECK_INT_EQ(ga_problem_read(buf, len, &back, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "duration_p90_ratio must be 0 (no spread) or between 1 and 100");
	old_len = (int64_t) len - (int64_t) sizeof(int32_t) * p->n_services -
		(int64_t) sizeof(double) * (1 + p->n_jobs);
	memcpy(buf + 4, &version, sizeof(version));
	memcpy(buf + 12, &old_len, sizeof(old_len));
	CHECK_MSG(ga_problem_read(buf, (size_t) old_len, &back, &err) == GA_OK, "%s", err.message);
	if (back != NULL)
	{
		CHECK(back->params.overrun_spread == 0);
		for (int j = 0; j < back->n_jobs; j++)
			CHECK(back->jobs[j].duration_p90_ratio == 0);
		CHECK_NEAR(ga_job_overrun_margin(back, &back->jobs[0]), back->params.overrun_margin, 1e-12);
	}
	ga_problem_destroy(back);
	ga_problem_destroy(p);
	free(buf);
}

TEST(serial_reader_refuses_bad_buffers)
{
	ga_problem *p = sf_pool(5, 16, 6, 12);
	ga_problem *other = sf_pool(6, 8, 6, 12);
	ga_problem *back = NULL;
	ga_plan    *plan = NULL;
	size_t		len;
	char	   *buf = write_problem(p, &len);
	char	   *copy = malloc(len);
	size_t		plen = ga_plan_serial_size(p);
	char	   *pbuf = malloc(plen);
	ga_solve_options opts = {.time_limit_ms = 100};
	ga_error	err;

	/* every truncation is refused, none read past the end */
	for (size_t cut = 0; cut < len; cut += cut < 64 ? 1 : 13)
	{
		memcpy(copy, buf, len);
		CHECK_MSG(ga_problem_read(copy, cut, &back, &err) == GA_EINVAL, "cut at %zu", cut);
		CHECK(back == NULL);
	}
	/* another format version */
	memcpy(copy, buf, len);
	copy[4] ^= 0x7f;
	CHECK(ga_problem_read(copy, len, &back, &err) == GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "format version");
	/* a count that does not fit: the GPU count right after the parameters */
	memcpy(copy, buf, len);
	{
		int32_t		huge = 1 << 30;
		size_t		at = 3 * 4 + 8 + 2 * 4 + 4 * 8 + 4;

		memcpy(copy + at, &huge, sizeof(huge));
	}
	CHECK(ga_problem_read(copy, len, &back, &err) == GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "do not fit");
	/* a count smaller than what follows: one job fewer */
	memcpy(copy, buf, len);
	{
		int32_t		jobs;
		size_t		at = 3 * 4 + 8 + 2 * 4 + 4 * 8 + 2 * 4;

		memcpy(&jobs, copy + at, sizeof(jobs));
		jobs--;
		memcpy(copy + at, &jobs, sizeof(jobs));
	}
	CHECK(ga_problem_read(copy, len, &back, &err) == GA_EINVAL);
	/* the services are then read from shifted bytes: whichever check trips first */
	CHECK_MSG(strstr(err.message, "do not fill") != NULL ||
			  strstr(err.message, "bad held GPU list") != NULL, "%s", err.message);
	/* a field breaking a rule of the model: the reader finishes the problem */
	memcpy(copy, buf, len);
	{
		int32_t		steps = 0;

		memcpy(copy + 3 * 4 + 8, &steps, sizeof(steps));
	}
	CHECK(ga_problem_read(copy, len, &back, &err) == GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "n_steps");
	/* a plan is not a problem, and a plan of one problem is not another's */
	CHECK(ga_solve_fast(p, &opts, &plan, &err) == GA_OK);
	CHECK(ga_plan_write(plan, pbuf, plen, &err) == GA_OK);
	CHECK(ga_problem_read(pbuf, plen, &back, &err) == GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "holds a plan");
	ga_plan_destroy(plan);
	plan = NULL;
	CHECK(ga_plan_read(pbuf, plen, other, &plan, &err) == GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "but the problem has");
	CHECK(plan == NULL);
	CHECK(ga_plan_read(pbuf, plen - 1, p, &plan, &err) == GA_EINVAL);
	CHECK(plan == NULL);
	CHECK(ga_problem_read(buf, len, &back, &err) == GA_OK);
	ga_problem_destroy(back);
	ga_problem_destroy(p);
	ga_problem_destroy(other);
	free(buf);
	free(copy);
	free(pbuf);
}

/*
 * The services' day peaks are the buffer's tail after the spreads: a
 * version-8 buffer, the layout before them, reads with none (0, the short
 * horizon's terminal charge as that version made it).
 */
TEST(serial_day_peaks_are_the_tail_and_version_8_reads_without)
{
	ga_problem *p = sf_pool(4, 16, 6, 12);
	ga_problem *back = NULL;
	size_t		len;
	char	   *buf;
	uint32_t	version = GA_SERIAL_VERSION_NO_DAY_PEAK;
	int64_t		old_len;
	ga_error	err;

	CHECK(p->n_services > 0);
	for (int s = 0; s < p->n_services; s++)
		p->services[s].day_peak = 3 + s;
	buf = write_problem(p, &len);
	CHECK(buf != NULL);
	if (buf == NULL)
	{
		ga_problem_destroy(p);
		return;
	}
	CHECK_MSG(ga_problem_read(buf, len, &back, &err) == GA_OK, "%s", err.message);
	for (int s = 0; back != NULL && s < back->n_services; s++)
		CHECK_INT_EQ(back->services[s].day_peak, 3 + s);
	ga_problem_destroy(back);
	back = NULL;
	old_len = (int64_t) len - (int64_t) sizeof(int32_t) * p->n_services;
	memcpy(buf + 4, &version, sizeof(version));
	memcpy(buf + 12, &old_len, sizeof(old_len));
	CHECK_MSG(ga_problem_read(buf, (size_t) old_len, &back, &err) == GA_OK, "%s", err.message);
	for (int s = 0; back != NULL && s < back->n_services; s++)
		CHECK_INT_EQ(back->services[s].day_peak, 0);
	ga_problem_destroy(back);
	ga_problem_destroy(p);
	free(buf);
}

