/*
 * heuristic.c — the fast solve mode (see heuristic.h for the strategy).
 *
 * Free space is tracked per pool in a buddy tree of step bitmaps: node i of a
 * pool whose size is rounded up to a power of two ("span") covers an aligned
 * block, and its bitmap has bit t set when any GPU of the block is busy (or
 * unusable) at step t.  Leaves are single GPUs; leaves past the end of the
 * pool and unusable GPUs are busy at every step.  Finding the earliest step
 * at which an aligned block of size 2^k is free for d steps is then a scan of
 * the span/2^k nodes of one level, each a few word operations, instead of a
 * scan of the grid.
 *
 * A second index lets that scan skip whole subtrees: for each internal node
 * and each block width 2^h a job of the pool can take (h below the node's
 * height), a "full" bitmap has bit t set when every aligned block of that
 * width inside the node is busy at step t.  A subtree whose full bitmap has
 * no clear run as long as the job's run, from a start between its release
 * and the latest start still of interest, holds no block the job could
 * start on; a subtree wholly free from step 0 holds only blocks that rank
 * the same, and its lowest stands for them.  So the search visits only the
 * part of the pool where blocks come free: its cost follows the free space,
 * not the pool's size, and it finds the same block a scan of every block
 * would.  The index is updated with the busy bitmaps, in O(height * widths)
 * words per change.
 */
#include "solve/heuristic.h"
#include "solve/headroom.h"
#include "solve/chain.h"
#include "model/tenant_quota.h"
#include "model/protect_horizon.h"
#include "model/terminal.h"
#include "model/validate.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_ORDER_VARIANTS 5
#define N_SORT_KEYS 5

/* ------------------------------------------------------------------------
 * Step bitmaps: W 64-bit words per mask, bit t = step t.
 * ------------------------------------------------------------------------ */

/* Bits [from, to) that fall in word w. */
static inline uint64_t
word_range_mask(int w, int from, int to)
{
	int			lo = from - w * 64;
	int			hi = to - w * 64;
	uint64_t	mask = ~UINT64_C(0);

	if (lo > 0)
		mask &= ~UINT64_C(0) << lo;
	if (hi < 64)
		mask &= (UINT64_C(1) << hi) - 1;
	return mask;
}

static void
bits_set_range(uint64_t *m, int from, int to)
{
	for (int w = from >> 6; w * 64 < to; w++)
		m[w] |= word_range_mask(w, from, to);
}

static void
bits_clear_range(uint64_t *m, int from, int to)
{
	for (int w = from >> 6; w * 64 < to; w++)
		m[w] &= ~word_range_mask(w, from, to);
}

static inline bool
bit_is_set(const uint64_t *m, int t)
{
	return (m[t >> 6] >> (t & 63)) & 1;
}

/*
 * First bit in [from, limit) equal to want, or limit.  Words are XORed with
 * flip so that the bit looked for is always a 1.
 */
static int
next_bit(const uint64_t *m, int from, int limit, bool want)
{
	uint64_t	flip = want ? 0 : ~UINT64_C(0);
	int			w;
	uint64_t	word;

	if (from >= limit)
		return limit;
	w = from >> 6;
	word = (m[w] ^ flip) & (~UINT64_C(0) << (from & 63));
	for (;;)
	{
		if (word != 0)
		{
			int			b = w * 64 + __builtin_ctzll(word);

			return b < limit ? b : limit;
		}
		w++;
		if (w * 64 >= limit)
			return limit;
		word = m[w] ^ flip;
	}
}

/* First set bit in [from, limit), or limit. */
static inline int
next_set(const uint64_t *m, int from, int limit)
{
	return next_bit(m, from, limit, true);
}

/* First clear bit in [from, limit), or limit. */
static inline int
next_clear(const uint64_t *m, int from, int limit)
{
	return next_bit(m, from, limit, false);
}

/* Last set bit below before, or -1. */
static int
prev_set(const uint64_t *m, int before)
{
	int			b = before - 1;
	int			w;
	uint64_t	word;

	if (b < 0)
		return -1;
	w = b >> 6;
	word = m[w];
	if ((b & 63) != 63)
		word &= (UINT64_C(1) << ((b & 63) + 1)) - 1;
	for (;;)
	{
		if (word != 0)
			return w * 64 + 63 - __builtin_clzll(word);
		if (w == 0)
			return -1;
		w--;
		word = m[w];
	}
}

/* ------------------------------------------------------------------------
 * Solver context (read-only during a solve) and state (one candidate grid).
 * ------------------------------------------------------------------------ */

typedef struct pool_geom
{
	int			first_gpu;
	int			n_gpus;
	int			span;			/* power of two >= n_gpus */
	int			log_span;		/* log2(span): the root's height */
	size_t		offset;			/* first word of node 0 in state->bits */
	int			levels;			/* block widths 2^0 .. 2^(levels-1) indexed */
	size_t		full_offset;	/* first word of node 0 in state->full */
} pool_geom;

typedef struct placement
{
	int			start;
	int			size;
	int			first;
	double		run;			/* value of the run (run_value) */
	double		value;			/* the objective's change: run minus the
								 * terminal charge it adds */
} placement;

typedef struct fast_ctx
{
	const ga_problem *p;
	ga_cancel_fn cancel;
	void	   *cancel_arg;
	ga_error   *err;
	int			T;
	int			W;				/* words per step bitmap */
	double	   *prefix;			/* [T + 1] prefix sums of decay */
	pool_geom  *pools;
	size_t		n_words;		/* words of all pool trees together */
	size_t		n_full_words;	/* words of all full indexes together */
	ga_terminal *term;			/* the charge past the horizon */
	long	   *work;			/* work units spent (see spend), in
								 * work_spent: counted by const code too */
	long		work_spent;
	long		work_limit;		/* the improvement phase ends here */
	double		stop_ms;		/* safety cap on the wall clock */
	int		   *job_order;		/* non-pinned jobs, densest first */
	int			n_job_order;
	int			n_order;		/* claims: non-pinned jobs and services */
	struct claim_key *keys;		/* [n_order] sort scratch */
	int		   *best_order;		/* order that built the best grid */
	int		   *try_order;		/* order being tried */
	double	   *ideal_value;	/* [n_jobs] value alone on the base grid */
	struct promotion *promotions;	/* [n_jobs] scratch */
	/* scratch of service placement, sized for the largest pool */
	int		   *cap;			/* [T] */
	int		   *want;			/* [T] */
	int		   *forced_at;		/* [T + 1] members taken from the service per step */
	int		   *charged_at;		/* [T + 1] of those, handovers its churn counts */
	uint64_t   *member;			/* [pool words] the GPUs the service holds */
	int		   *member_end;		/* [pool] */
	bool	   *member_charged; /* [pool] its handover at member_end counts */
	uint64_t   *serving;		/* [pool words] GPUs in a run not yet in the
								 * tree, which began at served_from */
	int		   *served_from;	/* [pool] */
	int			n_pending;		/* members whose handover before the end counts */
	int		   *held_sorted;	/* [n_gpus] scratch */
	int		   *reserved_until; /* [n_gpus]: end of a held GPU's set-aside */
	/* the protect rule (ga_protect_room) */
	int		   *room;			/* [2 * n_pools * T] batch GPUs allowed,
								 * both tiers (tier_room) */
	bool	   *guarded;		/* [n_pools]: the pool has services */
	int		   *pool_first_svc; /* [n_pools]: its first service, or -1 */
	int		   *next_svc;		/* [n_services]: the next of its pool, or -1 */
	uint64_t   *bad_start;		/* [W] scratch: starts a job may not take */
	uint64_t   *bad_block;		/* [W] scratch: the same on one block */
	int		   *job_room;		/* [T] scratch: the room of one job */
	int		   *tail_from;		/* [n_gpus]: a running job's lengthened run */
	int		   *tail_to;		/* past its estimated end: [from, to) */
	int		   *tail_prefix;	/* [n_gpus + 1]: GPUs with such a tail */
	int		   *overlap;		/* [T] scratch: uncounted_overlap */
	/* advance reservations; both NULL when the problem has none */
	uint64_t   *closed_to_services;	/* [n_gpus * W]: steps a reservation
									 * holds each GPU */
	uint64_t   *service_bits;	/* [W] scratch: service_leaf */
	int		   *resv_prefix;	/* [n_gpus + 1]: GPUs some reservation holds */
	/* tenant quotas (model/tenant_quota.h) */
	ga_quota   *quota;
	uint64_t   *quota_bad;		/* [W] scratch: starts R9 or R10 rule out */
} fast_ctx;

typedef struct fast_state
{
	ga_plan    *plan;
	uint64_t   *bits;			/* every pool tree's node bitmaps */
	uint64_t   *full;			/* every pool's full index (see top) */
	double	   *job_value;		/* value of each job's run */
	double		jobs_value;		/* their sum */
	double		service_value;	/* minus the shortfall penalties */
	int		   *after_held;		/* [n_pools * term->steps]: usable GPUs
								 * jobs hold at step T + k */
	double		terminal_cost;	/* ga_terminal_cost of the grid */
	int		   *reserved_by;	/* per GPU: service it is set aside for, or -1 */
	int		   *batch_used;		/* [2 * n_pools * T] usable GPUs in batch
								 * work, both tiers (tier_used) */
	int		   *quota_use;		/* the tenants' GPUs (ga_quota_count) */
} fast_state;

static inline uint64_t *
node_mask(const fast_ctx *c, const fast_state *st, const pool_geom *pg, int node)
{
	return st->bits + pg->offset + (size_t) node * c->W;
}

static inline uint64_t *
layer_node(const fast_ctx *c, const fast_state *st, int layer,
		   const pool_geom *pg, int node)
{
	return st->bits + layer * c->n_words + pg->offset + (size_t) node * c->W;
}

/* The same node in the layer that records batch work only. */
static inline uint64_t *
batch_mask(const fast_ctx *c, const fast_state *st, const pool_geom *pg, int node)
{
	return st->bits + c->n_words + pg->offset + (size_t) node * c->W;
}

static inline uint64_t *
leaf_mask(const fast_ctx *c, const fast_state *st, const pool_geom *pg, int rel)
{
	return node_mask(c, st, pg, pg->span + rel);
}

/*
 * A leaf as a service sees it: busy also where an advance reservation holds
 * the GPU (c->closed_to_services), as services never run there.  The bits
 * are written to c->service_bits, good until the next call, unless no
 * reservation holds the GPU.
 */
static const uint64_t *
service_leaf(const fast_ctx *c, const fast_state *st, const pool_geom *pg,
			 int rel)
{
	const uint64_t *m = leaf_mask(c, st, pg, rel);
	const uint64_t *closed;

	if (c->closed_to_services == NULL)
		return m;
	closed = c->closed_to_services + (size_t) (pg->first_gpu + rel) * c->W;
	for (int w = 0; w < c->W; w++)
		c->service_bits[w] = m[w] | closed[w];
	return c->service_bits;
}

/* Height of a node: 0 for a leaf (one GPU), log_span for the root. */
static inline int
node_height(const pool_geom *pg, int node)
{
	return pg->log_span - (31 - __builtin_clz((unsigned) node));
}

/* Bit t set when every block of width 2^h inside node is busy (h < height). */
static inline uint64_t *
full_mask(const fast_ctx *c, const fast_state *st, const pool_geom *pg,
		  int node, int h)
{
	return st->full + pg->full_offset + ((size_t) node * pg->levels + h) * c->W;
}

/* The same, also for the node's own width (h == height): its busy bitmap. */
static inline const uint64_t *
level_busy(const fast_ctx *c, const fast_state *st, const pool_geom *pg,
		   int node, int height, int h)
{
	return h == height ? node_mask(c, st, pg, node) : full_mask(c, st, pg, node, h);
}

/* Indexed widths below a node of this height. */
static inline int
full_levels(const pool_geom *pg, int height)
{
	return height < pg->levels ? height : pg->levels;
}

/* Recompute node's full bitmaps in words [w0, w1] from its children. */
static void
full_from_children(const fast_ctx *c, fast_state *st, const pool_geom *pg,
				   int node, int w0, int w1)
{
	int			height = node_height(pg, node);

	for (int h = 0; h < full_levels(pg, height); h++)
	{
		uint64_t   *m = full_mask(c, st, pg, node, h);
		const uint64_t *left = level_busy(c, st, pg, 2 * node, height - 1, h);
		const uint64_t *right = level_busy(c, st, pg, 2 * node + 1, height - 1, h);

		for (int w = w0; w <= w1; w++)
			m[w] = left[w] & right[w];
	}
}

/* After node's busy bitmap changed over steps [from, to): fix its ancestors. */
static void
full_fix_ancestors(const fast_ctx *c, fast_state *st, const pool_geom *pg,
				   int node, int from, int to)
{
	if (pg->levels == 0)
		return;
	for (int up = node >> 1; up >= 1; up >>= 1)
		full_from_children(c, st, pg, up, from >> 6, (to - 1) >> 6);
}

/*
 * Every block inside [rel, rel + size) became busy (or free) over [from,
 * to): so did every block of every width inside it.
 */
static void
full_set_block(const fast_ctx *c, fast_state *st, const pool_geom *pg,
			   int rel, int size, int from, int to, bool busy)
{
	for (int width = 2; width <= size; width <<= 1)
	{
		int			base = pg->span / width;
		int			height = node_height(pg, base);

		for (int node = base + rel / width; node < base + (rel + size) / width; node++)
			for (int h = 0; h < full_levels(pg, height); h++)
			{
				if (busy)
					bits_set_range(full_mask(c, st, pg, node, h), from, to);
				else
					bits_clear_range(full_mask(c, st, pg, node, h), from, to);
			}
	}
}

