/*
 * active_job_name.c — whether a tenant has an active job of a given name,
 * read straight from the unique index that enforces it
 * (gpualloc.jobs_active_name_idx on (tenant, name), partial on queued,
 * booked and running jobs).
 *
 * Why not a saved SQL statement: a session's saved plan is made once, with
 * the statistics of that moment, and kept until the table's statistics
 * change.  After a purge that leaves the index large and the table small,
 * the planner prefers a sequential scan of the jobs table; the queue can
 * then grow by thousands of jobs before autovacuum analyzes the table
 * again, and every submission in that session reads all of them.  An index
 * probe costs the same whatever the table's size and statistics.
 *
 * Two sessions submitting the same name at once would both find it free
 * and the second would fail on the index itself, with the index's message.
 * So the name is locked first (a transaction-level advisory lock on its
 * hash, held to the end of the submission's transaction): the second waits
 * for the first to end and then reads, with a snapshot taken after it, the
 * row the first committed.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "common/hashfn.h"
#include "executor/tuptable.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "gpualloc_pg.h"

static Oid
gpualloc_relation(const char *name)
{
	Oid			schema = get_namespace_oid("gpualloc", false);
	Oid			relid = get_relname_relid(name, schema);

	if (!OidIsValid(relid))
		elog(ERROR, "gpualloc: relation gpualloc.%s is missing", name);
	return relid;
}

/* Submissions of one tenant's name, one at a time. */
static void
lock_job_name(const char *tenant, text *name)
{
	uint32		tenant_hash = hash_bytes((const unsigned char *) tenant, (int) strlen(tenant));
	uint32		name_hash = hash_bytes((const unsigned char *) VARDATA_ANY(name), (int) VARSIZE_ANY_EXHDR(name));

	DirectFunctionCall2(pg_advisory_xact_lock_int4, Int32GetDatum((int32) tenant_hash),
						Int32GetDatum((int32) name_hash));
}

/*
 * A visible row of the index for (tenant, name).  The index holds active
 * jobs only: a job that ends changes its status, which the index's
 * predicate reads, so the update is never HOT and its new row version is
 * not in the index.
 */
static bool
probe_active_name(const char *tenant, text *name)
{
	Relation	jobs = table_open(gpualloc_relation("jobs"), AccessShareLock);
	Relation	index = index_open(gpualloc_relation("jobs_active_name_idx"), AccessShareLock);
	NameData	tenant_name;
	ScanKeyData keys[2];
	Snapshot	snapshot = RegisterSnapshot(GetTransactionSnapshot());
	TupleTableSlot *slot = table_slot_create(jobs, NULL);
	IndexScanDesc scan;
	bool		found;

	namestrcpy(&tenant_name, tenant);
	ScanKeyEntryInitialize(&keys[0], 0, 1, BTEqualStrategyNumber, InvalidOid,
						   index->rd_indcollation[0], F_NAMEEQ, NameGetDatum(&tenant_name));
	ScanKeyEntryInitialize(&keys[1], 0, 2, BTEqualStrategyNumber, InvalidOid,
						   index->rd_indcollation[1], F_TEXTEQ, PointerGetDatum(name));
	scan = index_beginscan(jobs, index, snapshot, 2, 0);
	index_rescan(scan, keys, 2, NULL, 0);
	found = index_getnext_slot(scan, ForwardScanDirection, slot);
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	UnregisterSnapshot(snapshot);
	index_close(index, AccessShareLock);
	table_close(jobs, AccessShareLock);
	return found;
}

/*
 * Lock the tenant's name for this transaction, then tell whether an active
 * job has it: true means the name is taken.
 */
bool
ga_pg_claim_job_name(const char *tenant, text *name)
{
	lock_job_name(tenant, name);
	return probe_active_name(tenant, name);
}
