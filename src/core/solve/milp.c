/*
 * milp.c — full mode: the time-indexed MILP of the model (docs/model.md, The model) in GLPK, the bound
 * taken from its LP relaxation, and the mapping of the aggregate schedule
 * the model describes back onto aligned GPU blocks.
 *
 * The model (maximise):
 *
 *   x[c]     binary, one per candidate (job, size, start step) of a job that
 *            is not pinned; only starts in [release, n_steps) that meet the
 *            deadline.  value = priority * size * sum of decay over the
 *            in-horizon steps it runs, plus ga_job_tail_value for the steps
 *            past the horizon (the objective values a job's whole run).
 *            The capacity rows see only the in-horizon steps.
 *   y[s,t]   integer GPUs of service s at step t, <= max_gpus.
 *   u[s,t]   shortfall, u >= demand - y, costs penalty*priority*decay.
 *   c[s,t]   churn, c >= |y[t] - y[t-1]| (y[-1] = GPUs held now when
 *            known), c <= churn_limit, sum_t c <= churn_budget.
 *   U[p,t]   GPUs used by batch jobs in pool p at step t.
 *
 *   rows:  sum of x over a job's candidates <= 1;
 *          U[p,t] = U[p,t-1] + (sizes of candidates starting at t)
 *                            - (sizes of candidates ending at t);
 *          U[p,t] + sum of y over the pool's services <= capacity[p,t]
 *          (usable GPUs not held by pinned jobs).
 *
 * Writing the running usage as a chain of start and end events (instead of
 * one capacity coefficient per running step) gives every start column three
 * nonzeros whatever its duration, so the 1024-GPU model stays small and its
 * LP relaxation is still exactly the time-indexed one.  Where pins or drained
 * GPUs break up a pool, alignment chains (model_find_chains) add the same
 * kind of chain per block size.
 *
 * Every legal plan is a feasible point of this model (its blocks are counted
 * in U, its service counts satisfy the count-churn rows because a physical
 * handover set is at least as large as the change of its size), so the
 * model's LP optimum bounds every legal plan.  The bound is computed from
 * the simplex duals as a Lagrangian value (see lagrangian_bound), which is
 * valid for any dual vector and therefore does not depend on the solver's
 * tolerances or on the simplex having finished.  ga_solve_bound returns it;
 * a full solve reports the smaller of it and what branch and bound proved
 * (the best open node, or the optimum of a closed search), both also bounds
 * of the model and so of every legal plan.
 *
 * Full mode: the fast plan is the first incumbent (handed to GLPK at the
 * first heuristic call); LP solutions at the root and at every 8th node are
 * rounded into plans by the mapping below, and so is GLPK's own incumbent at
 * the end; the best legal plan wins, so full is never worse than fast.
 */
#include "solve/milp.h"
#include "solve/glpk_guard.h"
#include "model/validate.h"

#include <glpk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Powers of two representable in an int: 1 .. 2^30. */
#define MAX_SIZES 31

/* A model beyond this many start columns is refused rather than built. */
#define MAX_START_COLUMNS 4000000

/* Share of the time limit left for mapping and cleanup after GLPK. */
#define RESERVE_SHARE 0.08

/* ----------------------------------------------------------------------
 * Occupancy bitsets: one bit per (GPU, step), set when the cell is taken.
 * ----------------------------------------------------------------------
 */
typedef struct occ_map
{
	int			words;			/* 64-bit words per GPU */
	size_t		n_words;
	uint64_t   *bits;
} occ_map;

static bool
occ_init(occ_map *o, int n_gpus, int n_steps)
{
	o->words = (n_steps + 63) / 64;
	o->n_words = (size_t) (n_gpus > 0 ? n_gpus : 1) * o->words;
	o->bits = calloc(o->n_words, sizeof(uint64_t));
	return o->bits != NULL;
}

static bool
occ_copy(occ_map *dst, const occ_map *src)
{
	*dst = *src;
	dst->bits = malloc(src->n_words * sizeof(uint64_t));
	if (dst->bits == NULL)
		return false;
	memcpy(dst->bits, src->bits, src->n_words * sizeof(uint64_t));
	return true;
}

static uint64_t
word_mask(int off, int n)
{
	uint64_t	m = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;

	return m << off;
}

static bool
occ_range_free(const occ_map *o, int g, int a, int b)
{
	const uint64_t *row = o->bits + (size_t) g * o->words;

	while (a < b)
	{
		int			off = a & 63;
		int			n = 64 - off < b - a ? 64 - off : b - a;

		if (row[a >> 6] & word_mask(off, n))
			return false;
		a += n;
	}
	return true;
}

static void
occ_mark_range(occ_map *o, int g, int a, int b)
{
	uint64_t   *row = o->bits + (size_t) g * o->words;

	while (a < b)
	{
		int			off = a & 63;
		int			n = 64 - off < b - a ? 64 - off : b - a;

		row[a >> 6] |= word_mask(off, n);
		a += n;
	}
}

static bool
occ_free_at(const occ_map *o, int g, int t)
{
	return (o->bits[(size_t) g * o->words + (t >> 6)] >> (t & 63) & 1) == 0;
}

/* ----------------------------------------------------------------------
 * The model, held in plain arrays so the bound can be recomputed from it.
 * ----------------------------------------------------------------------
 */
typedef struct milp_col
{
	int			job;
	int			size;
	int			start;
	int			end;			/* exclusive, clipped to the horizon */
	double		value;
} milp_col;

/* Where the start columns of one job live. */
typedef struct job_cols
{
	int			n_sizes;
	int			size[MAX_SIZES];
	int			base[MAX_SIZES];	/* x index of the column starting at
									 * release_step */
	int			last_start[MAX_SIZES];	/* inclusive */
} job_cols;

typedef struct milp_model
{
	const ga_problem *problem;
	int			T;
	double	   *prefix;			/* [T+1] sums of decay */
	int		   *cap;			/* [n_pools*T] usable GPUs not pinned */
	occ_map		base;			/* unusable GPUs and pinned jobs */
	double		constant;		/* value of pinned jobs */
	double		trivial_bound;

	int			n_x;
	milp_col   *cols;			/* [n_x] */
	job_cols   *jobs;			/* [n_jobs] */

	/* 1-based GLPK column numbers of the first y, u, c and U variable */
	int			y0;
	int			u0;
	int			c0;
	int			U0;
	int			V0;				/* first column of the alignment chains */
	int			n_chains;
	int		   *chain_pool;		/* [n_chains] */
	int		   *chain_level;	/* block size L of the chain */
	int		   *chain_blocks;	/* [n_chains*T] aligned L-blocks free of
								 * pins and drained GPUs */
	int			n_cols;
	double	   *col_lo;			/* [n_cols+1] */
	double	   *col_hi;
	double	   *obj;
	char	   *col_kind;		/* 'b'inary, 'i'nteger, 'c'ontinuous */

	int			n_rows;
	int			max_rows;
	double	   *row_lo;			/* [max_rows+1], -HUGE_VAL when absent */
	double	   *row_hi;			/* HUGE_VAL when absent */

	int			nnz;
	int			max_nnz;
	int		   *ia;				/* [max_nnz+1], 1-based as GLPK wants */
	int		   *ja;
	double	   *ar;

	/*
	 * Service floor of the mapping [n_services*T], or NULL: the demand the
	 * warm start meets, min(demand, its GPUs), per service and step.
	 */
	int		   *svc_floor;
} milp_model;

static int
y_col(const milp_model *m, int s, int t)
{
	return m->y0 + s * m->T + t;
}

static int
u_col(const milp_model *m, int s, int t)
{
	return m->u0 + s * m->T + t;
}

static int
c_col(const milp_model *m, int s, int t)
{
	return m->c0 + s * m->T + t;
}

static int
U_col(const milp_model *m, int p, int t)
{
	return m->U0 + p * m->T + t;
}

static int
V_col(const milp_model *m, int chain, int t)
{
	return m->V0 + chain * m->T + t;
}

static void
model_free(milp_model *m)
{
	free(m->chain_pool);
	free(m->chain_level);
	free(m->chain_blocks);
	free(m->prefix);
	free(m->cap);
	free(m->base.bits);
	free(m->cols);
	free(m->jobs);
	free(m->col_lo);
	free(m->col_hi);
	free(m->obj);
	free(m->col_kind);
	free(m->row_lo);
	free(m->row_hi);
	free(m->ia);
	free(m->ja);
	free(m->ar);
	free(m->svc_floor);
	memset(m, 0, sizeof(*m));
}

static int
add_row(milp_model *m, double lo, double hi)
{
	int			i = ++m->n_rows;

	m->row_lo[i] = lo;
	m->row_hi[i] = hi;
	return i;
}

static void
add_nz(milp_model *m, int row, int col, double val)
{
	int			k = ++m->nnz;

	m->ia[k] = row;
	m->ja[k] = col;
	m->ar[k] = val;
}

static void
set_col(milp_model *m, int j, double lo, double hi, double obj, char kind)
{
	m->col_lo[j] = lo;
	m->col_hi[j] = hi;
	m->obj[j] = obj;
	m->col_kind[j] = kind;
}

/* Value of a block of `size` GPUs over steps [from, to) for job j. */
static double
block_value(const milp_model *m, const ga_job *job, int size, int from, int to)
{
	return job->priority * size * (m->prefix[to] - m->prefix[from]);
}

