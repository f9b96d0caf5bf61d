/*
 * pool_shared.h — the dynamic shared memory a plan run shares with its pool
 * solvers (pool_solve.c, the leader; pool_worker.c, the solvers).
 *
 * One segment per run: a header, one slot per part (heaviest first), then
 * each slot's serialised problem (written by the leader before it publishes
 * the segment to the solvers) and room for its serialised plan (written by the solver that
 * claims it).  Every process, the leader included, claims the next slot
 * when it is free (ga_pool_claim), so a process that other load slows down
 * solves fewer parts instead of holding the run up.  A solver writes only
 * the slots it claimed, sets a slot's state last (after a write barrier)
 * and then sets the leader's latch; the leader reads a slot once its state
 * is no longer GA_SLOT_WAITING (after a read barrier), and treats a slot
 * still waiting once no solver runs as one whose solver stopped.
 */
#ifndef GPUALLOC_POOL_SHARED_H
#define GPUALLOC_POOL_SHARED_H

#include "postgres.h"

#include "port/atomics.h"

#include "model/common.h"

#define GA_POOL_SHARED_MAGIC 0x67706f6f	/* "gpoo" */
#define GA_POOL_LAUNCH_MAGIC 0x67706c61	/* "gpla" */

/*
 * The segment a solver is started with (pool_launch.c).  Solvers are
 * started while the leader still builds the problem, before the parts
 * exist: each attaches, writes its process number (plus one) into its
 * entry, and waits on its latch until the leader publishes the handle of
 * the parts' segment, or gives up on them (abandoned: the leader left, or
 * the problem did not split).  Both sides write, issue a full barrier, then
 * read what the other wrote, so a solver either sees the handle or has its
 * latch set.
 */
typedef struct GaPoolLaunch
{
	uint32		magic;
	pg_atomic_uint32 abandoned; /* no parts will come: exit */
	pg_atomic_uint32 parts;		/* dsm_handle of GaPoolShared; 0: not yet */
	int			n_solvers;
	pg_atomic_uint32 solver_procno[FLEXIBLE_ARRAY_MEMBER];	/* pgprocno + 1;
															 * 0: not attached */
} GaPoolLaunch;

/* What a solver left in its slot. */
#define GA_SLOT_WAITING 0		/* not solved: unclaimed, or its solver stopped */
#define GA_SLOT_SOLVED 1		/* plan_len bytes of plan written */
#define GA_SLOT_FAILED 2		/* the solver failed: status and message */

typedef struct GaPoolSlot
{
	int			part;			/* index of the part in the split */
	Size		problem_off;	/* from the start of the segment */
	Size		problem_len;
	Size		plan_off;
	Size		plan_cap;
	Size		plan_len;
	volatile int state;			/* GA_SLOT_*, set last */
	int			status;			/* ga_status of a failed solve */
	char		message[GA_ERROR_MESSAGE_LEN];
} GaPoolSlot;

typedef struct GaPoolShared
{
	uint32		magic;
	pg_atomic_uint32 abandoned; /* the leader left: stop solving */
	int			leader_pgprocno;	/* whose latch a settled slot sets */
	char		mode[8];		/* "fast" or "full" */
	double		deadline_ms;	/* the run's end, on ga_now_ms (a monotonic
								 * clock every process of the machine shares) */
	int			n_parts;		/* parts of the whole split */
	int			n_solvers;		/* solvers that got a worker slot */
	pg_atomic_uint32 next_slot; /* the next slot to claim */
	GaPoolSlot	slots[FLEXIBLE_ARRAY_MEMBER];
} GaPoolShared;

/* Claim the next unsolved slot: its index, or -1 when all are claimed. */
static inline int
ga_pool_claim(GaPoolShared *shared)
{
	uint32		i = pg_atomic_fetch_add_u32(&shared->next_slot, 1);

	return i < (uint32) shared->n_parts ? (int) i : -1;
}

/*
 * The time limit of the part in slot i, claimed at now_ms: what is left of
 * the run's, shared by the rounds of parts still to solve (this one and the
 * unclaimed ones, one per process and round).
 */
static inline double
ga_pool_time_share(const GaPoolShared *shared, int i, double now_ms)
{
	int			processes = shared->n_solvers + 1;
	int			rounds = (shared->n_parts - i + processes - 1) / processes;

	return Max((shared->deadline_ms - now_ms) / Max(rounds, 1), 1.0);
}

#endif
