/*
 * holt_winters.h — additive Holt-Winters with a damped trend and one
 * season, the exponential smoothing of Hyndman et al. (2008) in the form
 * statsmodels' ExponentialSmoothing(trend="add", damped_trend=True,
 * seasonal="add") uses:
 *
 *   level   l[t] = a (y[t] - s[t-m]) + (1 - a) (l[t-1] + phi b[t-1])
 *   trend   b[t] = b* (l[t] - l[t-1]) + (1 - b*) phi b[t-1]
 *   season  s[t] = g (y[t] - l[t-1] - phi b[t-1]) + (1 - g) s[t-m]
 *   forecast y[t+h | t] = l[t] + (phi + ... + phi^h) b[t] + s[t+h-m(k+1)],
 *            k = floor((h - 1) / m)
 *
 * The demand forecaster runs a few of these with fixed constants as
 * candidates; the forecast benchmark fits the constants of one by least
 * squares of the one-step errors, as statsmodels does, as a peer.  The state
 * starts from the first two seasons (statsmodels' "legacy-heuristic"): level
 * the mean of the first, trend the change of the mean over one season
 * divided by m, seasons the first season minus its mean.  Until two seasons
 * have been seen the filter only collects them; its forecast is then the
 * mean seen so far.
 *
 * Plain C11 and libm; the state lives in the struct (no allocation).
 */
#ifndef GPUALLOC_HOLT_WINTERS_H
#define GPUALLOC_HOLT_WINTERS_H

#include <stdbool.h>

#define GA_HW_MAX_SEASON 168

typedef struct ga_hw_params
{
	double		alpha;			/* level, [0, 1] */
	double		beta;			/* trend, [0, 1] */
	double		gamma;			/* season, [0, 1] */
	double		phi;			/* trend damping, [0, 1] */
	int			season;			/* m, 1 .. GA_HW_MAX_SEASON */
} ga_hw_params;

typedef struct ga_hw
{
	ga_hw_params p;
	long		n;				/* values seen */
	double		level;
	double		trend;
	double		seas[GA_HW_MAX_SEASON];	/* indexed by t mod m */
	double		first[2 * GA_HW_MAX_SEASON];	/* the start-up seasons */
	double		sum;			/* of the values seen before start-up ends */
} ga_hw;

/* false when a parameter is outside its range. */
bool		ga_hw_init(ga_hw *hw, const ga_hw_params *p);

/* Learn the next value, y[t] with t = hw->n. */
void		ga_hw_update(ga_hw *hw, double y);

/* Forecast of the value h >= 1 steps after the last one learned. */
double		ga_hw_forecast(const ga_hw *hw, int h);

/* Multiply level, trend and seasons by r (a shift of the series' scale). */
void		ga_hw_rescale(ga_hw *hw, double r);

/*
 * Fit alpha, beta, gamma and phi (phi in [0.8, 0.995]) to y[0 .. n) by
 * minimising the sum of squared one-step errors over every value (the
 * start-up seasons smoothed from the initial state, as statsmodels does),
 * with Nelder-Mead from a few starts; season is taken from *p.  Writes the
 * best constants into *p and returns the sum of squares (NAN when n < 3
 * seasons: *p is then left as it was).
 */
double		ga_hw_fit(const double *y, int n, ga_hw_params *p);

#endif
