/*
 * block_model_internal.h — what the block-level model's files share, and
 * nothing outside them includes: the model in plain arrays, built by
 * block_model.c (which also solves a neighbourhood with it) and relaxed
 * for the bound by block_bound.c.  The public interface is block_model.h.
 */
#ifndef GPUALLOC_BLOCK_MODEL_INTERNAL_H
#define GPUALLOC_BLOCK_MODEL_INTERNAL_H

#include "solve/block_model.h"
#include "model/tenant_quota.h"
#include "model/terminal.h"

#include <glpk.h>
#include <stdbool.h>

typedef struct bm_var
{
	char		kind;			/* 'x', 'z', 'f' or 'u' */
	int			a;				/* x: job; z, f, u: service */
	int			b;				/* x: size; z, f: GPU */
	int			c;				/* x: first GPU; z, f, u: step */
	int			d;				/* x: start */
} bm_var;

typedef struct block_model
{
	const ga_problem *p;
	const ga_neighbourhood *nb;
	const ga_plan *plan;
	int			T;
	int			t0;
	int			t1;
	int			g0;
	int			g1;
	ga_plan    *resid;			/* the plan without the freed jobs and the
								 * services' cells of the range */

	int			n_vars;
	int			cap_vars;
	bm_var	   *var;			/* [cap_vars + 1], 1-based */
	double	   *obj;
	double	   *hi;
	int			n_x;

	int			n_rows;
	int			cap_rows;
	double	   *row_lo;			/* [cap_rows + 1], 1-based */
	double	   *row_hi;

	int			nnz;
	int			cap_nnz;
	int		   *ia;				/* [cap_nnz + 1], 1-based */
	int		   *ja;
	double	   *ar;

	int		   *cell_row;		/* [(g1-g0) * (T-t0)]: row of a cell, 0 none */
	int		   *protect_row;	/* [2 * T] */
	int		   *protect_cap;	/* [2 * T]: room left by the rest */
	int		   *tail_from;		/* [g1 - g0]: a pinned job's lengthened run */
	int		   *tail_to;		/* past its estimated end, [from, to) */
	int		   *limit_row;		/* [T] scratch per tenant */
	int		   *zcol;			/* [n_services * (g1-g0) * (t1-t0)] */
	ga_quota   *quota;			/* tenant quotas, NULL when the pool has none */
	int		   *quota_use;		/* the rest's usage of them */
	ga_terminal *tm;			/* the terminal charge of the problem */
	int		   *held_after;		/* [tm->steps] the rest's usable GPUs past
								 * the horizon in the pool */
	bool		relaxed;		/* for the bound: legal rules only (no
								 * protect rule, windows over the estimated
								 * run, no quota admission) */
	bool		protect_bound;	/* with relaxed: keep the protect rule's
								 * two tiers for the jobs it holds to every
								 * service of the pool (a relaxation of the
								 * planners' rule, block_bound.c) */
	bool		protect;		/* the protect rule has rows */
	bool		oom;
} block_model;

/*
 * Build the model of m->nb over m->plan (the caller sets p, nb, plan, T,
 * the ranges t0..t1 and g0..g1, and relaxed); GA_ENOMEM leaves it to be
 * freed all the same.
 */
ga_status	block_model_build(block_model *m, ga_error *err);
void		block_model_free(block_model *m);

/*
 * m->plan as a point of the model, in x [n_vars + 1]: its freed jobs'
 * starts, its services' cells, and the flips, shortfalls and terminal
 * GPUs they imply.  False when the point breaks a row: the plan is not
 * one the model holds.
 */
bool		block_model_point_of_plan(const block_model *m, double *x);

/* Load the model into an empty GLPK problem, maximising. */
void		block_model_load(const block_model *m, glp_prob *lp);

/*
 * Branch and bound's settings on a model whose LP is solved: quiet, no
 * presolve, clique and cover cuts, the callback, until t_end.
 */
void		block_model_iocp(glp_iocp *iocp, double t_end,
							 void (*callback) (glp_tree *, void *), void *info);

/* Milliseconds left until t_end (ga_now_ms) as a GLPK time limit: 1 to 1e9. */
int			block_model_ms_left(double t_end);

/*
 * Nonzeros of a block model per millisecond of the time it may take.
 * Loading the model into GLPK, scaling it and the first basis come before
 * the simplex, and GLPK's time limit stops none of them; their cost grows
 * faster than the nonzeros (scaling makes passes over the matrix).  A
 * window of 406,904 nonzeros took 825 ms to reach the simplex on 2 cores,
 * against a limit of 12 ms.  Over the 24,989 neighbourhoods that full mode
 * built in four of the simulator's scenarios (01, 06, 10 and 14 at
 * --full-ms 300), no model within this rate took more than 43 % of its
 * neighbourhood's time to reach the simplex, and 9 % were beyond it; of
 * those, most had reached it with 1 ms or less of their limit left.
 */
#define BLOCK_SETUP_NONZEROS_PER_MS 1000.0

/* Whether a model of nnz nonzeros can be set up within ms milliseconds. */
bool		block_model_fits(long nnz, double ms);

#endif
