/*
 * fuzz_csv.c — libFuzzer target for the CSV reader of src/core/sim/csv.h.
 *
 * The input is one CSV file, any bytes.  It is read twice: once row by row
 * with ga_csv_next, checking what the header promises of every row (at least
 * one and at most GA_CSV_MAX_FIELDS fields, each a NUL-terminated string
 * inside the file's buffer, line numbers that only grow and stay within the
 * file's lines); then through ga_csv_header with four column names and
 * every typed accessor on every row.  A broken promise aborts, which
 * libFuzzer reports as a crash.
 */
#include "sim/csv.h"

#include "fuzz_tmp.h"

#include <math.h>

#define FILE_NAME "input.csv"

static const char *const files[] = {FILE_NAME};

#define CHECK(cond) \
	do { if (!(cond)) { fprintf(stderr, "fuzz_csv: %s:%d: %s\n", __FILE__, __LINE__, #cond); abort(); } } while (0)

static void
check_error(const ga_error *err)
{
	CHECK(err->code != GA_OK);
	CHECK(memchr(err->message, '\0', sizeof(err->message)) != NULL);
	CHECK(err->message[0] != '\0');
}

/* Every row's fields, straight from ga_csv_next. */
static void
read_rows(const char *dir, const uint8_t *data, size_t size)
{
	ga_csv_reader r;
	ga_error	err = {0};
	int			rc;
	int			last_line = 0;
	int			lines = 1;
	size_t		rows = 0;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	CHECK(ga_csv_open(&r, dir, FILE_NAME, false, NULL, &err) == GA_OK);
	CHECK(r.len == size && r.data != NULL && r.data[size] == '\0');
	CHECK(memcmp(r.data, data, size) == 0);
	while ((rc = ga_csv_next(&r, &err)) > 0)
	{
		CHECK(++rows <= size);
		CHECK(r.n >= 1 && r.n <= GA_CSV_MAX_FIELDS);
		CHECK(r.line > last_line && r.line < r.next_line && r.line <= lines);
		last_line = r.line;
		for (int i = 0; i < r.n; i++)
		{
			const char *f = r.field[i];

			CHECK(f >= r.data && f <= r.data + r.len);
			CHECK(f + strlen(f) <= r.data + r.len);
		}
	}
	if (rc < 0)
		check_error(&err);
	else
		CHECK(ga_csv_next(&r, &err) == 0);
	ga_csv_close(&r);
	CHECK(r.data == NULL);
}

/* The header's columns and every typed field of every row. */
static void
read_typed(const char *dir)
{
	static const char *const names[] = {"name", "gpus", "ts", "value"};
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err = {0};
	int			rc;

	CHECK(ga_csv_open(&r, dir, FILE_NAME, false, NULL, &err) == GA_OK);
	if (ga_csv_header(&r, &cols, names, 4, &err) != GA_OK)
	{
		check_error(&err);
		ga_csv_close(&r);
		return;
	}
	for (int c = 0; c < 4; c++)
		CHECK(cols.pos[c] >= 0 && cols.pos[c] < r.n);
	while ((rc = ga_csv_next(&r, &err)) > 0)
	{
		for (int c = 0; c < 4; c++)
		{
			const char *s = ga_csv_field(&r, &cols, c);
			double		v;
			int			iv;
			int64_t		minutes;
			char		name[64];
			char		small[4];

			CHECK(s != NULL);
			if (ga_csv_number(&r, &cols, c, &v, &err) == GA_OK)
				CHECK(isfinite(v));
			else
				check_error(&err);
			if (ga_csv_int(&r, &cols, c, &iv, &err) == GA_OK)
				CHECK(iv >= -1000000000 && iv <= 1000000000);
			else
				check_error(&err);
			if (ga_csv_name(&r, &cols, c, name, sizeof(name), &err) == GA_OK)
				CHECK(name[0] != '\0' && strlen(name) < sizeof(name) && strcmp(name, s) == 0);
			else
				check_error(&err);
			if (ga_csv_name(&r, &cols, c, small, sizeof(small), &err) == GA_OK)
				CHECK(strlen(small) < sizeof(small));
			else
				check_error(&err);
			if (ga_csv_minutes(&r, &cols, c, &minutes, &err) == GA_OK)
				CHECK(minutes >= 0);
			else
				check_error(&err);
			CHECK(ga_csv_field_error(&r, &cols, c, &err, "is fuzzed") == GA_EINVAL);
			check_error(&err);
		}
	}
	if (rc < 0)
		check_error(&err);
	ga_csv_close(&r);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmp_dir(files, 1);

	fuzz_tmp_write(dir, FILE_NAME, data, size);
	read_rows(dir, data, size);
	read_typed(dir);
	return 0;
}
