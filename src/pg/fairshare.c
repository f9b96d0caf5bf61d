/*
 * fairshare.c — each tenant's fair-share factor per pool, for the planner.
 *
 * The factors come from gpualloc_internal.fairshare (sql/install/
 * 05_tenant_policies.sql), read with one query per problem build; the
 * planner multiplies a queued job's priority by its tenant's factor in the
 * job's pool, relative to the pool's highest (docs/model.md, Fair share).  With gpualloc.fairshare off
 * nothing is read and every factor is 1.  The caller holds an SPI
 * connection; the query's result is copied out, so the next query may run.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"

#include "gpualloc_pg.h"

#define FAIRSHARE_SQL \
	"SELECT f.pool_id, f.tenant::text, f.priority_factor FROM gpualloc_internal.fairshare($1) f " \
	"ORDER BY f.pool_id, f.tenant::text COLLATE \"C\""

GaFairshare *
ga_fairshare_load(TimestampTz now)
{
	GaFairshare *fs = palloc0(sizeof(GaFairshare));
	Oid			type = TIMESTAMPTZOID;
	Datum		arg = TimestampTzGetDatum(now);
	int			rc;

	if (!gpualloc_fairshare)
		return fs;
	rc = SPI_execute_with_args(FAIRSHARE_SQL, 1, &type, &arg, NULL, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: query failed (%s): %s", SPI_result_code_string(rc), FAIRSHARE_SQL);
	fs->n = (int) SPI_processed;
	fs->entries = palloc0(sizeof(GaFairshareEntry) * (fs->n + 1));
	for (int r = 0; r < fs->n; r++)
	{
		HeapTuple	row = SPI_tuptable->vals[r];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		factor;

		fs->entries[r].pool_id = DatumGetInt32(SPI_getbinval(row, desc, 1, &isnull));
		strlcpy(fs->entries[r].tenant, SPI_getvalue(row, desc, 2), NAMEDATALEN);
		factor = SPI_getbinval(row, desc, 3, &isnull);
		fs->entries[r].factor = isnull ? 1.0 : DatumGetFloat8(factor);
	}
	return fs;
}

static int
compare_key(const GaFairshareEntry *e, int pool_id, const char *tenant)
{
	if (e->pool_id != pool_id)
		return e->pool_id < pool_id ? -1 : 1;
	return strcmp(e->tenant, tenant);
}

/* The tenant's factor in the pool; 1 when it has none (fair share off). */
double
ga_fairshare_factor(const GaFairshare *fs, int pool_id, const char *tenant)
{
	int			lo = 0;
	int			hi = fs->n - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = compare_key(&fs->entries[mid], pool_id, tenant);

		if (c == 0)
			return fs->entries[mid].factor;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return 1.0;
}
