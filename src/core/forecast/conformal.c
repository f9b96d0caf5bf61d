/*
 * conformal.c — sorted windows of recent scores per horizon, and the
 * coverage controller.
 */
#include "forecast/conformal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ga_conformal
{
	int			n_horizons;
	int			window;
	int			n_weightings;
	double		half_life[GA_CONFORMAL_MAX_WEIGHTINGS];
	int		   *count;			/* [h] scores held */
	int		   *head;			/* [h] position of the oldest in ring */
	long	   *added;			/* [h] scores ever added */
	double	   *ring;			/* [h][window] in arrival order */
	double	   *sorted;			/* [h][window] ascending */
	long	   *sorted_at;		/* [h][window] when each sorted score came */
	double	   *decay_pow;		/* [weighting][window + 1] decay^age */
	double	   *total;			/* [weighting][h] weight of the scores held */
};

ga_conformal *
ga_conformal_create(int n_horizons, int window, int n_weightings,
					const double *half_lives)
{
	ga_conformal *c;
	size_t		cells;

	if (n_horizons < 1 || window < 1 || n_weightings < 1 ||
		n_weightings > GA_CONFORMAL_MAX_WEIGHTINGS)
		return NULL;
	for (int w = 0; w < n_weightings; w++)
		if (!(half_lives[w] >= 0))
			return NULL;
	cells = (size_t) n_horizons * window;
	c = calloc(1, sizeof(ga_conformal));
	if (c == NULL)
		return NULL;
	c->n_horizons = n_horizons;
	c->window = window;
	c->count = calloc(n_horizons, sizeof(int));
	c->head = calloc(n_horizons, sizeof(int));
	c->added = calloc(n_horizons, sizeof(long));
	c->ring = malloc(sizeof(double) * cells);
	c->sorted = malloc(sizeof(double) * cells);
	c->sorted_at = malloc(sizeof(long) * cells);
	c->decay_pow = malloc(sizeof(double) * n_weightings * (window + 1));
	c->total = calloc((size_t) n_weightings * n_horizons, sizeof(double));
	if (c->count == NULL || c->head == NULL || c->added == NULL || c->ring == NULL ||
		c->sorted == NULL || c->sorted_at == NULL || c->decay_pow == NULL ||
		c->total == NULL)
	{
		ga_conformal_destroy(c);
		return NULL;
	}
	c->n_weightings = n_weightings;
	for (int w = 0; w < n_weightings; w++)
	{
		c->half_life[w] = half_lives[w];
		for (int k = 0; k <= window; k++)
			c->decay_pow[w * (window + 1) + k] =
				half_lives[w] > 0 ? pow(0.5, k / half_lives[w]) : 1;
	}
	return c;
}

void
ga_conformal_destroy(ga_conformal *c)
{
	if (c == NULL)
		return;
	free(c->count);
	free(c->head);
	free(c->added);
	free(c->ring);
	free(c->sorted);
	free(c->sorted_at);
	free(c->decay_pow);
	free(c->total);
	free(c);
}

