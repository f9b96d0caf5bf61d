/*
 * forecast_demand.c — weekly profile, level, trend and residual quantiles
 * for real-time demand, and churn shaping of the GPU curve.
 */
#include "forecast/forecast_demand.h"

#include "forecast/forecast_common.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Hours remembered: the residual window plus the level windows, rounded up. */
#define RING_HOURS 2048
#define MIN_RESIDUALS 24
#define MIN_SELECTION_ERRORS 24
#define HORIZON_HOURS 24

/* One weekly profile with its own smoothing weight, level and trend. */
typedef struct profile_component
{
	double		alpha;
	double		profile[GA_WEEK_HOURS];
	int			profile_n[GA_WEEK_HOURS];
	double		expected[RING_HOURS];	/* bucket value before learning it */
	double		level[RING_HOURS];	/* level in force after the hour */
	double		trend[RING_HOURS];	/* daily trend factor after the hour */
	double		f24[RING_HOURS];	/* forecast made a horizon earlier */
	bool		has_f24[RING_HOURS];
} profile_component;

struct ga_demand_model
{
	ga_demand_params params;
	int64_t		n_observed;
	int64_t		last_hour;
	/* Per remembered hour, valid when stamp[i] == the hour. */
	int64_t		stamp[RING_HOURS];
	double		actual[RING_HOURS];
	double		weight[RING_HOURS][GA_DEMAND_MAX_PROFILES];	/* after the hour */
	double		resid[RING_HOURS];	/* of the blended forecast */
	bool		has_resid[RING_HOURS];
	profile_component comp[GA_DEMAND_MAX_PROFILES];
};

ga_demand_params
ga_demand_params_default(void)
{
	ga_demand_params p;

	p.n_profiles = 4;
	p.alphas[0] = 0.15;
	p.alphas[1] = 0.35;
	p.alphas[2] = 0.7;
	p.alphas[3] = 1.0;
	p.selection_hours = 14 * 24;
	p.clip = 3.0;
	p.level_hours = 24;
	p.level_damping = 0.5;
	p.trend_weight = 0.2;
	p.residual_hours = 4 * GA_WEEK_HOURS;
	p.floor_share = 1.0;
	return p;
}

static bool
params_valid(const ga_demand_params *p)
{
	if (p->n_profiles < 1 || p->n_profiles > GA_DEMAND_MAX_PROFILES)
		return false;
	for (int k = 0; k < p->n_profiles; k++)
		if (!(p->alphas[k] > 0 && p->alphas[k] <= 1))
			return false;
	return p->clip > 1 &&
		p->selection_hours >= HORIZON_HOURS &&
		p->selection_hours + 2 * HORIZON_HOURS < RING_HOURS &&
		p->level_hours >= 1 && p->level_hours <= 7 * 24 &&
		p->level_damping >= 0 && p->level_damping <= 1 &&
		p->trend_weight >= 0 && p->trend_weight <= 1 &&
		p->residual_hours >= MIN_RESIDUALS &&
		p->residual_hours + 2 * HORIZON_HOURS + p->level_hours < RING_HOURS &&
		p->floor_share > 0;
}

ga_demand_model *
ga_demand_model_create(const ga_demand_params *params)
{
	ga_demand_model *m;
	ga_demand_params p = params ? *params : ga_demand_params_default();

	if (!params_valid(&p))
		return NULL;
	m = calloc(1, sizeof(ga_demand_model));
	if (m == NULL)
		return NULL;
	m->params = p;
	m->last_hour = -1;
	for (int i = 0; i < RING_HOURS; i++)
		m->stamp[i] = -1;
	for (int k = 0; k < p.n_profiles; k++)
		m->comp[k].alpha = p.alphas[k];
	return m;
}

void
ga_demand_model_destroy(ga_demand_model *model)
{
	free(model);
}

int64_t
ga_demand_model_count(const ga_demand_model *model)
{
	return model->n_observed;
}

int64_t
ga_demand_model_last_hour(const ga_demand_model *model)
{
	return model->n_observed ? model->last_hour : -1;
}

