/*
 * plan_svg_draw.c — drawing the plan picture.
 *
 * GPUs are rows, grouped by pool and node, in topology order; steps are
 * columns.  Each planned job is one <g class="job"> with its block, filled in
 * its colour when committed (running: outlined) or hatched when tentative,
 * its name on the block when it fits and always a tooltip.  Each service's
 * blocks are in its own colour, step 0 solid when the allocation holds it.
 * Idle GPU-steps are light grey, down GPUs dark.  Below the grid: idle GPUs
 * per step with the idle windows outlined, per service its planned GPUs
 * against the demand forecast the planner used (the steps where the plan
 * falls short, coverage risk, in red), and the queued or booked jobs the plan
 * has no block for, each with its reason.  The step that contains now is
 * outlined.
 */
#include "postgres.h"

#include <math.h>

#include "mb/pg_wchar.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "plan_svg.h"

/* ---- output helpers ---- */

/* Text or attribute content, escaped for XML; control characters become '?'. */
void
svg_append_xml(StringInfo buf, const char *s)
{
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		switch (c)
		{
			case '&':
				appendStringInfoString(buf, "&amp;");
				break;
			case '<':
				appendStringInfoString(buf, "&lt;");
				break;
			case '>':
				appendStringInfoString(buf, "&gt;");
				break;
			case '"':
				appendStringInfoString(buf, "&quot;");
				break;
			case '\'':
				appendStringInfoString(buf, "&apos;");
				break;
			default:
				if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
					appendStringInfoChar(buf, '?');
				else
					appendStringInfoChar(buf, (char) c);
		}
	}
}

/* A coordinate with at most two decimals and no trailing zeros. */
void
svg_append_num(StringInfo buf, double v)
{
	char		tmp[64];
	int			n;

	snprintf(tmp, sizeof(tmp), "%.2f", fabs(v) < 0.005 ? 0.0 : v);
	n = strlen(tmp);
	while (n > 0 && tmp[n - 1] == '0')
		tmp[--n] = '\0';
	if (n > 0 && tmp[n - 1] == '.')
		tmp[--n] = '\0';
	appendStringInfoString(buf, tmp);
}

/* An unclosed <rect: the caller adds attributes and "/>" or children. */
void
svg_append_rect(StringInfo buf, const char *cls, double x, double y, double w, double h)
{
	appendStringInfo(buf, "<rect class=\"%s\" x=\"", cls);
	svg_append_num(buf, x);
	appendStringInfoString(buf, "\" y=\"");
	svg_append_num(buf, y);
	appendStringInfoString(buf, "\" width=\"");
	svg_append_num(buf, w);
	appendStringInfoString(buf, "\" height=\"");
	svg_append_num(buf, h);
	appendStringInfoChar(buf, '"');
}

/* s escaped, clipped to max_chars characters (0: all) with an ellipsis. */
static void
append_clipped(StringInfo buf, const char *s, int max_chars)
{
	if (max_chars > 0 && pg_mbstrlen(s) > max_chars)
	{
		int			bytes = pg_mbcharcliplen(s, strlen(s), Max(max_chars - 1, 1));
		char	   *clipped = pnstrdup(s, bytes);

		svg_append_xml(buf, clipped);
		appendStringInfoString(buf, GetDatabaseEncoding() == PG_UTF8 ? "\xE2\x80\xA6" : "~");
		pfree(clipped);
	}
	else
		svg_append_xml(buf, s);
}

/* <text> at (x, y) with escaped content, optionally clipped to max_chars. */
void
svg_append_text(StringInfo buf, const char *cls, double x, double y, const char *s, int max_chars)
{
	appendStringInfo(buf, "<text class=\"%s\" x=\"", cls);
	svg_append_num(buf, x);
	appendStringInfoString(buf, "\" y=\"");
	svg_append_num(buf, y);
	appendStringInfoString(buf, "\">");
	append_clipped(buf, s, max_chars);
	appendStringInfoString(buf, "</text>\n");
}

/* Local time of ts in the session's time zone. */
void
svg_format_time(TimestampTz ts, bool with_date, char *out, size_t len)
{
	struct pg_tm tm;
	fsec_t		fsec;
	int			tz;

	if (timestamp2tm(ts, &tz, &tm, &fsec, NULL, NULL) != 0)
	{
		snprintf(out, len, "?");
		return;
	}
	if (with_date)
		snprintf(out, len, "%04d-%02d-%02d %02d:%02d", tm.tm_year, tm.tm_mon, tm.tm_mday,
				 tm.tm_hour, tm.tm_min);
	else
		snprintf(out, len, "%02d:%02d", tm.tm_hour, tm.tm_min);
}

