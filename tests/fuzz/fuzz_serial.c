/*
 * fuzz_serial.c — libFuzzer target for the readers of serialised problems
 * and plans (model/serial.h), which a pool solver and its planner use to
 * pass parts and plans through shared memory.
 *
 * A valid buffer rarely comes out of random bytes, so the input edits valid
 * ones: its first byte picks a small problem built here (its size and
 * whether it has services, pinned jobs and held GPUs), and each further
 * three bytes overwrite one byte of that problem's buffer, or of a plan of
 * it, at a 16-bit offset; a final odd byte cuts the buffer short.  Both
 * readers then read the edited buffers.
 *
 * Beyond the sanitizers, the target checks what the header promises: a
 * failing read returns no object and a message; a problem read back is
 * finished and writes back to a buffer that reads back to the same bytes;
 * a plan read back is of the problem it was read for.  A broken promise
 * aborts.
 */
#include "model/serial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) \
	do { if (!(cond)) { fprintf(stderr, "fuzz_serial: %s:%d: %s\n", __FILE__, __LINE__, #cond); abort(); } } while (0)

/* A small finished problem of two pools, shaped by the selector byte. */
static ga_problem *
make_problem(uint8_t sel)
{
	ga_params	params = {.n_steps = 1 + sel % 6, .step_minutes = 30, .penalty = 8,
	.half_life_hours = 12, .headroom = 0.5, .overrun_margin = 0.6};
	int			n_services = (sel >> 3) % 3;
	int			n_jobs = 1 + (sel >> 5);
	ga_problem *p = ga_problem_create(2, 8, n_jobs, n_services, &params);

	CHECK(p != NULL);
	for (int q = 0; q < 2; q++)
	{
		snprintf(p->pools[q].name, GA_NAME_LEN, "pool%d", q);
		p->pools[q].first_gpu = 4 * q;
		p->pools[q].n_gpus = 4;
	}
	for (int j = 0; j < n_jobs; j++)
	{
		ga_job	   *job = &p->jobs[j];

		snprintf(job->name, GA_NAME_LEN, "job%d", j);
		job->id = j + 1;
		job->pool = j % 2;
		job->priority = 1 + j;
		job->gpus_min = 1;
		job->gpus_max = 2;
		job->work_gpu_steps = 3;
		if (j == 0 && (sel & 4))
		{
			job->pinned = true;
			job->pinned_start = -1;
			job->pinned_end = 2;
			job->pinned_first_gpu = 0;
			job->pinned_size = 2;
		}
	}
	for (int s = 0; s < n_services; s++)
	{
		ga_service *svc = &p->services[s];
		int			held[2] = {6, 7};

		snprintf(svc->name, GA_NAME_LEN, "svc%d", s);
		svc->id = 100 + s;
		svc->pool = 1;
		svc->priority = 1;
		svc->churn_limit = 1;
		svc->max_gpus = 4;
		for (int t = 0; t < params.n_steps; t++)
			svc->demand[t] = t % 3;
		if (s == 0)
			CHECK(ga_problem_set_held(p, s, held, 2, NULL) == GA_OK);
	}
	CHECK(ga_problem_finish(p, NULL) == GA_OK);
	return p;
}

/* An all-idle fast plan of the problem. */
static ga_plan *
make_plan(const ga_problem *p)
{
	ga_plan    *plan = ga_plan_create(p);

	CHECK(plan != NULL);
	plan->mode = "fast";
	return plan;
}

/* Apply the input's edits to buf; returns the length to read. */
static size_t
apply_edits(uint8_t *buf, size_t len, const uint8_t *data, size_t size)
{
	size_t		i = 1;

	for (; i + 3 <= size; i += 3)
	{
		size_t		at = ((size_t) data[i] << 8 | data[i + 1]) % len;

		buf[at] = data[i + 2];
	}
	if (i < size && (data[i] & 1))
		return len - 1 - data[i] % len;
	return len;
}

static void
check_problem_read(const uint8_t *buf, size_t len)
{
	ga_problem *p = NULL;
	ga_error	err;

	ga_error_clear(&err);
	if (ga_problem_read(buf, len, &p, &err) != GA_OK)
	{
		CHECK(p == NULL);
		CHECK(err.code != GA_OK && err.message[0] != '\0');
		return;
	}
	{
		size_t		n = ga_problem_serial_size(p);
		uint8_t    *again = malloc(n);
		uint8_t    *third = malloc(n);
		ga_problem *back = NULL;

		CHECK(again != NULL && third != NULL);
		CHECK(p->params.n_steps > 0 && p->decay[0] == 1.0);
		CHECK(ga_problem_write(p, again, n, &err) == GA_OK);
		CHECK(ga_problem_read(again, n, &back, &err) == GA_OK);
		CHECK(ga_problem_write(back, third, n, &err) == GA_OK);
		CHECK(memcmp(again, third, n) == 0);
		ga_problem_destroy(back);
		free(again);
		free(third);
	}
	ga_problem_destroy(p);
}

static void
check_plan_read(const uint8_t *buf, size_t len, const ga_problem *p)
{
	ga_plan    *plan = NULL;
	ga_error	err;

	ga_error_clear(&err);
	if (ga_plan_read(buf, len, p, &plan, &err) != GA_OK)
	{
		CHECK(plan == NULL);
		CHECK(err.code != GA_OK && err.message[0] != '\0');
		return;
	}
	CHECK(plan->n_gpus == p->n_gpus && plan->n_steps == p->params.n_steps);
	CHECK(plan->n_jobs == p->n_jobs && plan->n_services == p->n_services);
	CHECK(plan->mode != NULL);
	ga_plan_destroy(plan);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ga_problem *p;
	ga_plan    *plan;
	size_t		plen;
	size_t		qlen;
	uint8_t    *pbuf;
	uint8_t    *qbuf;

	if (size < 1)
		return 0;
	p = make_problem(data[0]);
	plan = make_plan(p);
	plen = ga_problem_serial_size(p);
	qlen = ga_plan_serial_size(p);
	pbuf = malloc(plen);
	qbuf = malloc(qlen);
	CHECK(pbuf != NULL && qbuf != NULL);
	CHECK(ga_problem_write(p, pbuf, plen, NULL) == GA_OK);
	CHECK(ga_plan_write(plan, qbuf, qlen, NULL) == GA_OK);
	check_problem_read(pbuf, apply_edits(pbuf, plen, data, size));
	check_plan_read(qbuf, apply_edits(qbuf, qlen, data, size), p);
	free(pbuf);
	free(qbuf);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
	return 0;
}
