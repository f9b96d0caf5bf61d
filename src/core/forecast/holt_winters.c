/*
 * holt_winters.c — damped additive Holt-Winters: the filter, and a least
 * squares fit of its constants by Nelder-Mead.
 */
#include "forecast/holt_winters.h"

#include <math.h>
#include <string.h>

#define PHI_LO 0.8
#define PHI_HI 0.995
#define FIT_DIM 4
#define FIT_ITERATIONS 250

bool
ga_hw_init(ga_hw *hw, const ga_hw_params *p)
{
	bool		ok = p->alpha >= 0 && p->alpha <= 1 && p->beta >= 0 && p->beta <= 1 &&
		p->gamma >= 0 && p->gamma <= 1 && p->phi >= 0 && p->phi <= 1 &&
		p->season >= 1 && p->season <= GA_HW_MAX_SEASON;

	if (!ok)
		return false;
	memset(hw, 0, sizeof(*hw));
	hw->p = *p;
	return true;
}

/* One step of the recursion for the value at index t. */
static void
smooth(ga_hw *hw, long t, double y)
{
	const ga_hw_params *p = &hw->p;
	int			i = (int) (t % p->season);
	double		prev_level = hw->level;
	double		damped = p->phi * hw->trend;
	double		s = hw->seas[i];

	hw->level = p->alpha * (y - s) + (1 - p->alpha) * (prev_level + damped);
	hw->trend = p->beta * (hw->level - prev_level) + (1 - p->beta) * damped;
	hw->seas[i] = p->gamma * (y - prev_level - damped) + (1 - p->gamma) * s;
}

/* The initial state from the first two seasons of y. */
static void
init_state(ga_hw *hw, const double *y)
{
	int			m = hw->p.season;
	double		mean0 = 0;
	double		mean1 = 0;

	for (int i = 0; i < m; i++)
	{
		mean0 += y[i] / m;
		mean1 += y[m + i] / m;
	}
	hw->level = mean0;
	hw->trend = (mean1 - mean0) / m;
	for (int i = 0; i < m; i++)
		hw->seas[i] = y[i] - mean0;
}

/*
 * The start-up seasons are in: set the initial state from them, then run the
 * recursion over them as over any later value.
 */
static void
start(ga_hw *hw)
{
	init_state(hw, hw->first);
	for (int t = 0; t < 2 * hw->p.season; t++)
		smooth(hw, t, hw->first[t]);
}

void
ga_hw_update(ga_hw *hw, double y)
{
	int			m = hw->p.season;

	if (hw->n < 2 * m)
	{
		hw->first[hw->n] = y;
		hw->sum += y;
		if (++hw->n == 2 * m)
			start(hw);
		return;
	}
	smooth(hw, hw->n, y);
	hw->n++;
}

double
ga_hw_forecast(const ga_hw *hw, int h)
{
	const ga_hw_params *p = &hw->p;
	double		damp = 0;
	double		f = 1;

	if (hw->n < 2 * p->season)
		return hw->n ? hw->sum / hw->n : 0;
	for (int k = 1; k <= h; k++)
	{
		f *= p->phi;
		damp += f;
		if (f < 1e-12)
			break;
	}
	return hw->level + damp * hw->trend + hw->seas[(hw->n - 1 + h) % p->season];
}

void
ga_hw_rescale(ga_hw *hw, double r)
{
	hw->level *= r;
	hw->trend *= r;
	hw->sum *= r;
	for (int i = 0; i < GA_HW_MAX_SEASON; i++)
		hw->seas[i] *= r;
	for (int i = 0; i < 2 * GA_HW_MAX_SEASON; i++)
		hw->first[i] *= r;
}

/* ---------------------------------------------------------------- fitting */

typedef struct fit_data
{
	const double *y;
	int			n;
	int			season;
} fit_data;