/* The objective of the grid, kept up to date move by move. */
static double
state_objective(const fast_ctx *c, const fast_state *st)
{
	(void) c;
	return st->jobs_value + st->service_value - st->terminal_cost;
}

/*
 * Count work: one unit is about one aligned block or one GPU-step looked
 * at.  The improvement phase is bounded by work, never by the clock, so the
 * same problem gives the same plan on any machine under any load.
 */
static inline void
spend(const fast_ctx *c, long units)
{
	*c->work += units;
}

static bool
improves(double candidate, double incumbent)
{
	return candidate > incumbent + 1e-9 * fmax(1.0, fabs(incumbent));
}

static bool
cancelled(const fast_ctx *c)
{
	return c->cancel != NULL && c->cancel(c->cancel_arg);
}

/* ------------------------------------------------------------------------
 * Buddy tree updates.
 * ------------------------------------------------------------------------ */

/*
 * Set (busy) or clear (free) steps [from, to) on every node inside the
 * aligned block [rel, rel + size) of one layer (layer 0: everything; layer 1:
 * batch work only).
 */
static void
layer_set_block(const fast_ctx *c, fast_state *st, int layer, const pool_geom *pg,
				int rel, int size, int from, int to, bool busy)
{
	for (int width = 1; width <= size; width <<= 1)
	{
		int			base = pg->span / width;

		for (int node = base + rel / width; node < base + (rel + size) / width; node++)
		{
			uint64_t   *bits = layer_node(c, st, layer, pg, node);

			if (busy)
				bits_set_range(bits, from, to);
			else
				bits_clear_range(bits, from, to);
		}
	}
}

/* Mark the steps busy on the block; every ancestor is busy then too. */
static void
layer_mark(const fast_ctx *c, fast_state *st, int layer, const pool_geom *pg,
		   int rel, int size, int from, int to)
{
	if (from >= to)
		return;
	layer_set_block(c, st, layer, pg, rel, size, from, to, true);
	for (int node = (pg->span / size + rel / size) >> 1; node >= 1; node >>= 1)
		bits_set_range(layer_node(c, st, layer, pg, node), from, to);
	if (layer == 0 && pg->levels > 0)
	{
		full_set_block(c, st, pg, rel, size, from, to, true);
		full_fix_ancestors(c, st, pg, pg->span / size + rel / size, from, to);
	}
}

/* Free the steps on the block and recompute its ancestors from their children. */
static void
layer_unmark(const fast_ctx *c, fast_state *st, int layer, const pool_geom *pg,
			 int rel, int size, int from, int to)
{
	if (from >= to)
		return;
	layer_set_block(c, st, layer, pg, rel, size, from, to, false);
	for (int node = (pg->span / size + rel / size) >> 1; node >= 1; node >>= 1)
	{
		uint64_t   *m = layer_node(c, st, layer, pg, node);
		const uint64_t *left = layer_node(c, st, layer, pg, 2 * node);
		const uint64_t *right = layer_node(c, st, layer, pg, 2 * node + 1);

		for (int w = 0; w < c->W; w++)
			m[w] = left[w] | right[w];
	}
	if (layer == 0 && pg->levels > 0)
	{
		full_set_block(c, st, pg, rel, size, from, to, false);
		full_fix_ancestors(c, st, pg, pg->span / size + rel / size, from, to);
	}
}

/* Mark a block busy for everyone (held GPUs set aside for a service). */
static void
tree_mark(const fast_ctx *c, fast_state *st, const pool_geom *pg, int rel,
		  int size, int from, int to)
{
	layer_mark(c, st, 0, pg, rel, size, from, to);
}

static void
tree_unmark(const fast_ctx *c, fast_state *st, const pool_geom *pg, int rel,
			int size, int from, int to)
{
	layer_unmark(c, st, 0, pg, rel, size, from, to);
}

/* Mark or free a batch job's block in both layers. */
static void
tree_mark_job(const fast_ctx *c, fast_state *st, const pool_geom *pg, int rel,
			  int size, int from, int to)
{
	layer_mark(c, st, 0, pg, rel, size, from, to);
	layer_mark(c, st, 1, pg, rel, size, from, to);
}

static void
tree_unmark_job(const fast_ctx *c, fast_state *st, const pool_geom *pg,
				int rel, int size, int from, int to)
{
	layer_unmark(c, st, 0, pg, rel, size, from, to);
	layer_unmark(c, st, 1, pg, rel, size, from, to);
}

/* ------------------------------------------------------------------------
 * Jobs: value, search and placement.
 * ------------------------------------------------------------------------ */

/* Value of a job's run over [start, end): its cells, then its tail. */
static double
run_value(const fast_ctx *c, const ga_job *job, int start, int end, int size)
{
	int			from = start > 0 ? start : 0;
	int			to = end < c->T ? end : c->T;
	double		tail = ga_job_tail_value(c->p, job, size, start, end);

	if (to <= from)
		return tail;
	return job->priority * size * (c->prefix[to] - c->prefix[from]) + tail;
}

/* Usable GPUs past the horizon of a pool, by step T + k. */
static inline int *
after_held(const fast_ctx *c, const fast_state *st, int pool)
{
	return st->after_held + (size_t) pool * c->term->steps;
}

/* What a run on block [first, first + size) over [start, end) adds to the terminal charge. */
static double
terminal_charge(const fast_ctx *c, const fast_state *st, int pool, int start,
				int end, int first, int size)
{
	int			from;
	int			to;

	if (!c->guarded[pool])
		return 0;
	ga_terminal_range(c->term, start, end, &from, &to);
	if (from >= to)
		return 0;
	spend(c, to - from);
	return ga_terminal_delta(c->term, pool, after_held(c, st, pool), from, to, first, size);
}

/* Add (sign 1) or take off (-1) a run's GPUs past the horizon, with its charge. */
static void
count_after(const fast_ctx *c, fast_state *st, int pool, int start, int end,
			int first, int size, int sign)
{
	int			from;
	int			to;
	int		   *held;

	if (!c->guarded[pool])
		return;
	ga_terminal_range(c->term, start, end, &from, &to);
	if (from >= to)
		return;
	held = after_held(c, st, pool);
	if (sign > 0)
		st->terminal_cost += ga_terminal_delta(c->term, pool, held, from, to, first, size);
	ga_terminal_hold(c->term, held, from, to, first, size, sign);
	if (sign < 0)
		st->terminal_cost -= ga_terminal_delta(c->term, pool, held, from, to, first, size);
}

/* Earliest start in [from, last] with steps [t, min(t + d, T)) all clear. */
static int
earliest_window(const uint64_t *m, int from, int last, int d, int T)
{
	int			t = from;

	while (t <= last)
	{
		int			end;
		int			busy;

		t = next_clear(m, t, last + 1);
		if (t > last)
			return -1;
		end = t + d < T ? t + d : T;
		busy = next_set(m, t, end);
		if (busy >= end)
			return t;
		t = busy + 1;
	}
	return -1;
}

/* Idle steps just before t on a block (0 when busy at t-1 or t is 0). */
static int
gap_before(const uint64_t *m, int t)
{
	return t - 1 - prev_set(m, t);
}

/* Steps [from, to) all clear. */
static inline bool
free_over(const uint64_t *m, int from, int to)
{
	return next_set(m, from, to) >= to;
}

/*
 * Width of the largest aligned block around node that is wholly free over
 * [from, to).  Small is good: the job then fills a block that is already
 * partly used and leaves whole blocks for jobs that need them (best fit).
 */
static int
free_enclosing_width(const fast_ctx *c, const fast_state *st,
					 const pool_geom *pg, int node, int width, int from, int to)
{
	for (int up = node >> 1; up >= 1; up >>= 1)
	{
		if (!free_over(batch_mask(c, st, pg, up), from, to))
			break;
		width <<= 1;
	}
	return width;
}

/*
 * Batch work per pool and step for the protect rule (ga_protect_room), in
 * two tiers: jobs over their estimated runs, held to the services' protect
 * curves, and jobs over their runs lengthened by the overrun margin, held
 * to the services' demand.
 */
static inline int *
tier_used(const fast_ctx *c, const fast_state *st, bool lengthened, int pool)
{
	return st->batch_used + ((size_t) lengthened * c->p->n_pools + pool) * c->T;
}

static inline const int *
tier_room(const fast_ctx *c, bool lengthened, int pool)
{
	return c->room + ((size_t) lengthened * c->p->n_pools + pool) * c->T;
}

/* Steps [start, start + steps) inside the horizon get size more. */
static void
add_run(int *used, int T, int start, int steps, int size)
{
	int			to = steps < T - start ? start + steps : T;

	for (int t = start > 0 ? start : 0; t < to; t++)
		used[t] += size;
}

/*
 * Add (or with a negative size remove) batch work on job's pool in both
 * tiers: a run of `duration` steps from start, and the same run lengthened
 * by the job's overrun margin.
 * Pinned jobs count this way from their real start, so a job started now
 * does not count on GPUs a running job may not have given back yet.
 */
static void
count_batch(const fast_ctx *c, fast_state *st, const ga_job *job, int start,
			int duration, int size)
{
	add_run(tier_used(c, st, false, job->pool), c->T, start, duration, size);
	add_run(tier_used(c, st, true, job->pool), c->T, start,
			ga_protect_steps(c->p, job, duration), size);
}

/* Whether an advance reservation holds some GPU of [first, first + size). */
static inline bool
reserved_block(const fast_ctx *c, int first, int size)
{
	return c->resv_prefix != NULL && c->resv_prefix[first + size] != c->resv_prefix[first];
}

/*
 * GPUs of the block [first, first + size) at each step whose batch work
 * the protect rule does not count in one tier, into c->overlap; false
 * (nothing written) when there are none.  Reserved cells, in both tiers:
 * services never run there, so the room leaves them out (ga_protect_room)
 * and work on them takes nothing from the services.  With `tails`, in the
 * lengthened tier, GPUs under a running job's lengthened run: a job placed
 * there after the running job's estimated end waits if that job outlives
 * its estimate, holding no more GPUs than the block, so those GPUs count
 * once.
 */
static bool
uncounted_overlap(const fast_ctx *c, int first, int size, bool lengthened, bool tails)
{
	bool		tail = tails && lengthened && c->tail_prefix[first + size] != c->tail_prefix[first];
	bool		resv = reserved_block(c, first, size);

	if (!tail && !resv)
		return false;
	memset(c->overlap, 0, sizeof(int) * c->T);
	for (int g = first; g < first + size; g++)
	{
		const uint64_t *closed = resv ? c->closed_to_services + (size_t) g * c->W : NULL;

		for (int t = 0; t < c->T; t++)
			c->overlap[t] += (tail && t >= c->tail_from[g] && t < c->tail_to[g]) ||
				(closed != NULL && bit_is_set(closed, t));
	}
	return true;
}

/*
 * Count (sign 1) or uncount (-1) a job on its block in both tiers: a run of
 * `duration` steps from start, and the same run lengthened, less what
 * uncounted_overlap leaves out (`tails`: a job not pinned).
 */
static void
count_block(const fast_ctx *c, fast_state *st, const ga_job *job, int start, int duration,
			int first, int size, int counted, bool tails, int sign)
{
	count_batch(c, st, job, start, duration, sign * counted);
	for (int tier = 0; tier < 2; tier++)
	{
		int		   *used = tier_used(c, st, tier, job->pool);
		int			steps = tier ? ga_protect_steps(c->p, job, duration) : duration;

		if (!uncounted_overlap(c, first, size, tier, tails))
			continue;
		for (int t = start > 0 ? start : 0; t < c->T && t - start < steps; t++)
			used[t] -= sign * c->overlap[t];
	}
}

/* Count (sign 1) or uncount (-1) a job that is not pinned, on its block. */
static void
count_job(const fast_ctx *c, fast_state *st, const ga_job *job, int start,
		  int first, int size, int sign)
{
	count_block(c, st, job, start, ga_job_duration(job, job->pool, size), first, size,
				size, true, sign);
}

/*
 * Mark in `bad` the starts from which the job's estimated run of `reach`
 * steps would reach a step past the horizon where it breaks the protect
 * rule (model/protect_horizon.h): from start t it holds steps T + k for k
 * below t + reach - T.
 */
static void
mark_bad_past_horizon(const fast_ctx *c, const fast_state *st, const ga_job *job,
					  int size, int reach, uint64_t *bad)
{
	int			beyond = reach - 1;	/* steps past the horizon from T - 1 */
	int			blocked;
	int			first;

	if (beyond <= 0)
		return;
	blocked = ga_protect_first_blocked_after(c->term, job->pool, after_held(c, st, job->pool),
											 0, beyond, size, job->priority);
	spend(c, blocked);
	first = c->T - reach + blocked + 1;	/* the first start that reaches it */
	for (int t = first > 0 ? first : 0; t < c->T; t++)
		bad[t >> 6] |= UINT64_C(1) << (t & 63);
}

/*
 * Mark in `bad` the starts at which job j on `size` GPUs would take batch
 * work past one tier's room at some step of its run in that tier (of
 * `reach` steps); overlap (may be NULL) is what its block shares with
 * running jobs' lengthened runs.  The room of a job dense enough to
 * displace a service gets that service's curve back.
 */
