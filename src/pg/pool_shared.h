/*
 * pool_shared.h — the dynamic shared memory a plan run shares with its pool
 * solvers (pool_solve.c, the leader; pool_worker.c, the solvers).
 *
 * One segment per run: a header, one slot per part handed to a solver, then
 * each slot's serialised problem (written by the leader) and room for its
 * serialised plan (written by the solver).  A solver may be handed several
 * parts (their slots name it) and solves them one after another; it writes
 * only its own slots, and the leader reads a slot only after its solver has
 * exited.
 */
#ifndef GPUALLOC_POOL_SHARED_H
#define GPUALLOC_POOL_SHARED_H

#include "postgres.h"

#include "port/atomics.h"

#include "model/common.h"

#define GA_POOL_SHARED_MAGIC 0x67706f6f	/* "gpoo" */

/* What a solver left in its slot. */
#define GA_SLOT_WAITING 0		/* not solved: the solver never got to it */
#define GA_SLOT_SOLVED 1		/* plan_len bytes of plan written */
#define GA_SLOT_FAILED 2		/* the solver failed: status and message */

typedef struct GaPoolSlot
{
	int			part;			/* index of the part in the split */
	int			solver;			/* 0-based number of the solver that solves it */
	Size		problem_off;	/* from the start of the segment */
	Size		problem_len;
	Size		plan_off;
	Size		plan_cap;
	Size		plan_len;
	int			state;			/* GA_SLOT_*, set last */
	int			status;			/* ga_status of a failed solve */
	char		message[GA_ERROR_MESSAGE_LEN];
} GaPoolSlot;

typedef struct GaPoolShared
{
	uint32		magic;
	pg_atomic_uint32 abandoned; /* the leader left: stop solving */
	char		mode[8];		/* "fast" or "full" */
	double		deadline_ms;	/* the run's end, on ga_now_ms (a monotonic
								 * clock every process of the machine shares) */
	int			n_parts;		/* parts of the whole split */
	int			n_solvers;		/* solvers started, numbered 0..n_solvers-1 */
	int			n_slots;
	GaPoolSlot	slots[FLEXIBLE_ARRAY_MEMBER];
} GaPoolShared;

#endif
