/*
 * lns.c — full mode's large-neighbourhood search (lns.h).
 *
 * Which jobs a neighbourhood may free: jobs that are not pinned, have no
 * predecessor and are nobody's predecessor (their starts tie other jobs'
 * steps, which the block model does not see), on their one pool.
 *
 * The sizes bound the work of one neighbourhood, not its value: they were
 * set so that a neighbourhood builds and solves in tens of milliseconds
 * (the model's nonzeros are what building, loading and the simplex cost),
 * not searched against any benchmark's objective.
 */
#include "solve/lns.h"
#include "solve/block_model.h"
#include "model/protect_horizon.h"
#include "model/validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WHOLE_SIZE 400000
#define WINDOW_SIZE 60000
#define MAX_WAITING 12
#define MIN_ITERATION_MS 20.0
#define MAX_EMPTY_TRIES 64

/*
 * Share of a neighbourhood's time given to GLPK: building the model, the
 * incumbent's check and GLPK's own set-up run outside its limit.
 */
#define GLPK_SHARE 0.6

typedef struct lns_state
{
	const ga_problem *p;
	const ga_solve_options *options;
	ga_plan   **best;
	int			from_step;		/* first step a neighbourhood may change */
	double		t_end;
	double		iteration_ms;	/* a tenth of the search's time */
	ga_lns_stats *stats;
	const int  *claim_start;	/* [n_jobs] or NULL */
	bool	   *eligible;		/* [n_jobs] */
	bool	   *freed;			/* [n_jobs] scratch */
	int		   *waiting;		/* [MAX_WAITING] scratch */
	bool	   *pool_done;		/* [n_pools] solved outright */
	uint64_t	rng;
} lns_state;

static uint64_t
next_random(lns_state *st)
{
	/* xorshift64: a fixed sequence, so the neighbourhoods do not vary */
	st->rng ^= st->rng << 13;
	st->rng ^= st->rng >> 7;
	st->rng ^= st->rng << 17;
	return st->rng;
}

static int
random_below(lns_state *st, int n)
{
	return n > 0 ? (int) (next_random(st) % (uint64_t) n) : 0;
}

static bool
cancelled(const lns_state *st)
{
	return st->options != NULL && st->options->cancel != NULL &&
		st->options->cancel(st->options->cancel_arg);
}

static void
mark_eligible(lns_state *st)
{
	const ga_problem *p = st->p;
	const ga_plan *plan = *st->best;

	for (int j = 0; j < p->n_jobs; j++)
		st->eligible[j] = !p->jobs[j].pinned && p->jobs[j].n_preds == 0 &&
			p->jobs[j].n_alt_pools == 0 &&
			!(plan->job_size[j] > 0 && plan->job_start[j] < st->from_step) &&
			!(st->claim_start != NULL && st->claim_start[j] >= 0);
	for (int j = 0; j < p->n_jobs; j++)
		for (int k = 0; k < p->jobs[j].n_preds; k++)
			st->eligible[p->jobs[j].preds[k]] = false;
}

/* Try one neighbourhood; keep its plan when legal and better. */
static ga_status
try_neighbourhood(lns_state *st, const ga_neighbourhood *nb, long max_size,
				  double ms, bool *optimal, ga_error *err)
{
	double		left = st->t_end - ga_now_ms();
	double		budget = fmin(left, ms) * GLPK_SHARE;
	ga_block_result res;
	ga_plan    *cand = NULL;
	ga_status	rc;
	ga_error	verr;
	bool		better;

	*optimal = false;
	if (left < MIN_ITERATION_MS)
		return GA_OK;			/* the deadline came while picking it */
	if (cancelled(st))
		return ga_error_set(err, GA_ECANCEL, "the solve was cancelled");
	rc = ga_block_resolve(st->p, *st->best, nb, budget, max_size, st->options,
						  &cand, &res, err);
	if (rc != GA_OK || cand == NULL)
		return rc;
	st->stats->neighbourhoods++;
	*optimal = res.optimal;
	if (ga_validate(st->p, cand, &verr) != GA_OK)
	{
		st->stats->rejected++;
		ga_plan_destroy(cand);
		return GA_OK;
	}
	cand->objective = ga_plan_objective(st->p, cand);
	better = cand->objective > (*st->best)->objective + 1e-9 * fmax(1, fabs((*st->best)->objective));
	if (better && !ga_plan_protects_past_horizon(st->p, cand))
	{
		st->stats->past_refused++;
		better = false;
	}
	if (better)
	{
		cand->mode = (*st->best)->mode;
		ga_plan_destroy(*st->best);
		*st->best = cand;
		st->stats->improvements++;
		return GA_OK;
	}
	ga_plan_destroy(cand);
	return GA_OK;
}