static void
mark_bad_starts(const fast_ctx *c, const fast_state *st, const ga_job *job,
				int size, bool lengthened, int reach, const int *overlap,
				bool reserved, uint64_t *bad)
{
	const ga_problem *p = c->p;
	const int  *used = tier_used(c, st, lengthened, job->pool);
	int			blocked = INT_MAX;	/* the first blocked step from t on */

	memcpy(c->job_room, tier_room(c, lengthened, job->pool), sizeof(int) * c->T);
	for (int s = c->pool_first_svc[job->pool]; s >= 0; s = c->next_svc[s])
		if (!ga_service_protected_from(p, &p->services[s], job->priority))
			for (int t = 0; t < c->T; t++)
				c->job_room[t] += ga_service_guarded(&p->services[s], t, lengthened);
	for (int t = c->T - 1; t >= 0; t--)
	{
		int			adds = size - (overlap ? overlap[t] : 0);

		/*
		 * On reserved cells (`reserved`) a step where the job adds no
		 * counted work is never its fault: the services cannot use them.
		 */
		if ((adds > 0 || !reserved) && used[t] + adds > c->job_room[t])
			blocked = t;
		if (blocked - t < reach)
			bad[t >> 6] |= UINT64_C(1) << (t & 63);
	}
	if (!lengthened)
		mark_bad_past_horizon(c, st, job, size, reach, bad);
}

/*
 * The start steps at which job j on `size` GPUs would break the protect
 * rule, in c->bad_start; NULL when the pool has no service (no start is
 * ruled out).  So a job never takes GPUs a service's protect curve needs
 * during its estimated run, nor GPUs its demand needs while the job may
 * still be running past its estimate: being non-preemptible, it could not
 * hand them back when the demand comes.
 */
static const uint64_t *
protect_bad_starts(const fast_ctx *c, const fast_state *st, const ga_job *job,
				   int size)
{
	int			d = ga_job_duration(job, job->pool, size);

	if (!c->guarded[job->pool])
		return NULL;
	memset(c->bad_start, 0, sizeof(uint64_t) * c->W);
	mark_bad_starts(c, st, job, size, false, d, NULL, false, c->bad_start);
	mark_bad_starts(c, st, job, size, true, ga_protect_steps(c->p, job, d), NULL, false,
					c->bad_start);
	return c->bad_start;
}

/*
 * The bad starts on one block: those of the size (shared), unless the
 * block holds cells whose work is not counted (uncounted_overlap: under a
 * running job's lengthened run, or reserved), which it then absorbs.
 */
static const uint64_t *
block_bad_starts(const fast_ctx *c, const fast_state *st, const ga_job *job,
				 int size, int d, int first, const uint64_t *shared)
{
	if (shared == NULL || (c->tail_prefix[first + size] == c->tail_prefix[first] &&
						   !reserved_block(c, first, size)))
		return shared;
	memset(c->bad_block, 0, sizeof(uint64_t) * c->W);
	for (int tier = 0; tier < 2; tier++)
		mark_bad_starts(c, st, job, size, tier, tier ? ga_protect_steps(c->p, job, d) : d,
						uncounted_overlap(c, first, size, tier, true) ? c->overlap : NULL,
						reserved_block(c, first, size), c->bad_block);
	return c->bad_block;
}

/*
 * Earliest start in [from, last] with the block clear over [t, min(t + d,
 * T)) that is not a bad start (bad may be NULL: none is).
 */
static int
earliest_allowed(const uint64_t *m, const uint64_t *bad, int from, int last,
				 int d, int T)
{
	int			t = from;

	while (t <= last)
	{
		t = earliest_window(m, t, last, d, T);
		if (t < 0 || bad == NULL || !bit_is_set(bad, t))
			return t;
		t = next_clear(bad, t, last + 1);
	}
	return -1;
}

/* One size's search over the blocks of a pool (search_size). */
typedef struct block_search
{
	const ga_job *job;
	const pool_geom *pg;
	const uint64_t *bad;		/* the size's bad starts, or NULL */
	const uint64_t *quota_bad;	/* starts tenant quotas rule out, or NULL */
	int			g;
	int			h;				/* log2(g) */
	int			d;				/* duration at g */
	int			last;			/* latest start */
	int			n_blocks;
	int			best_t;
	int			best_fit;
	int			best_gap;
	int			best_b;
	bool		done;			/* a perfect block was found */
	int			lo;				/* only blocks inside GPUs [lo, hi) */
	int			hi;
} block_search;

/*
 * The first start from t on at which a run of `reach` steps on the block
 * touches no maintenance window and no advance reservation of another
 * tenant than the job's, past the horizon too: each one in the way moves
 * the start to its end.
 */
static int
clear_of_windows(const fast_ctx *c, int tenant, int first, int size, int reach,
				 int t)
{
	const ga_window *w;

	while ((w = ga_closing(c->p, tenant, first, size, t, t + reach)) != NULL)
		t = w->end_step;
	return t;
}

/*
 * Earliest start in [from, last] allowed on the block (earliest_allowed)
 * whose run lengthened by the overrun margin touches no cell closed to the
 * job (clear_of_windows): the pool drains ahead of a window or another
 * tenant's reservation, so a job that outlives its estimate by up to the
 * margin is still off its GPUs when it begins.
 */
static int
earliest_open(const fast_ctx *c, const uint64_t *m, const uint64_t *bad,
			  const uint64_t *quota_bad, const ga_job *job, int from, int last,
			  int d, int first, int size)
{
	int			reach = ga_protect_steps(c->p, job, d);
	int			t = from;

	for (;;)
	{
		int			open = INT_MAX;

		t = earliest_allowed(m, bad, t, last, d, c->T);
		if (t < 0)
			return t;
		if (quota_bad != NULL && bit_is_set(quota_bad, t))
			open = next_clear(quota_bad, t, last + 1);
		else if (c->p->n_windows == 0 && c->p->n_reservations == 0)
			return t;
		else
			open = clear_of_windows(c, job->tenant, first, size, reach, t);
		if (open == t)
			return t;
		if (open < 0 || open > last)
			return -1;
		t = open;
	}
}

/* Rank block b against the best so far (the order of search_size). */
static void
examine_block(const fast_ctx *c, const fast_state *st, block_search *bs, int b)
{
	const pool_geom *pg = bs->pg;
	int			node = pg->span / bs->g + b;
	const uint64_t *m = node_mask(c, st, pg, node);
	int			limit = bs->best_t < bs->last ? bs->best_t : bs->last;
	int			first = pg->first_gpu + b * bs->g;
	int			t = earliest_open(c, m, block_bad_starts(c, st, bs->job, bs->g, bs->d, first, bs->bad),
								  bs->quota_bad, bs->job, bs->job->release_step, limit, bs->d,
								  first, bs->g);
	int			end;
	int			fit;
	int			gap;

	spend(c, 1);
	if (t < 0 || first < bs->lo || first + bs->g > bs->hi)
		return;
	end = t + bs->d < c->T ? t + bs->d : c->T;
	fit = free_enclosing_width(c, st, pg, node, bs->g, t, end);
	gap = gap_before(m, t);
	if (t < bs->best_t || fit < bs->best_fit || (fit == bs->best_fit && gap < bs->best_gap))
	{
		bs->best_t = t;
		bs->best_fit = fit;
		bs->best_gap = gap;
		bs->best_b = b;
		if (t == bs->job->release_step && fit == bs->g && gap == 0)
			bs->done = true;
	}
}

/*
 * The starts ruled out for every block under node: the size's bad starts,
 * unless a block there lies under a running job's lengthened run or holds
 * reserved cells (its own bad starts are fewer then: block_bad_starts), so
 * none are.
 */
static const uint64_t *
subtree_bad(const fast_ctx *c, const pool_geom *pg, const block_search *bs,
			int node, int height)
{
	int			first = pg->first_gpu + ((node << height) - pg->span);
	int			last = first + (1 << height);

	if (bs->bad == NULL || first >= pg->first_gpu + pg->n_gpus)
		return bs->bad;
	if (last > pg->first_gpu + pg->n_gpus)
		last = pg->first_gpu + pg->n_gpus;
	return c->tail_prefix[last] == c->tail_prefix[first] && !reserved_block(c, first, last - first) ?
		bs->bad : NULL;
}

/*
 * Whether a maintenance window or an advance reservation touches node's
 * GPUs: its blocks may then have different starts clear of it
 * (earliest_open).
 */
static bool
window_under(const fast_ctx *c, const pool_geom *pg, int node)
{
	int			height = node_height(pg, node);
	int			first = pg->first_gpu + ((node << height) - pg->span);

	return ga_block_closed(c->p, -1, first, 1 << height, INT_MIN, INT_MAX);
}

/*
 * Whether node is free from step 0 to the end of a run from the release,
 * which the protect rule allows on every block under it (bad: subtree_bad,
 * and a block under a running job's tail has no shared bad starts).  Every
 * block under it can then start at the release, leaves the same idle gap
 * before (all of it) and has the same best fit (the free block around it
 * reaches past node): they all rank the same.
 */
static bool
wholly_free(const fast_ctx *c, const fast_state *st, const block_search *bs,
			int node, const uint64_t *bad)
{
	int			release = bs->job->release_step;
	int			reach = release + bs->d < c->T ? release + bs->d : c->T;

	if (bs->bad != NULL && bad == NULL)
		return false;
	if (window_under(c, bs->pg, node))
		return false;
	if (bad != NULL && bit_is_set(bad, release))
		return false;
	return release <= bs->last && release <= bs->best_t &&
		free_over(node_mask(c, st, bs->pg, node), 0, reach);
}

/*
 * Visit the blocks under node (of this height) lowest first, skipping every
 * subtree in which no block of the size can start at a step still of
 * interest (from the release to the best start found so far): a block that
 * can start at t is free over the job's run from t, so at each of those
 * steps some block of the subtree is free, and the full index has a clear
 * run that long there, from a start the protect rule allows.
 */
static void
scan_blocks(const fast_ctx *c, const fast_state *st, block_search *bs,
			int node, int height)
{
	const pool_geom *pg = bs->pg;
	const uint64_t *bad;
	int			limit;

	if (bs->done)
		return;
	if (height == bs->h)
	{
		int			b = node - pg->span / bs->g;

		if (b < bs->n_blocks)
			examine_block(c, st, bs, b);
		return;
	}
	limit = bs->best_t < bs->last ? bs->best_t : bs->last;
	bad = subtree_bad(c, pg, bs, node, height);
	spend(c, 1);
	if (earliest_allowed(full_mask(c, st, pg, node, bs->h), bad,
						 bs->job->release_step, limit, bs->d, c->T) < 0)
		return;
	if (bs->lo == pg->first_gpu && bs->hi == pg->first_gpu + pg->n_gpus &&
		wholly_free(c, st, bs, node, bad))
	{
		/* every block here ranks the same: the lowest stands for them */
		examine_block(c, st, bs, (node << (height - bs->h)) - pg->span / bs->g);
		return;
	}
	scan_blocks(c, st, bs, 2 * node, height - 1);
	scan_blocks(c, st, bs, 2 * node + 1, height - 1);
}

/*
 * Earliest start of job j at size g.  Among the blocks free from that step:
 * best fit first, then the one that leaves the shortest idle gap before the
 * job, then the lowest (batch work packs from the low end of the pool).
 * False when the job cannot start inside the horizon (or by its deadline)
 * at this size.
 */
/*
 * The starts in [release, last] at which job (on its pool) at g GPUs for d
 * steps would break R9 or R10 (model/tenant_quota.h) given the grid's
 * work, in c->quota_bad; NULL when its pool has no tenant policy.  The
 * check runs over the job's whole run inside the horizon, so a job that
 * borrows starts only where every later step the lenders have planned
 * still leaves the borrowed GPUs idle.
 */
static const uint64_t *
quota_bad_starts(const fast_ctx *c, const fast_state *st, const ga_job *job,
				 int g, int d, int last)
{
	if (!ga_quota_pool_active(c->quota, job->pool))
		return NULL;
	memset(c->quota_bad, 0, sizeof(uint64_t) * c->W);
	for (int t = job->release_step; t <= last && t < c->T; t++)
		if (!ga_quota_fits(c->quota, st->quota_use, job->tenant, job->pool, t, t + d, g))
			c->quota_bad[t >> 6] |= UINT64_C(1) << (t & 63);
	spend(c, (long) c->T * (d < c->T ? d : c->T));
	return c->quota_bad;
}

static bool
search_size(const fast_ctx *c, const fast_state *st, const ga_job *job,
			int g, int lo, int hi, placement *out)
{
	const pool_geom *pg = &c->pools[job->pool];
	block_search bs = {.job = job, .pg = pg, .g = g, .h = __builtin_ctz((unsigned) g),
		.d = ga_job_duration(job, job->pool, g), .last = c->T - 1, .n_blocks = pg->n_gpus / g,
		.best_t = INT_MAX, .best_fit = INT_MAX, .best_gap = INT_MAX, .best_b = -1,
	.lo = lo, .hi = hi};

	if (job->deadline_step >= 0 && job->deadline_step - bs.d < bs.last)
		bs.last = job->deadline_step - bs.d;
	if (bs.last < job->release_step)
		return false;
	bs.bad = protect_bad_starts(c, st, job, g);
	bs.quota_bad = quota_bad_starts(c, st, job, g, bs.d, bs.last);
	spend(c, c->T);
	scan_blocks(c, st, &bs, 1, pg->log_span);
	if (bs.best_b < 0)
		return false;
	out->start = bs.best_t;
	out->size = g;
	out->first = pg->first_gpu + bs.best_b * g;
	out->run = run_value(c, job, bs.best_t, bs.best_t + bs.d, g);
	out->value = out->run - terminal_charge(c, st, job->pool, bs.best_t, bs.best_t + bs.d,
											out->first, g);
	return true;
}

