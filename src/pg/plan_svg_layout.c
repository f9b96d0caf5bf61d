/*
 * plan_svg_layout.c — where everything in the plan picture goes.
 *
 * From the top: the title, the legend, the time axis, the grid (pools one
 * under the other), idle GPUs, one strip per service, the jobs the plan left
 * out.  Steps are columns of equal width.
 *
 * Up to DETAIL_MAX_ROWS topology indexes get a row of DETAIL_ROW_H each.  A
 * larger cluster is drawn in rows of 2^k consecutive GPUs (a node or more),
 * each GPU BAND_ROW_H / 2^k high, and a GPU that carries a small job is
 * stretched so that every job's block is at least LABEL_H high and carries
 * its name (a service's block at least SERVICE_MIN_H): at 512 or 1024 GPUs a
 * 1-GPU job would otherwise be a sliver of 1.5-3 px.  GPUs keep their order,
 * so blocks keep their place and rows their order; only heights differ.
 * When the stretched grid would pass GRID_BUDGET_H (or GRID_JOB_H per
 * planned job, up to GRID_MAX_H), the label height is lowered until it fits,
 * and no block is drawn thinner than MIN_DRAWN_H.
 */
#include "postgres.h"

#include <math.h>

#include "plan_svg.h"

double
svg_gpu_y(const SvgPool *pool, int index)
{
	return pool->y0 + pool->yoff[Max(0, Min(index, pool->n_index))];
}

/* Per GPU, the smallest job block and service block that cover it (0: none). */
static void
smallest_blocks(SvgPlan *p, int **job_min, int **service_min)
{
	for (int i = 0; i < p->n_pools; i++)
	{
		job_min[i] = palloc0(sizeof(int) * (p->pools[i].n_index + 1));
		service_min[i] = palloc0(sizeof(int) * (p->pools[i].n_index + 1));
	}
	for (int i = 0; i < p->n_blocks; i++)
	{
		SvgBlock   *b = &p->blocks[i];
		int		   *m;

		if (b->pool < 0 || b->step_first >= p->T)
			continue;
		m = b->job_id != 0 ? job_min[b->pool] : service_min[b->pool];
		for (int g = Max(b->gpu_first, 0); g < b->gpu_first + b->gpu_count && g < p->pools[b->pool].n_index; g++)
			if (m[g] == 0 || b->gpu_count < m[g])
				m[g] = b->gpu_count;
	}
}

/* Height of one GPU when jobs are stretched to label_h. */
static double
gpu_h(double base, int job_min, int service_min, double label_h)
{
	double		h = base;

	if (job_min > 0)
		h = Max(h, label_h / job_min);
	if (service_min > 0)
		h = Max(h, Min(SERVICE_MIN_H, label_h) / service_min);
	return Min(h, DETAIL_ROW_H);
}

static double
grid_h(SvgPlan *p, int **job_min, int **service_min, double base, double label_h)
{
	double		total = 0;

	for (int i = 0; i < p->n_pools; i++)
		for (int g = 0; g < p->pools[i].n_index; g++)
			total += gpu_h(base, job_min[i][g], service_min[i][g], label_h);
	return total;
}

static void
layout_rows(SvgPlan *p)
{
	int			rows = 0;
	double		base;
	int		  **job_min = palloc(sizeof(int *) * (p->n_pools + 1));
	int		  **service_min = palloc(sizeof(int *) * (p->n_pools + 1));

	for (int i = 0; i < p->n_pools; i++)
		rows += p->pools[i].n_index;
	p->detailed = rows <= DETAIL_MAX_ROWS;
	p->band = 1;
	if (!p->detailed)
		while ((double) rows / p->band > DETAIL_MAX_ROWS)
			p->band *= 2;
	base = p->detailed ? DETAIL_ROW_H : BAND_ROW_H / p->band;

	p->label_h = 0;
	smallest_blocks(p, job_min, service_min);
	if (!p->detailed)
	{
		double		budget = Max(Max(GRID_BUDGET_H, Min(GRID_JOB_H * p->n_jobs, GRID_MAX_H)), rows * base);
		double		lo = MIN_DRAWN_H;
		double		hi = LABEL_H;

		/* the largest label height that keeps the grid within budget */
		if (grid_h(p, job_min, service_min, base, hi) <= budget)
			lo = hi;
		else
			for (int it = 0; it < 24; it++)
			{
				double		mid = (lo + hi) / 2;

				if (grid_h(p, job_min, service_min, base, mid) <= budget)
					lo = mid;
				else
					hi = mid;
			}
		p->label_h = lo;
	}

	for (int i = 0; i < p->n_pools; i++)
	{
		SvgPool    *pool = &p->pools[i];

		pool->yoff = palloc(sizeof(double) * (pool->n_index + 1));
		pool->yoff[0] = 0;
		for (int g = 0; g < pool->n_index; g++)
		{
			double		h = p->detailed ? base : gpu_h(base, job_min[i][g], service_min[i][g], p->label_h);

			p->stretched |= h > base + 1e-9;
			pool->yoff[g + 1] = pool->yoff[g] + h;
		}
		pfree(job_min[i]);
		pfree(service_min[i]);
	}
	pfree(job_min);
	pfree(service_min);
}

void
svg_layout(SvgPlan *p)
{
	double		y;
	int			legend_lines;
	int			listed;
	int			list_rows;

	layout_rows(p);
	p->cw = Min(24.0, Max(3.0, 1200.0 / p->T));
	p->x0 = LEFT;
	p->width = p->x0 + p->T * p->cw + RIGHT;
	p->now_x = p->x0 + (double) (p->now - p->plan_start) / p->step_usecs * p->cw;

	/* the legend under the title, then the axis */
	p->legend_y = HEADER_H + 12;
	legend_lines = svg_legend(NULL, p, 10, p->legend_y, p->width - RIGHT);
	p->top = HEADER_H + legend_lines * LEGEND_LINE_H + AXIS_H;

	y = p->top;
	for (int i = 0; i < p->n_pools; i++)
	{
		SvgPool    *pool = &p->pools[i];

		y += POOL_HEAD;
		pool->y0 = y;
		y += pool->yoff[pool->n_index] + POOL_GAP;
	}
	p->grid_bottom = y;

	/* below the grid: idle GPUs, the services, the jobs left out */
	p->unplanned_y = p->grid_bottom + IDLE_H + p->n_services * SERVICE_H;
	p->unplanned_cols = Max(1, (int) ((p->width - 20) / UNPLANNED_COL_W));
	listed = Min(p->n_unplanned, UNPLANNED_MAX);
	list_rows = (listed + p->unplanned_cols - 1) / p->unplanned_cols;
	p->height = p->unplanned_y + 10;
	if (p->n_unplanned > 0)
		p->height += UNPLANNED_HEAD + list_rows * UNPLANNED_LINE + (p->n_unplanned > listed ? UNPLANNED_LINE : 0);
}
