/*
 * metrics.c — the metrics (docs/model.md, Metrics) from a run record.
 */
#include "sim/metrics.h"

#include "forecast/forecast_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ga_run_record *
ga_run_record_create(int n_gpus, int n_steps, int n_services,
					 double step_hours, int n_jobs)
{
	ga_run_record *rec = calloc(1, sizeof(*rec));
	size_t		cells = (size_t) (n_services > 0 ? n_services : 1) * (n_steps > 0 ? n_steps : 1);

	if (rec == NULL)
		return NULL;
	rec->n_gpus = n_gpus;
	rec->n_steps = n_steps;
	rec->n_services = n_services;
	rec->step_hours = step_hours;
	rec->n_jobs = n_jobs;
	rec->reservation_delay = -1;
	rec->batch_gpus = calloc(n_steps > 0 ? n_steps : 1, sizeof(int));
	rec->svc_alloc = calloc(cells, sizeof(int));
	rec->svc_demand = calloc(cells, sizeof(int));
	rec->svc_churn = calloc(cells, sizeof(int));
	rec->window_busy = calloc(n_steps > 0 ? n_steps : 1, sizeof(int));
	rec->jobs = calloc(n_jobs > 0 ? n_jobs : 1, sizeof(ga_job_outcome));
	if (!rec->batch_gpus || !rec->svc_alloc || !rec->svc_demand || !rec->svc_churn ||
		!rec->window_busy || !rec->jobs)
	{
		ga_run_record_destroy(rec);
		return NULL;
	}
	return rec;
}

void
ga_run_record_destroy(ga_run_record *rec)
{
	if (rec == NULL)
		return;
	free(rec->batch_gpus);
	free(rec->svc_alloc);
	free(rec->svc_demand);
	free(rec->svc_churn);
	free(rec->window_busy);
	free(rec->jobs);
	free(rec->solve_ms);
	free(rec);
}

ga_status
ga_run_record_add_solve(ga_run_record *rec, double ms, ga_error *err)
{
	if (rec->n_solves >= rec->cap_solves)
	{
		int			nc = rec->cap_solves > 0 ? rec->cap_solves * 2 : 64;
		double	   *p = realloc(rec->solve_ms, sizeof(double) * nc);

		if (p == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory recording solve times");
		rec->solve_ms = p;
		rec->cap_solves = nc;
	}
	rec->solve_ms[rec->n_solves++] = ms;
	return GA_OK;
}

double
ga_metrics_quantile(const double *values, int n, double q)
{
	double	   *copy;
	double		r;

	if (n <= 0)
		return NAN;
	copy = malloc(sizeof(double) * n);
	if (copy == NULL)
		return NAN;
	memcpy(copy, values, sizeof(double) * n);
	r = ga_quantile(copy, n, q);
	free(copy);
	return r;
}

/* Busy, served, demanded and unmet GPU-steps, and churn, over the window. */
static void
step_metrics(const ga_run_record *rec, ga_metrics *m)
{
	double		busy = 0,
				served = 0,
				demanded = 0;
	long		churn = 0;

	for (int t = 0; t < rec->n_steps; t++)
		busy += rec->batch_gpus[t];
	for (int s = 0; s < rec->n_services; s++)
		for (int t = 0; t < rec->n_steps; t++)
		{
			size_t		i = (size_t) s * rec->n_steps + t;
			int			d = rec->svc_demand[i];
			int			a = rec->svc_alloc[i];

			served += a < d ? a : d;
			demanded += d;
			churn += rec->svc_churn[i];
		}
	busy += served;
	m->utilization = rec->n_gpus > 0 && rec->n_steps > 0 ?
		busy / ((double) rec->n_gpus * rec->n_steps) : 0;
	m->coverage = demanded > 0 ? served / demanded : 1.0;
	m->unmet_gpu_hours = (demanded - served) * rec->step_hours;
	m->churn = (double) churn;
	m->window_violations = 0;
	for (int t = 0; t < rec->n_steps; t++)
		m->window_violations += rec->window_busy[t];
}

static int
priority_desc(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x > y ? -1 : x < y ? 1 : 0;
}

/* Mean and p95 wait of the jobs whose priority is p (all when p is NAN). */
static void
wait_of(const ga_run_record *rec, double p, double *buf, int *n, double *mean,
		double *p95)
{
	double		sum = 0;

	*n = 0;
	for (int j = 0; j < rec->n_jobs; j++)
		if (isnan(p) || rec->jobs[j].priority == p)
		{
			buf[(*n)++] = rec->jobs[j].wait_hours;
			sum += rec->jobs[j].wait_hours;
		}
	*mean = *n > 0 ? sum / *n : NAN;
	*p95 = ga_metrics_quantile(buf, *n, 0.95);
}

static ga_status
wait_metrics(const ga_run_record *rec, ga_metrics *m, ga_error *err)
{
	double	   *buf = malloc(sizeof(double) * (rec->n_jobs > 0 ? rec->n_jobs : 1));
	double	   *prios = malloc(sizeof(double) * (rec->n_jobs > 0 ? rec->n_jobs : 1));
	int			n;

	if (buf == NULL || prios == NULL)
	{
		free(buf);
		free(prios);
		return ga_error_set(err, GA_ENOMEM, "out of memory computing waits");
	}
	wait_of(rec, NAN, buf, &n, &m->wait_mean_h, &m->wait_p95_h);
	for (int j = 0; j < rec->n_jobs; j++)
		prios[j] = rec->jobs[j].priority;
	qsort(prios, rec->n_jobs, sizeof(double), priority_desc);
	m->n_classes = 0;
	for (int j = 0; j < rec->n_jobs && m->n_classes < GA_MAX_CLASSES; j++)
	{
		ga_wait_class *c;

		if (j > 0 && prios[j] == prios[j - 1])
			continue;
		c = &m->classes[m->n_classes++];
		c->priority = prios[j];
		wait_of(rec, prios[j], buf, &c->jobs, &c->mean_hours, &c->p95_hours);
	}
	free(buf);
	free(prios);
	return GA_OK;
}

ga_status
ga_metrics_compute(const ga_run_record *rec, ga_metrics *m, ga_error *err)
{
	memset(m, 0, sizeof(*m));
	step_metrics(rec, m);
	for (int j = 0; j < rec->n_jobs; j++)
	{
		const ga_job_outcome *o = &rec->jobs[j];

		double		work_hours = o->gpu_hours / (o->pool_factor > 0 ? o->pool_factor : 1);

		m->value += o->priority * work_hours;
		if (o->completed)
		{
			m->completed_value += o->priority * work_hours;
			m->completed_jobs += 1;
		}
		m->stopped_jobs += o->stopped;
		m->dependency_violations += o->started_early;
	}
	m->reservation_start_delay_steps = rec->reservation_delay > 0 ? rec->reservation_delay : 0;
	m->jain_index = NAN;
	m->min_entitlement_share = NAN;
	m->n_solves = rec->n_solves;
	m->solve_p50_ms = ga_metrics_quantile(rec->solve_ms, rec->n_solves, 0.5);
	m->solve_p99_ms = ga_metrics_quantile(rec->solve_ms, rec->n_solves, 0.99);
	return wait_metrics(rec, m, err);
}
