# The command-line client, tools/gpualloc (built by `make tools`), against a
# live server: every subcommand's table and --json (parsed, with numbers
# checked to be JSON numbers), a submitted job appearing in the queue, the
# connection options (-h/-p, a conninfo string, PG* variables), roles, and
# the exit codes: 2 bad usage, 4 not found, 1 refused with the server's
# message, 3 no server; and 250 runs with arguments drawn at random, each
# ending with one of those codes and a message, never a signal.
use strict;
use warnings;
use B;
use Encode ();
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $cli = ($ENV{TESTDIR} // '.') . '/tools/gpualloc';
if (!-x $cli)
{
	# a failure, not a skip: a client that does not build must not pass
	fail("$cli is built (make tools)");
	done_testing();
	exit;
}

my $node = PostgreSQL::Test::Cluster->new('cli');
$node->init;
# the background planner stays idle: the test plans explicitly, so the
# queue it reads does not change under it
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
gpualloc.enabled = off
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant(current_user);
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.add_node('a100', 1);
	SELECT gpualloc.drain_gpu('a100', 1, 7);
	SELECT gpualloc.set_gpu_state('a100', 1, 6, 'down');
	SELECT gpualloc.add_service('chat', 'a100', 100, 4, churn_limit => 2);
	INSERT INTO gpualloc.demand_staging
	SELECT 'chat', h, 200 FROM generate_series(date_trunc('hour', now()) - interval '7 days',
											   date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
	SELECT gpualloc.load_demand();
	CREATE ROLE cli_reader LOGIN IN ROLE gpualloc_reader;
	CREATE ROLE cli_submitter LOGIN IN ROLE gpualloc_submitter;
	-- a registered tenant with no job, policy or usage: it exists all the same
	CREATE ROLE cli_idle;
	SELECT gpualloc.add_tenant('cli_idle');
});

# Runs the client against the node; (exit code, stdout, stderr).
sub run_cli
{
	my @args = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run([ $cli, '-h', $node->host, '-p', $node->port, '-d', 'postgres', @args ],
		'>', \$out, '2>', \$err);
	return ($? >> 8, $out, $err);
}

# The client's --json, decoded; fails the test when it is not a JSON array.
sub run_json
{
	my ($rc, $out, $err) = run_cli(@_, '--json');
	my $rows = eval { decode_json($out) };
	ok(defined $rows && ref $rows eq 'ARRAY', "@_ --json is a JSON array")
	  or diag("exit $rc\nstdout: $out\nstderr: $err");
	return $rows // [];
}

# The client with its standard output on a full device; (exit code, stderr).
sub run_cli_full
{
	my @args = @_;
	my $err = '';
	IPC::Run::run([ $cli, '-h', $node->host, '-p', $node->port, '-d', 'postgres', @args ],
		'>', '/dev/full', '2>', \$err);
	return ($? >> 8, $err);
}

# A JSON number decodes to a Perl number, a JSON string to a Perl string.
sub is_number
{
	my ($v) = @_;
	return 0 if !defined $v || ref $v;
	my $flags = B::svref_2object(\$v)->FLAGS;
	return ($flags & (B::SVp_IOK | B::SVp_NOK)) && !($flags & B::SVp_POK);
}

my ($rc, $out, $err);

