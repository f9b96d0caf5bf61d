/*
 * milp_occupancy.c — occupancy bitsets of full mode: one bit per (GPU, step),
 * set when the cell is taken.
 *
 * The model keeps one for the cells it does not decide (drained GPUs and
 * pinned jobs, milp_model.c), and the mapping copies it and marks every block
 * and service GPU it places (milp_map.c); both ask whether a GPU is free at a
 * step or over a range of steps, a few word operations per 64 steps.
 */
#include "solve/milp_internal.h"

#include <stdlib.h>
#include <string.h>

bool
milp_occ_init(occ_map *o, int n_gpus, int n_steps)
{
	o->words = (n_steps + 63) / 64;
	o->n_words = (size_t) (n_gpus > 0 ? n_gpus : 1) * o->words;
	o->bits = calloc(o->n_words, sizeof(uint64_t));
	return o->bits != NULL;
}

bool
milp_occ_copy(occ_map *dst, const occ_map *src)
{
	*dst = *src;
	dst->bits = malloc(src->n_words * sizeof(uint64_t));
	if (dst->bits == NULL)
		return false;
	memcpy(dst->bits, src->bits, src->n_words * sizeof(uint64_t));
	return true;
}

static uint64_t
word_mask(int off, int n)
{
	uint64_t	m = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;

	return m << off;
}

bool
milp_occ_range_free(const occ_map *o, int g, int a, int b)
{
	const uint64_t *row = o->bits + (size_t) g * o->words;

	while (a < b)
	{
		int			off = a & 63;
		int			n = 64 - off < b - a ? 64 - off : b - a;

		if (row[a >> 6] & word_mask(off, n))
			return false;
		a += n;
	}
	return true;
}

void
milp_occ_mark_range(occ_map *o, int g, int a, int b)
{
	uint64_t   *row = o->bits + (size_t) g * o->words;

	while (a < b)
	{
		int			off = a & 63;
		int			n = 64 - off < b - a ? 64 - off : b - a;

		row[a >> 6] |= word_mask(off, n);
		a += n;
	}
}

bool
milp_occ_free_at(const occ_map *o, int g, int t)
{
	return (o->bits[(size_t) g * o->words + (t >> 6)] >> (t & 63) & 1) == 0;
}
