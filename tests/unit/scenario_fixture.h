/*
 * scenario_fixture.h — scenario directories written by tests, and one run of
 * a policy over them.  Defined in test_scenario.c and test_sim.c.
 */
#ifndef GPUALLOC_SCENARIO_FIXTURE_H
#define GPUALLOC_SCENARIO_FIXTURE_H

#include <stdbool.h>

#include "sim/sim.h"

/* Write the given CSV texts into a fresh temporary scenario directory. */
const char *tscn_write(const char *settings, const char *gpus,
					   const char *services, const char *demand,
					   const char *jobs, const char *history);
/* Write one more file (windows.csv, reservations.csv) into such a directory. */
void		tscn_add_file(const char *dir, const char *name, const char *text);

/* Remove the directory and every file these write. */
void		tscn_remove(const char *dir);

/* Check that reading dir fails with a message containing want1 and want2. */
void		tscn_expect_read_error(const char *dir, const char *want1, const char *want2);

/* Simulate one policy (full mode at 50 ms per re-plan); checks it succeeds. */
ga_sim_result *tscn_simulate(const char *dir, ga_policy policy, bool perfect);

#endif
