/*
 * milp_search.c — full mode's run of GLPK on the model (milp_model.c): the
 * warm start, the LP relaxation and its bound, branch and bound with its
 * callback, and the public entry points ga_solve_full_ex, ga_solve_full and
 * ga_solve_bound (milp.h, solve.h).
 *
 * Full mode: the fast plan is the first incumbent (handed to GLPK at the first
 * heuristic call); LP solutions at the root and at every 8th node are rounded
 * into plans by the mapping (milp_map.c), and so is GLPK's own incumbent at
 * the end of branch and bound (MIP_SHARE of the limit); the neighbourhood
 * search (lns.h) improves the best plan for the rest of the time; the best
 * legal plan wins, so full is never worse than fast.
 *
 * Every call runs GLPK once under the guard (glpk_guard.h), which releases
 * all of GLPK's memory before the call returns.
 */
#include "solve/milp_internal.h"
#include "solve/glpk_guard.h"
#include "solve/chain.h"
#include "solve/headroom.h"
#include "solve/lns.h"
#include "solve/block_model.h"
#include "model/validate.h"
#include "model/pool_choice.h"
#include "model/first_claim.h"
#include "model/protect_horizon.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Share of the time limit left for mapping and cleanup after GLPK. */
#define RESERVE_SHARE 0.08

/*
 * Share of the time limit after which branch and bound on the aggregate
 * model stops and the neighbourhood search (lns.h) takes the rest: the
 * aggregate model gives the bound, its solutions rarely beat the fast plan
 * once mapped onto blocks, and the block-level neighbourhoods do.
 */
#define MIP_SHARE 0.35

/*
 * Share of the time limit for the block-level LP bound (block_model.h),
 * tried on problems whose pools' block models have at most
 * BLOCK_BOUND_SIZE nonzeros (building the model is outside GLPK's limit,
 * so its size is capped); its LP is tighter than the aggregate model's
 * wherever blocks, not GPU counts, are what binds.
 */
#define BLOCK_BOUND_SHARE 0.15
#define BLOCK_BOUND_SIZE 400000

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
	double		mip_end;		/* branch and bound stops here; the
								 * neighbourhood search has the rest */
	double		reserve_ms;		/* kept for mapping after GLPK */

	ga_plan    *best;			/* best legal plan so far (owned) */
	const char *best_source;
	int		   *svc_count;		/* service counts of best [S*T] */
	int		   *tgt_start;		/* scratch [n_jobs] */
	int		   *tgt_size;
	int		   *claim_start;	/* the fast plan's first claims [n_jobs]
								 * (model/first_claim.h); all -1 until known */
	int		   *claim_size;		/* the fast plan's size of each claiming job */
	double	   *xread;			/* [n_cols+1] solution read from GLPK */
	double	   *xoffer;			/* [n_cols+1] incumbent handed to GLPK */
	bool		offered;		/* best has been handed to GLPK */
	int			heur_calls;
	int			improvements;
	int			rejected;		/* mapped plans the validator refused */
	int			claims_refused; /* plans that broke a first claim */
	int			past_refused;	/* plans that broke the protect rule past
								 * the horizon */
	int			lns_neighbourhoods; /* solved by the neighbourhood search */

	bool		cancelled;
	bool		lp_optimal;
	bool		mip_optimal;
	double		lp_bound;
	double		mip_bound;		/* MILP optimum when proved, else HUGE_VAL */
	double		tree_bound;		/* best bound of the search tree, HUGE_VAL
								 * until known */
	double		block_bound;	/* the block-level LP's bound, HUGE_VAL
								 * when not computed */
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
 * legality).  A plan that starts a job later than the fast plan's first
 * claim on its tenant's guarantee, or whose runs break the protect rule
 * past the horizon (the fast plan keeps it), is not kept, whatever it is
 * worth.
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
	if (run->best != NULL && !ga_keeps_first_claims(run->problem, plan, run->claim_start))
	{
		run->claims_refused++;
		ga_plan_destroy(plan);
		return false;
	}
	if (run->best != NULL && !(plan->objective > run->best->objective + 1e-9))
	{
		ga_plan_destroy(plan);
		return false;
	}
	if (run->best != NULL && !ga_plan_protects_past_horizon(run->problem, plan))
	{
		run->past_refused++;
		ga_plan_destroy(plan);
		return false;
	}
	if (run->best != NULL)
		run->improvements++;
	ga_plan_destroy(run->best);
	run->best = plan;
	run->best_source = source;
	run->offered = false;
	milp_plan_service_counts(run->problem, plan, run->svc_count);
	return true;
}

