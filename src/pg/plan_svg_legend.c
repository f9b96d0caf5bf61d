/*
 * plan_svg_legend.c — the colours of the plan picture and its legend.
 *
 * Jobs are coloured by kind (training blue, batch inference orange,
 * quantization purple) or, with color_by => 'tenant', by tenant: the tenants
 * with blocks in the plan, in name order, each its own colour.  Each service
 * has its own colour from a palette of greens and teals picked by its
 * service_id, so it keeps its colour from plan to plan.  A block held in the
 * allocation now (a running job, a booked one, a service's step 0) is solid;
 * a block only planned is hatched in its colour.  Colours are written as fill
 * attributes and only the hatch patterns of colours in use are defined.
 *
 * The legend lists only what the picture shows: the kinds or tenants and
 * the services with blocks, the states of the blocks drawn, and idle, down
 * or missing GPUs, coverage risk, now and the demand lines when present.
 */
#include "postgres.h"

#include <math.h>

#include "mb/pg_wchar.h"

#include "plan_svg.h"

#define NEUTRAL 0				/* colors[0]: the grey of the state swatches */

static const char *const kinds[][3] = {
	{"training", "training", "#4e79a7"},
	{"batch_inference", "batch inference", "#f28e2b"},
	{"quantization", "quantization", "#b07aa1"},
	{"other", "other", "#7f7f7f"},
};

/* no greens: those are the services' */
static const char *const tenant_palette[] = {
	"#4e79a7", "#f28e2b", "#b07aa1", "#e15759", "#9c755f", "#edc948",
	"#ff9da7", "#6b6ecf", "#bab0ac", "#d37295", "#a0cbe8", "#ffbe7d",
};

static const char *const service_palette[] = {
	"#59a14f", "#2a9d8f", "#8cd17d", "#1b7837", "#76b7b2", "#b5bd00", "#0b6e69", "#a6d96a",
};

static double
channel(const char *hex, int i)
{
	char		two[3] = {hex[1 + 2 * i], hex[2 + 2 * i], '\0'};

	return strtol(two, NULL, 16) / 255.0;
}

/* Relative luminance (sRGB) of "#rrggbb". */
static double
luminance(const char *hex)
{
	double		l = 0;
	static const double weight[3] = {0.2126, 0.7152, 0.0722};

	for (int i = 0; i < 3; i++)
	{
		double		c = channel(hex, i);

		l += weight[i] * (c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4));
	}
	return l;
}

/* "#rrggbb" of a hue (degrees), saturation and lightness (0-1). */
static void
hsl_hex(double h, double s, double l, char *out)
{
	double		c = (1 - fabs(2 * l - 1)) * s;
	double		hp = fmod(h, 360.0) / 60.0;
	double		x = c * (1 - fabs(fmod(hp, 2.0) - 1));
	double		rgb[3] = {0, 0, 0};
	double		m = l - c / 2;

	if (hp < 1)
		rgb[0] = c, rgb[1] = x;
	else if (hp < 2)
		rgb[0] = x, rgb[1] = c;
	else if (hp < 3)
		rgb[1] = c, rgb[2] = x;
	else if (hp < 4)
		rgb[1] = x, rgb[2] = c;
	else if (hp < 5)
		rgb[0] = x, rgb[2] = c;
	else
		rgb[0] = c, rgb[2] = x;
	snprintf(out, 8, "#%02x%02x%02x", (int) rint((rgb[0] + m) * 255), (int) rint((rgb[1] + m) * 255),
			 (int) rint((rgb[2] + m) * 255));
}

static int
add_color(SvgPlan *p, const char *group, const char *key, const char *label, const char *hex)
{
	SvgColor   *c = &p->colors[p->n_colors];

	strlcpy(c->hex, hex, sizeof(c->hex));
	c->dark_text = luminance(hex) > 0.3;
	c->group = group;
	c->key = pstrdup(key);
	c->label = pstrdup(label);
	return p->n_colors++;
}

