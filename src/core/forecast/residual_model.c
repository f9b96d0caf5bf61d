/*
 * residual_model.c — the second-order ridge regression of log(actual /
 * prior), its cross-validated penalty, Huber reweighting and empirical
 * interval.
 */
#include "forecast/residual_model.h"

#include "forecast/forecast_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The grid cross-validation chooses from (penalty in units of rows). */
static const double lambda_grid[] = {0.3, 1, 3, 10, 30, 100, 300, 1000};
static const double weight_grid[] = {0.0, 0.5, 1.0};

#define N_LAMBDA (int) (sizeof(lambda_grid) / sizeof(lambda_grid[0]))
#define N_WEIGHT (int) (sizeof(weight_grid) / sizeof(weight_grid[0]))
#define FOLDS 5
#define MIN_CV_ROWS (2 * FOLDS)
#define HUBER_DELTA 1.345
#define HUBER_ROUNDS 3

/* Widest design: intercept, features, flags, products, flag x feature. */
#define MAX_COLUMNS (1 + GA_RESIDUAL_MAX_CONT + GA_RESIDUAL_MAX_FLAGS + \
					 GA_RESIDUAL_MAX_CONT * (GA_RESIDUAL_MAX_CONT + 1) / 2 + \
					 GA_RESIDUAL_MAX_FLAGS * GA_RESIDUAL_MAX_CONT)

struct ga_residual_model
{
	int			n_cont;
	int			n_flags;
	int			p;				/* design columns, intercept first */
	int			first_second;	/* first second-order column */
	double		prior_log_sigma;
	/* history */
	int			n;
	int			cap;
	double	   *cont;			/* [cap][n_cont] */
	bool	   *flags;			/* [cap][n_flags] */
	double	   *y;				/* [cap] */
	/* fit */
	bool		fitted;
	double		cont_mean[GA_RESIDUAL_MAX_CONT];
	double		cont_scale[GA_RESIDUAL_MAX_CONT];
	double	   *col_mean;		/* [p] */
	double	   *col_scale;		/* [p] */
	double	   *beta;			/* [p] */
	double		lambda;
	double		weight;
	double		log_p10;
	double		log_p90;
};

static int
design_width(int c, int f)
{
	return 1 + c + f + c * (c + 1) / 2 + f * c;
}

ga_residual_model *
ga_residual_model_create(int n_cont, int n_flags, double prior_log_sigma)
{
	ga_residual_model *m;

	if (n_cont < 1 || n_cont > GA_RESIDUAL_MAX_CONT || n_flags < 0 ||
		n_flags > GA_RESIDUAL_MAX_FLAGS || !(prior_log_sigma > 0))
		return NULL;
	m = calloc(1, sizeof(ga_residual_model));
	if (m == NULL)
		return NULL;
	m->n_cont = n_cont;
	m->n_flags = n_flags;
	m->p = design_width(n_cont, n_flags);
	m->first_second = 1 + n_cont + n_flags;
	m->prior_log_sigma = prior_log_sigma;
	m->col_mean = calloc(m->p, sizeof(double));
	m->col_scale = calloc(m->p, sizeof(double));
	m->beta = calloc(m->p, sizeof(double));
	if (m->col_mean == NULL || m->col_scale == NULL || m->beta == NULL)
	{
		ga_residual_model_destroy(m);
		return NULL;
	}
	ga_residual_model_spread(m, &m->log_p10, &m->log_p90);
	return m;
}

void
ga_residual_model_destroy(ga_residual_model *m)
{
	if (m == NULL)
		return;
	free(m->cont);
	free(m->flags);
	free(m->y);
	free(m->col_mean);
	free(m->col_scale);
	free(m->beta);
	free(m);
}

