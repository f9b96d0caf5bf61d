/*
 * weekly_profile.c — blended weekly profiles with level and trend, one
 * candidate of the demand forecaster.
 */
#include "forecast/weekly_profile.h"

#include <math.h>
#include <string.h>

#define MIN_SELECTION_ERRORS 24
#define DAY_HOURS 24

bool
ga_profile_params_valid(const ga_profile_params *p)
{
	if (p->n_profiles < 1 || p->n_profiles > GA_PROFILE_MAX)
		return false;
	for (int k = 0; k < p->n_profiles; k++)
		if (!(p->alphas[k] > 0 && p->alphas[k] <= 1))
			return false;
	return p->clip > 1 &&
		p->selection_hours >= DAY_HOURS &&
		p->selection_hours + 2 * DAY_HOURS < GA_PROFILE_RING &&
		p->level_hours >= 1 && p->level_hours <= 7 * DAY_HOURS &&
		p->level_damping >= 0 && p->level_damping <= 1 &&
		p->trend_weight >= 0 && p->trend_weight <= 1 &&
		p->floor_share > 0;
}

void
ga_profile_init(ga_weekly_profile *wp, const ga_profile_params *p)
{
	memset(wp, 0, sizeof(*wp));
	wp->p = *p;
	wp->last_hour = -1;
	for (int i = 0; i < GA_PROFILE_RING; i++)
		wp->stamp[i] = -1;
	for (int k = 0; k < p->n_profiles; k++)
		wp->comp[k].alpha = p->alphas[k];
}

static int
slot(int64_t hour)
{
	return (int) (((hour % GA_PROFILE_RING) + GA_PROFILE_RING) % GA_PROFILE_RING);
}

static bool
remembered(const ga_weekly_profile *wp, int64_t hour)
{
	return hour >= 0 && wp->stamp[slot(hour)] == hour;
}

/* Profile value of a bucket, with fallbacks for buckets never seen. */
static double
bucket_value(const ga_profile_component *c, int b)
{
	double		sum = 0;
	int			n = 0;

	if (c->profile_n[b] > 0)
		return c->profile[b];
	for (int d = 0; d < 7; d++)
	{
		int			o = (b % DAY_HOURS) + DAY_HOURS * d;

		if (c->profile_n[o] > 0)
		{
			sum += c->profile[o];
			n++;
		}
	}
	if (n > 0)
		return sum / n;
	for (int o = 0; o < GA_WEEK_HOURS; o++)
		if (c->profile_n[o] > 0)
		{
			sum += c->profile[o];
			n++;
		}
	return n ? sum / n : 0;
}

/*
 * Mean profile of the first component, scaled: the floor that keeps ratios
 * finite where traffic is near zero.
 */
static double
scale_floor(const ga_weekly_profile *wp)
{
	const ga_profile_component *c = &wp->comp[0];
	double		sum = 0;
	int			n = 0;

	for (int b = 0; b < GA_WEEK_HOURS; b++)
		if (c->profile_n[b] > 0)
		{
			sum += c->profile[b];
			n++;
		}
	return wp->p.floor_share * (n ? sum / n : 0) + 1e-9;
}

double
ga_profile_bucket(const ga_weekly_profile *wp, int b)
{
	double		v = 0;

	if (b < 0 || b >= GA_WEEK_HOURS || wp->n_observed == 0 ||
		wp->comp[0].profile_n[b] == 0)
		return NAN;
	for (int k = 0; k < wp->p.n_profiles; k++)
		v += wp->weight[slot(wp->last_hour)][k] * wp->comp[k].profile[b];
	return v;
}

/* (actual + k) / (expected + k) over remembered hours in (end - len, end]. */
static double
ratio_over(const ga_weekly_profile *wp, const ga_profile_component *c,
		   int64_t end, int len, double floor)
{
	double		a = 0;
	double		e = 0;
	int			n = 0;

	for (int64_t h = end - len + 1; h <= end; h++)
		if (remembered(wp, h))
		{
			a += wp->actual[slot(h)];
			e += c->expected[slot(h)];
			n++;
		}
	return (a + 0.5 * n * floor + 1e-9) / (e + 0.5 * n * floor + 1e-9);
}

