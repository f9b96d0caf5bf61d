/*
 * gpualloc — the command-line client of the gpualloc extension.
 *
 * One header for the client's pieces: the exit codes, the option parser
 * (args.c), the connection and its queries (conn.c), the table and JSON
 * output (output.c) and the subcommands (cmd_jobs.c, cmd_cluster.c), which
 * main.c dispatches to.  Every subcommand reads and writes through the
 * extension's public API only: its views and gpualloc.* functions.
 */
#ifndef GPUALLOC_CLI_H
#define GPUALLOC_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <libpq-fe.h>

/* Exit codes: scripts branch on them, so each means one thing. */
enum
{
	CLI_OK = 0,					/* done */
	CLI_REFUSED = 1,			/* the server refused the request */
	CLI_USAGE = 2,				/* bad command line */
	CLI_CONNECT = 3,			/* no connection to the server */
	CLI_NOT_FOUND = 4,			/* a job, plan, pool or tenant that does not exist */
	CLI_LOCAL = 5				/* a local failure: an output file or stdout cannot be written */
};

/* ---- options (args.c) ---- */

/*
 * One option a command accepts.  The parser fills value: NULL while the
 * option is not given, the argument when it takes one, "" for a flag.
 */
typedef struct cli_opt
{
	const char *name;			/* long name without the dashes */
	char		letter;			/* short name, or 0 */
	bool		has_arg;
	const char *value;
} cli_opt;

#define CLI_MAX_POSITIONAL 8

typedef struct cli_args
{
	int			n_pos;
	const char *pos[CLI_MAX_POSITIONAL];
} cli_args;

/*
 * Parses argv[*next ..] against the option tables own and shared.  With
 * stop_at_positional the first positional argument ends the parse (it is the
 * subcommand) and *next points at it.  Returns false after printing what is
 * wrong.
 */
bool		cli_parse(int argc, char **argv, int *next, cli_opt *own, cli_opt *shared,
					  bool stop_at_positional, cli_args *args);
const char *cli_get(const cli_opt *opts, const char *name);
bool		cli_flag(const cli_opt *opts, const char *name);
void		cli_usage_error(const char *fmt,...) __attribute__((format(printf, 1, 2)));
void		cli_set_command(const char *name);

/* Whether text is a whole number in [lo, hi], stored in *value (if not NULL); prints nothing. */
bool		cli_parse_int(const char *text, long long lo, long long hi, long long *value);
/* Checks that text is a whole number in [lo, hi]; false after a usage message. */
bool		cli_check_int(const char *option, const char *text, long long lo, long long hi);
/* Reads the digits at *p (at least one, at most hi) into *value and moves *p past them. */
bool		cli_take_digits(const char **p, long long hi, long long *value);
/* Checks a comma-separated list of job ids ("1,2"); false after a usage message. */
bool		cli_check_id_list(const char *option, const char *text);
bool		cli_check_number(const char *option, const char *text);

/* ---- the connection (conn.c) ---- */

typedef struct cli_conn_opts
{
	const char *host;
	const char *port;
	const char *user;
	const char *dbname;
	bool		json;			/* JSON output wants UTF-8 from the server */
} cli_conn_opts;

/* Connects and prepares the session; CLI_OK or CLI_CONNECT. */
int			cli_connect(const cli_conn_opts *o, PGconn **conn);

/*
 * Runs sql with text parameters (NULL entries are SQL NULLs).  On success
 * returns the result; on failure prints the server's message, detail and
 * hint, stores the exit code in *code and returns NULL.
 */
PGresult   *cli_query(PGconn *conn, const char *sql, int n_params,
					  const char *const *params, int *code);

/* Prints a "not found" error the way the server's would look; CLI_NOT_FOUND. */
int			cli_not_found(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/*
 * SQL showing a range of topology indexes: "first-last", or the index alone
 * for a single GPU; NULL when either end is NULL.  first and last are SQL
 * expressions, last parenthesized when it is not a single term.
 */
#define CLI_SQL_GPU_RANGE(first, last) \
	"CASE WHEN " first " = " last " THEN (" first ")::text" \
	" ELSE " first " || '-' || " last " END"

/* ---- output (output.c) ---- */

typedef enum cli_layout
{
	LAYOUT_TABLE,				/* aligned columns, one row per line */
	LAYOUT_RECORD				/* one "key  value" line per column: single-row summaries */
} cli_layout;

/* Writes the result as a table (or record) or, with json, an array of objects. */
void		cli_print(FILE *out, const PGresult *res, bool json, cli_layout layout);

/*
 * Flushes stdout; CLI_OK, or CLI_LOCAL after saying (once) that it cannot
 * be written, e.g. to a full disk.  Call it right after writing, so that
 * errno still tells why an earlier write failed.
 */
int			cli_flush_stdout(void);

/* ---- subcommands (cmd_jobs.c, cmd_cluster.c) ---- */

typedef struct cli_ctx
{
	PGconn	   *conn;
	bool		json;
	cli_args	args;
	cli_opt    *opts;			/* the command's own options, parsed */
} cli_ctx;

typedef struct cli_command
{
	const char *name;
	const char *summary;		/* one line for the program's help */
	const char *help;			/* the command's --help */
	cli_opt    *opts;
	int			min_pos;
	int			max_pos;
	/* validates the arguments before connecting: a usage error exits 2 without a server */
	bool		(*check) (const cli_ctx *ctx);
	int			(*run) (const cli_ctx *ctx);
} cli_command;

/* Runs a query and prints its result in the context's format; the exit code. */
int			cli_query_print(const cli_ctx *ctx, const char *sql, int n_params,
							const char *const *params, cli_layout layout);

/*
 * A yes/no question to the server; *answer false when it says no or NULL.
 * The exit code (CLI_OK when it answered).
 */
int			cli_ask(const cli_ctx *ctx, const char *sql, int n_params,
					const char *const *params, bool *answer);

/*
 * The tenant and pool a command's filters name (NULL: not given) exist, as
 * far as the caller may see; CLI_OK, or CLI_NOT_FOUND after saying which
 * does not.
 */
int			cli_check_named(const cli_ctx *ctx, const char *tenant, const char *pool);

extern const cli_command cli_cmd_queue;
extern const cli_command cli_cmd_submit;
extern const cli_command cli_cmd_cancel;
extern const cli_command cli_cmd_history;
extern const cli_command cli_cmd_nodes;
extern const cli_command cli_cmd_plan;
extern const cli_command cli_cmd_status;
extern const cli_command cli_cmd_share;
extern const cli_command cli_cmd_windows;
extern const cli_command cli_cmd_reservations;

#endif
