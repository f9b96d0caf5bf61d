/*
 * gpualloc-executor: the reference executor of gpualloc's executor contract.
 *
 * One instance runs on each machine ("node") of a GPU pool and keeps the
 * processes of that node in line with what the database says runs there:
 *
 *   - It LISTENs on channel gpualloc.  A notification is only a hint that the
 *     allocation's change sequence moved, so every wake-up (and every
 *     --poll-seconds without one) re-reads the state in one snapshot:
 *     allocation_seq(), allocation_changes(last seq), and the executor_work
 *     and current_allocation rows of this node.
 *   - A booked job whose block starts on this node is claimed with
 *     job_started() and only then exec'd (/bin/sh -c its command, in its own
 *     process group, CUDA_VISIBLE_DEVICES = its slots); its exit is reported
 *     with job_finished().
 *   - A running job that is no longer running in the database, or whose
 *     allocation rows on this node ended, is stopped: SIGTERM to its process
 *     group, SIGKILL after --grace-seconds.
 *   - When the GPUs a service holds on this node change, --service-hook runs.
 *
 * Values from the database reach SQL only as parameters (PQexecParams) and a
 * shell only as the job's own command or through the environment.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#define SQLSTATE_NOT_IN_PREREQ "55000"	/* the job is not in the state the call needs */
#define SQLSTATE_READ_ONLY "25006"		/* we reached a standby: fail over */
#define NOTICE_RING 4096				/* notifications remembered for timing */
#define BACKOFF_MIN 0.25
#define BACKOFF_MAX 10.0
#define EXIT_CONFIG 1					/* the server refuses us: retrying cannot help */
#define SHUTDOWN_EXTRA 5.0				/* seconds past the grace period */

struct options {
	const char *host, *port, *user, *dbname;
	int			node;
	const char *pool;
	const char *service_hook;
	double		poll_seconds;
	double		grace_seconds;
	bool		once;
};

enum child_kind { CHILD_JOB, CHILD_HOOK };
enum child_state { CHILD_RUNNING, CHILD_STOPPING, CHILD_EXITED };

struct child {
	pid_t		pid;
	enum child_kind kind;
	enum child_state state;
	long long	job_id;			/* CHILD_JOB */
	char		block_first[16];	/* CHILD_JOB: the block it runs on */
	char	   *service;		/* CHILD_HOOK */
	bool		report;			/* report job_finished() once it has exited */
	bool		killed;			/* SIGKILL sent */
	const char *stop_reason;	/* why we stopped it (a string literal) */
	double		kill_at;		/* monotonic time of the SIGKILL */
	double		exited_at;		/* monotonic time it was reaped */
	int			wait_status;
};

/* The GPUs a service holds on this node: now, and as last told to the hook. */
struct service {
	char	   *name;
	char	   *pool;
	char	   *current;		/* comma-separated slots; "" when none */
	char	   *applied;
	pid_t		hook_pid;		/* a running hook: the next one waits for it */
};

struct notice {
	long long	seq;
	double		at;				/* monotonic receive time */
};

/* The change set that booked a job: to time notification -> job_started. */
struct booking {
	long long	job_id;
	long long	seq;
};

/* One consistent read of this node's state. */
struct snapshot {
	long long	seq;
	PGresult   *changes;		/* seq, change, job_id; NULL when nothing changed */
	PGresult   *work;			/* job_id, status, command, pool, block_first, block_size, nodes, slots */
	PGresult   *gpus;			/* gpu_id, workload_kind, job_id, service, slot, pool */
};

struct db_error {
	char		sqlstate[6];
	char		message[512];	/* the whole report, flattened to one line */
	char		primary[512];	/* the server's primary message alone */
	bool		lost;			/* the connection is gone, not the statement refused */
};

struct executor {
	struct options opt;
	PGconn	   *conn;
	long long	last_seq;
	bool		need_sync;
	bool		synced_once;
	double		next_poll;
	double		reconnect_at;
	double		backoff;		/* the delay of the next reconnection */
	int			exit_status;	/* non-zero: stop, and exit with it */
	bool		node_absent;	/* the last read found no GPU of this node */
	struct child *children;
	size_t		nchildren, cap_children;
	struct service *services;
	size_t		nservices, cap_services;
	struct notice notices[NOTICE_RING];
	size_t		notice_next;
	struct booking *bookings;
	size_t		nbookings, cap_bookings;
	long long  *my_gpus;		/* gpu_ids of this node, to filter notifications */
	size_t		nmy_gpus, cap_my_gpus;
};

static volatile sig_atomic_t got_child;
static volatile sig_atomic_t got_stop;
static int	wake_pipe[2] = {-1, -1};
static int	log_node = -1;

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One line per action on stderr, with a UTC timestamp to the millisecond. */
static void
logmsg(const char *fmt,...)
{
	char		line[4096];
	struct timespec ts;
	struct tm	tm;
	size_t		n;
	va_list		ap;
	int			m;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
	n += snprintf(line + n, sizeof line - n, ".%03ldZ gpualloc-executor node %d: ",
				  ts.tv_nsec / 1000000, log_node);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof line - n, fmt, ap);
	va_end(ap);
	n = (m < 0 || (size_t) m >= sizeof line - n - 1) ? sizeof line - 2 : n + (size_t) m;
	line[n++] = '\n';
	/* one write(2), so lines from us and our children do not interleave */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

static void *
xrealloc(void *p, size_t size)
{
	void	   *q = realloc(p, size ? size : 1);

	if (!q)
	{
		logmsg("out of memory");
		exit(1);
	}
	return q;
}

static char *
xstrdup(const char *s)
{
	char	   *d = strdup(s ? s : "");

	if (!d)
	{
		logmsg("out of memory");
		exit(1);
	}
	return d;
}

/* Grow an array to hold at least `need` elements. */
static void *
grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 16;
	if (*cap < need)
		*cap = need;
	return xrealloc(arr, *cap * elem);
}

/* Error messages span lines; a log line must not. */
static void
flatten(char *s)
{
	size_t		n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	for (; *s; s++)
		if (*s == '\n' || *s == '\t')
			*s = ' ';
}

static void
set_cloexec(int fd)
{
	fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
}