/* Value of job j started at `start` on `size` GPUs: its in-horizon cells and its tail. */
static double
start_value(const milp_model *m, const ga_job *job, int size, int start)
{
	int			end = start + ga_job_duration(job, size);

	return block_value(m, job, size, start, end < m->T ? end : m->T) +
		ga_job_tail_value(m->problem, job, size, start, end);
}

/* True when the pool has an aligned block of this size on usable GPUs. */
static bool
pool_has_usable_block(const ga_problem *p, const ga_pool *pool, int size)
{
	for (int rel = 0; rel + size <= pool->n_gpus; rel += size)
	{
		bool		ok = true;

		for (int g = pool->first_gpu + rel; ok && g < pool->first_gpu + rel + size; g++)
			ok = p->gpu_usable[g];
		if (ok)
			return true;
	}
	return false;
}

/*
 * Unusable GPUs, pinned jobs, their constant value and the per-pool
 * capacity left for everything the model decides.
 */
static bool
model_fixed_part(milp_model *m)
{
	const ga_problem *p = m->problem;
	int			T = m->T;

	m->prefix = calloc(T + 1, sizeof(double));
	m->cap = calloc((size_t) (p->n_pools > 0 ? p->n_pools : 1) * T, sizeof(int));
	if (!m->prefix || !m->cap || !occ_init(&m->base, p->n_gpus, T))
		return false;
	for (int t = 0; t < T; t++)
		m->prefix[t + 1] = m->prefix[t] + p->decay[t];
	for (int g = 0; g < p->n_gpus; g++)
		if (!p->gpu_usable[g])
			occ_mark_range(&m->base, g, 0, T);
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		int			from = job->pinned_start < 0 ? 0 : job->pinned_start;
		int			to = job->pinned_end < T ? job->pinned_end : T;

		if (!job->pinned)
			continue;
		m->constant += ga_job_tail_value(p, job, job->pinned_size,
										 job->pinned_start, job->pinned_end);
		if (from >= to)
			continue;
		m->constant += block_value(m, job, job->pinned_size, from, to);
		for (int g = job->pinned_first_gpu; g < job->pinned_first_gpu + job->pinned_size; g++)
			occ_mark_range(&m->base, g, from, to);
	}
	for (int q = 0; q < p->n_pools; q++)
		for (int t = 0; t < T; t++)
		{
			int			free_gpus = 0;

			for (int g = p->pools[q].first_gpu; g < p->pools[q].first_gpu + p->pools[q].n_gpus; g++)
				free_gpus += occ_free_at(&m->base, g, t);
			m->cap[q * T + t] = free_gpus;
		}
	return true;
}

/*
 * Enumerate the candidate sizes of job j and their feasible start range;
 * with fill = false only count, so the column array can be sized first.
 */
static size_t
job_candidates(milp_model *m, int j, bool fill, size_t next)
{
	const ga_problem *p = m->problem;
	const ga_job *job = &p->jobs[j];
	const ga_pool *pool = &p->pools[job->pool];
	job_cols   *jc = &m->jobs[j];
	size_t		count = 0;

	jc->n_sizes = 0;
	if (job->pinned)
		return 0;
	for (int size = job->gpus_min; size <= job->gpus_max && size <= pool->n_gpus; size *= 2)
	{
		int			d = ga_job_duration(job, size);
		int			last = m->T - 1;

		if (job->deadline_step >= 0 && job->deadline_step - d < last)
			last = job->deadline_step - d;
		if (last >= job->release_step && pool_has_usable_block(p, pool, size))
		{
			int			k = jc->n_sizes++;

			jc->size[k] = size;
			jc->base[k] = (int) (next + count);
			jc->last_start[k] = last;
			for (int s = job->release_step; fill && s <= last; s++)
			{
				milp_col   *c = &m->cols[next + count + (s - job->release_step)];
				int			end = s + d < m->T ? s + d : m->T;

				c->job = j;
				c->size = size;
				c->start = s;
				c->end = end;
				c->value = start_value(m, job, size, s);
			}
			count += (size_t) (last - job->release_step + 1);
		}
		if (size > job->gpus_max / 2)
			break;
	}
	return count;
}