/*
 * Targets from the solution in run->xread at the threshold, keeping the
 * fast plan's first claims: a claiming job is due no later than its claim
 * (at its fast size when the solution leaves it out), so the mapping
 * places it then, and the plan is not refused for starting it later.
 */
static void
read_targets(milp_run *run, double threshold)
{
	milp_targets_from_solution(run->model, run->xread, threshold, run->tgt_start, run->tgt_size);
	for (int j = 0; j < run->problem->n_jobs; j++)
		if (run->claim_start[j] >= 0 &&
			(run->tgt_start[j] < 0 || run->tgt_start[j] > run->claim_start[j]))
		{
			run->tgt_start[j] = run->claim_start[j];
			run->tgt_size[j] = run->claim_size[j];
		}
}

/* LP-guided placements from a solution in run->xread. */
static void
round_solution(milp_run *run, const char *source)
{
	static const double thresholds[] = {0.5, 0.2};

	for (size_t i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++)
	{
		read_targets(run, thresholds[i]);
		consider_plan(run, milp_map_schedule(run->model, run->tgt_start, run->tgt_size,
										run->svc_count), source);
	}
}

static void
offer_best(milp_run *run, glp_tree *tree)
{
	if (run->offered || run->best == NULL)
		return;
	run->offered = true;
	if (milp_plan_to_columns(run->model, run->best, run->xoffer))
		glp_ios_heur_sol(tree, run->xoffer);
}

