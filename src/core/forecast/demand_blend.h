/*
 * demand_blend.h — combining candidate forecasts by their recent
 * out-of-sample errors, per horizon.
 *
 * Each candidate's forecasts are scored when their hour is observed; per
 * horizon h (hours ahead) an exponentially weighted mean absolute error
 * E[k][h] is kept (half-life in scored hours).  Several combiners turn the
 * candidates' forecasts of one hour into one value: weights 1 / E^p for
 * p = 1, 2, 4 and 8, and the single candidate with the least E (p =
 * infinity).  How sharply to favour the best candidate differs from series
 * to series (a smooth series is best left to its best candidate, a noisy
 * one gains from averaging), so the combiners are scored as well and, per
 * horizon, the one with the least error of its own is used: no exponent is
 * fixed in advance.  A candidate enters a combiner once it has been scored
 * min_scores times at that horizon; until any has, the combiners take the
 * plain mean.
 */
#ifndef GPUALLOC_DEMAND_BLEND_H
#define GPUALLOC_DEMAND_BLEND_H

#include <stdbool.h>

#define GA_BLEND_MAX 8
#define GA_BLEND_HORIZONS 24
#define GA_BLEND_COMBINERS 5
#define GA_BLEND_DEFAULT_COMBINER 1	/* p = 2 until the combiners are scored */

typedef struct ga_ew
{
	double		sum;
	double		weight;
	int			n;
} ga_ew;

typedef struct ga_blend
{
	int			n;				/* candidates */
	int			min_scores;
	double		decay;			/* per scored hour */
	ga_ew		cand[GA_BLEND_MAX][GA_BLEND_HORIZONS];
	ga_ew		comb[GA_BLEND_COMBINERS][GA_BLEND_HORIZONS];
} ga_blend;

/* n_candidates 1 .. GA_BLEND_MAX, half_life >= 1; false otherwise. */
bool		ga_blend_init(ga_blend *b, int n_candidates, double half_life,
						  int min_scores);

/*
 * Combine the candidates' forecasts f[k] (NAN: that candidate has none) of
 * an hour h hours ahead (index 0 .. 23; further hours use 23): every
 * combiner's value into comb[GA_BLEND_COMBINERS], the chosen combiner's
 * weights into w[n] (may be NULL); returns the chosen combiner's index.  If
 * no candidate has a forecast, every comb is NAN.
 */
int			ga_blend_combine(const ga_blend *b, int h, const double *f,
							 double *comb, double *w);

/* Score forecasts made h hours ahead of an hour whose value was y. */
void		ga_blend_score(ga_blend *b, int h, double y, const double *f,
						   const double *comb);

/* Mean error of an EW accumulator (NAN when empty). */
double		ga_ew_mean(const ga_ew *e);

/* Add x with the accumulator's decay per addition. */
void		ga_ew_add(ga_ew *e, double x, double decay);

#endif