static bool
grow(ga_residual_model *m)
{
	int			cap = m->cap ? m->cap * 2 : 64;
	double	   *c = realloc(m->cont, sizeof(double) * m->n_cont * cap);
	bool	   *f;
	double	   *y;

	if (c == NULL)
		return false;
	m->cont = c;
	f = realloc(m->flags, sizeof(bool) * (m->n_flags ? m->n_flags : 1) * cap);
	if (f == NULL)
		return false;
	m->flags = f;
	y = realloc(m->y, sizeof(double) * cap);
	if (y == NULL)
		return false;
	m->y = y;
	m->cap = cap;
	return true;
}

ga_status
ga_residual_model_add(ga_residual_model *m, const double *cont, const bool *flags,
					  double y, ga_error *err)
{
	if (!isfinite(y))
		return ga_error_set(err, GA_EINVAL,
							"duration history: log(actual / prior) must be finite, got %g", y);
	for (int k = 0; k < m->n_cont; k++)
		if (!isfinite(cont[k]))
			return ga_error_set(err, GA_EINVAL,
								"duration history: feature %d is not finite", k);
	if (m->n == m->cap && !grow(m))
		return ga_error_set(err, GA_ENOMEM, "out of memory adding duration history");
	memcpy(&m->cont[m->n * m->n_cont], cont, sizeof(double) * m->n_cont);
	if (m->n_flags > 0)
		memcpy(&m->flags[m->n * m->n_flags], flags, sizeof(bool) * m->n_flags);
	m->y[m->n++] = y;
	return GA_OK;
}

int
ga_residual_model_count(const ga_residual_model *m)
{
	return m ? m->n : 0;
}

/*
 * The raw design row: intercept, standardized continuous features, flags,
 * products of two continuous features, flag x continuous feature.
 */
static void
raw_row(const ga_residual_model *m, const double *cont, const bool *flags, double *row)
{
	double		z[GA_RESIDUAL_MAX_CONT];
	int			c = 0;

	for (int k = 0; k < m->n_cont; k++)
		z[k] = (cont[k] - m->cont_mean[k]) / m->cont_scale[k];
	row[c++] = 1.0;
	for (int k = 0; k < m->n_cont; k++)
		row[c++] = z[k];
	for (int f = 0; f < m->n_flags; f++)
		row[c++] = flags[f] ? 1.0 : 0.0;
	for (int a = 0; a < m->n_cont; a++)
		for (int b = a; b < m->n_cont; b++)
			row[c++] = z[a] * z[b];
	for (int f = 0; f < m->n_flags; f++)
		for (int k = 0; k < m->n_cont; k++)
			row[c++] = flags[f] ? z[k] : 0.0;
}

/* The row the coefficients apply to: every column but the intercept standardized. */
static void
design_row(const ga_residual_model *m, const double *cont, const bool *flags, double *row)
{
	raw_row(m, cont, flags, row);
	for (int c = 1; c < m->p; c++)
		row[c] = (row[c] - m->col_mean[c]) / m->col_scale[c];
}

static void
standardize_features(ga_residual_model *m)
{
	for (int k = 0; k < m->n_cont; k++)
	{
		double		sum = 0;
		double		ss = 0;

		for (int i = 0; i < m->n; i++)
			sum += m->cont[i * m->n_cont + k];
		m->cont_mean[k] = sum / m->n;
		for (int i = 0; i < m->n; i++)
		{
			double		d = m->cont[i * m->n_cont + k] - m->cont_mean[k];

			ss += d * d;
		}
		/* A constant feature carries no signal; unit scale keeps it inert. */
		m->cont_scale[k] = ss > 1e-12 * m->n ? sqrt(ss / m->n) : 1.0;
	}
}