/* See milp_internal.h. */
bool
milp_tree_bound(glp_tree *tree, double *bound)
{
	int			best = glp_ios_best_node(tree);
	glp_prob   *lp = glp_ios_get_prob(tree);

	if (best == 0)
		return false;
	*bound = glp_ios_node_bound(tree, best);
	if (glp_mip_status(lp) == GLP_FEAS || glp_mip_status(lp) == GLP_OPT)
		*bound = fmax(*bound, glp_mip_obj_val(lp));
	return true;
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
	double		bound;

	if (!milp_tree_bound(tree, &bound))
		return;
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

void
milp_load_glpk(glp_prob *lp, const milp_model *m)
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

/*
 * Scaling and the starting basis run before the simplex and outside its
 * time limit.  GLPK's automatic scaling and its advanced (crash) basis pay
 * off on small models but grow faster than the model: at 576,000 columns
 * they took 18 s of a 10 s limit.  Above LARGE_LP_COLUMNS a single
 * equilibration pass and the standard basis keep the set-up linear in the
 * model's size, so the limit holds.
 */
#define LARGE_LP_COLUMNS 50000

static void
prepare_relaxation(glp_prob *lp)
{
	if (glp_get_num_cols(lp) > LARGE_LP_COLUMNS)
	{
		glp_scale_prob(lp, GLP_SF_EQ);
		glp_std_basis(lp);
	}
	else
	{
		glp_scale_prob(lp, GLP_SF_AUTO);
		glp_adv_basis(lp, 0);
	}
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

	/*
	 * What follows the simplex (reading duals, the Lagrangian over every
	 * nonzero, mapping, headroom, freeing GLPK) grows with the model as the
	 * set-up before it did, so keep at least the set-up's time in reserve.
	 */
	if (run->reserve_ms < t0 - run->t_start)
		run->reserve_ms = t0 - run->t_start;
	glp_init_smcp(&smcp);
	smcp.msg_lev = GLP_MSG_OFF;
	smcp.presolve = GLP_OFF;
	smcp.tm_lim = glpk_time_limit(run);
	prepare_relaxation(run->lp);
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
		double		lag = milp_lagrangian_bound(m, pi);

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
	if (iocp.tm_lim > run->mip_end - t0)
		iocp.tm_lim = run->mip_end - t0 > 1 ? (int) (run->mip_end - t0) : 1;
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
		read_targets(run, 0.5);
		for (int s = 0; s < run->problem->n_services; s++)
			for (int t = 0; t < run->model->T; t++)
				run->svc_count[s * run->model->T + t] =
					(int) lround(run->xread[y_col(run->model, s, t)]);
		consider_plan(run, milp_map_schedule(run->model, run->tgt_start, run->tgt_size,
										run->svc_count), "milp");

		/*
		 * The model counts churn, not which GPUs move, so its service counts
		 * can ask for moves no physical layout allows; the jobs are also
		 * tried against the service counts of the best plan so far.
		 */
		milp_plan_service_counts(run->problem, run->best, run->svc_count);
		consider_plan(run, milp_map_schedule(run->model, run->tgt_start, run->tgt_size,
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
	milp_load_glpk(run->lp, run->model);
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

	return ga_glpk_solve_guarded(&run->lp, run->message, sizeof(run->message),
								 glpk_body_guarded, &arg, "the MILP", err);
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
	free(run->claim_start);
	free(run->claim_size);
	free(run->xread);
	free(run->xoffer);
}

static bool
run_alloc(milp_run *run)
{
	const ga_problem *p = run->problem;
	int			nj = p->n_jobs > 0 ? p->n_jobs : 1;
	size_t		ns = (size_t) (p->n_services > 0 ? p->n_services : 1) * p->params.n_steps;
	int			nc = run->model != NULL ? run->model->n_cols + 1 : 1;

	run->svc_count = calloc(ns, sizeof(int));
	run->tgt_start = calloc(nj, sizeof(int));
	run->tgt_size = calloc(nj, sizeof(int));
	run->claim_start = malloc(sizeof(int) * nj);
	run->claim_size = calloc(nj, sizeof(int));
	for (int j = 0; run->claim_start != NULL && j < nj; j++)
		run->claim_start[j] = -1;
	run->xread = calloc(nc, sizeof(double));
	run->xoffer = calloc(nc, sizeof(double));
	return run->svc_count && run->tgt_start && run->tgt_size && run->claim_start &&
		run->claim_size && 		run->xread && run->xoffer;
}

static void
fill_stats(ga_milp_stats *stats, const milp_run *run, const milp_model *m)
{
	if (stats == NULL)
		return;
	stats->model_too_large = run->model == NULL;
	if (run->model != NULL)
	{
		stats->n_columns = m->n_cols;
		stats->n_rows = m->n_rows;
		stats->n_nonzeros = m->nnz;
		stats->n_start_columns = m->n_x;
	}
	stats->lp_bound = run->lp_bound;
	stats->lp_optimal = run->lp_optimal;
	stats->mip_optimal = run->mip_optimal;
	stats->improvements = run->improvements;
	stats->rejected = run->rejected;
	stats->claims_refused = run->claims_refused;
	stats->past_refused = run->past_refused;
	stats->lns_neighbourhoods = run->lns_neighbourhoods;
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
	milp_plan_service_counts(p, fast, m->svc_floor);
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
	if ((rc = ga_first_claims(run->problem, run->best, run->claim_start, err)) != GA_OK)
		return rc;
	for (int j = 0; j < run->problem->n_jobs; j++)
		run->claim_size[j] = run->best->job_size[j];
	if (run->model == NULL)
		return GA_OK;			/* no model to re-pack the plan with */
	set_service_floor(run->model, run->problem, run->best);
	for (int j = 0; j < run->problem->n_jobs; j++)
	{
		run->tgt_start[j] = run->best->job_start[j];
		run->tgt_size[j] = run->best->job_size[j];
	}
	consider_plan(run, milp_map_schedule(run->model, run->tgt_start, run->tgt_size,
									run->svc_count), "fast");
	return GA_OK;
}

static void
finish_plan(ga_plan *plan, const ga_problem *problem, const milp_run *run)
{
	double		bound = fmin(fmin(run->lp_bound, run->block_bound),
							 fmin(run->mip_bound, run->tree_bound));

	plan->mode = "full";
	plan->objective = ga_plan_objective(problem, plan);

	/* the plan itself is legal, so the optimum is at least its value */
	if (bound < plan->objective)
		bound = plan->objective;
	plan->bound = isfinite(bound) ? bound : NAN;	/* none proved */
	plan->gap = (plan->bound - plan->objective) / fmax(fabs(plan->bound), 1e-9);
	plan->solve_ms = ga_now_ms() - run->t_start;
}

/*
 * The block-level LP bound where the pools' models are small enough; a
 * model too large or a GLPK failure only leaves the aggregate bound.
 */
static void
block_level_bound(milp_run *run, bool protect_rule)
{
	ga_block_bound_spec spec = {.time_limit_ms = (run->t_end - run->t_start) * BLOCK_BOUND_SHARE,
	.max_size = BLOCK_BOUND_SIZE, .protect_rule = protect_rule};
	double		bound = HUGE_VAL;
	ga_error	err;

	if (ga_block_bound_with(run->problem, &spec, &bound, &err) == GA_OK)
		run->block_bound = bound + 1e-9 * (fabs(bound) + 1);
}

/*
 * The rest of the time: the neighbourhood search from the best plan, on
 * the steps after the committed one.  Step 0 is the only step executors
 * act on and a start there is for good (no preemption), decided on
 * estimated durations and forecast demand; on the tuning scenarios a
 * search free to change it mostly changed nothing the simulator realised,
 * once gained 2 % of value and four times lost 0.3 to 17 % (docs/model.md,
 * Solve modes).  The later steps are provisional: there the exact model
 * sharpens the plan's promises (queue_plan's starts).
 */
#define SEARCH_FROM_STEP 1

static ga_status
neighbourhood_search(milp_run *run, ga_error *err)
{
	ga_lns_stats st;
	double		before = run->best->objective;
	ga_status	rc = ga_lns_improve(run->problem, &run->best, SEARCH_FROM_STEP,
									run->claim_start, run->t_end - run->reserve_ms,
									run->options, &st, err);

	run->lns_neighbourhoods = st.neighbourhoods;
	run->rejected += st.rejected;
	run->past_refused += st.past_refused;
	if (rc == GA_OK && run->best->objective > before)
	{
		run->improvements += st.improvements;
		run->best_source = "lns";
	}
	return rc;
}

typedef struct full_args
{
	const ga_solve_options *options;
	const ga_milp_settings *settings;
	ga_milp_stats *stats;
} full_args;

static ga_status
full_ready(const ga_problem *ready, void *arg, ga_plan **out, ga_error *err)
{
	full_args  *a = arg;

	return ga_solve_full_ex(ready, a->options, a->settings, out, a->stats, err);
}

/*
 * With dependencies: the MILP plans the ready jobs, the waiting ones are
 * placed after (solve/chain.h).  The waiting jobs may fit the fast plan's
 * grid better than the MILP's, so the fast plan of the whole is made too
 * and kept when it is worth more: full is never worse than fast.
 */
static ga_status
full_chained(const ga_problem *problem, const ga_solve_options *options,
			 const ga_milp_settings *settings, ga_plan **out,
			 ga_milp_stats *stats, ga_error *err)
{
	double		t0 = ga_now_ms();
	full_args	a = {options, settings, stats};
	ga_plan    *fast = NULL;
	ga_status	rc = ga_chain_solve(problem, full_ready, &a, out, err);

	if (rc == GA_OK)
		rc = ga_solve_fast(problem, options, &fast, err);
	if (rc == GA_OK && fast->objective > (*out)->objective)
	{
		fast->bound = isnan((*out)->bound) ? NAN : fmax((*out)->bound, fast->objective);
		fast->gap = (fast->bound - fast->objective) / fmax(fabs(fast->bound), 1e-9);
		ga_plan_destroy(*out);
		*out = fast;
		fast = NULL;
	}
	ga_plan_destroy(fast);
	if (rc != GA_OK)
	{
		ga_plan_destroy(*out);
		*out = NULL;
		return rc;
	}
	(*out)->mode = "full";
	(*out)->solve_ms = ga_now_ms() - t0;
	if (stats != NULL)
	{
		stats->bound = (*out)->bound;
		stats->total_ms = (*out)->solve_ms;
	}
	return GA_OK;
}

/*
 * Jobs of several pools: the fast plan chooses each one's pool and the
 * MILP plans the problem with those pools fixed (model/pool_choice.h); the
 * fast plan of the whole is kept when it is worth more, so full is never
 * worse than fast.  The fixed problem's bound does not bound the whole
 * (another choice of pools may be worth more), so the plan carries none.
 */
static ga_status
full_pool_choice(const ga_problem *problem, const ga_solve_options *options,
				 const ga_milp_settings *settings, ga_plan **out,
				 ga_milp_stats *stats, ga_error *err)
{
	double		t0 = ga_now_ms();
	ga_plan    *fast = NULL;
	ga_problem *fixed = NULL;
	ga_status	rc = ga_solve_fast(problem, options, &fast, err);

	if (rc == GA_OK)
		rc = ga_problem_fix_pools(problem, fast, &fixed, err);
	if (rc == GA_OK)
		rc = ga_solve_full_ex(fixed, options, settings, out, stats, err);
	ga_problem_destroy(fixed);
	if (rc == GA_OK && fast->objective > (*out)->objective)
	{
		ga_plan_destroy(*out);
		*out = fast;
		fast = NULL;
	}
	ga_plan_destroy(fast);
	if (rc != GA_OK)
		return rc;
	(*out)->mode = "full";
	(*out)->bound = NAN;
	(*out)->gap = NAN;
	(*out)->solve_ms = ga_now_ms() - t0;
	if (stats != NULL)
	{
		stats->bound = NAN;
		stats->total_ms = (*out)->solve_ms;
	}
	return GA_OK;
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
	if (ga_chain_needed(problem))
		return full_chained(problem, options, settings, out, stats, err);
	if (ga_problem_has_pool_choice(problem))
		return full_pool_choice(problem, options, settings, out, stats, err);
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
	run.mip_end = run.t_start + limit * MIP_SHARE;
	run.lp_bound = HUGE_VAL;
	run.mip_bound = HUGE_VAL;
	run.tree_bound = HUGE_VAL;
	run.block_bound = HUGE_VAL;
	run.best_source = "fast";

	rc = milp_model_build_limited(&model, problem,
								  settings != NULL && settings->max_start_columns > 0 ?
								  (size_t) settings->max_start_columns : 0, err);
	t_model = ga_now_ms() - run.t_start;
	if (rc == GA_EINVAL && model.too_many_x > 0)
	{
		/*
		 * The aggregate model would outgrow memory (milp_model.c): no LP
		 * bound and no branch and bound, but the neighbourhood search
		 * needs only the plan and small block-level models, so it takes
		 * the whole limit from the fast plan (a plan at least as good as
		 * fast's, with no bound unless the block-level LP gives one).
		 */
		run.model = NULL;
		ga_error_clear(err);
		rc = GA_OK;
	}
	if (rc == GA_OK && !run_alloc(&run))
		rc = ga_error_set(err, GA_ENOMEM, "out of memory in the MILP");
	if (rc == GA_OK)
		rc = warm_start(&run, limit, stats, err);
	if (rc == GA_OK && run.model != NULL && model.n_cols == 0)
	{
		/*
		 * Nothing to decide (no GPU, job or service): the warm start is the
		 * only plan, so it is optimal; GLPK refuses an empty model.
		 */
		run.mip_optimal = true;
		run.mip_bound = ga_plan_objective(problem, run.best);
	}
	else if (rc == GA_OK && run.model != NULL)
		rc = glpk_guarded(&run, true, err);
	if (rc == GA_OK)
	{
		block_level_bound(&run, false);
		rc = neighbourhood_search(&run, err);
	}
	if (rc == GA_OK && !ga_plan_add_headroom(problem, run.best))
		rc = ga_error_set(err, GA_ENOMEM, "out of memory in the MILP");
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
	milp_model_free(&model);
	return rc;
}

ga_status
ga_solve_full(const ga_problem *problem, const ga_solve_options *options,
			  ga_plan **out, ga_error *err)
{
	return ga_solve_full_ex(problem, options, NULL, out, NULL, err);
}

/*
 * The LP bound of the aggregate model (with protect chains when
 * protect_rule) and of the block-level models where they are small.
 */
static ga_status
model_bound(const ga_problem *problem, const ga_solve_options *options, bool protect_rule,
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

	rc = protect_rule ? milp_model_build_protected(&model, problem, err)
		: milp_model_build(&model, problem, err);
	if (rc == GA_OK && !run_alloc(&run))
		rc = ga_error_set(err, GA_ENOMEM, "out of memory in the MILP");
	if (rc == GA_OK && model.n_cols == 0)
		*bound = model.constant;	/* nothing to decide: the fixed part is all */
	else if (rc == GA_OK)
		rc = glpk_guarded(&run, false, err);
	if (rc == GA_OK && model.n_cols > 0)
	{
		run.block_bound = HUGE_VAL;
		block_level_bound(&run, protect_rule);
		*bound = fmin(run.lp_bound, run.block_bound);
	}
	run_free(&run);
	milp_model_free(&model);
	return rc;
}

ga_status
ga_solve_bound(const ga_problem *problem, const ga_solve_options *options,
			   double *bound, ga_error *err)
{
	return model_bound(problem, options, false, bound, err);
}

ga_status
ga_milp_protected_bound(const ga_problem *problem, const ga_solve_options *options,
						double *bound, ga_error *err)
{
	return model_bound(problem, options, true, bound, err);
}
