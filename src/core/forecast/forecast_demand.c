/*
 * forecast_demand.c — the demand forecaster: candidates scored per horizon,
 * their blend, conformal quantiles under coverage control, level shifts,
 * and the churn-shaped GPU curve.
 */
#include "forecast/forecast_demand.h"

#include "forecast/conformal.h"
#include "forecast/demand_blend.h"
#include "forecast/demand_upper.h"
#include "forecast/holt_winters.h"
#include "forecast/level_shift.h"
#include "forecast/weekly_profile.h"
#include "model/calendar.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define H GA_DEMAND_HORIZONS
#define MAX_CAND GA_DEMAND_MAX_CANDIDATES
/* Targets remembered ahead: more than the horizons scored. */
#define PENDING 32
/* Values remembered for the lag candidates: a week and a day, and more. */
#define LAG_RING 512
/*
 * Forecasts are remembered and scored only once two days have been seen:
 * the filters start then, and errors made from a few hours of history say
 * nothing about the errors to come (a service starting from zero would
 * otherwise fill the windows with its own ramp-up).
 */
#define WARMUP_HOURS 48
#define MIN_CANDIDATE_SCORES 24
#define DAY 24
/* Half-life of the recent mean that sets the scale floor: a week. */
#define MEAN_HALF_LIFE 168.0
/* Baseline of the level-shift test: three days. */
#define SHIFT_BASELINE 72
/*
 * The test compares (y + f) / (expected + f), f this share of the recent
 * mean: enough that quiet hours near zero do not read as huge ratios, small
 * enough that a doubling reads as nearly 2.
 */
#define SHIFT_FLOOR_SHARE 0.25
#define LEVEL_LO 0.5
#define LEVEL_HI 0.9995

typedef enum cand_kind
{
	CAND_PROFILE, CAND_HW, CAND_YESTERDAY, CAND_LAST_WEEK
} cand_kind;

/* What was forecast for one target at one horizon, to score it later. */
typedef struct pending
{
	int64_t		origin;			/* the last observed hour then; -1: none */
	double		f[MAX_CAND];	/* each candidate's forecast (NAN: none) */
	double		comb[GA_BLEND_COMBINERS];	/* each combiner's */
	double		center;			/* the chosen combiner's */
	ga_upper_bound bound;		/* the upper bounds, per unit of error */
	double		upper;			/* the upper curve issued */
} pending;

struct ga_demand_model
{
	ga_demand_params params;
	int			n_cand;
	cand_kind	kind[MAX_CAND];
	int			hw_of[MAX_CAND];	/* CAND_HW: which filter */
	int64_t		n_observed;
	int64_t		last_hour;
	ga_weekly_profile profile;
	ga_hw		hw[GA_DEMAND_MAX_HW];
	int64_t		lag_stamp[LAG_RING];
	double		lag_value[LAG_RING];
	ga_blend	blend;
	ga_upper   *upper;
	ga_coverage_control cc;
	pending		pend[PENDING][H];
	ga_level_shift shift;
	int			n_shifts;
	double		mean_sum;		/* EW mean of the traffic */
	double		mean_weight;
};

static const char *const hw_names[GA_DEMAND_MAX_HW] = {"hw1", "hw2", "hw3", "hw4"};

ga_demand_params
ga_demand_params_default(void)
{
	ga_demand_params p;

	memset(&p, 0, sizeof(p));
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
	p.residual_hours = 8 * GA_WEEK_HOURS;
	p.residual_half_life = 48;
	p.floor_share = 1.0;
	p.median_correction = false;
	p.n_hw = 4;
	p.hw[0] = (ga_demand_hw) {0.2, 0.01, 0.1, 0.9};
	p.hw[1] = (ga_demand_hw) {0.7, 0.02, 0.2, 0.9};
	p.hw[2] = (ga_demand_hw) {0.05, 0.01, 0.05, 0.95};
	p.hw[3] = (ga_demand_hw) {0.95, 0.0, 0.1, 0.8};
	p.use_yesterday = true;
	p.use_last_week = true;
	p.blend_hours = 336;
	p.upper_hours = 4 * 7 * 24;
	p.quantile = GA_DEMAND_QUANTILE_DEFAULT;
	p.coverage_gain = 0.005;
	p.coverage_hours = 4 * 7 * 24;
	p.coverage_span = 0.25;
	p.burst_lead_hours = 1;
	p.shift_hours = 18;
	p.shift_ratio = 1.3;
	return p;
}

