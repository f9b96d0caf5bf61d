/*
 * advance_reservation.h — GPUs of a pool held for one tenant over a time
 * range ahead (docs/model.md, Advance reservations), in the spirit of a
 * batch system's advance reservation.
 *
 * A reservation's cells are closed as a maintenance window's are, to every
 * job not of its tenant and to every service; the tenant's jobs run there
 * as on open GPUs.  The closed-cell test is the one of windows
 * (ga_closing in model/problem.h, given the job's tenant), so every
 * planner that keeps work out of windows keeps it out of other tenants'
 * reservations through the same calls.  The validator's rule R8 checks it.
 */
#ifndef GPUALLOC_ADVANCE_RESERVATION_H
#define GPUALLOC_ADVANCE_RESERVATION_H

#include "model/problem.h"

/*
 * Give the problem its advance reservations (copied; replaces any before).
 * Checked by ga_problem_finish: cells inside their pool, end after start,
 * tenant >= 0.
 */
ga_status	ga_problem_set_advance_reservations(ga_problem *problem,
												const ga_advance_reservation *reservations,
												int n_reservations, ga_error *err);

/*
 * The reservation holding GPU g at step t (inside the horizon or not), or
 * NULL: the first one listed when several overlap.
 */
const ga_advance_reservation *ga_advance_reservation_at(const ga_problem *problem,
														int g, int t);

#endif