static int
day_of(TimestampTz ts)
{
	struct pg_tm tm;
	fsec_t		fsec;
	int			tz;

	if (timestamp2tm(ts, &tz, &tm, &fsec, NULL, NULL) != 0)
		return -1;
	return tm.tm_year * 400 + tm.tm_mon * 32 + tm.tm_mday;
}

static void
append_step_range(StringInfo buf, SvgPlan *p, int first, int count)
{
	char		a[40];
	char		b[40];

	svg_format_time(p->plan_start + first * p->step_usecs, true, a, sizeof(a));
	svg_format_time(p->plan_start + (first + count) * p->step_usecs, true, b, sizeof(b));
	svg_append_xml(buf, a);
	appendStringInfoString(buf, " to ");
	svg_append_xml(buf, b);
}

/* Where GPUs [first, first + count) of a pool are: node and slots. */
static void
append_gpus(StringInfo buf, const SvgPool *pool, int first, int count)
{
	int			last = first + count - 1;
	int			n0 = first / pool->node_size;
	int			n1 = last / pool->node_size;

	appendStringInfo(buf, "%d GPU%s on ", count, count == 1 ? "" : "s");
	if (n0 != n1)
		appendStringInfo(buf, "nodes %d-%d", n0, n1);
	else if (count == 1)
		appendStringInfo(buf, "node %d slot %d", n0, first % pool->node_size);
	else
		appendStringInfo(buf, "node %d slots %d-%d", n0, first % pool->node_size, last % pool->node_size);
	appendStringInfoString(buf, ", ");
}

static void
append_line(StringInfo buf, const char *cls, double x1, double x2, double y1, double y2)
{
	appendStringInfo(buf, "<line class=\"%s\" x1=\"", cls);
	svg_append_num(buf, x1);
	appendStringInfoString(buf, "\" x2=\"");
	svg_append_num(buf, x2);
	appendStringInfoString(buf, "\" y1=\"");
	svg_append_num(buf, y1);
	appendStringInfoString(buf, "\" y2=\"");
	svg_append_num(buf, y2);
	appendStringInfoString(buf, "\"/>\n");
}

/* ---- the parts of the picture ---- */

void
svg_draw_header(StringInfo buf, SvgPlan *p)
{
	char		start[40];
	char		end[40];
	int			gpus = 0;

	for (int i = 0; i < p->n_pools; i++)
		gpus += p->pools[i].n_gpus;
	svg_format_time(p->plan_start, true, start, sizeof(start));
	svg_format_time(p->plan_start + p->T * p->step_usecs, true, end, sizeof(end));
	appendStringInfo(buf, "<text class=\"title\" x=\"10\" y=\"20\">Plan " INT64_FORMAT " (", p->plan_id);
	svg_append_xml(buf, p->mode);
	appendStringInfoString(buf, ", ");
	svg_append_xml(buf, p->status);
	appendStringInfoString(buf, "): ");
	svg_append_xml(buf, start);
	appendStringInfoString(buf, " to ");
	svg_append_xml(buf, end);
	appendStringInfoString(buf, " (");
	svg_append_xml(buf, pg_get_timezone_name(session_timezone));
	appendStringInfoString(buf, ")</text>\n");
	appendStringInfo(buf, "<text class=\"sub\" x=\"10\" y=\"36\">%d GPUs in %d pool%s, %d planned job%s, "
					 "%d not planned, %d service%s, %d steps of %d min",
					 gpus, p->n_pools, p->n_pools == 1 ? "" : "s", p->n_jobs, p->n_jobs == 1 ? "" : "s",
					 p->n_unplanned, p->n_services, p->n_services == 1 ? "" : "s", p->T,
					 (int) (p->step_usecs / USECS_PER_MINUTE));
	if (!p->objective_null)
		appendStringInfo(buf, "; objective %.2f", p->objective);
	if (!p->gap_null)
		appendStringInfo(buf, ", gap %.2f%%", 100.0 * p->gap);
	if (!p->solve_null)
		appendStringInfo(buf, ", solved in %.1f ms", p->solve_ms);
	appendStringInfo(buf, "; jobs coloured by %s", p->color_by == SVG_BY_KIND ? "kind" : "tenant");
	if (!p->detailed)
		appendStringInfo(buf, "; one row per %d GPUs%s", p->band,
						 p->stretched ? ", GPUs with small jobs drawn taller" : "");
	if (!p->has_now)
		appendStringInfoString(buf, "; now is outside this plan's horizon");
	appendStringInfoString(buf, "</text>\n");
}

