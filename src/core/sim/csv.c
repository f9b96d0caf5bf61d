/*
 * csv.c — the CSV reader of the scenario format and the real traces (see
 * csv.h): a file is read whole, its rows unquoted in place, its header
 * mapped to column positions by name, and each typed field checked with an
 * error that names the file, the line and the column.
 */
#include "sim/csv.h"

#include "model/calendar.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Read the whole of f into r->data.  Chunks until end of file, rather than
 * asking the size first: a named pipe or /dev/stdin has none, and a
 * directory opened by mistake reports a huge one but fails on the first
 * read, which is then named.
 */
static ga_status
read_whole(ga_csv_reader *r, FILE *f, ga_error *err)
{
	size_t		cap = 65536;

	r->data = malloc(cap);
	if (r->data == NULL)
		return ga_error_set(err, GA_ENOMEM, "%s: out of memory", r->path);
	for (;;)
	{
		size_t		got = fread(r->data + r->len, 1, cap - 1 - r->len, f);

		r->len += got;
		if (r->len < cap - 1)
			break;
		if (cap > SIZE_MAX / 2)
			return ga_error_set(err, GA_ENOMEM, "%s: too large", r->path);
		{
			char	   *grown = realloc(r->data, cap * 2);

			if (grown == NULL)
				return ga_error_set(err, GA_ENOMEM, "%s: out of memory", r->path);
			r->data = grown;
			cap *= 2;
		}
	}
	if (ferror(f))
		return ga_error_set(err, GA_EINVAL, "%s: cannot read: %s", r->path,
							errno != 0 ? strerror(errno) : "read error");
	r->data[r->len] = '\0';
	return GA_OK;
}

/*
 * A NUL byte would end the field it falls in, silently dropping the rest
 * ("5<NUL>7" read as 5): no CSV text holds one, and a file saved as UTF-16
 * holds one in every other byte.
 */
static ga_status
check_no_nul(const ga_csv_reader *r, ga_error *err)
{
	const char *nul = memchr(r->data, '\0', r->len);
	int			line = 1;

	if (nul == NULL)
		return GA_OK;
	for (const char *p = r->data; p < nul; p++)
		line += *p == '\n';
	return ga_error_set(err, GA_EINVAL, "%s: line %d: holds a NUL byte (a CSV file is UTF-8 text; "
						"UTF-16, as some spreadsheets save, is not read)", r->path, line);
}

ga_status
ga_csv_open(ga_csv_reader *r, const char *dir, const char *name,
			bool optional, bool *missing, ga_error *err)
{
	FILE	   *f;
	ga_status	rc;

	memset(r, 0, sizeof(*r));
	r->next_line = 1;
	if (dir != NULL)
		snprintf(r->path, sizeof(r->path), "%s/%s", dir, name);
	else
		snprintf(r->path, sizeof(r->path), "%s", name);
	if (missing)
		*missing = false;
	f = fopen(r->path, "rb");
	if (f == NULL)
	{
		if (optional && errno == ENOENT)
		{
			if (missing)
				*missing = true;
			return GA_OK;
		}
		return ga_error_set(err, GA_EINVAL, "%s: cannot open: %s", r->path, strerror(errno));
	}
	errno = 0;
	rc = read_whole(r, f, err);
	fclose(f);
	if (rc == GA_OK)
		rc = check_no_nul(r, err);
	if (rc != GA_OK)
	{
		free(r->data);
		r->data = NULL;
		r->len = 0;
		return rc;
	}
	/* spreadsheets save "CSV UTF-8" behind a byte-order mark: not data */
	if (r->len >= 3 && memcmp(r->data, "\xEF\xBB\xBF", 3) == 0)
		r->pos = 3;
	return GA_OK;
}

void
ga_csv_close(ga_csv_reader *r)
{
	free(r->data);
	r->data = NULL;
}

static void
trim(char **s)
{
	char	   *p = *s;
	size_t		n;

	while (*p && isspace((unsigned char) *p))
		p++;
	n = strlen(p);
	while (n > 0 && isspace((unsigned char) p[n - 1]))
		p[--n] = '\0';
	*s = p;
}

/*
 * The rest of a quoted field, from just after its opening quote to its
 * closing one, unquoted onto *out ("" stands for one quote); false when the
 * file ends first.
 */
