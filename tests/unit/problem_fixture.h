/*
 * problem_fixture.h — helpers shared by the tests that build problems by
 * hand.  Defined in test_problem.c.
 */
#ifndef GPUALLOC_PROBLEM_FIXTURE_H
#define GPUALLOC_PROBLEM_FIXTURE_H

#include "model/problem.h"

/* Give job j its priority, size range, work (GPU-steps), release and deadline. */
void		tp_set_job(ga_problem *p, int j, double priority, int gmin, int gmax,
					   double work, int release, int deadline);

#endif
