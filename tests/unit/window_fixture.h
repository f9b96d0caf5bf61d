/*
 * window_fixture.h — the small problem and plan the tests of maintenance
 * windows and advance reservations build by hand, and the check of
 * baselines against closed cells.  Defined in test_windows.c.
 */
#ifndef GPUALLOC_WINDOW_FIXTURE_H
#define GPUALLOC_WINDOW_FIXTURE_H

#include "model/plan.h"

/*
 * Pool "a" = GPUs 0-7, 6 steps.  Job 0 "train" (2 GPUs, 2 steps), job 1
 * "running" pinned to GPUs 4-5 over steps -1..2, service 0 "chat" (max 1).
 */
ga_problem *window_problem(void);

/* train on GPUs 0-1 from step `start`, running at its pin, chat on GPU 7. */
ga_plan    *base_plan(const ga_problem *p, int start);

/* Cells and runs of a plan that a window or another tenant's reservation closes. */
int			closed_work(const ga_problem *p, const ga_plan *plan);

#endif
