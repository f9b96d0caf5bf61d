/*
 * output.c — a query result as an aligned table, a one-row record, or JSON.
 *
 * The column's type decides how a value is shown.  In JSON: numbers as
 * numbers (non-finite ones, which JSON cannot write, as strings), booleans
 * as true/false, json as JSON, NULL as null, everything else as a string of
 * the server's text.  In a table: NULL as "-", numbers rounded for reading
 * and aligned right, times without their fraction of a second, control
 * characters as spaces so that a message cannot break the alignment.
 */
#define _XOPEN_SOURCE 700		/* wcwidth */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Built-in type OIDs: fixed by PostgreSQL, so no server header is needed. */
#define OID_BOOL		16
#define OID_INT8		20
#define OID_INT2		21
#define OID_INT4		23
#define OID_OID			26
#define OID_JSON		114
#define OID_FLOAT4		700
#define OID_FLOAT8		701
#define OID_TIMESTAMP	1114
#define OID_TIMESTAMPTZ	1184
#define OID_INTERVAL	1186
#define OID_NUMERIC		1700
#define OID_JSONB		3802

typedef enum value_kind
{
	KIND_TEXT,
	KIND_INT,
	KIND_FLOAT,
	KIND_BOOL,
	KIND_JSON,
	KIND_TIME
} value_kind;

static value_kind
kind_of(Oid type)
{
	switch (type)
	{
		case OID_INT2:
		case OID_INT4:
		case OID_INT8:
		case OID_OID:
			return KIND_INT;
		case OID_FLOAT4:
		case OID_FLOAT8:
		case OID_NUMERIC:
			return KIND_FLOAT;
		case OID_BOOL:
			return KIND_BOOL;
		case OID_JSON:
		case OID_JSONB:
			return KIND_JSON;
		case OID_TIMESTAMP:
		case OID_TIMESTAMPTZ:
		case OID_INTERVAL:
			return KIND_TIME;
		default:
			return KIND_TEXT;
	}
}

static char *
xstrdup(const char *s)
{
	char	   *d = strdup(s);

	if (!d)
	{
		fputs("gpualloc: out of memory\n", stderr);
		exit(CLI_LOCAL);
	}
	return d;
}

/* ---- table cells ---- */

/*
 * Numbers to read, not to compute with (--json has the exact value): two
 * decimals from 1 up, three significant digits below, no trailing zeros.
 */
static char *
format_number(const char *text)
{
	char		buf[64];
	char	   *end;
	double		v = strtod(text, &end);

	if (*end != '\0' || !isfinite(v) || fabs(v) >= 1e15)
		return xstrdup(text);
	if (v == 0 || fabs(v) >= 1)
		snprintf(buf, sizeof(buf), "%.2f", v);
	else
		snprintf(buf, sizeof(buf), "%.3g", v);
	if (strchr(buf, '.') && !strchr(buf, 'e'))
	{
		char	   *p = buf + strlen(buf) - 1;

		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
	}
	return xstrdup(buf);
}

/* "2025-01-31 14:00:00.123456+00" → "2025-01-31 14:00:00+00"; intervals alike. */
static char *
drop_fraction(const char *text)
{
	char	   *s = xstrdup(text);
	char	   *dot = strchr(s, '.');

	if (dot && isdigit((unsigned char) dot[1]))
	{
		char	   *rest = dot + 1;

		while (isdigit((unsigned char) *rest))
			rest++;
		memmove(dot, rest, strlen(rest) + 1);
	}
	return s;
}

static char *
cell_text(const PGresult *res, int row, int col)
{
	const char *v = PQgetvalue(res, row, col);
	char	   *s;

	if (PQgetisnull(res, row, col))
		return xstrdup("-");
	switch (kind_of(PQftype(res, col)))
	{
		case KIND_FLOAT:
			return format_number(v);
		case KIND_BOOL:
			return xstrdup(v[0] == 't' ? "yes" : "no");
		case KIND_TIME:
			return drop_fraction(v);
		default:
			break;
	}
	s = xstrdup(v);
	for (char *p = s; *p; p++)
		if (iscntrl((unsigned char) *p))
			*p = ' ';
	return s;
}

