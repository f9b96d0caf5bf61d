/*
 * args.c — the command line: "--name value", "--name=value", "-x value",
 * "-xvalue" and flags, against two option tables (the command's own and the
 * connection options every command takes), so connection options may come
 * before or after the subcommand, as with psql.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The command being parsed, so that a usage error points at its own help. */
static const char *current_command;

void
cli_set_command(const char *name)
{
	current_command = name;
}

void
cli_usage_error(const char *fmt,...)
{
	va_list		ap;

	fputs("gpualloc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry \"gpualloc%s%s --help\" for more information.\n",
			current_command ? " " : "", current_command ? current_command : "");
}

static cli_opt *
find_long(cli_opt *table, const char *name, size_t len)
{
	for (cli_opt *o = table; o && o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

static cli_opt *
find_letter(cli_opt *table, char letter)
{
	for (cli_opt *o = table; o && o->name; o++)
		if (o->letter == letter)
			return o;
	return NULL;
}

/*
 * "--name" or "--name=value": the value is inline, or the next argument when
 * the option takes one.
 */
static bool
parse_long(int argc, char **argv, int *i, cli_opt *own, cli_opt *shared)
{
	const char *arg = argv[*i] + 2;
	const char *eq = strchr(arg, '=');
	size_t		len = eq ? (size_t) (eq - arg) : strlen(arg);
	cli_opt    *o = find_long(own, arg, len);

	if (!o)
		o = find_long(shared, arg, len);
	if (!o)
	{
		cli_usage_error("unknown option \"--%.*s\"", (int) len, arg);
		return false;
	}
	if (!o->has_arg)
	{
		if (eq)
		{
			cli_usage_error("option \"--%s\" takes no value", o->name);
			return false;
		}
		o->value = "";
		return true;
	}
	if (eq)
		o->value = eq + 1;
	else if (*i + 1 < argc)
		o->value = argv[++*i];
	else
	{
		cli_usage_error("option \"--%s\" needs a value", o->name);
		return false;
	}
	return true;
}

/* "-x", "-x value" or "-xvalue"; flags do not combine ("-ab"), keeping it simple. */
static bool
parse_short(int argc, char **argv, int *i, cli_opt *own, cli_opt *shared)
{
	char		letter = argv[*i][1];
	cli_opt    *o = find_letter(own, letter);

	if (!o)
		o = find_letter(shared, letter);
	if (!o)
	{
		cli_usage_error("unknown option \"-%c\"", letter);
		return false;
	}
	if (!o->has_arg)
	{
		if (argv[*i][2] != '\0')
		{
			cli_usage_error("unknown option \"%s\"", argv[*i]);
			return false;
		}
		o->value = "";
		return true;
	}
	if (argv[*i][2] != '\0')
		o->value = argv[*i] + 2;
	else if (*i + 1 < argc)
		o->value = argv[++*i];
	else
	{
		cli_usage_error("option \"-%c\" needs a value", letter);
		return false;
	}
	return true;
}

static bool
add_positional(cli_args *args, const char *arg)
{
	if (args->n_pos == CLI_MAX_POSITIONAL)
	{
		cli_usage_error("too many arguments");
		return false;
	}
	args->pos[args->n_pos++] = arg;
	return true;
}

bool
cli_parse(int argc, char **argv, int *next, cli_opt *own, cli_opt *shared,
		  bool stop_at_positional, cli_args *args)
{
	bool		options_done = false;

	for (int i = *next; i < argc; i++)
	{
		const char *a = argv[i];
		bool		ok;

		/* "-" alone is a value (stdin, by convention), not an option */
		if (options_done || a[0] != '-' || a[1] == '\0')
		{
			if (stop_at_positional)
			{
				*next = i;
				return true;
			}
			ok = add_positional(args, a);
		}
		else if (strcmp(a, "--") == 0)
		{
			options_done = true;
			ok = true;
		}
		else if (a[1] == '-')
			ok = parse_long(argc, argv, &i, own, shared);
		else
			ok = parse_short(argc, argv, &i, own, shared);
		if (!ok)
			return false;
	}
	*next = argc;
	return true;
}

const char *
cli_get(const cli_opt *opts, const char *name)
{
	for (const cli_opt *o = opts; o && o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o->value;
	return NULL;
}

bool
cli_flag(const cli_opt *opts, const char *name)
{
	return cli_get(opts, name) != NULL;
}

bool
cli_parse_int(const char *text, long long lo, long long hi, long long *value)
{
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
		return false;
	if (value)
		*value = v;
	return true;
}

/*
 * Numbers are checked here, not left to the server, so that "--gpus two"
 * is a usage error naming the option rather than the server's "invalid
 * input syntax for type integer", which names no option.
 */
bool
cli_check_int(const char *option, const char *text, long long lo, long long hi)
{
	if (!cli_parse_int(text, lo, hi, NULL))
	{
		cli_usage_error("%s must be a whole number from %lld to %lld, got \"%s\"",
						option, lo, hi, text);
		return false;
	}
	return true;
}

/*
 * Digits only: no sign or blank, which strtoll would let through, since
 * each piece of a list or a time is exactly what the user typed.
 */
bool
cli_take_digits(const char **p, long long hi, long long *value)
{
	char	   *end;
	long long	v;

	if (!isdigit((unsigned char) **p))
		return false;
	errno = 0;
	v = strtoll(*p, &end, 10);
	if (errno != 0 || v > hi)
		return false;
	*p = end;
	*value = v;
	return true;
}

/*
 * "1,2,3": checked before connecting, since the server would read an empty
 * element, or an empty list, as no dependency at all and the job would
 * start without waiting.
 */
bool
cli_check_id_list(const char *option, const char *text)
{
	const char *p = text;
	long long	id;

	for (;;)
	{
		if (!cli_take_digits(&p, LLONG_MAX, &id) || id < 1 || (*p != ',' && *p != '\0'))
			break;
		if (*p == '\0')
			return true;
		p++;					/* the comma: another id must follow */
	}
	cli_usage_error("%s must be a comma-separated list of job ids, got \"%s\"", option, text);
	return false;
}

bool
cli_check_number(const char *option, const char *text)
{
	char	   *end;

	errno = 0;
	(void) strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0')
	{
		cli_usage_error("%s must be a number, got \"%s\"", option, text);
		return false;
	}
	return true;
}