void
svg_draw_axis(StringInfo buf, SvgPlan *p)
{
	int			every = 1;
	int			last_day = -1;
	double		y_day = p->top - 26;
	double		y_time = p->top - 14;

	while (every * p->cw < 40 && every < p->T)
		every *= 2;
	appendStringInfoString(buf, "<g class=\"axis\">\n");
	for (int t = 0; t < p->T; t++)
	{
		TimestampTz st = p->plan_start + t * p->step_usecs;
		double		x = p->x0 + t * p->cw;
		int			day = day_of(st);
		char		label[40];

		if (day != last_day)
		{
			char		date[40];

			svg_format_time(st, true, date, sizeof(date));
			date[10] = '\0';
			svg_append_text(buf, "day", x + 2, y_day, date, 0);
			append_line(buf, "dayline", x, x, y_day - 10, p->grid_bottom);
			last_day = day;
		}
		if (t % every == 0)
		{
			svg_format_time(st, false, label, sizeof(label));
			svg_append_text(buf, "tick", x + 2, y_time, label, 0);
		}
	}
	appendStringInfoString(buf, "</g>\n");
}

/* The label of a row of GPUs [first, last]. */
static void
row_label(SvgPlan *p, SvgPool *pool, int first, int last, char *label, size_t len)
{
	int			n0 = first / pool->node_size;
	int			n1 = last / pool->node_size;

	if (p->detailed)
	{
		char		st = pool->state[first];

		snprintf(label, len, "node %d slot %d%s", n0, first % pool->node_size,
				 st == 'd' ? " (down)" : st == 'r' ? " (drain)" : st == 0 ? " (none)" : "");
	}
	else if (p->band >= pool->node_size)
	{
		if (n0 == n1)
			snprintf(label, len, "node %d", n0);
		else
			snprintf(label, len, "nodes %d-%d", n0, n1);
	}
	else
		snprintf(label, len, "node %d slots %d-%d", n0, first % pool->node_size, last % pool->node_size);
}

void
svg_draw_pool(StringInfo buf, SvgPlan *p, SvgPool *pool)
{
	double		x0 = p->x0;
	double		w = p->T * p->cw;
	int			n_rows = (pool->n_index + p->band - 1) / p->band;
	double		last_label = -1e9;
	StringInfoData head;

	appendStringInfoString(buf, "<g class=\"pool\">\n");
	initStringInfo(&head);
	appendStringInfo(&head, "%s (%s): %d GPUs", pool->name, pool->model, pool->n_gpus);
	if (pool->n_down > 0)
		appendStringInfo(&head, ", %d down", pool->n_down);
	if (pool->n_drain > 0)
		appendStringInfo(&head, ", %d draining", pool->n_drain);
	svg_append_text(buf, "poolname", 10, pool->y0 - 5, head.data, 0);
	pfree(head.data);

	/* idle everywhere first; blocks are drawn over it */
	svg_append_rect(buf, "idle", x0, pool->y0, w, svg_gpu_y(pool, pool->n_index) - pool->y0);
	appendStringInfoString(buf, "/>\n");

	/* GPUs that are down or missing, in runs of consecutive indexes */
	for (int i = 0; i < pool->n_index;)
	{
		char		st = pool->state[i];
		int			j = i;

		while (j < pool->n_index && pool->state[j] == st)
			j++;
		if (st == 'd' || st == 0)
		{
			svg_append_rect(buf, st == 'd' ? "down" : "missing", x0, svg_gpu_y(pool, i), w,
							svg_gpu_y(pool, j) - svg_gpu_y(pool, i));
			appendStringInfo(buf, "><title>%s GPUs %d-%d</title></rect>\n", st == 'd' ? "down:" : "no", i, j - 1);
		}
		i = j;
	}

	/* row labels where they do not overlap, node separators */
	for (int r = 0; r < n_rows; r++)
	{
		int			first = r * p->band;
		int			last = Min(first + p->band, pool->n_index) - 1;
		double		y = svg_gpu_y(pool, first);
		double		row_h = svg_gpu_y(pool, last + 1) - y;
		double		base = y + (row_h >= 9 ? Min(row_h, 14.0) - 3 : 8);
		char		label[96];

		if (base - last_label >= 10)
		{
			row_label(p, pool, first, last, label, sizeof(label));
			svg_append_text(buf, "rowlabel", 10, base, label, 0);
			last_label = base;
		}
		if (r > 0 && first % pool->node_size == 0)
			append_line(buf, "node", 0, x0 + w, y, y);
	}
	appendStringInfoString(buf, "</g>\n");
}