/* The whole pool at once, when its model is small enough. */
static ga_status
try_whole_pool(lns_state *st, int q, ga_error *err)
{
	const ga_pool *pool = &st->p->pools[q];
	ga_neighbourhood nb = {q, pool->first_gpu, pool->n_gpus, st->from_step,
	st->p->params.n_steps, st->freed};
	bool		optimal;
	ga_status	rc;

	for (int j = 0; j < st->p->n_jobs; j++)
		st->freed[j] = st->eligible[j] && st->p->jobs[j].pool == q;
	if (ga_block_size_estimate(st->p, &nb) > WHOLE_SIZE)
		return GA_OK;
	rc = try_neighbourhood(st, &nb, WHOLE_SIZE, (st->t_end - ga_now_ms()) / 2, &optimal, err);
	if (rc == GA_OK && optimal)
	{
		st->pool_done[q] = true;
		st->stats->pools_outright++;
	}
	return rc;
}

static int
largest_size(const lns_state *st, int q)
{
	int			largest = 1;

	for (int j = 0; j < st->p->n_jobs; j++)
		if (st->eligible[j] && st->p->jobs[j].pool == q && st->p->jobs[j].gpus_max > largest)
			largest = st->p->jobs[j].gpus_max;
	return largest;
}

/*
 * The most valuable waiting jobs of pool q that could start before
 * `before`: at most MAX_WAITING, highest priority first, earlier jobs first
 * among equals.  Kept as a short sorted list while the queue is scanned
 * once, since the queue may hold tens of thousands of jobs.
 */
static int
collect_waiting(lns_state *st, int q, int before)
{
	const ga_problem *p = st->p;
	const ga_plan *plan = *st->best;
	int			n = 0;

	for (int j = 0; j < p->n_jobs; j++)
	{
		int			k;

		if (!st->eligible[j] || p->jobs[j].pool != q || plan->job_size[j] > 0 ||
			p->jobs[j].release_step >= before)
			continue;
		if (n == MAX_WAITING && !(p->jobs[j].priority > p->jobs[st->waiting[n - 1]].priority))
			continue;			/* no better than the last of a full list */
		k = n < MAX_WAITING ? n++ : n - 1;
		for (; k > 0 && p->jobs[j].priority > p->jobs[st->waiting[k - 1]].priority; k--)
			st->waiting[k] = st->waiting[k - 1];
		st->waiting[k] = j;
	}
	return n;
}

/*
 * A random window of pool q: an aligned range of GPUs twice the largest
 * job (at least 16), a range of 6 to 24 steps, the jobs starting inside
 * both and the most valuable waiting jobs; shrunk until its model is small.
 * False when it frees nothing and the pool has no service to move.
 */
