/*
 * fairshare.h — the simulator's fair-share priority factors, for the
 * fairshare baseline (docs/model.md, Baselines): the formula of
 * docs/model.md, Fair share between tenants, on the GPU-hours each
 * tenant's jobs have really held in each pool since the window began.
 *
 * Per pool q at window step t: a tenant's usage U is the GPU-hours its
 * jobs held on q before t, each hour weighted by 2^(-age / H) with H =
 * GA_SIM_FAIRSHARE_HALF_LIFE_HOURS; the members are the tenants with a
 * policy in q (tenants.csv), a job naming q first that was submitted
 * before t, or usage there; a member's share S is its weight (1 without a
 * policy) over the members' weights; with N = U / (the members' U; 0 when
 * nobody used q) its factor is F = max(2^(-N / S), 2^-20), and its
 * priority factor F / Fmax, Fmax the highest factor among the members.
 */
#ifndef GPUALLOC_FAIRSHARE_H
#define GPUALLOC_FAIRSHARE_H

#include "sim/scenario.h"
#include "sim/sim_result.h"

/* gpualloc.fairshare_half_life's default, 7 days. */
#define GA_SIM_FAIRSHARE_HALF_LIFE_HOURS 168.0

/*
 * The priority factor of every tenant in every pool at window step t,
 * into factor[tenant * n_pools + pool] (n_tenants * n_pools entries; 1
 * where a tenant is no member), from the job traces (start, true end,
 * block) of the run so far.  GA_ENOMEM when scratch memory cannot be had.
 */
ga_status	ga_sim_fairshare(const ga_scenario *scn, const ga_sim_job_trace *traces,
							 int t, double *factor, ga_error *err);

#endif
