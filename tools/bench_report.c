/*
 * bench_report.c — merges the JSON output of `gpualloc-sim compare --json`
 * runs into one file, prints the side-by-side tables and comparisons, and
 * draws an SVG chart.
 *
 *   bench_report [--json OUT] [--svg OUT] [[--dir SCENARIO_DIR] INPUT.json...]...
 *
 * --dir names the scenario directory whose runs the inputs after it hold,
 * so that two directories with one scenario name are reported apart.
 *
 * Each input is a JSON list of flat objects with at least the string keys
 * scenario, policy and knowledge, or one such object (gpualloc-sim run
 * --json); numeric keys are kept as they are (null for "not applicable"),
 * nested values are skipped.  Strings are decoded whole (every JSON escape,
 * \uXXXX and surrogate pairs to UTF-8) and written back escaped.  The
 * merged list keeps every scalar key, the ones the benchmark reports first.
 * Values within a rounding error of 0 (run_value) count as no value.
 *
 * The allocator is the fast policy, and the full policy when present; each
 * is compared with fifo and backfill (percentage points of utilisation, per
 * cent of value) and with the oracle (share of its value).  The oracle's
 * value bounds hold over the runs whose coverage reaches its
 * coverage_floor (none given: over every run); a row whose value is above
 * the oracle's while its coverage is below that floor is marked, since the
 * bound does not cover it.  A summary checks the benchmark's targets on the
 * scenarios by their number prefix (01_ ... 08_), and on every scenario
 * with tenant policies (rows with a Jain index) the tenant targets, the
 * flood's (15_) and the idle guarantee's (16_) among them.
 *
 * A small parser of our own, because the project runs on a bare Debian with
 * no JSON tool installed.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"

typedef enum field_type
{
	F_NUMBER,
	F_STRING,
	F_NULL
} field_type;

/*
 * Keys and strings are kept whole, however long (a scenario named after its
 * directory holds a path), so two names never merge by a cut.
 */
typedef struct field
{
	char	   *key;
	field_type	type;
	double		number;
	char	   *text;			/* F_STRING only, else NULL */
} field;

/* A result's fields, as many as it has (a later version may add metrics). */
typedef struct record
{
	int			n;
	int			cap;
	field	   *f;
} record;

typedef struct records
{
	int			n;
	int			cap;
	record	   *r;
} records;

static void
free_field(field *fl)
{
	free(fl->key);
	free(fl->text);
	fl->key = fl->text = NULL;
}

static void
free_record(record *rec)
{
	for (int i = 0; i < rec->n; i++)
		free_field(&rec->f[i]);
	free(rec->f);
	rec->f = NULL;
	rec->n = rec->cap = 0;
}

static void
free_records(records *rs)
{
	for (int i = 0; i < rs->n; i++)
		free_record(&rs->r[i]);
	free(rs->r);
}

/* ------------------------------------------------------------------------
 * JSON reading.
 */
typedef struct parser
{
	const char *s;
	const char *path;
	bool		failed;
} parser;

/*
 * How many of s's first max bytes to show, fewer where the cut would split
 * a UTF-8 character: an excerpt of the input stays valid UTF-8.
 */
static int
utf8_prefix(const char *s, int max)
{
	int			n = 0;

	while (n < max && s[n] != '\0')
		n++;
	if (s[n] != '\0')
		while (n > 0 && ((unsigned char) s[n] & 0xC0) == 0x80)
			n--;
	return n;
}

static void
fail(parser *p, const char *what)
{
	if (!p->failed)
		fprintf(stderr, "%s: %s near \"%.*s\"\n", p->path, what, utf8_prefix(p->s, 20), p->s);
	p->failed = true;
}

/* fail() with the excerpt from at, the start of what is wrong. */
static bool
fail_at(parser *p, const char *at, const char *what)
{
	p->s = at;
	fail(p, what);
	return false;
}

static void
skip_ws(parser *p)
{
	while (isspace((unsigned char) *p->s))
		p->s++;
}

static bool
expect(parser *p, char c)
{
	skip_ws(p);
	if (*p->s != c)
	{
		char		msg[32];

		snprintf(msg, sizeof(msg), "expected '%c'", c);
		fail(p, msg);
		return false;
	}
	p->s++;
	return true;
}

