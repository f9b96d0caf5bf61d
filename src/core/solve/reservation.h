/*
 * reservation.h — the static reservation of the baselines (docs/model.md,
 * Static reservation): the GPUs each real-time service holds whatever its
 * demand, fixed for each calendar day.
 *
 * Days are UTC calendar days, as model/calendar.h counts them, numbered
 * from day 0, the day in which the plan's step 0 begins.  A step belongs to
 * every day it touches (one starting at 23:50 with 30-minute steps touches
 * two), and a service's reservation at a step is the largest of those
 * days' reservations.  The reservation is a function of time, known for the
 * whole run of a job, past the horizon too:
 *
 *   - days 0 .. n_days - 1 are known, each with one value per service;
 *   - every later day holds the service's tail: the largest of its known
 *     days and of `partial`, the peak of what is known of a day only in
 *     part (the day the demand curve ends in).  Where the curve ends the
 *     reservation is assumed to stay at the highest level seen, never to
 *     fall: a job running past it may then wait longer than it had to, but
 *     it does not sit on GPUs a service turns out to need.
 *
 * The baselines (baseline.h) never start a job on GPUs the reservation holds
 * at any step of the job's estimated run.  This is a number of GPUs per
 * service and day; which GPUs hold it at a step is the baselines' choice
 * (the highest of the pool open to services then, baseline.c).
 */
#ifndef GPUALLOC_RESERVATION_H
#define GPUALLOC_RESERVATION_H

#include "model/problem.h"

#define GA_DAY_MINUTES 1440

typedef struct ga_reservation
{
	int			n_services;
	int			step_minutes;	/* of the plan's steps */
	int			offset;			/* minute of day 0 at which step 0 begins,
								 * 0 .. 1439 */
	int			n_days;			/* known days, >= 1 */
	int		   *gpus;			/* [n_services * n_days]: service s on day d
								 * at gpus[s * n_days + d] */
	int		   *partial;		/* [n_services]: peak of the day known in
								 * part, 0 when none */
} ga_reservation;

/*
 * A reservation of n_days known days (>= 1), every value 0; NULL on out of
 * memory or sizes out of range (step_minutes >= 1, offset in 0 .. 1439).
 */
ga_reservation *ga_reservation_create(int n_services, int n_days,
									  int step_minutes, int offset);
void		ga_reservation_destroy(ga_reservation *reservation);

/* Set what service s reserves on known day d. */
void		ga_reservation_set_day(ga_reservation *reservation, int s, int d,
								   int gpus);

/* What service s reserves on day d (>= 0): its value, or the tail past n_days. */
int			ga_reservation_day(const ga_reservation *reservation, int s,
							   int64_t d);

/* The first and the last day step t (>= 0) touches. */
int64_t		ga_reservation_first_day(const ga_reservation *reservation,
									 int64_t t);
int64_t		ga_reservation_last_day(const ga_reservation *reservation,
									int64_t t);

/* Does a step begin before the midnight that ends day d and end after it? */
bool		ga_reservation_straddles(const ga_reservation *reservation,
									 int64_t d);

/* GPUs service s reserves at step t (>= 0): the most of the days it touches. */
int			ga_reservation_at(const ga_reservation *reservation, int s,
							  int64_t t);

/*
 * A reservation of `peak` GPUs for service s of the problem: at least its
 * min_gpus, at most its max_gpus and its pool's size.
 */
int			ga_reservation_clamp(const ga_problem *problem, int s, int peak);

/*
 * Service s's reservation over steps [from, to) of its planned demand
 * curve: the curve's peak there, clamped (ga_reservation_clamp).
 */
int			ga_reservation_peak(const ga_problem *problem, int s, int from,
								int to);

/*
 * The reservation a plan derives from its own demand curves, step 0
 * beginning at minute `offset` of its day.  A day whose last step the curve
 * reaches is known: its reservation is the curve's peak over its steps in
 * the horizon (for day 0, from step 0 on: the part of the day already over
 * is not planned).  The day the curve ends in, if it does not reach its
 * end, is known in part: its peak there goes to `partial`.  Day 0 is
 * always known, with the curve's peak over the horizon when the curve ends
 * inside it.
 */
ga_status	ga_reservation_from_demand(const ga_problem *problem, int offset,
									   ga_reservation **out, ga_error *err);

#endif
