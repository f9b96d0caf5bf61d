/*
 * first_claim.h — the jobs a plan starts within their tenant's guarantee
 * (docs/model.md, Tenant quotas: First claim), and whether another plan of
 * the same problem keeps them.
 *
 * Work within a tenant's guarantee has first claim on it.  The fast mode
 * builds that into its construction (it places such work before any claim
 * in its order); a plan found another way (the full mode's mapped MILP
 * solutions, its neighbourhood search) is held to the fast plan's claims:
 * it may start those jobs earlier, never later, nor leave them out.
 * Without the rule the full mode gave a tenant's guarantee to borrowers of
 * higher effective priority whenever that was worth more, and the tenant's
 * own low-priority work waited past the end of the window.
 */
#ifndef GPUALLOC_FIRST_CLAIM_H
#define GPUALLOC_FIRST_CLAIM_H

#include "model/plan.h"

/*
 * claim_start[j] (n_jobs ints) = the plan's start of job j when j claims
 * its tenant's guarantee in the plan, else -1.  Jobs are taken in order of
 * start (then index), running jobs first: a job claims when, with every
 * job taken before it counted, its GPUs keep its tenant within its
 * guarantee in its pool at every step of its run inside the horizon.
 * Running jobs cannot move, so they claim nothing.  Without tenant
 * policies nothing claims.  GA_ENOMEM on out of memory.
 */
ga_status	ga_first_claims(const ga_problem *problem, const ga_plan *plan,
							int *claim_start, ga_error *err);

/* Whether plan starts every claiming job at or before its claimed start. */
bool		ga_keeps_first_claims(const ga_problem *problem, const ga_plan *plan,
								  const int *claim_start);

#endif