/* The value of four hex digits at s, or -1 (stops at the first non-digit, NUL included). */
static long
hex4(const char *s)
{
	long		v = 0;

	for (int i = 0; i < 4; i++)
	{
		char		c = s[i];
		int			d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* Code point cp as UTF-8 at out; the number of bytes. */
static size_t
utf8_encode(long cp, char *out)
{
	if (cp < 0x80)
	{
		out[0] = (char) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		out[0] = (char) (0xC0 | (cp >> 6));
		out[1] = (char) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		out[0] = (char) (0xE0 | (cp >> 12));
		out[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char) (0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char) (0xF0 | (cp >> 18));
	out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char) (0x80 | (cp & 0x3F));
	return 4;
}

/*
 * \uXXXX, p->s just past the u, appended to buf as UTF-8.  A character
 * beyond the first plane comes as a UTF-16 surrogate pair (\ud83d\ude00),
 * decoded to one code point; half a pair stands for no character, so it is
 * an error rather than a guess.  \u0000 is refused: a C string cannot hold
 * it, and a name cut there could merge with another.
 */
static bool
decode_unicode(parser *p, const char *esc, char *buf, size_t *n)
{
	long		cp = hex4(p->s);
	long		low;

	if (cp < 0)
		return fail_at(p, esc, "bad \\u escape in a string (four hex digits expected)");
	p->s += 4;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return fail_at(p, esc, "lone low surrogate in a string (\\udc00-\\udfff must follow a high surrogate \\ud800-\\udbff)");
	if (cp >= 0xD800 && cp <= 0xDBFF)
	{
		low = p->s[0] == '\\' && p->s[1] == 'u' ? hex4(p->s + 2) : -1;
		if (low < 0xDC00 || low > 0xDFFF)
			return fail_at(p, esc, "lone high surrogate in a string (\\ud800-\\udbff must be followed by a low surrogate \\udc00-\\udfff)");
		p->s += 6;
		cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
	}
	if (cp == 0)
		return fail_at(p, esc, "\\u0000 in a string (a name cannot hold a NUL character)");
	*n += utf8_encode(cp, buf + *n);
	return true;
}

/* The escape at p->s (a backslash) appended to buf; every JSON escape is known. */
static bool
decode_escape(parser *p, char *buf, size_t *n)
{
	static const char named[] = "\"\\/bfnrt";
	static const char meant[] = "\"\\/\b\f\n\r\t";
	const char *esc = p->s;
	char		c = esc[1];
	const char *at = c != '\0' ? strchr(named, c) : NULL;

	p->s += 2;
	if (c == 'u')
		return decode_unicode(p, esc, buf, n);
	if (at == NULL)
		return fail_at(p, esc, "bad escape in a string (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX)");
	buf[(*n)++] = meant[at - named];
	return true;
}

/* The closing quote of the string that starts at s (past its opening one), or NULL. */
static const char *
string_end(const char *s)
{
	for (; *s != '\0' && *s != '"'; s++)
		if (*s == '\\' && s[1] != '\0')
			s++;
	return *s == '"' ? s : NULL;
}

/*
 * A string, decoded, into *out (malloc'd; out NULL: checked and dropped).
 * No escape decodes to more bytes than it is written with (\uXXXX, six
 * bytes, to at most three; a pair, twelve, to four), so the text between
 * the quotes bounds the decoded length.
 */
static bool
parse_string(parser *p, char **out)
{
	const char *end;
	char	   *buf;
	size_t		n = 0;

	if (!expect(p, '"'))
		return false;
	end = string_end(p->s);
	if (end == NULL)
	{
		fail(p, "unterminated string");
		return false;
	}
	buf = malloc(end - p->s + 1);
	if (buf == NULL)
	{
		fail(p, "out of memory");
		return false;
	}
	while (p->s < end)
	{
		if (*p->s != '\\')
			buf[n++] = *p->s++;
		else if (!decode_escape(p, buf, &n))
		{
			free(buf);
			return false;
		}
	}
	buf[n] = '\0';
	p->s = end + 1;
	if (out)
		*out = buf;
	else
		free(buf);
	return true;
}

static void skip_value(parser *p);

static void
skip_container(parser *p, char open, char close)
{
	p->s++;
	skip_ws(p);
	if (*p->s == close)
	{
		p->s++;
		return;
	}
	while (!p->failed)
	{
		if (open == '{')
		{
			if (!parse_string(p, NULL) || !expect(p, ':'))
				return;
		}
		skip_value(p);
		skip_ws(p);
		if (*p->s == ',')
			p->s++;
		else if (*p->s == close)
		{
			p->s++;
			return;
		}
		else
		{
			fail(p, "expected ',' or a closing bracket");
			return;
		}
	}
}

static void
skip_value(parser *p)
{
	skip_ws(p);
	if (*p->s == '{' || *p->s == '[')
		skip_container(p, *p->s, *p->s == '{' ? '}' : ']');
	else if (*p->s == '"')
		parse_string(p, NULL);
	else
	{
		char	   *end;

		if (strncmp(p->s, "null", 4) == 0 || strncmp(p->s, "true", 4) == 0)
			p->s += 4;
		else if (strncmp(p->s, "false", 5) == 0)
			p->s += 5;
		else
		{
			(void) strtod(p->s, &end);
			if (end == p->s)
				fail(p, "bad value");
			p->s = end;
		}
	}
}

/*
 * The value of field fl, its key read: a string, null or a number.  False
 * where the field is not kept: nested values and booleans are not reported
 * (skipped), and on an error (p->failed).
 */
static bool
parse_field_value(parser *p, field *fl)
{
	char	   *end;

	skip_ws(p);
	if (*p->s == '"')
	{
		fl->type = F_STRING;
		return parse_string(p, &fl->text);
	}
	if (strncmp(p->s, "null", 4) == 0)
	{
		fl->type = F_NULL;
		p->s += 4;
		return true;
	}
	if (*p->s == '{' || *p->s == '[' || *p->s == 't' || *p->s == 'f')
	{
		skip_value(p);
		return false;
	}
	fl->type = F_NUMBER;
	fl->number = strtod(p->s, &end);
	if (end == p->s)
	{
		fail(p, "bad number");
		return false;
	}
	p->s = end;
	return true;
}

/*
 * items (*cap of `size` bytes) reallocated to twice as many, or `first`;
 * NULL, p failed and items left as they were, on out of memory.
 */
static void *
grown(parser *p, void *items, int *cap, size_t size, int first)
{
	int			n = *cap ? *cap * 2 : first;
	void	   *more = realloc(items, size * n);

	if (more == NULL)
		fail(p, "out of memory");
	else
		*cap = n;
	return more;
}

/*
 * After an item of an object or a list: true at ',' (another follows),
 * false at the closing character (consumed) or, p failed, at anything else.
 */
static bool
more_items(parser *p, char close)
{
	skip_ws(p);
	if (*p->s == ',')
	{
		p->s++;
		return true;
	}
	if (*p->s == close)
		p->s++;
	else
		fail(p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
	return false;
}

/* Append fl to rec, which then owns it (fl freed, p failed, on out of memory). */
static void
add_field(parser *p, record *rec, field *fl)
{
	if (rec->n == rec->cap)
	{
		field	   *f = grown(p, rec->f, &rec->cap, sizeof(field), 32);

		if (f == NULL)
		{
			free_field(fl);
			return;
		}
		rec->f = f;
	}
	rec->f[rec->n++] = *fl;
}

static void
parse_object(parser *p, record *rec)
{
	rec->n = rec->cap = 0;
	rec->f = NULL;
	if (!expect(p, '{'))
		return;
	skip_ws(p);
	if (*p->s == '}')
	{
		p->s++;
		return;
	}
	while (!p->failed)
	{
		field		fl = {NULL, F_NULL, 0, NULL};

		if (parse_string(p, &fl.key) && expect(p, ':') && parse_field_value(p, &fl))
			add_field(p, rec, &fl);
		else
			free_field(&fl);
		if (p->failed || !more_items(p, '}'))
			break;
	}
	if (p->failed)
		free_record(rec);
}

static char *
read_file(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf;
	long		len;

	if (f == NULL)
	{
		fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(len + 1);
	if (buf == NULL || fread(buf, 1, len, f) != (size_t) len)
	{
		free(buf);
		fclose(f);
		fprintf(stderr, "cannot read %s\n", path);
		return NULL;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* One more record of out, parsed at p->s. */
static void
read_record(parser *p, records *out)
{
	if (out->n == out->cap)
	{
		record	   *r = grown(p, out->r, &out->cap, sizeof(record), 64);

		if (r == NULL)
			return;
		out->r = r;
	}
	parse_object(p, &out->r[out->n]);
	if (!p->failed)
		out->n++;
}

/* A list of records, as gpualloc-sim compare --json writes it. */
static void
read_list(parser *p, records *out)
{
	if (!expect(p, '['))
		return;
	skip_ws(p);
	if (*p->s == ']')
	{
		p->s++;
		return;
	}
	do
		read_record(p, out);
	while (!p->failed && more_items(p, ']'));
}

/*
 * The records of a result file: a list, or one object (gpualloc-sim run
 * --json writes its one run without a list), read as a list of one.
 * Nothing but white space may follow, so that a second value is not
 * silently dropped.
 */
static bool
read_records(const char *path, records *out)
{
	char	   *text = read_file(path);
	parser		p = {text, path, false};

	if (text == NULL)
		return false;
	skip_ws(&p);
	if (*p.s == '{')
		read_record(&p, out);
	else if (*p.s == '[')
		read_list(&p, out);
	else
		fail(&p, "expected '[' (a list of results) or '{' (one result)");
	skip_ws(&p);
	if (!p.failed && *p.s != '\0')
		fail(&p, "unexpected text after the results (one list or one object expected)");
	free(text);
	return !p.failed;
}

/* ------------------------------------------------------------------------
 * Lookups.
 */
static const field *
get(const record *r, const char *key)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->f[i].key, key) == 0)
			return &r->f[i];
	return NULL;
}

static const char *
str(const record *r, const char *key)
{
	const field *f = get(r, key);

	return f && f->type == F_STRING ? f->text : "";
}

/* NAN when missing or null. */
static double
num(const record *r, const char *key)
{
	const field *f = get(r, key);

	return f && f->type == F_NUMBER ? f->number : NAN;
}

static const record *
find(const records *rs, const char *scenario, const char *policy, const char *knowledge)
{
	for (int i = 0; i < rs->n; i++)
		if (strcmp(str(&rs->r[i], "scenario"), scenario) == 0 &&
			strcmp(str(&rs->r[i], "policy"), policy) == 0 &&
			strcmp(str(&rs->r[i], "knowledge"), knowledge) == 0)
			return &rs->r[i];
	return NULL;
}

/*
 * A scenario name on out, padded with spaces to width bytes; a control
 * character (a name may hold a tab or a line feed) as \t, \n or \u00XX,
 * so that each row of the report stays on its line.
 */
static void
print_name(FILE *out, const char *s, int width)
{
	int			n = 0;

	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '\t')
			n += fprintf(out, "\\t");
		else if (c == '\n')
			n += fprintf(out, "\\n");
		else if (c < 0x20)
			n += fprintf(out, "\\u%04x", c);
		else
			n += fputc(c, out) != EOF;
	}
	fprintf(out, "%*s", width > n ? width - n : 0, "");
}

/* Whether record i repeats the scenario, policy and knowledge of an earlier one. */
static bool
repeats_earlier(const records *rs, int i)
{
	const record *r = &rs->r[i];

	return find(rs, str(r, "scenario"), str(r, "policy"), str(r, "knowledge")) != r;
}

/*
 * A run given twice (the same scenario, policy and knowledge: two scenario
 * directories of one name, or one result file read twice) is reported
 * once, as first read; say so, once per scenario, rather than hide it.
 */
static void
warn_repeated_runs(const records *rs)
{
	for (int i = 0; i < rs->n; i++)
	{
		const char *scen = str(&rs->r[i], "scenario");
		bool		warned = false;

		if (!repeats_earlier(rs, i))
			continue;
		for (int j = 0; j < i && !warned; j++)
			warned = strcmp(str(&rs->r[j], "scenario"), scen) == 0 && repeats_earlier(rs, j);
		if (warned)
			continue;
		fprintf(stderr, "bench_report: scenario \"");
		print_name(stderr, scen, 0);
		fprintf(stderr, "\" has runs of the same policy and knowledge more than once "
				"(first: %s, %s); the first of each is reported (do two scenario directories have the same name?)\n",
				str(&rs->r[i], "policy"), str(&rs->r[i], "knowledge"));
	}
}

/*
 * Runs of two scenario directories that share a name (the name defaults to
 * the directory's, and a copy of a scenario keeps its scenario.csv) are
 * different scenarios: the runs of each directory after the first to use
 * the name are reported as "NAME (DIR)".  dirs[i]: the directory of record
 * i, as given by --dir (NULL: not given, and the runs are left as they
 * are, a run given twice then reported once, warn_repeated_runs).
 */
static bool
name_scenarios_apart(records *rs, const char *const *dirs)
{
	char	  **renamed = calloc(rs->n > 0 ? rs->n : 1, sizeof(char *));
	bool		ok = renamed != NULL;

	/* every new name first, from the names as read; then in place */
	for (int i = 0; i < rs->n && ok; i++)
	{
		const char *name = str(&rs->r[i], "scenario");
		int			first = 0;

		while (strcmp(str(&rs->r[first], "scenario"), name) != 0)
			first++;
		if (get(&rs->r[i], "scenario") == NULL || get(&rs->r[i], "scenario")->type != F_STRING ||
			dirs[i] == NULL || dirs[first] == NULL || strcmp(dirs[first], dirs[i]) == 0)
			continue;
		renamed[i] = malloc(strlen(name) + strlen(dirs[i]) + 4);
		ok = renamed[i] != NULL;
		if (ok)
			sprintf(renamed[i], "%s (%s)", name, dirs[i]);
	}
	for (int i = 0; i < rs->n && ok; i++)
		if (renamed[i] != NULL)
		{
			field	   *f = (field *) get(&rs->r[i], "scenario");

			free(f->text);
			f->text = renamed[i];
			renamed[i] = NULL;
		}
	for (int i = 0; i < rs->n && renamed != NULL; i++)
		free(renamed[i]);
	free(renamed);
	return ok;
}

/*
 * The simulator reports shares as fractions; accept per cent too, so the
 * report reads the same either way.
 */
static double
share_scale(const records *rs, const char *key)
{
	for (int i = 0; i < rs->n; i++)
	{
		double		x = num(&rs->r[i], key);

		if (isfinite(x) && x > 1.5)
			return 1.0;
	}
	return 100.0;
}

/* Distinct values of a string key, in order of first appearance. */
static int
distinct(const records *rs, const char *key, const char **out, int max)
{
	int			n = 0;

	for (int i = 0; i < rs->n; i++)
	{
		const char *v = str(&rs->r[i], key);
		bool		seen = false;

		for (int k = 0; k < n; k++)
			seen |= strcmp(out[k], v) == 0;
		if (!seen && n < max)
			out[n++] = v;
	}
	return n;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Policies in reading order: baselines, allocator modes, bound, the rest. */
static int
policy_rank(const char *p)
{
	static const char *const order[] = {"fifo", "backfill", "fast", "full", "quota", "fairshare",
	"oracle"};

	for (int i = 0; i < 7; i++)
		if (strcmp(p, order[i]) == 0)
			return i;
	return 7;
}

static int
cmp_policy(const void *a, const void *b)
{
	const char *x = *(const char *const *) a;
	const char *y = *(const char *const *) b;
	int			d = policy_rank(x) - policy_rank(y);

	return d != 0 ? d : strcmp(x, y);
}

static int
cmp_knowledge(const void *a, const void *b)
{
	/* forecast before perfect: the realistic case first */
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* ------------------------------------------------------------------------
 * Output: merged JSON.
 */
static void
json_field(FILE *f, const field *fl, bool *first)
{
	fprintf(f, "%s", *first ? "" : ", ");
	*first = false;
	json_write_string(f, fl->key);
	fprintf(f, ": ");
	if (fl->type == F_STRING)
		json_write_string(f, fl->text);
	else if (fl->type == F_NULL || !isfinite(fl->number))
		fprintf(f, "null");
	else
		fprintf(f, "%.10g", fl->number);
}

static const char *const lead_keys[] = {
	"scenario", "policy", "knowledge", "utilization", "value", "completed_jobs",
	"coverage", "churn", "window_violations", "reservation_start_delay_steps",
	"solve_p50_ms", "solve_p99_ms"
};

#define N_LEAD (int) (sizeof(lead_keys) / sizeof(lead_keys[0]))

static bool
write_json(const char *path, const records *rs, const int *order)
{
	FILE	   *f = fopen(path, "w");
	bool		ok;

	if (f == NULL)
	{
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		return false;
	}
	fprintf(f, "[\n");
	for (int i = 0; i < rs->n; i++)
	{
		const record *r = &rs->r[order[i]];
		bool		first = true;

		fprintf(f, "  {");
		for (int k = 0; k < N_LEAD; k++)
		{
			const field *fl = get(r, lead_keys[k]);
			field		missing = {(char *) lead_keys[k], F_NULL, 0, NULL};

			json_field(f, fl ? fl : &missing, &first);
		}
		for (int k = 0; k < r->n; k++)
		{
			bool		lead = false;

			for (int l = 0; l < N_LEAD; l++)
				lead |= strcmp(r->f[k].key, lead_keys[l]) == 0;
			if (!lead)
				json_field(f, &r->f[k], &first);
		}
		fprintf(f, "}%s\n", i + 1 < rs->n ? "," : "");
	}
	fprintf(f, "]\n");
	ok = !ferror(f);
	return fclose(f) == 0 && ok;
}

/* ------------------------------------------------------------------------
 * Output: tables and comparisons.
 */
typedef struct view
{
	const records *rs;
	const char **scen;			/* each distinct value, as many as there are */
	int			n_scen;
	const char **pol;
	int			n_pol;
	const char **know;
	int			n_know;
	double		util_scale;		/* to per cent */
	double		cov_scale;
} view;

static void
print_num(double x, const char *fmt, int width)
{
	if (isfinite(x))
		printf(fmt, width, x);
	else
		printf(" %*s", width, "-");
}

/*
 * The width of a scenario table's policy column: 9, or the longest name
 * of a policy run there (fast-no-borrowing) so that the columns align.
 */
static int
policy_width(const view *v, const char *scen, const char *know)
{
	int			w = 9;

	for (int p = 0; p < v->n_pol; p++)
		if (find(v->rs, scen, v->pol[p], know) && (int) strlen(v->pol[p]) > w)
			w = (int) strlen(v->pol[p]);
	return w;
}

/*
 * A run's value, 0 where it is within a rounding error of 0: the oracle's
 * value bound comes out of an LP and reads 1e-12 where nothing can be
 * earned, which is no batch value, not a target missed.  The error
 * allowed is 1e-6, or a billionth of the largest value among the
 * scenario's runs where that is more.  Every comparison of values goes
 * through here; the tables and the merged file show them as read.
 */
static double
run_value(const view *v, const record *r)
{
	double		x = num(r, "value");
	double		scale = 0;

	for (int i = 0; i < v->rs->n; i++)
	{
		const record *o = &v->rs->r[i];
		double		y = num(o, "value");

		if (isfinite(y) && strcmp(str(o, "scenario"), str(r, "scenario")) == 0 &&
			strcmp(str(o, "knowledge"), str(r, "knowledge")) == 0)
			scale = fmax(scale, fabs(y));
	}
	return fabs(x) <= fmax(1e-6, 1e-9 * scale) ? 0 : x;
}

/*
 * The coverage floor of the oracle's value bounds, as a fraction; 0 when
 * the file gives none (a simulator whose value bound covered every run).
 */
static double
oracle_floor(const record *oracle)
{
	double		f = num(oracle, "coverage_floor");

	return isfinite(f) ? f : 0;
}

/* a against b as "+x.x%", or "n/a" where b is 0 (no batch value). */
static const char *
pct_change(char *buf, size_t len, double a, double b)
{
	if (!(b > 0) || !isfinite(a))
		return "n/a";
	snprintf(buf, len, "%+.1f%%", 100.0 * (a / b - 1.0));
	return buf;
}

/* a as a share of b, "x.x%", or "n/a" where b is 0. */
static const char *
pct_of(char *buf, size_t len, double a, double b)
{
	if (!(b > 0) || !isfinite(a))
		return "n/a";
	snprintf(buf, len, "%.1f%%", 100.0 * a / b);
	return buf;
}

/* Above the oracle's value where its value bound does not reach. */
static bool
beyond_bound(const view *v, const record *r, const record *oracle)
{
	if (oracle == NULL || r == oracle)
		return false;
	return run_value(v, r) > run_value(v, oracle) &&
		num(r, "coverage") * v->cov_scale < 100.0 * oracle_floor(oracle);
}

static void
print_scenario(const view *v, const char *scen, const char *know)
{
	const record *fifo = find(v->rs, scen, "fifo", know);
	const record *bf = find(v->rs, scen, "backfill", know);
	const record *oracle = find(v->rs, scen, "oracle", know);
	int			width = policy_width(v, scen, know);
	bool		flagged = false;

	printf("\n");
	print_name(stdout, scen, 0);
	printf(" (%s)\n", know);
	printf("  %-*s %7s %10s %6s %9s %7s %7s %9s %9s\n", width, "policy", "util%", "value",
		   "done", "cover%", "churn", "in win", "p50 ms", "p99 ms");
	for (int p = 0; p < v->n_pol; p++)
	{
		const record *r = find(v->rs, scen, v->pol[p], know);

		if (r == NULL)
			continue;
		printf("  %-*s", width, v->pol[p]);
		print_num(num(r, "utilization") * v->util_scale, " %*.1f", 7);
		print_num(num(r, "value"), " %*.1f", 10);
		print_num(num(r, "completed_jobs"), " %*.1f", 6);
		print_num(num(r, "coverage") * v->cov_scale, " %*.2f", 9);
		print_num(num(r, "churn"), " %*.0f", 7);
		print_num(num(r, "window_violations"), " %*.0f", 7);
		print_num(num(r, "solve_p50_ms"), " %*.2f", 9);
		print_num(num(r, "solve_p99_ms"), " %*.2f", 9);
		if (beyond_bound(v, r, oracle))
		{
			printf("  !");
			flagged = true;
		}
		printf("\n");
	}
	if (oracle && oracle_floor(oracle) > 0)
		printf("  oracle: value and completions bound the runs with coverage >= %.2f%%; "
			   "utilisation and coverage every run\n", 100.0 * oracle_floor(oracle));
	else if (oracle)
		printf("  oracle: every bound is over every run\n");
	if (flagged)
		printf("  ! value above the oracle's with coverage below its floor: legal, the "
			   "bound does not cover such a run\n");
	for (int a = 0; a < 2; a++)
	{
		const char *alloc = a == 0 ? "fast" : "full";
		const record *r = find(v->rs, scen, alloc, know);
		char		buf[32];

		if (r == NULL)
			continue;
		printf("  %s:", alloc);
		for (int b = 0; b < 2; b++)
		{
			const record *base = b == 0 ? fifo : bf;

			if (base == NULL)
				continue;
			printf(" vs %s %+.1f pp util, %s value;", b == 0 ? "fifo" : "backfill",
				   (num(r, "utilization") - num(base, "utilization")) * v->util_scale,
				   pct_change(buf, sizeof(buf), run_value(v, r), run_value(v, base)));
		}
		if (oracle)
			printf(" %s of oracle value", pct_of(buf, sizeof(buf), run_value(v, r), run_value(v, oracle)));
		printf("\n");
	}
}

static const char *
scen_with_prefix(const view *v, const char *prefix)
{
	for (int i = 0; i < v->n_scen; i++)
		if (strncmp(v->scen[i], prefix, strlen(prefix)) == 0)
			return v->scen[i];
	return NULL;
}

static const char *
verdict(bool ok)
{
	return ok ? "met" : "MISSED";
}

/* Per cent of value r gains over base; NAN where base has none. */
static double
gain(const view *v, const record *r, const record *base)
{
	if (r == NULL || base == NULL || !(run_value(v, base) > 0))
		return NAN;
	return 100.0 * (run_value(v, r) / run_value(v, base) - 1.0);
}

/*
 * The coverage a run must reach, in per cent: 99.5; where even the
 * clairvoyant oracle cannot serve 99.9%, within 2 points of the oracle's
 * coverage; and where the static reservation (backfill) serves less than
 * 99.5%, never below it.
 */
static double
coverage_needed(const view *v, const record *oracle, const record *reservation)
{
	double		need = 99.5;

	if (oracle && num(oracle, "coverage") * v->cov_scale < 99.9)
		need = fmin(need, num(oracle, "coverage") * v->cov_scale - 2.0);
	if (reservation && num(reservation, "coverage") * v->cov_scale < 99.5)
		need = fmax(need, num(reservation, "coverage") * v->cov_scale);
	return need;
}

/* The row of run ALLOC-SUFFIX (a run with part of the tenant policies). */
static const record *
find_variant(const view *v, const char *scen, const char *alloc, const char *suffix,
			 const char *know)
{
	char		name[64];		/* alloc and suffix are the report's own short names */

	snprintf(name, sizeof(name), "%s-%s", alloc, suffix);
	return find(v->rs, scen, name, know);
}

/* The smallest share of its entitlement a tenant of run r got, "x.x%"; "n/a" where r is missing or has none. */
static const char *
entitlement_share(char *buf, size_t len, const record *r)
{
	double		x = r ? num(r, "min_entitlement_share") : NAN;

	if (!isfinite(x))
		return "n/a";
	snprintf(buf, len, "%.1f%%", 100.0 * x);
	return buf;
}

/*
 * The flood's targets for run r: every tenant's entitlement (fifo's and
 * backfill's beside, n/a where the scenario has no such run) and Jain's
 * index.
 */
static void
print_flood_targets(const view *v, const record *r, const char *sep)
{
	const char *s = str(r, "scenario");
	const char *know = str(r, "knowledge");
	double		share = num(r, "min_entitlement_share");
	char		b0[32],
				b1[32],
				b2[32];

	printf("%s every tenant >= 90%% of entitlement: %s (%s; fifo %s, backfill %s);"
		   " Jain >= 0.95: %s (%.3f)", sep,
		   isfinite(share) ? verdict(share >= 0.9) : "n/a",
		   entitlement_share(b0, sizeof(b0), r),
		   entitlement_share(b1, sizeof(b1), find(v->rs, s, "fifo", know)),
		   entitlement_share(b2, sizeof(b2), find(v->rs, s, "backfill", know)),
		   verdict(num(r, "jain_index") >= 0.95), num(r, "jain_index"));
}

/*
 * The tenant targets of a scenario with tenant policies (rows with a Jain
 * index): the allocator with quotas keeps 95% of its value without them
 * and is worth at least the fairshare and quota baselines; on the flood
 * (prefix 15) every tenant with demand gets 90% of its entitlement and
 * Jain's index is 0.95 or more (fifo's and backfill's smallest shares
 * printed beside); on the idle guarantee (prefix 16) borrowing adds 10
 * points of utilisation over the run without it.
 */
static void
print_tenant_targets(const view *v, const char *s, const char *alloc, const char *know)
{
	const record *r = find(v->rs, s, alloc, know);
	const record *off = find_variant(v, s, alloc, "no-quotas", know);
	const record *no_borrow = find_variant(v, s, alloc, "no-borrowing", know);
	const record *fs = find(v->rs, s, "fairshare", know);
	const record *quota = find(v->rs, s, "quota", know);
	const char *sep = "";

	if (r == NULL || !isfinite(num(r, "jain_index")))
		return;
	printf("  ");
	print_name(stdout, s, 20);
	printf(" tenants:");
	if (off)
	{
		double		share = 100.0 * run_value(v, r) / run_value(v, off);
		char		buf[32];

		if (run_value(v, off) > 0)
			printf(" value >= 95%% of without quotas: %s (%s)", verdict(share >= 95.0),
				   pct_of(buf, sizeof(buf), run_value(v, r), run_value(v, off)));
		else
			printf(" value >= 95%% of without quotas: n/a (no batch value)");
		sep = ";";
	}
	if (fs && quota)
	{
		char		b1[32],
					b2[32];

		printf("%s value >= fairshare and quota: %s (%s, %s)", sep,
			   verdict(run_value(v, r) >= run_value(v, fs) && run_value(v, r) >= run_value(v, quota)),
			   pct_change(b1, sizeof(b1), run_value(v, r), run_value(v, fs)),
			   pct_change(b2, sizeof(b2), run_value(v, r), run_value(v, quota)));
		sep = ";";
	}
	if (strncmp(s, "15", 2) == 0)
	{
		print_flood_targets(v, r, sep);
		sep = ";";
	}
	if (strncmp(s, "16", 2) == 0 && no_borrow)
	{
		double		pp = (num(r, "utilization") - num(no_borrow, "utilization")) * v->util_scale;

		printf("%s utilisation >= without borrowing + 10 pp: %s (%+.1f pp)", sep, verdict(pp >= 10.0), pp);
	}
	printf("\n");
}

/* Whether some scenario has a run of policy with that knowledge. */
static bool
has_policy(const view *v, const char *policy, const char *know)
{
	for (int i = 0; i < v->n_scen; i++)
		if (find(v->rs, v->scen[i], policy, know))
			return true;
	return false;
}

/*
 * The benchmark's targets, measured: printed for every allocator mode and
 * knowledge, met or missed.  Scenarios are named by their number prefix.
 */
static void
print_targets(const view *v, const char *alloc, const char *know)
{
	const char *s1 = scen_with_prefix(v, "01");
	const char *s6 = scen_with_prefix(v, "06");
	const char *s7 = scen_with_prefix(v, "07");
	double		sum_gain = 0;
	int			n_gain = 0;

	printf("\ntargets, %s (%s):\n", alloc, know);
	for (int i = 0; i < v->n_scen; i++)
	{
		const char *s = v->scen[i];
		const record *r = find(v->rs, s, alloc, know);
		const record *fifo = find(v->rs, s, "fifo", know);
		const record *bf = find(v->rs, s, "backfill", know);
		const record *oracle = find(v->rs, s, "oracle", know);
		double		cov;
		double		need;
		char		b1[32],
					b2[32];

		if (r == NULL)
			continue;
		cov = num(r, "coverage") * v->cov_scale;
		printf("  ");
		print_name(stdout, s, 20);
		if (fifo && bf && !(run_value(v, fifo) > 0) && !(run_value(v, bf) > 0) && !(run_value(v, r) > 0))
			printf(" value > fifo and backfill: n/a (no batch value);");
		else if (fifo && bf)
			printf(" value > fifo and backfill: %s (%s, %s);",
				   verdict(run_value(v, r) > run_value(v, fifo) && run_value(v, r) > run_value(v, bf)),
				   pct_change(b1, sizeof(b1), run_value(v, r), run_value(v, fifo)),
				   pct_change(b2, sizeof(b2), run_value(v, r), run_value(v, bf)));
		else
			printf(" value > fifo and backfill: not measured (no %s run);", fifo ? "backfill" : "fifo");
		need = coverage_needed(v, oracle, bf);
		printf(" coverage >= %.2f%%: %s (%.2f%%);", need, verdict(cov >= need - 1e-9), cov);
		if (oracle && !(run_value(v, oracle) > 0))
			printf(" >= 95%% of oracle: n/a (no batch value)");
		else if (oracle)
			printf(" >= 95%% of oracle: %s (%s)",
				   verdict(run_value(v, r) >= 0.95 * run_value(v, oracle)),
				   pct_of(b1, sizeof(b1), run_value(v, r), run_value(v, oracle)));
		printf("\n");
		if (strncmp(s, "0", 1) == 0 && s[1] >= '1' && s[1] <= '5' && fifo &&
			isfinite(gain(v, r, fifo)))
		{
			sum_gain += gain(v, r, fifo);
			n_gain++;
		}
	}
	if (s1)
	{
		const record *r = find(v->rs, s1, alloc, know);
		const record *fifo = find(v->rs, s1, "fifo", know);

		if (r && fifo && run_value(v, fifo) > 0)
		{
			double		u = num(r, "utilization") * v->util_scale;
			double		ratio = run_value(v, r) / run_value(v, fifo);

			printf("  (1) utilisation >= 87%%: %s (%.1f%%, fifo %.1f%%); value >= 2x fifo: %s (%.2fx)\n",
				   verdict(u >= 87.0), u, num(fifo, "utilization") * v->util_scale,
				   verdict(ratio >= 2.0), ratio);
		}
	}
	if (n_gain > 0)
		printf("  (1)-(5) mean value gain over fifo >= 52%%: %s (%.1f%% over %d scenarios)\n",
			   verdict(sum_gain / n_gain >= 52.0), sum_gain / n_gain, n_gain);
	if (s7)
	{
		const record *r = find(v->rs, s7, alloc, know);
		const record *fifo = find(v->rs, s7, "fifo", know);

		if (r && fifo)
		{
			double		pp = (num(r, "utilization") - num(fifo, "utilization")) * v->util_scale;

			printf("  (7) utilisation gain >= 10 pp: %s (%+.1f pp)\n", verdict(pp >= 10.0), pp);
		}
	}
	for (int i = 0; i < v->n_scen; i++)
		print_tenant_targets(v, v->scen[i], alloc, know);
	if (s6)
	{
		const record *r = find(v->rs, s6, alloc, know);
		const record *fifo = find(v->rs, s6, "fifo", know);

		if (r && fifo && isfinite(gain(v, r, fifo)))
		{
			double		g = gain(v, r, fifo);

			printf("  (6) value >= fifo + 15.9%%: %s (%+.1f%%)\n", verdict(g >= 15.9), g);
		}
	}
}

/* ------------------------------------------------------------------------
 * Output: SVG chart.  One panel per metric and knowledge; in each, a group
 * of bars per scenario, one bar per policy.  Value is shown as a share of
 * the oracle (the scales of the scenarios differ by orders of magnitude),
 * or of the best policy when there is no oracle.
 */
static const char *const palette[] = {
	"#9e9e9e", "#5d8aa8", "#e07b39", "#c0392b", "#2e7d32", "#7b1fa2", "#455a64"
};

/*
 * s as XML character data.  XML 1.0 admits no control character but tab,
 * line feed and carriage return, not even as a reference: those three are
 * written as references (a reader would turn a literal carriage return
 * into a line feed), any other as U+FFFD, the replacement character, so
 * that a name holding one still gives a well-formed file.  So are a byte
 * that is not part of well-formed UTF-8 (a Latin-1 name in a file made by
 * hand: an XML reader refuses the whole file for one) and U+FFFE and
 * U+FFFF, which XML excludes.
 */
static void
xml_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *) s;

	while (*p)
	{
		int			n = utf8_sequence(p);

		if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '\t' || *p == '\n' || *p == '\r')
			fprintf(f, "&#%d;", *p);
		else if (*p < 0x20 || n == 0 || (n == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE))
			fputs("\xEF\xBF\xBD", f);
		else
			fwrite(p, 1, (size_t) n, f);
		p += n > 0 ? n : 1;
	}
}

