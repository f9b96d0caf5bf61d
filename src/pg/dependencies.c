/*
 * dependencies.c — submit_job's after_ok and after_any: each named job
 * checked (it exists, the caller may see it, an after_ok one has not
 * already failed), then the links stored in gpualloc.job_dependencies.
 *
 * A job can only name jobs that exist when it is submitted, so its id is
 * above every one it waits for and the links never form a cycle (the
 * table's CHECK holds that too).  Each named job is read FOR SHARE: a
 * finish or cancel of it waits until this submission commits, so the
 * trigger that cancels the dependents of a failed job sees the new link.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "gpualloc_pg.h"

static GaSavedQuery predecessor_query = {
	"SELECT j.tenant, j.status FROM gpualloc.jobs j WHERE j.job_id = $1 FOR SHARE",
	1, {INT8OID}, NULL
};

static GaSavedQuery link_query = {
	"INSERT INTO gpualloc.job_dependencies (job_id, after_job_id, kind) VALUES ($1, $2, $3)",
	3, {INT8OID, INT8OID, TEXTOID}, NULL
};

static const char *
field_of(bool ok)
{
	return ok ? "after_ok" : "after_any";
}

/* Append the ids of one list, refusing NULLs, repeats and more than GA_MAX_PREDS in all. */
static void
add_list(ArrayType *list, bool ok, GaDependencies *deps)
{
	Datum	   *ids;
	bool	   *nulls;
	int			n;

	if (list == NULL)
		return;
	deconstruct_array(list, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &ids, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		int64		id;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain NULL", field_of(ok))));
		id = DatumGetInt64(ids[i]);
		for (int k = 0; k < deps->n; k++)
			if (deps->after[k] == id)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("job %lld is named twice in after_ok and after_any", (long long) id),
						 errdetail("Name each job the new job waits for once, in one of the two lists.")));
		if (deps->n == GA_MAX_PREDS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("after_ok and after_any name more than %d jobs", GA_MAX_PREDS),
					 errhint("Chain the jobs, or wait for one job that waits for the others.")));
		deps->after[deps->n] = id;
		deps->ok[deps->n++] = ok;
	}
}

/* Job `k` of the lists: exists, visible to the caller, and can still satisfy the link. */
static void
check_one(GaDependencies *deps, int k)
{
	Datum		arg = Int64GetDatum(deps->after[k]);
	bool		isnull;
	char	   *tenant;
	char	   *status;

	ga_saved_query_expect(&predecessor_query, &arg, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0 ||
		!ga_pg_can_act_for(GetOuterUserId(),
						   (tenant = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1))))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("%s job %lld does not exist or is not visible to you", field_of(deps->ok[k]),
						(long long) deps->after[k]),
				 errdetail("A job may wait only for jobs of tenants the submitter is a member of.")));
	status = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	(void) isnull;
	if (deps->ok[k] && (strcmp(status, "failed") == 0 || strcmp(status, "cancelled") == 0))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("after_ok job %lld is already %s, so the new job could never run",
						(long long) deps->after[k], status),
				 errhint("Use after_any to run after a job however it ends.")));
	if (strcmp(status, "queued") == 0 || strcmp(status, "booked") == 0 || strcmp(status, "running") == 0)
		deps->waits = true;
}

void
ga_pg_check_dependencies(ArrayType *after_ok, ArrayType *after_any, GaDependencies *deps)
{
	memset(deps, 0, sizeof(*deps));
	add_list(after_ok, true, deps);
	add_list(after_any, false, deps);
	for (int k = 0; k < deps->n; k++)
		check_one(deps, k);
}

void
ga_pg_insert_dependencies(int64 job_id, const GaDependencies *deps)
{
	for (int k = 0; k < deps->n; k++)
	{
		Datum		v[3] = {Int64GetDatum(job_id), Int64GetDatum(deps->after[k]),
		CStringGetTextDatum(deps->ok[k] ? "after_ok" : "after_any")};

		ga_saved_query_expect(&link_query, v, NULL, SPI_OK_INSERT);
	}
}