static ga_profile_params
profile_params(const ga_demand_params *p)
{
	ga_profile_params q;

	memset(&q, 0, sizeof(q));
	q.n_profiles = p->n_profiles;
	for (int k = 0; k < p->n_profiles && k < GA_PROFILE_MAX; k++)
		q.alphas[k] = p->alphas[k];
	q.selection_hours = p->selection_hours;
	q.clip = p->clip;
	q.level_hours = p->level_hours;
	q.level_damping = p->level_damping;
	q.trend_weight = p->trend_weight;
	q.floor_share = p->floor_share;
	return q;
}

static bool
params_valid(const ga_demand_params *p)
{
	ga_profile_params pp = profile_params(p);
	ga_hw		probe;
	ga_level_shift ls;

	if (p->n_profiles > GA_PROFILE_MAX || !ga_profile_params_valid(&pp))
		return false;
	if (p->n_hw < 0 || p->n_hw > GA_DEMAND_MAX_HW)
		return false;
	for (int j = 0; j < p->n_hw; j++)
	{
		ga_hw_params hp = {p->hw[j].alpha, p->hw[j].beta, p->hw[j].gamma,
		p->hw[j].phi, DAY};

		if (!ga_hw_init(&probe, &hp))
			return false;
	}
	return p->residual_hours >= GA_UPPER_MIN_SCORES && p->residual_hours <= 100000 &&
		p->residual_half_life >= 1 &&
		p->floor_share > 0 && p->blend_hours >= 1 && p->upper_hours >= 1 &&
		p->quantile > 0.5 && p->quantile < 1 &&
		p->coverage_gain >= 0 && p->coverage_gain <= 1 &&
		p->coverage_hours >= 1 && p->coverage_span >= 0 && p->coverage_span <= 1 &&
		p->burst_lead_hours >= 0 && p->burst_lead_hours <= 24 &&
		ga_level_shift_init(&ls, p->shift_hours, p->shift_ratio, SHIFT_BASELINE);
}

/* The candidate list: the profile, the filters, then the lags. */
static void
set_candidates(ga_demand_model *m)
{
	const ga_demand_params *p = &m->params;

	m->n_cand = 0;
	m->kind[m->n_cand++] = CAND_PROFILE;
	for (int j = 0; j < p->n_hw; j++)
	{
		ga_hw_params hp = {p->hw[j].alpha, p->hw[j].beta, p->hw[j].gamma,
		p->hw[j].phi, DAY};

		ga_hw_init(&m->hw[j], &hp);
		m->hw_of[m->n_cand] = j;
		m->kind[m->n_cand++] = CAND_HW;
	}
	if (p->use_yesterday)
		m->kind[m->n_cand++] = CAND_YESTERDAY;
	if (p->use_last_week)
		m->kind[m->n_cand++] = CAND_LAST_WEEK;
}

ga_demand_model *
ga_demand_model_create(const ga_demand_params *params)
{
	ga_demand_model *m;
	ga_demand_params p = params ? *params : ga_demand_params_default();
	ga_profile_params pp = profile_params(&p);

	if (!params_valid(&p))
		return NULL;
	m = calloc(1, sizeof(ga_demand_model));
	if (m == NULL)
		return NULL;
	m->params = p;
	m->last_hour = -1;
	ga_profile_init(&m->profile, &pp);
	set_candidates(m);
	{
		ga_upper_settings us = {p.residual_hours, p.residual_half_life,
		p.upper_hours, p.quantile};

		m->upper = ga_upper_create(&us);
	}
	if (m->upper == NULL || !ga_blend_init(&m->blend, m->n_cand, p.blend_hours, MIN_CANDIDATE_SCORES))
	{
		ga_demand_model_destroy(m);
		return NULL;
	}
	for (int i = 0; i < LAG_RING; i++)
		m->lag_stamp[i] = -1;
	for (int t = 0; t < PENDING; t++)
		for (int a = 0; a < H; a++)
			m->pend[t][a].origin = -1;
	ga_coverage_control_init(&m->cc, p.quantile, p.coverage_gain,
							 pow(0.5, 1.0 / p.coverage_hours),
							 p.quantile - p.coverage_span * (1 - p.quantile),
							 p.quantile + p.coverage_span * (1 - p.quantile));
	ga_level_shift_init(&m->shift, p.shift_hours, p.shift_ratio, SHIFT_BASELINE);
	return m;
}

