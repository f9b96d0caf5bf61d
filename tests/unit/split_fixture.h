/*
 * split_fixture.h — problems of several independent pools, built by
 * stacking generated one-pool problems side by side.  Defined in
 * test_problem_split.c.
 */
#ifndef GPUALLOC_SPLIT_FIXTURE_H
#define GPUALLOC_SPLIT_FIXTURE_H

#include "model/problem.h"

/*
 * One finished problem whose pool q is pools[q] (each a finished one-pool
 * problem, all with the same parameters): GPUs, jobs and services in that
 * order, renumbered.  NULL when it cannot be built.
 */
ga_problem *sf_stack(ga_problem *const *pools, int n);

/* A varied generated one-pool problem of `steps` steps from a seed. */
ga_problem *sf_pool(uint64_t seed, int gpus, int jobs, int steps);

#endif
