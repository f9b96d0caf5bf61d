/*
 * mps_fixture.h — reading back a model written in free MPS, as an
 * independent solver would.  Defined in test_milp.c.
 */
#ifndef GPUALLOC_MPS_FIXTURE_H
#define GPUALLOC_MPS_FIXTURE_H

#include <stdbool.h>

/*
 * The minimum of the model in path, solved by GLPK as a MILP (integer) or
 * as its LP relaxation, within time_limit_ms; NAN unless proved optimal.
 */
double		tp_mps_minimum(const char *path, bool integer, int time_limit_ms);

#endif