static ga_status
model_columns(milp_model *m, ga_error *err)
{
	const ga_problem *p = m->problem;
	size_t		total = 0;

	m->jobs = calloc(p->n_jobs > 0 ? p->n_jobs : 1, sizeof(job_cols));
	if (m->jobs == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory building the MILP");
	for (int j = 0; j < p->n_jobs; j++)
		total += job_candidates(m, j, false, total);
	if (total > MAX_START_COLUMNS)
		return ga_error_set(err, GA_EINVAL,
							"the MILP would need %zu start columns (limit %d): shorten the horizon or split the problem",
							total, MAX_START_COLUMNS);
	m->n_x = (int) total;
	m->cols = calloc(total > 0 ? total : 1, sizeof(milp_col));
	if (m->cols == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory building the MILP");
	total = 0;
	for (int j = 0; j < p->n_jobs; j++)
		total += job_candidates(m, j, true, total);
	return GA_OK;
}

/* Aligned blocks of size L in pool q wholly free in the base map at t. */
static int
free_aligned_blocks(const milp_model *m, const ga_pool *pool, int L, int t)
{
	int			n = 0;

	for (int rel = 0; rel + L <= pool->n_gpus; rel += L)
	{
		bool		ok = true;

		for (int g = pool->first_gpu + rel; ok && g < pool->first_gpu + rel + L; g++)
			ok = occ_free_at(&m->base, g, t);
		n += ok;
	}
	return n;
}

/*
 * Alignment chains.  A job of size g >= L covers exactly g/L aligned
 * L-blocks, each free of pins and drained GPUs, and no two jobs share one, so
 * at every step sum over running jobs with g >= L of g/L is at most the
 * number of such blocks.  Legal plans satisfy this; the plain GPU count does
 * not see it when pins or drained GPUs break up the pool (8 free GPUs with a
 * pin in each half hold no 8-GPU job).  A chain is added only for levels
 * where it can cut: fewer free L-blocks than free GPUs at some step.
 */
static bool
model_find_chains(milp_model *m)
{
	const ga_problem *p = m->problem;
	int			T = m->T;
	int			cap_chains = p->n_pools * MAX_SIZES;

	m->chain_pool = malloc(sizeof(int) * (cap_chains > 0 ? cap_chains : 1));
	m->chain_level = malloc(sizeof(int) * (cap_chains > 0 ? cap_chains : 1));
	m->chain_blocks = malloc(sizeof(int) * (size_t) (cap_chains > 0 ? cap_chains : 1) * T);
	if (!m->chain_pool || !m->chain_level || !m->chain_blocks)
		return false;
	for (int q = 0; q < p->n_pools; q++)
	{
		const ga_pool *pool = &p->pools[q];
		int			largest = 0;

		for (int i = 0; i < m->n_x; i++)
			if (p->jobs[m->cols[i].job].pool == q && m->cols[i].size > largest)
				largest = m->cols[i].size;
		for (int L = 2; L <= largest; L *= 2)
		{
			int			c = m->n_chains;
			bool		cuts = false;

			for (int t = 0; t < T; t++)
			{
				int			nb = free_aligned_blocks(m, pool, L, t);

				m->chain_blocks[(size_t) c * T + t] = nb;
				cuts = cuts || nb * L < m->cap[q * T + t];
			}
			if (!cuts)
				continue;
			m->chain_pool[c] = q;
			m->chain_level[c] = L;
			m->n_chains++;
		}
	}
	return true;
}

/* Rows and columns of the alignment chains (event form, like U). */
static void
model_chain_rows(milp_model *m)
{
	const ga_problem *p = m->problem;
	int			T = m->T;

	for (int c = 0; c < m->n_chains; c++)
	{
		int			q = m->chain_pool[c];
		int			L = m->chain_level[c];
		int			ev0 = m->n_rows;

		for (int t = 0; t < T; t++)
		{
			int			row = add_row(m, 0, 0);

			add_nz(m, row, V_col(m, c, t), 1);
			if (t > 0)
				add_nz(m, row, V_col(m, c, t - 1), -1);
			set_col(m, V_col(m, c, t), 0, m->chain_blocks[(size_t) c * T + t], 0, 'c');
		}
		for (int i = 0; i < m->n_x; i++)
		{
			const milp_col *col = &m->cols[i];

			if (p->jobs[col->job].pool != q || col->size < L)
				continue;
			add_nz(m, ev0 + 1 + col->start, i + 1, -(col->size / L));
			if (col->end < T)
				add_nz(m, ev0 + 1 + col->end, i + 1, col->size / L);
		}
	}
}

static bool
model_alloc_arrays(milp_model *m)
{
	const ga_problem *p = m->problem;
	size_t		ST = (size_t) p->n_services * m->T;
	size_t		PT = (size_t) p->n_pools * m->T;

	m->y0 = m->n_x + 1;
	m->u0 = m->y0 + (int) ST;
	m->c0 = m->u0 + (int) ST;
	m->U0 = m->c0 + (int) ST;
	m->V0 = m->U0 + (int) PT;
	m->n_cols = m->V0 - 1 + m->n_chains * m->T;
	m->max_rows = p->n_jobs + 2 * (int) PT + 3 * (int) ST + p->n_services +
		m->n_chains * m->T;
	m->max_nnz = 3 * m->n_x + 3 * (int) PT + 9 * (int) ST;
	for (int c = 0; c < m->n_chains; c++)
		m->max_nnz += 2 * m->T + 2 * m->n_x;
	m->col_lo = calloc(m->n_cols + 1, sizeof(double));
	m->col_hi = calloc(m->n_cols + 1, sizeof(double));
	m->obj = calloc(m->n_cols + 1, sizeof(double));
	m->col_kind = calloc(m->n_cols + 1, 1);
	m->row_lo = calloc(m->max_rows + 1, sizeof(double));
	m->row_hi = calloc(m->max_rows + 1, sizeof(double));
	m->ia = calloc(m->max_nnz + 1, sizeof(int));
	m->ja = calloc(m->max_nnz + 1, sizeof(int));
	m->ar = calloc(m->max_nnz + 1, sizeof(double));
	return m->col_lo && m->col_hi && m->obj && m->col_kind && m->row_lo &&
		m->row_hi && m->ia && m->ja && m->ar;
}

/* Start columns, the one-start-per-job rows and the usage event chain. */
static void
model_batch_rows(milp_model *m)
{
	const ga_problem *p = m->problem;
	int			T = m->T;
	int			ev0 = 0;

	for (int j = 0; j < p->n_jobs; j++)
	{
		const job_cols *jc = &m->jobs[j];
		int			row;

		if (jc->n_sizes == 0)
			continue;
		row = add_row(m, -HUGE_VAL, 1);
		for (int k = 0; k < jc->n_sizes; k++)
			for (int s = p->jobs[j].release_step; s <= jc->last_start[k]; s++)
				add_nz(m, row, jc->base[k] + (s - p->jobs[j].release_step) + 1, 1);
	}
	ev0 = m->n_rows;
	for (int q = 0; q < p->n_pools; q++)
		for (int t = 0; t < T; t++)
		{
			int			row = add_row(m, 0, 0);

			add_nz(m, row, U_col(m, q, t), 1);
			if (t > 0)
				add_nz(m, row, U_col(m, q, t - 1), -1);
			set_col(m, U_col(m, q, t), 0, p->pools[q].n_gpus, 0, 'c');
		}
	for (int i = 0; i < m->n_x; i++)
	{
		const milp_col *c = &m->cols[i];
		int			q = p->jobs[c->job].pool;

		set_col(m, i + 1, 0, 1, c->value, 'b');
		add_nz(m, ev0 + 1 + q * T + c->start, i + 1, -c->size);
		if (c->end < T)
			add_nz(m, ev0 + 1 + q * T + c->end, i + 1, c->size);
	}
}

/* Capacity rows, then shortfall and churn of every service. */
static void
model_capacity_and_service_rows(milp_model *m)
{
	const ga_problem *p = m->problem;
	int			T = m->T;

	for (int q = 0; q < p->n_pools; q++)
		for (int t = 0; t < T; t++)
		{
			int			row = add_row(m, -HUGE_VAL, m->cap[q * T + t]);

			add_nz(m, row, U_col(m, q, t), 1);
			for (int s = 0; s < p->n_services; s++)
				if (p->services[s].pool == q)
					add_nz(m, row, y_col(m, s, t), 1);
		}
	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		double		weight = p->params.penalty * svc->priority;
		int			budget_row = 0;

		if (svc->churn_budget >= 0)
			budget_row = add_row(m, -HUGE_VAL, svc->churn_budget);
		for (int t = 0; t < T; t++)
		{
			int			cap = m->cap[svc->pool * T + t];
			int			ymax = svc->max_gpus < cap ? svc->max_gpus : cap;
			bool		charged = t > 0 || svc->held_known;

			set_col(m, y_col(m, s, t), 0, ymax, 0, 'i');
			set_col(m, u_col(m, s, t), 0, svc->demand[t], -weight * ga_shortfall_decay(p, t), 'c');
			set_col(m, c_col(m, s, t), 0, charged ? svc->churn_limit : 0, 0, 'c');
			if (svc->demand[t] > 0)
			{
				int			row = add_row(m, svc->demand[t], HUGE_VAL);

				add_nz(m, row, y_col(m, s, t), 1);
				add_nz(m, row, u_col(m, s, t), 1);
			}
			if (!charged)
				continue;
			for (int sign = -1; sign <= 1; sign += 2)
			{
				/* c + sign*(y[t] - y[t-1]) >= 0, y[-1] being the held count */
				double		rhs = (t == 0) ? sign * svc->n_held : 0;
				int			row = add_row(m, rhs, HUGE_VAL);

				add_nz(m, row, c_col(m, s, t), 1);
				add_nz(m, row, y_col(m, s, t), sign);
				if (t > 0)
					add_nz(m, row, y_col(m, s, t - 1), -sign);
			}
			if (budget_row > 0)
				add_nz(m, budget_row, c_col(m, s, t), 1);
		}
	}
}

/*
 * Bound that needs no LP: batch value is at most every job's best candidate,
 * and at most all free capacity at the pool's highest priority plus every
 * job's largest tail; penalties only subtract.  Used when the LP cannot be
 * solved in time.
 */
static void
model_trivial_bound(milp_model *m)
{
	const ga_problem *p = m->problem;
	double		by_jobs = 0;
	double		by_capacity = 0;

	for (int j = 0; j < p->n_jobs; j++)
	{
		const job_cols *jc = &m->jobs[j];
		double		best = 0;
		double		tail = 0;

		for (int k = 0; k < jc->n_sizes; k++)
		{
			const milp_col *last = &m->cols[jc->base[k] + jc->last_start[k] - p->jobs[j].release_step];

			/* the earliest start is worth most; the latest has the longest tail */
			if (m->cols[jc->base[k]].value > best)
				best = m->cols[jc->base[k]].value;
			tail = fmax(tail, ga_job_tail_value(p, &p->jobs[j], last->size, last->start,
												last->start + ga_job_duration(&p->jobs[j], last->size)));
		}
		by_jobs += best;
		by_capacity += tail;
	}
	for (int q = 0; q < p->n_pools; q++)
	{
		double		top = 0;

		for (int j = 0; j < p->n_jobs; j++)
			if (p->jobs[j].pool == q && !p->jobs[j].pinned && p->jobs[j].priority > top)
				top = p->jobs[j].priority;
		for (int t = 0; t < m->T; t++)
			by_capacity += top * p->decay[t] * m->cap[q * m->T + t];
	}
	m->trivial_bound = m->constant + (by_jobs < by_capacity ? by_jobs : by_capacity);
}

static ga_status
model_build(milp_model *m, const ga_problem *p, ga_error *err)
{
	ga_status	rc;

	memset(m, 0, sizeof(*m));
	m->problem = p;
	m->T = p->params.n_steps;
	if (!model_fixed_part(m))
		return ga_error_set(err, GA_ENOMEM, "out of memory building the MILP");
	if ((rc = model_columns(m, err)) != GA_OK)
		return rc;
	if (!model_find_chains(m) || !model_alloc_arrays(m))
		return ga_error_set(err, GA_ENOMEM, "out of memory building the MILP");
	model_batch_rows(m);
	model_capacity_and_service_rows(m);
	model_chain_rows(m);
	model_trivial_bound(m);
	return GA_OK;
}

/* Column index (0-based x index) of job j at size/start, or -1. */
static int
find_start_col(const milp_model *m, int j, int size, int start)
{
	const job_cols *jc = &m->jobs[j];
	int			release = m->problem->jobs[j].release_step;

	for (int k = 0; k < jc->n_sizes; k++)
		if (jc->size[k] == size && start >= release && start <= jc->last_start[k])
			return jc->base[k] + (start - release);
	return -1;
}

/* ----------------------------------------------------------------------
 * The bound.
 * ----------------------------------------------------------------------
 */

/*
 * Lagrangian value of the model at row multipliers pi: for any pi,
 *   max { obj x : lo <= A x <= hi, box }
 *     <= max over the box of (obj - pi A) x  +  max over r in [lo,hi] of pi r
 * because every feasible x, with r = A x, appears on the right.  All columns
 * are bounded, and a multiplier facing an infinite row bound is set to zero,
 * so the value is finite.  At the simplex optimum it equals the LP value; at
 * any other pi it is still an upper bound, which makes the bound immune to
 * the solver's tolerances.
 */
static double
lagrangian_bound(const milp_model *m, double *pi)
{
	double	   *reduced = malloc(sizeof(double) * (m->n_cols + 1));
	double		bound = m->constant;

	if (reduced == NULL)
		return HUGE_VAL;
	for (int i = 1; i <= m->n_rows; i++)
		if ((pi[i] > 0 && m->row_hi[i] == HUGE_VAL) ||
			(pi[i] < 0 && m->row_lo[i] == -HUGE_VAL) || !isfinite(pi[i]))
			pi[i] = 0;
	memcpy(reduced, m->obj, sizeof(double) * (m->n_cols + 1));
	for (int k = 1; k <= m->nnz; k++)
		reduced[m->ja[k]] -= pi[m->ia[k]] * m->ar[k];
	for (int j = 1; j <= m->n_cols; j++)
		bound += reduced[j] > 0 ? reduced[j] * m->col_hi[j] : reduced[j] * m->col_lo[j];
	for (int i = 1; i <= m->n_rows; i++)
		if (pi[i] != 0)
			bound += pi[i] > 0 ? pi[i] * m->row_hi[i] : pi[i] * m->row_lo[i];
	free(reduced);

	/* Cover rounding in the sums above. */
	return bound + 1e-9 * (fabs(bound) + 1);
}

/* ----------------------------------------------------------------------
 * Mapping an aggregate schedule onto aligned blocks.
 *
 * Steps are simulated in order.  At every step each service first keeps the
 * GPUs it held (dropping its lowest ones when it shrinks), then the jobs due
 * to start take an aligned block that is free for their whole run, then
 * services grow into free GPUs.  A job only starts where every step of its
 * run leaves room for the service counts (slack), so services always get
 * their counts, and a service's set only grows or shrinks, so its physical
 * churn is the change of its count.
 *
 * Placement is best fit in the buddy sense: a job takes the free aligned
 * block lying in the most broken-up larger block (lowest first on ties), and
 * a service grows into the free GPU whose largest free aligned block is the
 * smallest (highest first on ties).  Batch thus packs from the low end,
 * services from the high end, and both fill the holes pins and drained GPUs
 * leave before cutting into whole blocks.
 *
 * When only service GPUs stand in the way of a job's block, the service
 * hands them over and takes others, if its churn limit and budget (after the
 * count changes still to come) allow.  A job that does not fit waits for a
 * later step while its deadline allows; whatever is idle at the end is then
 * filled with any job that fits there.
 * ----------------------------------------------------------------------
 */
typedef struct map_state
{
	const milp_model *m;
	ga_plan    *plan;
	occ_map		occ;
	int		   *slack;			/* [n_pools*T] free GPUs beyond service
								 * counts */
	int		   *hold;			/* [n_gpus] service holding the GPU, or -1 */
	const int  *svc_count;		/* [n_services*T] */
	int		   *largest;		/* [n_gpus] scratch: largest free aligned
								 * block containing the GPU */
	int		   *prev_count;		/* [n_services] GPUs held at t-1, -1 when
								 * step 0 is free of churn */
	int		   *kept;			/* [n_services] of those still held at t */
	int		   *used;			/* [n_services] churn spent before t */
	int		   *future;			/* [n_services*(T+1)] count changes after t */
	bool		best_fit;		/* false: plain lowest block / highest GPU */
} map_state;

static void
map_state_free(map_state *st)
{
	free(st->occ.bits);
	free(st->slack);
	free(st->hold);
	free(st->largest);
	free(st->prev_count);
	free(st->kept);
	free(st->used);
	free(st->future);
	ga_plan_destroy(st->plan);
}

/* Count changes each service still has to make after every step. */
static void
plan_future_churn(map_state *st)
{
	const ga_problem *p = st->m->problem;
	int			T = st->m->T;

	for (int s = 0; s < p->n_services; s++)
	{
		int		   *f = st->future + (size_t) s * (T + 1);

		f[T] = 0;
		f[T - 1] = 0;
		for (int t = T - 2; t >= 0; t--)
			f[t] = f[t + 1] + abs(st->svc_count[s * T + t + 1] - st->svc_count[s * T + t]);
	}
}

static bool
map_state_init(map_state *st, const milp_model *m, const int *svc_count,
			   bool best_fit)
{
	const ga_problem *p = m->problem;
	int			T = m->T;
	int			ns = p->n_services > 0 ? p->n_services : 1;

	memset(st, 0, sizeof(*st));
	st->m = m;
	st->svc_count = svc_count;
	st->best_fit = best_fit;
	st->plan = ga_plan_create(p);
	st->slack = malloc(sizeof(int) * (size_t) (p->n_pools > 0 ? p->n_pools : 1) * T);
	st->hold = malloc(sizeof(int) * (p->n_gpus > 0 ? p->n_gpus : 1));
	st->largest = malloc(sizeof(int) * (p->n_gpus > 0 ? p->n_gpus : 1));
	st->prev_count = calloc(ns, sizeof(int));
	st->kept = calloc(ns, sizeof(int));
	st->used = calloc(ns, sizeof(int));
	st->future = calloc((size_t) ns * (T + 1), sizeof(int));
	if (!st->plan || !st->slack || !st->hold || !st->largest || !st->prev_count ||
		!st->kept || !st->used || !st->future || !occ_copy(&st->occ, &m->base))
		return false;
	memcpy(st->slack, m->cap, sizeof(int) * (size_t) p->n_pools * T);
	for (int s = 0; s < p->n_services; s++)
		for (int t = 0; t < T; t++)
			st->slack[p->services[s].pool * T + t] -= svc_count[s * T + t];
	for (int i = 0; i < p->n_pools * T; i++)
		if (st->slack[i] < 0)
			return false;		/* the service counts do not fit */
	plan_future_churn(st);
	for (int g = 0; g < p->n_gpus; g++)
		st->hold[g] = -1;
	for (int s = 0; s < p->n_services; s++)
	{
		st->prev_count[s] = p->services[s].held_known ? p->services[s].n_held : -1;
		for (int i = 0; i < p->services[s].n_held; i++)
			if (st->hold[p->services[s].held_gpus[i]] < 0)
				st->hold[p->services[s].held_gpus[i]] = s;
	}
	for (int j = 0; j < p->n_jobs; j++)
		if (p->jobs[j].pinned)
			ga_plan_place_job(st->plan, p, j, p->jobs[j].pinned_start,
							  p->jobs[j].pinned_first_gpu, p->jobs[j].pinned_size);
	return true;
}

/*
 * For every GPU of the pool, the size of the largest aligned block holding
 * it that is free over [from, to) (0 when the GPU itself is taken).  With
 * services_free, GPUs held by services at step `from` count as free there.
 */
static void
compute_largest_free(map_state *st, const ga_pool *pool, int from, int to,
					 bool services_free)
{
	int		   *L = st->largest + pool->first_gpu;
	int			n = pool->n_gpus;

	for (int i = 0; i < n; i++)
	{
		int			g = pool->first_gpu + i;

		if (services_free && st->hold[g] >= 0)
			L[i] = occ_range_free(&st->occ, g, from + 1, to) ? 1 : 0;
		else
			L[i] = occ_range_free(&st->occ, g, from, to) ? 1 : 0;
	}
	for (int size = 2; size <= n; size *= 2)
		for (int rel = 0; rel + size <= n; rel += size)
		{
			int			half = size / 2;

			if (L[rel] == half && L[rel + half] == half)
				for (int i = rel; i < rel + size; i++)
					L[i] = size;
		}
}

/* A block of `size` at rel is free when its first GPU's free block covers it. */
static bool
block_is_free(const int *L, int rel, int size)
{
	return L[rel] >= size;
}

/* Best-fit aligned free block of `size` (see above), or -1. */
static int
best_fit_block(const map_state *st, const ga_pool *pool, int size)
{
	const int  *L = st->largest + pool->first_gpu;
	int			best = -1;
	int			best_score = 0;

	for (int rel = 0; rel + size <= pool->n_gpus; rel += size)
	{
		int			parent = rel - rel % (2 * size);
		int			score;

		if (!block_is_free(L, rel, size))
			continue;
		if (!st->best_fit)
			return pool->first_gpu + rel;

		/*
		 * The free block it sits in, measured one level up: a block whose
		 * buddy is taken scores `size`, in an otherwise empty parent more.
		 */
		score = L[rel];
		if (parent + 2 * size <= pool->n_gpus && L[parent] >= 2 * size)
			score = L[parent];
		if (best < 0 || score < best_score)
		{
			best = rel;
			best_score = score;
		}
	}
	return best < 0 ? -1 : pool->first_gpu + best;
}

static bool
slack_allows(const map_state *st, int q, int size, int from, int to)
{
	for (int t = from; t < to; t++)
		if (st->slack[q * st->m->T + t] < size)
			return false;
	return true;
}

static void
commit_job(map_state *st, int j, int start, int first, int size)
{
	const milp_model *m = st->m;
	const ga_job *job = &m->problem->jobs[j];
	int			end = start + ga_job_duration(job, size);
	int			to = end < m->T ? end : m->T;

	for (int g = first; g < first + size; g++)
		occ_mark_range(&st->occ, g, start, to);
	for (int t = start; t < to; t++)
		st->slack[job->pool * m->T + t] -= size;
	ga_plan_place_job(st->plan, m->problem, j, start, first, size);
}

/* Churn service s spends at step t when it keeps `kept` of its GPUs. */
static int
step_churn(const map_state *st, int s, int t, int kept)
{
	if (st->prev_count[s] < 0)
		return 0;
	return st->prev_count[s] + st->svc_count[s * st->m->T + t] - 2 * kept;
}

/*
 * Can the services holding GPUs in [first, first+size) hand them over at
 * step t and take others, within churn limit and budget?
 */
static bool
eviction_allowed(const map_state *st, int first, int size, int t)
{
	const ga_problem *p = st->m->problem;

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		int			evicted = 0;
		int			churn;

		for (int g = first; g < first + size; g++)
			evicted += st->hold[g] == s;
		if (evicted == 0)
			continue;
		churn = step_churn(st, s, t, st->kept[s] - evicted);
		if (churn > svc->churn_limit && !(t == 0 && !svc->held_known))
			return false;
		if (svc->churn_budget >= 0 &&
			st->used[s] + churn + st->future[(size_t) s * (st->m->T + 1) + t] > svc->churn_budget)
			return false;
	}
	return true;
}