# ---- help and usage errors: exit 2, nothing reaches a server ----
($rc, $out) = run_cli('--help');
is($rc, 0, '--help exits 0');
like($out, qr/Exit status:.*\b4\s+not found/s, '--help documents the exit codes');
($rc, $out) = run_cli('--version');
ok($rc == 0 && $out =~ /^gpualloc \d+\.\d+\n\z/, '--version');
($rc, $out) = run_cli('help', 'history');
ok($rc == 0 && $out =~ /^usage: gpualloc history/, 'help COMMAND');
for my $cmd (qw(queue nodes submit cancel plan status history share windows reservations))
{
	($rc, $out) = run_cli($cmd, '--help');
	ok($rc == 0 && $out =~ /^usage: gpualloc $cmd/, "$cmd --help");
}
for my $case ([ [], 'no command' ],
	[ ['frobnicate'], 'an unknown command' ],
	[ [ 'queue', '--bogus' ], 'an unknown option' ],
	[ [ 'queue', 'extra' ], 'an extra argument' ],
	[ [ 'submit', 'x', '--pool', 'a100' ], 'submit without --kind' ],
	[ [ 'submit', 'x', '--kind', 'training', '--pool', 'a100', '--gpus', 'two' ], 'a malformed --gpus' ],
	[ [ 'submit', 'x', '--kind', 'training', '--pool', 'a100', '--priority', 'high' ], 'a malformed --priority' ],
	[ [ 'cancel', 'abc' ], 'a malformed job id' ],
	[ ['cancel'], 'cancel without a job id' ],
	[ [ 'plan', '0' ], 'a plan id below 1' ],
	[ [ 'queue', '--version' ], '--version after a command' ],
	[ [ '--version', 'queue' ], '--version with a command' ],
	[ [ 'help', 'queue', 'extra' ], 'help with an extra argument' ],
	[ [ 'submit', 'x', '--kind', 'training', '--pool', 'a100', '--after-ok', '1,,2' ], 'an empty job id in --after-ok' ],
	[ [ 'submit', 'x', '--kind', 'training', '--pool', 'a100', '--after-ok', '1,' ], 'a trailing comma in --after-ok' ],
	[ [ 'submit', 'x', '--kind', 'training', '--pool', 'a100', '--after-ok', '' ], 'an empty --after-ok' ],
	[ [ 'submit', 'x', '--kind', 'training', '--pool', 'a100', '--after-any', '0' ], 'a job id below 1 in --after-any' ],
	[ [ 'submit', 'x', '--kind', 'training', '--pool', 'a100', '--after-any', 'x' ], 'a malformed --after-any' ],
	[ [ 'submit', 'x', '--kind', 'training', '--pool', 'a100', '--time-limit', '0.5' ], 'a fraction of a minute as --time-limit' ],
	[ [ 'submit', 'x', '--kind', 'training', '--pool', 'a100', '--time-limit', '-1' ], 'a negative --time-limit' ],
	[ [ 'history', '--state', 'done' ], 'an unknown --state' ])
{
	($rc, $out, $err) = run_cli(@{ $case->[0] });
	is($rc, 2, "usage error: $case->[1] exits 2");
}
like($err, qr/--state must be succeeded, failed or cancelled/, 'a usage error says what is wrong');
($rc, $out, $err) = run_cli('queue', '--version');
like($err, qr/unknown option "--version"/, 'queue --version: an unknown option');
($rc, $out, $err) = run_cli('help', 'queue', 'extra');
like($err, qr/help takes one command, got the extra argument "extra"/, 'help names the extra argument');
for my $opt ('--after-ok', '--after-any')
{
	($rc, $out, $err) = run_cli('submit', 'x', '--kind', 'training', '--pool', 'a100', $opt, '1,,2');
	like($err, qr/\Q$opt\E must be a comma-separated list of job ids, got "1,,2"/, "$opt names the option and the rule");
}
for my $gpus (':4', '1:2:4', '0', '2:')
{
	($rc, $out, $err) = run_cli('submit', 'x', '--kind', 'training', '--pool', 'a100', '--gpus', $gpus);
	ok($rc == 2 && $err =~ /--gpus must be N or N:M, whole numbers from 1 to \d+, got "\Q$gpus\E"\n/,
		"--gpus $gpus: the message quotes the whole value") or diag($err);
}
($rc, $out, $err) = run_cli('submit', 'x', '--kind', 'training', '--pool', 'a100', '--time-limit', '0.5');
like($err, qr/--time-limit must be whole minutes, .* got "0\.5"/, '--time-limit 0.5 names the option and the forms');

# ---- the program's help lines its commands up ----
($rc, $out) = run_cli('--help');
my ($command_list) = $out =~ /^Commands:\n(.*?)\n\n/ms;
my @summary_cols = map { /^  \S+ +/ ? $+[0] : -1 } split /\n/, $command_list // '';
ok(@summary_cols == 10 && !grep({ $_ != $summary_cols[0] } @summary_cols)
	  && $command_list =~ /^  reservations  advance/m,
	'--help: every command\'s summary starts in the same column') or diag($command_list);

# ---- no server: exit 3 ----
my $free_port = PostgreSQL::Test::Cluster::get_free_port();
{
	my ($o, $e) = ('', '');
	IPC::Run::run([ $cli, '-h', $node->host, '-p', $free_port, 'queue' ], '>', \$o, '2>', \$e);
	is($? >> 8, 3, 'no server at the port: exit 3');
	like($e, qr/cannot connect to the server/, 'and it says so');
}

# ---- submit, then the job is in the queue ----
($rc, $out, $err) = run_cli('submit', 'train', '--kind', 'training', '--pool', 'a100',
	'--gpus', '2:4', '--priority', '2', '--work-gpu-hours', '8', '--command', 'python train.py --lr 1e-4');
is($rc, 0, 'submit exits 0') or diag($err);
like($out, qr/^\d+\n\z/, 'submit prints the job id alone');
chomp(my $train = $out);

my $rows = run_json('submit', 'score', '--kind', 'batch_inference', '--pool', 'a100',
	'--gpus', '1', '--work-gpu-hours', '3', '--features', '{"params_b": 8}');
ok(@$rows == 1 && is_number($rows->[0]{job_id}), 'submit --json gives the job id as a number');
my $score = $rows->[0]{job_id};

my $deadline = $node->safe_psql('postgres', "SELECT now() + interval '7 days'");
my $later = $node->safe_psql('postgres', "SELECT now() + interval '3 hours'");
($rc, $out, $err) = run_cli('submit', 'wait', '--kind', 'quantization', '--pool', 'a100',
	'--gpus', '1', '--work-gpu-hours', '1', '--not-before', $later, '--deadline', $deadline);
