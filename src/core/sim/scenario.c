/*
 * scenario.c — reading the scenario format (docs/model.md, Scenario format).
 *
 * Each file is read whole, split into rows by a small CSV reader (quoted
 * fields with "" escapes, CRLF or LF), and its header mapped to column
 * positions by name, so column order is free and extra columns are ignored.
 */
#include "sim/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 64

typedef struct csv_reader
{
	char		path[1024];
	char	   *data;
	size_t		len;
	size_t		pos;
	int			line;			/* line of the row last returned */
	int			next_line;
	int			n;				/* fields in the current row */
	char	   *field[MAX_FIELDS];
} csv_reader;

/* Column lookup: the header's positions of the names a reader needs. */
typedef struct csv_columns
{
	int			n;
	const char *const *names;
	int			pos[MAX_FIELDS];
} csv_columns;

static ga_status
csv_open(csv_reader *r, const char *dir, const char *name, bool optional,
		 bool *missing, ga_error *err)
{
	FILE	   *f;
	long		size;

	memset(r, 0, sizeof(*r));
	r->next_line = 1;
	snprintf(r->path, sizeof(r->path), "%s/%s", dir, name);
	if (missing)
		*missing = false;
	f = fopen(r->path, "rb");
	if (f == NULL)
	{
		if (optional && errno == ENOENT)
		{
			*missing = true;
			return GA_OK;
		}
		return ga_error_set(err, GA_EINVAL, "%s: cannot open: %s", r->path, strerror(errno));
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
	{
		fclose(f);
		return ga_error_set(err, GA_EINVAL, "%s: cannot read", r->path);
	}
	r->data = malloc((size_t) size + 1);
	if (r->data == NULL)
	{
		fclose(f);
		return ga_error_set(err, GA_ENOMEM, "%s: out of memory", r->path);
	}
	if (fread(r->data, 1, (size_t) size, f) != (size_t) size)
	{
		fclose(f);
		free(r->data);
		r->data = NULL;
		return ga_error_set(err, GA_EINVAL, "%s: cannot read", r->path);
	}
	fclose(f);
	r->data[size] = '\0';
	r->len = (size_t) size;
	return GA_OK;
}

static void
csv_close(csv_reader *r)
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
 * Next non-blank row: 1, 0 at the end of the file, -1 on a malformed row.
 * Fields are unquoted in place, so they point into r->data.
 */
static int
csv_next(csv_reader *r, ga_error *err)
{
	for (;;)
	{
		char	   *out;
		bool		blank = true;

		if (r->pos >= r->len)
			return 0;
		r->line = r->next_line;
		r->n = 0;
		out = r->data + r->pos;
		r->field[r->n++] = out;
		while (r->pos < r->len)
		{
			char		c = r->data[r->pos];

			if (c == '"')
			{
				r->pos++;
				for (;;)
				{
					if (r->pos >= r->len)
					{
						ga_error_set(err, GA_EINVAL, "%s: line %d: unterminated quoted field",
									 r->path, r->line);
						return -1;
					}
					c = r->data[r->pos++];
					if (c == '\n')
						r->next_line++;
					if (c == '"' && r->pos < r->len && r->data[r->pos] == '"')
						r->pos++;
					else if (c == '"')
						break;
					*out++ = c;
				}
				blank = false;
				continue;
			}
			r->pos++;
			if (c == '\n')
			{
				r->next_line++;
				break;
			}
			if (c == '\r')
				continue;
			if (c == ',')
			{
				*out++ = '\0';
				if (r->n >= MAX_FIELDS)
				{
					ga_error_set(err, GA_EINVAL, "%s: line %d: more than %d fields",
								 r->path, r->line, MAX_FIELDS);
					return -1;
				}
				r->field[r->n++] = out;
				blank = false;
				continue;
			}
			if (!isspace((unsigned char) c))
				blank = false;
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

/* Read the header row and find every wanted column (all required). */
static ga_status
csv_header(csv_reader *r, csv_columns *cols, const char *const *names, int n,
		   ga_error *err)
{
	int			rc = csv_next(r, err);

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
		if (cols->pos[c] < 0)
			return ga_error_set(err, GA_EINVAL, "%s: line %d: missing column \"%s\"",
								r->path, r->line, names[c]);
	}
	return GA_OK;
}

/* Field c of the current row ("" when the row is short). */
static const char *
col(const csv_reader *r, const csv_columns *cols, int c)
{
	int			i = cols->pos[c];

	return i < r->n ? r->field[i] : "";
}

/* An error at the current row and column c, with the rule broken. */
static ga_status
field_error(const csv_reader *r, const csv_columns *cols, int c, ga_error *err,
			const char *rule)
{
	return ga_error_set(err, GA_EINVAL, "%s: line %d, column \"%s\": \"%s\" %s",
						r->path, r->line, cols->names[c], col(r, cols, c), rule);
}

static ga_status
get_number(const csv_reader *r, const csv_columns *cols, int c, double *out,
		   ga_error *err)
{
	const char *s = col(r, cols, c);
	char	   *end;
	double		v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !isfinite(v))
		return field_error(r, cols, c, err, "is not a finite number");
	*out = v;
	return GA_OK;
}

static ga_status
get_int(const csv_reader *r, const csv_columns *cols, int c, int *out,
		ga_error *err)
{
	double		v;

	if (get_number(r, cols, c, &v, err) != GA_OK)
		return GA_EINVAL;
	if (v != floor(v) || fabs(v) > 1e9)
		return field_error(r, cols, c, err, "is not a whole number");
	*out = (int) v;
	return GA_OK;
}

static ga_status
get_name(const csv_reader *r, const csv_columns *cols, int c, char *out,
		 size_t size, ga_error *err)
{
	const char *s = col(r, cols, c);

	if (*s == '\0')
		return field_error(r, cols, c, err, "must not be empty");
	if (strlen(s) >= size)
		return field_error(r, cols, c, err, "is too long");
	snprintf(out, size, "%s", s);
	return GA_OK;
}

/* Days since 1970-01-01 of a civil date (proleptic Gregorian). */
static int64_t
civil_days(int y, int m, int d)
{
	int64_t		era;
	int			yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (int) (y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The civil date of a day count; the inverse of civil_days. */
static void
civil_date(int64_t days, int *y, int *m, int *d)
{
	int64_t		z = days + 719468;
	int64_t		era = (z >= 0 ? z : z - 146096) / 146097;
	int			doe = (int) (z - era * 146097);
	int			yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int			doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int			mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int) (yoe + era * 400) + (*m <= 2);
}

void
ga_format_minutes(int64_t minutes, char *buf, size_t len)
{
	int64_t		days = minutes >= 0 ? minutes / 1440 : -((-minutes + 1439) / 1440);
	int			rem = (int) (minutes - days * 1440);
	int			y,
				m,
				d;

	civil_date(days, &y, &m, &d);
	snprintf(buf, len, "%04d-%02d-%02d %02d:%02d", y, m, d, rem / 60, rem % 60);
}

static bool
digits(const char **s, int n, int *out)
{
	int			v = 0;

	for (int i = 0; i < n; i++)
	{
		if (!isdigit((unsigned char) (*s)[i]))
			return false;
		v = v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	*out = v;
	return true;
}

ga_status
ga_parse_minutes(const char *text, int64_t *minutes, ga_error *err)
{
	const char *s = text;
	int			y,
				mo,
				d,
				h,
				mi,
				sec = 0;
	bool		ok;

	ok = digits(&s, 4, &y) && *s++ == '-' && digits(&s, 2, &mo) && *s++ == '-' &&
		digits(&s, 2, &d) && (*s == ' ' || *s == 'T') && s++ &&
		digits(&s, 2, &h) && *s++ == ':' && digits(&s, 2, &mi);
	if (ok && *s == ':')
	{
		s++;
		ok = digits(&s, 2, &sec);
	}
	if (ok && (*s == 'Z' || *s == 'z'))
		s++;
	if (!ok || *s != '\0' || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
		h > 23 || mi > 59 || sec != 0)
		return ga_error_set(err, GA_EINVAL, "must be a UTC time YYYY-MM-DD HH:MM");
	*minutes = (civil_days(y, mo, d) * 24 + h) * 60 + mi;
	return GA_OK;
}

static ga_status
get_time(const csv_reader *r, const csv_columns *cols, int c, int64_t *out,
		 ga_error *err)
{
	if (ga_parse_minutes(col(r, cols, c), out, NULL) != GA_OK)
		return field_error(r, cols, c, err, "must be a UTC time YYYY-MM-DD HH:MM");
	return GA_OK;
}

static int
find_pool(const ga_scenario *scn, const char *name)
{
	for (int i = 0; i < scn->n_pools; i++)
		if (strcmp(scn->pools[i].name, name) == 0)
			return i;
	return -1;
}

static ga_status
get_pool(const csv_reader *r, const csv_columns *cols, int c,
		 const ga_scenario *scn, int *out, ga_error *err)
{
	*out = find_pool(scn, col(r, cols, c));
	if (*out < 0)
		return field_error(r, cols, c, err, "is not a pool of gpus.csv");
	return GA_OK;
}

/* Grow an array of elements of size sz to hold n + 1. */
static void *
grow(void *arr, int n, int *cap, size_t sz)
{
	void	   *p;
	int			nc;

	if (n < *cap)
		return arr;
	nc = *cap > 0 ? *cap * 2 : 16;
	p = realloc(arr, (size_t) nc * sz);
	if (p == NULL)
		return NULL;
	memset((char *) p + (size_t) *cap * sz, 0, (size_t) (nc - *cap) * sz);
	*cap = nc;
	return p;
}

/* ---- scenario.csv ---- */

static ga_status
set_setting(ga_scenario *scn, const csv_reader *r, const csv_columns *cols,
			bool *have_start, bool *have_end, ga_error *err)
{
	const char *key = col(r, cols, 0);
	double		v;

	if (strcmp(key, "name") == 0)
		snprintf(scn->name, sizeof(scn->name), "%s", col(r, cols, 1));
	else if (strcmp(key, "description") == 0)
		snprintf(scn->description, sizeof(scn->description), "%s", col(r, cols, 1));
	else if (strcmp(key, "start") == 0 || strcmp(key, "end") == 0)
	{
		bool		is_start = key[0] == 's';

		if (get_time(r, cols, 1, is_start ? &scn->start : &scn->end, err) != GA_OK)
			return GA_EINVAL;
		*(is_start ? have_start : have_end) = true;
	}
	else if (strcmp(key, "step_minutes") == 0 || strcmp(key, "horizon_hours") == 0 ||
			 strcmp(key, "replan_minutes") == 0)
	{
		int			iv;

		if (get_int(r, cols, 1, &iv, err) != GA_OK)
			return GA_EINVAL;
		if (iv < 1)
			return field_error(r, cols, 1, err, "must be at least 1");
		if (key[0] == 's')
			scn->step_minutes = iv;
		else if (key[0] == 'h')
			scn->horizon_hours = iv;
		else
			scn->replan_minutes = iv;
	}
	else if (strcmp(key, "penalty") == 0 || strcmp(key, "half_life_hours") == 0)
	{
		if (get_number(r, cols, 1, &v, err) != GA_OK)
			return GA_EINVAL;
		if (key[0] == 'p' ? v < 0 : v <= 0)
			return field_error(r, cols, 1, err, key[0] == 'p' ? "must not be negative" : "must be positive");
		if (key[0] == 'p')
			scn->penalty = v;
		else
			scn->half_life_hours = v;
	}
	return GA_OK;
}

static ga_status
read_settings(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"key", "value"};
	csv_reader	r;
	csv_columns cols;
	bool		have_start = false,
				have_end = false;
	ga_status	rc;
	int			row;

	scn->step_minutes = 30;
	scn->horizon_hours = 24;
	scn->replan_minutes = 30;
	scn->penalty = 8;
	scn->half_life_hours = 12;
	if ((rc = csv_open(&r, dir, "scenario.csv", false, NULL, err)) != GA_OK)
		return rc;
	rc = csv_header(&r, &cols, names, 2, err);
	while (rc == GA_OK && (row = csv_next(&r, err)) > 0)
		rc = set_setting(scn, &r, &cols, &have_start, &have_end, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	if (rc == GA_OK && (!have_start || !have_end))
		rc = ga_error_set(err, GA_EINVAL, "%s: key \"%s\" is required", r.path,
						  have_start ? "end" : "start");
	if (rc == GA_OK && scn->end - scn->start < scn->step_minutes)
		rc = ga_error_set(err, GA_EINVAL, "%s: the window from start to end must hold at least one step",
						  r.path);
	if (rc == GA_OK && (int64_t) scn->horizon_hours * 60 < scn->step_minutes)
		rc = ga_error_set(err, GA_EINVAL, "%s: horizon_hours must cover at least one step", r.path);
	csv_close(&r);
	return rc;
}

/* ---- gpus.csv ---- */

static ga_status
add_node(ga_scenario *scn, const csv_reader *r, const csv_columns *cols,
		 int *cap, ga_error *err)
{
	int			gpus;
	int			p;
	char		name[GA_NAME_LEN];

	if (get_name(r, cols, 0, name, sizeof(name), err) != GA_OK ||
		get_int(r, cols, 2, &gpus, err) != GA_OK)
		return GA_EINVAL;
	if (gpus < 1)
		return field_error(r, cols, 2, err, "must be at least 1");
	p = find_pool(scn, name);
	if (p >= 0 && p != scn->n_pools - 1)
		return field_error(r, cols, 0, err, "appears again after another pool: a pool's nodes must be consecutive in topology order");
	if (p < 0)
	{
		ga_pool    *pools = grow(scn->pools, scn->n_pools, cap, sizeof(ga_pool));

		if (pools == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory");
		scn->pools = pools;
		p = scn->n_pools++;
		snprintf(scn->pools[p].name, GA_NAME_LEN, "%s", name);
		scn->pools[p].first_gpu = scn->n_gpus;
		scn->pools[p].n_gpus = 0;
	}
	scn->pools[p].n_gpus += gpus;
	scn->n_gpus += gpus;
	return GA_OK;
}

static ga_status
read_gpus(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"pool", "node", "gpus"};
	csv_reader	r;
	csv_columns cols;
	ga_status	rc;
	int			row = 0,
				cap = 0;

	if ((rc = csv_open(&r, dir, "gpus.csv", false, NULL, err)) != GA_OK)
		return rc;
	rc = csv_header(&r, &cols, names, 3, err);
	while (rc == GA_OK && (row = csv_next(&r, err)) > 0)
		rc = add_node(scn, &r, &cols, &cap, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	if (rc == GA_OK && scn->n_gpus == 0)
		rc = ga_error_set(err, GA_EINVAL, "%s: no GPUs listed", r.path);
	csv_close(&r);
	return rc;
}

/* ---- services.csv ---- */

static int
find_service(const ga_scenario *scn, const char *name)
{
	for (int i = 0; i < scn->n_services; i++)
		if (strcmp(scn->services[i].name, name) == 0)
			return i;
	return -1;
}

static ga_status
add_service(ga_scenario *scn, const csv_reader *r, const csv_columns *cols,
			int *cap, ga_error *err)
{
	ga_scn_service *svcs = grow(scn->services, scn->n_services, cap, sizeof(ga_scn_service));
	ga_scn_service *s;
	int			pool_size;

	if (svcs == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	scn->services = svcs;
	s = &svcs[scn->n_services];
	memset(s, 0, sizeof(*s));
	if (get_name(r, cols, 0, s->name, sizeof(s->name), err) != GA_OK ||
		get_pool(r, cols, 1, scn, &s->pool, err) != GA_OK ||
		get_number(r, cols, 2, &s->priority, err) != GA_OK ||
		get_number(r, cols, 3, &s->capacity_per_gpu, err) != GA_OK ||
		get_int(r, cols, 4, &s->churn_limit, err) != GA_OK ||
		get_int(r, cols, 5, &s->min_gpus, err) != GA_OK ||
		get_int(r, cols, 6, &s->max_gpus, err) != GA_OK)
		return GA_EINVAL;
	if (find_service(scn, s->name) >= 0)
		return field_error(r, cols, 0, err, "is listed twice");
	if (s->priority <= 0)
		return field_error(r, cols, 2, err, "must be positive");
	if (s->capacity_per_gpu <= 0)
		return field_error(r, cols, 3, err, "must be positive");
	if (s->churn_limit < 0)
		return field_error(r, cols, 4, err, "must not be negative (0 = no limit)");
	if (s->min_gpus < 0)
		return field_error(r, cols, 5, err, "must not be negative");
	if (s->max_gpus < s->min_gpus || s->max_gpus < 1)
		return field_error(r, cols, 6, err, "must be at least 1 and at least min_gpus");
	pool_size = scn->pools[s->pool].n_gpus;
	if (s->churn_limit == 0 || s->churn_limit > pool_size)
		s->churn_limit = pool_size;
	if (s->max_gpus > pool_size)
		s->max_gpus = pool_size;
	if (s->min_gpus > s->max_gpus)
		s->min_gpus = s->max_gpus;
	scn->n_services++;
	return GA_OK;
}

static ga_status
read_services(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"service", "pool", "priority", "capacity_per_gpu",
	"churn_limit", "min_gpus", "max_gpus"};
	csv_reader	r;
	csv_columns cols;
	ga_status	rc;
	int			row = 0,
				cap = 0;

	if ((rc = csv_open(&r, dir, "services.csv", false, NULL, err)) != GA_OK)
		return rc;
	rc = csv_header(&r, &cols, names, 7, err);
	while (rc == GA_OK && (row = csv_next(&r, err)) > 0)
		rc = add_service(scn, &r, &cols, &cap, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	csv_close(&r);
	return rc;
}

/* ---- demand.csv ---- */

static ga_status
add_demand(ga_scenario *scn, const csv_reader *r, const csv_columns *cols,
		   int *caps, ga_error *err)
{
	int			s = find_service(scn, col(r, cols, 0));
	int64_t		minutes;
	double		traffic;
	ga_scn_service *svc;

	if (s < 0)
		return field_error(r, cols, 0, err, "is not a service of services.csv");
	if (get_time(r, cols, 1, &minutes, err) != GA_OK ||
		get_number(r, cols, 2, &traffic, err) != GA_OK)
		return GA_EINVAL;
	if (minutes % 60 != 0)
		return field_error(r, cols, 1, err, "must be a whole hour (traffic is hourly)");
	if (traffic < 0)
		return field_error(r, cols, 2, err, "must not be negative");
	svc = &scn->services[s];
	if (svc->n_demand > 0 && svc->demand_hour[svc->n_demand - 1] >= minutes / 60)
		return field_error(r, cols, 1, err, "is not after the service's previous row (rows must be in time order, one per hour)");
	if (svc->n_demand >= caps[s])
	{
		int			nc = caps[s] > 0 ? caps[s] * 2 : 256;
		int64_t    *h = realloc(svc->demand_hour, sizeof(int64_t) * nc);

		if (h == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory");
		svc->demand_hour = h;
		double	   *t = realloc(svc->traffic, sizeof(double) * nc);

		if (t == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory");
		svc->traffic = t;
		caps[s] = nc;
	}
	svc->demand_hour[svc->n_demand] = minutes / 60;
	svc->traffic[svc->n_demand] = traffic;
	svc->n_demand++;
	return GA_OK;
}

static ga_status
read_demand(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"service", "ts", "traffic"};
	csv_reader	r;
	csv_columns cols;
	ga_status	rc;
	int			row = 0;
	int		   *caps = calloc(scn->n_services + 1, sizeof(int));

	if (caps == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	if ((rc = csv_open(&r, dir, "demand.csv", false, NULL, err)) != GA_OK)
	{
		free(caps);
		return rc;
	}
	rc = csv_header(&r, &cols, names, 3, err);
	while (rc == GA_OK && (row = csv_next(&r, err)) > 0)
		rc = add_demand(scn, &r, &cols, caps, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	free(caps);
	csv_close(&r);
	return rc;
}

/* ---- jobs.csv and history.csv ---- */

static ga_status
get_features(const csv_reader *r, const csv_columns *cols, int c,
			 ga_feature_list **out, ga_error *err)
{
	ga_error	ferr;

	*out = ga_feature_list_parse(col(r, cols, c), &ferr);
	if (*out == NULL)
		return ga_error_set(err, ferr.code, "%s: line %d, column \"%s\": %s",
							r->path, r->line, cols->names[c], ferr.message);
	return GA_OK;
}

static ga_status
add_job(ga_scenario *scn, const csv_reader *r, const csv_columns *cols,
		int *cap, ga_error *err)
{
	ga_scn_job *jobs = grow(scn->jobs, scn->n_jobs, cap, sizeof(ga_scn_job));
	ga_scn_job *j;

	if (jobs == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	scn->jobs = jobs;
	j = &jobs[scn->n_jobs];
	memset(j, 0, sizeof(*j));
	j->line = r->line;
	if (get_name(r, cols, 0, j->name, sizeof(j->name), err) != GA_OK ||
		get_name(r, cols, 1, j->kind, sizeof(j->kind), err) != GA_OK ||
		get_pool(r, cols, 2, scn, &j->pool, err) != GA_OK ||
		get_number(r, cols, 3, &j->priority, err) != GA_OK ||
		get_time(r, cols, 4, &j->submit, err) != GA_OK ||
		get_int(r, cols, 5, &j->gpus_min, err) != GA_OK ||
		get_int(r, cols, 6, &j->gpus_max, err) != GA_OK ||
		get_number(r, cols, 7, &j->work_gpu_hours, err) != GA_OK)
		return GA_EINVAL;
	if (j->priority <= 0)
		return field_error(r, cols, 3, err, "must be positive");
	if (!ga_is_pow2(j->gpus_min))
		return field_error(r, cols, 5, err, "must be a power of two");
	if (!ga_is_pow2(j->gpus_max) || j->gpus_max < j->gpus_min)
		return field_error(r, cols, 6, err, "must be a power of two and at least gpus_min");
	if (j->work_gpu_hours <= 0)
		return field_error(r, cols, 7, err, "must be positive");
	if (get_features(r, cols, 8, &j->features, err) != GA_OK)
		return GA_EINVAL;
	scn->n_jobs++;
	return GA_OK;
}

static int
job_arrival_cmp(const void *a, const void *b)
{
	const ga_scn_job *x = a,
			   *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->line - y->line;
}

static ga_status
read_jobs(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"job", "kind", "pool", "priority", "submit",
	"gpus_min", "gpus_max", "work_gpu_hours", "features"};
	csv_reader	r;
	csv_columns cols;
	ga_status	rc;
	int			row = 0,
				cap = 0;

	if ((rc = csv_open(&r, dir, "jobs.csv", false, NULL, err)) != GA_OK)
		return rc;
	rc = csv_header(&r, &cols, names, 9, err);
	while (rc == GA_OK && (row = csv_next(&r, err)) > 0)
		rc = add_job(scn, &r, &cols, &cap, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	csv_close(&r);
	if (rc == GA_OK && scn->n_jobs > 1)
		qsort(scn->jobs, scn->n_jobs, sizeof(ga_scn_job), job_arrival_cmp);
	return rc;
}

static ga_status
add_history(ga_scenario *scn, const csv_reader *r, const csv_columns *cols,
			int *cap, ga_error *err)
{
	ga_scn_history *hist = grow(scn->history, scn->n_history, cap, sizeof(ga_scn_history));
	ga_scn_history *h;

	if (hist == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	scn->history = hist;
	h = &hist[scn->n_history];
	memset(h, 0, sizeof(*h));
	h->line = r->line;
	if (get_name(r, cols, 0, h->kind, sizeof(h->kind), err) != GA_OK ||
		get_int(r, cols, 1, &h->gpus, err) != GA_OK ||
		get_number(r, cols, 3, &h->actual_hours, err) != GA_OK)
		return GA_EINVAL;
	if (h->gpus < 1)
		return field_error(r, cols, 1, err, "must be at least 1");
	if (h->actual_hours <= 0)
		return field_error(r, cols, 3, err, "must be positive");
	if (get_features(r, cols, 2, &h->features, err) != GA_OK)
		return GA_EINVAL;
	scn->n_history++;
	return GA_OK;
}

static ga_status
read_history(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"kind", "gpus", "features", "actual_hours"};
	csv_reader	r;
	csv_columns cols;
	ga_status	rc;
	bool		missing;
	int			row = 0,
				cap = 0;

	if ((rc = csv_open(&r, dir, "history.csv", true, &missing, err)) != GA_OK)
		return rc;
	if (missing)
		return GA_OK;
	rc = csv_header(&r, &cols, names, 4, err);
	while (rc == GA_OK && (row = csv_next(&r, err)) > 0)
		rc = add_history(scn, &r, &cols, &cap, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	csv_close(&r);
	return rc;
}

ga_scenario *
ga_scenario_read(const char *dir, ga_error *err)
{
	ga_scenario *scn = calloc(1, sizeof(*scn));
	ga_status	rc;

	if (scn == NULL)
	{
		ga_error_set(err, GA_ENOMEM, "out of memory");
		return NULL;
	}
	rc = read_settings(scn, dir, err);
	if (rc == GA_OK)
		rc = read_gpus(scn, dir, err);
	if (rc == GA_OK)
		rc = read_services(scn, dir, err);
	if (rc == GA_OK)
		rc = read_demand(scn, dir, err);
	if (rc == GA_OK)
		rc = read_jobs(scn, dir, err);
	if (rc == GA_OK)
		rc = read_history(scn, dir, err);
	if (rc != GA_OK)
	{
		ga_scenario_destroy(scn);
		return NULL;
	}
	if (scn->name[0] == '\0')
	{
		const char *base = strrchr(dir, '/');

		snprintf(scn->name, sizeof(scn->name), "%s", base && base[1] ? base + 1 : dir);
	}
	return scn;
}

void
ga_scenario_destroy(ga_scenario *scn)
{
	if (scn == NULL)
		return;
	for (int s = 0; s < scn->n_services; s++)
	{
		free(scn->services[s].demand_hour);
		free(scn->services[s].traffic);
	}
	for (int j = 0; j < scn->n_jobs; j++)
		ga_feature_list_destroy(scn->jobs[j].features);
	for (int h = 0; h < scn->n_history; h++)
		ga_feature_list_destroy(scn->history[h].features);
	free(scn->pools);
	free(scn->services);
	free(scn->jobs);
	free(scn->history);
	free(scn);
}

int
ga_scenario_steps(const ga_scenario *scn)
{
	return (int) ((scn->end - scn->start) / scn->step_minutes);
}

/* Index of the latest demand row at or before hour, -1 when none. */
static int
row_at(const ga_scn_service *svc, int64_t hour)
{
	int			lo = 0,
				hi = svc->n_demand - 1,
				found = -1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;

		if (svc->demand_hour[mid] <= hour)
		{
			found = mid;
			lo = mid + 1;
		}
		else
			hi = mid - 1;
	}
	return found;
}

int
ga_scenario_true_demand(const ga_scenario *scn, int s, int64_t t)
{
	const ga_scn_service *svc = &scn->services[s];
	int64_t		first = t / 60;
	int64_t		last = (t + scn->step_minutes - 1) / 60;
	int			worst = 0;

	for (int64_t h = first; h <= last; h++)
	{
		int			i = row_at(svc, h);
		int			gpus;

		if (i < 0)
			continue;
		gpus = (int) ceil(svc->traffic[i] / svc->capacity_per_gpu - 1e-9);
		if (gpus > worst)
			worst = gpus;
	}
	return worst;
}
