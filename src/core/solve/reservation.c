/*
 * reservation.c — the daily static reservation of reservation.h.
 */
#include "solve/reservation.h"

#include <stdlib.h>

ga_reservation *
ga_reservation_create(int n_services, int n_days, int step_minutes, int offset)
{
	ga_reservation *r;

	if (n_services < 0 || n_days < 1 || step_minutes < 1 || offset < 0 ||
		offset >= GA_DAY_MINUTES)
		return NULL;
	r = calloc(1, sizeof(ga_reservation));
	if (r == NULL)
		return NULL;
	r->n_services = n_services;
	r->n_days = n_days;
	r->step_minutes = step_minutes;
	r->offset = offset;
	r->gpus = calloc((size_t) (n_services > 0 ? n_services : 1) * n_days, sizeof(int));
	r->partial = calloc(n_services > 0 ? n_services : 1, sizeof(int));
	if (r->gpus == NULL || r->partial == NULL)
	{
		ga_reservation_destroy(r);
		return NULL;
	}
	return r;
}

void
ga_reservation_destroy(ga_reservation *r)
{
	if (r == NULL)
		return;
	free(r->gpus);
	free(r->partial);
	free(r);
}

void
ga_reservation_set_day(ga_reservation *r, int s, int d, int gpus)
{
	r->gpus[(size_t) s * r->n_days + d] = gpus;
}

/* The highest level known for service s: what it holds past the known days. */
static int
tail(const ga_reservation *r, int s)
{
	int			most = r->partial[s];

	for (int d = 0; d < r->n_days; d++)
		if (r->gpus[(size_t) s * r->n_days + d] > most)
			most = r->gpus[(size_t) s * r->n_days + d];
	return most;
}

int
ga_reservation_day(const ga_reservation *r, int s, int64_t d)
{
	return d < r->n_days ? r->gpus[(size_t) s * r->n_days + d] : tail(r, s);
}

int64_t
ga_reservation_first_day(const ga_reservation *r, int64_t t)
{
	return (r->offset + t * r->step_minutes) / GA_DAY_MINUTES;
}

int64_t
ga_reservation_last_day(const ga_reservation *r, int64_t t)
{
	return (r->offset + (t + 1) * r->step_minutes - 1) / GA_DAY_MINUTES;
}

bool
ga_reservation_straddles(const ga_reservation *r, int64_t d)
{
	return ((d + 1) * GA_DAY_MINUTES - r->offset) % r->step_minutes != 0;
}

int
ga_reservation_at(const ga_reservation *r, int s, int64_t t)
{
	int			most = 0;

	for (int64_t d = ga_reservation_first_day(r, t); d <= ga_reservation_last_day(r, t); d++)
		if (ga_reservation_day(r, s, d) > most)
			most = ga_reservation_day(r, s, d);
	return most;
}

int
ga_reservation_clamp(const ga_problem *p, int s, int peak)
{
	const ga_service *svc = &p->services[s];

	if (peak < svc->min_gpus)
		peak = svc->min_gpus;
	if (peak > svc->max_gpus)
		peak = svc->max_gpus;
	if (peak > p->pools[svc->pool].n_gpus)
		peak = p->pools[svc->pool].n_gpus;
	return peak;
}

int
ga_reservation_peak(const ga_problem *p, int s, int from, int to)
{
	const ga_service *svc = &p->services[s];
	int			peak = 0;

	for (int t = from; t < to; t++)
		if (svc->demand[t] > peak)
			peak = svc->demand[t];
	return ga_reservation_clamp(p, s, peak);
}

ga_status
ga_reservation_from_demand(const ga_problem *p, int offset,
						   ga_reservation **out, ga_error *err)
{
	int			T = p->params.n_steps;
	int			step = p->params.step_minutes;
	int64_t		reach = offset + (int64_t) T * step;
	int			n_days;
	bool		partial;

	*out = NULL;
	if (step < 1)
		return ga_error_set(err, GA_EINVAL,
							"reservation: step_minutes must be at least 1 (got %d)", step);
	if (offset < 0 || offset >= GA_DAY_MINUTES)
		return ga_error_set(err, GA_EINVAL,
							"reservation: offset must lie in 0 .. %d (got %d)",
							GA_DAY_MINUTES - 1, offset);
	/* the days whose last minute the horizon reaches are known */
	n_days = (int) (reach / GA_DAY_MINUTES);
	partial = reach % GA_DAY_MINUTES != 0;
	if (n_days < 1)
	{
		n_days = 1;
		partial = false;
	}
	*out = ga_reservation_create(p->n_services, n_days, step, offset);
	if (*out == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory deriving a reservation");
	for (int s = 0; s < p->n_services; s++)
	{
		int			from = 0;

		for (int d = 0; d < n_days; d++)
		{
			/* steps from `from` up to the first one past day d */
			int			to = from;

			while (to < T && ga_reservation_first_day(*out, to) <= d)
				to++;
			if (d == n_days - 1 && !partial)
				to = T;
			ga_reservation_set_day(*out, s, d, ga_reservation_peak(p, s, from, to));
			/* a step across midnight belongs to both days */
			from = to > 0 && ga_reservation_last_day(*out, to - 1) > d ? to - 1 : to;
		}
		if (partial)
			(*out)->partial[s] = ga_reservation_peak(p, s, from, T);
	}
	return GA_OK;
}