static void
evict_services(map_state *st, int first, int size, int t)
{
	for (int g = first; g < first + size; g++)
	{
		int			s = st->hold[g];

		if (s < 0)
			continue;
		st->hold[g] = -1;
		st->kept[s]--;
		st->occ.bits[(size_t) g * st->occ.words + (t >> 6)] &= ~(UINT64_C(1) << (t & 63));
		ga_plan_set(st->plan, g, t, GA_IDLE);
	}
}

/*
 * A block for job j of `size` over [t, to): best fit among free blocks, else
 * the lowest block that only service GPUs at step t stand in the way of and
 * whose services may hand them over.
 */
static int
find_job_block(map_state *st, const ga_pool *pool, int size, int t, int to)
{
	int			first;

	compute_largest_free(st, pool, t, to, false);
	first = best_fit_block(st, pool, size);
	if (first >= 0 || st->m->problem->n_services == 0)
		return first;
	compute_largest_free(st, pool, t, to, true);
	for (int rel = 0; rel + size <= pool->n_gpus; rel += size)
		if (block_is_free(st->largest + pool->first_gpu, rel, size) &&
			eviction_allowed(st, pool->first_gpu + rel, size, t))
		{
			evict_services(st, pool->first_gpu + rel, size, t);
			return pool->first_gpu + rel;
		}
	return -1;
}