static double
panel_value(const view *v, const char *scen, const char *pol, const char *know, bool value)
{
	const record *r = find(v->rs, scen, pol, know);
	const record *oracle;
	double		denom = 0;

	if (r == NULL)
		return NAN;
	if (!value)
		return num(r, "utilization") * v->util_scale;
	oracle = find(v->rs, scen, "oracle", know);
	if (oracle && run_value(v, oracle) > 0)
		denom = run_value(v, oracle);
	else
		for (int p = 0; p < v->n_pol; p++)
		{
			const record *o = find(v->rs, scen, v->pol[p], know);

			if (o && run_value(v, o) > denom)
				denom = run_value(v, o);
		}
	return denom > 0 ? 100.0 * run_value(v, r) / denom : NAN;
}

static bool
write_svg(const char *path, const view *v)
{
	const double panel_w = 620,
				panel_h = 300,
				margin_l = 60,
				margin_t = 70,
				gap_x = 40,
				gap_y = 90;
	int			n_know = v->n_know;
	double		width = margin_l + n_know * (panel_w + gap_x) + 10;
	double		height = margin_t + 2 * (panel_h + gap_y);
	FILE	   *f = fopen(path, "w");
	bool		ok;

	if (f == NULL)
	{
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		return false;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
			"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
			width, height, width, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"24\" font-size=\"16\" font-weight=\"bold\">"
			"gpualloc simulator: policies side by side per scenario</text>\n", margin_l);
	/* Legend. */
	for (int p = 0; p < v->n_pol; p++)
	{
		double		x = margin_l + p * 110;

		fprintf(f, "<rect x=\"%.0f\" y=\"36\" width=\"14\" height=\"14\" fill=\"%s\"/>\n",
				x, palette[p % 7]);
		fprintf(f, "<text x=\"%.0f\" y=\"48\">", x + 20);
		xml_text(f, v->pol[p]);
		fprintf(f, "</text>\n");
	}
	for (int m = 0; m < 2; m++)
		for (int k = 0; k < n_know; k++)
		{
			double		x0 = margin_l + k * (panel_w + gap_x);
			double		y0 = margin_t + m * (panel_h + gap_y);
			double		group_w = panel_w / (v->n_scen > 0 ? v->n_scen : 1);
			double		bar_w = group_w * 0.8 / (v->n_pol > 0 ? v->n_pol : 1);

			fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">%s, ",
					x0, y0 + 2, m == 0 ? "value, % of the oracle bound (* of the best policy: no bound)" : "utilisation, %");
			xml_text(f, v->know[k]);	/* read from the input, as the names are */
			fprintf(f, " knowledge</text>\n");
			/* Grid every 20 per cent. */
			for (int t = 0; t <= 100; t += 20)
			{
				double		y = y0 + 10 + panel_h * (1.0 - t / 100.0);

				fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
						x0, y, x0 + panel_w, y);
				fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%d</text>\n",
						x0 - 6, y + 4, t);
			}
			for (int s = 0; s < v->n_scen; s++)
			{
				double		gx = x0 + s * group_w + group_w * 0.1;

				for (int p = 0; p < v->n_pol; p++)
				{
					double		val = panel_value(v, v->scen[s], v->pol[p], v->know[k], m == 0);
					double		h;

					if (!isfinite(val))
						continue;
					h = panel_h * fmin(fmax(val, 0.0), 110.0) / 100.0;
					fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
							"<title>", gx + p * bar_w, y0 + 10 + panel_h - h, bar_w * 0.92, h,
							palette[p % 7]);
					xml_text(f, v->scen[s]);
					fprintf(f, " ");
					xml_text(f, v->pol[p]);
					fprintf(f, ": %.1f</title></rect>\n", val);
				}
				fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"end\" "
						"transform=\"rotate(-35 %.1f %.0f)\" font-size=\"10\">",
						gx + group_w * 0.4, y0 + panel_h + 26, gx + group_w * 0.4, y0 + panel_h + 26);
				xml_text(f, v->scen[s]);
				if (m == 0 && find(v->rs, v->scen[s], "oracle", v->know[k]) == NULL)
					fprintf(f, " *");
				fprintf(f, "</text>\n");
			}
			fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n",
					x0, y0 + 10 + panel_h, x0 + panel_w, y0 + 10 + panel_h);
		}
	fprintf(f, "</svg>\n");
	ok = !ferror(f);
	return fclose(f) == 0 && ok;
}