static double
clamp01(double x, double lo, double hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

/* The constants of a simplex point: clamped into their box. */
static ga_hw_params
decode(const double *x, int season)
{
	ga_hw_params p;

	p.alpha = clamp01(x[0], 0, 1);
	p.beta = clamp01(x[1], 0, 1);
	p.gamma = clamp01(x[2], 0, 1);
	p.phi = clamp01(x[3], PHI_LO, PHI_HI);
	p.season = season;
	return p;
}

/*
 * Sum of squared one-step errors of the filter with constants p over every
 * value, the start-up seasons included (smoothed from the initial state, as
 * statsmodels scores them).
 */
static double
sse(const fit_data *d, const ga_hw_params *p)
{
	ga_hw		hw;
	double		total = 0;

	ga_hw_init(&hw, p);
	init_state(&hw, d->y);
	for (int t = 0; t < d->n; t++)
	{
		double		e = d->y[t] - (hw.level + p->phi * hw.trend + hw.seas[t % p->season]);

		total += e * e;
		smooth(&hw, t, d->y[t]);
	}
	return total;
}

static double
objective(const fit_data *d, const double *x)
{
	ga_hw_params p = decode(x, d->season);
	double		out = 0;

	/* Outside the box: the clamped value, plus a push back inside. */
	out += fabs(x[0] - p.alpha) + fabs(x[1] - p.beta) + fabs(x[2] - p.gamma) +
		fabs(x[3] - p.phi);
	return sse(d, &p) * (1 + out);
}

/* Nelder-Mead on the transformed constants from x; x ends at the best. */
static double
nelder_mead(const fit_data *d, double *x)
{
	double		s[FIT_DIM + 1][FIT_DIM];
	double		f[FIT_DIM + 1];

	for (int i = 0; i <= FIT_DIM; i++)
	{
		memcpy(s[i], x, sizeof(double) * FIT_DIM);
		if (i > 0)
			s[i][i - 1] += s[i][i - 1] > 0.5 ? -0.2 : 0.2;
		f[i] = objective(d, s[i]);
	}
	for (int it = 0; it < FIT_ITERATIONS; it++)
	{
		int			hi = 0,
					lo = 0,
					nh = 0;
		double		c[FIT_DIM] = {0};
		double		r[FIT_DIM];
		double		fr;

		for (int i = 1; i <= FIT_DIM; i++)
		{
			if (f[i] > f[hi])
				hi = i;
			if (f[i] < f[lo])
				lo = i;
		}
		nh = lo;
		for (int i = 0; i <= FIT_DIM; i++)
			if (i != hi && f[i] > f[nh])
				nh = i;
		if (f[hi] - f[lo] <= 1e-10 * (fabs(f[lo]) + 1e-12))
			break;
		for (int i = 0; i <= FIT_DIM; i++)
			if (i != hi)
				for (int k = 0; k < FIT_DIM; k++)
					c[k] += s[i][k] / FIT_DIM;
		for (int k = 0; k < FIT_DIM; k++)
			r[k] = c[k] + (c[k] - s[hi][k]);
		fr = objective(d, r);
		if (fr < f[lo])
		{
			double		e[FIT_DIM];
			double		fe;

			for (int k = 0; k < FIT_DIM; k++)
				e[k] = c[k] + 2 * (c[k] - s[hi][k]);
			fe = objective(d, e);
			if (fe < fr)
			{
				memcpy(s[hi], e, sizeof(e));
				f[hi] = fe;
			}
			else
			{
				memcpy(s[hi], r, sizeof(r));
				f[hi] = fr;
			}
		}
		else if (fr < f[nh])
		{
			memcpy(s[hi], r, sizeof(r));
			f[hi] = fr;
		}
		else
		{
			double		k2[FIT_DIM];
			double		fk;

			for (int k = 0; k < FIT_DIM; k++)
				k2[k] = c[k] + 0.5 * ((fr < f[hi] ? r[k] : s[hi][k]) - c[k]);
			fk = objective(d, k2);
			if (fk < fmin(fr, f[hi]))
			{
				memcpy(s[hi], k2, sizeof(k2));
				f[hi] = fk;
			}
			else
			{
				/* Shrink towards the best vertex. */
				for (int i = 0; i <= FIT_DIM; i++)
					if (i != lo)
					{
						for (int k = 0; k < FIT_DIM; k++)
							s[i][k] = s[lo][k] + 0.5 * (s[i][k] - s[lo][k]);
						f[i] = objective(d, s[i]);
					}
			}
		}
	}
	{
		int			lo = 0;

		for (int i = 1; i <= FIT_DIM; i++)
			if (f[i] < f[lo])
				lo = i;
		memcpy(x, s[lo], sizeof(double) * FIT_DIM);
		return f[lo];
	}
}

/*
 * Starting points: the best two of a coarse grid (statsmodels also starts
 * from a brute-force grid), each refined by Nelder-Mead.
 */
double
ga_hw_fit(const double *y, int n, ga_hw_params *p)
{
	static const double alphas[] = {0.05, 0.2, 0.4, 0.6, 0.8, 0.95};
	static const double betas[] = {0, 0.05};
	static const double gammas[] = {0, 0.1, 0.3};
	static const double phis[] = {0.8, 0.9, 0.98};
	fit_data	d = {y, n, p->season};
	double		start[2][FIT_DIM];
	double		fstart[2] = {INFINITY, INFINITY};
	double		best = NAN;

	if (p->season < 1 || p->season > GA_HW_MAX_SEASON || n < 3 * p->season)
		return NAN;
	for (int a = 0; a < 6; a++)
		for (int b = 0; b < 2; b++)
			for (int g = 0; g < 3; g++)
				for (int f = 0; f < 3; f++)
				{
					double		x[FIT_DIM] = {alphas[a], betas[b], gammas[g], phis[f]};
					double		v = objective(&d, x);
					int			slot = v < fstart[0] ? 0 : (v < fstart[1] ? 1 : -1);

					if (slot == 0)
					{
						memcpy(start[1], start[0], sizeof(start[0]));
						fstart[1] = fstart[0];
					}
					if (slot >= 0)
					{
						memcpy(start[slot], x, sizeof(x));
						fstart[slot] = v;
					}
				}
	for (int k = 0; k < 2; k++)
	{
		double		f = nelder_mead(&d, start[k]);

		if (isnan(best) || f < best)
		{
			best = f;
			*p = decode(start[k], p->season);
		}
	}
	return best;
}