static bool
read_quoted(ga_csv_reader *r, char **out)
{
	while (r->pos < r->len)
	{
		char		c = r->data[r->pos++];

		if (c == '\n')
			r->next_line++;
		if (c == '"')
		{
			if (r->pos >= r->len || r->data[r->pos] != '"')
				return true;
			r->pos++;
		}
		*(*out)++ = c;
	}
	return false;
}

/*
 * Whether the carriage return just read is not one of the CRs before an LF
 * (nor the file's last byte).  Dropped, it would join a file that ends its
 * lines in CR alone into one row, reported as a header missing columns.
 */
static bool
lone_cr(const ga_csv_reader *r)
{
	size_t		p = r->pos;

	while (p < r->len && r->data[p] == '\r')
		p++;
	return p < r->len && r->data[p] != '\n';
}

/*
 * Fields are unquoted in place, so they point into r->data.  A quote opens
 * a quoted field only where the field starts (spaces before it are
 * dropped anyway); anywhere else it is an ordinary character, as in the
 * inch mark of a note `24" screen`, which would otherwise swallow the
 * commas and rows up to the next quote of the file.
 */
int
ga_csv_next(ga_csv_reader *r, ga_error *err)
{
	for (;;)
	{
		char	   *out;
		bool		blank = true;
		bool		field_start = true; /* only spaces so far in this field */

		if (r->pos >= r->len)
			return 0;
		r->line = r->next_line;
		r->n = 0;
		out = r->data + r->pos;
		r->field[r->n++] = out;
		while (r->pos < r->len)
		{
			char		c = r->data[r->pos++];

			if (c == '"' && field_start)
			{
				if (!read_quoted(r, &out))
				{
					ga_error_set(err, GA_EINVAL, "%s: line %d: unterminated quoted field",
								 r->path, r->line);
					return -1;
				}
				blank = field_start = false;
				continue;
			}
			if (c == '\n')
			{
				r->next_line++;
				break;
			}
			if (c == '\r')
			{
				if (lone_cr(r))
				{
					ga_error_set(err, GA_EINVAL, "%s: line %d: a carriage return inside a line: lines end in LF or CRLF (saved with CR alone?)",
								 r->path, r->line);
					return -1;
				}
				continue;
			}
			if (c == ',')
			{
				*out++ = '\0';
				if (r->n >= GA_CSV_MAX_FIELDS)
				{
					ga_error_set(err, GA_EINVAL, "%s: line %d: more than %d fields",
								 r->path, r->line, GA_CSV_MAX_FIELDS);
					return -1;
				}
				r->field[r->n++] = out;
				blank = false;
				field_start = true;
				continue;
			}
			if (!isspace((unsigned char) c))
				blank = field_start = false;
			*out++ = c;
		}
		*out = '\0';
		if (r->line == r->next_line)
			r->next_line++;
		if (blank)
			continue;
		for (int i = 0; i < r->n; i++)
			trim(&r->field[i]);
		return 1;
	}
}

ga_status
ga_csv_header(ga_csv_reader *r, ga_csv_columns *cols,
			  const char *const *names, int n, ga_error *err)
{
	return ga_csv_header_optional(r, cols, names, n, n, err);
}

ga_status
ga_csv_header_optional(ga_csv_reader *r, ga_csv_columns *cols,
					   const char *const *names, int n, int n_required,
					   ga_error *err)
{
	int			rc;

	if (n > GA_CSV_MAX_FIELDS)
		return ga_error_set(err, GA_EINVAL, "%s: %d columns asked for, at most %d",
							r->path, n, GA_CSV_MAX_FIELDS);
	rc = ga_csv_next(r, err);
	if (rc < 0)
		return GA_EINVAL;
	if (rc == 0)
		return ga_error_set(err, GA_EINVAL, "%s: line 1: missing header row", r->path);
	cols->n = n;
	cols->names = names;
	for (int c = 0; c < n; c++)
	{
		cols->pos[c] = -1;
		for (int i = 0; i < r->n; i++)
			if (strcmp(r->field[i], names[c]) == 0)
				cols->pos[c] = i;
		if (cols->pos[c] < 0 && c < n_required)
			return ga_error_set(err, GA_EINVAL, "%s: line %d: missing column \"%s\"",
								r->path, r->line, names[c]);
	}
	return GA_OK;
}