/*
 * The allowed pool and size whose earliest placement is worth most; on a
 * tie the job's earlier pool in preference order, then the smaller size.
 */
static bool
find_best_placement(const fast_ctx *c, const fast_state *st, int j,
					placement *best)
{
	const ga_job *job = &c->p->jobs[j];
	bool		found = false;

	for (int i = 0; i < ga_job_n_pools(job); i++)
	{
		ga_job		view = ga_job_on_pool(job, i);
		int			pool_size = c->pools[view.pool].n_gpus;

		for (int g = view.gpus_min; g <= view.gpus_max && g <= pool_size; g <<= 1)
		{
			placement	cand;

			if (!search_size(c, st, &view, g, c->pools[view.pool].first_gpu,
							 c->pools[view.pool].first_gpu + pool_size, &cand))
				continue;
			if (!found || cand.value > best->value)
			{
				*best = cand;
				found = true;
			}
		}
	}
	return found;
}

/* Job j as it runs on the pool of the block at GPU `first`. */
static ga_job
placed_view(const fast_ctx *c, int j, int first)
{
	const ga_job *job = &c->p->jobs[j];
	int			rank = ga_job_pool_rank(job, ga_pool_of_gpu(c->p, first));

	return ga_job_on_pool(job, rank > 0 ? rank : 0);
}

/*
 * The advance reservation of job j's tenant on its pool that can hold it
 * (enough GPUs) and is not over by its release, the soonest; or NULL.
 */
static const ga_window *
own_reservation(const fast_ctx *c, const ga_job *job)
{
	const ga_window *best = NULL;

	for (int i = 0; job->tenant >= 0 && i < c->p->n_reservations; i++)
	{
		const ga_window *w = &c->p->reservations[i].cells;

		if (c->p->reservations[i].tenant == job->tenant && w->pool == job->pool &&
			w->n_gpus >= job->gpus_min && w->end_step > job->release_step &&
			w->start_step < c->T && (best == NULL || w->start_step < best->start_step))
			best = w;
	}
	return best;
}

/*
 * The placement of job j starting inside its tenant's reservation w, on its
 * GPUs, from its start on, the earliest (then the one worth most, as
 * find_best_placement; sizes the reservation holds only): the tenant's
 * waiting work starts as soon as the reservation opens.
 */
static bool
find_reserved_placement(const fast_ctx *c, const fast_state *st, int j,
						const ga_window *w, placement *best)
{
	ga_job		from_start = c->p->jobs[j];
	bool		found = false;

	if (w->start_step > from_start.release_step)
		from_start.release_step = w->start_step;
	for (int g = from_start.gpus_min; g <= from_start.gpus_max && g <= w->n_gpus; g <<= 1)
	{
		placement	cand;

		if (!search_size(c, st, &from_start, g, w->first_gpu, w->first_gpu + w->n_gpus, &cand) ||
			cand.start >= w->end_step)
			continue;
		if (!found || cand.start < best->start ||
			(cand.start == best->start && cand.value > best->value))
		{
			*best = cand;
			found = true;
		}
	}
	return found;
}

static void
apply_placement(const fast_ctx *c, fast_state *st, int j, const placement *pl)
{
	ga_job		view = placed_view(c, j, pl->first);
	const ga_job *job = &view;
	const pool_geom *pg = &c->pools[job->pool];
	int			end = pl->start + ga_job_duration(job, job->pool, pl->size);

	tree_mark_job(c, st, pg, pl->first - pg->first_gpu, pl->size,
			  pl->start, end < c->T ? end : c->T);
	count_job(c, st, job, pl->start, pl->first, pl->size, 1);
	count_after(c, st, job->pool, pl->start, end, pl->first, pl->size, 1);
	ga_quota_count(c->quota, st->quota_use, job->tenant, job->pool, pl->start, end,
				   pl->size, false, 1);
	ga_plan_place_job(st->plan, c->p, j, pl->start, pl->first, pl->size);
	st->job_value[j] = pl->run;
	st->jobs_value += pl->run;
	spend(c, (long) pl->size * (end < c->T ? end - pl->start : c->T - pl->start));
}

static void
current_placement(const fast_state *st, int j, placement *pl)
{
	pl->start = st->plan->job_start[j];
	pl->size = st->plan->job_size[j];
	pl->first = st->plan->job_first_gpu[j];
	pl->run = st->job_value[j];
	pl->value = st->job_value[j];
}

/* Take a non-pinned job off the grid. */
static void
remove_job(const fast_ctx *c, fast_state *st, int j)
{
	ga_job		view = placed_view(c, j, st->plan->job_first_gpu[j]);
	const ga_job *job = &view;
	const pool_geom *pg = &c->pools[job->pool];
	ga_plan    *plan = st->plan;
	int			start = plan->job_start[j];
	int			size = plan->job_size[j];
	int			first = plan->job_first_gpu[j];
	int			end = start + ga_job_duration(job, job->pool, size);
	int			to = end < c->T ? end : c->T;

	tree_unmark_job(c, st, pg, first - pg->first_gpu, size, start, to);
	count_job(c, st, job, start, first, size, -1);
	count_after(c, st, job->pool, start, end, first, size, -1);
	ga_quota_count(c->quota, st->quota_use, job->tenant, job->pool, start, end, size,
				   false, -1);
	for (int g = first; g < first + size; g++)
		for (int t = start; t < to; t++)
			ga_plan_set(plan, g, t, GA_IDLE);
	plan->job_start[j] = -1;
	plan->job_size[j] = -1;
	plan->job_first_gpu[j] = -1;
	st->jobs_value -= st->job_value[j];
	st->job_value[j] = 0;
	spend(c, (long) size * (to - start));
}

static bool
is_scheduled(const fast_state *st, int j)
{
	return st->plan->job_size[j] > 0;
}

/* ------------------------------------------------------------------------
 * Services.
 * ------------------------------------------------------------------------ */

/* Give back the GPUs set aside for service s before it is placed. */
static void
release_held(const fast_ctx *c, fast_state *st, int s)
{
	const ga_service *svc = &c->p->services[s];
	const pool_geom *pg = &c->pools[svc->pool];

	for (int i = 0; i < svc->n_held; i++)
	{
		int			g = svc->held_gpus[i];

		if (st->reserved_by[g] != s)
			continue;
		tree_unmark(c, st, pg, g - pg->first_gpu, 1, 0, c->reserved_until[g]);
		st->reserved_by[g] = -1;
	}
}

/*
 * Free GPUs of the pool per step.  The leaves' free bits are summed word by
 * word in bit-sliced counters (plane i holds bit i of every step's count),
 * a few word operations per GPU instead of one per free cell.
 */
static void
service_capacity(const fast_ctx *c, const fast_state *st, const pool_geom *pg,
				 int *cap)
{
	int			n_planes = pg->n_gpus > 0 ? 32 - __builtin_clz((unsigned) pg->n_gpus) : 0;

	for (int w = 0; w < c->W; w++)
	{
		uint64_t	plane[32] = {0};
		uint64_t	steps = word_range_mask(w, 0, c->T);

		for (int rel = 0; rel < pg->n_gpus; rel++)
		{
			uint64_t	carry = ~service_leaf(c, st, pg, rel)[w] & steps;

			for (int i = 0; carry != 0; i++)
			{
				uint64_t	next = plane[i] & carry;

				plane[i] ^= carry;
				carry = next;
			}
		}
		for (int t = w * 64; t < c->T && t < w * 64 + 64; t++)
		{
			int			count = 0;

			for (int i = 0; i < n_planes; i++)
				count |= (int) ((plane[i] >> (t & 63)) & 1) << i;
			cap[t] = count;
		}
	}
}

/*
 * Target GPU count per step: demand capped by max_gpus and free capacity,
 * raised ahead of every rise by churn_limit per step so the rise is met.
 * When following that curve would overspend the churn budget, the count is
 * never lowered (only rises spend budget then).
 */
static void
service_targets(const fast_ctx *c, const ga_service *svc, int n_start,
				const int *cap, int *want)
{
	int			T = c->T;
	int			L = svc->churn_limit;

	for (int t = 0; t < T; t++)
	{
		int			d = svc->demand[t] < svc->max_gpus ? svc->demand[t] : svc->max_gpus;

		want[t] = d < cap[t] ? d : cap[t];
	}
	for (int t = T - 2; t >= 0; t--)
	{
		int			need = want[t + 1] - L;
		int			room = cap[t] < svc->max_gpus ? cap[t] : svc->max_gpus;

		if (need > want[t])
			want[t] = need < room ? need : room;
	}
	if (svc->churn_budget >= 0)
	{
		int			prev = svc->held_known ? n_start : want[0];
		long		planned = 0;

		for (int t = 0; t < T; t++)
		{
			planned += abs(want[t] - prev);
			prev = want[t];
		}
		if (planned > svc->churn_budget)
		{
			int			level = svc->held_known ? n_start : want[0];

			if (level > svc->max_gpus)
				level = svc->max_gpus;
			for (int t = 0; t < T; t++)
			{
				if (want[t] > level)
					level = want[t];
				want[t] = level < cap[t] ? level : cap[t];
			}
		}
	}
}

/*
 * Make GPU rel a member until `end`, the first step at which it is busy
 * with something else (so must be handed over; T: never).  That handover
 * counts against the churn limit unless what takes it is closed to the
 * service whatever the plan (ga_service_churn).
 */
static void
add_member(fast_ctx *c, const fast_state *st, int s, const pool_geom *pg, int rel, int end)
{
	bool		charged = end < c->T &&
		ga_service_may_hold(c->p, st->plan, s, pg->first_gpu + rel, end);

	c->member[rel >> 6] |= UINT64_C(1) << (rel & 63);
	c->member_end[rel] = end;
	c->member_charged[rel] = charged;
	c->forced_at[end]++;
	c->charged_at[end] += charged;
	c->n_pending += charged;
}

/* The first member at or after rel, or the pool's size. */
static inline int
next_member(const fast_ctx *c, const pool_geom *pg, int rel)
{
	return next_set(c->member, rel, pg->n_gpus);
}

/* Start from the GPUs the service holds now; returns their count. */
static int
seed_members(fast_ctx *c, const fast_state *st, int s)
{
	const ga_service *svc = &c->p->services[s];
	const pool_geom *pg = &c->pools[svc->pool];
	int			count = 0;

	memset(c->member, 0, sizeof(uint64_t) * ((pg->n_gpus + 63) / 64));
	memset(c->forced_at, 0, sizeof(int) * (c->T + 1));
	memset(c->charged_at, 0, sizeof(int) * (c->T + 1));
	c->n_pending = 0;
	if (!svc->held_known)
		return 0;
	for (int i = 0; i < svc->n_held; i++)
	{
		int			rel = svc->held_gpus[i] - pg->first_gpu;

		if (bit_is_set(c->member, rel))
			continue;
		add_member(c, st, s, pg, rel, next_set(service_leaf(c, st, pg, rel), 0, c->T));
		count++;
	}
	return count;
}

static void
drop_member(fast_ctx *c, int rel)
{
	c->member[rel >> 6] &= ~(UINT64_C(1) << (rel & 63));
	c->forced_at[c->member_end[rel]]--;
	c->charged_at[c->member_end[rel]] -= c->member_charged[rel];
	c->n_pending -= c->member_charged[rel];
}

/*
 * Drop members that are busy at step t; returns how many.  *lost: those
 * the service could not keep whatever the plan (closed, unusable, under a
 * pinned job): they leave without counting against its churn limit
 * (ga_service_churn).
 */
static int
drop_busy_members(fast_ctx *c, const fast_state *st, int s, const pool_geom *pg, int t,
				  int *lost)
{
	int			dropped = 0;

	*lost = 0;
	for (int rel = next_member(c, pg, 0); rel < pg->n_gpus; rel = next_member(c, pg, rel + 1))
		if (bit_is_set(service_leaf(c, st, pg, rel), t))
		{
			drop_member(c, rel);
			dropped++;
			*lost += !ga_service_may_hold(c->p, st->plan, s, pg->first_gpu + rel, t);
		}
	return dropped;
}

/*
 * Members that must be handed over at step t, ahead of time, so that the
 * handovers forced at later steps never exceed the churn limit: the excess
 * of each later step is carried back one step at a time.  GPUs a window or
 * a reservation will take leave uncounted then, so none goes early for them.
 */
static int
early_drops_needed(const fast_ctx *c, int t, int limit)
{
	int			excess = 0;

	if (c->n_pending == 0)
		return 0;
	for (int u = c->T - 1; u > t; u--)
	{
		int			x = c->charged_at[u] + excess;

		excess = x > limit ? x - limit : 0;
	}
	return excess;
}

/* Release the n members that will be taken from the service soonest. */
static void
drop_soonest_taken(fast_ctx *c, const pool_geom *pg, int n)
{
	while (n-- > 0)
	{
		int			pick = -1;

		for (int rel = next_member(c, pg, 0); rel < pg->n_gpus; rel = next_member(c, pg, rel + 1))
			if (c->member_end[rel] < c->T &&
				(pick < 0 || c->member_end[rel] < c->member_end[pick]))
				pick = rel;
		if (pick < 0)
			return;
		drop_member(c, pick);
	}
}