static bool
pick_window(lns_state *st, int q, ga_neighbourhood *nb)
{
	const ga_problem *p = st->p;
	const ga_pool *pool = &p->pools[q];
	const ga_plan *plan = *st->best;
	int			T = p->params.n_steps - st->from_step;
	int			width = 16;
	int			steps = 6 << random_below(st, 3);
	int			n_wait;
	int			n_free = 0;
	int			rel;

	while (width < 2 * largest_size(st, q))
		width *= 2;
	if (width > pool->n_gpus)
		width = pool->n_gpus;
	if (steps > T)
		steps = T;
	rel = pool->n_gpus > width ? width * random_below(st, (pool->n_gpus + width - 1) / width) : 0;
	nb->pool = q;
	nb->first_gpu = pool->first_gpu + rel;
	nb->n_gpus = rel + width <= pool->n_gpus ? width : pool->n_gpus - rel;
	nb->from_step = st->from_step + random_below(st, T - steps + 1);
	nb->to_step = nb->from_step + steps;
	nb->freed = st->freed;
	n_wait = collect_waiting(st, q, nb->to_step);
	for (int j = 0; j < p->n_jobs; j++)
	{
		int			first = plan->job_first_gpu[j];

		st->freed[j] = st->eligible[j] && plan->job_size[j] > 0 &&
			first >= nb->first_gpu && first + plan->job_size[j] <= nb->first_gpu + nb->n_gpus &&
			plan->job_start[j] >= nb->from_step && plan->job_start[j] < nb->to_step;
		n_free += st->freed[j];
	}
	for (int i = 0; i < n_wait; i++)
		st->freed[st->waiting[i]] = true;
	while (n_wait > 0 && ga_block_size_estimate(p, nb) > WINDOW_SIZE)
		st->freed[st->waiting[--n_wait]] = false;
	while (nb->to_step - nb->from_step > 2 && ga_block_size_estimate(p, nb) > WINDOW_SIZE)
		nb->to_step = nb->from_step + (nb->to_step - nb->from_step) / 2;
	if (n_free + n_wait > 0)
		return true;
	for (int s = 0; s < p->n_services; s++)
		if (p->services[s].pool == q)
			return true;
	return false;
}

static bool
state_init(lns_state *st, const ga_problem *p)
{
	int			nj = p->n_jobs > 0 ? p->n_jobs : 1;

	st->eligible = calloc(nj, sizeof(bool));
	st->freed = calloc(nj, sizeof(bool));
	st->waiting = calloc(MAX_WAITING, sizeof(int));
	st->pool_done = calloc(p->n_pools > 0 ? p->n_pools : 1, sizeof(bool));
	st->rng = 0x9E3779B97F4A7C15ull;
	return st->eligible && st->freed && st->waiting && st->pool_done;
}

static void
state_free(lns_state *st)
{
	free(st->eligible);
	free(st->freed);
	free(st->waiting);
	free(st->pool_done);
}

static ga_status
search(lns_state *st, ga_error *err)
{
	const ga_problem *p = st->p;
	int			empty = 0;
	ga_status	rc = GA_OK;

	for (int q = 0; rc == GA_OK && q < p->n_pools; q++)
		if (st->t_end - ga_now_ms() > MIN_ITERATION_MS)
			rc = try_whole_pool(st, q, err);
	while (rc == GA_OK && empty < MAX_EMPTY_TRIES &&
		   st->t_end - ga_now_ms() > MIN_ITERATION_MS)
	{
		int			q = random_below(st, p->n_pools);
		ga_neighbourhood nb;
		bool		optimal;

		if (st->pool_done[q] || !pick_window(st, q, &nb))
		{
			empty++;
			continue;
		}
		empty = 0;
		rc = try_neighbourhood(st, &nb, WINDOW_SIZE, fmax(MIN_ITERATION_MS, st->iteration_ms),
							   &optimal, err);
		if (rc == GA_EINVAL)
			rc = GA_OK;			/* too large after all: try another */
	}
	return rc;
}

ga_status
ga_lns_improve(const ga_problem *problem, ga_plan **best, int from_step,
			   const int *claim_start, double t_end, const ga_solve_options *options,
			   ga_lns_stats *stats, ga_error *err)
{
	lns_state	st = {0};
	ga_lns_stats local = {0};
	ga_status	rc;

	st.p = problem;
	st.options = options;
	st.best = best;
	st.from_step = from_step > 0 ? from_step : 0;
	st.claim_start = claim_start;
	st.t_end = t_end;
	st.iteration_ms = (t_end - ga_now_ms()) / 10;
	st.stats = stats != NULL ? stats : &local;
	memset(st.stats, 0, sizeof(*st.stats));
	if (!state_init(&st, problem))
	{
		state_free(&st);
		return ga_error_set(err, GA_ENOMEM, "out of memory in the neighbourhood search");
	}
	mark_eligible(&st);
	(*best)->objective = ga_plan_objective(problem, *best);
	rc = st.from_step < problem->params.n_steps ? search(&st, err) : GA_OK;
	state_free(&st);
	return rc;
}
