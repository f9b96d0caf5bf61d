# Every function of the gpualloc schema called with arguments drawn at
# random (fixed seed) from values of its parameters' types, valid and odd
# alike: names that exist and names that do not, NULL, empty and huge
# text, 0, negative and extreme numbers, NaN and infinities, infinite
# times, odd intervals and JSON, with replans in between; then each once
# with every time, number and interval at its top, and once at its bottom.
# Once as the superuser, once as a role that only submits (which changes
# nothing but its own jobs), once as one that submits and reports.
# Each call either succeeds or fails with an error of its own class: no
# internal error (XX000), no call running into the statement timeout (a
# call whose work does not follow its input), no backend crash; the
# unprivileged role is refused the admin functions and gains no right; and
# afterwards check_integrity() finds nothing and no GPU is booked twice.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $CALLS = 2000;
srand(20261205);

my $node = PostgreSQL::Test::Cluster->new('api_random');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
gpualloc.enabled = off
statement_timeout = '20s'
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant('postgres');
	SELECT gpualloc.add_pool('h100', 'H100-SXM', 80, 989);
	SELECT gpualloc.add_node('h100', n) FROM generate_series(0, 3) n;
	SELECT gpualloc.add_pool('l4', 'L4', 24, 121);
	SELECT gpualloc.add_node('l4', n) FROM generate_series(0, 1) n;
	SELECT gpualloc.add_service('chat', 'h100', capacity_per_gpu => 100, max_gpus => 8, churn_limit => 2);
	INSERT INTO gpualloc.demand_staging
	SELECT 'chat', h, 300 + 200 * sin(pi() * extract(hour FROM h AT TIME ZONE 'UTC') / 24)
	FROM generate_series(date_trunc('hour', now()) - interval '8 days',
						 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
	SELECT gpualloc.load_demand();
	SELECT gpualloc.submit_job('queued-' || i, 'training', 'h100', 1 << (i % 3), 1 << (i % 3),
							   priority => 1 + i % 4, work_gpu_hours => 2 + i % 9)
	FROM generate_series(1, 30) i;
	SELECT status FROM gpualloc.replan('fast');
});

# the schema's functions and their parameters' types
my @functions;
foreach my $line (split /\n/, $node->safe_psql('postgres', q{
	SELECT p.proname, p.pronargs, p.pronargdefaults,
		   coalesce((SELECT string_agg(format_type(t, NULL), ',' ORDER BY o)
					 FROM unnest(p.proargtypes) WITH ORDINALITY u(t, o)), '')
	FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
	WHERE n.nspname = 'gpualloc' AND p.prokind = 'f' AND p.proname <> 'replan'
	ORDER BY p.proname, p.oid}))
{
	my ($name, $nargs, $ndefaults, $types) = split /\|/, $line, 4;
	push @functions, [ $name, $nargs, $ndefaults, [ split /,/, $types ] ];
}
cmp_ok(scalar(@functions), '>=', 30, 'the schema has its functions to call');

my @text = ("'h100'", "'l4'", "'chat'", "'postgres'", "'nosuch'", "''", 'NULL', "'queued-1'",
	"'queued-' || (random() * 40)::int", "repeat('x', 300)", "'training'", "'batch_inference'",
	"'quantization'", "'fast'", "'full'", "'down'", "'up'", "'drained'", "'a''b'", "'kind'");