static double
clamp(double x, double lo, double hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

static void
update_level_and_trend(const ga_weekly_profile *wp, ga_profile_component *c,
					   int64_t hour, double floor)
{
	const ga_profile_params *p = &wp->p;
	double		level = ratio_over(wp, c, hour, p->level_hours, floor);
	double		recent = ratio_over(wp, c, hour, DAY_HOURS, floor);
	double		before = ratio_over(wp, c, hour - DAY_HOURS, DAY_HOURS, floor);
	double		tau = clamp(p->trend_weight * log(recent / before), -0.5, 0.5);

	c->level[slot(hour)] = clamp(pow(level, p->level_damping), 1.0 / 3, 3.0);
	c->trend[slot(hour)] = exp(tau);
}

/* The latest remembered hour at or before hour, within two days. */
static int64_t
latest_at(const ga_weekly_profile *wp, int64_t hour)
{
	for (int64_t h = hour; h > hour - 2 * DAY_HOURS; h--)
		if (remembered(wp, h))
			return h;
	return -1;
}

static double
trend_factor(double daily, int64_t ahead)
{
	double		h = ahead < DAY_HOURS ? (double) ahead : DAY_HOURS;

	return pow(daily, h / DAY_HOURS);
}

static void
learn_bucket(ga_profile_component *c, int b, double x, double clip, double floor)
{
	if (c->profile_n[b] == 0)
		c->profile[b] = x;
	else
	{
		double		capped = fmin(x, clip * (c->profile[b] + floor));

		c->profile[b] += c->alpha * (capped - c->profile[b]);
	}
	c->profile_n[b]++;
}

/*
 * Blend weights after hour: inverse squared mean absolute error of each
 * profile's day-ahead forecasts over the selection window, so the
 * smoothing that has been forecasting this series best leads.  Equal weights
 * until every profile has enough scored hours.
 */
static void
update_weights(ga_weekly_profile *wp, int64_t hour)
{
	int			nk = wp->p.n_profiles;
	double		err[GA_PROFILE_MAX] = {0};
	double		total = 0;
	int			n = 0;

	for (int64_t h = hour - wp->p.selection_hours + 1; h <= hour; h++)
	{
		if (!remembered(wp, h) || !wp->comp[0].has_f24[slot(h)])
			continue;
		for (int k = 0; k < nk; k++)
			err[k] += fabs(wp->actual[slot(h)] - wp->comp[k].f24[slot(h)]);
		n++;
	}
	for (int k = 0; k < nk; k++)
	{
		double		mae = err[k] / (n ? n : 1) + 1e-9;

		wp->weight[slot(hour)][k] = n < MIN_SELECTION_ERRORS ? 1.0 : 1.0 / (mae * mae);
		total += wp->weight[slot(hour)][k];
	}
	for (int k = 0; k < nk; k++)
		wp->weight[slot(hour)][k] /= total;
}

/* Record each profile's forecast of this hour made a day before it. */
static void
score_hour(ga_weekly_profile *wp, int64_t hour)
{
	int			s = slot(hour);
	int64_t		origin = latest_at(wp, hour - DAY_HOURS);

	for (int k = 0; k < wp->p.n_profiles; k++)
	{
		ga_profile_component *c = &wp->comp[k];

		c->has_f24[s] = origin >= 0;
		if (origin >= 0)
			c->f24[s] = c->expected[s] * c->level[slot(origin)] *
				trend_factor(c->trend[slot(origin)], hour - origin);
	}
}

void
ga_profile_observe(ga_weekly_profile *wp, int64_t hour, double x)
{
	int			b = ga_hour_of_week(hour);
	int			s = slot(hour);
	double		floor = scale_floor(wp);

	wp->stamp[s] = hour;
	wp->actual[s] = x;
	for (int k = 0; k < wp->p.n_profiles; k++)
		wp->comp[k].expected[s] = wp->n_observed ?
			bucket_value(&wp->comp[k], b) : x;
	score_hour(wp, hour);
	for (int k = 0; k < wp->p.n_profiles; k++)
		learn_bucket(&wp->comp[k], b, x, wp->p.clip, floor);
	wp->n_observed++;
	wp->last_hour = hour;
	floor = scale_floor(wp);
	for (int k = 0; k < wp->p.n_profiles; k++)
		update_level_and_trend(wp, &wp->comp[k], hour, floor);
	update_weights(wp, hour);
}

double
ga_profile_forecast(const ga_weekly_profile *wp, int64_t hour)
{
	int			last = slot(wp->last_hour);
	int64_t		ahead = hour - wp->last_hour;
	double		base = 0;

	if (wp->n_observed == 0)
		return 0;
	for (int k = 0; k < wp->p.n_profiles; k++)
	{
		const ga_profile_component *c = &wp->comp[k];
		double		v = bucket_value(c, ga_hour_of_week(hour)) * c->level[last];

		if (ahead > 0)
			v *= trend_factor(c->trend[last], ahead);
		base += wp->weight[last][k] * v;
	}
	return base;
}

void
ga_profile_state(const ga_weekly_profile *wp, double *level, double *trend,
				 double *weights)
{
	int			last = slot(wp->last_hour);

	*level = 0;
	*trend = 0;
	for (int k = 0; k < wp->p.n_profiles; k++)
	{
		*level += wp->weight[last][k] * wp->comp[k].level[last];
		*trend += wp->weight[last][k] * wp->comp[k].trend[last];
		weights[k] = wp->weight[last][k];
	}
}

void
ga_profile_rescale(ga_weekly_profile *wp, double r, int64_t onset)
{
	for (int k = 0; k < wp->p.n_profiles; k++)
	{
		ga_profile_component *c = &wp->comp[k];

		for (int b = 0; b < GA_WEEK_HOURS; b++)
			c->profile[b] *= r;
		for (int i = 0; i < GA_PROFILE_RING; i++)
		{
			c->expected[i] *= r;
			c->f24[i] *= r;
			c->level[i] = 1;
			c->trend[i] = 1;
		}
	}
	for (int i = 0; i < GA_PROFILE_RING; i++)
		if (wp->stamp[i] >= 0 && wp->stamp[i] < onset)
			wp->actual[i] *= r;
}