/* Design matrix of the history, columns standardized (means, scales kept). */
static double *
build_design(ga_residual_model *m)
{
	double	   *x = malloc(sizeof(double) * m->n * m->p);

	if (x == NULL)
		return NULL;
	standardize_features(m);
	for (int c = 0; c < m->p; c++)
	{
		m->col_mean[c] = 0;
		m->col_scale[c] = 1;
	}
	for (int i = 0; i < m->n; i++)
		raw_row(m, &m->cont[i * m->n_cont], &m->flags[i * m->n_flags], &x[i * m->p]);
	for (int c = 1; c < m->p; c++)
	{
		double		sum = 0;
		double		ss = 0;

		for (int i = 0; i < m->n; i++)
			sum += x[i * m->p + c];
		m->col_mean[c] = sum / m->n;
		for (int i = 0; i < m->n; i++)
		{
			double		d = x[i * m->p + c] - m->col_mean[c];

			ss += d * d;
		}
		m->col_scale[c] = ss > 1e-12 * m->n ? sqrt(ss / m->n) : 1.0;
		for (int i = 0; i < m->n; i++)
			x[i * m->p + c] = (x[i * m->p + c] - m->col_mean[c]) / m->col_scale[c];
	}
	return x;
}

#define ALL_ROWS (-1)

/*
 * A += w x x' (upper triangle) and b += w y x over the rows of one fold (row
 * i is in fold i % FOLDS), or over all rows; w NULL weighs every row 1.
 */
static void
accumulate(const ga_residual_model *m, const double *x, const double *w,
		   int fold, double *a, double *b)
{
	int			p = m->p;

	for (int i = fold == ALL_ROWS ? 0 : fold; i < m->n; i += fold == ALL_ROWS ? 1 : FOLDS)
	{
		const double *r = &x[i * p];
		double		wi = w ? w[i] : 1.0;

		for (int j = 0; j < p; j++)
		{
			double		v = wi * r[j];

			if (v == 0)
				continue;
			b[j] += v * m->y[i];
			for (int k = j; k < p; k++)
				a[j * p + k] += v * r[k];
		}
	}
}

/*
 * Solve (A + penalty) beta = b, with A the upper triangle of the Gram
 * matrix of rows, second-order columns scaled by weight (0 drops them).
 */
static bool
ridge_solve(const ga_residual_model *m, const double *a, const double *b,
			double lambda, double weight, double *beta, double *work)
{
	int			p = m->p;

	for (int j = 0; j < p; j++)
	{
		double		sj = j >= m->first_second ? weight : 1.0;

		for (int k = j; k < p; k++)
		{
			double		sk = k >= m->first_second ? weight : 1.0;

			work[j * p + k] = work[k * p + j] = a[j * p + k] * sj * sk;
		}
		work[j * p + j] += j == 0 ? 1e-9 : lambda;
		beta[j] = b[j] * sj;
	}
	if (!ga_solve_spd(work, beta, p))
		return false;
	for (int j = m->first_second; j < p; j++)
		beta[j] *= weight;
	return true;
}

static double
dot(const double *x, const double *beta, int p)
{
	double		s = 0;

	for (int j = 0; j < p; j++)
		s += x[j] * beta[j];
	return s;
}

typedef struct cv_state
{
	double	   *a_all;
	double	   *b_all;
	double	   *a_fold[FOLDS];
	double	   *b_fold[FOLDS];
	double	   *a;
	double	   *b;
	double	   *work;
	double	   *beta;
	double	   *oof;			/* out-of-fold residuals of one setting */
} cv_state;

static void
cv_free(cv_state *s)
{
	free(s->a_all);
	free(s->b_all);
	for (int f = 0; f < FOLDS; f++)
	{
		free(s->a_fold[f]);
		free(s->b_fold[f]);
	}
	free(s->a);
	free(s->b);
	free(s->work);
	free(s->beta);
	free(s->oof);
}

static bool
cv_alloc(const ga_residual_model *m, cv_state *s)
{
	size_t		pp = (size_t) m->p * m->p;
	bool		ok;

	memset(s, 0, sizeof(*s));
	s->a_all = calloc(pp, sizeof(double));
	s->b_all = calloc(m->p, sizeof(double));
	ok = s->a_all && s->b_all;
	for (int f = 0; f < FOLDS; f++)
	{
		s->a_fold[f] = calloc(pp, sizeof(double));
		s->b_fold[f] = calloc(m->p, sizeof(double));
		ok = ok && s->a_fold[f] && s->b_fold[f];
	}
	s->a = malloc(sizeof(double) * pp);
	s->b = malloc(sizeof(double) * m->p);
	s->work = malloc(sizeof(double) * pp);
	s->beta = malloc(sizeof(double) * m->p);
	s->oof = malloc(sizeof(double) * m->n);
	return ok && s->a && s->b && s->work && s->beta && s->oof;
}