const char *
ga_csv_field(const ga_csv_reader *r, const ga_csv_columns *cols, int c)
{
	int			i = cols->pos[c];

	return i >= 0 && i < r->n ? r->field[i] : "";
}

ga_status
ga_csv_field_error(const ga_csv_reader *r, const ga_csv_columns *cols, int c,
				   ga_error *err, const char *rule)
{
	return ga_error_set(err, GA_EINVAL, "%s: line %d, column \"%s\": \"%s\" %s",
						r->path, r->line, cols->names[c], ga_csv_field(r, cols, c), rule);
}

/* strtod also reads hexadecimal, "inf" and "nan": not decimal numbers. */
bool
ga_csv_decimal_chars(const char *s)
{
	return strspn(s, "0123456789+-.eE") == strlen(s);
}

ga_status
ga_csv_number(const ga_csv_reader *r, const ga_csv_columns *cols, int c,
			  double *out, ga_error *err)
{
	const char *s = ga_csv_field(r, cols, c);
	char	   *end;
	double		v;

	if (!ga_csv_decimal_chars(s))
		return ga_csv_field_error(r, cols, c, err, "is not a finite number");
	errno = 0;
	v = strtod(s, &end);
	/*
	 * ERANGE is also underflow (1e-400, 4e-320): a finite number, read as 0
	 * (with its sign) so that no subnormal reaches a division.
	 */
	if (errno == ERANGE && fabs(v) <= DBL_MIN)
	{
		errno = 0;
		v = copysign(0.0, v);
	}
	if (*s == '\0' || *end != '\0' || errno != 0 || !isfinite(v))
		return ga_csv_field_error(r, cols, c, err, "is not a finite number");
	*out = v;
	return GA_OK;
}

/* A whole number of any size: 8 and 8.0 alike. */
static ga_status
whole_number(const ga_csv_reader *r, const ga_csv_columns *cols, int c,
			 double *out, ga_error *err)
{
	if (ga_csv_number(r, cols, c, out, err) != GA_OK)
		return GA_EINVAL;
	if (*out != floor(*out))
		return ga_csv_field_error(r, cols, c, err, "is not a whole number");
	return GA_OK;
}

ga_status
ga_csv_int(const ga_csv_reader *r, const ga_csv_columns *cols, int c,
		   int *out, ga_error *err)
{
	double		v;

	if (whole_number(r, cols, c, &v, err) != GA_OK)
		return GA_EINVAL;
	if (fabs(v) > GA_CSV_MAX_INT)
		return ga_csv_field_error(r, cols, c, err, "is out of range: whole numbers lie between -1e9 and 1e9");
	*out = (int) v;
	return GA_OK;
}

ga_status
ga_csv_int_saturated(const ga_csv_reader *r, const ga_csv_columns *cols, int c,
					 int *out, ga_error *err)
{
	double		v;

	if (whole_number(r, cols, c, &v, err) != GA_OK)
		return GA_EINVAL;
	*out = (int) fmax(-GA_CSV_MAX_INT, fmin(v, GA_CSV_MAX_INT));
	return GA_OK;
}

ga_status
ga_csv_name(const ga_csv_reader *r, const ga_csv_columns *cols, int c,
			char *out, size_t size, ga_error *err)
{
	const char *s = ga_csv_field(r, cols, c);

	if (*s == '\0')
		return ga_csv_field_error(r, cols, c, err, "must not be empty");
	if (strlen(s) >= size)
	{
		char		rule[64];

		snprintf(rule, sizeof(rule), "is longer than %zu bytes", size - 1);
		return ga_csv_field_error(r, cols, c, err, rule);
	}
	snprintf(out, size, "%s", s);
	return GA_OK;
}

ga_status
ga_csv_minutes(const ga_csv_reader *r, const ga_csv_columns *cols, int c,
			   int64_t *out, ga_error *err)
{
	ga_error	rule;

	if (ga_parse_minutes(ga_csv_field(r, cols, c), out, &rule) != GA_OK)
		return ga_csv_field_error(r, cols, c, err, rule.message);
	return GA_OK;
}

