/*
 * milp_internal.h — what the files of full mode share, and nothing outside
 * them includes: the model's arrays (milp_model.c builds them), the
 * occupancy bitsets (milp_occupancy.c), the mapping of an aggregate schedule
 * onto GPU blocks (milp_map.c), all used by the GLPK search (milp_search.c).
 * The public interface is milp.h and solve.h.
 */
#ifndef GPUALLOC_MILP_INTERNAL_H
#define GPUALLOC_MILP_INTERNAL_H

#include "solve/milp.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Powers of two representable in an int: 1 .. 2^30. */
#define MAX_SIZES 31

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

/* Allocate an empty map of n_gpus x n_steps cells; false when out of memory. */
bool		milp_occ_init(occ_map *o, int n_gpus, int n_steps);

/* Make dst a copy of src with its own bits; false when out of memory. */
bool		milp_occ_copy(occ_map *dst, const occ_map *src);

/* True when GPU g is free at every step of [a, b). */
bool		milp_occ_range_free(const occ_map *o, int g, int a, int b);

/* Mark GPU g taken at every step of [a, b). */
void		milp_occ_mark_range(occ_map *o, int g, int a, int b);

/* True when GPU g is free at step t. */
bool		milp_occ_free_at(const occ_map *o, int g, int t);

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
	size_t		too_many_x;		/* start columns wanted when beyond the
								 * limit (the build refused), else 0 */
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
	bool	   *chain_held;		/* counts only the jobs the protect rule
								 * holds (a protect chain: level 1) */
	bool		protect_rule;	/* built with protect chains: a relaxation
								 * of the planners' plans, not of every
								 * legal one */
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
	 * Handovers a service cannot be charged for, [n_services*T]: at t = 0
	 * the held GPUs it may keep (ga_service_forced_handovers subtracted,
	 * the y[-1] of its churn rows), after it the GPUs closing to it at t
	 * (ga_service_closing_gpus), by which the row of a fall is relaxed.
	 */
	int		   *svc_free_churn;

	/*
	 * Service floor of the mapping [n_services*T], or NULL: the demand the
	 * warm start meets, min(demand, its GPUs), per service and step.
	 */
	int		   *svc_floor;
} milp_model;

/*
 * 1-based GLPK column numbers of y[s,t], u[s,t], c[s,t], U[p,t] and of the
 * alignment chain variable V[chain,t].
 */
static inline int
y_col(const milp_model *m, int s, int t)
{
	return m->y0 + s * m->T + t;
}

static inline int
u_col(const milp_model *m, int s, int t)
{
	return m->u0 + s * m->T + t;
}

static inline int
c_col(const milp_model *m, int s, int t)
{
	return m->c0 + s * m->T + t;
}

static inline int
U_col(const milp_model *m, int p, int t)
{
	return m->U0 + p * m->T + t;
}

static inline int
V_col(const milp_model *m, int chain, int t)
{
	return m->V0 + chain * m->T + t;
}

/*
 * Build the model of problem p into m (milp_model.c); on error m holds what
 * was allocated so far, and milp_model_free releases it either way.
 */
ga_status	milp_model_build(milp_model *m, const ga_problem *p, ga_error *err);

/*
 * The same, refusing a model of more than max_x start columns (0: the
 * default limit of milp_model.c) with GA_EINVAL and m->too_many_x set.
 */
ga_status	milp_model_build_limited(milp_model *m, const ga_problem *p,
									 size_t max_x, ga_error *err);

/*
 * The model of the plans that keep the protect rule's first tier
 * (milp_model.c, protect chains): for ga_milp_protected_bound and its export.
 */
ga_status	milp_model_build_protected(milp_model *m, const ga_problem *p,
									   ga_error *err);

struct glp_prob;
struct glp_tree;

/*
 * Write the maximising problem lp to path in free MPS as the minimisation
 * of its negated objective without its constant (MPS carries no sense, and
 * readers differ on a constant), without the columns that have no
 * coefficient anywhere; lp is changed.  False when writing fails.
 */
bool		milp_write_negated_mps(struct glp_prob *lp, const char *path);

/*
 * The bound a GLPK search tree proves so far on its maximising problem: the
 * best active node's local bound, never below the incumbent (a node whose
 * bound fell below a new incumbent may not be pruned yet).  False while no
 * node is active.
 */
bool		milp_tree_bound(struct glp_tree *tree, double *bound);

/* Whether the protect rule holds job j to every service of its pool. */
bool		milp_job_held(const milp_model *m, int j);

/* Release everything milp_model_build allocated and zero m. */
void		milp_model_free(milp_model *m);

/* Load m into the empty GLPK problem lp (milp_search.c). */
void		milp_load_glpk(struct glp_prob *lp, const milp_model *m);

/*
 * Value of job started at `start` on `size` GPUs: its in-horizon cells and
 * its tail past the horizon.
 */
double		milp_start_value(const milp_model *m, const ga_job *job, int size,
							 int start);

/* Column index (0-based x index) of job j at size/start, or -1. */
int			milp_find_start_col(const milp_model *m, int j, int size, int start);

/*
 * Upper bound of the model from row multipliers pi (1-based, [n_rows+1]),
 * valid for any pi; multipliers that face an infinite row bound are zeroed
 * in place.  HUGE_VAL when out of memory.
 */
double		milp_lagrangian_bound(const milp_model *m, double *pi);

/*
 * Turn target starts/sizes per job (-1 = none) and service counts
 * [n_services*T] into a legal plan (milp_map.c), or NULL when out of memory
 * or when the service counts cannot be honoured.
 */
ga_plan    *milp_map_schedule(const milp_model *m, const int *tgt_start,
							  const int *tgt_size, const int *svc_count);

/* Service counts per step of a plan, [n_services*T]. */
void		milp_plan_service_counts(const ga_problem *p, const ga_plan *plan,
									 int *counts);

/*
 * Targets from a (possibly fractional) model solution x (1-based): each job
 * takes its heaviest start column when its total weight reaches threshold.
 */
void		milp_targets_from_solution(const milp_model *m, const double *x,
									   double threshold, int *tgt_start,
									   int *tgt_size);

/*
 * The model's column values x (1-based, [n_cols+1]) of a legal plan, so GLPK
 * can take it as its incumbent; false when the plan is not a point of the
 * model.
 */
bool		milp_plan_to_columns(const milp_model *m, const ga_plan *plan,
								 double *x);

#endif