/* ------------------------------------------------------------------------ */

static int
record_rank(const view *v, const record *r)
{
	int			k = 0,
				s = 0,
				p = 0;

	for (int i = 0; i < v->n_know; i++)
		if (strcmp(v->know[i], str(r, "knowledge")) == 0)
			k = i;
	for (int i = 0; i < v->n_scen; i++)
		if (strcmp(v->scen[i], str(r, "scenario")) == 0)
			s = i;
	for (int i = 0; i < v->n_pol; i++)
		if (strcmp(v->pol[i], str(r, "policy")) == 0)
			p = i;
	return (k * v->n_scen + s) * v->n_pol + p;
}

int
main(int argc, char **argv)
{
	const char *json_out = NULL;
	const char *svg_out = NULL;
	records		rs = {0, 0, NULL};
	view		v;
	int		   *order;
	const char *dir = NULL;
	const char **dirs = NULL;

	for (int i = 1; i < argc; i++)
	{
		int			before = rs.n;

		if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
			json_out = argv[++i];
		else if (strcmp(argv[i], "--svg") == 0 && i + 1 < argc)
			svg_out = argv[++i];
		else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
			dir = argv[++i];
		else if (argv[i][0] == '-')
		{
			fprintf(stderr, "usage: %s [--json OUT] [--svg OUT] [[--dir SCENARIO_DIR] INPUT.json...]...\n", argv[0]);
			return 2;
		}
		else if (!read_records(argv[i], &rs))
		{
			free_records(&rs);
			free(dirs);
			return 1;
		}
		if (rs.n > before)
		{
			const char **grown = realloc(dirs, sizeof(char *) * rs.cap);

			if (grown == NULL)
			{
				fprintf(stderr, "bench_report: out of memory\n");
				return 1;
			}
			dirs = grown;
			for (int k = before; k < rs.n; k++)
				dirs[k] = dir;
		}
	}
	if (dirs != NULL && !name_scenarios_apart(&rs, dirs))
	{
		fprintf(stderr, "bench_report: out of memory\n");
		return 1;
	}
	free(dirs);
	if (rs.n == 0)
	{
		fprintf(stderr, "no results to report\n");
		return 1;
	}
	memset(&v, 0, sizeof(v));
	v.rs = &rs;
	v.scen = malloc(sizeof(char *) * rs.n);
	v.pol = malloc(sizeof(char *) * rs.n);
	v.know = malloc(sizeof(char *) * rs.n);
	if (v.scen == NULL || v.pol == NULL || v.know == NULL)
	{
		fprintf(stderr, "bench_report: out of memory\n");
		return 1;
	}
	warn_repeated_runs(&rs);
	v.n_scen = distinct(&rs, "scenario", v.scen, rs.n);
	v.n_pol = distinct(&rs, "policy", v.pol, rs.n);
	v.n_know = distinct(&rs, "knowledge", v.know, rs.n);
	qsort(v.scen, v.n_scen, sizeof(char *), cmp_str);
	qsort(v.pol, v.n_pol, sizeof(char *), cmp_policy);
	qsort(v.know, v.n_know, sizeof(char *), cmp_knowledge);
	v.util_scale = share_scale(&rs, "utilization");
	v.cov_scale = share_scale(&rs, "coverage");

	for (int k = 0; k < v.n_know; k++)
		for (int s = 0; s < v.n_scen; s++)
			print_scenario(&v, v.scen[s], v.know[k]);
	for (int k = 0; k < v.n_know; k++)
		for (int a = 0; a < 2; a++)
			if (has_policy(&v, a == 0 ? "fast" : "full", v.know[k]))
				print_targets(&v, a == 0 ? "fast" : "full", v.know[k]);

	/* The merged file in the tables' order: knowledge, scenario, policy. */
	order = malloc(sizeof(int) * rs.n);
	if (order == NULL)
		return 1;
	for (int i = 0; i < rs.n; i++)
		order[i] = i;
	for (int i = 1; i < rs.n; i++)
	{
		int			x = order[i];
		int			j = i - 1;

		while (j >= 0 && record_rank(&v, &rs.r[order[j]]) > record_rank(&v, &rs.r[x]))
		{
			order[j + 1] = order[j];
			j--;
		}
		order[j + 1] = x;
	}
	if (json_out && !write_json(json_out, &rs, order))
		return 1;
	if (svg_out && !write_svg(svg_out, &v))
		return 1;
	free(order);
	free(v.scen);
	free(v.pol);
	free(v.know);
	free_records(&rs);
	return 0;
}