/*
 * Try to start job j at step t, its preferred size first and then the other
 * sizes by value; the service counts are protected by the slack.
 */
static bool
try_start_job(map_state *st, int j, int t, int preferred)
{
	const milp_model *m = st->m;
	const ga_job *job = &m->problem->jobs[j];
	const ga_pool *pool = &m->problem->pools[job->pool];
	const job_cols *jc = &m->jobs[j];
	bool		tried[MAX_SIZES] = {false};

	for (int attempt = 0; attempt < jc->n_sizes; attempt++)
	{
		int			k = -1;
		double		best = -1;

		for (int i = 0; i < jc->n_sizes; i++)
		{
			double		v = start_value(m, job, jc->size[i], t);

			if (tried[i])
				continue;
			if (jc->size[i] == preferred)
				v = HUGE_VAL;
			if (v > best)
			{
				best = v;
				k = i;
			}
		}
		tried[k] = true;
		if (t >= job->release_step && t <= jc->last_start[k])
		{
			int			size = jc->size[k];
			int			end = t + ga_job_duration(job, size);
			int			to = end < m->T ? end : m->T;
			int			first;

			if (!slack_allows(st, job->pool, size, t, to))
				continue;
			first = find_job_block(st, pool, size, t, to);
			if (first >= 0)
			{
				commit_job(st, j, t, first, size);
				return true;
			}
		}
	}
	return false;
}

static void
hold_gpu(map_state *st, int g, int s, int t)
{
	st->hold[g] = s;
	occ_mark_range(&st->occ, g, t, t + 1);
	ga_plan_set(st->plan, g, t, ga_service_workload(st->m->problem, s));
}

/* Services keep their GPUs at step t, dropping the lowest when shrinking. */
static void
services_keep(map_state *st, int t)
{
	const ga_problem *p = st->m->problem;

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_pool *pool = &p->pools[p->services[s].pool];
		int			lo = pool->first_gpu;
		int			hi = pool->first_gpu + pool->n_gpus;
		int			kept = 0;

		for (int g = lo; g < hi; g++)
			if (st->hold[g] == s)
			{
				if (occ_free_at(&st->occ, g, t))
					kept++;
				else
					st->hold[g] = -1;
			}
		for (int g = lo; g < hi && kept > st->svc_count[s * st->m->T + t]; g++)
			if (st->hold[g] == s)
			{
				st->hold[g] = -1;
				kept--;
			}
		for (int g = lo; g < hi; g++)
			if (st->hold[g] == s)
				hold_gpu(st, g, s, t);
		st->kept[s] = kept;
	}
}

/* Services grow into the best-fit free GPUs of their pool at step t. */
static void
services_grow(map_state *st, int t)
{
	const ga_problem *p = st->m->problem;

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_pool *pool = &p->pools[p->services[s].pool];
		int			need = st->svc_count[s * st->m->T + t];
		int			count;

		for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
			need -= st->hold[g] == s;
		while (need > 0)
		{
			int			pick = -1;

			compute_largest_free(st, pool, t, t + 1, false);
			for (int g = pool->first_gpu + pool->n_gpus - 1; g >= pool->first_gpu; g--)
				if (st->hold[g] < 0 && st->largest[g] > 0 &&
					(pick < 0 || st->largest[g] < st->largest[pick]))
				{
					pick = g;
					if (!st->best_fit)
						break;
				}
			if (pick < 0)
				break;
			hold_gpu(st, pick, s, t);
			need--;
		}
		count = 0;
		for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
			count += st->hold[g] == s;
		if (st->prev_count[s] >= 0 || t > 0)
			st->used[s] += (st->prev_count[s] < 0 ? 0 : st->prev_count[s]) + count - 2 * st->kept[s];
		st->prev_count[s] = count;
	}
}

/* Jobs are ordered by up to three keys, ascending, then by index. */
typedef struct job_key
{
	double		k[3];
	int			job;
} job_key;

static int
compare_job_keys(const void *a, const void *b)
{
	const job_key *x = a;
	const job_key *y = b;

	for (int i = 0; i < 3; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

/*
 * Sort order[0..n) by keys[order[i]] (keys indexed by job).  Ordering only
 * steers quality, so without memory the order is left as it is.
 */
static void
sort_jobs_by_keys(int *order, int n, const job_key *keys)
{
	job_key    *tmp = malloc(sizeof(job_key) * (n > 0 ? n : 1));

	if (tmp == NULL)
		return;
	for (int i = 0; i < n; i++)
		tmp[i] = keys[order[i]];
	qsort(tmp, n, sizeof(job_key), compare_job_keys);
	for (int i = 0; i < n; i++)
		order[i] = tmp[i].job;
	free(tmp);
}

/* Target order: by start, then larger blocks, then higher priority. */
static void
target_keys(const ga_problem *p, const int *tgt_start, const int *tgt_size,
			job_key *keys)
{
	for (int j = 0; j < p->n_jobs; j++)
	{
		keys[j].k[0] = tgt_start[j];
		keys[j].k[1] = -tgt_size[j];
		keys[j].k[2] = -p->jobs[j].priority;
		keys[j].job = j;
	}
}

/* Fill order: higher priority, then more work. */
static void
fill_keys(const ga_problem *p, job_key *keys)
{
	for (int j = 0; j < p->n_jobs; j++)
	{
		keys[j].k[0] = -p->jobs[j].priority;
		keys[j].k[1] = -p->jobs[j].work_gpu_steps;
		keys[j].k[2] = 0;
		keys[j].job = j;
	}
}

/* Run the step simulation for the jobs that have a target start. */
static void
simulate_targets(map_state *st, int *order, int n_order, const int *tgt_start,
				 const int *tgt_size)
{
	int			T = st->m->T;

	for (int t = 0; t < T; t++)
	{
		services_keep(st, t);
		/* first the jobs due now, then those that had to wait */
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < n_order; i++)
			{
				int			j = order[i];

				if (j < 0 || (pass == 0 ? tgt_start[j] != t : tgt_start[j] >= t))
					continue;
				if (try_start_job(st, j, t, tgt_size[j]))
					order[i] = -1;
			}
		services_grow(st, t);
	}
}

/* Place every job still unplaced at its best position in the idle cells. */
static void
fill_idle(map_state *st, int *order, int n, job_key *keys)
{
	const milp_model *m = st->m;
	const ga_problem *p = m->problem;

	fill_keys(p, keys);
	sort_jobs_by_keys(order, n, keys);
	for (int i = 0; i < n; i++)
	{
		int			j = order[i];
		const ga_job *job = &p->jobs[j];
		const job_cols *jc = &m->jobs[j];
		double		best = 0;
		int			best_start = -1,
					best_first = -1,
					best_size = 0;

		for (int k = 0; k < jc->n_sizes; k++)
		{
			int			size = jc->size[k];
			int			d = ga_job_duration(job, size);

			/* value only falls with a later start: the first fit is best */
			for (int s = job->release_step; s <= jc->last_start[k]; s++)
			{
				int			to = s + d < m->T ? s + d : m->T;
				int			first;

				if (start_value(m, job, size, s) <= best)
					break;
				compute_largest_free(st, &p->pools[job->pool], s, to, false);
				first = best_fit_block(st, &p->pools[job->pool], size);
				if (first >= 0)
				{
					best = start_value(m, job, size, s);
					best_start = s;
					best_first = first;
					best_size = size;
					break;
				}
			}
		}
		if (best_start >= 0)
			commit_job(st, j, best_start, best_first, best_size);
	}
}

/* Physical churn of every service within its limit and budget. */
static bool
services_churn_ok(const ga_problem *p, const ga_plan *plan)
{
	int			T = plan->n_steps;

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		const ga_pool *pool = &p->pools[svc->pool];
		int32_t		w = ga_service_workload(p, s);
		long		total = 0;

		for (int t = 0; t < T; t++)
		{
			int			churn = 0;

			for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
			{
				bool		now = ga_plan_get(plan, g, t) == w;
				bool		before = now;

				if (t > 0)
					before = ga_plan_get(plan, g, t - 1) == w;
				else if (svc->held_known)
				{
					before = false;
					for (int i = 0; i < svc->n_held; i++)
						before = before || svc->held_gpus[i] == g;
				}
				churn += now != before;
			}
			if (churn > svc->churn_limit)
				return false;
			total += churn;
		}
		if (svc->churn_budget >= 0 && total > svc->churn_budget)
			return false;
	}
	return true;
}