/*
 * Release n members: first those that would be taken from the service later
 * anyway, then the lowest, so the service stays packed at the high end.
 */
static void
drop_members(fast_ctx *c, const pool_geom *pg, int n)
{
	for (int rel = next_member(c, pg, 0); rel < pg->n_gpus && n > 0; rel = next_member(c, pg, rel + 1))
		if (c->member_end[rel] < c->T)
		{
			drop_member(c, rel);
			n--;
		}
	for (int rel = next_member(c, pg, 0); rel < pg->n_gpus && n > 0; rel = next_member(c, pg, rel + 1))
	{
		drop_member(c, rel);
		n--;
	}
}

/*
 * Add up to n GPUs free at step t, highest first: those free to the end of
 * the horizon, then those free only until a later step, the longest free
 * first.  Such a GPU goes back when its next workload starts, a handover the
 * service must afford then; it is taken only without a churn budget, only
 * when it serves at least two steps, and only while every handover already
 * due fits the churn limit at the steps after t (early_drops_needed stays
 * 0), so the service is never forced past its limit.  Without these GPUs a
 * service ranked behind another in the same pool could be left short while
 * a GPU the other takes later sits idle.
 */
static int
add_members(fast_ctx *c, const fast_state *st, const ga_service *svc,
			const pool_geom *pg, int t, int n)
{
	int			s = (int) (svc - c->p->services);
	int			added = 0;

	for (int rel = pg->n_gpus - 1; rel >= 0 && added < n; rel--)
	{
		if (bit_is_set(c->member, rel) || !free_over(service_leaf(c, st, pg, rel), t, c->T))
			continue;
		add_member(c, st, s, pg, rel, c->T);
		added++;
	}
	while (added < n && svc->churn_budget < 0)
	{
		int			pick = -1;
		int			pick_end = t + 1;

		for (int rel = pg->n_gpus - 1; rel >= 0; rel--)
		{
			const uint64_t *m = service_leaf(c, st, pg, rel);
			int			end;

			if (bit_is_set(c->member, rel) || bit_is_set(m, t))
				continue;
			end = next_set(m, t, c->T);
			if (end > pick_end)
			{
				pick = rel;
				pick_end = end;
			}
		}
		if (pick < 0)
			break;
		add_member(c, st, s, pg, pick, pick_end);
		if (early_drops_needed(c, t, svc->churn_limit) > 0)
		{
			drop_member(c, pick);
			break;
		}
		added++;
	}
	return added;
}

/*
 * Write the service's GPUs of step t into the grid; the tree gets each
 * GPU's run of steps at once when the run ends (mark_served_runs).  The
 * placement reads only the leaves from step t on, which marks of earlier
 * steps never touch, so marking a run in one go leaves every decision as
 * cell-by-cell marking did, for a fraction of the tree climbs.
 */
static int
commit_service_step(const fast_ctx *c, fast_state *st, int s,
					const pool_geom *pg, int t)
{
	int32_t		w = ga_service_workload(c->p, s);
	int			count = 0;

	for (int word = 0; word < (pg->n_gpus + 63) / 64; word++)
	{
		uint64_t	held = c->member[word];
		uint64_t	ended = c->serving[word] & ~held;
		uint64_t	started = held & ~c->serving[word];

		for (; ended != 0; ended &= ended - 1)
		{
			int			rel = word * 64 + __builtin_ctzll(ended);

			tree_mark(c, st, pg, rel, 1, c->served_from[rel], t);
		}
		for (; started != 0; started &= started - 1)
			c->served_from[word * 64 + __builtin_ctzll(started)] = t;
		for (; held != 0; held &= held - 1)
		{
			ga_plan_set(st->plan, pg->first_gpu + word * 64 + __builtin_ctzll(held), t, w);
			count++;
		}
		c->serving[word] = c->member[word];
	}
	return count;
}

/* Mark the runs still open at step `end` in the tree. */
static void
mark_served_runs(const fast_ctx *c, fast_state *st, const pool_geom *pg, int end)
{
	for (int word = 0; word < (pg->n_gpus + 63) / 64; word++)
	{
		for (uint64_t open = c->serving[word]; open != 0; open &= open - 1)
		{
			int			rel = word * 64 + __builtin_ctzll(open);

			tree_mark(c, st, pg, rel, 1, c->served_from[rel], end);
		}
		c->serving[word] = 0;
	}
}

/* Held GPUs a service that can keep `kept` of them must give up for max_gpus. */
static int
held_beyond_max(const ga_service *svc, int kept)
{
	return svc->held_known && kept > svc->max_gpus ? kept - svc->max_gpus : 0;
}

static ga_status
no_legal_service_plan(const fast_ctx *c, const ga_service *svc, int n, int t)
{
	return ga_error_set(c->err, GA_EINVAL,
						"service \"%s\" must hand over %d GPUs at step %d (GPUs its plan gives to jobs, now or soon), more than its churn limit or budget allows: no legal plan exists",
						svc->name, n, t);
}

/*
 * Under a churn budget, the moves toward the target at a step leave enough
 * of the budget for the members that will be taken later (a maintenance
 * window ahead, say), each a handover the service cannot refuse.
 */
static int
keep_budget_for_pending(const fast_ctx *c, int room, int budget_after)
{
	int			spare = budget_after - c->n_pending;

	if (spare < 0)
		spare = 0;
	return room < spare ? room : spare;
}

/*
 * The count to aim for at step t, when `count` members remain after this
 * step's handovers: the target, raised by the replacements the next step
 * cannot bring up itself.  Members taken at t + 1 (by a job, a maintenance
 * window, an advance reservation) leave with a handover each, which uses
 * the churn limit of that step; the service then cannot also add their
 * replacements there, and a move off a node a window closes (two handovers
 * a GPU) would leave it short for a step.  So the replacements that do not
 * fit at t + 1 come up at t, as a service starts a new replica before it
 * drains the old one.
 */
static int
target_ahead_of_handovers(const fast_ctx *c, const ga_service *svc, int t, int count)
{
	int			taken = t + 1 < c->T ? c->forced_at[t + 1] : 0;
	int			room_next = svc->churn_limit - taken;
	int			short_next = c->want[t + 1 < c->T ? t + 1 : t] - (count - taken);
	int			pre = short_next - (room_next > 0 ? room_next : 0);
	int			target = c->want[t];

	if (taken > 0 && pre > 0 && count + pre > target)
		target = count + pre;
	return target < svc->max_gpus ? target : svc->max_gpus;
}

/*
 * Follow the target counts step by step.  Handovers that cannot be avoided
 * (a GPU taken at this step, or one taken later that must go now to spread
 * the handovers) come first; what is left of the churn limit and budget
 * moves the count toward the target (target_ahead_of_handovers).
 */
static ga_status
place_service(fast_ctx *c, fast_state *st, int s)
{
	const ga_problem *p = c->p;
	const ga_service *svc = &p->services[s];
	const pool_geom *pg = &c->pools[svc->pool];
	int			budget_left = svc->churn_budget >= 0 ? svc->churn_budget : INT_MAX;
	int			count;

	spend(c, (long) c->T * pg->n_gpus);
	release_held(c, st, s);
	service_capacity(c, st, pg, c->cap);
	count = seed_members(c, st, s);
	service_targets(c, svc, count, c->cap, c->want);
	memset(c->serving, 0, sizeof(uint64_t) * ((pg->n_gpus + 63) / 64));
	for (int t = 0; t < c->T; t++)
	{
		bool		limited = t > 0 || svc->held_known;
		int			lim = limited ? (svc->churn_limit < budget_left ? svc->churn_limit : budget_left) : INT_MAX;
		int			lost;
		int			forced = drop_busy_members(c, st, s, pg, t, &lost);
		int			exempt = lost + (t == 0 ? held_beyond_max(svc, count - lost) : 0);
		int			early = early_drops_needed(c, t, svc->churn_limit);
		int			over;
		int			chosen;
		int			room;
		int			target;
		int			moved = 0;

		/* early drops spread later handovers; GPUs taken anyway need none */
		if (forced + early - exempt > lim)
			early = forced - exempt < lim ? lim - forced + exempt : 0;
		drop_soonest_taken(c, pg, early);
		count -= forced + early;
		over = count > svc->max_gpus ? count - svc->max_gpus : 0;
		drop_members(c, pg, over);
		count -= over;
		chosen = forced + early + over - exempt;
		if (chosen > lim)
		{
			mark_served_runs(c, st, pg, t);
			return no_legal_service_plan(c, svc, chosen, t);
		}
		room = lim - chosen;
		if (limited && svc->churn_budget >= 0)
			room = keep_budget_for_pending(c, room, budget_left - chosen);
		target = target_ahead_of_handovers(c, svc, t, count);
		if (count > target)
		{
			moved = count - target < room ? count - target : room;
			drop_members(c, pg, moved);
		}
		else if (count < target)
			moved = add_members(c, st, svc, pg, t, target - count < room ? target - count : room);
		if (limited && svc->churn_budget >= 0)
			budget_left -= chosen + moved;
		count = commit_service_step(c, st, s, pg, t);
		if (svc->demand[t] > count)
			st->service_value -= p->params.penalty * svc->priority *
				ga_shortfall_decay(p, t) * (svc->demand[t] - count);
	}
	mark_served_runs(c, st, pg, c->T);
	return GA_OK;
}

/* ------------------------------------------------------------------------
 * State set-up: trees, pinned jobs, held GPUs.
 * ------------------------------------------------------------------------ */

static void
state_destroy(fast_state *st)
{
	if (st == NULL)
		return;
	ga_plan_destroy(st->plan);
	free(st->bits);
	free(st->full);
	free(st->job_value);
	free(st->reserved_by);
	free(st->batch_used);
	free(st->after_held);
	free(st->quota_use);
	free(st);
}

static fast_state *
state_create(const fast_ctx *c)
{
	fast_state *st = calloc(1, sizeof(*st));

	if (st == NULL)
		return NULL;
	st->plan = ga_plan_create(c->p);
	st->bits = calloc(2 * c->n_words + 1, sizeof(uint64_t));
	st->full = calloc(c->n_full_words + 1, sizeof(uint64_t));
	st->job_value = calloc(c->p->n_jobs > 0 ? c->p->n_jobs : 1, sizeof(double));
	st->reserved_by = malloc(sizeof(int) * (c->p->n_gpus > 0 ? c->p->n_gpus : 1));
	st->batch_used = calloc((size_t) 2 * (c->p->n_pools > 0 ? c->p->n_pools : 1) * c->T, sizeof(int));
	st->after_held = calloc((size_t) c->p->n_pools * c->term->steps + 1, sizeof(int));
	st->quota_use = calloc(ga_quota_use_len(c->quota), sizeof(int));
	if (!st->plan || !st->bits || !st->full || !st->job_value || !st->reserved_by ||
		!st->batch_used || !st->after_held || !st->quota_use)
	{
		state_destroy(st);
		return NULL;
	}
	for (int g = 0; g < c->p->n_gpus; g++)
		st->reserved_by[g] = -1;
	return st;
}

static void
state_copy(const fast_ctx *c, fast_state *dst, const fast_state *src)
{
	const ga_problem *p = c->p;
	int			nj = p->n_jobs > 0 ? p->n_jobs : 1;

	memcpy(dst->plan->cell, src->plan->cell,
		   sizeof(int32_t) * (size_t) p->n_gpus * c->T);
	memcpy(dst->plan->job_start, src->plan->job_start, sizeof(int) * nj);
	memcpy(dst->plan->job_size, src->plan->job_size, sizeof(int) * nj);
	memcpy(dst->plan->job_first_gpu, src->plan->job_first_gpu, sizeof(int) * nj);
	memcpy(dst->bits, src->bits, sizeof(uint64_t) * 2 * c->n_words);
	memcpy(dst->full, src->full, sizeof(uint64_t) * c->n_full_words);
	memcpy(dst->job_value, src->job_value, sizeof(double) * nj);
	memcpy(dst->reserved_by, src->reserved_by, sizeof(int) * p->n_gpus);
	memcpy(dst->batch_used, src->batch_used, sizeof(int) * (size_t) 2 * p->n_pools * c->T);
	memcpy(dst->after_held, src->after_held, sizeof(int) * (size_t) p->n_pools * c->term->steps);
	memcpy(dst->quota_use, src->quota_use, sizeof(int) * ga_quota_use_len(c->quota));
	dst->service_value = src->service_value;
	dst->jobs_value = src->jobs_value;
	dst->terminal_cost = src->terminal_cost;
	spend(c, (long) p->n_gpus * c->T / 16 + nj);
}

/* Leaves of maintenance windows are busy at the window's steps inside the horizon. */
static void
mark_windows(const fast_ctx *c, fast_state *st, int layer, int pool)
{
	const pool_geom *pg = &c->pools[pool];

	for (int i = 0; i < c->p->n_windows; i++)
	{
		const ga_window *w = &c->p->windows[i];
		int			from = w->start_step > 0 ? w->start_step : 0;
		int			to = w->end_step < c->T ? w->end_step : c->T;

		if (w->pool != pool || from >= to)
			continue;
		for (int g = w->first_gpu; g < w->first_gpu + w->n_gpus; g++)
			bits_set_range(layer_node(c, st, layer, pg, pg->span + g - pg->first_gpu), from, to);
	}
}

/*
 * Leaves of unusable GPUs and of the padding past the pool are always busy;
 * those of maintenance windows over the window's steps.
 */