/* First position in s[0 .. n) whose value is >= x. */
static int
lower_bound(const double *s, int n, double x)
{
	int			lo = 0;
	int			hi = n;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (s[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Position in the sorted copy of the score added at `when` with value v. */
static int
find_sorted(const double *s, const long *at, int n, double v, long when)
{
	for (int i = lower_bound(s, n, v); i < n && s[i] == v; i++)
		if (at[i] == when)
			return i;
	return lower_bound(s, n, v);
}

static double
age_weight(const ga_conformal *c, int w, long age)
{
	return c->decay_pow[w * (c->window + 1) + age];
}

/*
 * Every held score ages by one: the totals decay, gain the new score's
 * weight 1 and lose the evicted one's (of age window).  Summed afresh once
 * a window so rounding does not pile up.
 */
static void
update_totals(ga_conformal *c, int h, bool evicting)
{
	for (int w = 0; w < c->n_weightings; w++)
	{
		double	   *t = &c->total[w * c->n_horizons + h];

		*t = *t * age_weight(c, w, 1) + 1 - (evicting ? age_weight(c, w, c->window) : 0);
		if (c->added[h] % c->window == 0)
		{
			const long *at = c->sorted_at + (size_t) h * c->window;
			long		now = c->added[h];

			*t = 1;
			for (int i = 0; i < c->count[h]; i++)
				if (!evicting || at[i] != now - c->window)
					*t += age_weight(c, w, now - at[i]);
		}
	}
}

void
ga_conformal_add(ga_conformal *c, int h, double score)
{
	double	   *ring;
	double	   *s;
	long	   *at;
	int			n;
	int			pos;

	if (h < 0 || h >= c->n_horizons || !isfinite(score))
		return;
	ring = c->ring + (size_t) h * c->window;
	s = c->sorted + (size_t) h * c->window;
	at = c->sorted_at + (size_t) h * c->window;
	n = c->count[h];
	update_totals(c, h, n == c->window);
	if (n == c->window)
	{
		/* Drop the oldest from the sorted copy, reuse its ring cell. */
		int			i = find_sorted(s, at, n, ring[c->head[h]], c->added[h] - n);

		memmove(s + i, s + i + 1, sizeof(double) * (n - i - 1));
		memmove(at + i, at + i + 1, sizeof(long) * (n - i - 1));
		n--;
		ring[c->head[h]] = score;
		c->head[h] = (c->head[h] + 1) % c->window;
	}
	else
		ring[(c->head[h] + n) % c->window] = score;
	pos = lower_bound(s, n, score);
	memmove(s + pos + 1, s + pos, sizeof(double) * (n - pos));
	memmove(at + pos + 1, at + pos, sizeof(long) * (n - pos));
	s[pos] = score;
	at[pos] = c->added[h]++;
	c->count[h] = n + 1;
}

int
ga_conformal_count(const ga_conformal *c, int h)
{
	return h >= 0 && h < c->n_horizons ? c->count[h] : 0;
}

/*
 * Weighted: walk down from the largest score while the scores above weigh
 * at most the tail allowed, (1 - level) x (total + 1).
 */
static double
weighted_quantile(const ga_conformal *c, int h, int w, double level)
{
	const double *s = c->sorted + (size_t) h * c->window;
	const long *at = c->sorted_at + (size_t) h * c->window;
	long		now = c->added[h] - 1;
	int			n = c->count[h];
	double		above = 0;
	double		tail = (1 - level) * (c->total[w * c->n_horizons + h] + 1);

	for (int i = n - 1; i > 0; i--)
	{
		above += age_weight(c, w, now - at[i]);
		if (above > tail)
			return s[i];
	}
	return s[0];
}

double
ga_conformal_quantile(const ga_conformal *c, int h, double level, int weighting)
{
	const double *s;
	int			n;
	double		pos;
	int			i;

	if (h < 0 || h >= c->n_horizons || c->count[h] == 0)
		return 0;
	if (weighting < 0 || weighting >= c->n_weightings)
		weighting = 0;
	if (c->half_life[weighting] > 0)
		return weighted_quantile(c, h, weighting, level);
	s = c->sorted + (size_t) h * c->window;
	n = c->count[h];
	pos = level * (n + 1) - 1;
	if (pos <= 0)
		return s[0];
	if (pos >= n - 1)
		return s[n - 1];
	i = (int) floor(pos);
	return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

int
ga_conformal_weightings(const ga_conformal *c)
{
	return c->n_weightings;
}

void
ga_conformal_rescale(ga_conformal *c, double r)
{
	size_t		cells = (size_t) c->n_horizons * c->window;

	for (size_t i = 0; i < cells; i++)
	{
		c->ring[i] *= r;
		c->sorted[i] *= r;
	}
}

void
ga_coverage_control_init(ga_coverage_control *cc, double target, double gain,
						 double decay, double lo, double hi)
{
	cc->target = target;
	cc->gain = gain;
	cc->decay = decay;
	cc->level = target;
	cc->lo = lo;
	cc->hi = hi;
}

void
ga_coverage_control_update(ga_coverage_control *cc, int missed, int n)
{
	double		level;

	if (n <= 0)
		return;
	level = cc->target + cc->decay * (cc->level - cc->target) +
		cc->gain * ((double) missed / n - (1 - cc->target));
	cc->level = level < cc->lo ? cc->lo : (level > cc->hi ? cc->hi : level);
}
