/*
 * test_csv.c — the CSV reader of sim/csv.h on small files written to a
 * temporary directory: quoting, trimming, header lookup and typed fields.
 */
#include "unit.h"
#include "sim/csv.h"

#include <stdlib.h>
#include <unistd.h>

/* Write text to a fresh temporary file; its path is returned in path. */
static void
write_csv(char *path, size_t len, const char *text)
{
	FILE	   *f;
	int			fd;

	snprintf(path, len, "/tmp/gpualloc-csv-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	if (f == NULL)
	{
		close(fd);
		return;
	}
	fputs(text, f);
	fclose(f);
}

TEST(csv_quoted_and_trimmed_fields)
{
	static const char *const names[] = {"name", "note"};
	char		path[64];
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err;

	write_csv(path, sizeof(path),
			  "  name , note \r\n"
			  "\n"
			  " a ,  \"x, \"\"y\"\"\n z\"  \r\n"
			  "b\n");
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, names, 2, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(r.line, 3);
	CHECK(strcmp(ga_csv_field(&r, &cols, 0), "a") == 0);
	CHECK_MSG(strcmp(ga_csv_field(&r, &cols, 1), "x, \"y\"\n z") == 0,
			  "got [%s]", ga_csv_field(&r, &cols, 1));
	/* a short row reads its missing fields as empty */
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(r.line, 5);
	CHECK(strcmp(ga_csv_field(&r, &cols, 0), "b") == 0);
	CHECK(strcmp(ga_csv_field(&r, &cols, 1), "") == 0);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 0);
	ga_csv_close(&r);
	unlink(path);
}

/*
 * A quote opens a quoted field only where the field starts: inside an
 * unquoted field (an inch mark in a note) it is an ordinary character and
 * does not join the commas and rows up to the next quote into one field.
 */
TEST(csv_quote_inside_an_unquoted_field_is_text)
{
	static const char *const names[] = {"job", "note"};
	char		path[64];
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err;

	write_csv(path, sizeof(path),
			  "job,note\n"
			  "a,24\" screen\n"
			  "b,x\n"
			  "c,the 8\" one\n"
			  "d, \"quoted, \"\"still\"\"\"\n");
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, names, 2, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK(strcmp(ga_csv_field(&r, &cols, 0), "a") == 0);
	CHECK_MSG(strcmp(ga_csv_field(&r, &cols, 1), "24\" screen") == 0,
			  "got [%s]", ga_csv_field(&r, &cols, 1));
	CHECK_INT_EQ(r.n, 2);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK(strcmp(ga_csv_field(&r, &cols, 0), "b") == 0);
	CHECK_INT_EQ(r.line, 3);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK(strcmp(ga_csv_field(&r, &cols, 1), "the 8\" one") == 0);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK(strcmp(ga_csv_field(&r, &cols, 0), "d") == 0);
	CHECK(strcmp(ga_csv_field(&r, &cols, 1), "quoted, \"still\"") == 0);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 0);
	ga_csv_close(&r);
	unlink(path);
}

/*
 * Lines end in LF or CRLF: a file whose lines end in CR alone was read as
 * one row and reported as a header missing its columns; it is refused for
 * what it is.  CRs before an LF, and inside quotes, are still fine.
 */
TEST(csv_refuses_lines_ended_by_cr_alone)
{
	static const char *const names[] = {"pool", "gpus"};
	char		path[64];
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err;

	write_csv(path, sizeof(path), "pool,gpus\rh100,8\r");
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, names, 2, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, ": line 1: a carriage return inside a line");
	ga_csv_close(&r);
	unlink(path);

	write_csv(path, sizeof(path), "pool,gpus\r\r\n\"h\r100\",8\r");
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, names, 2, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK(strcmp(ga_csv_field(&r, &cols, 0), "h\r100") == 0);
	CHECK(strcmp(ga_csv_field(&r, &cols, 1), "8") == 0);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 0);
	ga_csv_close(&r);
	unlink(path);
}