/* Parse a PostgreSQL integer array in text form ("{0,1,2}") into out[]. */
static int
parse_int_array(const char *text, int *out, int max)
{
	int			n = 0;
	const char *p = text;

	if (*p == '{')
		p++;
	while (*p && *p != '}' && n < max)
	{
		char	   *end;
		long		v = strtol(p, &end, 10);

		if (end == p)
			break;
		out[n++] = (int) v;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* "exit N" or "signal N", as job_finished's message and our log say it. */
static void
describe_status(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "status %d", status);
}

/* ------------------------------------------------------------------------ */
/* Signals: the handlers only set a flag and wake poll() through a pipe.    */

static void
on_signal(int sig)
{
	int			saved = errno;

	if (sig == SIGCHLD)
		got_child = 1;
	else
		got_stop = 1;
	if (write(wake_pipe[1], "x", 1) < 0)
	{
		/* the pipe is full: poll() will wake anyway */
	}
	errno = saved;
}

static void
setup_signals(void)
{
	struct sigaction sa;

	if (pipe(wake_pipe) != 0)
	{
		perror("pipe");
		exit(1);
	}
	for (int i = 0; i < 2; i++)
	{
		set_cloexec(wake_pipe[i]);
		fcntl(wake_pipe[i], F_SETFL, fcntl(wake_pipe[i], F_GETFL) | O_NONBLOCK);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* writing to a gate whose child died must not kill the executor */
	signal(SIGPIPE, SIG_IGN);
}

static void
drain_wake_pipe(void)
{
	char		buf[64];

	while (read(wake_pipe[0], buf, sizeof buf) > 0)
		;
}

/* A child starts with default signal handling and no terminal input. */
static void
child_prepare(void)
{
	int			devnull;

	signal(SIGPIPE, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	setpgid(0, 0);
	devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0)
	{
		dup2(devnull, STDIN_FILENO);
		if (devnull != STDIN_FILENO)
			close(devnull);
	}
}

/* ------------------------------------------------------------------------ */
/* The database                                                             */

/*
 * Schedule the next connection attempt and double the delay of the one after,
 * up to BACKOFF_MAX: a server that keeps failing us (down, a standby, closing
 * connections) is not hammered.  The delay returns to BACKOFF_MIN only once a
 * connection has read the allocation (sync_state).  Returns this delay.
 */
static double
schedule_reconnect(struct executor *ex)
{
	double		delay = ex->backoff;

	ex->reconnect_at = now_mono() + delay;
	ex->backoff = delay * 2 > BACKOFF_MAX ? BACKOFF_MAX : delay * 2;
	return delay;
}

static void
db_drop(struct executor *ex, const char *why)
{
	if (!ex->conn)
		return;
	PQfinish(ex->conn);
	ex->conn = NULL;
	logmsg("connection lost: %s; reconnecting in %.2f s", why, schedule_reconnect(ex));
}

/* A standby or a server going down is a connection problem: reconnecting
 * lets libpq find the read-write server of a multi-host connection string. */
static bool
is_connection_error(PGconn *conn, const char *sqlstate)
{
	return PQstatus(conn) == CONNECTION_BAD
		|| strncmp(sqlstate, "08", 2) == 0
		|| strncmp(sqlstate, "57P", 3) == 0
		|| strcmp(sqlstate, SQLSTATE_READ_ONLY) == 0;
}

/* What a failed statement says: SQLSTATE, whole message, primary message. */
static void
db_error_fill(struct db_error *err, const PGresult *res, PGconn *conn)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	snprintf(err->sqlstate, sizeof err->sqlstate, "%s", state ? state : "");
	snprintf(err->message, sizeof err->message, "%s",
			 res ? PQresultErrorMessage(res) : PQerrorMessage(conn));
	flatten(err->message);
	snprintf(err->primary, sizeof err->primary, "%s", primary ? primary : err->message);
	flatten(err->primary);
}

/*
 * Run one statement with text parameters.  Returns its result, or NULL when
 * the server refused it (err says why) or the connection is gone (err->lost;
 * the connection has then been dropped).
 */
static PGresult *
db_run(struct executor *ex, const char *sql, int nparams, const char *const *params,
	   struct db_error *err)
{
	PGresult   *res;

	memset(err, 0, sizeof *err);
	if (!ex->conn)
	{
		err->lost = true;
		return NULL;
	}
	res = PQexecParams(ex->conn, sql, nparams, NULL, params, NULL, NULL, 0);
	if (res && (PQresultStatus(res) == PGRES_TUPLES_OK || PQresultStatus(res) == PGRES_COMMAND_OK))
		return res;
	db_error_fill(err, res, ex->conn);
	PQclear(res);
	if (is_connection_error(ex->conn, err->sqlstate))
	{
		err->lost = true;
		db_drop(ex, err->message);
	}
	return NULL;
}

/* Run a statement whose result we do not need; false when it failed. */
static bool
db_do(struct executor *ex, const char *sql, int nparams, const char *const *params,
	  struct db_error *err)
{
	PGresult   *res = db_run(ex, sql, nparams, params, err);

	PQclear(res);
	return res != NULL;
}

/* One statement of a pipelined batch, with its result or its error. */
struct batch_item {
	const char *sql;
	int			nparams;
	const char *params[4];
	PGresult   *res;			/* NULL when it failed */
	struct db_error err;
};

static void
batch_result(struct executor *ex, struct batch_item *it, PGresult *r)
{
	if (PQresultStatus(r) == PGRES_TUPLES_OK || PQresultStatus(r) == PGRES_COMMAND_OK)
	{
		it->res = r;
		return;
	}
	if (PQresultStatus(r) == PGRES_PIPELINE_ABORTED)
		snprintf(it->err.message, sizeof it->err.message, "not run: an earlier statement failed");
	else
	{
		db_error_fill(&it->err, r, ex->conn);
		it->err.lost = is_connection_error(ex->conn, it->err.sqlstate);
	}
	PQclear(r);
}

/*
 * Send statements in one round trip (libpq's pipeline mode) and collect each
 * one's result: a batch of claims does not wait for one commit after another
 * on our side.  With sync_each every statement is its own transaction, so one
 * refused does not abort the others; otherwise they are one transaction and
 * the first failure aborts the rest.  False when the connection is gone (it
 * has then been dropped).
 */
static bool
db_batch(struct executor *ex, struct batch_item *items, int n, bool sync_each)
{
	int			syncs = 0, want = sync_each ? n : 1, next = 0, nulls = 0;
	char		why[512];

	for (int i = 0; i < n; i++)
	{
		items[i].res = NULL;
		memset(&items[i].err, 0, sizeof items[i].err);
	}
	if (!ex->conn || !PQenterPipelineMode(ex->conn))
		goto lost;
	for (int i = 0; i < n; i++)
		if (!PQsendQueryParams(ex->conn, items[i].sql, items[i].nparams, NULL, items[i].params, NULL, NULL, 0) ||
			((sync_each || i == n - 1) && !PQpipelineSync(ex->conn)))
			goto lost;
	while (syncs < want)
	{
		PGresult   *r = PQgetResult(ex->conn);

		/* NULL ends one statement's results; more in a row mean trouble */
		if (!r)
		{
			if (PQstatus(ex->conn) == CONNECTION_BAD || ++nulls > 3)
				goto lost;
			continue;
		}
		nulls = 0;
		if (PQresultStatus(r) == PGRES_PIPELINE_SYNC)
		{
			syncs++;
			PQclear(r);
		}
		else if (next < n)
			batch_result(ex, &items[next++], r);
		else
			PQclear(r);
	}
	PQexitPipelineMode(ex->conn);
	for (int i = 0; i < n; i++)
		if (items[i].err.lost)
		{
			db_drop(ex, items[i].err.message);
			return false;
		}
	return true;
lost:
	snprintf(why, sizeof why, "%s", ex->conn ? PQerrorMessage(ex->conn) : "not connected");
	flatten(why);
	for (int i = 0; i < n; i++)
	{
		PQclear(items[i].res);
		items[i].res = NULL;
		items[i].err.lost = true;
	}
	db_drop(ex, why);
	return false;
}

/* Server notices and warnings go to our log as one line, not raw to stderr. */
static void
log_notice(void *arg, const char *message)
{
	char		line[1024];

	(void) arg;
	snprintf(line, sizeof line, "%s", message);
	flatten(line);
	logmsg("server says: %s", line);
}

/*
 * Open a connection, blocking, as PQconnectdbParams would.
 *
 * A server that turns the connection away (wrong password, no such role or
 * database, starting up, too many clients) answers with an ErrorResponse
 * carrying a SQLSTATE, but libpq keeps it to itself: a failed connection
 * has no PGresult to ask, and PQerrorMessage is text in the server's
 * language.  Only in verbose mode does libpq print the SQLSTATE into that
 * text, and the mode must be set on the PGconn before the answer arrives.
 * PQconnectdbParams leaves no such moment; PQconnectStartParams does, but
 * then driving PQconnectPoll ourselves would lose connect_timeout (libpq
 * ignores it in that mode), and with it the move past an unreachable host
 * of a multi-host string.  So the connection is started, verbose mode set,
 * and the attempt made afresh by PQreset, which runs the same blocking
 * connection as PQconnectdbParams on this PGconn.  The started attempt has
 * sent nothing (libpq sends its startup packet once the socket is writable,
 * on the next poll), so a server sees at most a connection closed at once:
 * a "connection received" line under log_connections, no error.
 */
static PGconn *
db_connect_verbose(const char *const *keys, const char *const *vals)
{
	PGconn	   *conn = PQconnectStartParams(keys, vals, 1);

	/* bad options or no host to try: PQreset would clear the reason */
	if (PQstatus(conn) == CONNECTION_BAD)
		return conn;
	PQsetErrorVerbosity(conn, PQERRORS_VERBOSE);
	PQreset(conn);
	/* query errors are logged as they always were: no SQLSTATE, no LOCATION */
	if (PQstatus(conn) == CONNECTION_OK)
		PQsetErrorVerbosity(conn, PQERRORS_DEFAULT);
	return conn;
}

static PGconn *
db_open(const struct options *opt)
{
	char		appname[64];
	const char *keys[10];
	const char *vals[10];
	int			n = 0;

	snprintf(appname, sizeof appname, "gpualloc-executor node %d", opt->node);
	/* our defaults come first, so a conninfo in --dbname overrides them */
	keys[n] = "application_name", vals[n++] = appname;
	keys[n] = "connect_timeout", vals[n++] = "10";
	keys[n] = "keepalives_idle", vals[n++] = "10";
	keys[n] = "keepalives_interval", vals[n++] = "5";
	keys[n] = "keepalives_count", vals[n++] = "3";
	keys[n] = "dbname", vals[n++] = opt->dbname;
	keys[n] = "host", vals[n++] = opt->host;
	keys[n] = "port", vals[n++] = opt->port;
	keys[n] = "user", vals[n++] = opt->user;
	keys[n] = NULL, vals[n] = NULL;
	return db_connect_verbose(keys, vals);
}

static long long
db_allocation_seq(struct executor *ex, struct db_error *err)
{
	PGresult   *res = db_run(ex, "SELECT gpualloc.allocation_seq()", 0, NULL, err);
	long long	seq = -1;

	if (res && PQntuples(res) == 1)
		seq = PQgetisnull(res, 0, 0) ? 0 : atoll(PQgetvalue(res, 0, 0));
	PQclear(res);
	return seq;
}

/*
 * Errors that say the executor is set up wrong (its role, its rights, the
 * database, the extension), not that the server is out of reach: retrying
 * cannot fix them, so the executor exits rather than loop.
 */
static bool
is_configuration_error(const char *sqlstate)
{
	return strncmp(sqlstate, "28", 2) == 0	/* invalid authorization */
		|| strncmp(sqlstate, "3D", 2) == 0	/* no such database */
		|| strncmp(sqlstate, "3F", 2) == 0	/* no schema gpualloc: no extension */
		|| strncmp(sqlstate, "42", 2) == 0; /* no privilege, function or view */
}

/*
 * What to do about a configuration error, for the log.  At login, 42501 is
 * the database's CONNECT privilege; once connected, the extension's rights.
 */
static void
configuration_hint(const char *sqlstate, const char *user, const char *db, bool at_login,
				   char *buf, size_t len)
{
	if (strcmp(sqlstate, "42501") == 0 && at_login)
		snprintf(buf, len, "grant the role the right to connect (GRANT CONNECT ON DATABASE \"%s\" TO \"%s\")",
				 db, user);
	else if (strcmp(sqlstate, "42501") == 0)
		snprintf(buf, len, "grant the role gpualloc_executor (GRANT gpualloc_executor TO \"%s\")", user);
	else if (strncmp(sqlstate, "3F", 2) == 0 || strncmp(sqlstate, "42", 2) == 0)
		snprintf(buf, len, "install gpualloc in this database (CREATE EXTENSION gpualloc CASCADE),"
				 " or connect to the one that has it (-d)");
	else if (strncmp(sqlstate, "3D", 2) == 0)
		snprintf(buf, len, "name the database that has gpualloc (-d)");
	else if (strcmp(sqlstate, "28P01") == 0)
		snprintf(buf, len, "check the password (PGPASSWORD, ~/.pgpass, or password= in -d)");
	else
		snprintf(buf, len, "check the user (-U), its right to log in and the server's pg_hba.conf");
}

/* Stop the loop: the executor exits with `status` once its jobs are stopped. */
static void
quit_with(struct executor *ex, int status)
{
	if (ex->conn)
		PQfinish(ex->conn);
	ex->conn = NULL;
	ex->exit_status = status;
}

/* A configuration error: log the server's message and what to do, and stop. */
static void
quit_refused(struct executor *ex, const char *user, const char *db, const char *primary,
			 const char *sqlstate, bool at_login)
{
	char		hint[256];

	configuration_hint(sqlstate, user, db, at_login, hint, sizeof hint);
	logmsg("the server refused the executor (user %s, database %s): %s (SQLSTATE %s); %s;"
		   " exiting with status %d", user, db, primary, sqlstate, hint, EXIT_CONFIG);
	quit_with(ex, EXIT_CONFIG);
}

/*
 * A statement setting up a new connection failed and the connection is
 * still there: the server refused it.  A configuration error ends the
 * executor; anything else (out of resources, say) is retried with backoff.
 */
static void
setup_refused(struct executor *ex, const struct db_error *err)
{
	if (is_configuration_error(err->sqlstate))
	{
		quit_refused(ex, PQuser(ex->conn), PQdb(ex->conn), err->primary, err->sqlstate, false);
		return;
	}
	PQfinish(ex->conn);
	ex->conn = NULL;
	logmsg("could not set up the connection: %s (SQLSTATE %s); reconnecting in %.2f s",
		   err->primary, err->sqlstate, schedule_reconnect(ex));
}

/* Five characters that can be a SQLSTATE: digits and upper-case letters. */
static bool
is_sqlstate(const char *s)
{
	for (int i = 0; i < 5; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/*
 * The server's answer in a connection error of verbose mode (db_open): libpq
 * writes a server's report as "SEVERITY:  SQLSTATE: primary message", the
 * severity in the server's language, the layout and the SQLSTATE in none.
 * The last report is the answer that ended the attempt; earlier ones come
 * from hosts tried before it, or from the SSL try of sslmode=prefer.  False
 * when no server answered: refused, unreachable, timed out, or libpq itself
 * gave up (no password to give, say).
 */
static bool
server_answer(const char *err, char sqlstate[6], char *primary, size_t len)
{
	const char *found = NULL;

	for (const char *line = err; *line;)
	{
		size_t		n = strcspn(line, "\n");
		const char *p = strstr(line, ":  ");

		if (p && p < line + n && is_sqlstate(p + 3) && p[8] == ':' && p[9] == ' ')
			found = p + 3;
		line += line[n] ? n + 1 : n;
	}
	if (!found)
		return false;
	snprintf(sqlstate, 6, "%.5s", found);
	snprintf(primary, len, "%.*s", (int) strcspn(found + 7, "\n"), found + 7);
	return true;
}

/*
 * A login the server turned away for who we are or where we asked to go:
 * class 28 (wrong password, no such role, not allowed to log in, no
 * pg_hba.conf entry), 3D (no such database) and 42501 (no CONNECT
 * privilege on it).  Its other refusals at login are about its state
 * (57P03 starting up or shutting down, 53300 too many connections) and pass
 * with time.
 */
static bool
is_login_refusal(const char *sqlstate)
{
	return strncmp(sqlstate, "28", 2) == 0 || strncmp(sqlstate, "3D", 2) == 0 ||
		strcmp(sqlstate, "42501") == 0;
}

/* A connection error on one line, without the source locations of the
 * server's code that verbose mode adds. */
static void
connect_error_line(const char *err, char *buf, size_t len)
{
	size_t		used = 0;

	buf[0] = '\0';
	for (const char *line = err; *line && used + 1 < len;)
	{
		size_t		n = strcspn(line, "\n");

		n += line[n] ? 1 : 0;
		if (strncmp(line, "LOCATION:  ", 11) != 0)
			used += (size_t) snprintf(buf + used, len - used, "%.*s", (int) n, line);
		line += n;
	}
	flatten(buf);
}

/*
 * libpq's reports of an SSL set-up that cannot work (sslmode and the
 * server's ssl setting disagree, a certificate or key file missing or
 * unreadable, a server certificate that does not verify): they carry no
 * SQLSTATE, and the next attempt fails the same way.  A connection lost
 * during the handshake ("SSL SYSCALL error", "SSL connection has been
 * closed unexpectedly") is not among them: a restarting server causes it.
 * libpq's messages in English; in another language they are retried.
 */
static const char *const ssl_setup_errors[] = {
	"server does not support SSL, but SSL was required",
	"root certificate file",
	"certificate file \"",
	"private key file \"",
	"certificate verify failed",
	"does not match host name",
	NULL
};

static bool
is_ssl_setup_error(const char *text, size_t len)
{
	for (int i = 0; ssl_setup_errors[i] != NULL; i++)
	{
		const char *hit = strstr(text, ssl_setup_errors[i]);

		if (hit != NULL && hit < text + len)
			return true;
	}
	return false;
}

/*
 * Whether every server tried refused the SSL set-up: libpq reports each
 * host of a multi-host connection string in its own "connection to server"
 * section, and one host that is only down (another's SSL refusal beside
 * it) may come back, so the executor keeps trying then.
 */
static bool
ssl_setup_refused(const char *err)
{
	static const char section[] = "connection to server ";
	int			sections = 0;
	int			refused = 0;

	for (const char *at = strstr(err, section); at != NULL;)
	{
		const char *next = strstr(at + 1, section);
		size_t		len = next ? (size_t) (next - at) : strlen(at);

		sections++;
		refused += is_ssl_setup_error(at, len);
		at = next;
	}
	if (sections == 0)
		return is_ssl_setup_error(err, strlen(err));
	return refused == sections;
}

/*
 * The connection could not be opened.  Without a password to give, or
 * turned away for its credentials or database, or for an SSL set-up that
 * cannot work, the next attempt fails the same way: exit.  Otherwise the
 * server may be down, starting or full, so try again later.
 */
static void
connect_failed(struct executor *ex, PGconn *conn)
{
	char		msg[512], sqlstate[6], primary[512];
	bool		no_password = PQconnectionNeedsPassword(conn);

	if (server_answer(PQerrorMessage(conn), sqlstate, primary, sizeof primary) &&
		is_login_refusal(sqlstate))
	{
		quit_refused(ex, PQuser(conn), PQdb(conn), primary, sqlstate, true);
		PQfinish(conn);
		return;
	}
	connect_error_line(PQerrorMessage(conn), msg, sizeof msg);
	if (ssl_setup_refused(PQerrorMessage(conn)))
	{
		logmsg("could not connect: %s; the SSL settings of the connection (sslmode, sslrootcert, sslcert,"
			   " sslkey in -d or PGSSLMODE and the like) and the server's ssl setting do not fit together;"
			   " exiting with status %d", msg, EXIT_CONFIG);
		PQfinish(conn);
		quit_with(ex, EXIT_CONFIG);
		return;
	}
	PQfinish(conn);
	if (no_password)
	{
		logmsg("could not connect: %s; the server asks for a password and none was given:"
			   " set PGPASSWORD or add a ~/.pgpass entry; exiting with status %d", msg, EXIT_CONFIG);
		quit_with(ex, EXIT_CONFIG);
		return;
	}
	logmsg("could not connect: %s; retrying in %.2f s", msg, schedule_reconnect(ex));
}

/* LISTEN and read allocation_seq(): -1 when either failed (err says why). */
static long long
db_listen(struct executor *ex, struct db_error *err)
{
	if (!db_do(ex, "LISTEN gpualloc", 0, NULL, err))
		return -1;
	return db_allocation_seq(ex, err);
}

/* Connect, LISTEN, and re-sync from allocation_seq(). */
static void
db_connect(struct executor *ex)
{
	struct db_error err;
	PGconn	   *conn = db_open(&ex->opt);
	long long	seq;

	if (PQstatus(conn) != CONNECTION_OK)
	{
		connect_failed(ex, conn);
		return;
	}
	ex->conn = conn;
	PQsetNoticeProcessor(conn, log_notice, NULL);
	if ((seq = db_listen(ex, &err)) < 0)
	{
		/* a lost connection has been dropped, with its reconnection scheduled */
		if (ex->conn)
			setup_refused(ex, &err);
		return;
	}
	/* a fresh start reads the state, not the whole history; a server whose
	 * sequence is behind ours (restored from a backup) restarts the count */
	if (ex->last_seq == 0 || seq < ex->last_seq)
		ex->last_seq = seq;
	logmsg("connected to %s port %s as %s (seq %lld)", PQhost(conn), PQport(conn),
		   PQuser(conn), seq);
	ex->need_sync = true;
}

/* ------------------------------------------------------------------------ */
/* Notifications                                                            */

/* The value of "key" in a flat JSON object, or NULL. */
static const char *
json_value(const char *json, const char *key)
{
	char		quoted[64];
	const char *p;

	snprintf(quoted, sizeof quoted, "\"%s\"", key);
	p = strstr(json, quoted);
	if (!p)
		return NULL;
	p += strlen(quoted);
	while (*p == ' ')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ')
		p++;
	return p;
}

static bool
have_job_child(const struct executor *ex, long long job_id)
{
	for (size_t i = 0; i < ex->nchildren; i++)
		if (ex->children[i].kind == CHILD_JOB && ex->children[i].job_id == job_id)
			return true;
	return false;
}

static bool
is_my_gpu(const struct executor *ex, long long gpu_id)
{
	for (size_t i = 0; i < ex->nmy_gpus; i++)
		if (ex->my_gpus[i] == gpu_id)
			return true;
	return false;
}

/*
 * Whether a notification may concern this node: it names one of our GPUs or
 * one of our jobs.  Anything we cannot tell (truncated, no lists, not parsed)
 * counts as relevant, since a needless re-read only costs a query.
 */
static bool
notice_is_relevant(const struct executor *ex, const char *payload)
{
	const char *gpus = json_value(payload, "gpus");
	const char *jobs = json_value(payload, "jobs");
	const char *trunc = json_value(payload, "truncated");
	bool		any = false;

	if (!gpus || !jobs || *gpus != '[' || *jobs != '[' || !ex->synced_once ||
		(trunc && strncmp(trunc, "false", 5) != 0))
		return true;
	for (const char *p = gpus + 1; *p && *p != ']';)
	{
		char	   *end;
		long long	id = strtoll(p, &end, 10);

		if (end == p)
			p++;
		else
		{
			any = true;
			if (is_my_gpu(ex, id))
				return true;
			p = end;
		}
	}
	for (const char *p = jobs + 1; *p && *p != ']';)
	{
		char	   *end;
		long long	id = strtoll(p, &end, 10);

		if (end == p)
			p++;
		else
		{
			any = true;
			if (have_job_child(ex, id))
				return true;
			p = end;
		}
	}
	return !any;
}

static void
handle_notice(struct executor *ex, const char *payload)
{
	const char *v = json_value(payload, "seq");
	const char *reason = json_value(payload, "reason");
	long long	seq = v ? strtoll(v, NULL, 10) : 0;
	int			rlen = 0;

	if (reason && *reason == '"')
	{
		reason++;
		while (reason[rlen] && reason[rlen] != '"' && rlen < 40)
			rlen++;
	}
	else
		reason = "?", rlen = 1;
	ex->notices[ex->notice_next % NOTICE_RING] = (struct notice) {seq, now_mono()};
	ex->notice_next++;
	logmsg("notify seq=%lld reason=%.*s", seq, rlen, reason);
	if (seq <= 0 || (seq > ex->last_seq && notice_is_relevant(ex, payload)))
		ex->need_sync = true;
}

/* Read what the server sent; notifications also arrive during queries. */
static void
read_notifications(struct executor *ex)
{
	PGnotify   *n;

	if (!ex->conn)
		return;
	if (!PQconsumeInput(ex->conn))
	{
		char		msg[512];

		snprintf(msg, sizeof msg, "%s", PQerrorMessage(ex->conn));
		flatten(msg);
		db_drop(ex, msg);
		return;
	}
	while ((n = PQnotifies(ex->conn)) != NULL)
	{
		handle_notice(ex, n->extra);
		PQfreemem(n);
	}
}

/* When the notification of change set `seq` arrived; < 0 if it has not. */
static double
notice_time(const struct executor *ex, long long seq)
{
	size_t		n = ex->notice_next < NOTICE_RING ? ex->notice_next : NOTICE_RING;

	for (size_t i = 1; i <= n; i++)
	{
		const struct notice *x = &ex->notices[(ex->notice_next - i) % NOTICE_RING];

		if (x->seq == seq)
			return x->at;
	}
	return -1;
}

/* ------------------------------------------------------------------------ */
/* The snapshot                                                             */

static void
snapshot_free(struct snapshot *s)
{
	PQclear(s->changes);
	PQclear(s->work);
	PQclear(s->gpus);
	memset(s, 0, sizeof *s);
}

/* the block's first GPU decides which executor launches it */
#define WORK_SQL "SELECT job_id, status, command, pool, block_first, block_size, nodes, slots" \
	" FROM gpualloc.executor_work" \
	" WHERE nodes[1] = $1::integer AND ($2::text IS NULL OR pool = $2::text)" \
	" ORDER BY booked_at NULLS LAST, job_id"
#define GPUS_SQL "SELECT gpu_id, workload_kind, job_id, service, slot, pool" \
	" FROM gpualloc.current_allocation" \
	" WHERE node = $1::integer AND ($2::text IS NULL OR pool = $2::text)" \
	" ORDER BY pool, service, slot"
/* only our jobs' rows: what booked them, for the notify-to-start time */
#define CHANGES_SQL "SELECT seq, change, job_id FROM gpualloc.allocation_changes($1::bigint)" \
	" WHERE job_id IS NOT NULL AND node = $2::integer" \
	" AND ($3::text IS NULL OR pool = $3::text) ORDER BY seq"

/*
 * All reads in one REPEATABLE READ transaction, so they agree with each
 * other, sent in one round trip.
 */
static bool
snapshot_take(struct executor *ex, struct snapshot *s)
{
	char		node[16], since[24];
	struct batch_item q[6] = {
		{.sql = "BEGIN ISOLATION LEVEL REPEATABLE READ"},
		{.sql = "SELECT gpualloc.allocation_seq()"},
		{.sql = CHANGES_SQL, .nparams = 3, .params = {since, node, ex->opt.pool}},
		{.sql = WORK_SQL, .nparams = 2, .params = {node, ex->opt.pool}},
		{.sql = GPUS_SQL, .nparams = 2, .params = {node, ex->opt.pool}},
		{.sql = "COMMIT"},
	};
	int			failed = -1;

	memset(s, 0, sizeof *s);
	snprintf(node, sizeof node, "%d", ex->opt.node);
	snprintf(since, sizeof since, "%lld", ex->last_seq);
	if (!db_batch(ex, q, 6, false))
		return false;
	for (int i = 0; i < 6; i++)
		if (!q[i].res && failed < 0)
			failed = i;
	if (failed >= 0)
	{
		struct db_error ignored;

		logmsg("could not read the allocation: %s", q[failed].err.message);
		db_do(ex, "ROLLBACK", 0, NULL, &ignored);
		for (int i = 0; i < 6; i++)
			PQclear(q[i].res);
		return false;
	}
	s->seq = PQgetisnull(q[1].res, 0, 0) ? 0 : atoll(PQgetvalue(q[1].res, 0, 0));
	s->changes = q[2].res;
	s->work = q[3].res;
	s->gpus = q[4].res;
	PQclear(q[0].res);
	PQclear(q[1].res);
	PQclear(q[5].res);
	return true;
}

/* ------------------------------------------------------------------------ */
/* Children                                                                 */

static struct child *
child_add(struct executor *ex, pid_t pid, enum child_kind kind)
{
	struct child *c;

	ex->children = grow(ex->children, &ex->cap_children, ex->nchildren + 1, sizeof *c);
	c = &ex->children[ex->nchildren++];
	memset(c, 0, sizeof *c);
	c->pid = pid;
	c->kind = kind;
	c->state = CHILD_RUNNING;
	return c;
}

static void
child_remove(struct executor *ex, size_t i)
{
	free(ex->children[i].service);
	ex->children[i] = ex->children[--ex->nchildren];
}

static size_t
count_children(const struct executor *ex, enum child_kind kind)
{
	size_t		n = 0;

	for (size_t i = 0; i < ex->nchildren; i++)
		n += ex->children[i].kind == kind;
	return n;
}

/* SIGTERM to the job's process group; SIGKILL follows after the grace period. */
static void
stop_job(struct executor *ex, struct child *c, const char *why, bool report)
{
	if (c->state != CHILD_RUNNING)
		return;
	kill(-c->pid, SIGTERM);
	c->state = CHILD_STOPPING;
	c->stop_reason = why;
	c->report = report;
	c->kill_at = now_mono() + ex->opt.grace_seconds;
	logmsg("stopping job %lld (pid %d): %s", c->job_id, (int) c->pid, why);
}

static void
enforce_kills(struct executor *ex)
{
	double		now = now_mono();

	for (size_t i = 0; i < ex->nchildren; i++)
	{
		struct child *c = &ex->children[i];

		if (c->state == CHILD_STOPPING && !c->killed && now >= c->kill_at)
		{
			kill(-c->pid, SIGKILL);
			c->killed = true;
			logmsg("killed job %lld (pid %d): still running %.1f s after SIGTERM",
				   c->job_id, (int) c->pid, ex->opt.grace_seconds);
		}
	}
}

/*
 * Report a finished job.  True when the report is done with: accepted, or
 * refused because the job is no longer running (cancelled or requeued while
 * it ran).  False when the connection is down: it is retried later, with the
 * exit time it really had.
 */
static bool
report_finished(struct executor *ex, struct child *c)
{
	char		id[24], ago[32], msg[160], how[48];
	bool		ok = WIFEXITED(c->wait_status) && WEXITSTATUS(c->wait_status) == 0;
	const char *params[5] = {id, "false", ago, msg, c->block_first[0] ? c->block_first : NULL};
	struct db_error err;

	describe_status(c->wait_status, how, sizeof how);
	snprintf(id, sizeof id, "%lld", c->job_id);
	snprintf(ago, sizeof ago, "%.6f", now_mono() - c->exited_at);
	if (c->state == CHILD_EXITED && c->stop_reason)
		snprintf(msg, sizeof msg, "stopped: %s (%s)", c->stop_reason, how);
	else
	{
		snprintf(msg, sizeof msg, "%s", how);
		params[1] = ok ? "true" : "false";
	}
	/* finished_at from the server's clock: ours may differ */
	if (db_do(ex, "SELECT gpualloc.job_finished($1::bigint, $2::boolean,"
			  " now() - make_interval(secs => $3::double precision), $4::text,"
			  " block_first => $5::integer)", 5, params, &err))
	{
		logmsg("finished job %lld: %s (%s)", c->job_id, msg, params[1][0] == 't' ? "succeeded" : "failed");
		return true;
	}
	if (err.lost)
		return false;
	logmsg("job %lld ended (%s), not reported: %s", c->job_id, msg, err.message);
	return true;
}

static void
job_exited(struct executor *ex, size_t i)
{
	struct child *c = &ex->children[i];
	char		how[48];
	bool		was_stopping = c->state == CHILD_STOPPING;

	describe_status(c->wait_status, how, sizeof how);
	/* what the shell left behind in its group goes with it */
	kill(-c->pid, SIGKILL);
	c->state = CHILD_EXITED;
	if (was_stopping && !c->report)
	{
		logmsg("stopped job %lld (pid %d): %s", c->job_id, (int) c->pid, how);
		child_remove(ex, i);
		/* a requeued job may be booked again: start it without waiting */
		ex->need_sync = true;
		return;
	}
	if (!was_stopping)
		logmsg("job %lld exited (pid %d): %s", c->job_id, (int) c->pid, how);
	if (report_finished(ex, c))
		child_remove(ex, i);
}

static void service_hook_exited(struct executor *ex, pid_t pid);

static void
reap_children(struct executor *ex)
{
	pid_t		pid;
	int			status;

	got_child = 0;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
	{
		for (size_t i = 0; i < ex->nchildren; i++)
		{
			struct child *c = &ex->children[i];

			if (c->pid != pid)
				continue;
			c->wait_status = status;
			c->exited_at = now_mono();
			if (c->kind == CHILD_JOB)
				job_exited(ex, i);
			else
			{
				if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
				{
					char		how[48];

					describe_status(status, how, sizeof how);
					logmsg("service hook for %s failed: %s", c->service, how);
				}
				service_hook_exited(ex, pid);
				child_remove(ex, i);
			}
			break;
		}
	}
}

/* Retry the job_finished reports a lost connection held back. */
static void
report_pending(struct executor *ex)
{
	for (size_t i = ex->nchildren; i-- > 0;)
	{
		struct child *c = &ex->children[i];

		if (!ex->conn)
			return;
		if (c->kind == CHILD_JOB && c->state == CHILD_EXITED && report_finished(ex, c))
			child_remove(ex, i);
	}
}

/* ------------------------------------------------------------------------ */
/* Starting jobs                                                            */

static void
booking_note(struct executor *ex, long long job_id, long long seq)
{
	for (size_t i = 0; i < ex->nbookings; i++)
		if (ex->bookings[i].job_id == job_id)
			return;				/* keep the first: the change that booked it */
	ex->bookings = grow(ex->bookings, &ex->cap_bookings, ex->nbookings + 1, sizeof *ex->bookings);
	ex->bookings[ex->nbookings++] = (struct booking) {job_id, seq};
}

/* The seq that booked a job, forgotten once used; 0 if unknown. */
static long long
booking_take(struct executor *ex, long long job_id)
{
	for (size_t i = 0; i < ex->nbookings; i++)
		if (ex->bookings[i].job_id == job_id)
		{
			long long	seq = ex->bookings[i].seq;

			ex->bookings[i] = ex->bookings[--ex->nbookings];
			return seq;
		}
	return 0;
}

/*
 * Claim a booked job on the block we read.  The block is passed explicitly so
 * the database records the start where we launch it even if a plan moved the
 * booking since our read (then the start fails if another workload holds the
 * block, or the booking elsewhere is given back).  False when it is no
 * longer ours to start.
 */
static bool
claim_job(struct executor *ex, long long job_id, const char *first, const char *size)
{
	char		id[24];
	const char *params[3] = {id, first, size};
	struct db_error err;

	snprintf(id, sizeof id, "%lld", job_id);
	if (db_do(ex, "SELECT gpualloc.job_started($1::bigint, $2::integer, $3::integer)", 3, params, &err))
		return true;
	if (!err.lost)
		logmsg("skipped job %lld: %s%s", job_id, err.message,
			   strcmp(err.sqlstate, SQLSTATE_NOT_IN_PREREQ) == 0 ? "" : " (will retry)");
	return false;
}

/* The executor could not create the job's process: the job is re-planned. */
static void
reject_job(struct executor *ex, long long job_id, const char *reason)
{
	char		id[24];
	const char *params[2] = {id, reason};
	struct db_error err;

	snprintf(id, sizeof id, "%lld", job_id);
	if (db_do(ex, "SELECT gpualloc.job_rejected($1::bigint, $2::text)", 2, params, &err))
		logmsg("rejected job %lld: %s", job_id, reason);
	else if (!err.lost)
		logmsg("could not reject job %lld (%s): %s", job_id, reason, err.message);
}

struct launch {
	long long	job_id;
	const char *command;
	const char *pool;
	char		cuda[512];		/* this node's slots of the block */
	char		nodes[512];		/* every node of the block, for multi-node launchers */
	char		first[16], size[16];
};

static void
launch_describe(const struct executor *ex, const PGresult *work, int row, struct launch *l)
{
	int			nodes[1024], slots[1024];
	int			n = parse_int_array(PQgetvalue(work, row, 6), nodes, 1024);
	int			m = parse_int_array(PQgetvalue(work, row, 7), slots, 1024);
	size_t		cu = 0, no = 0;

	memset(l, 0, sizeof *l);
	l->job_id = atoll(PQgetvalue(work, row, 0));
	l->command = PQgetisnull(work, row, 2) ? NULL : PQgetvalue(work, row, 2);
	l->pool = PQgetvalue(work, row, 3);
	snprintf(l->first, sizeof l->first, "%s", PQgetvalue(work, row, 4));
	snprintf(l->size, sizeof l->size, "%s", PQgetvalue(work, row, 5));
	for (int i = 0; i < n && i < m; i++)
	{
		if (nodes[i] == ex->opt.node && cu < sizeof l->cuda - 12)
			cu += snprintf(l->cuda + cu, sizeof l->cuda - cu, "%s%d", cu ? "," : "", slots[i]);
		if ((i == 0 || nodes[i] != nodes[i - 1]) && no < sizeof l->nodes - 12)
			no += snprintf(l->nodes + no, sizeof l->nodes - no, "%s%d", no ? "," : "", nodes[i]);
	}
}

/* In the child: wait at the gate until the start is confirmed, then exec. */
static void
exec_job(const int gate[2], const struct launch *l, int node)
{
	char		c, id[24], nodestr[16];
	ssize_t		r;

	child_prepare();
	/* our copy of the write end would keep the gate from ever closing */
	close(gate[1]);
	do
		r = read(gate[0], &c, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		_exit(0);				/* job_started failed: nothing runs */
	snprintf(id, sizeof id, "%lld", l->job_id);
	snprintf(nodestr, sizeof nodestr, "%d", node);
	setenv("CUDA_VISIBLE_DEVICES", l->cuda, 1);
	setenv("GPUALLOC_JOB_ID", id, 1);
	setenv("GPUALLOC_POOL", l->pool, 1);
	setenv("GPUALLOC_NODE", nodestr, 1);
	setenv("GPUALLOC_NODES", l->nodes, 1);
	setenv("GPUALLOC_BLOCK_FIRST", l->first, 1);
	setenv("GPUALLOC_BLOCK_SIZE", l->size, 1);
	execl("/bin/sh", "sh", "-c", l->command, (char *) NULL);
	_exit(127);
}

/*
 * notify_to_start_ms: from our receipt of the NOTIFY of the change set that
 * booked the job to our job_started() call; notify_to_confirm_ms: to its
 * answer, when the job's command is let run.
 */
static void
log_started(const struct executor *ex, const struct launch *l, pid_t pid,
			long long booked_seq, double t_call, double t_done)
{
	double		t_notice = booked_seq > 0 ? notice_time(ex, booked_seq) : -1;
	char		timing[128] = "";

	if (booked_seq > 0 && t_notice >= 0)
		snprintf(timing, sizeof timing, " booked_seq=%lld notify_to_start_ms=%.3f notify_to_confirm_ms=%.3f",
				 booked_seq, (t_call - t_notice) * 1000.0, (t_done - t_notice) * 1000.0);
	else if (booked_seq > 0)
		snprintf(timing, sizeof timing, " booked_seq=%lld notify_to_start_ms=before_notify", booked_seq);
	logmsg("started job %lld pid %d pool %s slots %s%s", l->job_id, (int) pid, l->pool, l->cuda, timing);
}

/* A job without a command cannot run: it fails, visibly, rather than cycle. */
static void
fail_commandless(struct executor *ex, const struct launch *l)
{
	char		id[24];
	const char *params[1] = {id};
	struct db_error err;

	snprintf(id, sizeof id, "%lld", l->job_id);
	if (claim_job(ex, l->job_id, l->first, l->size) &&
		db_do(ex, "SELECT gpualloc.job_finished($1::bigint, false, message => 'no command to run')",
			  1, params, &err))
		logmsg("failed job %lld: it has no command", l->job_id);
}

/* fork() with a gate pipe between parent and child; -1 with errno on failure. */
static pid_t
fork_gated(int gate[2])
{
	pid_t		pid;
	int			saved;

	if (pipe(gate) != 0)
		return -1;
	set_cloexec(gate[0]);
	set_cloexec(gate[1]);
	if ((pid = fork()) >= 0)
		return pid;
	saved = errno;
	close(gate[0]);
	close(gate[1]);
	errno = saved;
	return -1;
}

/* A job forked and waiting at its gate for the result of its claim. */
struct gated {
	struct launch l;
	pid_t		pid;
	int			gate;			/* write end */
	long long	booked_seq;
	char		id[24];
};

/*
 * Fork one booked job's process, waiting at a gate (a pipe) until its claim
 * succeeds: so the command never runs for a job we did not claim, and a fork
 * failure can still be reported as a rejection while the job is booked.
 */
static bool
fork_job(struct executor *ex, const PGresult *work, int row, struct gated *g)
{
	int			gate[2];

	launch_describe(ex, work, row, &g->l);
	if (!g->l.command || !*g->l.command)
	{
		fail_commandless(ex, &g->l);
		return false;
	}
	if ((g->pid = fork_gated(gate)) < 0)
	{
		char		reason[128];

		snprintf(reason, sizeof reason, "could not create a process: %s", strerror(errno));
		reject_job(ex, g->l.job_id, reason);
		return false;
	}
	if (g->pid == 0)
		exec_job(gate, &g->l, ex->opt.node);
	setpgid(g->pid, g->pid);	/* also here: whichever of us runs first */
	close(gate[0]);
	g->gate = gate[1];
	g->booked_seq = booking_take(ex, g->l.job_id);
	snprintf(g->id, sizeof g->id, "%lld", g->l.job_id);
	return true;
}

/* The claim succeeded: open the gate. */
static void
gate_open(struct executor *ex, struct gated *g, double t_call, double t_done)
{
	struct child *c;

	if (write(g->gate, "g", 1) != 1)
		logmsg("job %lld: could not open the gate: %s", g->l.job_id, strerror(errno));
	close(g->gate);
	c = child_add(ex, g->pid, CHILD_JOB);
	c->job_id = g->l.job_id;
	snprintf(c->block_first, sizeof c->block_first, "%s", g->l.first);
	log_started(ex, &g->l, g->pid, g->booked_seq, t_call, t_done);
}

/* The claim failed: the child exits at the closed gate (the kill makes sure). */
static void
gate_close(struct gated *g, const struct db_error *err)
{
	close(g->gate);
	kill(g->pid, SIGKILL);
	waitpid(g->pid, NULL, 0);
	if (!err->lost)
		logmsg("skipped job %lld: %s%s", g->l.job_id, err->message,
			   strcmp(err->sqlstate, SQLSTATE_NOT_IN_PREREQ) == 0 ? "" : " (will retry)");
}

/* ------------------------------------------------------------------------ */
/* Acting on a snapshot                                                     */

static void
note_changes(struct executor *ex, const struct snapshot *s)
{
	if (!s->changes)
		return;
	for (int i = 0; i < PQntuples(s->changes); i++)
		if (strcmp(PQgetvalue(s->changes, i, 1), "begin") == 0 && !PQgetisnull(s->changes, i, 2))
			booking_note(ex, atoll(PQgetvalue(s->changes, i, 2)), atoll(PQgetvalue(s->changes, i, 0)));
}

static void
note_my_gpus(struct executor *ex, const struct snapshot *s)
{
	int			n = PQntuples(s->gpus);

	ex->my_gpus = grow(ex->my_gpus, &ex->cap_my_gpus, (size_t) n, sizeof *ex->my_gpus);
	ex->nmy_gpus = (size_t) n;
	for (int i = 0; i < n; i++)
		ex->my_gpus[i] = atoll(PQgetvalue(s->gpus, i, 0));
}

static int
find_work(const PGresult *work, long long job_id)
{
	for (int i = 0; i < PQntuples(work); i++)
		if (atoll(PQgetvalue(work, i, 0)) == job_id)
			return i;
	return -1;
}

/* How many of this node's GPUs the job holds now. */
static int
rows_held(const PGresult *gpus, long long job_id)
{
	int			n = 0;

	for (int i = 0; i < PQntuples(gpus); i++)
		if (!PQgetisnull(gpus, i, 2) && atoll(PQgetvalue(gpus, i, 2)) == job_id)
			n++;
	return n;
}

static int
slots_here(const struct executor *ex, const PGresult *work, int row)
{
	int			nodes[1024];
	int			n = parse_int_array(PQgetvalue(work, row, 6), nodes, 1024);
	int			k = 0;

	for (int i = 0; i < n; i++)
		k += nodes[i] == ex->opt.node;
	return k;
}

/*
 * Stop what should not run any more.  A job that is not running in the
 * database (cancelled, requeued, failed, booked again) is stopped without a
 * report: the database already decided its fate.  A job still running whose
 * rows on this node ended is stopped and reported failed, so it does not stay
 * running without GPUs.
 */
static void
stop_unwanted(struct executor *ex, const struct snapshot *s)
{
	for (size_t i = 0; i < ex->nchildren; i++)
	{
		struct child *c = &ex->children[i];
		int			row;

		if (c->kind != CHILD_JOB || c->state != CHILD_RUNNING)
			continue;
		row = find_work(s->work, c->job_id);
		if (row < 0)
			stop_job(ex, c, "no longer running (cancelled, requeued or failed)", false);
		else if (strcmp(PQgetvalue(s->work, row, 1), "running") != 0)
			stop_job(ex, c, "requeued (booked again)", false);
		else if (rows_held(s->gpus, c->job_id) < slots_here(ex, s->work, row))
			stop_job(ex, c, "its allocation rows ended", true);
	}
}

/*
 * A job running on this node without a process of ours: a previous executor
 * started it and is gone, so nothing runs it any more.  Say so, rather than
 * let it hold its GPUs forever.
 */
static void
fail_orphans(struct executor *ex, const struct snapshot *s)
{
	for (int i = 0; i < PQntuples(s->work) && ex->conn; i++)
	{
		long long	job_id = atoll(PQgetvalue(s->work, i, 0));
		char		id[24];
		const char *params[2] = {id, PQgetisnull(s->work, i, 4) ? NULL : PQgetvalue(s->work, i, 4)};
		struct db_error err;

		if (strcmp(PQgetvalue(s->work, i, 1), "running") != 0 || have_job_child(ex, job_id))
			continue;
		snprintf(id, sizeof id, "%lld", job_id);
		if (db_do(ex, "SELECT gpualloc.job_finished($1::bigint, false,"
				  " message => 'lost: the executor has no process for it', block_first => $2::integer)",
				  2, params, &err))
			logmsg("failed job %lld: running here but the executor has no process for it", job_id);
		else if (!err.lost)
			logmsg("job %lld has no process here: %s", job_id, err.message);
	}
}

/*
 * Start every booked job of this node: fork each at its gate, then claim them
 * all with job_started() in one round trip (each its own transaction), then
 * open the gates of the claims that succeeded.
 */
static void
start_booked(struct executor *ex, const struct snapshot *s)
{
	int			n = PQntuples(s->work), k = 0;
	struct gated *g = xrealloc(NULL, (size_t) n * sizeof *g);
	struct batch_item *claims = xrealloc(NULL, (size_t) n * sizeof *claims);
	double		t_call, t_done;

	for (int i = 0; i < n && ex->conn; i++)
	{
		long long	job_id = atoll(PQgetvalue(s->work, i, 0));

		/* a requeued job's old process must be gone before it starts again */
		if (strcmp(PQgetvalue(s->work, i, 1), "booked") != 0 || have_job_child(ex, job_id) ||
			!fork_job(ex, s->work, i, &g[k]))
			continue;
		claims[k] = (struct batch_item) {
			.sql = "SELECT gpualloc.job_started($1::bigint, $2::integer, $3::integer)",
			.nparams = 3, .params = {g[k].id, g[k].l.first, g[k].l.size}};
		k++;
	}
	t_call = now_mono();
	if (k > 0)
		db_batch(ex, claims, k, true);
	t_done = now_mono();
	for (int i = 0; i < k; i++)
	{
		if (claims[i].res)
			gate_open(ex, &g[i], t_call, t_done);
		else
			gate_close(&g[i], &claims[i].err);
		PQclear(claims[i].res);
	}
	free(g);
	free(claims);
}

/* ------------------------------------------------------------------------ */
/* Services                                                                 */

static struct service *
service_find(struct executor *ex, const char *name)
{
	for (size_t i = 0; i < ex->nservices; i++)
		if (strcmp(ex->services[i].name, name) == 0)
			return &ex->services[i];
	return NULL;
}

static struct service *
service_get(struct executor *ex, const char *name, const char *pool)
{
	struct service *sv = service_find(ex, name);

	if (sv)
		return sv;
	ex->services = grow(ex->services, &ex->cap_services, ex->nservices + 1, sizeof *sv);
	sv = &ex->services[ex->nservices++];
	memset(sv, 0, sizeof *sv);
	sv->name = xstrdup(name);
	sv->pool = xstrdup(pool);
	sv->current = xstrdup("");
	sv->applied = xstrdup("");
	return sv;
}

static void
service_append_slot(struct service *sv, const char *slot)
{
	size_t		n = strlen(sv->current);

	sv->current = xrealloc(sv->current, n + strlen(slot) + 2);
	sprintf(sv->current + n, "%s%s", n ? "," : "", slot);
}

/* The slots each service holds on this node (rows come ordered by service, slot). */
static void
note_services(struct executor *ex, const struct snapshot *s)
{
	for (size_t i = 0; i < ex->nservices; i++)
		ex->services[i].current[0] = '\0';
	for (int i = 0; i < PQntuples(s->gpus); i++)
	{
		if (PQgetisnull(s->gpus, i, 3) || strcmp(PQgetvalue(s->gpus, i, 1), "service") != 0)
			continue;
		service_append_slot(service_get(ex, PQgetvalue(s->gpus, i, 3), PQgetvalue(s->gpus, i, 5)),
							PQgetvalue(s->gpus, i, 4));
	}
}

static pid_t
run_hook(const struct executor *ex, const struct service *sv)
{
	char		node[16];
	pid_t		pid = fork();

	if (pid != 0)
		return pid;
	child_prepare();
	snprintf(node, sizeof node, "%d", ex->opt.node);
	setenv("GPUALLOC_SERVICE", sv->name, 1);
	setenv("GPUALLOC_GPUS", sv->current, 1);
	setenv("GPUALLOC_POOL", sv->pool, 1);
	setenv("GPUALLOC_NODE", node, 1);
	execl("/bin/sh", "sh", "-c", ex->opt.service_hook, (char *) NULL);
	_exit(127);
}

/*
 * Tell the hook about each service whose GPUs changed.  One hook per service
 * at a time, so a slow hook's older news cannot land after newer news: a
 * change that arrives meanwhile runs when it exits, with the latest set.
 */
static void
apply_services(struct executor *ex)
{
	for (size_t i = 0; i < ex->nservices; i++)
	{
		struct service *sv = &ex->services[i];
		pid_t		pid = 0;

		if (sv->hook_pid != 0 || strcmp(sv->current, sv->applied) == 0)
			continue;
		if (ex->opt.service_hook && (pid = run_hook(ex, sv)) < 0)
		{
			logmsg("service %s: could not run the hook: %s", sv->name, strerror(errno));
			continue;
		}
		free(sv->applied);
		sv->applied = xstrdup(sv->current);
		if (pid > 0)
		{
			struct child *c = child_add(ex, pid, CHILD_HOOK);

			c->service = xstrdup(sv->name);
			sv->hook_pid = pid;
			setpgid(pid, pid);
			logmsg("service %s holds slots [%s] here (hook pid %d)", sv->name, sv->current, (int) pid);
		}
		else
			logmsg("service %s holds slots [%s] here", sv->name, sv->current);
	}
}

static void
service_hook_exited(struct executor *ex, pid_t pid)
{
	for (size_t i = 0; i < ex->nservices; i++)
		if (ex->services[i].hook_pid == pid)
			ex->services[i].hook_pid = 0;
	apply_services(ex);
}

/* ------------------------------------------------------------------------ */
/* The loop                                                                 */

/*
 * current_allocation lists every GPU of the node, held or free: none means
 * the node is in no pool (or not in --pool) and nothing will run here.  The
 * executor keeps running, since the node may be added later; it says so
 * when that is found, and again when it changes.
 */
static void
check_node_known(struct executor *ex, const struct snapshot *s)
{
	int			ngpus = PQntuples(s->gpus);
	int			node = ex->opt.node;

	if (ngpus == 0 && !ex->node_absent)
	{
		if (ex->opt.pool)
			logmsg("warning: node %d is not in pool %s: nothing will run here until it is added"
				   " (gpualloc.add_node('%s', %d)) or --pool names a pool it is in",
				   node, ex->opt.pool, ex->opt.pool, node);
		else
			logmsg("warning: node %d is in no pool of this cluster: nothing will run here"
				   " until it is added (gpualloc.add_node)", node);
	}
	else if (ngpus > 0 && ex->node_absent)
		logmsg("node %d now has %d GPUs", node, ngpus);
	ex->node_absent = ngpus == 0;
}

static void
sync_state(struct executor *ex)
{
	struct snapshot s;

	ex->need_sync = false;
	ex->next_poll = now_mono() + ex->opt.poll_seconds;
	/* exits from while we were disconnected go first, so the read below sees
	 * those jobs ended rather than running without a process (orphans) */
	report_pending(ex);
	if (!snapshot_take(ex, &s))
		return;
	/* this connection works: the next loss starts again at the shortest delay */
	ex->backoff = BACKOFF_MIN;
	check_node_known(ex, &s);
	note_changes(ex, &s);
	note_my_gpus(ex, &s);
	ex->last_seq = s.seq;
	stop_unwanted(ex, &s);
	fail_orphans(ex, &s);
	if (!ex->opt.once || !ex->synced_once)
		start_booked(ex, &s);
	note_services(ex, &s);
	apply_services(ex);
	ex->synced_once = true;
	snapshot_free(&s);
}

static double
next_deadline(const struct executor *ex)
{
	double		t = ex->conn ? ex->next_poll : ex->reconnect_at;

	for (size_t i = 0; i < ex->nchildren; i++)
		if (ex->children[i].state == CHILD_STOPPING && !ex->children[i].killed &&
			ex->children[i].kill_at < t)
			t = ex->children[i].kill_at;
	return t;
}

/* Sleep until the server sends something, a signal arrives, or a deadline. */
static void
wait_for_events(struct executor *ex, double deadline)
{
	struct pollfd fds[2];
	int			nfds = 1;
	double		wait = deadline - now_mono();
	int			ms = ex->need_sync || wait <= 0 ? 0 : (int) (wait * 1000) + 1;

	fds[0] = (struct pollfd) {.fd = wake_pipe[0], .events = POLLIN};
	if (ex->conn && PQsocket(ex->conn) >= 0)
		fds[nfds++] = (struct pollfd) {.fd = PQsocket(ex->conn), .events = POLLIN};
	if (poll(fds, (nfds_t) nfds, ms) < 0 && errno != EINTR)
		logmsg("poll: %s", strerror(errno));
	drain_wake_pipe();
	if (got_child)
		reap_children(ex);
	if (ex->conn && nfds == 2 && (fds[1].revents & (POLLIN | POLLERR | POLLHUP)))
		read_notifications(ex);
	enforce_kills(ex);
}

/* With --once: done when the first pass has run and its jobs have ended. */
static bool
once_done(const struct executor *ex)
{
	return ex->opt.once && ex->synced_once && ex->nchildren == 0;
}

static void
run(struct executor *ex)
{
	while (!got_stop && !ex->exit_status && !once_done(ex))
	{
		if (!ex->conn && now_mono() >= ex->reconnect_at)
			db_connect(ex);
		if (ex->conn)
			read_notifications(ex);
		if (ex->conn && (ex->need_sync || now_mono() >= ex->next_poll))
			sync_state(ex);
		if (once_done(ex) || ex->exit_status)
			break;
		wait_for_events(ex, next_deadline(ex));
	}
}

/* Stop every job (reported failed: the executor ended them) and wait for all
 * children, bounded by the grace period. */
static void
shutdown_executor(struct executor *ex)
{
	double		give_up = now_mono() + ex->opt.grace_seconds + SHUTDOWN_EXTRA;

	if (count_children(ex, CHILD_JOB) > 0)
		logmsg("shutting down: stopping %zu jobs", count_children(ex, CHILD_JOB));
	for (size_t i = 0; i < ex->nchildren; i++)
		if (ex->children[i].kind == CHILD_JOB)
			stop_job(ex, &ex->children[i], "the executor is shutting down", true);
	while (ex->nchildren > 0 && now_mono() < give_up)
	{
		size_t		waiting = 0;

		for (size_t i = 0; i < ex->nchildren; i++)
			waiting += ex->children[i].state != CHILD_EXITED;
		if (waiting == 0)
		{
			/* after a configuration error, connecting again cannot report them */
			if (!ex->conn && ex->exit_status)
				break;
			if (!ex->conn)
				db_connect(ex);
			report_pending(ex);
			if (ex->nchildren > 0)
				wait_for_events(ex, now_mono() + 0.5);
			continue;
		}
		wait_for_events(ex, next_deadline(ex) < give_up ? next_deadline(ex) : give_up);
	}
	if (ex->nchildren > 0)
		logmsg("exiting with %zu children unaccounted for", ex->nchildren);
	if (ex->conn)
		PQfinish(ex->conn);
	ex->conn = NULL;
	logmsg("stopped");
}

/* ------------------------------------------------------------------------ */
/* Options                                                                  */

static void
usage(FILE *out)
{
	fprintf(out,
			"Usage: gpualloc-executor [connection options] --node N [options]\n"
			"\n"
			"Runs the batch jobs gpualloc books on one node and reports their start and end.\n"
			"\n"
			"Connection options (the PG* environment variables apply too):\n"
			"  -h, --host=HOST          server host or socket directory (a list, for failover)\n"
			"  -p, --port=PORT          server port\n"
			"  -U, --username=USER      user, a member of gpualloc_executor\n"
			"  -d, --dbname=DB          database name, or a conninfo string or URI\n"
			"Options:\n"
			"  --node=N                 the node of the pool this machine is (required)\n"
			"  --pool=NAME              only this pool (default: every pool's node N)\n"
			"  --service-hook=CMD       run when a service's GPUs on this node change,\n"
			"                           with GPUALLOC_SERVICE and GPUALLOC_GPUS set\n"
			"  --poll-seconds=S         re-read at least this often (default 5)\n"
			"  --grace-seconds=S        SIGTERM to SIGKILL when stopping a job (default 10)\n"
			"  --once                   start what is booked now, wait for it to end, exit\n"
			"  --help                   this text\n"
			"\n"
			"Exit status: 0 stopped by SIGTERM/SIGINT or --once done; 1 the server refused\n"
			"the set-up (password, role, database, rights, extension); 2 bad usage.\n");
}

static double
parse_seconds(const char *name, const char *arg)
{
	char	   *end;
	double		v = strtod(arg, &end);

	if (end == arg || *end || !(v > 0) || v > 86400)
	{
		fprintf(stderr, "gpualloc-executor: %s must be a number of seconds in (0, 86400], got \"%s\"\n",
				name, arg);
		exit(2);
	}
	return v;
}

static int
parse_node(const char *arg)
{
	char	   *end;
	long		v = strtol(arg, &end, 10);

	if (end == arg || *end || v < 0 || v > 1000000)
	{
		fprintf(stderr, "gpualloc-executor: --node must be a node number (>= 0), got \"%s\"\n", arg);
		exit(2);
	}
	return (int) v;
}

/*
 * A --dbname that is a connection string or URI must parse: libpq refuses
 * a misspelt keyword or a broken URI before it tries any server, with no
 * SQLSTATE, and the executor would retry it forever as a server that is
 * down.  A plain database name is left to the server.
 */
static void
check_conninfo(const char *dbname)
{
	char	   *err = NULL;
	PQconninfoOption *parsed;

	if (dbname == NULL || (strchr(dbname, '=') == NULL &&
						   strncmp(dbname, "postgresql://", 13) != 0 &&
						   strncmp(dbname, "postgres://", 11) != 0))
		return;
	parsed = PQconninfoParse(dbname, &err);
	if (parsed == NULL)
	{
		fprintf(stderr, "gpualloc-executor: --dbname: %s%s", err ? err : "out of memory",
				err ? "" : "\n");
		PQfreemem(err);
		exit(2);
	}
	PQconninfoFree(parsed);
}

static void
parse_options(int argc, char **argv, struct options *opt)
{
	enum { OPT_NODE = 256, OPT_POOL, OPT_HOOK, OPT_POLL, OPT_GRACE, OPT_ONCE, OPT_HELP };
	static const struct option longopts[] = {
		{"host", required_argument, NULL, 'h'},
		{"port", required_argument, NULL, 'p'},
		{"username", required_argument, NULL, 'U'},
		{"dbname", required_argument, NULL, 'd'},
		{"node", required_argument, NULL, OPT_NODE},
		{"pool", required_argument, NULL, OPT_POOL},
		{"service-hook", required_argument, NULL, OPT_HOOK},
		{"poll-seconds", required_argument, NULL, OPT_POLL},
		{"grace-seconds", required_argument, NULL, OPT_GRACE},
		{"once", no_argument, NULL, OPT_ONCE},
		{"help", no_argument, NULL, OPT_HELP},
		{NULL, 0, NULL, 0}
	};
	int			c;

	*opt = (struct options) {.node = -1, .poll_seconds = 5, .grace_seconds = 10};
	while ((c = getopt_long(argc, argv, "h:p:U:d:", longopts, NULL)) != -1)
	{
		switch (c)
		{
			case 'h': opt->host = optarg; break;
			case 'p': opt->port = optarg; break;
			case 'U': opt->user = optarg; break;
			case 'd': opt->dbname = optarg; break;
			case OPT_NODE: opt->node = parse_node(optarg); break;
			case OPT_POOL: opt->pool = optarg; break;
			case OPT_HOOK: opt->service_hook = optarg; break;
			case OPT_POLL: opt->poll_seconds = parse_seconds("--poll-seconds", optarg); break;
			case OPT_GRACE: opt->grace_seconds = parse_seconds("--grace-seconds", optarg); break;
			case OPT_ONCE: opt->once = true; break;
			case OPT_HELP: usage(stdout); exit(0);
			default: usage(stderr); exit(2);
		}
	}
	if (optind < argc && !opt->dbname)
		opt->dbname = argv[optind++];	/* psql-style: a trailing database name */
	check_conninfo(opt->dbname);
	if (optind < argc || opt->node < 0)
	{
		fprintf(stderr, optind < argc ? "gpualloc-executor: unexpected argument \"%s\"\n"
				: "gpualloc-executor: --node is required%s\n", optind < argc ? argv[optind] : "");
		usage(stderr);
		exit(2);
	}
}

int
main(int argc, char **argv)
{
	static struct executor ex;	/* static: the notification ring is large */

	parse_options(argc, argv, &ex.opt);
	log_node = ex.opt.node;
	setup_signals();
	ex.backoff = BACKOFF_MIN;
	logmsg("starting (pool %s, poll every %.1f s%s)", ex.opt.pool ? ex.opt.pool : "any",
		   ex.opt.poll_seconds, ex.opt.once ? ", once" : "");
	run(&ex);
	if (got_stop)
		logmsg("signal received: shutting down");
	shutdown_executor(&ex);
	return ex.exit_status;
}
