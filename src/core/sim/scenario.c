/*
 * scenario.c — reading the scenario format (docs/model.md, Scenario format).
 *
 * Each file is read by the CSV reader of csv.h (quoted fields with ""
 * escapes, CRLF or LF), its header mapped to column positions by name, so
 * column order is free and extra columns are ignored; timestamps are
 * parsed by ga_parse_minutes (model/calendar.h).
 */
#include "sim/scenario.h"

#include "sim/csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
find_pool(const ga_scenario *scn, const char *name)
{
	for (int i = 0; i < scn->n_pools; i++)
		if (strcmp(scn->pools[i].name, name) == 0)
			return i;
	return -1;
}

static ga_status
get_pool(const ga_csv_reader *r, const ga_csv_columns *cols, int c,
		 const ga_scenario *scn, int *out, ga_error *err)
{
	*out = find_pool(scn, ga_csv_field(r, cols, c));
	if (*out < 0)
		return ga_csv_field_error(r, cols, c, err, "is not a pool of gpus.csv");
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

/*
 * src into dst of size bytes, cut where it does not fit before the UTF-8
 * character the cut would split: half a character is not text, and the
 * name goes into JSON and SVG output.
 */
static void
copy_cut(char *dst, size_t size, const char *src)
{
	size_t		n = strlen(src);

	if (n >= size)
	{
		n = size - 1;
		while (n > 0 && ((unsigned char) src[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static ga_status
set_setting(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
			bool *have_start, bool *have_end, ga_error *err)
{
	const char *key = ga_csv_field(r, cols, 0);
	double		v;

	if (strcmp(key, "name") == 0)
		copy_cut(scn->name, sizeof(scn->name), ga_csv_field(r, cols, 1));
	else if (strcmp(key, "description") == 0)
		copy_cut(scn->description, sizeof(scn->description), ga_csv_field(r, cols, 1));
	else if (strcmp(key, "start") == 0 || strcmp(key, "end") == 0)
	{
		bool		is_start = key[0] == 's';

		if (ga_csv_minutes(r, cols, 1, is_start ? &scn->start : &scn->end, err) != GA_OK)
			return GA_EINVAL;
		*(is_start ? have_start : have_end) = true;
	}
	else if (strcmp(key, "step_minutes") == 0 || strcmp(key, "horizon_hours") == 0 ||
			 strcmp(key, "replan_minutes") == 0)
	{
		int			iv;

		if (ga_csv_int(r, cols, 1, &iv, err) != GA_OK)
			return GA_EINVAL;
		if (iv < 1)
			return ga_csv_field_error(r, cols, 1, err, "must be at least 1");
		if (key[0] == 'h' && iv > GA_SCN_MAX_HORIZON_HOURS)
		{
			char		rule[64];

			snprintf(rule, sizeof(rule), "must be at most %d (a leap year)", GA_SCN_MAX_HORIZON_HOURS);
			return ga_csv_field_error(r, cols, 1, err, rule);
		}
		if (key[0] == 's')
			scn->step_minutes = iv;
		else if (key[0] == 'h')
			scn->horizon_hours = iv;
		else
			scn->replan_minutes = iv;
	}
	else if (strcmp(key, "penalty") == 0 || strcmp(key, "half_life_hours") == 0)
	{
		if (ga_csv_number(r, cols, 1, &v, err) != GA_OK)
			return GA_EINVAL;
		if (key[0] == 'p' ? v < 0 : v <= 0)
			return ga_csv_field_error(r, cols, 1, err, key[0] == 'p' ? "must not be negative" : "must be positive");
		if (v > GA_SCN_MAX_WEIGHT)
			return ga_csv_field_error(r, cols, 1, err, "must be at most 1e6");
		if (key[0] == 'p')
			scn->penalty = v;
		else
			scn->half_life_hours = v;
	}
	return GA_OK;
}

/* Steps of a plan's horizon, a partial last step counted (as the simulator plans). */
static int64_t
horizon_steps(const ga_scenario *scn)
{
	return ((int64_t) scn->horizon_hours * 60 + scn->step_minutes - 1) / scn->step_minutes;
}

static ga_status
read_settings(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"key", "value"};
	ga_csv_reader r;
	ga_csv_columns cols;
	bool		have_start = false,
				have_end = false;
	ga_status	rc;
	int			row;

	scn->step_minutes = 30;
	scn->horizon_hours = 24;
	scn->replan_minutes = 30;
	scn->penalty = 8;
	scn->half_life_hours = 12;
	if ((rc = ga_csv_open(&r, dir, "scenario.csv", false, NULL, err)) != GA_OK)
		return rc;
	rc = ga_csv_header(&r, &cols, names, 2, err);
	while (rc == GA_OK && (row = ga_csv_next(&r, err)) > 0)
		rc = set_setting(scn, &r, &cols, &have_start, &have_end, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	if (rc == GA_OK && (!have_start || !have_end))
		rc = ga_error_set(err, GA_EINVAL, "%s: key \"%s\" is required", r.path,
						  have_start ? "end" : "start");
	if (rc == GA_OK && scn->end - scn->start < scn->step_minutes)
		rc = ga_error_set(err, GA_EINVAL, "%s: the window from start to end must hold at least one step",
						  r.path);
	if (rc == GA_OK && (scn->end - scn->start) / scn->step_minutes > GA_SCN_MAX_STEPS)
		rc = ga_error_set(err, GA_EINVAL, "%s: the window from start to end must hold at most %d steps",
						  r.path, GA_SCN_MAX_STEPS);
	if (rc == GA_OK && (int64_t) scn->horizon_hours * 60 < scn->step_minutes)
		rc = ga_error_set(err, GA_EINVAL, "%s: horizon_hours must cover at least one step", r.path);
	if (rc == GA_OK && horizon_steps(scn) > GA_MAX_STEPS)
		rc = ga_error_set(err, GA_EINVAL,
						  "%s: horizon_hours %d at step_minutes %d makes %lld steps a plan; a plan holds at most %d",
						  r.path, scn->horizon_hours, scn->step_minutes, (long long) horizon_steps(scn),
						  GA_MAX_STEPS);
	ga_csv_close(&r);
	return rc;
}

/* ---- gpus.csv ---- */

static ga_status
add_node(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
		 int *cap, ga_error *err)
{
	int			gpus;
	int			p;
	char		name[GA_NAME_LEN];

	if (ga_csv_name(r, cols, 0, name, sizeof(name), err) != GA_OK ||
		ga_csv_int(r, cols, 2, &gpus, err) != GA_OK)
		return GA_EINVAL;
	if (gpus < 1)
		return ga_csv_field_error(r, cols, 2, err, "must be at least 1");
	if (gpus > GA_SCN_MAX_GPUS - scn->n_gpus)
	{
		char		rule[64];

		snprintf(rule, sizeof(rule), "brings the GPUs listed to more than %d", GA_SCN_MAX_GPUS);
		return ga_csv_field_error(r, cols, 2, err, rule);
	}
	p = find_pool(scn, name);
	if (p >= 0 && p != scn->n_pools - 1)
		return ga_csv_field_error(r, cols, 0, err, "appears again after another pool: a pool's nodes must be consecutive in topology order");
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
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_status	rc;
	int			row = 0,
				cap = 0;

	if ((rc = ga_csv_open(&r, dir, "gpus.csv", false, NULL, err)) != GA_OK)
		return rc;
	rc = ga_csv_header(&r, &cols, names, 3, err);
	while (rc == GA_OK && (row = ga_csv_next(&r, err)) > 0)
		rc = add_node(scn, &r, &cols, &cap, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	if (rc == GA_OK && scn->n_gpus == 0)
		rc = ga_error_set(err, GA_EINVAL, "%s: no GPUs listed", r.path);
	ga_csv_close(&r);
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
add_service(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
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
	/* churn_limit and max_gpus are caps lowered to the pool: any size is read */
	if (ga_csv_name(r, cols, 0, s->name, sizeof(s->name), err) != GA_OK ||
		get_pool(r, cols, 1, scn, &s->pool, err) != GA_OK ||
		ga_csv_number(r, cols, 2, &s->priority, err) != GA_OK ||
		ga_csv_number(r, cols, 3, &s->capacity_per_gpu, err) != GA_OK ||
		ga_csv_int_saturated(r, cols, 4, &s->churn_limit, err) != GA_OK ||
		ga_csv_int(r, cols, 5, &s->min_gpus, err) != GA_OK ||
		ga_csv_int_saturated(r, cols, 6, &s->max_gpus, err) != GA_OK)
		return GA_EINVAL;
	if (find_service(scn, s->name) >= 0)
		return ga_csv_field_error(r, cols, 0, err, "is listed twice");
	if (s->priority <= 0 || s->priority > GA_SCN_MAX_WEIGHT)
		return ga_csv_field_error(r, cols, 2, err, "must be positive and at most 1e6");
	if (s->capacity_per_gpu <= 0)
		return ga_csv_field_error(r, cols, 3, err, "must be positive");
	if (s->churn_limit < 0)
		return ga_csv_field_error(r, cols, 4, err, "must not be negative (0 = no limit)");
	if (s->min_gpus < 0)
		return ga_csv_field_error(r, cols, 5, err, "must not be negative");
	if (s->max_gpus < s->min_gpus || s->max_gpus < 1)
		return ga_csv_field_error(r, cols, 6, err, "must be at least 1 and at least min_gpus");
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
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_status	rc;
	int			row = 0,
				cap = 0;

	if ((rc = ga_csv_open(&r, dir, "services.csv", false, NULL, err)) != GA_OK)
		return rc;
	rc = ga_csv_header(&r, &cols, names, 7, err);
	while (rc == GA_OK && (row = ga_csv_next(&r, err)) > 0)
		rc = add_service(scn, &r, &cols, &cap, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	ga_csv_close(&r);
	return rc;
}

/* ---- demand.csv ---- */

static ga_status
add_demand(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
		   int *caps, ga_error *err)
{
	int			s = find_service(scn, ga_csv_field(r, cols, 0));
	int64_t		minutes;
	double		traffic;
	ga_scn_service *svc;

	if (s < 0)
		return ga_csv_field_error(r, cols, 0, err, "is not a service of services.csv");
	if (ga_csv_minutes(r, cols, 1, &minutes, err) != GA_OK ||
		ga_csv_number(r, cols, 2, &traffic, err) != GA_OK)
		return GA_EINVAL;
	if (minutes % 60 != 0)
		return ga_csv_field_error(r, cols, 1, err, "must be a whole hour (traffic is hourly)");
	if (traffic < 0)
		return ga_csv_field_error(r, cols, 2, err, "must not be negative");
	svc = &scn->services[s];
	/* true demand is ceil(traffic / capacity_per_gpu) GPUs, an int */
	if (!(traffic / svc->capacity_per_gpu <= GA_SCN_MAX_GPUS))
	{
		char		rule[96];

		snprintf(rule, sizeof(rule), "needs more than %d GPUs at the service's capacity_per_gpu",
				 GA_SCN_MAX_GPUS);
		return ga_csv_field_error(r, cols, 2, err, rule);
	}
	if (svc->n_demand > 0 && svc->demand_hour[svc->n_demand - 1] >= minutes / 60)
		return ga_csv_field_error(r, cols, 1, err, "is not after the service's previous row (rows must be in time order, one per hour)");
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
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_status	rc;
	int			row = 0;
	int		   *caps = calloc(scn->n_services + 1, sizeof(int));

	if (caps == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	if ((rc = ga_csv_open(&r, dir, "demand.csv", false, NULL, err)) != GA_OK)
	{
		free(caps);
		return rc;
	}
	rc = ga_csv_header(&r, &cols, names, 3, err);
	while (rc == GA_OK && (row = ga_csv_next(&r, err)) > 0)
		rc = add_demand(scn, &r, &cols, caps, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	free(caps);
	ga_csv_close(&r);
	return rc;
}

/* ---- jobs.csv and history.csv ---- */

static ga_status
get_features(const ga_csv_reader *r, const ga_csv_columns *cols, int c,
			 ga_feature_list **out, ga_error *err)
{
	ga_error	ferr;

	*out = ga_feature_list_parse(ga_csv_field(r, cols, c), &ferr);
	if (*out == NULL)
		return ga_error_set(err, ferr.code, "%s: line %d, column \"%s\": %s",
							r->path, r->line, cols->names[c], ferr.message);
	return GA_OK;
}

/* Largest work factor of an alternative pool: a GPU model 1000 times slower. */
#define MAX_POOL_FACTOR 1000.0

#define ALT_POOLS_FORM "must be entries pool:factor separated by '|', e.g. a100:1.6|l4:3"

/* s without the spaces around it (cut in place), as list items are read. */
static char *
trim_spaces(char *s)
{
	char	   *end = s + strlen(s);

	while (*s == ' ')
		s++;
	while (end > s && end[-1] == ' ')
		*--end = '\0';
	return s;
}

/*
 * One entry "pool:factor" of alt_pools added to the job's alternatives
 * (spaces around the pool and the factor dropped); NULL, or the rule it
 * breaks.  The factor follows the last colon: a number holds none, a pool's
 * name may.
 */
static const char *
parse_alt_pool(const ga_scenario *scn, ga_scn_job *j, char *entry)
{
	char	   *colon = strrchr(entry, ':');
	char	   *number;
	char	   *end;
	int			q;
	double		factor;

	if (colon == NULL)
		return ALT_POOLS_FORM;
	*colon = '\0';
	q = find_pool(scn, trim_spaces(entry));
	if (q < 0)
		return "names a pool that is not in gpus.csv";
	if (ga_scn_job_factor(j, q) != 0)
		return "names the job's pool or one of its alternatives twice";
	number = trim_spaces(colon + 1);
	factor = strtod(number, &end);
	if (end == number || *end != '\0' || !ga_csv_decimal_chars(number) ||
		!isfinite(factor) || factor <= 0 || factor > MAX_POOL_FACTOR)
		return "has a factor that is not a number above 0 and at most 1000";
	if (j->n_alt_pools >= GA_MAX_JOB_POOLS - 1)
		return "names more than 3 alternative pools";
	j->alt_pool[j->n_alt_pools] = q;
	j->alt_factor[j->n_alt_pools++] = factor;
	return NULL;
}

/* alt_pools: "pool:factor|pool:factor", in preference order; empty = none. */
static ga_status
read_alt_pools(const ga_scenario *scn, const ga_csv_reader *r,
			   const ga_csv_columns *cols, ga_scn_job *j, ga_error *err)
{
	const char *text = ga_csv_field(r, cols, 12);
	char	   *copy;
	char	   *save = NULL;
	const char *rule = NULL;

	if (text[0] == '\0')
		return GA_OK;
	if ((copy = strdup(text)) == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	for (char *tok = strtok_r(copy, "|", &save); tok != NULL && rule == NULL;
		 tok = strtok_r(NULL, "|", &save))
		rule = parse_alt_pool(scn, j, tok);
	free(copy);
	if (rule == NULL && j->n_alt_pools == 0)
		rule = ALT_POOLS_FORM;
	return rule == NULL ? GA_OK : ga_csv_field_error(r, cols, 12, err, rule);
}

/*
 * The tenant named in column c: its index, added to the scenario's tenants
 * on first sight; -1 for an empty field when that is allowed (a job of no
 * tenant).
 */
static ga_status
get_tenant(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
		   int c, bool may_be_empty, int *out, ga_error *err)
{
	char		name[GA_NAME_LEN];
	char		(*names)[GA_NAME_LEN];

	*out = -1;
	if (may_be_empty && ga_csv_field(r, cols, c)[0] == '\0')
		return GA_OK;
	if (ga_csv_name(r, cols, c, name, sizeof(name), err) != GA_OK)
		return GA_EINVAL;
	for (int i = 0; i < scn->n_tenants; i++)
		if (strcmp(scn->tenants[i], name) == 0)
			return (*out = i), GA_OK;
	names = realloc(scn->tenants, sizeof(*names) * (scn->n_tenants + 1));
	if (names == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	scn->tenants = names;
	snprintf(names[scn->n_tenants], GA_NAME_LEN, "%s", name);
	*out = scn->n_tenants++;
	return GA_OK;
}

/*
 * The optional columns: after_ok and after_any kept as written until every
 * job is read (resolve_links), time_limit_hours and alt_pools checked now.
 */
static ga_status
read_job_extras(const ga_scenario *scn, const ga_csv_reader *r,
				const ga_csv_columns *cols, ga_scn_job *j, ga_error *err)
{
	for (int k = 0; k < 2; k++)
	{
		const char *text = ga_csv_field(r, cols, 9 + k);

		if (text[0] != '\0' && (j->after_text[k] = strdup(text)) == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory");
	}
	if (read_alt_pools(scn, r, cols, j, err) != GA_OK)
		return GA_EINVAL;
	if (ga_csv_field(r, cols, 11)[0] == '\0')
		return GA_OK;
	if (ga_csv_number(r, cols, 11, &j->time_limit_hours, err) != GA_OK)
		return GA_EINVAL;
	if (!(j->time_limit_hours > 0) || j->time_limit_hours > 8784)
		return ga_csv_field_error(r, cols, 11, err, "must be a positive number of hours, at most 8784 (366 days), or empty");
	return GA_OK;
}

static ga_status
add_job(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
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
	if (ga_csv_name(r, cols, 0, j->name, sizeof(j->name), err) != GA_OK ||
		ga_csv_name(r, cols, 1, j->kind, sizeof(j->kind), err) != GA_OK ||
		get_pool(r, cols, 2, scn, &j->pool, err) != GA_OK ||
		ga_csv_number(r, cols, 3, &j->priority, err) != GA_OK ||
		ga_csv_minutes(r, cols, 4, &j->submit, err) != GA_OK ||
		ga_csv_int(r, cols, 5, &j->gpus_min, err) != GA_OK ||
		ga_csv_int(r, cols, 6, &j->gpus_max, err) != GA_OK ||
		ga_csv_number(r, cols, 7, &j->work_gpu_hours, err) != GA_OK)
		return GA_EINVAL;
	if (j->priority <= 0 || j->priority > GA_SCN_MAX_WEIGHT)
		return ga_csv_field_error(r, cols, 3, err, "must be positive and at most 1e6");
	if (!ga_is_pow2(j->gpus_min))
		return ga_csv_field_error(r, cols, 5, err, "must be a power of two");
	if (!ga_is_pow2(j->gpus_max) || j->gpus_max < j->gpus_min)
		return ga_csv_field_error(r, cols, 6, err, "must be a power of two and at least gpus_min");
	if (j->work_gpu_hours <= 0)
		return ga_csv_field_error(r, cols, 7, err, "must be positive");
	if (get_features(r, cols, 8, &j->features, err) != GA_OK)
		return GA_EINVAL;
	scn->n_jobs++;				/* from here on destroy frees what it holds */
	if (get_tenant(scn, r, cols, 13, true, &j->tenant, err) != GA_OK)
		return GA_EINVAL;
	return read_job_extras(scn, r, cols, j, err);
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

/* The only job named `name` that arrives before job j, or -1 with err set. */
static int
earlier_job(const ga_scenario *scn, const char *path, int j, const char *column,
			const char *name, ga_error *err)
{
	int			found = -1;

	for (int i = 0; i < scn->n_jobs; i++)
		if (strcmp(scn->jobs[i].name, name) == 0)
		{
			if (found >= 0)
				return ga_error_set(err, GA_EINVAL,
									"%s: line %d, column \"%s\": job name \"%s\" is not unique",
									path, scn->jobs[j].line, column, name), -1;
			found = i;
		}
	if (found < 0)
		return ga_error_set(err, GA_EINVAL, "%s: line %d, column \"%s\": no job is named \"%s\"",
							path, scn->jobs[j].line, column, name), -1;
	if (found >= j)
		return ga_error_set(err, GA_EINVAL,
							"%s: line %d, column \"%s\": job \"%s\" does not arrive before this one (submit, then file order)",
							path, scn->jobs[j].line, column, name), -1;
	return found;
}

/* Job j's links from one column's ';'-separated names. */
static ga_status
resolve_column(ga_scenario *scn, const char *path, int j, int k, ga_error *err)
{
	static const char *const columns[] = {"after_ok", "after_any"};
	ga_scn_job *job = &scn->jobs[j];
	char	   *save = NULL;

	for (char *tok = strtok_r(job->after_text[k], ";", &save); tok != NULL;
		 tok = strtok_r(NULL, ";", &save))
	{
		int			i;

		tok = trim_spaces(tok);
		if (*tok == '\0')
			continue;
		if ((i = earlier_job(scn, path, j, columns[k], tok, err)) < 0)
			return GA_EINVAL;
		for (int a = 0; a < job->n_after; a++)
			if (job->after[a] == i)
				return ga_error_set(err, GA_EINVAL, "%s: line %d, column \"%s\": job \"%s\" is named twice",
									path, job->line, columns[k], tok);
		if (job->n_after == GA_MAX_PREDS)
			return ga_error_set(err, GA_EINVAL, "%s: line %d: after_ok and after_any name more than %d jobs",
								path, job->line, GA_MAX_PREDS);
		job->after[job->n_after] = i;
		job->after_ok[job->n_after++] = k == 0;
	}
	return GA_OK;
}

/* Names to indices, once the jobs are in arrival order; the texts are freed. */
static ga_status
resolve_links(ga_scenario *scn, const char *path, ga_error *err)
{
	ga_status	rc = GA_OK;

	for (int j = 0; j < scn->n_jobs; j++)
		for (int k = 0; k < 2; k++)
		{
			if (rc == GA_OK && scn->jobs[j].after_text[k] != NULL)
				rc = resolve_column(scn, path, j, k, err);
			free(scn->jobs[j].after_text[k]);
			scn->jobs[j].after_text[k] = NULL;
		}
	return rc;
}

static ga_status
read_jobs(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"job", "kind", "pool", "priority", "submit",
	"gpus_min", "gpus_max", "work_gpu_hours", "features",
	"after_ok", "after_any", "time_limit_hours", "alt_pools", "tenant"};
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_status	rc;
	int			row = 0,
				cap = 0;

	if ((rc = ga_csv_open(&r, dir, "jobs.csv", false, NULL, err)) != GA_OK)
		return rc;
	rc = ga_csv_header_optional(&r, &cols, names, 14, 9, err);
	while (rc == GA_OK && (row = ga_csv_next(&r, err)) > 0)
		rc = add_job(scn, &r, &cols, &cap, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	if (rc == GA_OK && scn->n_jobs > 1)
		qsort(scn->jobs, scn->n_jobs, sizeof(ga_scn_job), job_arrival_cmp);
	if (rc == GA_OK)
		rc = resolve_links(scn, r.path, err);
	ga_csv_close(&r);
	return rc;
}

static ga_status
add_history(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
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
	if (ga_csv_name(r, cols, 0, h->kind, sizeof(h->kind), err) != GA_OK ||
		ga_csv_int(r, cols, 1, &h->gpus, err) != GA_OK ||
		ga_csv_number(r, cols, 3, &h->actual_hours, err) != GA_OK)
		return GA_EINVAL;
	if (h->gpus < 1)
		return ga_csv_field_error(r, cols, 1, err, "must be at least 1");
	if (h->actual_hours <= 0)
		return ga_csv_field_error(r, cols, 3, err, "must be positive");
	if (get_features(r, cols, 2, &h->features, err) != GA_OK)
		return GA_EINVAL;
	scn->n_history++;
	return GA_OK;
}

/* Adds one row of an optional file to the scenario. */
typedef ga_status (*row_adder) (ga_scenario *scn, const ga_csv_reader *r,
								const ga_csv_columns *cols, int *cap, ga_error *err);

/* Read an optional file of the scenario row by row; a missing file adds nothing. */
static ga_status
read_optional_rows(ga_scenario *scn, const char *dir, const char *file,
				   const char *const *names, int n_names, row_adder add, ga_error *err)
{
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_status	rc;
	bool		missing;
	int			row = 0,
				cap = 0;

	if ((rc = ga_csv_open(&r, dir, file, true, &missing, err)) != GA_OK)
		return rc;
	if (missing)
		return GA_OK;
	rc = ga_csv_header(&r, &cols, names, n_names, err);
	while (rc == GA_OK && (row = ga_csv_next(&r, err)) > 0)
		rc = add(scn, &r, &cols, &cap, err);
	if (rc == GA_OK && row < 0)
		rc = GA_EINVAL;
	ga_csv_close(&r);
	return rc;
}

static ga_status
read_history(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"kind", "gpus", "features", "actual_hours"};

	return read_optional_rows(scn, dir, "history.csv", names, 4, add_history, err);
}

/* ---- windows.csv ---- */

/* A window's columns, from column c0 on: pool, first_gpu, gpus, start, end. */
static ga_status
get_window(const ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
		   int c0, ga_scn_window *w, ga_error *err)
{
	const ga_pool *pool;

	if (get_pool(r, cols, c0, scn, &w->pool, err) != GA_OK ||
		ga_csv_int(r, cols, c0 + 1, &w->first_gpu, err) != GA_OK ||
		ga_csv_int(r, cols, c0 + 2, &w->n_gpus, err) != GA_OK ||
		ga_csv_minutes(r, cols, c0 + 3, &w->start, err) != GA_OK ||
		ga_csv_minutes(r, cols, c0 + 4, &w->end, err) != GA_OK)
		return GA_EINVAL;
	pool = &scn->pools[w->pool];
	if (w->first_gpu < 0 || w->first_gpu >= pool->n_gpus)
		return ga_csv_field_error(r, cols, c0 + 1, err, "must be a GPU of the pool (0 to its size - 1)");
	if (w->n_gpus < 1 || w->n_gpus > pool->n_gpus - w->first_gpu)
		return ga_csv_field_error(r, cols, c0 + 2, err, "must be at least 1 and end inside the pool");
	if (w->end <= w->start)
		return ga_csv_field_error(r, cols, c0 + 4, err, "must be after start");
	w->first_gpu += pool->first_gpu;
	return GA_OK;
}

static ga_status
add_window(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
		   int *cap, ga_error *err)
{
	ga_scn_window *ws = grow(scn->windows, scn->n_windows, cap, sizeof(ga_scn_window));

	if (ws == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	scn->windows = ws;
	if (get_window(scn, r, cols, 0, &ws[scn->n_windows], err) != GA_OK)
		return GA_EINVAL;
	scn->n_windows++;
	return GA_OK;
}

static ga_status
read_windows(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"pool", "first_gpu", "gpus", "start", "end"};

	return read_optional_rows(scn, dir, "windows.csv", names, 5, add_window, err);
}

/* ---- reservations.csv ---- */

static ga_status
add_reservation(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
				int *cap, ga_error *err)
{
	ga_scn_reservation *rs = grow(scn->reservations, scn->n_reservations, cap,
								  sizeof(ga_scn_reservation));

	if (rs == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	scn->reservations = rs;
	if (get_tenant(scn, r, cols, 0, false, &rs[scn->n_reservations].tenant, err) != GA_OK ||
		get_window(scn, r, cols, 1, &rs[scn->n_reservations].cells, err) != GA_OK)
		return GA_EINVAL;
	scn->n_reservations++;
	return GA_OK;
}

static ga_status
read_reservations(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"tenant", "pool", "first_gpu", "gpus", "start", "end"};

	return read_optional_rows(scn, dir, "reservations.csv", names, 6, add_reservation, err);
}

/* ---- tenants.csv ---- */

/* The cohort named in column c, added when new; -1 when the field is empty. */
static ga_status
get_cohort(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
		   int c, int *out, ga_error *err)
{
	char		name[GA_NAME_LEN];
	char		(*names)[GA_NAME_LEN];

	*out = -1;
	if (ga_csv_field(r, cols, c)[0] == '\0')
		return GA_OK;
	if (ga_csv_name(r, cols, c, name, sizeof(name), err) != GA_OK)
		return GA_EINVAL;
	for (int i = 0; i < scn->n_cohorts; i++)
		if (strcmp(scn->cohorts[i], name) == 0)
			return (*out = i), GA_OK;
	names = realloc(scn->cohorts, sizeof(*names) * (scn->n_cohorts + 1));
	if (names == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	scn->cohorts = names;
	snprintf(names[scn->n_cohorts], GA_NAME_LEN, "%s", name);
	*out = scn->n_cohorts++;
	return GA_OK;
}

/* GPUs the policies read so far guarantee in pool q. */
static long
guaranteed_in(const ga_scenario *scn, int q)
{
	long		sum = 0;

	for (int i = 0; i < scn->n_policies; i++)
		if (scn->policies[i].pool == q)
			sum += scn->policies[i].guarantee;
	return sum;
}

/*
 * The numbers of a tenants.csv row (columns tenant, pool, guarantee,
 * limit, borrow, weight, cohort), checked against the rules of
 * ga_tenant_policies_check so a bad row is named by its line and field.
 */
static ga_status
get_policy_numbers(const ga_scenario *scn, const ga_csv_reader *r,
				   const ga_csv_columns *cols, ga_tenant_policy *tp, ga_error *err)
{
	if (ga_csv_int(r, cols, 2, &tp->guarantee, err) != GA_OK)
		return GA_EINVAL;
	if (tp->guarantee < 0)
		return ga_csv_field_error(r, cols, 2, err, "must not be negative");
	if (guaranteed_in(scn, tp->pool) + tp->guarantee > scn->pools[tp->pool].n_gpus)
		return ga_csv_field_error(r, cols, 2, err,
								  "takes the pool's guarantees above its GPUs in gpus.csv");
	/* limit and borrow are caps no pool reaches beyond 1e9: any size is read */
	tp->limit = GA_NO_LIMIT;
	if (ga_csv_field(r, cols, 3)[0] != '\0')
	{
		if (ga_csv_int_saturated(r, cols, 3, &tp->limit, err) != GA_OK)
			return GA_EINVAL;
		if (tp->limit < tp->guarantee)
			return ga_csv_field_error(r, cols, 3, err, "must be empty (none) or at least the guarantee");
	}
	if (ga_csv_int_saturated(r, cols, 4, &tp->borrow_limit, err) != GA_OK)
		return GA_EINVAL;
	if (tp->borrow_limit < 0)
		return ga_csv_field_error(r, cols, 4, err, "must not be negative");
	if (ga_csv_number(r, cols, 5, &tp->weight, err) != GA_OK)
		return GA_EINVAL;
	/* as the extension's tenant_policies: a pool's weights are summed */
	if (!(tp->weight > 0) || tp->weight > GA_SCN_MAX_WEIGHT)
		return ga_csv_field_error(r, cols, 5, err, "must be positive and at most 1e6");
	return GA_OK;
}

static ga_status
add_policy(ga_scenario *scn, const ga_csv_reader *r, const ga_csv_columns *cols,
		   int *cap, ga_error *err)
{
	ga_tenant_policy *tps = grow(scn->policies, scn->n_policies, cap, sizeof(ga_tenant_policy));
	ga_tenant_policy *tp;

	if (tps == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory");
	scn->policies = tps;
	tp = &tps[scn->n_policies];
	if (get_tenant(scn, r, cols, 0, false, &tp->tenant, err) != GA_OK ||
		get_pool(r, cols, 1, scn, &tp->pool, err) != GA_OK)
		return GA_EINVAL;
	for (int i = 0; i < scn->n_policies; i++)
		if (tps[i].tenant == tp->tenant && tps[i].pool == tp->pool)
			return ga_csv_field_error(r, cols, 1, err, "already has a row for this tenant");
	if (get_policy_numbers(scn, r, cols, tp, err) != GA_OK ||
		get_cohort(scn, r, cols, 6, &tp->cohort, err) != GA_OK)
		return GA_EINVAL;
	scn->n_policies++;
	return GA_OK;
}

static ga_status
read_tenants(ga_scenario *scn, const char *dir, ga_error *err)
{
	static const char *const names[] = {"tenant", "pool", "guarantee", "limit", "borrow",
	"weight", "cohort"};

	return read_optional_rows(scn, dir, "tenants.csv", names, 7, add_policy, err);
}

double
ga_scenario_entitlement(const ga_scenario *scn, int tenant, int pool)
{
	double		guarantees = 0;
	double		weights = 0;
	const ga_tenant_policy *mine = NULL;

	for (int i = 0; i < scn->n_policies; i++)
	{
		const ga_tenant_policy *tp = &scn->policies[i];

		if (tp->pool != pool)
			continue;
		guarantees += tp->guarantee;
		weights += tp->weight;
		if (tp->tenant == tenant)
			mine = tp;
	}
	if (mine == NULL)
		return 0;
	return guarantees > 0 ? mine->guarantee / guarantees : mine->weight / weights;
}

/* Steps from now to minute m, rounded down or up, kept well inside an int. */
static int
steps_to(int64_t now, int64_t m, int step_minutes, bool up)
{
	int64_t		d = m - now;
	int64_t		q = d / step_minutes;

	if (d % step_minutes != 0 && (d > 0) == up)
		q += up ? 1 : -1;
	if (q > 100000000)
		return 100000000;
	if (q < -100000000)
		return -100000000;
	return (int) q;
}

/* Window w as a problem's from minute now; false when it is over or empty. */
static bool
window_at(const ga_scenario *scn, const ga_scn_window *w, int64_t now, ga_window *out)
{
	if (w->end <= now)
		return false;
	out->pool = w->pool;
	out->first_gpu = w->first_gpu;
	out->n_gpus = w->n_gpus;
	out->start_step = steps_to(now, w->start, scn->step_minutes, false);
	out->end_step = steps_to(now, w->end, scn->step_minutes, true);
	return out->end_step > out->start_step;
}

int
ga_scenario_windows_at(const ga_scenario *scn, int64_t now, ga_window *out)
{
	int			n = 0;

	for (int i = 0; i < scn->n_windows; i++)
		n += window_at(scn, &scn->windows[i], now, &out[n]);
	return n;
}

int
ga_scenario_reservations_at(const ga_scenario *scn, int64_t now,
							ga_advance_reservation *out)
{
	int			n = 0;

	for (int i = 0; i < scn->n_reservations; i++)
		if (window_at(scn, &scn->reservations[i].cells, now, &out[n].cells))
			out[n++].tenant = scn->reservations[i].tenant;
	return n;
}

static bool
cells_touch(const ga_scn_window *w, int g, int64_t from, int64_t to)
{
	return g >= w->first_gpu && g < w->first_gpu + w->n_gpus && w->start < to && from < w->end;
}

bool
ga_scenario_closed(const ga_scenario *scn, int tenant, int g, int64_t from, int64_t to)
{
	for (int i = 0; i < scn->n_windows; i++)
		if (cells_touch(&scn->windows[i], g, from, to))
			return true;
	for (int i = 0; i < scn->n_reservations; i++)
		if (scn->reservations[i].tenant != tenant &&
			cells_touch(&scn->reservations[i].cells, g, from, to))
			return true;
	return false;
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
	if (rc == GA_OK)
		rc = read_windows(scn, dir, err);
	if (rc == GA_OK)
		rc = read_reservations(scn, dir, err);
	if (rc == GA_OK)
		rc = read_tenants(scn, dir, err);
	if (rc != GA_OK)
	{
		ga_scenario_destroy(scn);
		return NULL;
	}
	if (scn->name[0] == '\0')
	{
		const char *base = strrchr(dir, '/');

		copy_cut(scn->name, sizeof(scn->name), base && base[1] ? base + 1 : dir);
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
	{
		ga_feature_list_destroy(scn->jobs[j].features);
		free(scn->jobs[j].after_text[0]);
		free(scn->jobs[j].after_text[1]);
	}
	for (int h = 0; h < scn->n_history; h++)
		ga_feature_list_destroy(scn->history[h].features);
	free(scn->pools);
	free(scn->services);
	free(scn->jobs);
	free(scn->history);
	free(scn->windows);
	free(scn->tenants);
	free(scn->reservations);
	free(scn->policies);
	free(scn->cohorts);
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

int
ga_scenario_pool_of_gpu(const ga_scenario *scn, int g)
{
	for (int q = 0; q < scn->n_pools; q++)
		if (g >= scn->pools[q].first_gpu && g < scn->pools[q].first_gpu + scn->pools[q].n_gpus)
			return q;
	return -1;
}

int
ga_scenario_release_step(const ga_scenario *scn, int64_t at)
{
	int64_t		d = at - scn->start;
	int64_t		steps;

	if (d <= 0)
		return 0;
	steps = (d + scn->step_minutes - 1) / scn->step_minutes;
	return steps > GA_SCN_MAX_STEPS ? GA_SCN_MAX_STEPS + 1 : (int) steps;
}

int
ga_scenario_run_steps(const ga_scenario *scn, const ga_scn_job *sj, int pool, int g)
{
	double		steps = sj->work_gpu_hours / (scn->step_minutes / 60.0);
	double		d = ceil(steps * ga_scn_job_factor(sj, pool) / g - 1e-9);

	if (d < 1)
		return 1;
	if (d > GA_SCN_MAX_RUN_STEPS)
		return GA_SCN_MAX_RUN_STEPS;
	return (int) d;
}
