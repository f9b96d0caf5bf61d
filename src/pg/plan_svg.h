/*
 * plan_svg.h — gpualloc.plan_svg(plan_id, color_by): what the files of the
 * plan picture share.
 *
 *   plan_svg.c         the SQL function: arguments, order of drawing, canvas
 *   plan_svg_data.c    reading the plan, the allocation in force, the
 *                      services' forecasts and the jobs left out of the plan
 *   plan_svg_layout.c  where GPUs, rows and the parts of the picture go
 *   plan_svg_draw.c    the grid, the blocks, the strips below it, the list
 *                      of unplanned jobs, and the SVG output helpers
 *   plan_svg_legend.c  colours (by kind or tenant, one per service), the
 *                      style sheet and hatch patterns, and the legend
 */
#ifndef GPUALLOC_PLAN_SVG_H
#define GPUALLOC_PLAN_SVG_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/timestamp.h"

#define DETAIL_MAX_ROWS 128		/* one row per GPU up to this many */
#define DETAIL_ROW_H	16.0
#define BAND_ROW_H		12.0	/* a row of 2^k GPUs, before stretching */
#define LABEL_H			12.0	/* a block this tall carries its name */
#define SMALL_LABEL_H	8.0		/* ... in a smaller font from this tall */
#define SERVICE_MIN_H	3.0		/* a service block is stretched to this */
#define MIN_DRAWN_H		2.5		/* no block is drawn thinner */
#define GRID_BUDGET_H	3000.0	/* stretched rows stop growing the grid here, */
#define GRID_JOB_H		6.0		/* or this much per planned job, */
#define GRID_MAX_H		8000.0	/* but not past this */
#define LEFT			170.0	/* row labels */
#define RIGHT			24.0
#define HEADER_H		44.0	/* title and summary line */
#define LEGEND_LINE_H	17.0
#define AXIS_H			48.0	/* now, risk marks, date and time of day */
#define POOL_HEAD		18.0
#define POOL_GAP		10.0
#define IDLE_H			52.0
#define SERVICE_H		70.0
#define UNPLANNED_HEAD	26.0
#define UNPLANNED_LINE	14.0
#define UNPLANNED_COL_W 660.0
#define UNPLANNED_MAX	300		/* listed; more are counted */
#define CHAR_W			6.0		/* average glyph width at font-size 10 */
#define SMALL_CHAR_W	4.9		/* ... at font-size 8 */

typedef enum SvgColorBy
{
	SVG_BY_KIND,
	SVG_BY_TENANT
} SvgColorBy;

/* How firm a block is: the allocation in force, or only planned. */
typedef enum SvgState
{
	SVG_TENTATIVE,				/* a later step of the plan */
	SVG_COMMITTED,				/* step 0, held in the allocation now */
	SVG_RUNNING					/* a running job */
} SvgState;

/* A colour the picture uses; only used ones reach the style and legend. */
typedef struct SvgColor
{
	char		hex[8];			/* "#rrggbb" */
	bool		dark_text;		/* a light colour: names on it in black */
	const char *group;			/* "kind", "tenant" or "service" */
	char	   *key;			/* the kind, tenant or service name */
	char	   *label;			/* its legend text */
	bool		used;			/* some block has it */
	bool		hatched;		/* some tentative block has it */
} SvgColor;

typedef struct SvgPool
{
	int			pool_id;
	char	   *name;
	char	   *model;
	int			node_size;
	int			n_index;		/* highest topology index + 1 */
	char	   *state;			/* [n_index]: 0 none, 'u' up, 'r' drain, 'd' down */
	int64	   *held_job;		/* [n_index] job holding it now, 0 none */
	int		   *held_service;	/* [n_index] service holding it now, 0 none */
	int			n_gpus;
	int			usable;			/* not down */
	int			n_down;
	int			n_drain;
	int			largest_block;	/* largest aligned block of GPUs up */
	double		y0;				/* top of topology index 0 */
	double	   *yoff;			/* [n_index + 1] offset of each index from y0 */
} SvgPool;

typedef struct SvgBlock
{
	int			pool;			/* index into pools, -1 when not drawn */
	int64		job_id;			/* 0 for a service */
	int			service_id;
	int			gpu_first;
	int			gpu_count;
	int			step_first;
	int			step_count;
	char	   *job_name;
	char	   *kind;
	char	   *tenant;
	char	   *job_status;
	double		priority;
	char	   *service;
	SvgState	state;			/* for a service: of its step 0 */
	int			color;			/* index into colors */
} SvgBlock;

