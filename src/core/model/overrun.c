/*
 * overrun.c — the planned end of a running job (see overrun.h).
 */
#include "model/overrun.h"

#include <math.h>

int
ga_running_end_step(int start_step, int duration)
{
	int			end = start_step + duration;
	int			elapsed = -start_step;
	int			more;

	if (end >= 1)
		return end;
	more = (int) ceil(GA_OVERRUN_FRACTION * elapsed - 1e-9);
	return more < 1 ? 1 : more;
}
