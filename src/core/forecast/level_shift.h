/*
 * level_shift.h — detecting a lasting change of a series' level.
 *
 * A launch that doubles traffic for good, or a customer who leaves, moves
 * the level of a series at once; smoothed forecasters follow such a step
 * over days or weeks.  The detector is fed, hour after hour, the log ratio g
 * of the actual value to a slow reference (the weekly profile's bucket).
 * Normally g wanders around a baseline (the median of the `baseline_hours`
 * values before the last `hours`); a shift is declared when each of the
 * last `hours` values lies beyond the baseline by at least half of
 * log(ratio), on the same side, and their mean by at least log(ratio).  The
 * shift returned is that mean minus the baseline (a log ratio).  Bursts
 * shorter than `hours` never qualify, nor does a rise that comes and goes.
 * After a shift the values it explains are moved by it, and a new shift
 * needs a whole baseline of new values; a shift is at most a factor of 4
 * either way (one test sees no more than that reliably).
 */
#ifndef GPUALLOC_LEVEL_SHIFT_H
#define GPUALLOC_LEVEL_SHIFT_H

#include <stdbool.h>

#define GA_SHIFT_MAX_HOURS 48
#define GA_SHIFT_MAX_BASELINE 168
#define GA_SHIFT_MAX_LOG 1.3862943611198906	/* log 4 */

typedef struct ga_level_shift
{
	int			hours;			/* consecutive values that must agree, 0: off */
	double		ratio;			/* least shift, > 1 */
	int			baseline_hours; /* values the baseline is taken over */
	int			n;				/* values held (up to hours + baseline_hours) */
	int			since;			/* values since the last shift */
	int			shifts;			/* shifts detected */
	double		g[GA_SHIFT_MAX_HOURS + GA_SHIFT_MAX_BASELINE];	/* oldest first */
} ga_level_shift;

/* false on bad settings (hours 0 turns detection off and is fine). */
bool		ga_level_shift_init(ga_level_shift *ls, int hours, double ratio,
								int baseline_hours);

/* Push the next log ratio; the detected shift (log ratio), or 0. */
double		ga_level_shift_push(ga_level_shift *ls, double g);

#endif
