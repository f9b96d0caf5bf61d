/*
 * plan_svg.c — gpualloc.plan_svg(plan_id, color_by): a plan as an SVG Gantt
 * chart.
 *
 * GPUs are rows, grouped by pool and node, in topology order; steps are
 * columns.  Jobs are coloured by kind (the default) or by tenant, each
 * service in its own colour; what the allocation holds now is solid, what
 * is only planned hatched.  Below the grid: idle GPUs, one strip per service
 * against its forecast, and the jobs the plan left out with the reason.  The
 * legend shows only what appears.  The output depends only on the tables,
 * the transaction's start time and the session's time zone.
 *
 * The work is split by concept (plan_svg.h): reading (plan_svg_data.c),
 * layout (plan_svg_layout.c), drawing (plan_svg_draw.c), colours and legend
 * (plan_svg_legend.c).
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"

#include "plan_svg.h"

PG_FUNCTION_INFO_V1(gpualloc_plan_svg);

static void
require_arg(FunctionCallInfo fcinfo, int n, const char *field)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", field)));
}

static SvgColorBy
color_by_arg(text *arg)
{
	char	   *s = text_to_cstring(arg);

	if (strcmp(s, "kind") == 0)
		return SVG_BY_KIND;
	if (strcmp(s, "tenant") == 0)
		return SVG_BY_TENANT;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("color_by must be one of kind, tenant; got %s", s),
			 errhint("color_by => 'kind' colours jobs by kind (the default), 'tenant' by tenant.")));
	return SVG_BY_KIND;			/* keep the compiler quiet */
}

Datum
gpualloc_plan_svg(PG_FUNCTION_ARGS)
{
	SvgPlan		p;
	StringInfoData buf;
	double		y;

	require_arg(fcinfo, 0, "plan_id");
	if (PG_NARGS() > 1)
		require_arg(fcinfo, 1, "color_by");
	memset(&p, 0, sizeof(p));
	p.plan_id = PG_GETARG_INT64(0);
	p.color_by = PG_NARGS() > 1 ? color_by_arg(PG_GETARG_TEXT_PP(1)) : SVG_BY_KIND;
	p.now = GetCurrentTransactionStartTimestamp();

	/* the result outlives SPI's memory */
	initStringInfo(&buf);
	SPI_connect();
	svg_read_plan(&p);
	svg_assign_colors(&p);
	svg_layout(&p);

	appendStringInfoString(&buf, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"");
	svg_append_num(&buf, p.width);
	appendStringInfoString(&buf, "\" height=\"");
	svg_append_num(&buf, p.height);
	appendStringInfoString(&buf, "\" viewBox=\"0 0 ");
	svg_append_num(&buf, p.width);
	appendStringInfoChar(&buf, ' ');
	svg_append_num(&buf, p.height);
	appendStringInfo(&buf, "\" data-plan-id=\"" INT64_FORMAT "\" data-color-by=\"%s\">\n", p.plan_id,
					 p.color_by == SVG_BY_KIND ? "kind" : "tenant");
	appendStringInfo(&buf, "<title>gpualloc plan " INT64_FORMAT "</title>\n", p.plan_id);
	svg_style(&buf, &p);
	svg_append_rect(&buf, "background", 0, 0, p.width, p.height);
	appendStringInfoString(&buf, " fill=\"#fff\"/>\n");

	svg_draw_header(&buf, &p);
	svg_legend(&buf, &p, 10, p.legend_y, p.width - RIGHT);
	svg_draw_axis(&buf, &p);
	for (int i = 0; i < p.n_pools; i++)
		svg_draw_pool(&buf, &p, &p.pools[i]);
	svg_draw_now(&buf, &p, false);
	svg_draw_blocks(&buf, &p);
	svg_draw_windows(&buf, &p);
	svg_draw_now(&buf, &p, true);
	svg_draw_idle(&buf, &p);
	y = p.grid_bottom + IDLE_H;
	for (int i = 0; i < p.n_services; i++)
	{
		svg_draw_service(&buf, &p, &p.services[i], y + 8);
		y += SERVICE_H;
	}
	svg_draw_unplanned(&buf, &p);
	appendStringInfoString(&buf, "</svg>\n");

	SPI_finish();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
}
