/*
 * level_shift.c — a two-window test for a lasting change of level.
 */
#include "forecast/level_shift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool
ga_level_shift_init(ga_level_shift *ls, int hours, double ratio, int baseline_hours)
{
	memset(ls, 0, sizeof(*ls));
	if (hours < 0 || hours > GA_SHIFT_MAX_HOURS)
		return false;
	if (hours > 0 && (!(ratio > 1) || baseline_hours < 1 ||
					  baseline_hours > GA_SHIFT_MAX_BASELINE))
		return false;
	ls->hours = hours;
	ls->ratio = ratio;
	ls->baseline_hours = baseline_hours;
	return true;
}

static int
compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Median of the baseline window: the values before the last `hours`. */
static double
baseline(const ga_level_shift *ls)
{
	double		buf[GA_SHIFT_MAX_BASELINE];
	int			n = ls->n - ls->hours;

	memcpy(buf, ls->g, sizeof(double) * n);
	qsort(buf, n, sizeof(double), compare_double);
	return n % 2 ? buf[n / 2] : 0.5 * (buf[n / 2 - 1] + buf[n / 2]);
}

/* The shift the last `hours` values show against the baseline, or 0. */
static double
test_shift(const ga_level_shift *ls)
{
	double		base = baseline(ls);
	double		least = log(ls->ratio);
	double		mean = 0;
	int			up = 0;
	int			down = 0;

	for (int i = ls->n - ls->hours; i < ls->n; i++)
	{
		double		d = ls->g[i] - base;

		mean += d / ls->hours;
		up += d >= 0.5 * least;
		down += d <= -0.5 * least;
	}
	if ((up == ls->hours && mean >= least) || (down == ls->hours && mean <= -least))
		return mean;
	return 0;
}

double
ga_level_shift_push(ga_level_shift *ls, double g)
{
	int			cap = ls->hours + ls->baseline_hours;
	double		shift;

	if (ls->hours == 0 || !isfinite(g))
		return 0;
	if (ls->n == cap)
	{
		memmove(ls->g, ls->g + 1, sizeof(double) * (cap - 1));
		ls->n--;
	}
	ls->g[ls->n++] = g;
	ls->since++;
	/*
	 * A baseline of at least half its window, and fresh values to test: after
	 * a shift, a whole baseline's worth, so the values it explained settle
	 * into the baseline before the next test.
	 */
	if (ls->n - ls->hours < (ls->baseline_hours + 1) / 2 ||
		ls->since < (ls->shifts ? ls->baseline_hours : ls->hours))
		return 0;
	shift = test_shift(ls);
	shift = fmax(-GA_SHIFT_MAX_LOG, fmin(GA_SHIFT_MAX_LOG, shift));
	if (shift != 0)
	{
		for (int i = ls->n - ls->hours; i < ls->n; i++)
			ls->g[i] -= shift;
		ls->since = 0;
		ls->shifts++;
	}
	return shift;
}
