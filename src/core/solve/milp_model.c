/*
 * milp_model.c — the time-indexed MILP of full mode (docs/model.md, The
 * model): its columns and rows, built into the plain arrays of milp_model
 * (milp_internal.h) that GLPK loads (milp_search.c) and that the bound is
 * recomputed from, and the two bounds that need no search: the trivial one
 * and the Lagrangian value of the relaxation's duals.
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
 *   c[s,t]   churn, c >= y[t] - y[t-1] and c >= y[t-1] - y[t] - F[s,t]
 *            (y[-1] = the held GPUs it may keep when known, F = the GPUs
 *            closing to it at t), c <= churn_limit, sum_t c <= churn_budget:
 *            GPUs taken from a service are no churn (ga_service_churn).
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
 * in U, its service counts satisfy the count-churn rows because the
 * handovers ga_service_churn counts are at least the change of its size
 * beyond what was taken from it), so the model's
 * LP optimum bounds every legal plan.  The bound is computed from the simplex
 * duals as a Lagrangian value (see milp_lagrangian_bound), which is valid for
 * any dual vector and therefore does not depend on the solver's tolerances or
 * on the simplex having finished.  ga_solve_bound returns it; a full solve
 * reports the smaller of it and what branch and bound proved (the best open
 * node, or the optimum of a closed search), both also bounds of the model and
 * so of every legal plan.
 */
#include "solve/milp_internal.h"
#include "model/validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * A model beyond this many start columns is refused rather than built (full
 * mode then searches neighbourhoods of the fast plan without it, with no
 * bound: milp_search.c).  Memory and
 * set-up time grow with the columns: 576,000 took 430 MB and 2.9 million
 * 2.1 GB, with GLPK's scaling and factorisation alone outrunning a 10 s
 * limit.  A million keeps a full solve under about 1 GB.
 */
#define MAX_START_COLUMNS 1000000

void
milp_model_free(milp_model *m)
{
	free(m->chain_pool);
	free(m->chain_level);
	free(m->chain_held);
	free(m->chain_blocks);
	free(m->svc_free_churn);
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
double
milp_start_value(const milp_model *m, const ga_job *job, int size, int start)
{
	int			end = start + ga_job_duration(job, job->pool, size);

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
 * Unusable GPUs, maintenance windows, pinned jobs, their constant value and the per-pool
 * capacity left for everything the model decides.
 */
static bool
model_fixed_part(milp_model *m)
{
	const ga_problem *p = m->problem;
	int			T = m->T;

	m->prefix = calloc(T + 1, sizeof(double));
	m->cap = calloc((size_t) (p->n_pools > 0 ? p->n_pools : 1) * T, sizeof(int));
	if (!m->prefix || !m->cap || !milp_occ_init(&m->base, p->n_gpus, T))
		return false;
	for (int t = 0; t < T; t++)
		m->prefix[t + 1] = m->prefix[t] + p->decay[t];
	for (int g = 0; g < p->n_gpus; g++)
		if (!p->gpu_usable[g])
			milp_occ_mark_range(&m->base, g, 0, T);
	for (int i = 0; i < p->n_windows; i++)
	{
		const ga_window *w = &p->windows[i];
		int			from = w->start_step > 0 ? w->start_step : 0;
		int			to = w->end_step < T ? w->end_step : T;

		for (int g = w->first_gpu; from < to && g < w->first_gpu + w->n_gpus; g++)
			milp_occ_mark_range(&m->base, g, from, to);
	}
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
			milp_occ_mark_range(&m->base, g, from, to);
	}
	for (int q = 0; q < p->n_pools; q++)
		for (int t = 0; t < T; t++)
		{
			int			free_gpus = 0;

			for (int g = p->pools[q].first_gpu; g < p->pools[q].first_gpu + p->pools[q].n_gpus; g++)
				free_gpus += milp_occ_free_at(&m->base, g, t);
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
		int			d = ga_job_duration(job, job->pool, size);
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
				c->value = milp_start_value(m, job, size, s);
			}
			count += (size_t) (last - job->release_step + 1);
		}
		if (size > job->gpus_max / 2)
			break;
	}
	return count;
}

