/*
 * csv.h — a reader of CSV files with a header row.
 *
 * The scenario reader reads every file of a scenario with it, and the
 * scenario generator the real traces of data/real, so the two accept the
 * same CSV (docs/model.md, CSV rules) and report a bad field alike:
 * "FILE: line N, column "NAME": "VALUE" RULE".
 *
 * A file is read whole and split into rows: fields may be quoted with "",
 * "" standing for a quote inside (a quoted field may hold commas and line
 * breaks; a quote that does not start a field is an ordinary character);
 * lines end in LF or CRLF; a UTF-8 byte-order mark before the header is
 * skipped; blank rows are skipped; spaces around each field are dropped; a
 * row has at most GA_CSV_MAX_FIELDS fields.  The header row maps the names
 * a caller needs to column positions, so the columns may come in any order
 * and columns nobody asked for are ignored.
 */
#ifndef GPUALLOC_CSV_H
#define GPUALLOC_CSV_H

#include "model/common.h"

#define GA_CSV_MAX_FIELDS 64

typedef struct ga_csv_reader
{
	char		path[1024];		/* named in every error */
	char	   *data;			/* the whole file; fields point in here */
	size_t		len;
	size_t		pos;
	int			line;			/* line of the row last returned */
	int			next_line;
	int			n;				/* fields in the current row */
	char	   *field[GA_CSV_MAX_FIELDS];
} ga_csv_reader;

/* The header's positions of the columns a caller needs, in its order. */
typedef struct ga_csv_columns
{
	int			n;
	const char *const *names;
	int			pos[GA_CSV_MAX_FIELDS];
} ga_csv_columns;

/*
 * Read the file dir/name, or name itself when dir is NULL.  With optional
 * set, a file that does not exist is no error: *missing is set instead and
 * the reader holds no rows (missing may be NULL otherwise).
 */
ga_status	ga_csv_open(ga_csv_reader *r, const char *dir, const char *name,
						bool optional, bool *missing, ga_error *err);
void		ga_csv_close(ga_csv_reader *r);

/*
 * Advance to the next non-blank row: 1, 0 at the end of the file, -1 (err
 * set) on a malformed row.  r->field[0 .. r->n) are its fields, unquoted
 * and trimmed.
 */
int			ga_csv_next(ga_csv_reader *r, ga_error *err);

/*
 * Read the header row and find the n named columns, every one required; if
 * a name appears twice the last one is used.  Column c of cols is names[c].
 */
ga_status	ga_csv_header(ga_csv_reader *r, ga_csv_columns *cols,
						  const char *const *names, int n, ga_error *err);

/*
 * As ga_csv_header, but only the first n_required names must be there; a
 * later one that is missing reads as "" in every row.
 */
ga_status	ga_csv_header_optional(ga_csv_reader *r, ga_csv_columns *cols,
								   const char *const *names, int n,
								   int n_required, ga_error *err);

/* Column c of the current row ("" when the row is short or the column absent). */
const char *ga_csv_field(const ga_csv_reader *r, const ga_csv_columns *cols, int c);

/*
 * An error at the current row and column c: the file, line, column and the
 * field's text, followed by rule ("must be positive").
 */
ga_status	ga_csv_field_error(const ga_csv_reader *r, const ga_csv_columns *cols,
							   int c, ga_error *err, const char *rule);

/*
 * Whether s holds only the characters of a decimal number (digits, sign,
 * point, exponent): strtod alone would also take hexadecimal, inf and nan.
 */
bool		ga_csv_decimal_chars(const char *s);

/*
 * Whole numbers are read up to 1e9 in magnitude: above any count of GPUs a
 * scenario may hold, and well inside an int.
 */
#define GA_CSV_MAX_INT 1e9

/*
 * Typed fields of the current row; on a bad field, an error from
 * ga_csv_field_error.  A number is decimal and finite; an int a whole
 * number (8 or 8.0) of at most GA_CSV_MAX_INT in magnitude; a saturated
 * int a whole number of any size, one beyond GA_CSV_MAX_INT read as
 * GA_CSV_MAX_INT with its sign (for caps and limits, where any value above
 * the GPUs of a pool means the same); a name is not empty and shorter than
 * size; a time is read by ga_parse_minutes.
 */
ga_status	ga_csv_number(const ga_csv_reader *r, const ga_csv_columns *cols,
						  int c, double *out, ga_error *err);
ga_status	ga_csv_int(const ga_csv_reader *r, const ga_csv_columns *cols,
					   int c, int *out, ga_error *err);
ga_status	ga_csv_int_saturated(const ga_csv_reader *r, const ga_csv_columns *cols,
								 int c, int *out, ga_error *err);
ga_status	ga_csv_name(const ga_csv_reader *r, const ga_csv_columns *cols,
						int c, char *out, size_t size, ga_error *err);
ga_status	ga_csv_minutes(const ga_csv_reader *r, const ga_csv_columns *cols,
						   int c, int64_t *out, ga_error *err);

#endif
