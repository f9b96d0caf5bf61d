/*
 * gpualloc — the command-line client of the gpualloc extension.
 *
 *   gpualloc [CONNECTION OPTIONS] COMMAND [OPTIONS] [--json]
 *
 * main.c parses the options every command shares (psql's connection
 * options, --json, --help), finds the command, checks its arguments before
 * connecting (so a usage error needs no server), connects and runs it.
 */
#include "cli.h"

#include <string.h>

/* the extension's version, which the Makefile passes in */
#ifndef CLI_VERSION
#define CLI_VERSION "unknown"
#endif

static const cli_command *const commands[] = {
	&cli_cmd_queue,
	&cli_cmd_nodes,
	&cli_cmd_submit,
	&cli_cmd_cancel,
	&cli_cmd_plan,
	&cli_cmd_status,
	&cli_cmd_history,
	&cli_cmd_share,
	&cli_cmd_windows,
	&cli_cmd_reservations,
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* Options every command takes, before or after the command's name. */
static cli_opt global_opts[] = {
	{"host", 'h', true, NULL},
	{"port", 'p', true, NULL},
	{"username", 'U', true, NULL},
	{"dbname", 'd', true, NULL},
	{"json", 'j', false, NULL},
	{"help", '?', false, NULL},
	{NULL, 0, false, NULL}
};

/*
 * Options of the program alone, given instead of a command: after a
 * command's name they are unknown options, not silently ignored.
 */
static cli_opt program_opts[] = {
	{"version", 'V', false, NULL},
	{NULL, 0, false, NULL}
};

static const char exit_codes_help[] =
"Exit status:\n"
"  0  success\n"
"  1  the server refused the request (bad input, a rule of the extension,\n"
"     missing privileges): its message, detail, hint and SQLSTATE are printed\n"
"  2  usage error: unknown command or option, missing or malformed argument\n"
"  3  cannot connect to the server (or the connection was lost)\n"
"  4  not found: the job, plan, pool or tenant named does not exist\n"
"     (SQLSTATE 42704, undefined_object)\n"
"  5  a local error: the --svg file or standard output cannot be written\n";

/* The width of the longest command's name, so that every summary lines up. */
static int
command_name_width(void)
{
	size_t		width = 0;

	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strlen(commands[i]->name) > width)
			width = strlen(commands[i]->name);
	return (int) width;
}

static void
program_help(void)
{
	printf("gpualloc is the command-line client of the gpualloc GPU allocator.\n"
		   "\n"
		   "Usage:\n"
		   "  gpualloc [CONNECTION OPTION]... COMMAND [OPTION]... [--json]\n"
		   "\n"
		   "Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		printf("  %-*s  %s\n", command_name_width(), commands[i]->name, commands[i]->summary);
	printf("\n"
		   "\"gpualloc COMMAND --help\" describes a command, its columns and the role it needs.\n"
		   "\n"
		   "Connection options (as psql's; the PG* environment variables apply too):\n"
		   "  -h, --host HOST        database server host or socket directory\n"
		   "  -p, --port PORT        database server port\n"
		   "  -U, --username USER    database user name\n"
		   "  -d, --dbname DB        database name, or a conninfo string or URI\n"
		   "A password comes from PGPASSWORD or ~/.pgpass: gpualloc never prompts.\n"
		   "\n"
		   "Output options:\n"
		   "  -j, --json             a JSON array of objects (one per row, keys as the\n"
		   "                         column names, numbers as numbers, NULL as null)\n"
		   "                         instead of an aligned table\n"
		   "  -?, --help             this help\n"
		   "  -V, --version          the client's version (alone, without a command)\n"
		   "\n"
		   "%s", exit_codes_help);
}

static const cli_command *
find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static bool
check_positional(const cli_command *cmd, const cli_args *args)
{
	if (args->n_pos < cmd->min_pos)
	{
		cli_usage_error("%s: missing argument", cmd->name);
		return false;
	}
	if (args->n_pos > cmd->max_pos)
	{
		cli_usage_error("%s: unexpected argument \"%s\"", cmd->name, args->pos[cmd->max_pos]);
		return false;
	}
	return true;
}

static int
connect_and_run(const cli_command *cmd, cli_ctx *ctx)
{
	cli_conn_opts co = {
		cli_get(global_opts, "host"), cli_get(global_opts, "port"),
		cli_get(global_opts, "username"), cli_get(global_opts, "dbname"), ctx->json
	};
	int			code = cli_connect(&co, &ctx->conn);

	if (code == CLI_OK)
		code = cmd->run(ctx);
	PQfinish(ctx->conn);
	return code;
}

/* Everything after the command's name: its options, arguments and the shared options. */
static int
run_command(const cli_command *cmd, int argc, char **argv, int next)
{
	cli_ctx		ctx = {NULL, false, {0, {NULL}}, cmd->opts};

	cli_set_command(cmd->name);
	if (!cli_parse(argc, argv, &next, cmd->opts, global_opts, false, &ctx.args))
		return CLI_USAGE;
	if (cli_flag(global_opts, "help"))
	{
		fputs(cmd->help, stdout);
		return CLI_OK;
	}
	ctx.json = cli_flag(global_opts, "json");
	if (!check_positional(cmd, &ctx.args) || (cmd->check && !cmd->check(&ctx)))
		return CLI_USAGE;
	return connect_and_run(cmd, &ctx);
}

static int
help_command(int argc, char **argv)
{
	const cli_command *cmd;

	if (argc == 0)
	{
		program_help();
		return CLI_OK;
	}
	cmd = find_command(argv[0]);
	if (!cmd)
	{
		cli_usage_error("unknown command \"%s\"", argv[0]);
		return CLI_USAGE;
	}
	if (argc > 1)
	{
		cli_usage_error("help takes one command, got the extra argument \"%s\"", argv[1]);
		return CLI_USAGE;
	}
	fputs(cmd->help, stdout);
	return CLI_OK;
}

static int
version(int argc, char **argv, int next)
{
	if (next < argc)
	{
		cli_usage_error("--version takes no command, got \"%s\"", argv[next]);
		return CLI_USAGE;
	}
	printf("gpualloc %s\n", CLI_VERSION);
	return CLI_OK;
}

static int
dispatch(int argc, char **argv)
{
	int			next = 1;
	const cli_command *cmd;

	if (!cli_parse(argc, argv, &next, program_opts, global_opts, true, NULL))
		return CLI_USAGE;
	if (cli_flag(program_opts, "version"))
		return version(argc, argv, next);
	if (next == argc)
	{
		if (cli_flag(global_opts, "help"))
		{
			program_help();
			return CLI_OK;
		}
		cli_usage_error("no command given");
		return CLI_USAGE;
	}
	/* "gpualloc help [COMMAND]", as git and others have it */
	if (strcmp(argv[next], "help") == 0)
		return help_command(argc - next - 1, argv + next + 1);
	cmd = find_command(argv[next]);
	if (!cmd)
	{
		cli_usage_error("unknown command \"%s\"", argv[next]);
		return CLI_USAGE;
	}
	return run_command(cmd, argc, argv, next + 1);
}

/*
 * Output that never reached its reader is a failure, even if everything
 * else went well: "gpualloc queue > file" on a full disk must not exit 0.
 */
int
main(int argc, char **argv)
{
	int			code = dispatch(argc, argv);
	int			flushed = cli_flush_stdout();

	return code != CLI_OK ? code : flushed;
}
