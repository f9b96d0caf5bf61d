/*
 * baseline.h — the two reference schedulers (docs/model.md, Baselines), as planners on the
 * same problem the allocator solves, so the simulator runs every policy
 * through one loop and one set of metrics.
 *
 * Both keep a static reservation for real-time services (reservation.h):
 * each service holds its reservation of the day, whatever its demand, on
 * GPUs stacked from the high end of its pool over the GPUs open to services
 * (usable, and closed by no maintenance window or advance reservation at
 * that step, so a window moves the stack down), and batch jobs only use
 * aligned blocks lying below the reservations at every step of their
 * estimated run, past the horizon too, so a job may use GPUs of a day's
 * lower reservation only if it ends before a higher one begins.  A
 * reserved GPU still held by a pinned job is given to the service when the
 * job ends.
 *
 *   fifo      jobs in arrival order (the problem's job order), each at the
 *             earliest step its block fits and never before the previous
 *             job's start; a job that cannot start inside the horizon holds
 *             every later job back.  A job too large for the GPUs outside the
 *             reservations (one that could start at no step of the horizon
 *             on its pool emptied of other jobs) is passed over.
 *   backfill  EASY backfilling as Slurm does: jobs by priority (then
 *             arrival); the first waiting job gets a reservation at the
 *             earliest step its block fits, and later jobs may start now only
 *             on GPUs and steps that do not touch that reservation.  The pass
 *             is repeated at every step where a job is released or ends or
 *             a reservation changes, so the plan covers the horizon.
 *
 * Of a job's size range the largest size that fits at the chosen step is
 * taken (the size users ask for).  The plans obey rules R1-R4 of the model;
 * a reservation that changes from one day to the next may break a
 * service's churn limit, as a static reservation in a real cluster would.
 */
#ifndef GPUALLOC_BASELINE_H
#define GPUALLOC_BASELINE_H

#include "model/plan.h"
#include "solve/reservation.h"

/*
 * Plan the problem behind the reservation, which must have the problem's
 * services and step length (GA_EINVAL otherwise).
 */
ga_status	ga_plan_fifo(const ga_problem *problem,
						 const ga_reservation *reservation, ga_plan **out,
						 ga_error *err);
ga_status	ga_plan_backfill(const ga_problem *problem,
							 const ga_reservation *reservation, ga_plan **out,
							 ga_error *err);

/*
 * quota: admission by tenant quota in the manner of a batch queueing
 * system with one queue per tenant (docs/model.md, Baselines).  The jobs
 * of each tenant (those of no tenant as one more) wait in arrival order,
 * strictly: at every step where a job is released or ends or a
 * reservation changes, the queues' heads are taken in arrival order and
 * each starts when its block fits now behind the same reservation and its
 * tenant's quota admits it (guarantee, limit, borrowing within its cohort:
 * rules R9 and R10); a head that does not start holds back the rest of its
 * tenant's queue, not the other tenants'.  A job too large for the
 * reservations or for what its quota ever admits is passed over.
 */
ga_status	ga_plan_quota(const ga_problem *problem,
						  const ga_reservation *reservation, ga_plan **out,
						  ga_error *err);

#endif