/* A service's colour, by its id: the palette, then golden-angle greens. */
static void
service_hex(int service_id, char *out)
{
	int			n = lengthof(service_palette);

	if (service_id >= 1 && service_id <= n)
		strlcpy(out, service_palette[service_id - 1], 8);
	else
		hsl_hex(85 + fmod(Max(service_id, 0) * 137.508, 110.0), 0.55, 0.28 + 0.14 * (service_id % 3), out);
}

static void
tenant_hex(int rank, char *out)
{
	int			n = lengthof(tenant_palette);

	if (rank < n)
		strlcpy(out, tenant_palette[rank], 8);
	else
		/* hues away from the services' greens */
		hsl_hex(200 + fmod(rank * 137.508, 250.0), 0.6, 0.38 + 0.12 * (rank % 3), out);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static void
mark(SvgPlan *p, int color, const SvgBlock *b)
{
	p->colors[color].used = true;
	if (b->state == SVG_TENTATIVE || (b->job_id == 0 && b->step_count > 1))
		p->colors[color].hatched = true;
}

void
svg_assign_colors(SvgPlan *p)
{
	int			kind_first;
	char	  **tenants = palloc(sizeof(char *) * (p->n_blocks + 1));
	int			n_tenants = 0;
	char		hex[8];

	p->colors = palloc0(sizeof(SvgColor) * (lengthof(kinds) + 2 * p->n_blocks + p->n_services + 2));
	p->n_colors = 0;
	add_color(p, "state", "neutral", "", "#8c8c8c");
	for (int s = 0; s < 3; s++)
		if (p->has_state[s])
		{
			p->colors[NEUTRAL].used = true;
			p->colors[NEUTRAL].hatched |= s == SVG_TENTATIVE;
		}

	/* jobs: by kind, or by tenant in name order */
	kind_first = p->n_colors;
	if (p->color_by == SVG_BY_KIND)
		for (int k = 0; k < (int) lengthof(kinds); k++)
			add_color(p, "kind", kinds[k][0], kinds[k][1], kinds[k][2]);
	else
	{
		for (int i = 0; i < p->n_blocks; i++)
			if (p->blocks[i].job_id != 0 && p->blocks[i].pool >= 0)
				tenants[n_tenants++] = p->blocks[i].tenant;
		qsort(tenants, n_tenants, sizeof(char *), cmp_str);
		for (int i = 0, rank = 0; i < n_tenants; i++)
		{
			if (i > 0 && strcmp(tenants[i], tenants[i - 1]) == 0)
				continue;
			tenant_hex(rank++, hex);
			add_color(p, "tenant", tenants[i], tenants[i][0] ? tenants[i] : "(no tenant)", hex);
		}
	}

	/* services, in the order of their strips */
	for (int i = 0; i < p->n_services; i++)
	{
		SvgService *s = &p->services[i];

		service_hex(s->service_id, hex);
		s->color = add_color(p, "service", s->name, s->name, hex);
	}

	for (int i = 0; i < p->n_blocks; i++)
	{
		SvgBlock   *b = &p->blocks[i];

		if (b->pool < 0)
			continue;
		if (b->job_id != 0 && p->color_by == SVG_BY_KIND)
		{
			int			k = 0;

			while (k < (int) lengthof(kinds) - 1 && strcmp(kinds[k][0], b->kind) != 0)
				k++;
			b->color = kind_first + k;
		}
		else if (b->job_id != 0)
		{
			for (int c = kind_first; c < p->n_colors && b->color < 0; c++)
				if (strcmp(p->colors[c].group, "tenant") == 0 && strcmp(p->colors[c].key, b->tenant) == 0)
					b->color = c;
		}
		else
		{
			for (int s = 0; s < p->n_services && b->color < 0; s++)
				if (p->services[s].service_id == b->service_id)
					b->color = p->services[s].color;
			if (b->color < 0)
			{
				/* a service gone since: its own colour all the same */
				for (int c = 0; c < p->n_colors && b->color < 0; c++)
					if (strcmp(p->colors[c].group, "service") == 0 && strcmp(p->colors[c].key, b->service) == 0)
						b->color = c;
				if (b->color < 0)
				{
					service_hex(b->service_id, hex);
					b->color = add_color(p, "service", b->service, b->service, hex);
				}
			}
		}
		if (b->step_first < p->T)
			mark(p, b->color, b);
	}
	pfree(tenants);
}

/* " fill=..." for a colour: solid, or its hatch. */
void
svg_append_fill(StringInfo buf, const SvgPlan *p, int color, bool hatched)
{
	if (hatched)
		appendStringInfo(buf, " fill=\"url(#h%d)\"", color);
	else
		appendStringInfo(buf, " fill=\"%s\"", p->colors[color].hex);
}

static const char *const style_sheet =
"<style>\n"
"text{font-family:Helvetica,Arial,sans-serif;font-size:10px;fill:#222}\n"
".title{font-size:15px;font-weight:bold}.sub{font-size:11px;fill:#444}\n"
".poolname{font-size:11px;font-weight:bold}.rowlabel{fill:#444}.tick,.day{fill:#555}\n"
".jobname{fill:#fff;pointer-events:none}.jobname.dark{fill:#111}\n"
".jobname.onhatch{fill:#111;stroke:#fff;stroke-width:2.4px;stroke-opacity:0.85;paint-order:stroke;stroke-linejoin:round}\n"
".jobname.small{font-size:8px}\n"
".legend{fill:#333}.legend-head{fill:#333;font-weight:bold}.nowlabel{fill:#c0392b;font-weight:bold}\n"
".risklabel{fill:#c0392b;font-weight:bold}.unplanned-head{font-size:11px;font-weight:bold}\n"
".unplanned{fill:#333}.reason{fill:#8a3b12}\n"
"g.job rect{stroke:#fff;stroke-width:0.5}g.job[data-state=\"running\"] rect,.swatch.running{stroke:#111;stroke-width:1.2}\n"
".k-service{stroke:#fff;stroke-width:0.3}.swatch{stroke:#999;stroke-width:0.5}\n"
".idle{fill:#f4f4f4}.down{fill:url(#hatch-down)}.missing{fill:#fff}\n"
".strip{fill:#fafafa;stroke:#ddd}.risk{fill:#e15759;opacity:0.35}\n"
".idle-window{fill:#fff3c4;stroke:#e0b000;stroke-width:0.8}.idle-bar{fill:#c9a227}\n"
".forecast{fill:none;stroke:#222;stroke-width:1.5}.actual{fill:none;stroke:#1f4e9c;stroke-width:1.2;stroke-dasharray:3 2}\n"
".now{fill:#ffe066;fill-opacity:0.35;stroke:#c0392b;stroke-width:1.2}\n"
".nowline{stroke:#c0392b;stroke-width:1.5;stroke-opacity:0.8}\n"
".maint{fill:url(#hatch-maint);stroke:#d9480f;stroke-width:1.2}"
".maintlabel{fill:#8a2a00;font-weight:bold;stroke:#fff;stroke-width:2.4px;stroke-opacity:0.85;paint-order:stroke}\n"
".resv{fill:#1c7ed6;fill-opacity:0.06;stroke:#1c7ed6;stroke-width:1.6;stroke-dasharray:6 3}"
".resvlabel{fill:#0b4f8a;font-weight:bold;stroke:#fff;stroke-width:2.4px;stroke-opacity:0.85;paint-order:stroke}\n"
".node{stroke:#999;stroke-width:0.6}.dayline{stroke:#bbb;stroke-width:0.8}\n"
"</style>\n";

/* A colour's tint: mixed with white. */
static void
tint(const char *hex, double amount, char *out)
{
	int			v[3];

	for (int i = 0; i < 3; i++)
		v[i] = (int) rint(255 - (255 - channel(hex, i) * 255) * amount);
	snprintf(out, 8, "#%02x%02x%02x", v[0], v[1], v[2]);
}

/* The definitions (hatches of the colours in use) and the style sheet. */
void
svg_style(StringInfo buf, const SvgPlan *p)
{
	appendStringInfoString(buf, "<defs>\n"
						   "<pattern id=\"hatch-down\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
						   "patternTransform=\"rotate(-45)\"><rect width=\"6\" height=\"6\" fill=\"#6b6b6b\"/>"
						   "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#3f3f3f\" stroke-width=\"3\"/></pattern>\n");
	if (p->has_window)
		appendStringInfoString(buf, "<pattern id=\"hatch-maint\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
							   "patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#fde8d7\" fill-opacity=\"0.55\"/>"
							   "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#d9480f\" stroke-width=\"2.5\" stroke-opacity=\"0.8\"/></pattern>\n");
	for (int c = 0; c < p->n_colors; c++)
	{
		char		light[8];

		if (!p->colors[c].hatched)
			continue;
		tint(p->colors[c].hex, 0.35, light);
		appendStringInfo(buf, "<pattern id=\"h%d\" width=\"7\" height=\"7\" patternUnits=\"userSpaceOnUse\" "
						 "patternTransform=\"rotate(45)\"><rect width=\"7\" height=\"7\" fill=\"%s\"/>"
						 "<rect width=\"3\" height=\"7\" fill=\"%s\"/></pattern>\n",
						 c, light, p->colors[c].hex);
	}
	appendStringInfoString(buf, "</defs>\n");
	appendStringInfoString(buf, style_sheet);
}

/* Where the legend is, line by line; buf NULL only measures. */
typedef struct LegendPen
{
	StringInfo	buf;
	double		x;
	double		y;
	double		left;
	double		indent;
	double		right;
	int			lines;
} LegendPen;

static double
text_w(const char *s)
{
	return CHAR_W * pg_mbstrlen(s);
}

static void
pen_newline(LegendPen *pen, double indent)
{
	pen->lines++;
	pen->y += LEGEND_LINE_H;
	pen->x = pen->left + indent;
}

static void
pen_heading(LegendPen *pen, const char *heading)
{
	if (pen->x > pen->left)
		pen_newline(pen, 0);
	if (pen->buf)
		svg_append_text(pen->buf, "legend-head", pen->x, pen->y + 1, heading, 0);
	pen->indent = text_w(heading) + 14;
	pen->x += pen->indent;
}

/* Room for an item of width w on this line, or the next one. */
static void
pen_room(LegendPen *pen, double w)
{
	if (pen->x + w > pen->right && pen->x > pen->left + pen->indent)
		pen_newline(pen, pen->indent);
}

/* One item: a swatch of a colour or class, and its label. */
static void
legend_item(LegendPen *pen, const SvgPlan *p, const char *group, const char *key, const char *cls,
			int color, bool hatched, const char *label)
{
	char	   *clipped = pstrdup(label);
	double		w;

	if (pg_mbstrlen(clipped) > 32)
		clipped[pg_mbcharcliplen(clipped, strlen(clipped), 31)] = '\0';
	w = 30 + text_w(clipped);
	pen_room(pen, w);
	if (pen->buf)
	{
		appendStringInfo(pen->buf, "<g class=\"legend-item\" data-legend=\"%s\" data-key=\"", group);
		svg_append_xml(pen->buf, key);
		appendStringInfoString(pen->buf, "\">");
		svg_append_rect(pen->buf, cls, pen->x, pen->y - 9, 12, 12);
		if (color >= 0)
			svg_append_fill(pen->buf, p, color, hatched);
		appendStringInfoString(pen->buf, "/>");
		svg_append_text(pen->buf, "legend", pen->x + 16, pen->y + 1, clipped, 0);
		appendStringInfoString(pen->buf, "</g>\n");
	}
	pen->x += w;
}

static void
legend_line(LegendPen *pen, const char *cls, const char *key, const char *label)
{
	double		w = 30 + text_w(label);

	pen_room(pen, w);
	if (pen->buf)
	{
		appendStringInfo(pen->buf, "<g class=\"legend-item\" data-legend=\"grid\" data-key=\"%s\">", key);
		appendStringInfo(pen->buf, "<polyline class=\"%s\" points=\"", cls);
		svg_append_num(pen->buf, pen->x);
		appendStringInfoChar(pen->buf, ',');
		svg_append_num(pen->buf, pen->y - 3);
		appendStringInfoChar(pen->buf, ' ');
		svg_append_num(pen->buf, pen->x + 14);
		appendStringInfoChar(pen->buf, ',');
		svg_append_num(pen->buf, pen->y - 3);
		appendStringInfoString(pen->buf, "\"/>");
		svg_append_text(pen->buf, "legend", pen->x + 18, pen->y + 1, label, 0);
		appendStringInfoString(pen->buf, "</g>\n");
	}
	pen->x += w;
}

/*
 * The legend from baseline y, wrapped before right: one line (or more) for
 * the jobs' colours, one for the services, one for block states and the
 * rest of the grid.  Returns the number of lines; buf NULL only counts them.
 */
int
svg_legend(StringInfo buf, const SvgPlan *p, double x, double y, double right)
{
	LegendPen	pen = {buf, x, y, x, 0, right, 1};
	bool		any_jobs = false;
	bool		any_services = false;
	const char *job_group = p->color_by == SVG_BY_KIND ? "kind" : "tenant";

	if (buf)
		appendStringInfoString(buf, "<g class=\"legend\">\n");
	for (int c = 0; c < p->n_colors; c++)
	{
		SvgColor   *col = &p->colors[c];

		if (!col->used || strcmp(col->group, job_group) != 0)
			continue;
		if (!any_jobs)
			pen_heading(&pen, p->color_by == SVG_BY_KIND ? "Jobs by kind" : "Jobs by tenant");
		any_jobs = true;
		legend_item(&pen, p, col->group, col->key, "swatch", c, false, col->label);
	}
	for (int c = 0; c < p->n_colors; c++)
	{
		SvgColor   *col = &p->colors[c];

		if (!col->used || strcmp(col->group, "service") != 0)
			continue;
		if (!any_services)
			pen_heading(&pen, "Services");
		any_services = true;
		legend_item(&pen, p, "service", col->key, "swatch", c, false, col->label);
	}

	pen_heading(&pen, "Blocks");
	if (p->has_state[SVG_RUNNING])
		legend_item(&pen, p, "state", "running", "swatch running", NEUTRAL, false, "running (outlined)");
	if (p->has_state[SVG_COMMITTED])
		legend_item(&pen, p, "state", "committed", "swatch", NEUTRAL, false, "committed: in the allocation now");
	if (p->has_state[SVG_TENTATIVE])
		legend_item(&pen, p, "state", "tentative", "swatch", NEUTRAL, true, "tentative: planned, hatched");
	if (p->has_idle)
		legend_item(&pen, p, "grid", "idle", "swatch idle", -1, false, "idle");
	if (p->has_down)
		legend_item(&pen, p, "grid", "down", "swatch down", -1, false, "down");
	if (p->has_missing)
		legend_item(&pen, p, "grid", "missing", "swatch missing", -1, false, "no GPU");
	if (p->has_window)
		legend_item(&pen, p, "grid", "maintenance", "swatch maint", -1, false, "maintenance window");
	if (p->has_reservation)
		legend_item(&pen, p, "grid", "reservation", "swatch resv", -1, false, "advance reservation (tenant)");
	if (p->has_risk)
		legend_item(&pen, p, "grid", "risk", "swatch risk", -1, false, "coverage risk");
	if (p->has_now)
		legend_item(&pen, p, "grid", "now", "swatch now", -1, false, "now");
	if (p->n_services > 0 && p->has_forecast)
		legend_line(&pen, "forecast", "forecast", "forecast GPUs");
	if (p->has_actual)
		legend_line(&pen, "actual", "actual", "recorded demand");
	if (buf)
		appendStringInfoString(buf, "</g>\n");
	return pen.lines;
}