/*
 * Columns a character takes on a terminal: two for East Asian wide ones
 * (a job named in Chinese, say), none for combining marks.  wcwidth knows
 * them only under a UTF-8 character type, so it is asked under C.UTF-8
 * (built into glibc), whatever the user's locale; one column when that
 * locale is missing or the character unknown.
 */
static int
char_columns(unsigned int cp)
{
	static locale_t utf8;
	static bool tried;
	int			w = -1;

	if (!tried)
	{
		tried = true;
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t) 0);
	}
	if (utf8 != (locale_t) 0)
	{
		locale_t	old = uselocale(utf8);

		w = wcwidth((wchar_t) cp);
		uselocale(old);
	}
	return w < 0 ? 1 : w;
}

/* Width on the terminal of UTF-8 text; a malformed byte takes one column. */
static size_t
display_width(const char *s)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t		w = 0;

	while (*p)
	{
		int			n = *p >= 0xF0 ? 3 : *p >= 0xE0 ? 2 : *p >= 0xC0 ? 1 : 0;
		unsigned int cp = n == 0 ? *p : *p & (0x3F >> n);
		int			i;

		for (i = 1; i <= n && (p[i] & 0xC0) == 0x80; i++)
			cp = (cp << 6) | (p[i] & 0x3F);
		if (i <= n || *p >= 0xF8 || (*p & 0xC0) == 0x80)
		{
			w++;				/* not a whole character: a byte, a column */
			p++;
			continue;
		}
		w += (size_t) char_columns(cp);
		p += n + 1;
	}
	return w;
}

static void
print_padded(FILE *out, const char *s, size_t width, bool right)
{
	size_t		pad = width - display_width(s);

	if (right)
		fprintf(out, "%*s%s", (int) pad, "", s);
	else
		fprintf(out, "%s%*s", s, (int) pad, "");
}

static void
print_upper(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(toupper((unsigned char) *s), out);
}

/* ---- the table ---- */

typedef struct grid
{
	int			rows;
	int			cols;
	char	  **cells;			/* rows × cols */
	size_t	   *width;
	bool	   *right;
} grid;

static grid
grid_build(const PGresult *res)
{
	grid		g = {PQntuples(res), PQnfields(res), NULL, NULL, NULL};

	g.cells = calloc((size_t) g.rows * g.cols + 1, sizeof(char *));
	g.width = calloc((size_t) g.cols + 1, sizeof(size_t));
	g.right = calloc((size_t) g.cols + 1, sizeof(bool));
	if (!g.cells || !g.width || !g.right)
	{
		fputs("gpualloc: out of memory\n", stderr);
		exit(CLI_LOCAL);
	}
	for (int c = 0; c < g.cols; c++)
	{
		value_kind	k = kind_of(PQftype(res, c));

		g.right[c] = (k == KIND_INT || k == KIND_FLOAT);
		g.width[c] = display_width(PQfname(res, c));
	}
	for (int r = 0; r < g.rows; r++)
		for (int c = 0; c < g.cols; c++)
		{
			char	   *s = cell_text(res, r, c);
			size_t		w = display_width(s);

			g.cells[(size_t) r * g.cols + c] = s;
			if (w > g.width[c])
				g.width[c] = w;
		}
	return g;
}

static void
grid_free(grid *g)
{
	for (size_t i = 0; i < (size_t) g->rows * g->cols; i++)
		free(g->cells[i]);
	free(g->cells);
	free(g->width);
	free(g->right);
}

