/*
 * feature_correction.c — second-order ridge correction with the penalty
 * chosen by cross-validation (feature_correction.h).
 */
#include "forecast/feature_correction.h"

#include "forecast/forecast_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_FOLDS 5
#define N_LAMBDAS 10
/* Grid of penalties, in units of the rows' count: columns are standardized. */
static const double lambda_grid[N_LAMBDAS] = {
	1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0, 10.0
};

/* Design columns are at most 1 + k + k(k+1)/2 + m(k+1) + r with k+m+r inputs. */
#define GA_CORRECTION_MAX_COLUMNS (1 + GA_CORRECTION_MAX_INPUTS * (GA_CORRECTION_MAX_INPUTS + 3))

/* Never let an extrapolating fit move a model by more than 20x. */
#define MAX_LOG_CORRECTION 3.0

struct ga_correction
{
	int			n_numbers;
	int			n_crossed;
	int			n_plain;
	int			n_inputs;
	int			n_cols;			/* design columns, the intercept first */
	int			n;
	int			cap;
	double	   *inputs;			/* [cap][n_inputs] */
	double	   *y;				/* [cap] */
	bool		fitted;
	double	   *mean;			/* [n_cols] of the design at the fit */
	double	   *scale;			/* [n_cols] */
	double	   *beta;			/* [n_cols] on the standardized design */
	double		median;			/* of the out-of-fold residuals */
	double		lo;				/* their 10th percentile, less the median */
	double		hi;				/* their 90th percentile, less the median */
};

static int
design_columns(int k, int crossed, int plain)
{
	return 1 + k + k * (k + 1) / 2 + crossed + crossed * k + plain;
}

ga_correction *
ga_correction_create(int n_numbers, int n_crossed, int n_plain)
{
	ga_correction *c;
	int			n_inputs = n_numbers + n_crossed + n_plain;

	if (n_numbers < 0 || n_crossed < 0 || n_plain < 0 || n_inputs == 0 ||
		n_inputs > GA_CORRECTION_MAX_INPUTS)
		return NULL;
	c = calloc(1, sizeof(ga_correction));
	if (c == NULL)
		return NULL;
	c->n_numbers = n_numbers;
	c->n_crossed = n_crossed;
	c->n_plain = n_plain;
	c->n_inputs = n_inputs;
	c->n_cols = design_columns(n_numbers, n_crossed, n_plain);
	c->mean = calloc(c->n_cols, sizeof(double));
	c->scale = calloc(c->n_cols, sizeof(double));
	c->beta = calloc(c->n_cols, sizeof(double));
	if (c->mean == NULL || c->scale == NULL || c->beta == NULL)
	{
		ga_correction_destroy(c);
		return NULL;
	}
	return c;
}

void
ga_correction_destroy(ga_correction *c)
{
	if (c == NULL)
		return;
	free(c->inputs);
	free(c->y);
	free(c->mean);
	free(c->scale);
	free(c->beta);
	free(c);
}

void
ga_correction_clear(ga_correction *c)
{
	c->n = 0;
}