static ga_status
model_columns(milp_model *m, size_t max_x, ga_error *err)
{
	const ga_problem *p = m->problem;
	size_t		total = 0;

	m->jobs = calloc(p->n_jobs > 0 ? p->n_jobs : 1, sizeof(job_cols));
	if (m->jobs == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory building the MILP");
	for (int j = 0; j < p->n_jobs; j++)
		total += job_candidates(m, j, false, total);
	if (total > max_x)
	{
		m->too_many_x = total;
		return ga_error_set(err, GA_EINVAL,
							"the MILP would need %zu start columns (limit %zu): shorten the horizon or split the problem",
							total, max_x);
	}
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
			ok = milp_occ_free_at(&m->base, g, t);
		n += ok;
	}
	return n;
}

/*
 * Protect chains.  The planners start a job the protect rule holds to
 * every service of its pool only where, over its estimated run, all batch
 * work of the pool (pinned jobs included) stays within the room the
 * services' protect curves leave (ga_protect_room at priority 0); the last
 * such job placed over a step saw every other held job there, so in every
 * plan they make the held jobs' GPUs plus the pinned jobs' stay within that
 * room at every step (docs/model.md, Solve modes).  A chain of level 1 over
 * the held jobs, bounded by the room less the pinned jobs (never below 0),
 * adds exactly that, so the model relaxes their plans rather than every
 * legal one.  A job on GPUs of an advance reservation is not counted by the
 * rule, which a count of GPUs cannot see: with reservations there are no
 * protect chains (the bound is then the legal one).
 */
bool
milp_job_held(const milp_model *m, int j)
{
	const ga_problem *p = m->problem;

	for (int s = 0; s < p->n_services; s++)
		if (p->services[s].pool == p->jobs[j].pool &&
			!ga_service_protected_from(p, &p->services[s], p->jobs[j].priority))
			return false;
	return true;
}

/* The room less the pinned jobs' counted GPUs, [n_pools * T], or NULL. */
static int *
held_room(const milp_model *m)
{
	const ga_problem *p = m->problem;
	int			T = m->T;
	int		   *room = malloc(sizeof(int) * (size_t) (p->n_pools > 0 ? p->n_pools : 1) * T);

	if (room == NULL)
		return NULL;
	ga_protect_room(p, 0, false, room);
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		int			q = ga_pool_of_gpu(p, job->pinned_first_gpu);

		if (!job->pinned || q < 0)
			continue;
		for (int t = job->pinned_start > 0 ? job->pinned_start : 0; t < job->pinned_end && t < T; t++)
			room[q * T + t] -= ga_usable_gpus(p, job->pinned_first_gpu, job->pinned_size);
	}
	return room;
}

static bool
add_protect_chains(milp_model *m)
{
	const ga_problem *p = m->problem;
	int			T = m->T;
	int		   *room;

	if (p->n_reservations > 0)
		return true;
	room = held_room(m);
	if (room == NULL)
		return false;
	for (int q = 0; q < p->n_pools; q++)
	{
		int			c = m->n_chains;
		bool		has_service = false;

		for (int s = 0; s < p->n_services; s++)
			has_service = has_service || p->services[s].pool == q;
		if (!has_service)
			continue;
		for (int t = 0; t < T; t++)
			m->chain_blocks[(size_t) c * T + t] = room[q * T + t] > 0 ? room[q * T + t] : 0;
		m->chain_pool[c] = q;
		m->chain_level[c] = 1;
		m->chain_held[c] = true;
		m->n_chains++;
	}
	free(room);
	return true;
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

	cap_chains += m->protect_rule ? p->n_pools : 0;
	m->chain_pool = malloc(sizeof(int) * (cap_chains > 0 ? cap_chains : 1));
	m->chain_level = malloc(sizeof(int) * (cap_chains > 0 ? cap_chains : 1));
	m->chain_held = calloc(cap_chains > 0 ? cap_chains : 1, sizeof(bool));
	m->chain_blocks = malloc(sizeof(int) * (size_t) (cap_chains > 0 ? cap_chains : 1) * T);
	if (!m->chain_pool || !m->chain_level || !m->chain_held || !m->chain_blocks)
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
	return !m->protect_rule || add_protect_chains(m);
}