is($rc, 0, 'submit with --not-before and --deadline') or diag($err);
chomp(my $wait = $out);
is($node->safe_psql('postgres', "SELECT not_before = '$later' AND deadline = '$deadline' FROM gpualloc.jobs WHERE job_id = $wait"),
	't', 'the times reach the job');
is($node->safe_psql('postgres', "SELECT command FROM gpualloc.jobs WHERE job_id = $train"),
	'python train.py --lr 1e-4', 'the command reaches the job untouched');

($rc, $out) = run_cli('queue');
is($rc, 0, 'queue exits 0');
like($out, qr/^JOB_ID\s+NAME\s+TENANT\s+POOL\s+STATE\s+PRIORITY\s+GPUS\s+BLOCK\s+START\s+EST_FINISH\s+REASON\n/,
	'queue prints a header');
like($out, qr/^\s*$train\s+train\s+\S+\s+a100\s+(queued|booked)\s+2\s/m, 'the submitted job is in the queue table');
my @lines = split /\n/, $out;
is(scalar @lines, 4, 'one line per job under the header');
my $col = index($lines[0], 'NAME');
ok(!grep({ substr($_, $col - 2, 3) !~ /^  \S/ } @lines), 'columns are aligned');

$rows = run_json('queue');
my ($j) = grep { $_->{job_id} == $train } @$rows;
ok($j, 'the submitted job is in queue --json');
is_deeply([ sort keys %$j ],
	[ sort qw(job_id name tenant pool state priority gpus block start est_finish reason) ],
	'queue --json keys are the column names');
ok(is_number($j->{job_id}) && is_number($j->{priority}) && $j->{priority} == 2,
	'numbers are JSON numbers');
my ($w) = grep { $_->{job_id} == $wait } @$rows;
is($w->{state}, 'queued', 'a job not to start before later is queued');
ok(!defined $w->{start} && $w->{reason} =~ /^not before /, 'before any plan: no start, and why it waits')
  or diag(explain $w);
like($j->{reason}, qr/^no plan yet/, 'the reason is queue_plan\'s pending_reason');

is_deeply(run_json('queue', '--tenant', 'cli_idle'), [], 'queue --tenant filters (an empty array)');
is(scalar @{ run_json('queue', '--pool', 'a100') }, 3, 'queue --pool');

# ---- a plan ----
$node->safe_psql('postgres', "SELECT gpualloc.replan('fast')");
$rows = run_json('queue');
($w) = grep { $_->{job_id} == $wait } @$rows;
ok(defined $w->{start} && $w->{block} =~ /^\d+$/, 'after a plan: the planned start and block')
  or diag(explain $w);
($j) = grep { $_->{job_id} == $train } @$rows;
like($j->{reason}, qr/^booked: /, 'a booked job waits for the executor');
ok(is_number($w->{priority}) && $w->{gpus} eq '1', 'gpus is the planned block size');

($rc, $out, $err) = run_cli('plan');
is($rc, 0, 'plan exits 0');
like($out, qr/^status\s+succeeded$/m, 'plan shows the status');
like($out, qr/^gpus_changed\s+\d+$/m, 'and the GPUs it changed');
my $plan_id = $node->safe_psql('postgres', 'SELECT max(plan_id) FROM gpualloc.plan_runs');
$rows = run_json('plan', $plan_id);
ok(@$rows == 1 && $rows->[0]{plan_id} == $plan_id && $rows->[0]{mode} eq 'fast', 'plan ID --json');
ok(is_number($rows->[0]{objective}) && is_number($rows->[0]{gpus_changed}) && !defined $rows->[0]{gap},
	'objective a number, the fast plan\'s gap null');
for my $k (qw(plan_id mode status objective bound gap solve_ms gpus_changed message))
{
	ok(exists $rows->[0]{$k}, "plan --json has $k");
}

my $svg = PostgreSQL::Test::Utils::tempdir() . '/plan.svg';
($rc, $out, $err) = run_cli('plan', $plan_id, '--svg', $svg);
is($rc, 0, 'plan --svg exits 0') or diag($err);
my $picture = slurp_file($svg);
like($picture, qr/^<svg\b.*<\/svg>\s*\z/s, 'the file is the plan\'s SVG');
($rc, $out) = run_cli('plan', $plan_id, '--svg', '-');
ok($rc == 0 && $out =~ /^<svg\b.*<\/svg>\s*\z/s, '--svg - writes the SVG alone to stdout');
($rc, $out, $err) = run_cli('plan', $plan_id, '--svg', '/nonexistent/dir/plan.svg');
is($rc, 5, 'an SVG file that cannot be written: exit 5');

($rc, $out, $err) = run_cli('plan', '987654');
is($rc, 4, 'an unknown plan: exit 4');
like($err, qr/plan 987654 does not exist/, 'and it says which');
like($err, qr/^gpualloc: ERROR:  plan 987654 does not exist\nSQLSTATE:  42704\n\z/,
	'with its SQLSTATE, as the server\'s own not-found errors');

