/*
 * validate_quota.h — the validator's rules R9 and R10 on tenant quotas
 * (docs/model.md, Tenant quotas; the formulas are in model/tenant_quota.h).
 *
 * Written apart from the planners' accounting (tenant_quota.c): it counts
 * each tenant's GPUs from the plan's placements and evaluates the rules
 * directly, so a bug in the accounting cannot hide itself here.
 */
#ifndef GPUALLOC_VALIDATE_QUOTA_H
#define GPUALLOC_VALIDATE_QUOTA_H

#include "model/plan.h"

/*
 * GA_OK when every pool with a tenant policy keeps R9 and R10 at every
 * step; GA_EILLEGAL naming the rule, pool, step and tenant otherwise.  The
 * plan's placement arrays must already agree with its grid (R1-R3).
 */
ga_status	ga_validate_quotas(const ga_problem *problem, const ga_plan *plan,
							   ga_error *err);

#endif