/*
 * Rows and columns of the alignment chains (event form, like U); protect
 * chains count only the jobs the rule holds (milp_job_held).
 */
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

			if (p->jobs[col->job].pool != q || col->size < L ||
				(m->chain_held[c] && !milp_job_held(m, col->job)))
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
	/*
	 * Per service and step: its capacity entry, two in the demand row, six
	 * in the two churn rows and one in the churn budget row.
	 */
	m->max_nnz = 3 * m->n_x + 3 * (int) PT + 10 * (int) ST;
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

/*
 * m->svc_free_churn: what the churn rows leave uncharged, counted on a plan
 * of the pinned jobs alone (the cells every plan shares).
 */
static bool
model_free_churn(milp_model *m)
{
	const ga_problem *p = m->problem;
	int			T = m->T;
	ga_plan    *pins = ga_plan_create(p);

	m->svc_free_churn = calloc((size_t) (p->n_services > 0 ? p->n_services : 1) * T, sizeof(int));
	if (pins == NULL || m->svc_free_churn == NULL)
	{
		ga_plan_destroy(pins);
		return false;
	}
	for (int j = 0; j < p->n_jobs; j++)
		if (p->jobs[j].pinned)
			ga_plan_place_job(pins, p, j, p->jobs[j].pinned_start,
							  p->jobs[j].pinned_first_gpu, p->jobs[j].pinned_size);
	for (int s = 0; s < p->n_services; s++)
	{
		int		   *f = m->svc_free_churn + (size_t) s * T;

		f[0] = ga_service_held_kept(p, pins, s);
		for (int t = 1; t < T; t++)
			f[t] = ga_service_closing_gpus(p, pins, s, t);
	}
	ga_plan_destroy(pins);
	return true;
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
				/*
				 * c + sign*(y[t] - y[t-1]) >= 0, y[-1] being the held GPUs
				 * it may keep; a fall (sign 1) less the GPUs closing at t
				 */
				const int  *f = m->svc_free_churn + (size_t) s * T;
				double		rhs = t == 0 ? sign * f[0] : (sign > 0 ? -f[t] : 0);
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
												last->start + ga_job_duration(&p->jobs[j], p->jobs[j].pool, last->size)));
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
build_model(milp_model *m, const ga_problem *p, size_t max_x, bool protect_rule,
			ga_error *err)
{
	ga_status	rc;

	memset(m, 0, sizeof(*m));
	m->protect_rule = protect_rule;
	for (int j = 0; j < p->n_jobs; j++)
		if (p->jobs[j].n_alt_pools > 0)
			return ga_error_set(err, GA_EINVAL,
								"job \"%s\" names %d pools: the MILP plans each job on one pool (fix them with ga_problem_fix_pools)",
								p->jobs[j].name, ga_job_n_pools(&p->jobs[j]));
	m->problem = p;
	m->T = p->params.n_steps;
	if (!model_fixed_part(m))
		return ga_error_set(err, GA_ENOMEM, "out of memory building the MILP");
	if ((rc = model_columns(m, max_x > 0 ? max_x : MAX_START_COLUMNS, err)) != GA_OK)
		return rc;
	if (!model_find_chains(m) || !model_alloc_arrays(m) || !model_free_churn(m))
		return ga_error_set(err, GA_ENOMEM, "out of memory building the MILP");
	model_batch_rows(m);
	model_capacity_and_service_rows(m);
	model_chain_rows(m);
	model_trivial_bound(m);
	return GA_OK;
}

ga_status
milp_model_build_limited(milp_model *m, const ga_problem *p, size_t max_x,
						 ga_error *err)
{
	return build_model(m, p, max_x, false, err);
}

ga_status
milp_model_build(milp_model *m, const ga_problem *p, ga_error *err)
{
	return build_model(m, p, 0, false, err);
}

ga_status
milp_model_build_protected(milp_model *m, const ga_problem *p, ga_error *err)
{
	return build_model(m, p, 0, true, err);
}

/* Column index (0-based x index) of job j at size/start, or -1. */
int
milp_find_start_col(const milp_model *m, int j, int size, int start)
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
double
milp_lagrangian_bound(const milp_model *m, double *pi)
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