my %values = (
	'text' => \@text,
	'name' => \@text,
	'integer' => [ '0', '1', '2', '4', '3', '-1', 'NULL', '2147483647', '-2147483648', '64', '1024' ],
	'bigint' => [ '1', '5', '0', '-1', 'NULL', '9223372036854775807',
		'(SELECT max(job_id) FROM gpualloc.jobs)',
		"(SELECT min(job_id) FROM gpualloc.jobs WHERE status = 'booked')",
		"(SELECT min(job_id) FROM gpualloc.jobs WHERE status = 'running')" ],
	'double precision' => [ '1', '0.5', '0', '-1', "'NaN'", "'Infinity'", "'-Infinity'", 'NULL',
		'1e308', '1e-300', '3', '100' ],
	'timestamp with time zone' => [ 'now()', "now() + interval '1 hour'", "now() - interval '1 hour'",
		'NULL', "'infinity'", "'-infinity'", "'2000-01-01'", "'9999-12-31'", "'4713-01-01 BC'" ],
	'interval' => [ "'1 hour'", "'0'", "'-1 hour'", 'NULL', "'1 second'", "'10 years'",
		"'5 seconds'", "'1 microsecond'", "'1 month'" ],
	'jsonb' => [ "'{}'", "'[]'", "'null'", 'NULL',
		q{'{"variant": "lora_sft", "params_b": 8, "tokens_m": 50}'}, q{'{"params_b": -1}'},
		q{'{"params_b": "x"}'}, q{'{"nosuch": 1}'}, q{'"s"'},
		q{'{"variant": "full_sft", "params_b": 70, "tokens_m": 1e12}'} ],
	'boolean' => [ 'true', 'false', 'NULL' ],
	'text[]' => [ "ARRAY['l4']", 'ARRAY[]::text[]', 'NULL', "ARRAY['h100']", "ARRAY['nosuch']",
		'ARRAY[NULL]::text[]', "ARRAY['l4', 'l4']", "ARRAY['chat']", "ARRAY['chat', 'chat']" ],
	'timestamp with time zone[]' => [ "ARRAY[date_trunc('hour', now()) - interval '1 hour']",
		'ARRAY[]::timestamptz[]', 'NULL', "ARRAY['infinity']::timestamptz[]", 'ARRAY[now()]',
		'ARRAY[NULL]::timestamptz[]', "ARRAY[date_trunc('hour', now()), date_trunc('hour', now())]" ],
	'double precision[]' => [ 'ARRAY[100.0]', 'ARRAY[]::float8[]', 'NULL', "ARRAY['NaN']::float8[]",
		'ARRAY[-1.0]', 'ARRAY[1e308]', 'ARRAY[1.0, 2.0]', 'ARRAY[NULL]::float8[]' ],
	'regclass' => [ "'gpualloc.demand_staging'", "'pg_class'", 'NULL', "'gpualloc.jobs'" ],
	'bigint[]' => [ 'ARRAY[1]::bigint[]', 'ARRAY[]::bigint[]', 'NULL', 'ARRAY[NULL]::bigint[]',
		'ARRAY[-1]::bigint[]' ],
);

sub pick { my ($list) = @_; return $list->[ int(rand(scalar @$list)) ]; }

# Besides the random calls, every function once with each edge: every
# time, number and interval at its top, then at its bottom (names and
# documents drawn as above).
my %top = ('timestamp with time zone' => "'infinity'", 'integer' => '2147483647',
	'bigint' => '9223372036854775807', 'double precision' => "'Infinity'", 'interval' => "'10 years'");
my %bottom = ('timestamp with time zone' => "'-infinity'", 'integer' => '-2147483648',
	'bigint' => '-9223372036854775808', 'double precision' => "'-Infinity'", 'interval' => "'-1 hour'");

