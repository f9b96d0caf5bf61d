/*
 * baseline.h — the two reference schedulers (docs/model.md, Baselines), as planners on the
 * same problem the allocator solves, so the simulator runs every policy
 * through one loop and one set of metrics.
 *
 * Both keep a static reservation for real-time services: each service holds
 * the peak of its demand curve over the horizon (a day by default: its daily
 * peak) at every step, on GPUs stacked from the high end of its pool, and
 * batch jobs only use aligned blocks below the reservations.  A reserved
 * GPU still held by a pinned job is given to the service when the job ends.
 *
 *   fifo      jobs in arrival order (the problem's job order), each at the
 *             earliest step its block fits and never before the previous
 *             job's start; a job that cannot start inside the horizon holds
 *             every later job back.  A job too large for the GPUs outside the
 *             reservations is passed over (it could never start).
 *   backfill  EASY backfilling as Slurm does: jobs by priority (then
 *             arrival); the first waiting job gets a reservation at the
 *             earliest step its block fits, and later jobs may start now only
 *             on GPUs and steps that do not touch that reservation.  The pass
 *             is repeated at every step where a job ends, so the plan covers
 *             the horizon.
 *
 * Of a job's size range the largest size that fits at the chosen step is
 * taken (the size users ask for).  The plans obey rules R1-R4 of the model;
 * a reservation that grows may break a service's churn limit, as a static
 * reservation in a real cluster would.
 */
#ifndef GPUALLOC_BASELINE_H
#define GPUALLOC_BASELINE_H

#include "model/plan.h"

ga_status	ga_plan_fifo(const ga_problem *problem, ga_plan **out, ga_error *err);
ga_status	ga_plan_backfill(const ga_problem *problem, ga_plan **out,
							 ga_error *err);

/* GPUs service s reserves: the peak of its demand, capped at max_gpus. */
int			ga_baseline_reservation(const ga_problem *problem, int s);

#endif