/* The box of steps [first, first + count) of a block, clipped to the horizon. */
static void
block_box(SvgPlan *p, SvgBlock *b, int first, int count, double *x, double *y, double *w, double *h)
{
	SvgPool    *pool = &p->pools[b->pool];
	int			steps = Min(first + count, p->T) - first;

	*x = p->x0 + first * p->cw;
	*w = Max(steps, 0) * p->cw;
	*y = svg_gpu_y(pool, b->gpu_first);
	*h = svg_gpu_y(pool, b->gpu_first + b->gpu_count) - *y;
	if (*h < MIN_DRAWN_H)
	{
		*y -= (MIN_DRAWN_H - *h) / 2;
		*h = MIN_DRAWN_H;
	}
}

static const char *
kind_class(const char *kind)
{
	if (strcmp(kind, "training") == 0)
		return "k-training";
	if (strcmp(kind, "batch_inference") == 0)
		return "k-batch_inference";
	if (strcmp(kind, "quantization") == 0)
		return "k-quantization";
	return "k-job";
}

static const char *const state_names[] = {"tentative", "committed", "running"};

/* One rectangle of a service's block, solid or hatched. */
static void
service_rect(StringInfo buf, SvgPlan *p, SvgBlock *b, int first, int count, bool committed)
{
	double		x,
				y,
				w,
				h;

	block_box(p, b, first, count, &x, &y, &w, &h);
	svg_append_rect(buf, "k-service", x, y, w, h);
	svg_append_fill(buf, p, b->color, !committed);
	appendStringInfo(buf, " data-state=\"%s\"><title>", committed ? "committed" : "tentative");
	svg_append_xml(buf, b->service);
	appendStringInfo(buf, " (%s): ", committed ? "committed" : "tentative");
	append_gpus(buf, &p->pools[b->pool], b->gpu_first, b->gpu_count);
	append_step_range(buf, p, first, count);
	appendStringInfoString(buf, "</title></rect>\n");
}

/* A job's name on its block, in a font that fits, when it fits at all. */
static void
job_label(StringInfo buf, SvgPlan *p, SvgBlock *b, double x, double y, double w, double h)
{
	bool		small = h < LABEL_H - 1;
	double		cw = small ? SMALL_CHAR_W : CHAR_W;
	int			max_chars = (int) ((w - 5) / cw);
	SvgColor   *c = &p->colors[b->color];
	char		cls[48];
	char	   *full;

	/* a block under way: its name starts after the now line, if it fits */
	if (p->has_now && p->now_x > x && (x + w - p->now_x - 5) / cw >= 3)
	{
		w -= p->now_x - x;
		x = p->now_x;
		max_chars = (int) ((w - 5) / cw);
	}
	if (h < SMALL_LABEL_H || max_chars < 3)
		return;
	snprintf(cls, sizeof(cls), "jobname%s%s", b->state == SVG_TENTATIVE ? " onhatch" : c->dark_text ? " dark" : "",
			 small ? " small" : "");
	/* the name and its size when both fit, else the name */
	full = psprintf("%s (%d GPU%s)", b->job_name, b->gpu_count, b->gpu_count == 1 ? "" : "s");
	svg_append_text(buf, cls, x + 3, y + Min(h, DETAIL_ROW_H) / 2 + (small ? 3 : 3.5),
					pg_mbstrlen(full) <= max_chars ? full : b->job_name, max_chars);
	pfree(full);
}