static int
slot(int64_t hour)
{
	return (int) (((hour % RING_HOURS) + RING_HOURS) % RING_HOURS);
}

static bool
remembered(const ga_demand_model *m, int64_t hour)
{
	return hour >= 0 && m->stamp[slot(hour)] == hour;
}

/* Profile value of a bucket, with fallbacks for buckets never seen. */
static double
bucket_value(const profile_component *c, int b)
{
	double		sum = 0;
	int			n = 0;

	if (c->profile_n[b] > 0)
		return c->profile[b];
	for (int d = 0; d < 7; d++)
	{
		int			o = (b % 24) + 24 * d;

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
 * Mean profile of the first component, scaled: the floor that keeps relative
 * residuals finite where traffic is near zero.
 */
static double
scale_floor(const ga_demand_model *m)
{
	const profile_component *c = &m->comp[0];
	double		sum = 0;
	int			n = 0;

	for (int b = 0; b < GA_WEEK_HOURS; b++)
		if (c->profile_n[b] > 0)
		{
			sum += c->profile[b];
			n++;
		}
	return m->params.floor_share * (n ? sum / n : 0) + 1e-9;
}

double
ga_demand_model_profile(const ga_demand_model *model, int bucket)
{
	int64_t		last = model->last_hour;
	double		v = 0;

	if (bucket < 0 || bucket >= GA_WEEK_HOURS || model->n_observed == 0 ||
		model->comp[0].profile_n[bucket] == 0)
		return NAN;
	for (int k = 0; k < model->params.n_profiles; k++)
		v += model->weight[slot(last)][k] * model->comp[k].profile[bucket];
	return v;
}

/* (actual + k) / (expected + k) over remembered hours in (end - len, end]. */
static double
ratio_over(const ga_demand_model *m, const profile_component *c, int64_t end,
		   int len, double floor)
{
	double		a = 0;
	double		e = 0;
	int			n = 0;

	for (int64_t h = end - len + 1; h <= end; h++)
		if (remembered(m, h))
		{
			a += m->actual[slot(h)];
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
update_level_and_trend(const ga_demand_model *m, profile_component *c,
					   int64_t hour, double floor)
{
	const ga_demand_params *p = &m->params;
	double		level = ratio_over(m, c, hour, p->level_hours, floor);
	double		recent = ratio_over(m, c, hour, HORIZON_HOURS, floor);
	double		before = ratio_over(m, c, hour - HORIZON_HOURS, HORIZON_HOURS, floor);
	double		tau = clamp(p->trend_weight * log(recent / before), -0.5, 0.5);

	c->level[slot(hour)] = clamp(pow(level, p->level_damping), 1.0 / 3, 3.0);
	c->trend[slot(hour)] = exp(tau);
}

/* The latest remembered hour at or before hour, within two horizons. */
static int64_t
latest_at(const ga_demand_model *m, int64_t hour)
{
	for (int64_t h = hour; h > hour - 2 * HORIZON_HOURS; h--)
		if (remembered(m, h))
			return h;
	return -1;
}

static double
trend_factor(double daily, int64_t ahead)
{
	double		h = ahead < HORIZON_HOURS ? (double) ahead : HORIZON_HOURS;

	return pow(daily, h / HORIZON_HOURS);
}

static void
learn_bucket(profile_component *c, int b, double x, double clip, double floor)
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
 * profile's horizon-ahead forecasts over the selection window, so the
 * smoothing that has been forecasting this series best leads.  Equal weights
 * until every profile has enough scored hours.
 */
static void
update_weights(ga_demand_model *m, int64_t hour)
{
	int			nk = m->params.n_profiles;
	double		err[GA_DEMAND_MAX_PROFILES] = {0};
	double		total = 0;
	int			n = 0;

	for (int64_t h = hour - m->params.selection_hours + 1; h <= hour; h++)
	{
		if (!remembered(m, h) || !m->comp[0].has_f24[slot(h)])
			continue;
		for (int k = 0; k < nk; k++)
			err[k] += fabs(m->actual[slot(h)] - m->comp[k].f24[slot(h)]);
		n++;
	}
	for (int k = 0; k < nk; k++)
	{
		double		mae = err[k] / (n ? n : 1) + 1e-9;

		m->weight[slot(hour)][k] = n < MIN_SELECTION_ERRORS ? 1.0 : 1.0 / (mae * mae);
		total += m->weight[slot(hour)][k];
	}
	for (int k = 0; k < nk; k++)
		m->weight[slot(hour)][k] /= total;
}

/*
 * Score the forecasts made a horizon before this hour: each profile's own
 * (for the blend weights) and the blend's (for the residual quantiles).
 */
static void
score_hour(ga_demand_model *m, int64_t hour, double x, double floor)
{
	int			s = slot(hour);
	int64_t		origin = latest_at(m, hour - HORIZON_HOURS);
	double		blend = 0;

	m->has_resid[s] = false;
	for (int k = 0; k < m->params.n_profiles; k++)
	{
		profile_component *c = &m->comp[k];

		c->has_f24[s] = origin >= 0;
		if (origin < 0)
			continue;
		c->f24[s] = c->expected[s] * c->level[slot(origin)] *
			trend_factor(c->trend[slot(origin)], hour - origin);
		blend += m->weight[slot(origin)][k] * c->f24[s];
	}
	if (origin < 0)
		return;
	m->resid[s] = (x - blend) / (blend + floor);
	m->has_resid[s] = true;
}

ga_status
ga_demand_model_observe(ga_demand_model *model, int64_t hour, double traffic,
						ga_error *err)
{
	int			b = ga_hour_of_week(hour);
	int			s = slot(hour);
	double		floor;

	if (!isfinite(traffic) || traffic < 0)
		return ga_error_set(err, GA_EINVAL,
							"demand \"traffic\" must be a finite number >= 0, got %g at hour %lld",
							traffic, (long long) hour);
	if (hour < 0 || (model->n_observed > 0 && hour <= model->last_hour))
		return ga_error_set(err, GA_EINVAL,
							"demand \"hour\" %lld must be >= 0 and after the last observed hour %lld",
							(long long) hour, (long long) model->last_hour);
	floor = scale_floor(model);
	model->stamp[s] = hour;
	model->actual[s] = traffic;
	for (int k = 0; k < model->params.n_profiles; k++)
		model->comp[k].expected[s] = model->n_observed ?
			bucket_value(&model->comp[k], b) : traffic;
	score_hour(model, hour, traffic, floor);
	for (int k = 0; k < model->params.n_profiles; k++)
		learn_bucket(&model->comp[k], b, traffic, model->params.clip, floor);
	model->n_observed++;
	model->last_hour = hour;
	floor = scale_floor(model);
	for (int k = 0; k < model->params.n_profiles; k++)
		update_level_and_trend(model, &model->comp[k], hour, floor);
	update_weights(model, hour);
	return GA_OK;
}

static ga_status
check_forecast_args(int n_steps, int step_minutes, double quantile,
					double capacity_per_gpu, int churn_limit, int min_gpus,
					int max_gpus, ga_error *err)
{
	if (n_steps < 1)
		return ga_error_set(err, GA_EINVAL, "demand forecast: n_steps must be >= 1, got %d", n_steps);
	if (step_minutes < 1 || step_minutes > 60 || 60 % step_minutes != 0)
		return ga_error_set(err, GA_EINVAL,
							"demand forecast: step_minutes must divide 60, got %d", step_minutes);
	if (!(quantile >= 0.5 && quantile <= 0.999))
		return ga_error_set(err, GA_EINVAL,
							"demand forecast: quantile must be in [0.5, 0.999], got %g", quantile);
	if (!(capacity_per_gpu > 0) || !isfinite(capacity_per_gpu))
		return ga_error_set(err, GA_EINVAL,
							"demand forecast: capacity_per_gpu must be a finite number > 0, got %g",
							capacity_per_gpu);
	if (churn_limit < 0)
		return ga_error_set(err, GA_EINVAL,
							"demand forecast: churn_limit must be >= 1 (or 0 for none), got %d",
							churn_limit);
	if (min_gpus < 0 || max_gpus < 0 || (max_gpus > 0 && max_gpus < min_gpus))
		return ga_error_set(err, GA_EINVAL,
							"demand forecast: need 0 <= min_gpus <= max_gpus (max_gpus 0 = no cap), "
							"got min_gpus %d, max_gpus %d", min_gpus, max_gpus);
	return GA_OK;
}

/* Median and upper quantile of the remembered relative residuals. */
static ga_status
residual_quantiles(const ga_demand_model *m, double quantile, ga_demand_info *info,
				   ga_error *err)
{
	int			len = m->params.residual_hours;
	double	   *buf = malloc(sizeof(double) * len);
	int			n = 0;

	if (buf == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory in demand forecast");
	for (int64_t h = m->last_hour - len + 1; h <= m->last_hour; h++)
		if (remembered(m, h) && m->has_resid[slot(h)])
			buf[n++] = m->resid[slot(h)];
	info->n_residuals = n;
	if (n < MIN_RESIDUALS)
	{
		info->resid_median = 0;
		info->resid_upper = 1.0;
	}
	else
	{
		info->resid_median = ga_quantile(buf, n, 0.5);
		info->resid_upper = ga_quantile(buf, n, quantile);
	}
	free(buf);
	return GA_OK;
}

/* Blended base forecast of one hour from the state after the last hour. */
static double
base_forecast(const ga_demand_model *m, int64_t hour)
{
	int			last = slot(m->last_hour);
	int64_t		ahead = hour - m->last_hour;
	double		base = 0;

	for (int k = 0; k < m->params.n_profiles; k++)
	{
		const profile_component *c = &m->comp[k];
		double		v = bucket_value(c, ga_hour_of_week(hour)) * c->level[last];

		if (ahead > 0)
			v *= trend_factor(c->trend[last], ahead);
		base += m->weight[last][k] * v;
	}
	return base;
}

/* p50 and upper traffic of one hour; floor and info from the caller. */
static void
forecast_hour(const ga_demand_model *m, int64_t hour, double floor,
			  const ga_demand_info *info, double *p50, double *upper)
{
	double		base = base_forecast(m, hour);

	*p50 = fmax(0.0, base + info->resid_median * (base + floor));
	*upper = fmax(*p50, base + info->resid_upper * (base + floor));
}

/* Blended level and trend in force, for the caller's information. */
static void
describe_state(const ga_demand_model *m, ga_demand_info *info)
{
	int			last = slot(m->last_hour);

	info->level = 0;
	info->trend = 0;
	for (int k = 0; k < m->params.n_profiles; k++)
	{
		info->level += m->weight[last][k] * m->comp[k].level[last];
		info->trend += m->weight[last][k] * m->comp[k].trend[last];
		info->weights[k] = m->weight[last][k];
	}
}

static void
clamp_curve(int *q, int n, int min_gpus, int max_gpus)
{
	for (int t = 0; t < n; t++)
	{
		if (q[t] < min_gpus)
			q[t] = min_gpus;
		if (max_gpus > 0 && q[t] > max_gpus)
			q[t] = max_gpus;
	}
}

void
ga_churn_shape(const int *q, int n, int churn_limit, int *out)
{
	if (n <= 0)
		return;
	/* Backward: a step may sit at most churn_limit below its successor. */
	out[n - 1] = q[n - 1];
	for (int t = n - 2; t >= 0; t--)
		out[t] = q[t] > out[t + 1] - churn_limit ? q[t] : out[t + 1] - churn_limit;
	/* Forward: and at most churn_limit below its predecessor. */
	for (int t = 1; t < n; t++)
		if (out[t] < out[t - 1] - churn_limit)
			out[t] = out[t - 1] - churn_limit;
}

static void
no_history_forecast(int n_steps, int min_gpus, double *p50, double *upper,
					int *shaped, ga_demand_info *info)
{
	info->no_history = true;
	for (int t = 0; t < n_steps; t++)
	{
		if (p50)
			p50[t] = 0;
		if (upper)
			upper[t] = 0;
		if (shaped)
			shaped[t] = min_gpus;
	}
}

/* Hourly values expanded to steps, and the clamped upper GPU curve. */
static void
fill_steps(const ga_demand_model *m, int64_t from_hour, int n_steps,
		   int step_minutes, double capacity_per_gpu, const ga_demand_info *info,
		   double *p50, double *upper, int *q)
{
	double		floor = scale_floor(m);

	for (int t = 0; t < n_steps; t++)
	{
		int64_t		hour = from_hour + ((int64_t) t * step_minutes) / 60;
		double		lo;
		double		hi;

		forecast_hour(m, hour, floor, info, &lo, &hi);
		if (p50)
			p50[t] = lo;
		if (upper)
			upper[t] = hi;
		/* A hair of tolerance so 2.0000000001 GPUs of traffic stays 2. */
		q[t] = (int) ceil(hi / capacity_per_gpu - 1e-9);
	}
}

ga_status
ga_demand_forecast(const ga_demand_model *model, int64_t from_hour,
				   int n_steps, int step_minutes, double quantile,
				   double capacity_per_gpu, int churn_limit,
				   int min_gpus, int max_gpus,
				   double *p50, double *upper, int *shaped_gpus,
				   ga_demand_info *info, ga_error *err)
{
	ga_demand_info local;
	int		   *q;
	ga_status	st = check_forecast_args(n_steps, step_minutes, quantile,
										 capacity_per_gpu, churn_limit,
										 min_gpus, max_gpus, err);

	if (st != GA_OK)
		return st;
	if (info == NULL)
		info = &local;
	memset(info, 0, sizeof(*info));
	if (model->n_observed == 0)
	{
		no_history_forecast(n_steps, min_gpus, p50, upper, shaped_gpus, info);
		return GA_OK;
	}
	describe_state(model, info);
	st = residual_quantiles(model, quantile, info, err);
	if (st != GA_OK)
		return st;
	q = malloc(sizeof(int) * n_steps);
	if (q == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory in demand forecast");
	fill_steps(model, from_hour, n_steps, step_minutes, capacity_per_gpu, info,
			   p50, upper, q);
	clamp_curve(q, n_steps, min_gpus, max_gpus);
	if (shaped_gpus)
	{
		if (churn_limit > 0)
			ga_churn_shape(q, n_steps, churn_limit, shaped_gpus);
		else
			memcpy(shaped_gpus, q, sizeof(int) * n_steps);
	}
	free(q);
	return GA_OK;
}

static bool
read_digits(const char **s, int n, int *out)
{
	*out = 0;
	for (int i = 0; i < n; i++, (*s)++)
	{
		if (!isdigit((unsigned char) **s))
			return false;
		*out = *out * 10 + (**s - '0');
	}
	return true;
}

static bool
expect_char(const char **s, const char *allowed)
{
	if (**s == '\0' || strchr(allowed, **s) == NULL)
		return false;
	(*s)++;
	return true;
}

ga_status
ga_parse_hour(const char *text, int64_t *hour, ga_error *err)
{
	const char *s = text;
	int			y,
				mo,
				d,
				h,
				mi;
	bool		ok;

	ok = s != NULL && read_digits(&s, 4, &y) && expect_char(&s, "-") &&
		read_digits(&s, 2, &mo) && expect_char(&s, "-") &&
		read_digits(&s, 2, &d) && expect_char(&s, " T") &&
		read_digits(&s, 2, &h) && expect_char(&s, ":") &&
		read_digits(&s, 2, &mi);
	if (!ok || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
		mi != 0)
		return ga_error_set(err, GA_EINVAL,
							"timestamp \"%s\" must be YYYY-MM-DD HH:00 (UTC, whole hours)",
							text ? text : "(null)");
	*hour = ga_civil_days(y, mo, d) * 24 + h;
	return GA_OK;
}