/*
 * Out-of-fold residuals of one setting into s->oof; false if a system is
 * singular.  Each fold's system is the whole Gram matrix less the fold's.
 */
static bool
out_of_fold(const ga_residual_model *m, const double *x, cv_state *s,
			double lambda, double weight)
{
	size_t		pp = (size_t) m->p * m->p;

	for (int f = 0; f < FOLDS; f++)
	{
		for (size_t k = 0; k < pp; k++)
			s->a[k] = s->a_all[k] - s->a_fold[f][k];
		for (int j = 0; j < m->p; j++)
			s->b[j] = s->b_all[j] - s->b_fold[f][j];
		if (!ridge_solve(m, s->a, s->b, lambda, weight, s->beta, s->work))
			return false;
		for (int i = f; i < m->n; i += FOLDS)
			s->oof[i] = m->y[i] - dot(&x[i * m->p], s->beta, m->p);
	}
	return true;
}

static double
mean_abs(const double *v, int n)
{
	double		s = 0;

	for (int i = 0; i < n; i++)
		s += fabs(v[i]);
	return s / n;
}

/*
 * Choose the penalty and the second-order weight with the least mean
 * absolute out-of-fold error; the spread comes from that setting's
 * out-of-fold residuals.  Ties go to the simpler setting (listed first:
 * no second order, then the heaviest penalty).
 */
static bool
cross_validate(ga_residual_model *m, const double *x, cv_state *s, double *oof_best)
{
	double		best = INFINITY;

	for (int f = 0; f < FOLDS; f++)
		accumulate(m, x, NULL, f, s->a_fold[f], s->b_fold[f]);
	for (int f = 0; f < FOLDS; f++)
	{
		for (size_t k = 0; k < (size_t) m->p * m->p; k++)
			s->a_all[k] += s->a_fold[f][k];
		for (int j = 0; j < m->p; j++)
			s->b_all[j] += s->b_fold[f][j];
	}
	for (int w = 0; w < N_WEIGHT; w++)
		for (int l = N_LAMBDA - 1; l >= 0; l--)
		{
			double		e;

			if (!out_of_fold(m, x, s, lambda_grid[l], weight_grid[w]))
				continue;
			e = mean_abs(s->oof, m->n);
			if (e < best - 1e-12)
			{
				best = e;
				m->lambda = lambda_grid[l];
				m->weight = weight_grid[w];
				memcpy(oof_best, s->oof, sizeof(double) * m->n);
			}
		}
	return isfinite(best);
}

/* Huber weights of the residuals of beta: 1 inside delta robust SDs. */
static void
huber_weights(const ga_residual_model *m, const double *x, const double *beta,
			  double *w, double *scratch)
{
	double		scale;

	for (int i = 0; i < m->n; i++)
		scratch[i] = fabs(m->y[i] - dot(&x[i * m->p], beta, m->p));
	/* Floored: with most residuals equal the MAD is 0, and outliers must still be damped. */
	scale = fmax(1.4826 * ga_quantile(scratch, m->n, 0.5), 1e-6);
	for (int i = 0; i < m->n; i++)
	{
		double		r = fabs(m->y[i] - dot(&x[i * m->p], beta, m->p));

		w[i] = r > HUBER_DELTA * scale ? HUBER_DELTA * scale / r : 1.0;
	}
}

