/*
 * topology.c — the planner's GPU numbers for the cluster's topology indexes.
 *
 * A GPU's topology index in its pool is node * node_size + slot, and blocks
 * are aligned in that index space.  Node numbers come from the operator's
 * inventory, so a pool may have two GPUs at nodes 0 and 4095: planning every
 * index up to the largest would cost millions of cells for two GPUs.  The
 * planner numbers instead only the aligned chunks of C indexes that hold at
 * least one GPU, C being the largest block the pool can hold (the largest
 * power of two not above its GPU count).  Every aligned block of at most C
 * GPUs lies inside one chunk, so it stays aligned, and stays a block, in the
 * planner's numbering: the mapping changes no plan, and the problem has at
 * most C GPU slots per GPU (C times the GPU count, bounded by the pool's
 * size squared, and in practice its size, since nodes are filled).
 */
#include "postgres.h"

#include "executor/spi.h"

#include "gpualloc_pg.h"

/* The largest power of two not above n (1 for n < 1). */
static int
pow2_floor(int n)
{
	int			p = 1;

	while (n >= 2 * p && p < (1 << 30))
		p *= 2;
	return p;
}

static Datum
value(int row, int col, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, isnull);
}

/* Start a pool's layout: its rows are [first, last) of the query's result. */
static void
layout_pool(GaPoolLayout *l, int first, int last)
{
	bool		isnull;
	int			n_gpus = 0;

	for (int i = first; i < last; i++)
	{
		(void) value(i, 3, &isnull);
		if (!isnull)
			n_gpus++;
	}
	l->chunk = pow2_floor(n_gpus);
	l->n_chunks = 0;
	l->chunk_start = palloc(sizeof(int) * (n_gpus + 1));
	l->n_gpus = n_gpus;
	l->index = palloc(sizeof(int) * (n_gpus + 1));
	l->gpu_id = palloc(sizeof(int) * (n_gpus + 1));
	l->up = palloc(sizeof(bool) * (n_gpus + 1));
	n_gpus = 0;
	for (int i = first; i < last; i++)
	{
		int			index = DatumGetInt32(value(i, 3, &isnull));
		int			start;

		if (isnull)
			continue;
		start = index / l->chunk * l->chunk;
		if (l->n_chunks == 0 || l->chunk_start[l->n_chunks - 1] != start)
			l->chunk_start[l->n_chunks++] = start;
		l->index[n_gpus] = index;
		l->gpu_id[n_gpus] = DatumGetInt32(value(i, 4, &isnull));
		l->up[n_gpus] = DatumGetBool(value(i, 5, &isnull));
		n_gpus++;
	}
}

/*
 * Read every pool and GPU, in pool_id order and topology order within a
 * pool.  Returns the layouts and sets *n_pools and *n_slots (the planner's
 * GPU numbers, holes inside chunks included).
 */
GaPoolLayout *
ga_layout_load(int *n_pools, int *n_slots)
{
	GaPoolLayout *layouts;
	int			rc;
	int			n = 0;
	int			first = 0;
	int			slots = 0;

	rc = SPI_execute("SELECT p.pool_id, p.name, g.node * p.node_size + g.slot, g.gpu_id, g.state = 'up' "
					 "FROM gpualloc.pools p LEFT JOIN gpualloc.gpus g USING (pool_id) "
					 "ORDER BY p.pool_id, 3", true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read the topology (%s)", SPI_result_code_string(rc));
	layouts = palloc0(sizeof(GaPoolLayout) * (SPI_processed + 1));
	for (int i = 0; i <= (int) SPI_processed; i++)
	{
		bool		isnull;

		if (i < (int) SPI_processed && i > first &&
			DatumGetInt32(value(i, 1, &isnull)) == DatumGetInt32(value(first, 1, &isnull)))
			continue;
		if (i > first)
		{
			GaPoolLayout *l = &layouts[n++];

			l->pool_id = DatumGetInt32(value(first, 1, &isnull));
			l->name = SPI_getvalue(SPI_tuptable->vals[first], SPI_tuptable->tupdesc, 2);
			layout_pool(l, first, i);
			l->first_slot = slots;
			slots += l->n_chunks * l->chunk;
		}
		first = i;
	}
	*n_pools = n;
	*n_slots = slots;
	return layouts;
}

/* The planner's number (within the pool) of a topology index; -1 if absent. */
int
ga_layout_to_planner(const GaPoolLayout *l, int index)
{
	int			start = index / l->chunk * l->chunk;
	int			lo = 0;
	int			hi = l->n_chunks - 1;

	if (index < 0)
		return -1;
	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;

		if (l->chunk_start[mid] == start)
			return mid * l->chunk + index - start;
		if (l->chunk_start[mid] < start)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The topology index of a planner number within the pool. */
int
ga_layout_to_index(const GaPoolLayout *l, int rel)
{
	return l->chunk_start[rel / l->chunk] + rel % l->chunk;
}