ga_status
ga_correction_add(ga_correction *c, const double *inputs, double y, ga_error *err)
{
	if (!isfinite(y))
		return ga_error_set(err, GA_EINVAL, "correction: the observed log ratio is not finite");
	for (int i = 0; i < c->n_inputs; i++)
		if (!isfinite(inputs[i]))
			return ga_error_set(err, GA_EINVAL, "correction: input %d is not finite", i);
	if (c->n == c->cap)
	{
		int			cap = c->cap ? 2 * c->cap : 64;
		double	   *x = realloc(c->inputs, sizeof(double) * cap * c->n_inputs);
		double	   *yy;

		if (x == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory adding a correction row");
		c->inputs = x;
		yy = realloc(c->y, sizeof(double) * cap);
		if (yy == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory adding a correction row");
		c->y = yy;
		c->cap = cap;
	}
	memcpy(&c->inputs[(size_t) c->n * c->n_inputs], inputs, sizeof(double) * c->n_inputs);
	c->y[c->n++] = y;
	return GA_OK;
}

/* The raw design row of inputs: see feature_correction.h for the columns. */
static void
raw_design(const ga_correction *c, const double *in, double *row)
{
	const double *num = in;
	const double *crossed = in + c->n_numbers;
	const double *plain = crossed + c->n_crossed;
	int			k = c->n_numbers;
	int			col = 0;

	row[col++] = 1.0;
	for (int i = 0; i < k; i++)
		row[col++] = num[i];
	for (int i = 0; i < k; i++)
		for (int j = i; j < k; j++)
			row[col++] = num[i] * num[j];
	for (int b = 0; b < c->n_crossed; b++)
	{
		row[col++] = crossed[b];
		for (int i = 0; i < k; i++)
			row[col++] = crossed[b] * num[i];
	}
	for (int b = 0; b < c->n_plain; b++)
		row[col++] = plain[b];
}

/* Standardize in place with the fit's means and scales. */
static void
standardize_row(const ga_correction *c, double *row)
{
	for (int col = 1; col < c->n_cols; col++)
		row[col] = (row[col] - c->mean[col]) / c->scale[col];
}

/* The raw design of every row, and the means and scales of its columns. */
static void
fit_standardization(ga_correction *c, double *x)
{
	int			p = c->n_cols;

	for (int i = 0; i < c->n; i++)
		raw_design(c, &c->inputs[(size_t) i * c->n_inputs], &x[(size_t) i * p]);
	c->mean[0] = 0;
	c->scale[0] = 1;
	for (int col = 1; col < p; col++)
	{
		double		sum = 0;
		double		ss = 0;

		for (int i = 0; i < c->n; i++)
			sum += x[(size_t) i * p + col];
		c->mean[col] = sum / c->n;
		for (int i = 0; i < c->n; i++)
		{
			double		d = x[(size_t) i * p + col] - c->mean[col];

			ss += d * d;
		}
		/* a constant column carries no signal: centred to 0, it stays inert */
		c->scale[col] = ss > 1e-12 * c->n ? sqrt(ss / c->n) : 1.0;
	}
}

/*
 * Add w x x' and w x y of a raw row to the fold's sums.  Raw rows are
 * mostly zeros (indicators and their products), so the sums are taken raw
 * and standardized afterwards (standardize_sums).
 */
static void
accumulate(int p, const double *x, double y, double w, double *gram, double *rhs)
{
	int			nz[GA_CORRECTION_MAX_COLUMNS];
	int			n = 0;

	for (int col = 0; col < p; col++)
		if (x[col] != 0)
			nz[n++] = col;
	for (int a = 0; a < n; a++)
	{
		int			r = nz[a];
		double		xr = w * x[r];
		double	   *g = &gram[r * p];

		rhs[r] += xr * y;
		for (int b = a; b < n; b++)
			g[nz[b]] += xr * x[nz[b]];
	}
}

/*
 * Turn a fold's raw sums into those of the standardized design:
 * sum w (x_r - m_r)(x_c - m_c) / (s_r s_c) expands into the raw sums, whose
 * row 0 (the intercept, always 1) holds sum w x and sum w.
 */
static void
standardize_sums(const ga_correction *c, double *gram, double *rhs, double *row0)
{
	int			p = c->n_cols;
	const double *m = c->mean;
	const double *sc = c->scale;
	double		sw = gram[0];
	double		sy = rhs[0];

	memcpy(row0, gram, sizeof(double) * p);
	for (int r = 0; r < p; r++)
	{
		rhs[r] = (rhs[r] - m[r] * sy) / sc[r];
		for (int col = r; col < p; col++)
			gram[r * p + col] = (gram[r * p + col] - m[r] * row0[col] - m[col] * row0[r] +
								 m[r] * m[col] * sw) / (sc[r] * sc[col]);
	}
}

/*
 * Coefficients on the raw design equal to beta on the standardized one:
 * x'b = b0 - sum b_j m_j / s_j + sum (b_j / s_j) x_j.
 */
static void
raw_coefficients(const ga_correction *c, const double *beta, double *raw)
{
	raw[0] = beta[0];
	for (int col = 1; col < c->n_cols; col++)
	{
		raw[col] = beta[col] / c->scale[col];
		raw[0] -= raw[col] * c->mean[col];
	}
}

/*
 * Solve (gram - fold's gram + lambda I') beta = rhs - fold's rhs, the
 * intercept unpenalized; fold -1 for every row.  gram is upper triangular.
 */
static bool
solve_without_fold(int p, const double *gram, const double *rhs, const double *fold_gram,
				   const double *fold_rhs, double lambda, double *a, double *beta)
{
	for (int r = 0; r < p; r++)
	{
		beta[r] = rhs[r] - (fold_rhs ? fold_rhs[r] : 0);
		for (int col = r; col < p; col++)
		{
			double		v = gram[r * p + col] - (fold_gram ? fold_gram[r * p + col] : 0);

			a[r * p + col] = v;
			a[col * p + r] = v;
		}
		a[r * p + r] += r == 0 ? 1e-9 : lambda;
	}
	return ga_solve_spd(a, beta, p);
}

static double
dot(const double *a, const double *b, int n)
{
	double		s = 0;

	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

typedef struct cv_work
{
	double	   *x;				/* [n][p] raw design */
	double	   *gram;			/* [p][p] over every row */
	double	   *rhs;			/* [p] */
	double	   *fold_gram;		/* [N_FOLDS][p][p] */
	double	   *fold_rhs;		/* [N_FOLDS][p] */
	double	   *a;				/* [p][p] scratch */
	double	   *beta;			/* [p] scratch */
	double	   *raw_beta;		/* [p] scratch: beta on the raw design */
	double	   *row0;			/* [p] scratch */
	double	   *residual;		/* [n] out of fold at one penalty */
} cv_work;

static void
cv_free(cv_work *w)
{
	free(w->x);
	free(w->gram);
	free(w->rhs);
	free(w->fold_gram);
	free(w->fold_rhs);
	free(w->a);
	free(w->beta);
	free(w->raw_beta);
	free(w->row0);
	free(w->residual);
}

static bool
cv_alloc(cv_work *w, int n, int p)
{
	memset(w, 0, sizeof(*w));
	w->x = malloc(sizeof(double) * n * p);
	w->gram = calloc((size_t) p * p, sizeof(double));
	w->rhs = calloc(p, sizeof(double));
	w->fold_gram = calloc((size_t) N_FOLDS * p * p, sizeof(double));
	w->fold_rhs = calloc((size_t) N_FOLDS * p, sizeof(double));
	w->a = malloc(sizeof(double) * p * p);
	w->beta = malloc(sizeof(double) * p);
	w->raw_beta = malloc(sizeof(double) * p);
	w->row0 = malloc(sizeof(double) * p);
	w->residual = malloc(sizeof(double) * n);
	return w->x && w->gram && w->rhs && w->fold_gram && w->fold_rhs && w->a &&
		w->beta && w->raw_beta && w->row0 && w->residual;
}

/*
 * Out-of-fold residuals at penalty lambda into w->residual; their mean
 * absolute value, or INFINITY when a fold's system is singular.  Row i is
 * in fold i mod N_FOLDS: history comes in time order, so every fold spans
 * all of it.
 */
static double
cv_loss(const ga_correction *c, cv_work *w, double lambda)
{
	int			p = c->n_cols;
	double		sum = 0;

	for (int f = 0; f < N_FOLDS; f++)
	{
		if (!solve_without_fold(p, w->gram, w->rhs, &w->fold_gram[(size_t) f * p * p],
								&w->fold_rhs[(size_t) f * p], lambda, w->a, w->beta))
			return INFINITY;
		raw_coefficients(c, w->beta, w->raw_beta);
		for (int i = f; i < c->n; i += N_FOLDS)
		{
			double		pred = fmax(-MAX_LOG_CORRECTION,
									fmin(MAX_LOG_CORRECTION, dot(&w->x[(size_t) i * p], w->raw_beta, p)));

			w->residual[i] = c->y[i] - pred;
			sum += fabs(w->residual[i]);
		}
	}
	return sum / c->n;
}

/* The out-of-fold residuals' median and percentiles at the chosen penalty. */
static void
fit_spread(ga_correction *c, double *residual)
{
	c->median = ga_quantile(residual, c->n, 0.5);
	c->lo = ga_quantile(residual, c->n, 0.1) - c->median;
	c->hi = ga_quantile(residual, c->n, 0.9) - c->median;
}

/* The folds' and the total weighted sums of squares and products. */
static void
build_sums(const ga_correction *c, cv_work *w, const double *weight)
{
	int			p = c->n_cols;

	memset(w->gram, 0, sizeof(double) * p * p);
	memset(w->rhs, 0, sizeof(double) * p);
	memset(w->fold_gram, 0, sizeof(double) * N_FOLDS * p * p);
	memset(w->fold_rhs, 0, sizeof(double) * N_FOLDS * p);
	for (int i = 0; i < c->n; i++)
	{
		int			f = i % N_FOLDS;

		accumulate(p, &w->x[(size_t) i * p], c->y[i], weight ? weight[i] : 1.0,
				   &w->fold_gram[(size_t) f * p * p], &w->fold_rhs[(size_t) f * p]);
	}
	for (int f = 0; f < N_FOLDS; f++)
		standardize_sums(c, &w->fold_gram[(size_t) f * p * p], &w->fold_rhs[(size_t) f * p], w->row0);
	for (int f = 0; f < N_FOLDS; f++)
		for (int r = 0; r < p; r++)
		{
			w->rhs[r] += w->fold_rhs[(size_t) f * p + r];
			for (int col = r; col < p; col++)
				w->gram[r * p + col] += w->fold_gram[(size_t) f * p * p + r * p + col];
		}
}

/* The penalty of the grid with the least out-of-fold loss; INFINITY loss if none solves. */
static double
best_penalty(const ga_correction *c, cv_work *w, double *loss)
{
	double		best_lambda = 0;

	*loss = INFINITY;
	for (int l = 0; l < N_LAMBDAS; l++)
	{
		double		v = cv_loss(c, w, lambda_grid[l] * c->n);

		if (v < *loss)
		{
			*loss = v;
			best_lambda = lambda_grid[l] * c->n;
		}
	}
	return best_lambda;
}

/*
 * Huber weights from the residuals of a fit on every row: rows further
 * than 1.345 robust standard deviations from the median residual count
 * less, so a few stragglers do not bend the fit.
 */
static void
huber_weights(const ga_correction *c, cv_work *w, const double *beta, double *weight)
{
	int			p = c->n_cols;
	double		centre;
	double		spread;

	raw_coefficients(c, beta, w->raw_beta);
	for (int i = 0; i < c->n; i++)
		w->residual[i] = c->y[i] - dot(&w->x[(size_t) i * p], w->raw_beta, p);
	memcpy(weight, w->residual, sizeof(double) * c->n);
	centre = ga_quantile(weight, c->n, 0.5);
	for (int i = 0; i < c->n; i++)
		weight[i] = fabs(w->residual[i] - centre);
	spread = 1.4826 * ga_quantile(weight, c->n, 0.5);
	for (int i = 0; i < c->n; i++)
	{
		double		d = fabs(w->residual[i] - centre);

		weight[i] = spread > 0 && d > 1.345 * spread ? 1.345 * spread / d : 1.0;
	}
}

/*
 * Least squares and a Huber fit, each at its best penalty by
 * cross-validation; the one with the lesser out-of-fold loss is kept, with
 * its out-of-fold residuals.
 */
ga_status
ga_correction_fit(ga_correction *c, ga_error *err)
{
	int			p;
	cv_work		w;
	double	   *weight;
	double		ls_loss;
	double		huber_loss;
	double		lambda;
	double		huber_lambda;

	c->fitted = false;
	if (c->n < GA_CORRECTION_MIN_ROWS)
		return GA_OK;
	p = c->n_cols;
	weight = malloc(sizeof(double) * c->n);
	if (!cv_alloc(&w, c->n, p) || weight == NULL)
	{
		cv_free(&w);
		free(weight);
		return ga_error_set(err, GA_ENOMEM, "out of memory fitting the correction");
	}
	fit_standardization(c, w.x);
	build_sums(c, &w, NULL);
	lambda = best_penalty(c, &w, &ls_loss);
	if (isfinite(ls_loss) && solve_without_fold(p, w.gram, w.rhs, NULL, NULL, lambda, w.a, w.beta))
	{
		huber_weights(c, &w, w.beta, weight);
		build_sums(c, &w, weight);
		huber_lambda = best_penalty(c, &w, &huber_loss);
		if (!(huber_loss < ls_loss))
			build_sums(c, &w, NULL);
		else
			lambda = huber_lambda;
		if (isfinite(cv_loss(c, &w, lambda)) &&
			solve_without_fold(p, w.gram, w.rhs, NULL, NULL, lambda, w.a, c->beta))
		{
			fit_spread(c, w.residual);
			c->fitted = true;
		}
	}
	cv_free(&w);
	free(weight);
	if (!c->fitted)
		return ga_error_set(err, GA_ESOLVER, "correction: no penalty gives a solvable system");
	return GA_OK;
}

bool
ga_correction_fitted(const ga_correction *c)
{
	return c != NULL && c->fitted;
}

double
ga_correction_predict(const ga_correction *c, const double *inputs)
{
	double		row[GA_CORRECTION_MAX_COLUMNS];
	double		v;

	if (!ga_correction_fitted(c))
		return 0;
	raw_design(c, inputs, row);
	standardize_row(c, row);
	v = dot(row, c->beta, c->n_cols) + c->median;
	if (!isfinite(v))
		return 0;
	return fmax(-MAX_LOG_CORRECTION, fmin(MAX_LOG_CORRECTION, v));
}

bool
ga_correction_spread(const ga_correction *c, double *lo, double *hi)
{
	if (!ga_correction_fitted(c))
		return false;
	*lo = c->lo;
	*hi = c->hi;
	return true;
}