static void
init_trees(const fast_ctx *c, fast_state *st)
{
	for (int i = 0; i < c->p->n_pools; i++)
	{
		const pool_geom *pg = &c->pools[i];

		for (int layer = 0; layer < 2; layer++)
		{
			for (int rel = 0; rel < pg->span; rel++)
				if (rel >= pg->n_gpus || !c->p->gpu_usable[pg->first_gpu + rel])
					bits_set_range(layer_node(c, st, layer, pg, pg->span + rel), 0, c->T);
			mark_windows(c, st, layer, i);
			for (int node = pg->span - 1; node >= 1; node--)
			{
				uint64_t   *m = layer_node(c, st, layer, pg, node);
				const uint64_t *left = layer_node(c, st, layer, pg, 2 * node);
				const uint64_t *right = layer_node(c, st, layer, pg, 2 * node + 1);

				for (int w = 0; w < c->W; w++)
					m[w] = left[w] | right[w];
			}
		}
		for (int node = pg->span - 1; node >= 1 && pg->levels > 0; node--)
			full_from_children(c, st, pg, node, 0, c->W - 1);
	}
}

static ga_status
place_pinned(const fast_ctx *c, fast_state *st)
{
	const ga_problem *p = c->p;

	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		const pool_geom *pg = &c->pools[job->pool];
		int			from = job->pinned_start > 0 ? job->pinned_start : 0;
		int			to = job->pinned_end < c->T ? job->pinned_end : c->T;

		if (!job->pinned)
			continue;
		for (int g = job->pinned_first_gpu; g < job->pinned_first_gpu + job->pinned_size; g++)
			for (int t = from; t < to; t++)
				if (ga_plan_get(st->plan, g, t) != GA_IDLE)
					return ga_error_set(c->err, GA_EINVAL,
										"pinned jobs \"%s\" and \"%s\" both hold GPU %d at step %d",
										p->jobs[ga_plan_get(st->plan, g, t)].name,
										job->name, g, t);
		tree_mark_job(c, st, pg, job->pinned_first_gpu - pg->first_gpu,
				  job->pinned_size, from, to);
		count_block(c, st, job, job->pinned_start, job->pinned_end - job->pinned_start,
					job->pinned_first_gpu, job->pinned_size,
					ga_usable_gpus(p, job->pinned_first_gpu, job->pinned_size), false, 1);
		count_after(c, st, job->pool, job->pinned_start, job->pinned_end,
					job->pinned_first_gpu, job->pinned_size, 1);
		ga_quota_count(c->quota, st->quota_use, job->tenant, job->pool, job->pinned_start,
					   job->pinned_end, job->pinned_size, true, 1);
		ga_plan_place_job(st->plan, p, j, job->pinned_start,
						  job->pinned_first_gpu, job->pinned_size);
		st->job_value[j] = run_value(c, job, job->pinned_start,
									 job->pinned_end, job->pinned_size);
		st->jobs_value += st->job_value[j];
	}
	return GA_OK;
}

/*
 * Set aside the GPUs each service holds now, so batch work placed before the
 * service cannot force more handovers than its churn limit allows.  A held
 * GPU that something closes later (a window, an advance reservation) is set
 * aside until then: taken from the service there, it costs no churn
 * (ga_service_churn), but given to a job sooner it would.  Of the others a
 * service may hand over churn_limit GPUs per step, so the GPU it would drop
 * r-th (the lowest first) only needs to be kept until step r / churn_limit;
 * under a churn budget every held GPU is set aside for the whole horizon, as
 * handovers may be unaffordable.
 */
static void
reserve_held(fast_ctx *c, fast_state *st)
{
	const ga_problem *p = c->p;

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		const pool_geom *pg = &c->pools[svc->pool];
		int			n_good = 0;

		if (!svc->held_known)
			continue;
		for (int i = 0; i < svc->n_held; i++)
		{
			int			g = svc->held_gpus[i];
			int			busy = next_set(service_leaf(c, st, pg, g - pg->first_gpu), 0, c->T);

			if (st->reserved_by[g] >= 0)
				continue;
			st->reserved_by[g] = s;
			if (busy < c->T)
			{
				c->reserved_until[g] = busy;
				tree_mark(c, st, pg, g - pg->first_gpu, 1, 0, busy);
			}
			else
				c->held_sorted[n_good++] = g;
		}
		/* lowest first, the order a service drops them */
		qsort(c->held_sorted, n_good, sizeof(int), ga_compare_int);
		for (int r = 0; r < n_good; r++)
		{
			int			g = c->held_sorted[r];
			int			until = r / svc->churn_limit;

			if (svc->churn_budget >= 0 || until > c->T)
				until = c->T;
			c->reserved_until[g] = until;
			tree_mark(c, st, pg, g - pg->first_gpu, 1, 0, until);
		}
	}
}

/* ------------------------------------------------------------------------
 * Claim order and construction.
 * ------------------------------------------------------------------------ */

typedef struct claim_key
{
	double		key[N_SORT_KEYS];
	int			claim;
} claim_key;