/* One mapping pass with the given placement policy (see above). */
static ga_plan *
map_with_policy(const milp_model *m, const int *tgt_start, const int *tgt_size,
				const int *svc_count, bool best_fit)
{
	const ga_problem *p = m->problem;
	map_state	st;
	int		   *order = malloc(sizeof(int) * (p->n_jobs > 0 ? p->n_jobs : 1));
	job_key    *keys = malloc(sizeof(job_key) * (p->n_jobs > 0 ? p->n_jobs : 1));
	int			n = 0;
	ga_plan    *result = NULL;

	if (order != NULL && keys != NULL && map_state_init(&st, m, svc_count, best_fit))
	{
		for (int j = 0; j < p->n_jobs; j++)
			if (!p->jobs[j].pinned && tgt_start[j] >= 0 && m->jobs[j].n_sizes > 0)
				order[n++] = j;
		target_keys(p, tgt_start, tgt_size, keys);
		sort_jobs_by_keys(order, n, keys);
		simulate_targets(&st, order, n, tgt_start, tgt_size);
		n = 0;
		for (int j = 0; j < p->n_jobs; j++)
			if (!p->jobs[j].pinned && st.plan->job_start[j] < 0 && m->jobs[j].n_sizes > 0)
				order[n++] = j;
		fill_idle(&st, order, n, keys);
		if (services_churn_ok(p, st.plan))
		{
			result = st.plan;
			st.plan = NULL;
			result->objective = ga_plan_objective(p, result);
		}
	}
	if (order != NULL && keys != NULL)
		map_state_free(&st);
	free(order);
	free(keys);
	return result;
}

/*
 * Turn target starts/sizes (-1 = none) and service counts into a legal plan,
 * or NULL when out of memory or when the service counts cannot be honoured.
 * Neither placement policy wins everywhere, so both run and the better plan
 * is kept.
 */
static ga_plan *
map_schedule(const milp_model *m, const int *tgt_start, const int *tgt_size,
			 const int *svc_count)
{
	const ga_problem *p = m->problem;
	size_t		n = (size_t) p->n_services * m->T;
	int		   *raised = NULL;
	ga_plan    *fit;
	ga_plan    *low;

	if (m->svc_floor != NULL && n > 0)
	{
		raised = malloc(sizeof(int) * n);
		if (raised == NULL)
			return NULL;
		for (size_t i = 0; i < n; i++)
			raised[i] = svc_count[i] > m->svc_floor[i] ? svc_count[i] : m->svc_floor[i];
		svc_count = raised;
	}
	fit = map_with_policy(m, tgt_start, tgt_size, svc_count, true);
	low = map_with_policy(m, tgt_start, tgt_size, svc_count, false);
	free(raised);

	if (fit == NULL || (low != NULL && low->objective > fit->objective))
	{
		ga_plan_destroy(fit);
		return low;
	}
	ga_plan_destroy(low);
	return fit;
}

/* Service counts per step of a plan, [n_services*T]. */
static void
plan_service_counts(const ga_problem *p, const ga_plan *plan, int *counts)
{
	for (int s = 0; s < p->n_services; s++)
		for (int t = 0; t < plan->n_steps; t++)
			counts[s * plan->n_steps + t] = ga_plan_service_gpus(p, plan, s, t);
}

/*
 * Targets from a (possibly fractional) model solution x (1-based): each job
 * takes its heaviest start column when its total weight reaches threshold.
 */
static void
targets_from_solution(const milp_model *m, const double *x, double threshold,
					  int *tgt_start, int *tgt_size)
{
	const ga_problem *p = m->problem;

	for (int j = 0; j < p->n_jobs; j++)
	{
		const job_cols *jc = &m->jobs[j];
		double		total = 0;
		double		top = 0;
		int			pick = -1;

		tgt_start[j] = -1;
		tgt_size[j] = -1;
		for (int k = 0; k < jc->n_sizes; k++)
			for (int i = jc->base[k]; i <= jc->base[k] + jc->last_start[k] - p->jobs[j].release_step; i++)
			{
				total += x[i + 1];
				if (x[i + 1] > top)
				{
					top = x[i + 1];
					pick = i;
				}
			}
		if (pick >= 0 && total >= threshold)
		{
			tgt_start[j] = m->cols[pick].start;
			tgt_size[j] = m->cols[pick].size;
		}
	}
}

/*
 * The model's column values for a legal plan (x 1-based), so GLPK can take
 * the plan as its incumbent.  Returns false when the plan is not a point of
 * the model (checked row by row, since GLPK accepts an incumbent unchecked).
 */
static bool
plan_to_columns(const milp_model *m, const ga_plan *plan, double *x)
{
	const ga_problem *p = m->problem;
	int			T = m->T;
	bool		ok = true;
	double	   *activity;

	memset(x, 0, sizeof(double) * (m->n_cols + 1));
	for (int j = 0; j < p->n_jobs && ok; j++)
	{
		int			start = plan->job_start[j];
		int			size = plan->job_size[j];
		int			col;

		if (p->jobs[j].pinned || start < 0)
			continue;
		col = find_start_col(m, j, size, start);
		if (col < 0)
			return false;
		x[col + 1] = 1;
		for (int t = start; t < m->cols[col].end; t++)
			x[U_col(m, p->jobs[j].pool, t)] += size;
		for (int c = 0; c < m->n_chains; c++)
			if (m->chain_pool[c] == p->jobs[j].pool && size >= m->chain_level[c])
				for (int t = start; t < m->cols[col].end; t++)
					x[V_col(m, c, t)] += size / m->chain_level[c];
	}
	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		int			prev = svc->n_held;

		for (int t = 0; t < T; t++)
		{
			int			y = ga_plan_service_gpus(p, plan, s, t);
			int			change = abs(y - prev);

			x[y_col(m, s, t)] = y;
			x[u_col(m, s, t)] = svc->demand[t] > y ? svc->demand[t] - y : 0;
			x[c_col(m, s, t)] = (t > 0 || svc->held_known) ? change : 0;
			prev = y;
		}
	}
	for (int j = 1; j <= m->n_cols && ok; j++)
		ok = x[j] >= m->col_lo[j] - 1e-9 && x[j] <= m->col_hi[j] + 1e-9;
	activity = calloc(m->n_rows + 1, sizeof(double));
	if (activity == NULL)
		return false;
	for (int k = 1; k <= m->nnz; k++)
		activity[m->ia[k]] += m->ar[k] * x[m->ja[k]];
	for (int i = 1; i <= m->n_rows && ok; i++)
		ok = activity[i] >= m->row_lo[i] - 1e-6 && activity[i] <= m->row_hi[i] + 1e-6;
	free(activity);
	return ok;
}

/* ----------------------------------------------------------------------
 * GLPK: one guarded run per call.
 * ----------------------------------------------------------------------
 */
typedef struct milp_run
{
	const ga_problem *problem;
	const ga_solve_options *options;
	const ga_milp_settings *settings;
	milp_model *model;
	glp_prob   *lp;
	double		t_start;
	double		t_end;			/* wall-clock deadline of the whole call */
	double		reserve_ms;		/* kept for mapping after GLPK */

	ga_plan    *best;			/* best legal plan so far (owned) */
	const char *best_source;
	int		   *svc_count;		/* service counts of best [S*T] */
	int		   *tgt_start;		/* scratch [n_jobs] */
	int		   *tgt_size;
	double	   *xread;			/* [n_cols+1] solution read from GLPK */
	double	   *xoffer;			/* [n_cols+1] incumbent handed to GLPK */
	bool		offered;		/* best has been handed to GLPK */
	int			heur_calls;
	int			improvements;
	int			rejected;		/* mapped plans the validator refused */

	bool		cancelled;
	bool		lp_optimal;
	bool		mip_optimal;
	double		lp_bound;
	double		mip_bound;		/* MILP optimum when proved, else HUGE_VAL */
	double		tree_bound;		/* best bound of the search tree, HUGE_VAL
								 * until known */
	double		lp_ms;
	double		mip_ms;
	char		message[160];	/* GLPK's last terminal line */
} milp_run;

static bool
cancel_requested(const milp_run *run)
{
	return run->options != NULL && run->options->cancel != NULL &&
		run->options->cancel(run->options->cancel_arg);
}

static double
remaining_ms(const milp_run *run)
{
	return run->t_end - ga_now_ms();
}

static int
glpk_time_limit(const milp_run *run)
{
	double		ms = remaining_ms(run) - run->reserve_ms;

	if (ms < 1)
		return 1;
	return ms > 1e9 ? 1000000000 : (int) ms;
}

/*
 * Keep plan when it beats the best so far; takes ownership.  Mapped plans
 * are legal by construction; the validator is the safety net that keeps a
 * mapping defect from ever reaching the caller (it would cost the plan, not
 * legality).
 */
