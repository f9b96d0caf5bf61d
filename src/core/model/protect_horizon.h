/*
 * protect_horizon.h — the protect rule past the horizon (docs/model.md,
 * Protect curve and headroom).
 *
 * Inside the horizon a job starts only where its estimated run leaves the
 * services' protect curves their GPUs (ga_protect_room).  A job is never
 * preempted, so a run that goes on past the horizon holds its GPUs through
 * the days after it too, when the services' demand comes back: a job
 * started on a quiet evening could sit on the GPUs the next afternoon's
 * peak needs, and nothing could take them back.  So the rule holds over the
 * job's whole estimated run: at every step T + k past the horizon that the
 * run reaches, batch work stays within the GPUs open to the pool's services
 * then (ga_terminal_open_in_pool) less the protect curve expected then
 * (ga_terminal_expected_protect: the same time of day on the horizon's last
 * day) of each service protected from the job (ga_service_protected_from).
 * Batch work past the horizon counts each job's open GPUs over its
 * estimated run (ga_terminal_hold), as the terminal charge does; the check
 * stops where the charge does (ga_terminal.steps).  The services a job is
 * held from are the first of its pool by priority, so the room comes from
 * a table the terminal builds once per pool and count of those services
 * (ga_terminal.room_after): the fast mode asks for it for each size of
 * every queued job, and summing the curves step by step made its re-plan
 * at 10,000 GPUs and 50,000 queued jobs 60 % slower than without the rule.
 */
#ifndef GPUALLOC_PROTECT_HORIZON_H
#define GPUALLOC_PROTECT_HORIZON_H

#include "model/terminal.h"

/*
 * GPUs batch work may hold in the pool at step T + k when a job of this
 * priority starts (may be negative).
 */
int			ga_protect_room_after(const ga_terminal *tm, int pool, int k,
								  double job_priority);

/*
 * The first k in [from, to) at which `size` more GPUs on top of held[k]
 * (the pool's batch GPUs at T + k, [tm->steps]) would exceed the room of a
 * job of this priority, or `to` when none would.
 */
int			ga_protect_first_blocked_after(const ga_terminal *tm, int pool,
										   const int *held, int from, int to,
										   int size, double job_priority);

/*
 * Whether every step past the horizon keeps the rule for the plan: at each
 * T + k, the batch GPUs of each pool within the room of the densest job
 * that is not pinned and still runs then (the room grows with priority, so
 * the last job placed over a step never had more).  Running jobs count but
 * are never to blame.  False also on out of memory.
 */
bool		ga_plan_protects_past_horizon(const ga_problem *problem,
										  const ga_plan *plan);

#endif