static int
compare_claims(const void *a, const void *b)
{
	const claim_key *x = a;
	const claim_key *y = b;

	for (int i = 0; i < N_SORT_KEYS; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return x->claim - y->claim;
}

/*
 * Keys of job j in an order variant.  Variants 0-2 and 4 serve the densest
 * claim first (a service's density is the penalty of one unmet GPU-step,
 * services before jobs of equal density) and differ in the tie-break;
 * variant 3 serves jobs in release order (densest first within a step),
 * which fills the early, most valuable steps with what can run then.
 */
static void
set_keys(double *k, double k0, double k2, double k3, double k4)
{
	k[0] = k0;
	k[1] = 1;					/* jobs after services of equal density */
	k[2] = k2;
	k[3] = k3;
	k[4] = k4;
}

static void
job_keys(const ga_job *job, int variant, double *k)
{
	double		dense = -job->priority;
	double		release = job->release_step;
	double		big = -(double) job->gpus_max;
	double		work = job->work_gpu_steps;

	switch (variant)
	{
		case 0:
			set_keys(k, dense, release, big, -work);
			break;
		case 1:
			set_keys(k, dense, release, work, big);
			break;
		case 2:
			set_keys(k, dense, big, -work, release);
			break;
		case 3:
			set_keys(k, release, dense, big, -work);
			break;
		default:
			set_keys(k, dense, work, release, big);
			break;
	}
}

static void
service_keys(const fast_ctx *c, const ga_service *svc, int variant, double *k)
{
	for (int i = 0; i < N_SORT_KEYS; i++)
		k[i] = 0;
	k[0] = variant == 3 ? -1 : -c->p->params.penalty * svc->priority;
}

/* Claims (non-pinned jobs j, services n_jobs + s) in the order of a variant. */
static int
build_order(const fast_ctx *c, int variant, int *order)
{
	const ga_problem *p = c->p;
	claim_key  *keys = c->keys;
	int			n = 0;

	for (int j = 0; j < p->n_jobs; j++)
	{
		if (p->jobs[j].pinned)
			continue;
		job_keys(&p->jobs[j], variant, keys[n].key);
		keys[n].claim = j;
		n++;
	}
	for (int s = 0; s < p->n_services; s++)
	{
		service_keys(c, &p->services[s], variant, keys[n].key);
		keys[n].claim = p->n_jobs + s;
		n++;
	}
	qsort(keys, n, sizeof(claim_key), compare_claims);
	for (int i = 0; i < n; i++)
		order[i] = keys[i].claim;
	return n;
}

/*
 * Before the claims in order, each job of a tenant with an advance
 * reservation that can hold it starts inside it, on its GPUs, as soon as
 * it opens (or the job is released), densest first: the GPUs are the
 * tenant's, so no other claim competes for them, but the protect rule
 * past the reservation's end and the value of the run still decide.  A job
 * that finds no such start is left to the order.
 */
static void
place_in_reservations(const fast_ctx *c, fast_state *st, const int *order)
{
	for (int i = 0; c->p->n_reservations > 0 && i < c->n_order; i++)
	{
		const ga_window *w;
		placement	pl;

		if (order[i] >= c->p->n_jobs ||
			(w = own_reservation(c, &c->p->jobs[order[i]])) == NULL)
			continue;
		if (find_reserved_placement(c, st, order[i], w, &pl) && pl.value > 0)
			apply_placement(c, st, order[i], &pl);
	}
}

/* Whether placement pl of job j (not on st) keeps its tenant within its guarantee. */
static bool
within_guarantee(const fast_ctx *c, const fast_state *st, int j, const placement *pl)
{
	ga_job		view = placed_view(c, j, pl->first);

	return ga_quota_within_guarantee(c->quota, st->quota_use, view.tenant, view.pool, pl->start,
									 pl->start + ga_job_duration(&view, view.pool, pl->size),
									 pl->size);
}

/*
 * Work within a tenant's guarantee has first claim on it: before the
 * claims in order, each job whose best placement keeps its tenant within
 * its guarantee in the pool at every step of its run goes in, densest
 * first, so a job that would borrow is placed only around what the
 * lenders' own work takes (and R10 then keeps it off that).
 */
static void
place_within_guarantees(const fast_ctx *c, fast_state *st, const int *order)
{
	for (int i = 0; ga_quota_any(c->quota) && i < c->n_order; i++)
	{
		int			j = order[i];
		placement	pl;

		if (j >= c->p->n_jobs || is_scheduled(st, j) || cancelled(c) ||
			!find_best_placement(c, st, j, &pl) || !(pl.value > 0))
			continue;
		if (within_guarantee(c, st, j, &pl))
			apply_placement(c, st, j, &pl);
	}
}

/*
 * The services ahead of every job in the order go in first, before the
 * first claim of the guarantees: a job placed ahead of a service could
 * take GPUs the service holds, which it may then have to give up faster
 * than its churn limit lets it take others.  *first: the first claim left.
 */
static ga_status
place_leading_services(fast_ctx *c, fast_state *st, const int *order, int *first)
{
	for (*first = 0; *first < c->n_order && order[*first] >= c->p->n_jobs; (*first)++)
	{
		ga_status	rc = place_service(c, st, order[*first] - c->p->n_jobs);

		if (rc != GA_OK)
			return rc;
	}
	return GA_OK;
}

/*
 * Build a grid from base by serving the claims in order.  A job goes in only
 * when it raises the objective (its run is worth more than the terminal
 * charge it adds).  With timed set, the build is abandoned (*aborted) once
 * the improvement phase's work budget is spent.
 */
static ga_status
construct(fast_ctx *c, fast_state *st, const fast_state *base,
		  const int *order, bool timed, bool *aborted)
{
	int			first = 0;
	ga_status	rc;

	*aborted = false;
	state_copy(c, st, base);
	place_in_reservations(c, st, order);
	if ((rc = place_leading_services(c, st, order, &first)) != GA_OK)
		return rc;
	place_within_guarantees(c, st, order);
	for (int i = first; i < c->n_order; i++)
	{
		int			claim = order[i];

		if (claim < c->p->n_jobs && is_scheduled(st, claim))
			continue;
		if (cancelled(c))
			return ga_error_set(c->err, GA_ECANCEL, "fast solve cancelled");
		if (timed && *c->work >= c->work_limit)
		{
			*aborted = true;
			return GA_OK;
		}
		if (claim < c->p->n_jobs)
		{
			placement pl;

			if (find_best_placement(c, st, claim, &pl) && pl.value > 0)
				apply_placement(c, st, claim, &pl);
		}
		else if ((rc = place_service(c, st, claim - c->p->n_jobs)) != GA_OK)
			return rc;
	}
	return GA_OK;
}

/* ------------------------------------------------------------------------
 * Improvement moves.  Each returns true when it kept a change.
 * ------------------------------------------------------------------------ */

typedef enum move_stop
{
	MOVE_GO = 0,
	MOVE_LIMIT,					/* move cap or work budget: deterministic */
	MOVE_CLOCK,					/* the safety cap on the clock */
	MOVE_CANCEL
} move_stop;

typedef struct move_budget
{
	ga_fast_stats *stats;
	move_stop	stop;
} move_budget;

/* Count one move; false when the improvement phase must end. */
static bool
next_move(const fast_ctx *c, move_budget *mb)
{
	if (mb->stop != MOVE_GO)
		return false;
	if (cancelled(c))
		mb->stop = MOVE_CANCEL;
	else if (mb->stats->moves_tried >= GA_FAST_MAX_MOVES || *c->work >= c->work_limit)
		mb->stop = MOVE_LIMIT;
	else if (ga_now_ms() >= c->stop_ms)
		mb->stop = MOVE_CLOCK;
	if (mb->stop != MOVE_GO)
		return false;
	mb->stats->moves_tried++;
	return true;
}

static void
kept(move_budget *mb, bool *gained)
{
	mb->stats->moves_kept++;
	*gained = true;
}

/*
 * Take job j off and put it back at its best place now (earlier, resized);
 * kept when the objective rises.
 */
static bool
try_reinsert(const fast_ctx *c, fast_state *st, int j)
{
	placement old;
	placement cand;
	double		before = state_objective(c, st);

	current_placement(st, j, &old);
	remove_job(c, st, j);
	if (find_best_placement(c, st, j, &cand))
	{
		apply_placement(c, st, j, &cand);
		if (improves(state_objective(c, st), before))
			return true;
		remove_job(c, st, j);
	}
	apply_placement(c, st, j, &old);
	return false;
}

static bool
try_insert(const fast_ctx *c, fast_state *st, int j)
{
	placement cand;

	if (!find_best_placement(c, st, j, &cand) || !(cand.value > 0))
		return false;
	apply_placement(c, st, j, &cand);
	return true;
}

/*
 * Take job v off to make room for job u, then put v back wherever it fits;
 * keep the exchange when the two together are worth more.  A job within
 * its tenant's guarantee is never moved aside for a job that would not be
 * within its own, even of the same tenant: that one could borrow, and
 * then be moved aside in turn by another tenant's, and the guarantee's
 * first claim (place_within_guarantees) must hold through the moves too.
 */
static bool
try_exchange(const fast_ctx *c, fast_state *st, int u, int v)
{
	placement old_u;
	placement old_v;
	placement new_u;
	placement new_v;
	bool		u_was = is_scheduled(st, u);
	bool		v_back;
	double		before = state_objective(c, st);

	bool		v_claims;

	current_placement(st, u, &old_u);
	current_placement(st, v, &old_v);
	remove_job(c, st, v);
	if (u_was)
		remove_job(c, st, u);
	v_claims = ga_quota_any(c->quota) && within_guarantee(c, st, v, &old_v);
	if (find_best_placement(c, st, u, &new_u) &&
		(!v_claims || within_guarantee(c, st, u, &new_u)))
	{
		apply_placement(c, st, u, &new_u);
		v_back = find_best_placement(c, st, v, &new_v);
		if (v_back)
			apply_placement(c, st, v, &new_v);
		if (improves(state_objective(c, st), before))
			return true;
		remove_job(c, st, u);
		if (v_back)
			remove_job(c, st, v);
	}
	apply_placement(c, st, v, &old_v);
	if (u_was)
		apply_placement(c, st, u, &old_u);
	return false;
}

/* Whether removing v could let u start earlier than it does now. */
static bool
exchange_candidate(const fast_ctx *c, const fast_state *st, int u, int v)
{
	const ga_job *ju = &c->p->jobs[u];
	const ga_job *jv = &c->p->jobs[v];
	int			u_start = is_scheduled(st, u) ? st->plan->job_start[u] : c->T;
	int			v_pool;
	int			v_start;
	int			v_end;

	if (v == u || jv->pinned || !is_scheduled(st, v))
		return false;
	v_pool = ga_pool_of_gpu(c->p, st->plan->job_first_gpu[v]);
	if (ga_job_pool_rank(ju, v_pool) < 0)
		return false;
	v_start = st->plan->job_start[v];
	v_end = v_start + ga_job_duration(jv, v_pool, st->plan->job_size[v]);
	return v_start < u_start && v_end > ju->release_step;
}

static bool
exchange_pass(const fast_ctx *c, fast_state *st, move_budget *mb)
{
	bool		gained = false;

	for (int i = 0; i < c->n_job_order; i++)
	{
		int			u = c->job_order[i];

		if (is_scheduled(st, u) && st->plan->job_start[u] <= c->p->jobs[u].release_step)
			continue;
		for (int k = c->n_job_order - 1; k >= 0; k--)
		{
			int			v = c->job_order[k];

			if (!exchange_candidate(c, st, u, v))
				continue;
			if (!next_move(c, mb))
				return gained;
			if (try_exchange(c, st, u, v))
			{
				kept(mb, &gained);
				break;
			}
		}
	}
	return gained;
}

/* One round of local moves on st, densest jobs first. */
static bool
local_round(const fast_ctx *c, fast_state *st, move_budget *mb)
{
	bool		gained = false;

	for (int i = 0; i < c->n_job_order; i++)
	{
		int			j = c->job_order[i];
		bool		ok;

		if (!next_move(c, mb))
			return gained;
		ok = is_scheduled(st, j) ? try_reinsert(c, st, j) : try_insert(c, st, j);
		if (ok)
			kept(mb, &gained);
	}
	if (exchange_pass(c, st, mb))
		gained = true;
	return gained;
}

/* Build from c->try_order; keep it (and its order) when it beats *best. */
static ga_status
try_order(fast_ctx *c, fast_state **best, fast_state **work,
		  const fast_state *base, move_budget *mb, bool *gained)
{
	bool		aborted;
	ga_status	rc;

	if (!next_move(c, mb))
		return GA_OK;
	rc = construct(c, *work, base, c->try_order, true, &aborted);
	if (rc != GA_OK)
		return rc;
	if (aborted)
	{
		mb->stop = MOVE_LIMIT;
		return GA_OK;
	}
	if (improves(state_objective(c, *work), state_objective(c, *best)))
	{
		fast_state *tmp = *best;

		*best = *work;
		*work = tmp;
		memcpy(c->best_order, c->try_order, sizeof(int) * c->n_order);
		kept(mb, gained);
	}
	return GA_OK;
}

/* Rebuild with the other order variants. */
static ga_status
try_variants(fast_ctx *c, fast_state **best, fast_state **work,
			 const fast_state *base, move_budget *mb, bool *gained)
{
	for (int v = 1; v < N_ORDER_VARIANTS && mb->stop == MOVE_GO; v++)
	{
		ga_status	rc;

		build_order(c, v, c->try_order);
		if ((rc = try_order(c, best, work, base, mb, gained)) != GA_OK)
			return rc;
	}
	return GA_OK;
}

typedef struct promotion
{
	double		loss;
	int			job;
} promotion;

static int
compare_promotions(const void *a, const void *b)
{
	const promotion *x = a;
	const promotion *y = b;

	if (x->loss != y->loss)
		return x->loss > y->loss ? -1 : 1;
	return x->job - y->job;
}

/*
 * Jobs worth most below what they would earn on an empty cluster (pinned
 * jobs and held GPUs only), most first.
 */
static int
promotion_candidates(fast_ctx *c, const fast_state *st)
{
	int			n = 0;

	for (int i = 0; i < c->n_job_order; i++)
	{
		int			j = c->job_order[i];
		double		loss = c->ideal_value[j] - st->job_value[j];

		if (improves(c->ideal_value[j], st->job_value[j]))
		{
			c->promotions[n].loss = loss;
			c->promotions[n].job = j;
			n++;
		}
	}
	qsort(c->promotions, n, sizeof(promotion), compare_promotions);
	return n;
}

/*
 * Rebuild with one job moved to the head of the jobs, behind the services:
 * this lets a job that lost out claim its place first.
 *
 * A promoted job never goes ahead of a service.  Doing so lets a job take
 * GPUs a service needs within the horizon whenever its value there exceeds
 * the shortfall penalty; measured with perfect knowledge, every GPU-hour of
 * unmet demand in the benchmark came from such a promotion.  The trade looks
 * right only inside one plan: the job is non-preemptible, so it keeps those
 * GPUs for its whole run, often far past the horizon where its shortfall is
 * no longer counted, while the batch value it earned early is mostly value
 * shifted in time, not gained (the job would run a few steps later).
 * So a promotion keeps every service where the density order put it:
 * latency is protected by the order, and batch work competes for what the
 * services leave.
 */
static ga_status
promote_pass(fast_ctx *c, fast_state **best, fast_state **work,
			 const fast_state *base, move_budget *mb, bool *gained)
{
	int			n = promotion_candidates(c, *best);

	for (int i = 0; i < n && mb->stop == MOVE_GO; i++)
	{
		int			u = c->promotions[i].job;
		int			k = 0;
		ga_status	rc;

		for (int m = 0; m < c->n_order; m++)
			if (c->best_order[m] >= c->p->n_jobs)
				c->try_order[k++] = c->best_order[m];
		c->try_order[k++] = u;
		for (int m = 0; m < c->n_order; m++)
			if (c->best_order[m] != u && c->best_order[m] < c->p->n_jobs)
				c->try_order[k++] = c->best_order[m];
		if ((rc = try_order(c, best, work, base, mb, gained)) != GA_OK)
			return rc;
	}
	return GA_OK;
}

/*
 * Rebuild with one scheduled job moved to the end of the order: a job that
 * claimed its place early can block a pair of others worth more together
 * (it takes the block one of them needed at the step it needed it); served
 * last, it takes whatever is left.
 */
static ga_status
demote_pass(fast_ctx *c, fast_state **best, fast_state **work,
			const fast_state *base, move_budget *mb, bool *gained)
{
	for (int i = 0; i < c->n_job_order && mb->stop == MOVE_GO; i++)
	{
		int			u = c->job_order[i];
		int			k = 0;
		ga_status	rc;

		if (!is_scheduled(*best, u))
			continue;
		for (int m = 0; m < c->n_order; m++)
			if (c->best_order[m] != u)
				c->try_order[k++] = c->best_order[m];
		c->try_order[k] = u;
		if ((rc = try_order(c, best, work, base, mb, gained)) != GA_OK)
			return rc;
	}
	return GA_OK;
}

/*
 * Place every job still out that fits now.  An exchange late in the last
 * round can leave room behind; after this sweep no left-out job fits
 * anywhere in the grid.
 */
static void
insert_sweep(const fast_ctx *c, fast_state *st)
{
	for (int i = 0; i < c->n_job_order; i++)
	{
		int			j = c->job_order[i];

		if (!is_scheduled(st, j))
			try_insert(c, st, j);
	}
}

static ga_status
improve(fast_ctx *c, fast_state **best, fast_state **work,
		const fast_state *base, ga_fast_stats *stats)
{
	move_budget mb = {.stats = stats, .stop = MOVE_GO};
	ga_status	rc = GA_OK;

	for (int round = 0; round < GA_FAST_MAX_ROUNDS && rc == GA_OK; round++)
	{
		bool		gained = false;

		if (ga_now_ms() >= c->stop_ms)
		{
			mb.stop = MOVE_CLOCK;
			break;
		}
		stats->rounds++;
		if (round == 0)
			rc = try_variants(c, best, work, base, &mb, &gained);
		if (rc == GA_OK)
			rc = promote_pass(c, best, work, base, &mb, &gained);
		if (rc == GA_OK)
			rc = demote_pass(c, best, work, base, &mb, &gained);
		if (rc == GA_OK && local_round(c, *best, &mb))
			gained = true;
		if (mb.stop != MOVE_GO || !gained)
			break;
	}
	if (rc != GA_OK)
		return rc;
	if (mb.stop == MOVE_CANCEL)
		return ga_error_set(c->err, GA_ECANCEL, "fast solve cancelled");
	stats->clock_capped = mb.stop == MOVE_CLOCK;
	stats->budget_spent = *c->work >= c->work_limit;
	stats->converged = !stats->clock_capped;
	if (stats->converged)
		insert_sweep(c, *best);
	return GA_OK;
}

/* ------------------------------------------------------------------------
 * Context set-up and the entry points.
 * ------------------------------------------------------------------------ */

static void
ctx_free(fast_ctx *c)
{
	free(c->prefix);
	free(c->pools);
	free(c->job_order);
	free(c->keys);
	free(c->best_order);
	free(c->try_order);
	free(c->ideal_value);
	free(c->promotions);
	free(c->cap);
	free(c->want);
	free(c->forced_at);
	free(c->charged_at);
	free(c->member_charged);
	free(c->member);
	free(c->member_end);
	free(c->served_from);
	free(c->serving);
	free(c->held_sorted);
	free(c->reserved_until);
	free(c->room);
	free(c->guarded);
	free(c->pool_first_svc);
	free(c->next_svc);
	free(c->bad_start);
	free(c->bad_block);
	free(c->tail_from);
	free(c->tail_to);
	free(c->tail_prefix);
	free(c->overlap);
	free(c->job_room);
	free(c->closed_to_services);
	free(c->service_bits);
	free(c->resv_prefix);
	free(c->quota_bad);
	ga_quota_destroy(c->quota);
	ga_terminal_destroy(c->term);
}

static int
pow2_at_least(int n)
{
	int			span = 1;

	while (span < n)
		span <<= 1;
	return span;
}

/*
 * Block widths the full index keeps for each pool: up to the largest of its
 * jobs' (levels 0 when none), in one pass over the jobs and their pools.
 */
static void
set_indexed_levels(fast_ctx *c)
{
	const ga_problem *p = c->p;

	for (int q = 0; q < p->n_pools; q++)
		c->pools[q].levels = 0; /* the widest block until the end */
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];

		for (int k = 0; !job->pinned && k < ga_job_n_pools(job); k++)
		{
			int			q = ga_job_pool_at(job, k);
			int			n_gpus = p->pools[q].n_gpus;
			int			g = job->gpus_max < n_gpus ? job->gpus_max : ga_pow2_floor(n_gpus);

			if (job->gpus_min <= n_gpus && g > c->pools[q].levels)
				c->pools[q].levels = g;
		}
	}
	for (int q = 0; q < p->n_pools; q++)
		c->pools[q].levels = c->pools[q].levels > 0 ?
			__builtin_ctz((unsigned) c->pools[q].levels) + 1 : 0;
}

static void
set_pool_geometry(fast_ctx *c, int *max_pool)
{
	*max_pool = 1;
	set_indexed_levels(c);
	for (int i = 0; i < c->p->n_pools; i++)
	{
		pool_geom  *pg = &c->pools[i];

		pg->first_gpu = c->p->pools[i].first_gpu;
		pg->n_gpus = c->p->pools[i].n_gpus;
		pg->span = pow2_at_least(pg->n_gpus);
		pg->log_span = __builtin_ctz((unsigned) pg->span);
		pg->offset = c->n_words;
		c->n_words += (size_t) 2 * pg->span * c->W;
		pg->full_offset = c->n_full_words;
		c->n_full_words += (size_t) pg->span * pg->levels * c->W;
		if (pg->n_gpus > *max_pool)
			*max_pool = pg->n_gpus;
	}
}