void
ga_demand_model_destroy(ga_demand_model *model)
{
	if (model == NULL)
		return;
	ga_upper_destroy(model->upper);
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

double
ga_demand_model_profile(const ga_demand_model *model, int bucket)
{
	return ga_profile_bucket(&model->profile, bucket);
}

const char *
ga_demand_candidate_name(const ga_demand_model *model, int k)
{
	if (k < 0 || k >= model->n_cand)
		return NULL;
	switch (model->kind[k])
	{
		case CAND_PROFILE:
			return "profile";
		case CAND_HW:
			return hw_names[model->hw_of[k]];
		case CAND_YESTERDAY:
			return "yesterday";
		case CAND_LAST_WEEK:
			return "last_week";
	}
	return NULL;
}

/* ---------------------------------------------------------------- candidates */

static int
lag_slot(int64_t hour)
{
	return (int) (((hour % LAG_RING) + LAG_RING) % LAG_RING);
}

/*
 * The value one, two, ... periods before target: the most recent observed
 * one, NAN when that hour was not observed or is forgotten.
 */
static double
lag_value(const ga_demand_model *m, int64_t target, int period)
{
	int64_t		ahead = target - m->last_hour;
	int64_t		k = ahead <= period ? 1 : (ahead + period - 1) / period;
	int64_t		h = target - k * period;

	return m->lag_stamp[lag_slot(h)] == h ? m->lag_value[lag_slot(h)] : NAN;
}

/* Steps ahead for a filter: a past target keeps its hour of day. */
static int
filter_ahead(int64_t ahead)
{
	if (ahead >= 1)
		return ahead > 100000 ? 100000 : (int) ahead;
	return (int) (((ahead - 1) % DAY + DAY) % DAY) + 1;
}

/* Candidate k's forecast of target from the state now; NAN: none. */
static double
candidate_forecast(const ga_demand_model *m, int k, int64_t target)
{
	int64_t		ahead = target - m->last_hour;

	switch (m->kind[k])
	{
		case CAND_PROFILE:
			return ga_profile_forecast(&m->profile, target);
		case CAND_HW:
			{
				const ga_hw *hw = &m->hw[m->hw_of[k]];

				return hw->n >= 2 * DAY ? ga_hw_forecast(hw, filter_ahead(ahead)) : NAN;
			}
		case CAND_YESTERDAY:
			return lag_value(m, target, DAY);
		case CAND_LAST_WEEK:
			return lag_value(m, target, GA_WEEK_HOURS);
	}
	return NAN;
}

int
ga_demand_candidate_count(const ga_demand_model *model)
{
	return model->n_cand;
}

double
ga_demand_candidate_forecast(const ga_demand_model *model, int k, int64_t hour)
{
	if (k < 0 || k >= model->n_cand || model->n_observed == 0)
		return NAN;
	return candidate_forecast(model, k, hour);
}

/* ---------------------------------------------------------------- blend */

static int
horizon_index(int64_t ahead)
{
	if (ahead < 1)
		return 0;
	return ahead > H ? H - 1 : (int) ahead - 1;
}

static double
recent_mean(const ga_demand_model *m)
{
	return m->mean_weight > 0 ? m->mean_sum / m->mean_weight : 0;
}

static double
scale_floor(const ga_demand_model *m)
{
	return m->params.floor_share * recent_mean(m) + GA_UPPER_SCALE_GUARD;
}

static int
hour_of_day(int64_t hour)
{
	return (int) (((hour % DAY) + DAY) % DAY);
}

/* One target's forecast: every candidate's, the blend and its bounds. */
typedef struct target_forecast
{
	double		f[MAX_CAND];
	double		w[MAX_CAND];	/* the chosen combiner's weights */
	double		comb[GA_BLEND_COMBINERS];
	double		center;
	ga_upper_bound bound;
	double		p50;
	double		upper;
} target_forecast;

static void
forecast_target(const ga_demand_model *m, int64_t target, double level,
				target_forecast *tf)
{
	int			hi = horizon_index(target - m->last_hour);
	int			chosen;

	for (int k = 0; k < m->n_cand; k++)
		tf->f[k] = candidate_forecast(m, k, target);
	chosen = ga_blend_combine(&m->blend, hi, tf->f, tf->comb, tf->w);
	tf->center = tf->comb[chosen];
	/* Only the profile forecasts a model with too little history. */
	if (!isfinite(tf->center))
		tf->center = ga_profile_forecast(&m->profile, target);
	ga_upper_bound_at(m->upper, hi, hour_of_day(target), tf->center,
					  scale_floor(m), level, &tf->bound);
	tf->p50 = fmax(0.0, tf->center +
				   (m->params.median_correction ? tf->bound.med : 0));
	tf->upper = fmax(tf->p50, tf->bound.upper[tf->bound.chosen]);
}

/* ---------------------------------------------------------------- learning */

/*
 * Score the forecasts made for this hour 1 .. H hours before it; returns
 * the center forecast made longest before (NAN: none), the reference of the
 * level-shift test.
 */
static double
score_hour(ga_demand_model *m, int64_t hour, double y)
{
	int			missed = 0;
	int			n = 0;
	double		reference = NAN;
	double		abs_err = 0;

	for (int a = 1; a <= H; a++)
	{
		pending    *rec = &m->pend[lag_slot(hour) % PENDING][a - 1];

		if (rec->origin != hour - a)
			continue;
		ga_blend_score(&m->blend, a - 1, y, rec->f, rec->comb);
		ga_upper_score(m->upper, a - 1, y, rec->center, &rec->bound);
		abs_err += fabs(y - rec->center);
		missed += y > rec->upper + 1e-12;
		n++;
		reference = rec->center;
	}
	if (n > 0)
		ga_upper_hour_error(m->upper, hour_of_day(hour), abs_err / n);
	ga_coverage_control_update(&m->cc, missed, n);
	return reference;
}

/* Feed the filters; a gap is filled with their own forecasts. */
static void
learn_filters(ga_demand_model *m, int64_t hour, double y)
{
	for (int j = 0; j < m->params.n_hw; j++)
	{
		if (m->n_observed > 0)
			for (int64_t h = m->last_hour + 1; h < hour; h++)
				ga_hw_update(&m->hw[j], ga_hw_forecast(&m->hw[j], 1));
		ga_hw_update(&m->hw[j], y);
	}
}

static void
learn(ga_demand_model *m, int64_t hour, double y)
{
	double		decay = pow(0.5, 1.0 / MEAN_HALF_LIFE);

	learn_filters(m, hour, y);
	ga_profile_observe(&m->profile, hour, y);
	m->lag_stamp[lag_slot(hour)] = hour;
	m->lag_value[lag_slot(hour)] = y;
	m->mean_sum = m->mean_sum * decay + y;
	m->mean_weight = m->mean_weight * decay + 1;
	m->n_observed++;
	m->last_hour = hour;
}

/*
 * A level shift by r from hour onset: the memory the candidates forecast
 * from is brought to the new level, and what was forecast before it is no
 * longer scored.
 */
static void
apply_shift(ga_demand_model *m, double r, int64_t onset)
{
	ga_profile_rescale(&m->profile, r, onset);
	for (int i = 0; i < LAG_RING; i++)
		if (m->lag_stamp[i] >= 0 && m->lag_stamp[i] < onset)
			m->lag_value[i] *= r;
	m->mean_sum *= r;
	ga_upper_rescale(m->upper, r);
	for (int t = 0; t < PENDING; t++)
		for (int a = 0; a < H; a++)
			m->pend[t][a].origin = -1;
	m->n_shifts++;
}

/*
 * Test for a level shift with this hour's ratio to what the model expected
 * of it the longest before, and to the same hour a week before: a shift
 * must show against both (the smaller ratio counts, none if they disagree),
 * so a weekly pattern the blend has not learned yet (the weekend after a
 * busy week) is not taken for one.
 */
static void
check_shift(ga_demand_model *m, int64_t hour, double y, double expected,
			double week_before)
{
	double		floor = SHIFT_FLOOR_SHARE * recent_mean(m) + 1e-9;
	double		g_fc;
	double		g_week;
	double		shift;

	if (!isfinite(expected) || !isfinite(week_before))
		return;
	g_fc = log((y + floor) / (fmax(expected, 0) + floor));
	g_week = log((y + floor) / (week_before + floor));
	shift = ga_level_shift_push(&m->shift, g_fc * g_week <= 0 ? 0 :
								(fabs(g_fc) < fabs(g_week) ? g_fc : g_week));
	if (shift != 0)
		apply_shift(m, exp(shift), hour - m->params.shift_hours + 1);
}

/* Forecast the next H hours from the state now and remember them. */
static void
issue_forecasts(ga_demand_model *m)
{
	for (int a = 1; a <= H; a++)
	{
		int64_t		target = m->last_hour + a;
		pending    *rec = &m->pend[lag_slot(target) % PENDING][a - 1];
		target_forecast tf;

		forecast_target(m, target, m->cc.level, &tf);
		rec->origin = m->last_hour;
		memcpy(rec->f, tf.f, sizeof(tf.f));
		memcpy(rec->comb, tf.comb, sizeof(tf.comb));
		rec->center = tf.center;
		rec->bound = tf.bound;
		rec->upper = tf.upper;
	}
}

ga_status
ga_demand_model_observe(ga_demand_model *model, int64_t hour, double traffic,
						ga_error *err)
{
	double		expected;
	double		week_before;

	if (!isfinite(traffic) || traffic < 0)
		return ga_error_set(err, GA_EINVAL,
							"demand \"traffic\" must be a finite number >= 0, got %g at hour %lld",
							traffic, (long long) hour);
	if (hour < 0 || (model->n_observed > 0 && hour <= model->last_hour))
		return ga_error_set(err, GA_EINVAL,
							"demand \"hour\" %lld must be >= 0 and after the last observed hour %lld",
							(long long) hour, (long long) model->last_hour);
	expected = score_hour(model, hour, traffic);
	week_before = model->n_observed > 0 ? lag_value(model, hour, GA_WEEK_HOURS) : NAN;
	learn(model, hour, traffic);
	check_shift(model, hour, traffic, expected, week_before);
	if (model->n_observed >= WARMUP_HOURS)
		issue_forecasts(model);
	return GA_OK;
}

/* ---------------------------------------------------------------- forecast */

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


/* The level asked for at quantile q: the controller's, rescaled. */
static double
level_for(const ga_demand_model *m, double q)
{
	double		miss = (1 - q) * (1 - m->cc.level) / (1 - m->params.quantile);
	double		level = 1 - miss;

	return level < LEVEL_LO ? LEVEL_LO : (level > LEVEL_HI ? LEVEL_HI : level);
}

/* What the caller may want to know about the first step's forecast. */
static void
describe(const ga_demand_model *m, const target_forecast *tf, double level,
		 ga_demand_info *info)
{
	ga_profile_state(&m->profile, &info->level, &info->trend, info->weights);
	info->resid_median = tf->bound.med / tf->bound.scale[tf->bound.chosen];
	info->resid_upper = tf->bound.q_up;
	info->n_residuals = tf->bound.n_scores;
	info->n_candidates = m->n_cand;
	for (int k = 0; k < m->n_cand; k++)
		info->candidate_weights[k] = tf->w[k];
	info->coverage_level = level;
	info->level_shifts = m->n_shifts;
}

int
ga_demand_upper_gpus(double upper, double capacity_per_gpu)
{
	double		gpus = ceil(upper / capacity_per_gpu - 1e-9);

	return gpus < GA_DEMAND_MAX_GPUS ? (int) gpus : GA_DEMAND_MAX_GPUS;
}

/* Hourly values expanded to steps, and the upper GPU curve. */
static void
fill_steps(const ga_demand_model *m, int64_t from_hour, int n_steps,
		   int step_minutes, double capacity_per_gpu, double level,
		   double *p50, double *upper, int *q, ga_demand_info *info)
{
	target_forecast tf;
	int64_t		done = -1;

	for (int t = 0; t < n_steps; t++)
	{
		int64_t		hour = from_hour + ((int64_t) t * step_minutes) / 60;

		if (hour != done)
		{
			forecast_target(m, hour, level, &tf);
			if (done < 0)
				describe(m, &tf, level, info);
			done = hour;
		}
		if (p50)
			p50[t] = tf.p50;
		if (upper)
			upper[t] = tf.upper;
		q[t] = ga_demand_upper_gpus(tf.upper, capacity_per_gpu);
	}
}

/*
 * Bursts: where the GPU curve rises from one step to the next by more than
 * the churn limit lets the service add in a step, the service cannot be at
 * the new level when the rise comes, and a rise of that size that comes an
 * hour early (the upper curve says when a rise is likely, not to the hour)
 * would be missed for the whole of its ramp.  So the level after the rise
 * is held from lead_steps steps before it; churn shaping then ramps towards
 * that earlier start.  Decided on the curve as forecast, not on the raised
 * one, so leads do not chain.
 */
static void
ramp_bursts(const int *q0, const double *up0, int n, int churn_limit,
			int lead_steps, int *q, double *up)
{
	for (int t = 0; t + 1 < n; t++)
	{
		if (q0[t + 1] - q0[t] <= churn_limit)
			continue;
		for (int k = t; k >= 0 && k > t - lead_steps; k--)
		{
			if (q[k] < q0[t + 1])
				q[k] = q0[t + 1];
			if (up[k] < up0[t + 1])
				up[k] = up0[t + 1];
		}
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
	double	   *up;
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
	q = malloc(sizeof(int) * 2 * n_steps);
	up = malloc(sizeof(double) * 2 * n_steps);
	if (q == NULL || up == NULL)
	{
		free(q);
		free(up);
		return ga_error_set(err, GA_ENOMEM, "out of memory in demand forecast");
	}
	fill_steps(model, from_hour, n_steps, step_minutes, capacity_per_gpu,
			   level_for(model, quantile), p50, up, q, info);
	clamp_curve(q, n_steps, min_gpus, max_gpus);
	if (churn_limit > 0 && model->params.burst_lead_hours > 0)
	{
		memcpy(q + n_steps, q, sizeof(int) * n_steps);
		memcpy(up + n_steps, up, sizeof(double) * n_steps);
		ramp_bursts(q + n_steps, up + n_steps, n_steps, churn_limit,
					model->params.burst_lead_hours * 60 / step_minutes, q, up);
	}
	if (upper)
		memcpy(upper, up, sizeof(double) * n_steps);
	if (shaped_gpus)
	{
		if (churn_limit > 0)
			ga_churn_shape(q, n_steps, churn_limit, shaped_gpus);
		else
			memcpy(shaped_gpus, q, sizeof(int) * n_steps);
	}
	free(q);
	free(up);
	return GA_OK;
}

ga_status
ga_parse_hour(const char *text, int64_t *hour, ga_error *err)
{
	int64_t		minutes;
	ga_error	why = {0};

	if (text == NULL || ga_parse_minutes(text, &minutes, &why) != GA_OK)
		return ga_error_set(err, GA_EINVAL, "timestamp \"%s\" %s",
							text ? text : "(null)",
							text ? why.message : "must be a UTC time YYYY-MM-DD HH:00 (whole hours)");
	if (minutes % 60 != 0)
		return ga_error_set(err, GA_EINVAL,
							"timestamp \"%s\" must be a whole hour (UTC)", text);
	*hour = minutes / 60;
	return GA_OK;
}
