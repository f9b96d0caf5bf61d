/*
 * conn.c — the connection and its queries.  Connection options and the PG*
 * environment variables are libpq's (host, port, user, and a database name,
 * conninfo string or URI as dbname), given in psql's order so that they
 * combine the way they do in psql.  Every query goes through PQexecParams
 * with its values as parameters; an error is printed the way psql prints
 * it and mapped to an exit code by its SQLSTATE.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The session the client's SQL expects, whatever the role's defaults. */
static const char *const session_setup[] = {
	/* timestamps as "2025-01-31 14:00:00+00" and intervals as "01:30:00" */
	"SELECT pg_catalog.set_config('datestyle', 'ISO, YMD', false)",
	"SELECT pg_catalog.set_config('intervalstyle', 'postgres', false)",
	/* float8 text that reads back exactly: JSON numbers keep their value */
	"SELECT pg_catalog.set_config('extra_float_digits', '1', false)",
	/*
	 * Built-ins the queries name without a schema come from pg_catalog,
	 * never from a schema some other role can write to.
	 */
	"SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false)",
};

static void
print_connect_error(PGconn *conn)
{
	const char *msg = conn ? PQerrorMessage(conn) : "out of memory\n";

	fprintf(stderr, "gpualloc: cannot connect to the server: %s", msg);
	if (msg[0] == '\0' || msg[strlen(msg) - 1] != '\n')
		fputc('\n', stderr);
}

int
cli_connect(const cli_conn_opts *o, PGconn **conn)
{
	/* JSON is UTF-8; a table is for the terminal's locale, as psql does */
	const char *encoding = o->json ? "UTF8" : (getenv("PGCLIENTENCODING") ? NULL : "auto");
	const char *const keys[] = {"host", "port", "user", "dbname",
	"fallback_application_name", "client_encoding", NULL};
	const char *const values[] = {o->host, o->port, o->user, o->dbname,
	"gpualloc", encoding, NULL};
	int			code;

	*conn = PQconnectdbParams(keys, values, 1);
	if (*conn == NULL || PQstatus(*conn) != CONNECTION_OK)
	{
		print_connect_error(*conn);
		return CLI_CONNECT;
	}
	for (size_t i = 0; i < sizeof(session_setup) / sizeof(session_setup[0]); i++)
	{
		PGresult   *r = cli_query(*conn, session_setup[i], 0, NULL, &code);

		if (!r)
			return code;
		PQclear(r);
	}
	return CLI_OK;
}

/*
 * The exit code of a failed query.  A lost connection is no refusal: the
 * request may not even have reached the server.  42704 (undefined_object)
 * is how the extension says a job, plan, pool or tenant does not exist.
 */
static int
exit_code_for(PGconn *conn, const char *sqlstate)
{
	if (PQstatus(conn) == CONNECTION_BAD)
		return CLI_CONNECT;
	if (sqlstate == NULL)
		return CLI_REFUSED;
	if (strncmp(sqlstate, "08", 2) == 0)
		return CLI_CONNECT;
	if (strcmp(sqlstate, "42704") == 0)
		return CLI_NOT_FOUND;
	return CLI_REFUSED;
}

static void
print_field(const char *label, const char *value)
{
	if (value && value[0] != '\0')
		fprintf(stderr, "%s:  %s\n", label, value);
}

/* The server's message, detail and hint, as psql shows them. */
static void
print_server_error(PGconn *conn, const PGresult *res)
{
	const char *severity = res ? PQresultErrorField(res, PG_DIAG_SEVERITY) : NULL;
	const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *sqlstate = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	if (primary == NULL)
	{
		/* no server message: a client-side failure, described by libpq */
		const char *msg = PQerrorMessage(conn);

		fprintf(stderr, "gpualloc: %s", msg);
		if (msg[0] == '\0' || msg[strlen(msg) - 1] != '\n')
			fputc('\n', stderr);
		return;
	}
	fprintf(stderr, "gpualloc: %s:  %s\n", severity ? severity : "ERROR", primary);
	print_field("DETAIL", PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL));
	print_field("HINT", PQresultErrorField(res, PG_DIAG_MESSAGE_HINT));
	print_field("SQLSTATE", sqlstate);
}