static bool
consider_plan(milp_run *run, ga_plan *plan, const char *source)
{
	if (plan == NULL)
		return false;
	if (run->best != NULL && ga_validate(run->problem, plan, NULL) != GA_OK)
	{
		run->rejected++;
		ga_plan_destroy(plan);
		return false;
	}
	if (run->best != NULL && !(plan->objective > run->best->objective + 1e-9))
	{
		ga_plan_destroy(plan);
		return false;
	}
	if (run->best != NULL)
		run->improvements++;
	ga_plan_destroy(run->best);
	run->best = plan;
	run->best_source = source;
	run->offered = false;
	plan_service_counts(run->problem, plan, run->svc_count);
	return true;
}

/* LP-guided placements from a solution in run->xread. */
static void
round_solution(milp_run *run, const char *source)
{
	static const double thresholds[] = {0.5, 0.2};

	for (size_t i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++)
	{
		targets_from_solution(run->model, run->xread, thresholds[i],
							  run->tgt_start, run->tgt_size);
		consider_plan(run, map_schedule(run->model, run->tgt_start, run->tgt_size,
										run->svc_count), source);
	}
}

static void
offer_best(milp_run *run, glp_tree *tree)
{
	if (run->offered || run->best == NULL)
		return;
	run->offered = true;
	if (plan_to_columns(run->model, run->best, run->xoffer))
		glp_ios_heur_sol(tree, run->xoffer);
}

/*
 * The search tree bounds the MILP, hence every legal plan: no solution is
 * better than the best local bound of the active nodes or the incumbent
 * (everything else was pruned against it).  A node's local bound comes from
 * its parent's LP, so the value only falls as the search goes on and the last
 * one seen stays valid.  The margin covers GLPK's pruning tolerance (1e-7
 * relative) and the tolerance of the node LPs.
 */
static void
note_tree_bound(milp_run *run, glp_tree *tree)
{
	int			best = glp_ios_best_node(tree);
	glp_prob   *mip = glp_ios_get_prob(tree);
	double		bound;

	if (best == 0)
		return;
	bound = glp_ios_node_bound(tree, best);
	if (glp_mip_status(mip) == GLP_FEAS || glp_mip_status(mip) == GLP_OPT)
		bound = fmax(bound, glp_mip_obj_val(mip));
	bound += 1e-6 * (fabs(bound) + 1);
	if (isfinite(bound) && bound < run->tree_bound)
		run->tree_bound = bound;
}

static void
on_tree_event(glp_tree *tree, void *info)
{
	milp_run   *run = info;

	if (cancel_requested(run))
	{
		run->cancelled = true;
		glp_ios_terminate(tree);
		return;
	}
	note_tree_bound(run, tree);
	if (glp_ios_reason(tree) != GLP_IHEUR)
		return;
	offer_best(run, tree);

	/* the root was rounded before branching; then every 8th node */
	if (++run->heur_calls % 8 == 0 && remaining_ms(run) > 2 * run->reserve_ms)
	{
		glp_prob   *node = glp_ios_get_prob(tree);

		for (int j = 1; j <= run->model->n_x; j++)
			run->xread[j] = glp_get_col_prim(node, j);
		round_solution(run, "lp-rounding");
		offer_best(run, tree);
	}
}

static void
load_model(glp_prob *lp, const milp_model *m)
{
	glp_set_obj_dir(lp, GLP_MAX);
	glp_set_obj_coef(lp, 0, m->constant);
	if (m->n_rows > 0)
		glp_add_rows(lp, m->n_rows);
	if (m->n_cols > 0)
		glp_add_cols(lp, m->n_cols);
	for (int i = 1; i <= m->n_rows; i++)
	{
		bool		has_lo = m->row_lo[i] > -HUGE_VAL;
		bool		has_hi = m->row_hi[i] < HUGE_VAL;
		int			type = has_lo && has_hi ? (m->row_lo[i] == m->row_hi[i] ? GLP_FX : GLP_DB)
			: has_lo ? GLP_LO : has_hi ? GLP_UP : GLP_FR;

		glp_set_row_bnds(lp, i, type, has_lo ? m->row_lo[i] : 0, has_hi ? m->row_hi[i] : 0);
	}
	for (int j = 1; j <= m->n_cols; j++)
	{
		int			type = m->col_lo[j] == m->col_hi[j] ? GLP_FX : GLP_DB;

		glp_set_col_bnds(lp, j, type, m->col_lo[j], m->col_hi[j]);
		glp_set_obj_coef(lp, j, m->obj[j]);
		if (m->col_kind[j] == 'b')
			glp_set_col_kind(lp, j, GLP_BV);
		else if (m->col_kind[j] == 'i')
			glp_set_col_kind(lp, j, GLP_IV);
	}
	if (m->nnz > 0)
		glp_load_matrix(lp, m->nnz, m->ia, m->ja, m->ar);
}

/* Solve the LP relaxation and turn its duals into a bound. */
static ga_status
solve_relaxation(milp_run *run)
{
	milp_model *m = run->model;
	glp_smcp	smcp;
	double		t0 = ga_now_ms();
	double	   *pi;
	int			status;

	glp_init_smcp(&smcp);
	smcp.msg_lev = GLP_MSG_OFF;
	smcp.presolve = GLP_OFF;
	smcp.tm_lim = glpk_time_limit(run);
	glp_scale_prob(run->lp, GLP_SF_AUTO);
	glp_adv_basis(run->lp, 0);
	glp_simplex(run->lp, &smcp);
	status = glp_get_status(run->lp);
	run->lp_optimal = status == GLP_OPT;
	run->lp_ms = ga_now_ms() - t0;

	run->lp_bound = m->trivial_bound;
	pi = calloc(m->n_rows + 1, sizeof(double));
	if (pi == NULL)
		return ga_error_set(NULL, GA_ENOMEM, "out of memory");
	for (int i = 1; i <= m->n_rows; i++)
		pi[i] = glp_get_row_dual(run->lp, i);
	{
		double		lag = lagrangian_bound(m, pi);

		if (lag < run->lp_bound)
			run->lp_bound = lag;
	}
	free(pi);
	return GA_OK;
}

/* Branch and bound from the solved relaxation, warm-started with best. */
static void
branch_and_bound(milp_run *run)
{
	glp_iocp	iocp;
	double		t0 = ga_now_ms();
	int			ret;
	int			status;

	glp_init_iocp(&iocp);
	iocp.msg_lev = GLP_MSG_OFF;
	iocp.presolve = GLP_OFF;
	iocp.cb_func = on_tree_event;
	iocp.cb_info = run;
	iocp.tm_lim = glpk_time_limit(run);
	iocp.mip_gap = 1e-6;

	/*
	 * Mixed-integer rounding and cover cuts tighten the capacity rows, whose
	 * fractional knapsacks are the model's main weakness; both are valid for
	 * the MILP, so the tree bound stays a bound of every legal plan.
	 */
	iocp.mir_cuts = GLP_ON;
	iocp.cov_cuts = GLP_ON;
	ret = glp_intopt(run->lp, &iocp);
	run->mip_ms = ga_now_ms() - t0;
	status = glp_mip_status(run->lp);
	if (run->cancelled)
		return;
	if (status == GLP_OPT || status == GLP_FEAS)
	{
		for (int j = 1; j <= run->model->n_cols; j++)
			run->xread[j] = glp_mip_col_val(run->lp, j);
		targets_from_solution(run->model, run->xread, 0.5, run->tgt_start, run->tgt_size);
		for (int s = 0; s < run->problem->n_services; s++)
			for (int t = 0; t < run->model->T; t++)
				run->svc_count[s * run->model->T + t] =
					(int) lround(run->xread[y_col(run->model, s, t)]);
		consider_plan(run, map_schedule(run->model, run->tgt_start, run->tgt_size,
										run->svc_count), "milp");

		/*
		 * The model counts churn, not which GPUs move, so its service counts
		 * can ask for moves no physical layout allows; the jobs are also
		 * tried against the service counts of the best plan so far.
		 */
		plan_service_counts(run->problem, run->best, run->svc_count);
		consider_plan(run, map_schedule(run->model, run->tgt_start, run->tgt_size,
										run->svc_count), "milp");
	}

	/*
	 * A closed search proves the MILP optimum, which bounds every legal plan
	 * (they are all points of the model); GLPK prunes with a relative
	 * tolerance of about 1e-7, covered by the margin.
	 */
	if (ret == 0 && status == GLP_OPT && iocp.mip_gap <= 1e-6)
	{
		double		z = glp_mip_obj_val(run->lp);

		run->mip_optimal = true;
		run->mip_bound = z + 2e-6 * (fabs(z) + 1);
	}
}

static ga_status
glpk_body(milp_run *run, bool with_mip)
{
	ga_status	rc;

	run->lp = glp_create_prob();
	load_model(run->lp, run->model);
	if (run->settings != NULL && run->settings->inject_solver_error)
		glp_set_col_bnds(run->lp, run->model->n_cols + 1, GLP_FX, 0, 0);
	if (cancel_requested(run))
	{
		run->cancelled = true;
		return GA_ECANCEL;
	}
	if ((rc = solve_relaxation(run)) != GA_OK)
		return rc;
	if (cancel_requested(run))
	{
		run->cancelled = true;
		return GA_ECANCEL;
	}
	if (!with_mip || glp_get_status(run->lp) != GLP_OPT)
		return GA_OK;
	for (int j = 1; j <= run->model->n_x; j++)
		run->xread[j] = glp_get_col_prim(run->lp, j);
	round_solution(run, "lp-rounding");
	if (remaining_ms(run) > 2 * run->reserve_ms)
		branch_and_bound(run);
	return run->cancelled ? GA_ECANCEL : GA_OK;
}

