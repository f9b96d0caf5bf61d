/*
 * tenant_quota.h — tenants' quotas per pool (docs/model.md, Tenant quotas):
 * the policies a problem carries and the accounting the planners use to
 * keep every plan inside rules R9 and R10.
 *
 * Per pool q and step t, with u_i the GPUs tenant i's jobs hold there
 * (jobs of no tenant count as one more tenant without a policy), g_i, L_i,
 * b_i its guarantee, limit and borrow limit (0, none, 0 without a policy
 * or without a cohort) and F_q the pool's GPUs no tenant is guaranteed
 * (its size minus the guarantees):
 *
 *   R9   u_i <= L_i;
 *   R10  E(u) <= 0, where the excess E(u) is the GPUs tenants hold above
 *        their guarantees that neither F_q nor lawful borrowing covers:
 *          E(u) = sum_i max(0, u_i - g_i) - F_q
 *                 - sum_c min(sum_(i in c) min(max(0, u_i - g_i), b_i),
 *                             sum_(i in c) max(0, g_i - max(u_i, n_i))),
 *        c ranging over cohorts: a cohort lends its members' idle
 *        guarantees to its members only, each up to its borrow limit.
 *        n_i is tenant i's forecast need at the step (ga_tenant_need; 0
 *        without one): a guarantee is lendable only where neither the
 *        lender's planned work nor its forecast need claims it, so a job
 *        runs on borrowed GPUs only if it ends before the lender's
 *        forecast need for them begins.
 *
 * Jobs already running (pinned) are never preempted, so they are exempt as
 * in R6 and R8: with p_i the GPUs of tenant i's pinned jobs, the rules are
 * u_i <= max(L_i, p_i) and E(u) <= max(0, E(p)): new work never takes a
 * tenant above its limit nor adds to an excess the running jobs left.
 * Services are not tenants: they are held against batch work as a whole by
 * the protect rule, and take nothing from any guarantee here.
 */
#ifndef GPUALLOC_TENANT_QUOTA_H
#define GPUALLOC_TENANT_QUOTA_H

#include "model/problem.h"

/*
 * Give the problem its tenant policies (copied; replaces any before), at
 * most one per (tenant, pool).  Checked by ga_problem_finish
 * (ga_tenant_policies_check).  The one call a caller needs: build the
 * problem, set its jobs' tenants, set the policies, finish.
 */
ga_status	ga_problem_set_tenant_policies(ga_problem *problem,
										   const ga_tenant_policy *policies,
										   int n_policies, ga_error *err);

/*
 * Every policy's fields against their rules: tenant >= 0, a known pool,
 * guarantee >= 0, limit none or >= guarantee, borrow_limit >= 0, weight
 * finite and > 0, cohort >= -1, one policy per (tenant, pool), and a
 * pool's guarantees summing to no more than its GPUs.
 */
ga_status	ga_tenant_policies_check(const ga_problem *problem, ga_error *err);

/*
 * Give the problem its tenants' forecast needs (copied, each need's gpus
 * params.n_steps ints; replaces any before), at most one per (tenant,
 * pool).  Checked by ga_problem_finish (ga_tenant_needs_check): tenant >=
 * 0, a known pool, every step's GPUs >= 0, one per (tenant, pool).
 */
ga_status	ga_problem_set_tenant_needs(ga_problem *problem,
										const ga_tenant_need *needs,
										int n_needs, ga_error *err);
ga_status	ga_tenant_needs_check(const ga_problem *problem, ga_error *err);

/* Free the needs (ga_problem_destroy does). */
void		ga_tenant_needs_free(ga_problem *problem);

/* The forecast need of `tenant` in `pool` at step t; 0 without one. */
int			ga_tenant_need_at(const ga_problem *problem, int tenant, int pool,
							  int t);

/* The policy of `tenant` in `pool`, or NULL when it has none there. */
const ga_tenant_policy *ga_tenant_policy_of(const ga_problem *problem,
											int tenant, int pool);

/*
 * The planners' accounting.  A ga_quota holds what the problem fixes
 * (tenants, policies, cohorts per pool); the GPUs held sit in a usage
 * table the caller owns (ga_quota_use_len ints, zeroed), so a planner that
 * keeps several candidate grids copies its table with them.  Only pools
 * with at least one policy are accounted: elsewhere every check passes and
 * counting does nothing, and a problem without policies costs nothing.
 */
typedef struct ga_quota ga_quota;

/* NULL on out of memory.  The problem must be finished. */
ga_quota   *ga_quota_create(const ga_problem *problem);
void		ga_quota_destroy(ga_quota *quota);

/* True when some pool has a policy (otherwise nothing below matters). */
bool		ga_quota_any(const ga_quota *quota);

/* True when pool has a tenant policy: R9 and R10 constrain it. */
bool		ga_quota_pool_active(const ga_quota *quota, int pool);

/* Ints in a usage table (at least 1). */
size_t		ga_quota_use_len(const ga_quota *quota);

/*
 * Count (sign 1) or uncount (-1) `gpus` GPUs of `tenant` in `pool` over
 * steps [start, end) clipped to the horizon; `pinned` for a running job.
 */
void		ga_quota_count(const ga_quota *quota, int *use, int tenant, int pool,
						   int start, int end, int gpus, bool pinned, int sign);

/*
 * Whether `gpus` more GPUs of `tenant` in `pool` over steps [start, end)
 * (clipped to the horizon) keep R9 and R10 at every step, given the work
 * counted in `use`.
 */
bool		ga_quota_fits(const ga_quota *quota, const int *use, int tenant,
						  int pool, int start, int end, int gpus);

/*
 * The most GPUs `tenant` may ever hold in `pool` by R9 and R10, the pool
 * otherwise empty: its limit, and its guarantee plus the unguaranteed GPUs
 * plus what its cohort's other guarantees can lend it; INT_MAX when the
 * pool is not accounted.  A job needing more never runs there.
 */
int			ga_quota_max_gpus(const ga_quota *quota, int tenant, int pool);

/*
 * Whether those GPUs keep the tenant within its own guarantee at every
 * step (what gives work first claim on the guarantee); false when the
 * pool is not accounted or the tenant is guaranteed nothing there.
 */
bool		ga_quota_within_guarantee(const ga_quota *quota, const int *use,
									  int tenant, int pool, int start, int end,
									  int gpus);

#endif