PGresult *
cli_query(PGconn *conn, const char *sql, int n_params, const char *const *params, int *code)
{
	PGresult   *res = PQexecParams(conn, sql, n_params, NULL, params, NULL, NULL, 0);
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;

	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
		return res;
	print_server_error(conn, res);
	*code = exit_code_for(conn, res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL);
	PQclear(res);
	return NULL;
}

/* As print_server_error shows the server's own "does not exist" errors. */
int
cli_not_found(const char *fmt,...)
{
	va_list		ap;

	fputs("gpualloc: ERROR:  ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	print_field("SQLSTATE", "42704");
	return CLI_NOT_FOUND;
}

int
cli_query_print(const cli_ctx *ctx, const char *sql, int n_params, const char *const *params,
				cli_layout layout)
{
	int			code = CLI_OK;
	PGresult   *res = cli_query(ctx->conn, sql, n_params, params, &code);

	if (!res)
		return code;
	cli_print(stdout, res, ctx->json, layout);
	code = cli_flush_stdout();
	PQclear(res);
	return code;
}

int
cli_ask(const cli_ctx *ctx, const char *sql, int n_params, const char *const *params, bool *answer)
{
	int			code = CLI_OK;
	PGresult   *res = cli_query(ctx->conn, sql, n_params, params, &code);

	if (!res)
		return code;
	*answer = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	return CLI_OK;
}

/* ---- what a filter names ---- */

/* Every gpualloc role may read the pools. */
static const char pool_exists_sql[] =
"SELECT EXISTS (SELECT 1 FROM gpualloc.pools p WHERE p.name = $1)";

/*
 * The registered tenants are the admin's to read; other roles know the
 * tenants tenant_usage shows them (a reader every tenant with a policy, a
 * job or usage; a submitter its own), the ones they can ask about anyway.
 */
static const char may_read_tenants_sql[] =
"SELECT coalesce(pg_catalog.has_table_privilege("
"   pg_catalog.to_regclass('gpualloc.tenants'), 'SELECT'), false)";
static const char tenant_registered_sql[] =
"SELECT EXISTS (SELECT 1 FROM gpualloc.tenants t WHERE t.tenant::text = $1)";
static const char tenant_visible_sql[] =
"SELECT EXISTS (SELECT 1 FROM gpualloc.tenant_usage u WHERE u.tenant::text = $1)";

static int
check_tenant(const cli_ctx *ctx, const char *tenant)
{
	const char *params[1] = {tenant};
	bool		admin = false;
	bool		found = false;
	int			code = cli_ask(ctx, may_read_tenants_sql, 0, NULL, &admin);

	if (code == CLI_OK)
		code = cli_ask(ctx, admin ? tenant_registered_sql : tenant_visible_sql, 1, params, &found);
	if (code == CLI_OK && !found)
		code = cli_not_found("tenant \"%s\" does not exist", tenant);
	return code;
}

static int
check_pool(const cli_ctx *ctx, const char *pool)
{
	const char *params[1] = {pool};
	bool		found = false;
	int			code = cli_ask(ctx, pool_exists_sql, 1, params, &found);

	if (code == CLI_OK && !found)
		code = cli_not_found("pool \"%s\" does not exist", pool);
	return code;
}

/*
 * Without it a misspelt name would list nothing and exit 0, as if the
 * tenant or pool simply had no rows.
 */
int
cli_check_named(const cli_ctx *ctx, const char *tenant, const char *pool)
{
	int			code = tenant ? check_tenant(ctx, tenant) : CLI_OK;

	if (code == CLI_OK && pool)
		code = check_pool(ctx, pool);
	return code;
}