# ---- nodes ----
($rc, $out) = run_cli('nodes');
is($rc, 0, 'nodes exits 0');
like($out, qr/^POOL\s+NODE\s+GPUS\s+UP\s+DRAIN\s+DOWN\s+JOBS\s+SERVICES\s+IDLE\n/, 'nodes prints a header');
$rows = run_json('nodes');
is(scalar @$rows, 2, 'one row per node');
my %n = map { $_->{node} => $_ } @$rows;
ok($n{1}{up} == 6 && $n{1}{drain} == 1 && $n{1}{down} == 1 && $n{0}{up} == 8, 'up, drain and down per node');
my $held = $node->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE workload_kind = 'job') || ' ' || count(*) FILTER (WHERE workload_kind = 'service')
	FROM gpualloc.current_allocation});
is(($n{0}{jobs} + $n{1}{jobs}) . ' ' . ($n{0}{services} + $n{1}{services}), $held,
	'jobs and services as current_allocation has them');
ok(!grep({ $_->{jobs} + $_->{services} + $_->{idle} > $_->{gpus} } @$rows), 'no GPU counted twice');

# ---- refused by the server: exit 1 with its message; a missing pool: exit 4 ----
($rc, $out, $err) = run_cli('submit', 'odd', '--kind', 'training', '--pool', 'a100',
	'--gpus', '3', '--work-gpu-hours', '1');
is($rc, 1, 'a block size the server refuses: exit 1');
like($err, qr/ERROR:\s+gpus_min must be a power of two.*SQLSTATE:\s+22023/s, 'with the server\'s message and SQLSTATE');
($rc, $out, $err) = run_cli('submit', 'twice', '--kind', 'training', '--pool', 'a100',
	'--gpus', '1', '--work-gpu-hours', '1', '--tenant', 'nobody');
is($rc, 4, 'a tenant that is not registered: exit 4');
like($err, qr/tenant "nobody" is not registered/, 'with the server\'s message');
($rc, $out, $err) = run_cli('submit', 'train', '--kind', 'training', '--pool', 'a100',
	'--gpus', '1', '--work-gpu-hours', '1');
is($rc, 1, 'a second active job of the same name: exit 1');
like($err, qr/HINT:\s+Job names are unique/, 'with the server\'s hint');
($rc, $out, $err) = run_cli('submit', 'x', '--kind', 'training', '--pool', 'h100', '--gpus', '1',
	'--work-gpu-hours', '1');
is($rc, 4, 'a pool that does not exist: exit 4');
($rc, $out, $err) = run_cli('submit', 'x', '--kind', 'training', '--pool', 'a100', '--gpus', '1',
	'--work-gpu-hours', '1', '--features', '{not json');
is($rc, 1, 'features that are not JSON: exit 1');
($rc, $out, $err) = run_cli('submit', "x'); DROP TABLE gpualloc.jobs; --", '--kind', 'training',
	'--pool', 'a100', '--gpus', '1', '--work-gpu-hours', '1');
is($node->safe_psql('postgres', "SELECT count(*) > 0 FROM gpualloc.jobs"), 't',
	'a name full of SQL is a value, not SQL');

# ---- cancel ----
($rc, $out, $err) = run_cli('cancel', $score, '--reason', 'not needed');
is($rc, 0, 'cancel exits 0') or diag($err);
is($node->safe_psql('postgres', "SELECT status || ' ' || status_message FROM gpualloc.jobs WHERE job_id = $score"),
	'cancelled not needed', 'the job is cancelled with its reason');
($rc, $out, $err) = run_cli('cancel', $score);
is($rc, 1, 'cancelling it again is refused: exit 1');
like($err, qr/job $score is already cancelled.*DETAIL:/s, 'with the server\'s message and detail');
($rc, $out, $err) = run_cli('cancel', '987654');
is($rc, 4, 'an unknown job: exit 4');
like($err, qr/job 987654 does not exist/, 'and it says which');

# ---- history ----
is($node->safe_psql('postgres', "SELECT status FROM gpualloc.jobs WHERE job_id = $train"), 'booked',
	'the plan booked the first job');
my $size = $node->safe_psql('postgres', qq{
	SELECT gpualloc.job_started($train);
	SELECT gpualloc.job_finished($train, succeeded => true, message => 'converged');
	SELECT block_size FROM gpualloc.jobs WHERE job_id = $train;
}) =~ s/.*\n//sr;
($rc, $out) = run_cli('history');
is($rc, 0, 'history exits 0');
like($out, qr/^\s*$train\s+train\s.*\ssucceeded\s.*\s\d\d:\d\d:\d\d\s+$size\s+0\s+converged$/m,
	'the finished job with its elapsed time, GPUs and message');
$rows = run_json('history');
my %h = map { $_->{job_id} => $_ } @$rows;
ok($h{$train} && $h{$train}{state} eq 'succeeded' && is_number($h{$train}{gpus}) && $h{$train}{gpus} == $size,
	'history --json has the succeeded job');