void
svg_draw_blocks(StringInfo buf, SvgPlan *p)
{
	/* services: step 0 solid when the allocation holds it, the rest hatched */
	appendStringInfoString(buf, "<g class=\"services\">\n");
	for (int i = 0; i < p->n_blocks; i++)
	{
		SvgBlock   *b = &p->blocks[i];

		if (b->job_id != 0 || b->pool < 0 || b->step_first >= p->T)
			continue;
		if (b->state == SVG_COMMITTED)
		{
			service_rect(buf, p, b, b->step_first, 1, true);
			if (b->step_count > 1)
				service_rect(buf, p, b, b->step_first + 1, b->step_count - 1, false);
		}
		else
			service_rect(buf, p, b, b->step_first, b->step_count, false);
	}
	appendStringInfoString(buf, "</g>\n");

	/* jobs: one group per job, its block(s), its name when it fits */
	for (int i = 0; i < p->n_blocks;)
	{
		SvgBlock   *first = &p->blocks[i];
		int			j = i;

		if (first->job_id == 0)
			break;
		while (j < p->n_blocks && p->blocks[j].job_id == first->job_id)
			j++;
		appendStringInfo(buf, "<g class=\"job\" data-job-id=\"" INT64_FORMAT "\" data-kind=\"", first->job_id);
		svg_append_xml(buf, first->kind);
		appendStringInfoString(buf, "\" data-tenant=\"");
		svg_append_xml(buf, first->tenant);
		appendStringInfo(buf, "\" data-state=\"%s\"><title>", state_names[first->state]);
		svg_append_xml(buf, first->job_name);
		appendStringInfo(buf, " (job " INT64_FORMAT ", ", first->job_id);
		svg_append_xml(buf, first->kind);
		if (first->tenant[0] != '\0')
		{
			appendStringInfoString(buf, ", tenant ");
			svg_append_xml(buf, first->tenant);
		}
		appendStringInfo(buf, ", priority %g, %s", first->priority,
						 first->state == SVG_RUNNING ? "running" :
						 first->state == SVG_COMMITTED ? "booked now" : "tentative");
		appendStringInfoString(buf, "): ");
		if (first->pool >= 0)
			append_gpus(buf, &p->pools[first->pool], first->gpu_first, first->gpu_count);
		append_step_range(buf, p, first->step_first, first->step_count);
		appendStringInfoString(buf, "</title>\n");
		for (int k = i; k < j; k++)
		{
			SvgBlock   *b = &p->blocks[k];
			double		x,
						y,
						w,
						h;

			if (b->pool < 0 || b->step_first >= p->T)
				continue;
			block_box(p, b, b->step_first, b->step_count, &x, &y, &w, &h);
			svg_append_rect(buf, kind_class(b->kind), x, y, w, h);
			svg_append_fill(buf, p, b->color, b->state == SVG_TENTATIVE);
			appendStringInfoString(buf, "/>\n");
			if (k == i)
				job_label(buf, p, b, x, y, w, h);
		}
		appendStringInfoString(buf, "</g>\n");
		i = j;
	}
}

/*
 * One maintenance window over the grid: a hatched, outlined box over the
 * GPUs and steps it closes, labelled with its reason where it fits, with
 * its times in a tooltip; or one advance reservation: a dashed outline,
 * labelled with its tenant (and reason).  Drawn over the blocks, so a
 * block inside one still shows through.
 */
static void
draw_closed(StringInfo buf, SvgPlan *p, const SvgWindow *w)
{
	SvgPool    *pool = &p->pools[w->pool];
	bool		resv = w->tenant != NULL;
	double		x = p->x0 + w->step_first * p->cw;
	double		y = svg_gpu_y(pool, w->gpu_first);
	double		wd = w->step_count * p->cw;
	double		h = Max(svg_gpu_y(pool, w->gpu_first + w->gpu_count) - y, MIN_DRAWN_H);
	char		from[40],
				to[40];
	StringInfoData label;

	svg_format_time(w->starts_at, true, from, sizeof(from));
	svg_format_time(w->ends_at, true, to, sizeof(to));
	initStringInfo(&label);
	if (resv)
		appendStringInfo(&label, "reserved for %s", w->tenant);
	else
		appendStringInfoString(&label, "maintenance");
	if (w->reason[0] != '\0')
		appendStringInfo(&label, ": %s", w->reason);
	appendStringInfo(buf, "<g class=\"%s\" data-pool=\"", resv ? "reservation" : "maintenance");
	svg_append_xml(buf, pool->name);
	if (resv)
	{
		appendStringInfoString(buf, "\" data-tenant=\"");
		svg_append_xml(buf, w->tenant);
	}
	appendStringInfo(buf, "\" data-gpu-first=\"%d\" data-gpu-count=\"%d\" data-step-first=\"%d\" "
					 "data-step-count=\"%d\">", w->gpu_first, w->gpu_count, w->step_first, w->step_count);
	svg_append_rect(buf, resv ? "resv" : "maint", x, y, wd, h);
	appendStringInfoString(buf, "><title>");
	svg_append_xml(buf, label.data);
	appendStringInfo(buf, ", GPUs %d-%d, %s to %s</title></rect>\n", w->gpu_first,
					 w->gpu_first + w->gpu_count - 1, from, to);
	if (h >= LABEL_H && wd >= 6 * CHAR_W)
		svg_append_text(buf, resv ? "resvlabel" : "maintlabel", x + 3, y + Min(h, 14.0) - 3,
						label.data, (int) ((wd - 6) / CHAR_W));
	appendStringInfoString(buf, "</g>\n");
	pfree(label.data);
}

