/*
 * demand_blend.c — inverse-error combiners of candidate forecasts, and the
 * choice among them by their own recent errors.
 */
#include "forecast/demand_blend.h"

#include <math.h>
#include <string.h>

/* The combiners' exponents; the last picks the best candidate alone. */
static const double powers[GA_BLEND_COMBINERS] = {1, 2, 4, 8, INFINITY};

/* x^p for the exponents above, by squaring (pow() dominated the profile). */
static double
power_of(double x, double p)
{
	double		r = x;

	for (double k = 1; k < p; k *= 2)
		r *= r;
	return r;
}

bool
ga_blend_init(ga_blend *b, int n_candidates, double half_life, int min_scores)
{
	if (n_candidates < 1 || n_candidates > GA_BLEND_MAX || !(half_life >= 1) ||
		min_scores < 1)
		return false;
	memset(b, 0, sizeof(*b));
	b->n = n_candidates;
	b->min_scores = min_scores;
	b->decay = pow(0.5, 1.0 / half_life);
	return true;
}

double
ga_ew_mean(const ga_ew *e)
{
	return e->weight > 0 ? e->sum / e->weight : NAN;
}

void
ga_ew_add(ga_ew *e, double x, double decay)
{
	e->sum = e->sum * decay + x;
	e->weight = e->weight * decay + 1;
	e->n++;
}

static int
clamp_horizon(int h)
{
	return h < 0 ? 0 : (h >= GA_BLEND_HORIZONS ? GA_BLEND_HORIZONS - 1 : h);
}

/*
 * Weights of the combiner with exponent p over the candidates with a
 * forecast and enough scores; the plain mean of those with a forecast when
 * none has enough.  Errors are taken relative to the least, so large
 * exponents neither overflow nor underflow.
 */
static void
combiner_weights(const ga_blend *b, int h, const double *f, double p, double *w)
{
	double		least = INFINITY;
	double		total = 0;
	int			best = -1;

	for (int k = 0; k < b->n; k++)
		if (isfinite(f[k]) && b->cand[k][h].n >= b->min_scores &&
			ga_ew_mean(&b->cand[k][h]) < least)
		{
			least = ga_ew_mean(&b->cand[k][h]);
			best = k;
		}
	for (int k = 0; k < b->n; k++)
	{
		w[k] = 0;
		if (!isfinite(f[k]))
			continue;
		if (best < 0)
			w[k] = 1;
		else if (isinf(p))
			w[k] = k == best;
		else if (b->cand[k][h].n >= b->min_scores)
			w[k] = power_of((least + 1e-12) / (ga_ew_mean(&b->cand[k][h]) + 1e-12), p);
		total += w[k];
	}
	for (int k = 0; k < b->n; k++)
		w[k] = total > 0 ? w[k] / total : 0;
}

/* The combiner with the least error at h, once every one has been scored. */
static int
chosen_combiner(const ga_blend *b, int h)
{
	int			best = GA_BLEND_DEFAULT_COMBINER;

	for (int c = 0; c < GA_BLEND_COMBINERS; c++)
		if (b->comb[c][h].n < b->min_scores)
			return GA_BLEND_DEFAULT_COMBINER;
	for (int c = 0; c < GA_BLEND_COMBINERS; c++)
		if (ga_ew_mean(&b->comb[c][h]) < ga_ew_mean(&b->comb[best][h]))
			best = c;
	return best;
}

int
ga_blend_combine(const ga_blend *b, int h, const double *f, double *comb,
				 double *w)
{
	double		wc[GA_BLEND_MAX];
	int			chosen;

	h = clamp_horizon(h);
	chosen = chosen_combiner(b, h);
	for (int c = 0; c < GA_BLEND_COMBINERS; c++)
	{
		double		total = 0;
		bool		any = false;

		combiner_weights(b, h, f, powers[c], wc);
		for (int k = 0; k < b->n; k++)
			if (wc[k] > 0)
			{
				total += wc[k] * f[k];
				any = true;
			}
		comb[c] = any ? total : NAN;
		if (c == chosen && w != NULL)
			memcpy(w, wc, sizeof(double) * b->n);
	}
	return chosen;
}

void
ga_blend_score(ga_blend *b, int h, double y, const double *f, const double *comb)
{
	h = clamp_horizon(h);
	for (int k = 0; k < b->n; k++)
		if (isfinite(f[k]))
			ga_ew_add(&b->cand[k][h], fabs(y - f[k]), b->decay);
	for (int c = 0; c < GA_BLEND_COMBINERS; c++)
		if (isfinite(comb[c]))
			ga_ew_add(&b->comb[c][h], fabs(y - comb[c]), b->decay);
}