ok(defined $h{$train}{start} && defined $h{$train}{end} && defined $h{$train}{elapsed}, 'with start, end, elapsed');
ok($h{$score} && $h{$score}{state} eq 'cancelled' && !defined $h{$score}{start}
	  && $h{$score}{message} eq 'not needed', 'and the job cancelled before it started');
is_deeply([ map { $_->{job_id} } @{ run_json('history', '--state', 'succeeded') } ], [$train],
	'history --state');
is_deeply(run_json('history', '--since', 'tomorrow'), [], 'history --since');
is(scalar @{ run_json('history', '--since', '-infinity', '--tenant', 'postgres') }, 2, 'history --tenant');

# ---- submit with dependencies and a time limit ----
($rc, $out, $err) = run_cli('submit', 'after', '--kind', 'quantization', '--pool', 'a100', '--gpus', '1',
	'--work-gpu-hours', '1', '--after-ok', $train, '--after-any', $wait, '--time-limit', '90 minutes');
is($rc, 0, 'submit with --after-ok, --after-any and --time-limit') or diag($err);
chomp(my $after = $out);
is($node->safe_psql('postgres', "SELECT string_agg(after_job_id || ' ' || kind, ',' ORDER BY kind DESC)
	FROM gpualloc.job_dependencies WHERE job_id = $after"), "$train after_ok,$wait after_any",
	'the links reach the job');
is($node->safe_psql('postgres', "SELECT time_limit = interval '90 minutes' FROM gpualloc.jobs WHERE job_id = $after"),
	't', 'and so does the time limit');
# --time-limit as sbatch --time: a bare number is minutes, its forms converted
for my $case ([ '30', '30 minutes' ], [ '1:30', '1 minute 30 seconds' ],
	[ '2:03:04', '2 hours 3 minutes 4 seconds' ], [ '2-12', '2 days 12 hours' ],
	[ '1-02:30', '1 day 2 hours 30 minutes' ], [ '1-2:3:4', '1 day 2 hours 3 minutes 4 seconds' ],
	[ '4 hours', '4 hours' ])
{
	my ($given, $interval) = @$case;
	($rc, $out, $err) = run_cli('submit', 'time-limit', '--kind', 'quantization', '--pool', 'a100', '--gpus', '1',
		'--work-gpu-hours', '1', '--not-before', 'tomorrow', '--time-limit', $given);
	chomp(my $id = $out);
	ok($rc == 0 && $node->safe_psql('postgres',
			"SELECT time_limit = interval '$interval' FROM gpualloc.jobs WHERE job_id = $id") eq 't',
		"--time-limit $given is $interval") or diag("exit $rc\n$err");
	$node->safe_psql('postgres', "SELECT gpualloc.cancel_job($id)") if $rc == 0;
}
($rc, $out, $err) = run_cli('submit', 'after2', '--kind', 'quantization', '--pool', 'a100', '--gpus', '1',
	'--work-gpu-hours', '1', '--after-ok', '987654');
is($rc, 4, 'waiting for an unknown job: exit 4');
like($err, qr/after_ok job 987654 does not exist/, 'and it says which');

# ---- submit on several GPU models ----
$node->safe_psql('postgres', q{
	SELECT gpualloc.add_pool('h100', 'H100-SXM', 80, 989);
	SELECT gpualloc.add_node('h100', 0);
});
($rc, $out, $err) = run_cli('submit', 'multi', '--kind', 'training', '--pool', 'h100', '--gpus', '1',
	'--work-gpu-hours', '2', '--not-before', 'tomorrow', '--alt-pools', 'a100');
is($rc, 0, 'submit with --alt-pools') or diag($err);
chomp(my $multi = $out);
is($node->safe_psql('postgres', "SELECT p.name || ' ' || jp.preference || ' ' || round(jp.est_work_gpu_hours::numeric, 3)
	FROM gpualloc.job_pools jp JOIN gpualloc.pools p USING (pool_id) WHERE jp.job_id = $multi"),
	'a100 1 6.340', 'the alternative reaches the job, its work scaled by peak throughput');
$node->safe_psql('postgres', "SELECT gpualloc.cancel_job($multi)");
($rc, $out, $err) = run_cli('submit', 'multi2', '--kind', 'training', '--pool', 'h100', '--gpus', '1',
	'--work-gpu-hours', '1', '--alt-pools', 'a100,nowhere');
is($rc, 4, 'an unknown alternative pool: exit 4');
like($err, qr/alt_pools: pool "nowhere" does not exist/, 'and it says which');

($rc, $out, $err) = run_cli('status');
is($rc, 0, 'status exits 0') or diag($err);
my $seq = $node->safe_psql('postgres', 'SELECT gpualloc.allocation_seq()');
like($out, qr/^allocation_seq\s+$seq$/m, 'status shows the allocation\'s sequence');
like($out, qr/^integrity_problems\s+0$/m, 'and no integrity problem, for an admin');
$rows = run_json('status');
is_deeply([ sort keys %{ $rows->[0] } ],
	[ sort qw(enabled worker_alive worker_pid last_run_at last_run_status last_success_at
		  consecutive_failures last_error last_error_at next_run_due plan_id plan_age allocation_seq integrity_problems) ],
	'status --json keys');
ok(is_number($rows->[0]{allocation_seq}) && JSON::PP::is_bool($rows->[0]{enabled}) && !$rows->[0]{enabled},
	'numbers as numbers, booleans as booleans (the planner is disabled here)');

# ---- a reader: the views, not the admin's functions or tables ----
($rc, $out, $err) = run_cli('-U', 'cli_reader', 'status', '--json');
is($rc, 0, 'a reader may call status') or diag($err);
$rows = eval { decode_json($out) } // [ {} ];
ok(exists $rows->[0]{integrity_problems} && !defined $rows->[0]{integrity_problems},
	'but is not shown the integrity check');
($rc, $out, $err) = run_cli('-U', 'cli_reader', 'queue', '--json');
ok($rc == 0 && $out eq "[]\n", 'a reader of no tenant sees no job by default') or diag($err);
ok(scalar @{ run_json('-U', 'cli_reader', 'queue', '--all') } > 0, 'and every tenant\'s with --all');
$rows = run_json('-U', 'cli_reader', 'plan');
ok(@$rows == 1 && !defined $rows->[0]{gpus_changed}, 'plan for a reader: gpus_changed is NULL');
($rc, $out, $err) = run_cli('-U', 'cli_reader', 'history');
is($rc, 1, 'history needs the jobs table: a reader is refused');
like($err, qr/permission denied/, 'with the server\'s message');

# ---- share, windows, reservations ----
my $me = $node->safe_psql('postgres', 'SELECT current_user');
$node->safe_psql('postgres', qq{
	SELECT gpualloc.set_tenant_policy('$me', 'a100', guarantee => 4, "limit" => 12, borrow_limit => 2,
									  weight => 2, cohort => 'lab');
	SELECT gpualloc.add_maintenance_window('a100', now() + interval '300 days', now() + interval '301 days',
										   first_gpu => 8, gpus => 4, reason => 'nvlink swap');
	-- one over: none can be added in the past, so it is moved there
	SELECT gpualloc.add_maintenance_window('a100', now() + interval '400 days', now() + interval '401 days',
										   reason => 'past');
	UPDATE gpualloc.maintenance_windows SET starts_at = now() - interval '3 days', ends_at = now() - interval '2 days'
	WHERE reason = 'past';
	SELECT gpualloc.add_reservation('$me', 'a100', now() + interval '200 days', now() + interval '201 days',
									gpus => 8, reason => 'eval week');
});
($rc, $out) = run_cli('share');
like($out, qr/^TENANT\s+POOL\s+GUARANTEE\s+LIMIT\s+BORROW\s+COHORT\s+IN_USE\s+BORROWED\s+WEIGHT\s+SHARE\s+USAGE\s+FACTOR\s+PRIORITY_FACTOR\n/,
	'share prints a header');
$rows = run_json('share', '--pool', 'a100', '--tenant', $me);
my $in_use = $node->safe_psql('postgres', qq{
	SELECT count(*) FROM gpualloc.current_allocation WHERE pool = 'a100' AND tenant = '$me'});
ok(@$rows == 1 && $rows->[0]{guarantee} == 4 && $rows->[0]{limit} == 12 && $rows->[0]{borrow} eq 'up to 2'
	  && $rows->[0]{cohort} eq 'lab' && $rows->[0]{in_use} == $in_use
	  && $rows->[0]{borrowed} == ($in_use > 4 ? $in_use - 4 : 0),
	'share: the policy, the GPUs held and those above the guarantee');
ok(is_number($rows->[0]{factor}) && is_number($rows->[0]{in_use}), 'share --json numbers are numbers');
($rc, $out, $err) = run_cli('-U', 'cli_reader', 'share', '--json');
ok($rc == 0 && scalar @{ decode_json($out) } >= 1, 'a reader sees every tenant\'s share') or diag($err);
$rows = run_json('windows');
ok(@$rows == 1 && $rows->[0]{gpus} eq '8-11' && $rows->[0]{gpus_closed} == 4 && $rows->[0]{state} eq 'scheduled'
	  && $rows->[0]{reason} eq 'nvlink swap', 'windows: the one not over, its GPUs and state');
is(scalar @{ run_json('windows', '--all') }, 2, 'windows --all: the one over too');
is(scalar @{ run_json('windows', '--pool', 'h100') }, 0, 'windows --pool: none in another pool');
$rows = run_json('reservations');
ok(@$rows == 1 && $rows->[0]{tenant} eq $me && $rows->[0]{gpus} eq '0-7' && $rows->[0]{state} eq 'scheduled',
	'reservations: tenant, GPUs, state');
($rc, $out, $err) = run_cli('-U', 'cli_reader', 'reservations', '--json');
ok($rc == 0 && $out eq "[]\n", 'a reader of no tenant sees no reservation') or diag($err);

# one GPU is shown by its index, as queue shows a one-GPU block
$node->safe_psql('postgres', qq{
	SELECT gpualloc.add_reservation('$me', 'a100', now() + interval '210 days', now() + interval '211 days',
									first_gpu => 12, gpus => 1, reason => 'one gpu');
	SELECT gpualloc.add_maintenance_window('a100', now() + interval '310 days', now() + interval '311 days',
										   first_gpu => 13, gpus => 1, reason => 'one gpu');
});
($rc, $out) = run_cli('reservations');
like($out, qr/^\s*\d+\s+\Q$me\E\s+a100\s+12\s.*one gpu$/m, 'reservations: one GPU as its index, not 12-12');
($w) = grep { $_->{reason} eq 'one gpu' } @{ run_json('windows') };
is($w->{gpus}, '13', 'windows: one GPU as its index too');

# ---- a pool or tenant a filter names must exist: exit 4, as submit --pool nosuch ----
for my $case ([qw(queue --pool)], [qw(queue --tenant)], [qw(nodes --pool)], [qw(share --tenant)],
	[qw(share --pool)], [qw(history --tenant)], [qw(windows --pool)], [qw(reservations --pool)])
{
	my ($cmd, $opt) = @$case;
	my $what = $opt =~ s/^--//r;
	($rc, $out, $err) = run_cli($cmd, $opt, 'nosuch');
	ok($rc == 4 && $out eq '' && $err =~ /^gpualloc: ERROR:  $what "nosuch" does not exist\nSQLSTATE:  42704\n\z/,
		"$cmd $opt nosuch: exit 4, saying which does not exist") or diag("exit $rc\n$out$err");
}
($rc, $out, $err) = run_cli('share', '--tenant', $me, '--pool', 'nosuch');
ok($rc == 4 && $err =~ /pool "nosuch" does not exist/, 'share: an existing tenant, a missing pool: exit 4');
is_deeply(run_json('history', '--tenant', 'cli_idle'), [], 'a registered tenant without jobs: an empty history');
($rc, $out, $err) = run_cli('-U', 'cli_reader', 'share', '--tenant', $me, '--json');
ok($rc == 0 && @{ decode_json($out) } >= 1, 'a reader sees the tenant it filters on') or diag($err);
($rc, $out, $err) = run_cli('-U', 'cli_submitter', 'share', '--tenant', $me);
ok($rc == 4 && $err =~ /tenant "\Q$me\E" does not exist/,
	'a submitter: a tenant it is not a member of is as one that does not exist') or diag("exit $rc\n$err");

# ---- standard output that cannot be written: exit 5, saying so ----
for my $args ([qw(queue)], [qw(queue --json)], [qw(nodes)], [qw(status)], [qw(--help)], [qw(plan)])
{
	($rc, $err) = run_cli_full(@$args);
	ok($rc == 5 && $err =~ /^gpualloc: cannot write to standard output: No space left on device\n\z/,
		"@$args > /dev/full: exit 5 with the reason") or diag("exit $rc\n$err");
}
($rc, $err) = run_cli_full('plan', '--svg', '-');
ok($rc == 5 && $err =~ /^gpualloc: cannot write to standard output: No space left on device\n\z/,
	'plan --svg - > /dev/full: exit 5, saying so once') or diag("exit $rc\n$err");
($rc, $err) = run_cli_full('submit', 'full', '--kind', 'quantization', '--pool', 'a100', '--gpus', '1',
	'--work-gpu-hours', '1', '--not-before', 'tomorrow');
my $full = $node->safe_psql('postgres', "SELECT job_id FROM gpualloc.jobs WHERE name = 'full' AND status = 'queued'");
ok($rc == 5 && $full ne ''
	  && $err =~ /cannot write to standard output: .*\n.*job $full was submitted, but its id could not be printed/,
	'submit > /dev/full: exit 5, naming the job it made') or diag("exit $rc\n$err");
$node->safe_psql('postgres', "SELECT gpualloc.cancel_job($full)") if $full ne '';

# ---- connection options: a conninfo string, a URI, the PG* variables ----
{
	my ($o, $e) = ('', '');
	my $conninfo = "host=" . $node->host . " port=" . $node->port . " dbname=postgres";
	IPC::Run::run([ $cli, '-d', $conninfo, 'nodes', '--json' ], '>', \$o, '2>', \$e);
	is($? >> 8, 0, '-d with a conninfo string') or diag($e);
	local $ENV{PGHOST} = $node->host;
	local $ENV{PGPORT} = $node->port;
	local $ENV{PGDATABASE} = 'postgres';
	IPC::Run::run([ $cli, 'plan', '--json' ], '>', \$o, '2>', \$e);
	is($? >> 8, 0, 'the PG* environment variables') or diag($e);
	my $uri = 'postgresql:///postgres?host=' . $node->host . '&port=' . $node->port;
	IPC::Run::run([ $cli, 'status', '-d', $uri ], '>', \$o, '2>', \$e);
	is($? >> 8, 0, '-d with a URI, after the command') or diag($e);
}

# ---- arguments at random (fixed seed): every run ends with an exit code
# of its own, 0 to 5, never a signal, and says why when it fails ----
{
	srand(6006);
	my %options = (
		queue => [qw(-a --all -t --tenant -P --pool)],
		nodes => [qw(-P --pool)],
		submit => [qw(-k --kind -P --pool -g --gpus --priority -w --work-gpu-hours -f --features -t
			  --tenant -c --command --not-before --deadline --after-ok --after-any --time-limit --alt-pools)],
		cancel => [qw(-r --reason)],
		plan => [qw(--svg)],
		status => [],
		history => [qw(-s --since -t --tenant -S --state)],
		share => [qw(-t --tenant -P --pool)],
		windows => [qw(-P --pool -a --all)],
		reservations => [qw(-P --pool -a --all)],
		bogus => []);
	my @values = ('a100', 'chat', 'training', '1', '0', '-1', '2:8', '3:1', ':', '8:', '1e400', 'NaN',
		'x' x 5000, '', '{"params_b": 8}', '{', '[]', $me, 'nosuch', 'now', 'infinity', '2026-13-40',
		'4 hours', '-1 hours', '1,2,3', ',,', '99999999999999999999', '1:2:3', 'a100,a100', '%s%n',
		'\\', "'", '"', '-', '--', '/nonexistent/dir/x.svg', 'succeeded', '--x', '-Z', '--pool=a100');
	my @global = qw(-j --json -? -V);
	my @commands = sort keys %options;
	my $dir = PostgreSQL::Test::Utils::tempdir();
	my ($runs, @bad) = (0);
	for my $i (1 .. 250)
	{
		my $command = $commands[ int(rand(@commands)) ];
		my @args = rand() < 0.3 ? ($global[ int(rand(@global)) ]) : ();
		push @args, $command;
		for (1 .. int(rand(7)))
		{
			my $r = rand();
			my $opts = $options{$command};
			push @args, $r < 0.55 && @$opts ? $opts->[ int(rand(@$opts)) ] : $values[ int(rand(@values)) ];
		}
		my ($o, $e) = ('', '');
		# in a directory of its own: --svg takes whatever follows it as the file
		IPC::Run::run([ $cli, '-h', $node->host, '-p', $node->port, '-d', 'postgres', @args ],
			'>', \$o, '2>', \$e, init => sub { chdir $dir or die "chdir: $!" });
		my ($code, $signal) = ($? >> 8, $? & 127);
		$runs++;
		push @bad, "exit $code, signal $signal: @args\n$e"
		  if $signal || $code > 5 || ($code != 0 && $e !~ /\S/);
	}
	is(scalar(@bad), 0, "$runs runs with arguments at random: each exits 0 to 5, saying why it fails")
	  or diag(join("\n", @bad[ 0 .. ($#bad < 4 ? $#bad : 4) ]));
}

# ---- names wider than their characters: columns stay aligned ----
{
	# tenants are roles, whose names may be in any script: two Chinese
	# characters take four columns on a terminal, and an accented letter
	# written with a combining mark one
	my @tenants = (Encode::encode('UTF-8', "\x{7814}\x{7A76}"), Encode::encode('UTF-8', "cafe\x{301}"));
	for my $t (@tenants)
	{
		$node->safe_psql('postgres', qq{CREATE ROLE "$t" LOGIN IN ROLE gpualloc_submitter;
										SELECT gpualloc.add_tenant('$t');});
		my ($code, $o, $e) = run_cli('-U', $t, 'submit', 'wide-name', '--kind', 'training',
			'--pool', 'a100', '--gpus', '1', '--work-gpu-hours', '1');
		is($code, 0, 'a tenant with a multi-byte name submits') or diag($e);
	}
	my ($code, $o) = run_cli('queue', '--all');
	my @rows = split /\n/, Encode::decode('UTF-8', $o);
	my $at = index($rows[0], 'POOL');
	# the column each of their lines' POOL starts at, counting wide characters twice
	my @starts = map {
		my ($w, $i, $line) = (0, 0, $_);
		$line =~ s/\x{301}//g;	# a combining mark takes no column
		for (; $i < length($line) && $w < $at; $i++)
		{
			$w += substr($line, $i, 1) =~ /[\x{4E00}-\x{9FFF}]/ ? 2 : 1;
		}
		$w == $at && substr($line, $i - 2, 3) =~ /^  \S/ ? 'aligned' : "off: $_";
	} grep { /wide-name/ } @rows;
	is_deeply(\@starts, [ 'aligned', 'aligned' ], 'wide and combining characters keep the columns aligned')
	  or diag($o);
	$node->safe_psql('postgres', "SELECT gpualloc.cancel_job(job_id) FROM gpualloc.jobs WHERE name = 'wide-name'");
}

$node->stop;
done_testing();