# A script of $CALLS random calls, replans among them when asked (a role
# without the grant of `replan` gets none), then the edge calls.
sub call_script
{
	my ($with_replans) = @_;
	my $script = "SET client_min_messages = warning;\n";
	my ($calls, %called) = (0);
	for (my $i = 0; $i < $CALLS; $i++)
	{
		$script .= "SELECT status FROM gpualloc.replan('fast');\n" if $with_replans && $i % 100 == 50;
		my ($name, $nargs, $ndefaults, $types) = @{ pick(\@functions) };
		my $k = $nargs - $ndefaults + int(rand($ndefaults + 1));
		my @args;
		foreach my $type (@$types[ 0 .. $k - 1 ])
		{
			last unless exists $values{$type};
			push @args, '(' . pick($values{$type}) . ")::$type";
		}
		next unless scalar(@args) == $k;
		$script .= "SELECT gpualloc.$name(" . join(', ', @args) . ");\n";
		$calls++;
		$called{$name} = 1;
	}
	foreach my $edge (\%top, \%bottom)
	{
		foreach my $f (@functions)
		{
			my ($name, $nargs, $ndefaults, $types) = @$f;
			next if grep { !exists $values{$_} } @$types;
			$script .= "SELECT gpualloc.$name("
			  . join(', ', map { '(' . ($edge->{$_} // pick($values{$_})) . ")::$_" } @$types) . ");\n";
		}
	}
	return ($script, $calls, scalar(keys %called));
}

# Run a script as a role: the calls that ended in an internal error or the
# statement timeout, each with its statement; how many calls failed; psql's
# error output.
sub run_calls
{
	my ($script, $role) = @_;
	my ($stdout, $stderr, @bad) = ('', '');
	my @lines = split /\n/, $script;
	$node->psql('postgres', $script, stdout => \$stdout, stderr => \$stderr, on_error_stop => 0,
		extra_params => [ '-v', 'VERBOSITY=verbose', '-U', $role ]);
	while ($stderr =~ /^psql:<stdin>:(\d+): (ERROR:  (?:XX000|57014):.*)$/mg)
	{
		push @bad, "$lines[$1 - 1]\n    $2";
	}
	my $errors = () = $stderr =~ /ERROR:  /g;
	return (\@bad, $errors, $stderr);
}

my ($script, $calls, $n_called) = call_script(1);
cmp_ok($calls, '>=', $CALLS * 0.8, "$calls random calls");
# a function whose parameter types have no values here is never called:
# give them values when this fails
is($n_called, scalar(@functions), 'every function of the schema is called');
my ($bad, $errors, $stderr) = run_calls($script, 'postgres');
is(scalar(@$bad), 0, 'no call ends in an internal error or runs into the statement timeout')
  or diag(join("\n", @$bad));
unlike($stderr, qr/server closed the connection|terminating connection/, 'no backend ends');
note("$errors of $calls calls were refused");

# A role that only submits, for its own tenant: its random calls change
# nothing of the cluster's set-up, of the demand, of the plans, and nothing
# of another tenant's jobs (what it may change is its own jobs, and the
# allocation the fast path books them on).
my $not_its_own = q{
	SELECT md5(concat_ws('|',
		(SELECT string_agg(j::text, ',' ORDER BY j.job_id) FROM gpualloc.jobs j
		 WHERE j.tenant <> 'random_submitter'),
		(SELECT string_agg(d::text, ',' ORDER BY d.job_id, d.after_job_id) FROM gpualloc.job_dependencies d
		 JOIN gpualloc.jobs j ON j.job_id = d.job_id WHERE j.tenant <> 'random_submitter'),
		(SELECT string_agg(x::text, ',' ORDER BY x::text) FROM gpualloc.pools x),
		(SELECT string_agg(x::text, ',' ORDER BY x::text) FROM gpualloc.gpus x),
		(SELECT string_agg(x::text, ',' ORDER BY x::text) FROM gpualloc.services x),
		(SELECT string_agg(x::text, ',' ORDER BY x::text) FROM gpualloc.tenants x),
		(SELECT string_agg(x::text, ',' ORDER BY x::text) FROM gpualloc.tenant_policies x),
		(SELECT string_agg(x::text, ',' ORDER BY x::text) FROM gpualloc.maintenance_windows x),
		(SELECT string_agg(x::text, ',' ORDER BY x::text) FROM gpualloc.advance_reservations x),
		(SELECT string_agg(x::text, ',' ORDER BY x::text) FROM gpualloc.demand_history x),
		(SELECT count(*) FROM gpualloc.plan_runs)))};
$node->safe_psql('postgres', q{
	CREATE ROLE random_submitter LOGIN IN ROLE gpualloc_submitter;
	SELECT gpualloc.add_tenant('random_submitter');
});
my $before = $node->safe_psql('postgres', $not_its_own);
($script, $calls) = call_script(0);
($bad, $errors, $stderr) = run_calls($script, 'random_submitter');
is(scalar(@$bad), 0, 'as a submitter: no internal error, no call into the timeout')
  or diag(join("\n", @$bad));
like($stderr, qr/ERROR:  42501:/, 'its calls of admin and executor functions are refused for lack of privilege');
is($node->safe_psql('postgres', $not_its_own), $before,
	'and change nothing but its own jobs and their bookings');
note("$errors of $calls calls were refused");

# the same as a role that submits and reports, for its own tenant only
$node->safe_psql('postgres', q{
	CREATE ROLE random_caller LOGIN IN ROLE gpualloc_submitter, gpualloc_executor;
	SELECT gpualloc.add_tenant('random_caller');
});
($script, $calls) = call_script(0);
($bad, $errors, $stderr) = run_calls($script, 'random_caller');
is(scalar(@$bad), 0, 'as a submitter and executor: no internal error, no call into the timeout')
  or diag(join("\n", @$bad));
like($stderr, qr/ERROR:  42501:/, 'its calls of admin functions are refused for lack of privilege');
unlike($stderr, qr/server closed the connection|terminating connection/, 'no backend ends');
is($node->safe_psql('postgres', q{
	SELECT rolsuper OR rolcreaterole OR rolcreatedb OR rolbypassrls
		   OR pg_has_role('random_caller', 'gpualloc_admin', 'MEMBER')
	FROM pg_roles WHERE rolname = 'random_caller'}), 'f', 'and the role gained no right');
note("$errors of $calls calls were refused");
unlike(slurp_file($node->logfile), qr/terminated by signal|TRAP:|PANIC:/, 'no crash in the server log');

# no executor runs here, so a booking may outlive its start timeout: that
# one finding reports the missing executor, not the state
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM gpualloc.check_integrity() WHERE problem <> 'booking past its timeout'}),
	'0', 'check_integrity() finds nothing');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM gpualloc.allocations a JOIN gpualloc.allocations b
	  ON a.gpu_id = b.gpu_id AND a.allocation_id < b.allocation_id AND a.during && b.during}),
	'0', 'no GPU booked twice');
is($node->safe_psql('postgres', q{SELECT status FROM gpualloc.replan('fast')}), 'succeeded',
	'and the planner still plans');

done_testing();