/* The last column is not padded: no trailing blanks on any line. */
static void
print_table(FILE *out, const PGresult *res)
{
	grid		g = grid_build(res);

	for (int c = 0; c < g.cols; c++)
	{
		const char *name = PQfname(res, c);
		size_t		pad = g.width[c] - display_width(name);

		if (c > 0)
			fputs("  ", out);
		if (g.right[c])
			fprintf(out, "%*s", (int) pad, "");
		print_upper(out, name);
		if (!g.right[c] && c < g.cols - 1)
			fprintf(out, "%*s", (int) pad, "");
	}
	fputc('\n', out);
	for (int r = 0; r < g.rows; r++)
	{
		for (int c = 0; c < g.cols; c++)
		{
			const char *s = g.cells[(size_t) r * g.cols + c];

			if (c > 0)
				fputs("  ", out);
			if (c == g.cols - 1 && !g.right[c])
				fputs(s, out);
			else
				print_padded(out, s, g.width[c], g.right[c]);
		}
		fputc('\n', out);
	}
	grid_free(&g);
}

/* One "name  value" line per column, names aligned; rows apart by a blank line. */
static void
print_record(FILE *out, const PGresult *res)
{
	size_t		name_width = 0;

	for (int c = 0; c < PQnfields(res); c++)
		if (display_width(PQfname(res, c)) > name_width)
			name_width = display_width(PQfname(res, c));
	for (int r = 0; r < PQntuples(res); r++)
	{
		if (r > 0)
			fputc('\n', out);
		for (int c = 0; c < PQnfields(res); c++)
		{
			char	   *s = cell_text(res, r, c);

			print_padded(out, PQfname(res, c), name_width, false);
			fprintf(out, "  %s\n", s);
			free(s);
		}
	}
}

/* ---- JSON ---- */

static void
json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++)
	{
		unsigned char ch = (unsigned char) *s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", out);
		else if (ch == '\t')
			fputs("\\t", out);
		else if (ch == '\r')
			fputs("\\r", out);
		else if (ch < 0x20 || ch == 0x7F)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

/* NaN and ±Infinity are numbers to PostgreSQL, not to JSON. */
static bool
is_json_number(const char *s)
{
	return s[0] != '\0' && strchr("-0123456789", s[0]) != NULL && strcmp(s, "-Infinity") != 0;
}

static void
json_value(FILE *out, const PGresult *res, int row, int col)
{
	const char *v = PQgetvalue(res, row, col);

	if (PQgetisnull(res, row, col))
	{
		fputs("null", out);
		return;
	}
	switch (kind_of(PQftype(res, col)))
	{
		case KIND_INT:
			fputs(v, out);
			return;
		case KIND_FLOAT:
			if (is_json_number(v))
				fputs(v, out);
			else
				json_string(out, v);
			return;
		case KIND_BOOL:
			fputs(v[0] == 't' ? "true" : "false", out);
			return;
		case KIND_JSON:
			fputs(v, out);
			return;
		default:
			json_string(out, v);
	}
}

static void
print_json(FILE *out, const PGresult *res)
{
	int			rows = PQntuples(res);

	fputc('[', out);
	for (int r = 0; r < rows; r++)
	{
		fputs(r == 0 ? "\n  {" : ",\n  {", out);
		for (int c = 0; c < PQnfields(res); c++)
		{
			if (c > 0)
				fputs(", ", out);
			json_string(out, PQfname(res, c));
			fputs(": ", out);
			json_value(out, res, r, c);
		}
		fputc('}', out);
	}
	fputs(rows > 0 ? "\n]\n" : "]\n", out);
}

void
cli_print(FILE *out, const PGresult *res, bool json, cli_layout layout)
{
	if (json)
		print_json(out, res);
	else if (layout == LAYOUT_RECORD)
		print_record(out, res);
	else
		print_table(out, res);
}

int
cli_flush_stdout(void)
{
	/* the first failure is the one to report: after it stdout stays in error */
	static bool reported = false;

	/*
	 * Called right after writing: when an earlier write failed (one larger
	 * than the buffer goes out at once), errno still says why.
	 */
	int			err = errno;

	if (fflush(stdout) != 0)
		err = errno;
	else if (!ferror(stdout))
		return CLI_OK;
	if (!reported)
		fprintf(stderr, "gpualloc: cannot write to standard output: %s\n",
				err ? strerror(err) : "write error");
	reported = true;
	return CLI_LOCAL;
}
