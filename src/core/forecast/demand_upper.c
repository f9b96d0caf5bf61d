/*
 * demand_upper.c — conformal upper bounds in two units, chosen by pinball
 * loss.
 */
#include "forecast/demand_upper.h"

#include <math.h>
#include <stdlib.h>

#define DAY 24

/* Scores between two choices of the option: about a day's worth. */
#define CHOOSE_EVERY (DAY * GA_BLEND_HORIZONS)

struct ga_upper
{
	ga_upper_settings s;
	double		day_decay;		/* per day, for the hour-of-day errors */
	ga_conformal *scores[GA_UPPER_UNITS];
	ga_ew		hour_err[DAY];	/* |y - c| per hour of day */
	/* y - bound of each option, over the last ring_len scores. */
	int			ring_len;
	int			ring_n;
	int			ring_head;
	double	   *ring[GA_UPPER_OPTIONS];
	double	   *work;
	long		scored;
	int			chosen;
};

ga_upper *
ga_upper_create(const ga_upper_settings *s)
{
	ga_upper   *u;

	double		half_lives[GA_UPPER_WEIGHTINGS] = {0, s->half_life};

	if (s->window < 1 || !(s->half_life > 0) || !(s->loss_half_life >= 1) ||
		!(s->target > 0 && s->target < 1))
		return NULL;
	u = calloc(1, sizeof(ga_upper));
	if (u == NULL)
		return NULL;
	u->s = *s;
	u->day_decay = pow(0.5, DAY / s->loss_half_life);
	u->ring_len = (int) fmin(s->loss_half_life, 4 * 7 * DAY) * GA_BLEND_HORIZONS;
	u->work = malloc(sizeof(double) * u->ring_len);
	for (int o = 0; o < GA_UPPER_OPTIONS; o++)
		if ((u->ring[o] = malloc(sizeof(double) * u->ring_len)) == NULL)
			u->work = NULL;
	if (u->work == NULL)
	{
		ga_upper_destroy(u);
		return NULL;
	}
	for (int o = 0; o < GA_UPPER_UNITS; o++)
		if ((u->scores[o] = ga_conformal_create(GA_BLEND_HORIZONS, s->window,
												GA_UPPER_WEIGHTINGS, half_lives)) == NULL)
		{
			ga_upper_destroy(u);
			return NULL;
		}
	return u;
}

void
ga_upper_destroy(ga_upper *u)
{
	if (u == NULL)
		return;
	for (int o = 0; o < GA_UPPER_UNITS; o++)
		ga_conformal_destroy(u->scores[o]);
	for (int o = 0; o < GA_UPPER_OPTIONS; o++)
		free(u->ring[o]);
	free(u->work);
	free(u);
}

/* Option o reads unit o / GA_UPPER_WEIGHTINGS with weighting o % it. */
static double
unit_scale(const ga_upper *u, int unit, int d, double c, double floor)
{
	if (unit == 1 && u->hour_err[d].n > 0)
		return ga_ew_mean(&u->hour_err[d]) + floor;
	if (unit == 2)
		return 1;
	return fmax(c, 0) + floor;
}

static void
swap(double *a, double *b)
{
	double		t = *a;

	*a = *b;
	*b = t;
}

/* The k-th smallest (0-based) of v[0 .. n), v reordered (quickselect). */
static double
select_kth(double *v, int n, int k)
{
	int			lo = 0;
	int			hi = n - 1;

	while (lo < hi)
	{
		double		pivot = v[(lo + hi) / 2];
		int			i = lo;
		int			j = hi;

		while (i <= j)
		{
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j)
				swap(&v[i++], &v[j--]);
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/*
 * The spread of an option's misses: the pinball loss of y - bound about its
 * own q-quantile m, i.e. of the bound moved by the constant that would have
 * given it coverage q.  Coverage is the controller's business; this asks
 * only which shape of bound holds least once calibrated.
 */
static double
shifted_pinball(ga_upper *u, int o)
{
	int			n = u->ring_n;
	double		q = u->s.target;
	double		m;
	double		loss = 0;

	for (int i = 0; i < n; i++)
		u->work[i] = u->ring[o][i];
	m = select_kth(u->work, n, (int) ceil(q * n) - 1);
	for (int i = 0; i < n; i++)
	{
		double		x = u->ring[o][i] - m;

		loss += x > 0 ? q * x : (q - 1) * x;
	}
	return loss;
}

/* Choose the option whose calibrated bounds have held least lately. */
static void
choose(ga_upper *u)
{
	double		best = INFINITY;

	for (int o = 0; o < GA_UPPER_OPTIONS; o++)
	{
		double		loss = shifted_pinball(u, o);

		if (loss < best)
		{
			best = loss;
			u->chosen = o;
		}
	}
}

void
ga_upper_bound_at(const ga_upper *u, int h, int d, double c, double floor,
				  double level, ga_upper_bound *out)
{
	h = h < 0 ? 0 : (h >= GA_BLEND_HORIZONS ? GA_BLEND_HORIZONS - 1 : h);
	out->chosen = u->chosen;
	for (int o = 0; o < GA_UPPER_OPTIONS; o++)
	{
		int			unit = o / GA_UPPER_WEIGHTINGS;
		int			w = o % GA_UPPER_WEIGHTINGS;
		int			n = ga_conformal_count(u->scores[unit], h);
		double		q = n < GA_UPPER_MIN_SCORES ? 1 :
			ga_conformal_quantile(u->scores[unit], h, level, w);

		out->scale[o] = unit_scale(u, unit, d, c, floor);
		out->upper[o] = c + q * out->scale[o];
		if (o == out->chosen)
		{
			out->n_scores = n;
			out->q_up = q;
			out->med = n < GA_UPPER_MIN_SCORES ? 0 :
				ga_conformal_quantile(u->scores[unit], h, 0.5, w) * out->scale[o];
		}
	}
}

void
ga_upper_score(ga_upper *u, int h, double y, double c, const ga_upper_bound *b)
{
	h = h < 0 ? 0 : (h >= GA_BLEND_HORIZONS ? GA_BLEND_HORIZONS - 1 : h);
	for (int unit = 0; unit < GA_UPPER_UNITS; unit++)
	{
		double		scale = b->scale[unit * GA_UPPER_WEIGHTINGS];

		/* no scale to measure by: the error would be y / 1e-9 */
		if (scale > GA_UPPER_SCALE_GUARD)
			ga_conformal_add(u->scores[unit], h, (y - c) / scale);
	}
	for (int o = 0; o < GA_UPPER_OPTIONS; o++)
		u->ring[o][(u->ring_head + u->ring_n) % u->ring_len] = y - b->upper[o];
	if (u->ring_n < u->ring_len)
		u->ring_n++;
	else
		u->ring_head = (u->ring_head + 1) % u->ring_len;
	if (++u->scored % CHOOSE_EVERY == 0 && u->ring_n >= CHOOSE_EVERY)
		choose(u);
}

void
ga_upper_hour_error(ga_upper *u, int d, double err)
{
	ga_ew_add(&u->hour_err[d], err, u->day_decay);
}

void
ga_upper_rescale(ga_upper *u, double r)
{
	ga_conformal_rescale(u->scores[2], r);
	for (int d = 0; d < DAY; d++)
		u->hour_err[d].sum *= r;
	for (int o = 0; o < GA_UPPER_OPTIONS; o++)
		for (int i = 0; i < u->ring_n; i++)
			u->ring[o][i] *= r;
}