/* The chosen setting on all rows, then Huber reweighting. */
static bool
final_fit(ga_residual_model *m, const double *x, cv_state *s)
{
	size_t		pp = (size_t) m->p * m->p;
	double	   *w = malloc(sizeof(double) * m->n);
	bool		ok;

	if (w == NULL)
		return false;
	ok = ridge_solve(m, s->a_all, s->b_all, m->lambda, m->weight, m->beta, s->work);
	for (int round = 0; ok && round < HUBER_ROUNDS; round++)
	{
		huber_weights(m, x, m->beta, w, s->oof);
		memset(s->a, 0, sizeof(double) * pp);
		memset(s->b, 0, sizeof(double) * m->p);
		accumulate(m, x, w, ALL_ROWS, s->a, s->b);
		ok = ridge_solve(m, s->a, s->b, m->lambda, m->weight, m->beta, s->work);
	}
	free(w);
	return ok;
}

/* Empirical 10th / 90th percentiles pulled towards the prior's. */
static void
fit_spread(ga_residual_model *m, double *oof)
{
	double		z = ga_normal_quantile(0.9);
	double		wp = GA_RESIDUAL_PRIOR_WEIGHT;
	double		q10 = ga_quantile(oof, m->n, 0.1);
	double		q90 = ga_quantile(oof, m->n, 0.9);
	double		mid = ga_quantile(oof, m->n, 0.5);

	/* Relative to the robust fit's centre, which sits near the median. */
	q10 -= mid;
	q90 -= mid;
	m->log_p10 = (wp * -z * m->prior_log_sigma + m->n * q10) / (wp + m->n);
	m->log_p90 = (wp * z * m->prior_log_sigma + m->n * q90) / (wp + m->n);
}

static void
reset(ga_residual_model *m)
{
	m->fitted = false;
	m->lambda = 0;
	m->weight = 0;
	memset(m->beta, 0, sizeof(double) * m->p);
	m->log_p10 = -ga_normal_quantile(0.9) * m->prior_log_sigma;
	m->log_p90 = -m->log_p10;
}

ga_status
ga_residual_model_fit(ga_residual_model *m, ga_error *err)
{
	cv_state	s;
	double	   *x;
	double	   *oof;
	bool		ok;

	reset(m);
	if (m->n < MIN_CV_ROWS)
		return GA_OK;			/* too little to validate a fit on: the prior stands */
	x = build_design(m);
	oof = malloc(sizeof(double) * m->n);
	ok = x != NULL && oof != NULL && cv_alloc(m, &s);
	if (!ok)
	{
		if (x != NULL && oof != NULL)
			cv_free(&s);
		free(x);
		free(oof);
		return ga_error_set(err, GA_ENOMEM, "out of memory fitting the duration correction");
	}
	ok = cross_validate(m, x, &s, oof) && final_fit(m, x, &s);
	if (ok)
	{
		fit_spread(m, oof);
		m->fitted = true;
	}
	else
		reset(m);
	cv_free(&s);
	free(x);
	free(oof);
	if (!ok)
		return ga_error_set(err, GA_ESOLVER,
							"duration correction: no penalty gave a positive definite system");
	return GA_OK;
}

double
ga_residual_model_predict(const ga_residual_model *m, const double *cont,
						  const bool *flags)
{
	double		row[MAX_COLUMNS];
	double		s;

	if (m == NULL || !m->fitted)
		return 0;
	design_row(m, cont, flags, row);
	s = dot(row, m->beta, m->p);
	if (!isfinite(s))
		return 0;
	return fmax(-GA_RESIDUAL_MAX_LOG, fmin(GA_RESIDUAL_MAX_LOG, s));
}

void
ga_residual_model_spread(const ga_residual_model *m, double *log_p10, double *log_p90)
{
	double		z = ga_normal_quantile(0.9);

	if (m == NULL || !m->fitted)
	{
		double		sigma = m ? m->prior_log_sigma : 0.5;

		*log_p10 = -z * sigma;
		*log_p90 = z * sigma;
		return;
	}
	*log_p10 = m->log_p10;
	*log_p90 = m->log_p90;
}

int
ga_residual_model_columns(const ga_residual_model *m)
{
	return m->p;
}

double
ga_residual_model_lambda(const ga_residual_model *m)
{
	return m->lambda;
}

double
ga_residual_model_interaction_weight(const ga_residual_model *m)
{
	return m->weight;
}