typedef struct SvgService
{
	int			service_id;
	char	   *name;
	char	   *pool;
	int			pool_id;
	double		capacity;
	int			churn_limit;
	int			min_gpus;
	int			max_gpus;
	int			color;			/* index into colors */
	int		   *planned;		/* [T] GPUs the plan gives it */
	int		   *forecast;		/* [T] churn-shaped forecast the planner plans for */
	int		   *actual;			/* [T] recorded demand in GPUs, -1 unknown */
	char	   *forecast_error; /* NULL when the forecast worked */
} SvgService;

/* A queued or booked job the plan has no block for, and why. */
typedef struct SvgUnplanned
{
	int64		job_id;
	char	   *name;
	char	   *kind;
	char	   *tenant;
	char	   *status;
	char	   *pool;
	int			gpus_min;
	int			gpus_max;
	char	   *reason;
} SvgUnplanned;

/*
 * A maintenance window, or an advance reservation (tenant set), over the
 * plan's horizon, clipped to it.
 */
typedef struct SvgWindow
{
	int			pool;			/* index into pools */
	int			gpu_first;		/* topology index */
	int			gpu_count;
	int			step_first;
	int			step_count;
	char	   *reason;
	TimestampTz starts_at;
	TimestampTz ends_at;
	char	   *tenant;			/* a reservation's tenant; NULL: a window */
} SvgWindow;

typedef struct SvgPlan
{
	int64		plan_id;
	SvgColorBy	color_by;
	TimestampTz now;
	char	   *mode;
	char	   *status;
	TimestampTz started_at;		/* when the planner ran */
	TimestampTz plan_start;
	int64		step_usecs;
	int			T;
	double		objective;
	bool		objective_null;
	double		gap;
	bool		gap_null;
	double		solve_ms;
	bool		solve_null;
	int			n_pools;
	SvgPool    *pools;
	int			n_blocks;
	SvgBlock   *blocks;
	int			n_services;
	SvgService *services;
	int			n_jobs;
	int			n_unplanned;
	SvgUnplanned *unplanned;
	int			n_colors;
	SvgColor   *colors;
	int			n_windows;
	SvgWindow  *windows;
	int			n_reservations;
	SvgWindow  *reservations;
	/* what the grid shows, for the legend */
	bool		has_state[3];
	bool		has_idle;
	bool		has_down;
	bool		has_missing;
	bool		has_drain;
	bool		has_window;
	bool		has_reservation;
	bool		has_risk;
	bool		has_forecast;
	bool		has_actual;
	bool		has_now;
	/* layout */
	bool		detailed;
	int			band;			/* GPUs per row */
	bool		stretched;		/* some rows are taller than the band's */
	double		label_h;		/* the height small jobs were stretched to */
	double		width;
	double		legend_y;		/* first legend line's baseline */
	double		top;			/* top of the grid */
	double		cw;				/* width of one step */
	double		x0;
	double		now_x;			/* where now is on the time axis */
	double		grid_bottom;
	double		unplanned_y;	/* top of the list of unplanned jobs */
	int			unplanned_cols;
	double		height;
} SvgPlan;

/* plan_svg_data.c */
extern void svg_read_plan(SvgPlan *p);

/* plan_svg_layout.c */
extern void svg_layout(SvgPlan *p);
extern double svg_gpu_y(const SvgPool *pool, int index);

/* plan_svg_legend.c */
extern void svg_assign_colors(SvgPlan *p);
extern void svg_style(StringInfo buf, const SvgPlan *p);
extern int	svg_legend(StringInfo buf, const SvgPlan *p, double x, double y, double right);
extern void svg_append_fill(StringInfo buf, const SvgPlan *p, int color, bool hatched);

/* plan_svg_draw.c */
extern void svg_append_xml(StringInfo buf, const char *s);
extern void svg_append_num(StringInfo buf, double v);
extern void svg_append_rect(StringInfo buf, const char *cls, double x, double y, double w, double h);
extern void svg_append_text(StringInfo buf, const char *cls, double x, double y, const char *s, int max_chars);
extern void svg_format_time(TimestampTz ts, bool with_date, char *out, size_t len);
extern void svg_draw_header(StringInfo buf, SvgPlan *p);
extern void svg_draw_axis(StringInfo buf, SvgPlan *p);
extern void svg_draw_pool(StringInfo buf, SvgPlan *p, SvgPool *pool);
extern void svg_draw_blocks(StringInfo buf, SvgPlan *p);
extern void svg_draw_windows(StringInfo buf, SvgPlan *p);
extern void svg_draw_now(StringInfo buf, SvgPlan *p, bool over);
extern void svg_draw_idle(StringInfo buf, SvgPlan *p);
extern void svg_draw_service(StringInfo buf, SvgPlan *p, SvgService *s, double top);
extern void svg_draw_unplanned(StringInfo buf, SvgPlan *p);

#endif							/* GPUALLOC_PLAN_SVG_H */