TEST(csv_header_finds_columns_and_tolerates_extra_ones)
{
	static const char *const names[] = {"gpus", "pool"};
	static const char *const wanted[] = {"pool", "node"};
	char		path[64];
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err;
	int			gpus;

	write_csv(path, sizeof(path), "pool,extra,gpus\nh100,x,8.0\n");
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, names, 2, &err), GA_OK);
	CHECK_INT_EQ(cols.pos[0], 2);
	CHECK_INT_EQ(cols.pos[1], 0);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_int(&r, &cols, 0, &gpus, &err), GA_OK);
	CHECK_INT_EQ(gpus, 8);
	ga_csv_close(&r);

	/* a column asked for and missing names the file, line and column */
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, wanted, 2, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, path);
	CHECK_STR_CONTAINS(err.message, ": line 1: missing column \"node\"");
	ga_csv_close(&r);
	unlink(path);
}

/* A UTF-8 byte-order mark before the header is not part of its first name. */
TEST(csv_skips_a_byte_order_mark)
{
	static const char *const names[] = {"pool", "gpus"};
	char		path[64];
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err;

	write_csv(path, sizeof(path), "\xEF\xBB\xBFpool,gpus\r\n\xEF\xBB\xBFh100,8\r\n");
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, names, 2, &err), GA_OK);
	CHECK_INT_EQ(cols.pos[0], 0);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(r.line, 2);
	/* only the file's first bytes: a mark inside a row is data */
	CHECK(strcmp(ga_csv_field(&r, &cols, 0), "\xEF\xBB\xBFh100") == 0);
	ga_csv_close(&r);
	unlink(path);
}

TEST(csv_typed_fields_report_file_line_and_column)
{
	static const char *const names[] = {"n", "name", "ts"};
	char		path[64];
	char		name[4];
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err;
	double		v;
	int			i;
	int64_t		t;

	write_csv(path, sizeof(path), "n,name,ts\n1.5,abc,2026-03-02 01:30\nx,abcd,2026-03-02\n");
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, names, 3, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_number(&r, &cols, 0, &v, &err), GA_OK);
	CHECK_NEAR(v, 1.5, 0);
	CHECK_INT_EQ(ga_csv_int(&r, &cols, 0, &i, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, ": line 2, column \"n\": \"1.5\" is not a whole number");
	CHECK_INT_EQ(ga_csv_name(&r, &cols, 1, name, sizeof(name), &err), GA_OK);
	CHECK(strcmp(name, "abc") == 0);
	CHECK_INT_EQ(ga_csv_minutes(&r, &cols, 2, &t, &err), GA_OK);
	CHECK_INT_EQ(t % 1440, 90);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_number(&r, &cols, 0, &v, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, path);
	CHECK_STR_CONTAINS(err.message, ": line 3, column \"n\": \"x\" is not a finite number");
	CHECK_INT_EQ(ga_csv_name(&r, &cols, 1, name, sizeof(name), &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "\"abcd\" is longer than 3 bytes");
	CHECK_INT_EQ(ga_csv_minutes(&r, &cols, 2, &t, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "column \"ts\": \"2026-03-02\" must be a UTC time YYYY-MM-DD HH:MM");
	ga_csv_close(&r);
	unlink(path);
}

TEST(csv_open_by_directory_and_optional_files)
{
	ga_csv_reader r;
	ga_error	err;
	bool		missing = false;

	CHECK_INT_EQ(ga_csv_open(&r, "/nonexistent/gpualloc", "x.csv", true, &missing, &err), GA_OK);
	CHECK(missing);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 0);
	ga_csv_close(&r);
	CHECK_INT_EQ(ga_csv_open(&r, "/nonexistent/gpualloc", "x.csv", false, NULL, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "/nonexistent/gpualloc/x.csv: cannot open");
}

/*
 * Numbers are decimal: strtod's hexadecimal, infinities and NaNs are not;
 * one below the smallest normal double is finite, read as 0.
 */
TEST(csv_numbers_are_decimal_only)
{
	static const char *const names[] = {"n"};
	static const char *const refused[] = {"0x10", "inf", "-Infinity", "nan", "1e999", "1,5"};
	char		path[64];
	char		text[256] = "n\n1e3\n-0.25\n+7\n1e-400\n4e-320\n";
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err;
	double		v;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "\"%s\"\n", refused[i]);
	write_csv(path, sizeof(path), text);
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, names, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_number(&r, &cols, 0, &v, &err), GA_OK);
	CHECK_NEAR(v, 1000, 0);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_number(&r, &cols, 0, &v, &err), GA_OK);
	CHECK_NEAR(v, -0.25, 0);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_number(&r, &cols, 0, &v, &err), GA_OK);
	CHECK_NEAR(v, 7, 0);
	/* too small for a normal double: 0, not an error */
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_number(&r, &cols, 0, &v, &err), GA_OK);
	CHECK_NEAR(v, 0, 0);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_number(&r, &cols, 0, &v, &err), GA_OK);
	CHECK_NEAR(v, 0, 0);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
	{
		CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
		CHECK_INT_EQ(ga_csv_number(&r, &cols, 0, &v, &err), GA_EINVAL);
		CHECK_STR_CONTAINS(err.message, "is not a finite number");
		CHECK_STR_CONTAINS(err.message, refused[i]);
	}
	ga_csv_close(&r);
	unlink(path);
}