typedef struct glpk_body_arg
{
	milp_run   *run;
	bool		with_mip;
} glpk_body_arg;

static ga_status
glpk_body_guarded(void *arg)
{
	glpk_body_arg *a = arg;

	return glpk_body(a->run, a->with_mip);
}

/*
 * Run GLPK under the guard (glpk_guard.h).  Whatever happens, all GLPK
 * memory is released before returning.
 */
static ga_status
glpk_guarded(milp_run *run, bool with_mip, ga_error *err)
{
	glpk_body_arg arg = {run, with_mip};
	bool		glpk_failed;
	ga_status	rc;

	rc = ga_glpk_guarded(&run->lp, run->message, sizeof(run->message),
						 glpk_body_guarded, &arg, &glpk_failed);
	if (glpk_failed)
		return ga_error_set(err, GA_ESOLVER, "GLPK failed: %s",
							run->message[0] ? run->message : "internal error");
	if (rc == GA_ECANCEL)
		return ga_error_set(err, GA_ECANCEL, "the solve was cancelled");
	if (rc != GA_OK)
		return ga_error_set(err, rc, "out of memory in the MILP");
	return GA_OK;
}

/* ----------------------------------------------------------------------
 * Entry points.
 * ----------------------------------------------------------------------
 */
static double
time_limit_of(const ga_solve_options *options)
{
	if (options == NULL || !(options->time_limit_ms > 0))
		return GA_FULL_DEFAULT_MS;
	return options->time_limit_ms;
}

static void
run_free(milp_run *run)
{
	ga_plan_destroy(run->best);
	free(run->svc_count);
	free(run->tgt_start);
	free(run->tgt_size);
	free(run->xread);
	free(run->xoffer);
}

static bool
run_alloc(milp_run *run)
{
	const ga_problem *p = run->problem;
	int			nj = p->n_jobs > 0 ? p->n_jobs : 1;
	size_t		ns = (size_t) (p->n_services > 0 ? p->n_services : 1) * p->params.n_steps;

	run->svc_count = calloc(ns, sizeof(int));
	run->tgt_start = calloc(nj, sizeof(int));
	run->tgt_size = calloc(nj, sizeof(int));
	run->xread = calloc(run->model->n_cols + 1, sizeof(double));
	run->xoffer = calloc(run->model->n_cols + 1, sizeof(double));
	return run->svc_count && run->tgt_start && run->tgt_size && run->xread && run->xoffer;
}

static void
fill_stats(ga_milp_stats *stats, const milp_run *run, const milp_model *m)
{
	if (stats == NULL)
		return;
	stats->n_columns = m->n_cols;
	stats->n_rows = m->n_rows;
	stats->n_nonzeros = m->nnz;
	stats->n_start_columns = m->n_x;
	stats->lp_bound = run->lp_bound;
	stats->lp_optimal = run->lp_optimal;
	stats->mip_optimal = run->mip_optimal;
	stats->improvements = run->improvements;
	stats->rejected = run->rejected;
	stats->lp_ms = run->lp_ms;
	stats->mip_ms = run->mip_ms;
	stats->source = run->best_source;
}

/*
 * The floor under every mapped plan's service counts: at each step, the
 * demand the fast plan meets.  The model charges shortfall only inside the
 * horizon, so a start that takes GPUs a service needs looks profitable
 * whenever the job's value beats the shortfall charged there; but the
 * job is not preemptible and keeps those GPUs for its whole run, often far
 * past the horizon, where the shortfall goes on uncharged while the batch
 * value gained is mostly value moved earlier.  The fast mode protects the
 * services by serving them before any job; full mode keeps that protection
 * by never giving a service fewer GPUs than the fast plan gives it where
 * they meet demand, so a job only starts where it leaves the services that
 * room.  The model and its bound are unchanged (every legal plan remains a
 * point of the model); only the plans full mode returns are restricted, and
 * the fast plan satisfies the floor, so full stays at least as good as fast.
 * When out of memory the floor is left off.
 */
static void
set_service_floor(milp_model *m, const ga_problem *p, const ga_plan *fast)
{
	int			T = m->T;

	if (p->n_services == 0)
		return;
	m->svc_floor = malloc(sizeof(int) * (size_t) p->n_services * T);
	if (m->svc_floor == NULL)
		return;
	plan_service_counts(p, fast, m->svc_floor);
	for (int s = 0; s < p->n_services; s++)
		for (int t = 0; t < T; t++)
		{
			int		   *f = &m->svc_floor[s * T + t];

			if (*f > p->services[s].demand[t])
				*f = p->services[s].demand[t];
		}
}

/* Warm start: the fast plan, then the fast plan re-packed by the mapping. */
static ga_status
warm_start(milp_run *run, double limit, ga_milp_stats *stats, ga_error *err)
{
	ga_solve_options fast_opts = {0};
	ga_plan    *fast = NULL;
	ga_status	rc;

	fast_opts.time_limit_ms = limit * 0.05 < 500 ? limit * 0.05 : 500;
	if (fast_opts.time_limit_ms < GA_FAST_DEFAULT_MS)
		fast_opts.time_limit_ms = GA_FAST_DEFAULT_MS;
	if (run->options != NULL)
	{
		fast_opts.cancel = run->options->cancel;
		fast_opts.cancel_arg = run->options->cancel_arg;
	}
	if ((rc = ga_solve_fast(run->problem, &fast_opts, &fast, err)) != GA_OK)
		return rc;
	fast->objective = ga_plan_objective(run->problem, fast);
	if (stats != NULL)
		stats->fast_objective = fast->objective;
	consider_plan(run, fast, "fast");
	set_service_floor(run->model, run->problem, run->best);
	for (int j = 0; j < run->problem->n_jobs; j++)
	{
		run->tgt_start[j] = run->best->job_start[j];
		run->tgt_size[j] = run->best->job_size[j];
	}
	consider_plan(run, map_schedule(run->model, run->tgt_start, run->tgt_size,
									run->svc_count), "fast");
	return GA_OK;
}

static void
finish_plan(ga_plan *plan, const ga_problem *problem, const milp_run *run)
{
	double		bound = fmin(run->lp_bound, fmin(run->mip_bound, run->tree_bound));

	plan->mode = "full";
	plan->objective = ga_plan_objective(problem, plan);

	/* the plan itself is legal, so the optimum is at least its value */
	if (bound < plan->objective)
		bound = plan->objective;
	plan->bound = bound;
	plan->gap = (bound - plan->objective) / fmax(fabs(bound), 1e-9);
	plan->solve_ms = ga_now_ms() - run->t_start;
}

ga_status
ga_solve_full_ex(const ga_problem *problem, const ga_solve_options *options,
				 const ga_milp_settings *settings, ga_plan **out,
				 ga_milp_stats *stats, ga_error *err)
{
	milp_model	model;
	milp_run	run;
	double		limit = time_limit_of(options);
	ga_status	rc;
	double		t_model;

	*out = NULL;
	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	memset(&run, 0, sizeof(run));
	run.problem = problem;
	run.options = options;
	run.settings = settings;
	run.model = &model;
	run.t_start = ga_now_ms();
	run.t_end = run.t_start + limit;
	run.reserve_ms = limit * RESERVE_SHARE;
	run.lp_bound = HUGE_VAL;
	run.mip_bound = HUGE_VAL;
	run.tree_bound = HUGE_VAL;
	run.best_source = "fast";

	rc = model_build(&model, problem, err);
	t_model = ga_now_ms() - run.t_start;
	if (rc == GA_OK && !run_alloc(&run))
		rc = ga_error_set(err, GA_ENOMEM, "out of memory in the MILP");
	if (rc == GA_OK)
		rc = warm_start(&run, limit, stats, err);
	if (rc == GA_OK)
		rc = glpk_guarded(&run, true, err);
	if (rc == GA_OK)
	{
		finish_plan(run.best, problem, &run);
		*out = run.best;
		run.best = NULL;
		fill_stats(stats, &run, &model);
		if (stats != NULL)
		{
			stats->model_ms = t_model;
			stats->bound = (*out)->bound;
			stats->total_ms = (*out)->solve_ms;
		}
	}
	run_free(&run);
	model_free(&model);
	return rc;
}

ga_status
ga_solve_full(const ga_problem *problem, const ga_solve_options *options,
			  ga_plan **out, ga_error *err)
{
	return ga_solve_full_ex(problem, options, NULL, out, NULL, err);
}

ga_status
ga_solve_bound(const ga_problem *problem, const ga_solve_options *options,
			   double *bound, ga_error *err)
{
	milp_model	model;
	milp_run	run;
	ga_status	rc;

	*bound = NAN;
	memset(&run, 0, sizeof(run));
	run.problem = problem;
	run.options = options;
	run.model = &model;
	run.t_start = ga_now_ms();
	run.t_end = run.t_start + time_limit_of(options);
	run.lp_bound = HUGE_VAL;
	run.mip_bound = HUGE_VAL;
	run.tree_bound = HUGE_VAL;

	rc = model_build(&model, problem, err);
	if (rc == GA_OK && !run_alloc(&run))
		rc = ga_error_set(err, GA_ENOMEM, "out of memory in the MILP");
	if (rc == GA_OK)
		rc = glpk_guarded(&run, false, err);
	if (rc == GA_OK)
		*bound = run.lp_bound;
	run_free(&run);
	model_free(&model);
	return rc;
}