/*
 * The part of each running job's lengthened run past its estimated end, on
 * each of its usable GPUs, inside the horizon (uncounted_overlap).
 */
static void
init_tails(fast_ctx *c)
{
	const ga_problem *p = c->p;

	ga_pinned_tails(p, c->T, 0, p->n_gpus, c->tail_from, c->tail_to);
	for (int g = 0; g < p->n_gpus; g++)
		c->tail_prefix[g + 1] = c->tail_prefix[g] + (c->tail_to[g] > c->tail_from[g]);
}

/* The protect rule's room per pool and step, and its scratch masks. */
static ga_status
init_protect(fast_ctx *c)
{
	const ga_problem *p = c->p;
	int			n_pools = p->n_pools > 0 ? p->n_pools : 1;

	c->room = malloc(sizeof(int) * (size_t) 2 * n_pools * c->T);
	c->guarded = calloc(n_pools, sizeof(bool));
	c->pool_first_svc = malloc(sizeof(int) * n_pools);
	c->next_svc = malloc(sizeof(int) * (p->n_services > 0 ? p->n_services : 1));
	c->bad_start = malloc(sizeof(uint64_t) * c->W);
	c->bad_block = malloc(sizeof(uint64_t) * c->W);
	c->job_room = malloc(sizeof(int) * c->T);
	c->tail_from = calloc(p->n_gpus + 1, sizeof(int));
	c->tail_to = calloc(p->n_gpus + 1, sizeof(int));
	c->tail_prefix = calloc(p->n_gpus + 2, sizeof(int));
	c->overlap = malloc(sizeof(int) * c->T);
	if (!c->room || !c->guarded || !c->pool_first_svc || !c->next_svc || !c->bad_start || !c->bad_block || !c->job_room ||
		!c->tail_from || !c->tail_to || !c->tail_prefix || !c->overlap)
		return ga_error_set(c->err, GA_ENOMEM, "out of memory in the fast solver");
	init_tails(c);
	ga_protect_room(p, 0, false, c->room);
	ga_protect_room(p, 0, true, c->room + (size_t) p->n_pools * c->T);
	/* each pool's services, listed in order: a job looks at its pool's only */
	for (int q = 0; q < n_pools; q++)
		c->pool_first_svc[q] = -1;
	for (int s = p->n_services - 1; s >= 0; s--)
	{
		c->guarded[p->services[s].pool] = true;
		c->next_svc[s] = c->pool_first_svc[p->services[s].pool];
		c->pool_first_svc[p->services[s].pool] = s;
	}
	return GA_OK;
}

/*
 * The steps inside the horizon at which an advance reservation holds each
 * usable GPU outside every window, closed to services (service_leaf) and
 * left out of the protect rule (uncounted_overlap): the cells
 * ga_protect_room takes out of the room.  Windows and unusable GPUs are
 * busy in the tree already.  Nothing when there is no reservation.  Jobs
 * are kept out of other tenants' reservations by earliest_open instead, as
 * the tree is shared by every tenant.
 */
static bool
init_closed_to_services(fast_ctx *c)
{
	const ga_problem *p = c->p;

	if (p->n_reservations == 0)
		return true;
	c->closed_to_services = calloc((size_t) p->n_gpus * c->W + 1, sizeof(uint64_t));
	c->service_bits = calloc(c->W, sizeof(uint64_t));
	c->resv_prefix = calloc(p->n_gpus + 2, sizeof(int));
	if (!c->closed_to_services || !c->service_bits || !c->resv_prefix)
		return false;
	for (int i = 0; i < p->n_reservations; i++)
	{
		const ga_window *w = &p->reservations[i].cells;
		int			from = w->start_step > 0 ? w->start_step : 0;
		int			to = w->end_step < c->T ? w->end_step : c->T;

		for (int g = w->first_gpu; g < w->first_gpu + w->n_gpus; g++)
			for (int t = from; p->gpu_usable[g] && t < to; t++)
				if (ga_closing(p, -1, g, 1, t, t + 1) == w)
					c->closed_to_services[(size_t) g * c->W + (t >> 6)] |= UINT64_C(1) << (t & 63);
	}
	for (int g = 0; g < p->n_gpus; g++)
	{
		bool		any = false;

		for (int w = 0; w < c->W; w++)
			any |= c->closed_to_services[(size_t) g * c->W + w] != 0;
		c->resv_prefix[g + 1] = c->resv_prefix[g] + any;
	}
	return true;
}

static ga_status
ctx_init(fast_ctx *c, const ga_problem *p, const ga_solve_options *opt,
		 ga_error *err)
{
	int			max_pool;
	size_t		n_claims = (size_t) p->n_jobs + p->n_services + 1;
	size_t		n_jobs = (size_t) p->n_jobs + 1;
	size_t		n_gpus = (size_t) p->n_gpus + 1;

	memset(c, 0, sizeof(*c));
	c->p = p;
	c->err = err;
	c->T = p->params.n_steps;
	c->W = (c->T + 63) / 64;
	c->cancel = opt ? opt->cancel : NULL;
	c->cancel_arg = opt ? opt->cancel_arg : NULL;
	c->work = &c->work_spent;
	c->term = ga_terminal_create(p);
	if (c->term == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory in the fast solver");
	c->prefix = malloc(sizeof(double) * (c->T + 1));
	c->pools = calloc(p->n_pools > 0 ? p->n_pools : 1, sizeof(pool_geom));
	if (!c->prefix || !c->pools)
		return ga_error_set(err, GA_ENOMEM, "out of memory in the fast solver");
	c->prefix[0] = 0;
	for (int t = 0; t < c->T; t++)
		c->prefix[t + 1] = c->prefix[t] + p->decay[t];
	set_pool_geometry(c, &max_pool);
	c->job_order = malloc(sizeof(int) * n_claims);
	c->keys = malloc(sizeof(claim_key) * n_claims);
	c->best_order = malloc(sizeof(int) * n_claims);
	c->try_order = malloc(sizeof(int) * n_claims);
	c->ideal_value = calloc(n_jobs, sizeof(double));
	c->promotions = malloc(sizeof(promotion) * n_jobs);
	c->cap = malloc(sizeof(int) * c->T);
	c->want = malloc(sizeof(int) * c->T);
	c->forced_at = malloc(sizeof(int) * (c->T + 1));
	c->charged_at = malloc(sizeof(int) * (c->T + 1));
	c->member = malloc(sizeof(uint64_t) * ((max_pool + 63) / 64 + 1));
	c->serving = malloc(sizeof(uint64_t) * ((max_pool + 63) / 64 + 1));
	c->member_charged = malloc(sizeof(bool) * max_pool);
	c->member_end = malloc(sizeof(int) * max_pool);
	c->served_from = malloc(sizeof(int) * max_pool);
	c->held_sorted = malloc(sizeof(int) * n_gpus);
	c->reserved_until = calloc(n_gpus, sizeof(int));
	if (!c->job_order || !c->keys || !c->best_order || !c->try_order ||
		!c->ideal_value ||  !c->promotions || !c->cap || !c->want ||
		!c->forced_at || !c->charged_at || !c->member || !c->serving || !c->member_charged ||
		!c->member_end || !c->served_from || !c->held_sorted ||
		!c->reserved_until)
		return ga_error_set(err, GA_ENOMEM, "out of memory in the fast solver");
	if (!init_closed_to_services(c))
		return ga_error_set(err, GA_ENOMEM, "out of memory in the fast solver");
	c->quota = ga_quota_create(p);
	c->quota_bad = malloc(sizeof(uint64_t) * c->W);
	if (!c->quota || !c->quota_bad)
		return ga_error_set(err, GA_ENOMEM, "out of memory in the fast solver");
	return init_protect(c);
}

/* The state every construction starts from: pinned jobs and held GPUs. */
static ga_status
build_base(fast_ctx *c, fast_state *base)
{
	ga_status	rc;

	init_trees(c, base);
	if ((rc = place_pinned(c, base)) != GA_OK)
		return rc;
	reserve_held(c, base);
	return GA_OK;
}

/* Non-pinned jobs in the order of variant 0, for the improvement moves. */
static void
set_job_order(fast_ctx *c)
{
	c->n_job_order = 0;
	for (int i = 0; i < c->n_order; i++)
		if (c->best_order[i] < c->p->n_jobs)
			c->job_order[c->n_job_order++] = c->best_order[i];
}

/*
 * Value of job j's run at its earliest start on st, the best over its
 * allowed sizes (the block search finds the earliest start of each size).
 */
static double
earliest_value(const fast_ctx *c, const fast_state *st, int j)
{
	double		best = 0;

	for (int i = 0; i < ga_job_n_pools(&c->p->jobs[j]); i++)
	{
		ga_job		view = ga_job_on_pool(&c->p->jobs[j], i);
		const pool_geom *pg = &c->pools[view.pool];

		for (int g = view.gpus_min; g <= view.gpus_max && g <= pg->n_gpus; g <<= 1)
		{
			placement	pl;

			if (search_size(c, st, &view, g, pg->first_gpu, pg->first_gpu + pg->n_gpus, &pl) &&
				pl.run > best)
				best = pl.run;
		}
	}
	return best;
}

/* What each job would earn alone on the base grid (the promotion yardstick). */
static void
set_ideal_values(fast_ctx *c, const fast_state *base)
{
	for (int i = 0; i < c->n_job_order; i++)
	{
		int			j = c->job_order[i];

		c->ideal_value[j] = earliest_value(c, base, j);
	}
}

/*
 * The improvement phase's work budget: the caller's, or GA_FAST_WORK_FLOOR
 * plus GA_FAST_WORK_FACTOR times the work of the first construction, so it
 * grows with the problem as the construction does and depends on the
 * problem alone.
 */
static long
work_limit_of(const ga_solve_options *opt, long construct_work)
{
	if (opt != NULL && opt->work_limit > 0)
		return opt->work_limit;
	return GA_FAST_WORK_FLOOR + GA_FAST_WORK_FACTOR * construct_work;
}

static ga_status
solve(fast_ctx *c, const ga_solve_options *opt, double t0, double cap_ms,
	  fast_state **best, fast_state **work, fast_state *base,
	  ga_fast_stats *stats)
{
	bool		aborted;
	ga_status	rc;
	long		construct_work;

	if ((rc = build_base(c, base)) != GA_OK)
		return rc;
	c->n_order = build_order(c, 0, c->best_order);
	set_job_order(c);
	if ((rc = construct(c, *best, base, c->best_order, false, &aborted)) != GA_OK)
		return rc;
	stats->construct_objective = state_objective(c, *best);
	construct_work = *c->work;
	c->work_limit = construct_work + work_limit_of(opt, construct_work);
	c->stop_ms = t0 + cap_ms;
	set_ideal_values(c, base);
	return improve(c, best, work, base, stats);
}

/* The safety cap on the clock: options->time_limit_ms, or the default. */
static double
cap_of(const ga_solve_options *opt)
{
	if (opt == NULL || !(opt->time_limit_ms > 0) || !isfinite(opt->time_limit_ms))
		return GA_FAST_DEFAULT_MS;
	return opt->time_limit_ms;
}

typedef struct fast_args
{
	const ga_solve_options *options;
	ga_fast_stats *stats;
} fast_args;

static ga_status
fast_ready(const ga_problem *ready, void *arg, ga_plan **out, ga_error *err)
{
	fast_args  *a = arg;

	return ga_solve_fast_stats(ready, a->options, out, a->stats, err);
}

ga_status
ga_solve_fast_stats(const ga_problem *problem, const ga_solve_options *options,
					ga_plan **out, ga_fast_stats *stats, ga_error *err)
{
	double		t0 = ga_now_ms();
	ga_fast_stats local_stats;
	fast_ctx	c;
	fast_state *best = NULL;
	fast_state *work = NULL;
	fast_state *base = NULL;
	ga_status	rc;

	*out = NULL;
	if (stats == NULL)
		stats = &local_stats;
	memset(stats, 0, sizeof(*stats));
	if (problem->params.n_steps <= 0 || problem->decay[0] != 1.0)
		return ga_error_set(err, GA_EINVAL, "the problem is not finished (call ga_problem_finish first)");
	if (ga_chain_needed(problem))
	{
		fast_args	a = {options, stats};

		return ga_chain_solve(problem, fast_ready, &a, out, err);
	}
	rc = ctx_init(&c, problem, options, err);
	if (rc == GA_OK)
	{
		best = state_create(&c);
		work = state_create(&c);
		base = state_create(&c);
		if (!best || !work || !base)
			rc = ga_error_set(err, GA_ENOMEM, "out of memory in the fast solver");
	}
	if (rc == GA_OK)
		rc = solve(&c, options, t0, cap_of(options), &best, &work, base, stats);
	if (rc == GA_OK && !ga_plan_add_headroom(problem, best->plan))
		rc = ga_error_set(err, GA_ENOMEM, "out of memory in the fast solver");
	if (rc == GA_OK)
	{
		*out = best->plan;
		best->plan = NULL;
		(*out)->objective = ga_plan_objective(problem, *out);
		(*out)->mode = "fast";
		(*out)->solve_ms = ga_now_ms() - t0;
	}
	state_destroy(best);
	state_destroy(work);
	state_destroy(base);
	stats->work = c.work_spent;
	stats->work_limit = c.work_limit;
	ctx_free(&c);
	return rc;
}

ga_status
ga_solve_fast(const ga_problem *problem, const ga_solve_options *options,
			  ga_plan **out, ga_error *err)
{
	return ga_solve_fast_stats(problem, options, out, NULL, err);
}