/*
 * A whole number too large is refused as out of range, the rule it
 * breaks, not as "not a whole number"; caps read any whole number, one
 * beyond 1e9 as 1e9.
 */
TEST(csv_number_range_errors_name_the_rule)
{
	static const char *const names[] = {"n"};
	char		path[64];
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err;
	int			i;

	write_csv(path, sizeof(path), "n\n2e9\n-5e12\n2.5e9\n");
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, names, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_int(&r, &cols, 0, &i, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "line 2, column \"n\": \"2e9\" is out of range: whole numbers lie between -1e9 and 1e9");
	CHECK_INT_EQ(ga_csv_int_saturated(&r, &cols, 0, &i, &err), GA_OK);
	CHECK_INT_EQ(i, 1000000000);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_int_saturated(&r, &cols, 0, &i, &err), GA_OK);
	CHECK_INT_EQ(i, -1000000000);
	CHECK_INT_EQ(ga_csv_next(&r, &err), 1);
	CHECK_INT_EQ(ga_csv_int(&r, &cols, 0, &i, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "out of range");
	ga_csv_close(&r);
	unlink(path);
}

/*
 * A file is read whole whatever its size, and a directory where a file was
 * expected is refused by name (it reports a size of its own, not its bytes).
 */
TEST(csv_reads_large_files_and_refuses_directories)
{
	static const char *const names[] = {"n"};
	char		path[64];
	char		dir[64] = "/tmp/gpualloc-csv-dir-XXXXXX";
	size_t		rows = 100000;
	char	   *text = malloc(rows * 8 + 8);
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err;
	double		v = 0;
	size_t		n = 0;

	CHECK(text != NULL);
	if (text == NULL)
		return;
	strcpy(text, "n\n");
	for (size_t i = 0; i < rows; i++)
		snprintf(text + strlen(text), 8, "%zu\n", i % 100000);
	write_csv(path, sizeof(path), text);
	free(text);
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_csv_header(&r, &cols, names, 1, &err), GA_OK);
	while (ga_csv_next(&r, &err) == 1 && ga_csv_number(&r, &cols, 0, &v, &err) == GA_OK)
		n++;
	CHECK_INT_EQ((long) n, (long) rows);
	CHECK_NEAR(v, 99999, 0);
	ga_csv_close(&r);
	unlink(path);

	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT_EQ(ga_csv_open(&r, NULL, dir, false, NULL, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, dir);
	CHECK_STR_CONTAINS(err.message, "cannot read");
	ga_csv_close(&r);
	rmdir(dir);
}

/*
 * A NUL byte is refused with its line: it would end its field, dropping the
 * rest unseen, and a file saved as UTF-16 has one in every other byte.
 */
TEST(csv_refuses_a_nul_byte)
{
	static const char text[] = "n\n1\n5\0" "7\n";
	char		path[64] = "/tmp/gpualloc-csv-XXXXXX";
	int			fd = mkstemp(path);
	ga_csv_reader r;
	ga_error	err;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_INT_EQ((long) write(fd, text, sizeof(text) - 1), (long) (sizeof(text) - 1));
	close(fd);
	CHECK_INT_EQ(ga_csv_open(&r, NULL, path, false, NULL, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, ": line 3: holds a NUL byte");
	ga_csv_close(&r);
	unlink(path);
}