/* Maintenance windows and advance reservations over the grid (draw_closed). */
void
svg_draw_windows(StringInfo buf, SvgPlan *p)
{
	for (int i = 0; i < p->n_windows; i++)
		draw_closed(buf, p, &p->windows[i]);
	for (int i = 0; i < p->n_reservations; i++)
		draw_closed(buf, p, &p->reservations[i]);
}

/*
 * Now: under the blocks, the step under way as a column (seen where GPUs are
 * idle); over them, a thin line at the very moment, labelled on the axis.
 */
void
svg_draw_now(StringInfo buf, SvgPlan *p, bool over)
{
	int64		cur;

	if (!p->has_now)
		return;
	if (over)
	{
		append_line(buf, "nowline", p->now_x, p->now_x, p->top - 8, p->top);
		for (int i = 0; i < p->n_pools; i++)
			append_line(buf, "nowline", p->now_x, p->now_x, p->pools[i].y0,
						svg_gpu_y(&p->pools[i], p->pools[i].n_index));
		svg_append_text(buf, "nowlabel", p->now_x - 8, p->top - 38, "now", 0);
		return;
	}
	cur = (p->now - p->plan_start) / p->step_usecs;
	svg_append_rect(buf, "now", p->x0 + cur * p->cw, p->top + POOL_HEAD - 2, p->cw,
					p->grid_bottom - p->top - POOL_HEAD - POOL_GAP + 4);
	appendStringInfoString(buf, "><title>the step under way now</title></rect>\n");
}

/* Whether an earlier window than the i-th closes index idx at step t. */
static bool
closed_before(const SvgPlan *p, int i, int idx, int t)
{
	for (int k = 0; k < i; k++)
	{
		const SvgWindow *w = &p->windows[k];

		if (w->pool == p->windows[i].pool && idx >= w->gpu_first && idx < w->gpu_first + w->gpu_count &&
			t >= w->step_first && t < w->step_first + w->step_count)
			return true;
	}
	return false;
}

/*
 * A maintenance window's GPUs (present and not down) are not idle: nothing
 * may be placed there.  A GPU in two windows is taken once.
 */
static void
take_closed(const SvgPlan *p, int i, int *idle)
{
	const SvgWindow *w = &p->windows[i];
	const SvgPool *pool = &p->pools[w->pool];

	for (int t = w->step_first; t < w->step_first + w->step_count; t++)
		for (int idx = w->gpu_first; idx < w->gpu_first + w->gpu_count; idx++)
			if ((pool->state[idx] == 'u' || pool->state[idx] == 'r') && !closed_before(p, i, idx, t))
				idle[t]--;
}

/* Idle GPUs per step, and the windows in which some GPUs stay idle. */
void
svg_draw_idle(StringInfo buf, SvgPlan *p)
{
	int		   *idle = palloc0(sizeof(int) * p->T);
	int			usable = 0;
	double		top = p->grid_bottom + 14;
	double		h = IDLE_H - 22;

	for (int i = 0; i < p->n_pools; i++)
		usable += p->pools[i].usable;
	for (int t = 0; t < p->T; t++)
		idle[t] = usable;
	for (int i = 0; i < p->n_blocks; i++)
	{
		SvgBlock   *b = &p->blocks[i];

		for (int t = b->step_first; t < b->step_first + b->step_count && t < p->T; t++)
			idle[t] -= b->gpu_count;
	}
	for (int i = 0; i < p->n_windows; i++)
		take_closed(p, i, idle);
	appendStringInfoString(buf, "<g class=\"idle-strip\">\n");
	svg_append_text(buf, "rowlabel", 10, top + 12, "idle GPUs", 0);
	appendStringInfo(buf, "<text class=\"rowlabel\" x=\"10\" y=\"");
	svg_append_num(buf, top + 24);
	appendStringInfo(buf, "\">of %d usable</text>\n", usable);
	svg_append_rect(buf, "strip", p->x0, top, p->T * p->cw, h);
	appendStringInfoString(buf, "/>\n");
	for (int t = 0; t < p->T;)
	{
		int			u = t;
		double		gpu_hours = 0;

		if (idle[t] <= 0)
		{
			t++;
			continue;
		}
		while (u < p->T && idle[u] > 0)
			gpu_hours += idle[u++] * (double) p->step_usecs / USECS_PER_HOUR;
		svg_append_rect(buf, "idle-window", p->x0 + t * p->cw, top, (u - t) * p->cw, h);
		appendStringInfoString(buf, "><title>idle window ");
		append_step_range(buf, p, t, u - t);
		appendStringInfo(buf, ": %.1f idle GPU-hours</title></rect>\n", gpu_hours);
		t = u;
	}
	for (int t = 0; t < p->T; t++)
	{
		double		bh;

		if (idle[t] <= 0 || usable == 0)
			continue;
		bh = h * Min(idle[t], usable) / usable;
		svg_append_rect(buf, "idle-bar", p->x0 + t * p->cw + 0.5, top + h - bh, Max(p->cw - 1, 1), bh);
		appendStringInfo(buf, "><title>%d idle</title></rect>\n", idle[t]);
	}
	appendStringInfoString(buf, "</g>\n");
	pfree(idle);
}

/* A step curve as a polyline through each step's start and end. */
static void
append_step_line(StringInfo buf, const char *cls, SvgPlan *p, const int *v, double base, double scale)
{
	bool		open = false;

	for (int t = 0; t < p->T; t++)
	{
		if (v[t] < 0)
		{
			if (open)
				appendStringInfoString(buf, "\"/>\n");
			open = false;
			continue;
		}
		if (!open)
			appendStringInfo(buf, "<polyline class=\"%s\" points=\"", cls);
		else
			appendStringInfoChar(buf, ' ');
		open = true;
		svg_append_num(buf, p->x0 + t * p->cw);
		appendStringInfoChar(buf, ',');
		svg_append_num(buf, base - v[t] * scale);
		appendStringInfoChar(buf, ' ');
		svg_append_num(buf, p->x0 + (t + 1) * p->cw);
		appendStringInfoChar(buf, ',');
		svg_append_num(buf, base - v[t] * scale);
	}
	if (open)
		appendStringInfoString(buf, "\"/>\n");
}

void
svg_draw_service(StringInfo buf, SvgPlan *p, SvgService *s, double top)
{
	double		h = SERVICE_H - 26;
	double		base = top + h;
	int			peak = 1;
	double		scale;
	int			risk_steps = 0;
	double		short_gpu_hours = 0;
	double		step_h = (double) p->step_usecs / USECS_PER_HOUR;
	StringInfoData label;

	for (int t = 0; t < p->T; t++)
	{
		peak = Max(peak, s->planned[t]);
		if (!s->forecast_error)
			peak = Max(peak, s->forecast[t]);
		peak = Max(peak, s->actual[t]);
		if (!s->forecast_error && s->planned[t] < s->forecast[t])
		{
			risk_steps++;
			short_gpu_hours += (s->forecast[t] - s->planned[t]) * step_h;
		}
	}
	scale = h / peak;

	appendStringInfo(buf, "<g class=\"service-strip\" data-service-id=\"%d\">\n", s->service_id);
	initStringInfo(&label);
	appendStringInfo(&label, "%s (%s)", s->name, s->pool);
	svg_append_text(buf, "rowlabel", 10, top + 12, label.data, 26);
	resetStringInfo(&label);
	if (s->forecast_error)
		appendStringInfoString(&label, "no forecast");
	else if (risk_steps > 0)
		appendStringInfo(&label, "%d step%s at risk", risk_steps, risk_steps == 1 ? "" : "s");
	else
		appendStringInfoString(&label, "covered");
	svg_append_text(buf, risk_steps > 0 ? "risklabel" : "rowlabel", 10, top + 24, label.data, 0);
	pfree(label.data);
	appendStringInfo(buf, "<text class=\"rowlabel\" x=\"10\" y=\"");
	svg_append_num(buf, top + 36);
	appendStringInfo(buf, "\">scale 0-%d GPUs</text>\n", peak);

	svg_append_rect(buf, "strip", p->x0, top, p->T * p->cw, h);
	appendStringInfoString(buf, "><title>");
	svg_append_xml(buf, s->name);
	if (s->forecast_error)
	{
		appendStringInfoString(buf, ": no forecast (");
		svg_append_xml(buf, s->forecast_error);
		appendStringInfoChar(buf, ')');
	}
	else
		appendStringInfo(buf, ": %.1f forecast GPU-hours not planned", short_gpu_hours);
	appendStringInfoString(buf, "</title></rect>\n");

	/* coverage risk: planned below the forecast */
	for (int t = 0; t < p->T; t++)
	{
		if (s->forecast_error || s->planned[t] >= s->forecast[t])
			continue;
		svg_append_rect(buf, "risk", p->x0 + t * p->cw, top, p->cw, h);
		appendStringInfo(buf, "><title>coverage risk: %d planned, %d forecast</title></rect>\n",
						 s->planned[t], s->forecast[t]);
		/* and a mark under the time axis, above the grid */
		svg_append_rect(buf, "risk", p->x0 + t * p->cw, p->top - 6, p->cw, 4);
		appendStringInfoString(buf, "/>\n");
	}
	/* planned GPUs as bars in the service's colour */
	for (int t = 0; t < p->T; t++)
	{
		if (s->planned[t] <= 0)
			continue;
		svg_append_rect(buf, "planned", p->x0 + t * p->cw, base - s->planned[t] * scale, p->cw,
						s->planned[t] * scale);
		svg_append_fill(buf, p, s->color, false);
		appendStringInfo(buf, "><title>%d planned</title></rect>\n", s->planned[t]);
	}
	if (!s->forecast_error)
		append_step_line(buf, "forecast", p, s->forecast, base, scale);
	append_step_line(buf, "actual", p, s->actual, base, scale);
	appendStringInfoString(buf, "</g>\n");
}

/* The queued or booked jobs without a block, in columns, each with its reason. */
void
svg_draw_unplanned(StringInfo buf, SvgPlan *p)
{
	int			listed = Min(p->n_unplanned, UNPLANNED_MAX);
	int			rows = (listed + p->unplanned_cols - 1) / Max(p->unplanned_cols, 1);
	double		top = p->unplanned_y + UNPLANNED_HEAD;
	int			max_chars = (int) ((UNPLANNED_COL_W - 16) / CHAR_W);
	char		head[160];

	if (p->n_unplanned == 0)
		return;
	appendStringInfoString(buf, "<g class=\"unplanned-jobs\">\n");
	snprintf(head, sizeof(head), "Not planned: %d queued or booked job%s without a block in this plan",
			 p->n_unplanned, p->n_unplanned == 1 ? "" : "s");
	svg_append_text(buf, "unplanned-head", 10, p->unplanned_y + 16, head, 0);
	for (int i = 0; i < listed; i++)
	{
		SvgUnplanned *u = &p->unplanned[i];
		double		x = 10 + (i / rows) * UNPLANNED_COL_W;
		double		y = top + (i % rows) * UNPLANNED_LINE;
		char	   *what;
		int			what_chars;

		if (u->gpus_min == u->gpus_max)
			what = psprintf("%s (%d GPU%s, %s): ", u->name, u->gpus_min, u->gpus_min == 1 ? "" : "s", u->tenant);
		else
			what = psprintf("%s (%d-%d GPUs, %s): ", u->name, u->gpus_min, u->gpus_max, u->tenant);
		what_chars = Min(pg_mbstrlen(what), max_chars * 2 / 5);
		appendStringInfo(buf, "<g class=\"unplanned-job\" data-job-id=\"" INT64_FORMAT "\" data-status=\"%s\">"
						 "<title>", u->job_id, strcmp(u->status, "booked") == 0 ? "booked" : "queued");
		svg_append_xml(buf, what);
		svg_append_xml(buf, u->reason);
		appendStringInfo(buf, " (job " INT64_FORMAT ", %s, %s, pool ", u->job_id, u->kind, u->status);
		svg_append_xml(buf, u->pool);
		appendStringInfoString(buf, ")</title>");
		appendStringInfoString(buf, "<text class=\"unplanned\" x=\"");
		svg_append_num(buf, x);
		appendStringInfoString(buf, "\" y=\"");
		svg_append_num(buf, y);
		appendStringInfoString(buf, "\">");
		append_clipped(buf, what, what_chars);
		appendStringInfoString(buf, "<tspan class=\"reason\">");
		append_clipped(buf, u->reason, max_chars - what_chars);
		appendStringInfoString(buf, "</tspan></text></g>\n");
		pfree(what);
	}
	if (p->n_unplanned > listed)
	{
		snprintf(head, sizeof(head), "and %d more", p->n_unplanned - listed);
		svg_append_text(buf, "unplanned", 10, top + rows * UNPLANNED_LINE, head, 0);
	}
	appendStringInfoString(buf, "</g>\n");
}
