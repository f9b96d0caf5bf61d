# Live operation: a GPU failing under both gpualloc.on_gpu_failure policies,
# a booking that is never started, the change feed a consumer replays, the
# notification of every kind of change, and what the executor role may do.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('live');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
gpualloc.replan_interval = '1h'
gpualloc.replan_debounce = '1s'
gpualloc.booking_timeout = '10s'
});
$node->start;

sub sql { return $node->safe_psql('postgres', shift); }

sql(q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant('postgres');
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.add_node('a100', 1);
	CREATE ROLE exec_node0 LOGIN IN ROLE gpualloc_executor;
});
# the planner's first run, woken by the new nodes and soon after it finds the
# extension, comes before the checks below, which time its later runs
ok($node->poll_query_until('postgres', "SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE trigger = 'worker'"),
	'the planner plans the new cluster');

# a consumer's snapshot: every GPU's workload, and the sequence it is at
sub snapshot {
	my %gpus;
	for my $row (split /\n/, sql(q{
		SELECT gpu_id, coalesce('job ' || job_id, 'service ' || service, '') FROM gpualloc.current_allocation})) {
		my ($gpu, $what) = split /\|/, $row, 2;
		$gpus{$gpu} = $what;
	}
	return \%gpus;
}

my $seq0 = sql('SELECT gpualloc.allocation_seq()');
my $before = snapshot();

# a job booked and started, then its GPU fails: requeued, its run counted
my $a = sql(q{SELECT gpualloc.submit_job('a', 'training', 'a100', 4, 4, work_gpu_hours => 40)});
sql(q{SELECT status FROM gpualloc.replan('fast')});
is(sql("SELECT status FROM gpualloc.jobs WHERE job_id = $a"), 'booked', 'a planned job is booked');
is(sql("SELECT block_size FROM gpualloc.queue WHERE job_id = $a"), '4', 'the queue shows the booked block');
sql("SELECT gpualloc.job_started($a)");
my $slot = sql("SELECT block_first % 8 FROM gpualloc.jobs WHERE job_id = $a");
my $gpu_node = sql("SELECT block_first / 8 FROM gpualloc.jobs WHERE job_id = $a");
my $last_plan = sql('SELECT max(plan_id) FROM gpualloc.plan_runs');
my ($ret, $out, $err) = $node->psql('postgres',
	"LISTEN gpualloc; SELECT gpualloc.set_gpu_state('a100', $gpu_node, $slot, 'down');");
like($out, qr/"reason" : "gpu_down".*"jobs" : \[$a\]/, 'the executor is told the job lost its GPUs');
is(sql("SELECT status || ' ' || requeues || ' ' || (lost_gpu_hours > 0) FROM gpualloc.jobs WHERE job_id = $a"),
	'queued 1 true', 'requeue: the job is back in the queue with its lost run counted');
like(sql("SELECT status_message FROM gpualloc.jobs WHERE job_id = $a"), qr/went down while it ran: requeued/,
	'the job says why');
is(sql("SELECT count(*) FROM gpualloc.allocations WHERE job_id = $a AND end_seq IS NULL"), '0',
	'its rows have ended');
ok($node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE plan_id > $last_plan AND trigger = 'worker'"),
	'the failure wakes the planner at once');
ok($node->poll_query_until('postgres', "SELECT status = 'booked' FROM gpualloc.jobs WHERE job_id = $a"),
	'the requeued job is booked again');
is(sql(q{SELECT count(*) FROM gpualloc.current_allocation WHERE state = 'down' AND workload_kind IS NOT NULL}),
	'0', 'nothing is placed on the down GPU');
is(sql('SELECT count(*) FROM gpualloc.check_integrity()'), '0', 'integrity holds after the failure');

# a booked job whose GPU goes down loses its booking, not its place in the queue
my $block = sql("SELECT block_first FROM gpualloc.queue WHERE job_id = $a");
sql(sprintf("SELECT gpualloc.set_gpu_state('a100', %d, %d, 'down')", int($block / 8), $block % 8));
is(sql("SELECT status FROM gpualloc.jobs WHERE job_id = $a"), 'queued', 'a booking on a failed GPU is released');
like(sql("SELECT status_message FROM gpualloc.jobs WHERE job_id = $a"), qr/before the job started: booking released/,
	'and the job says why');
sql(q{SELECT gpualloc.set_gpu_state(name, node, slot, 'up') FROM gpualloc.gpus JOIN gpualloc.pools USING (pool_id)
	WHERE state = 'down'});

# the fail policy
sql("ALTER SYSTEM SET gpualloc.on_gpu_failure = 'fail'; SELECT pg_reload_conf();");
sql(q{SELECT status FROM gpualloc.replan('fast')});
is(sql("SELECT status FROM gpualloc.jobs WHERE job_id = $a"), 'booked', 'booked once more');
sql("SELECT gpualloc.job_started($a)");
$block = sql("SELECT block_first FROM gpualloc.jobs WHERE job_id = $a");
$node->poll_query_until('postgres', "SELECT current_setting('gpualloc.on_gpu_failure') = 'fail'");
sql(sprintf("SELECT gpualloc.set_gpu_state('a100', %d, %d, 'down')", int($block / 8), $block % 8));
is(sql("SELECT status || ' ' || (finished_at IS NOT NULL) FROM gpualloc.jobs WHERE job_id = $a"), 'failed true',
	'fail: a running job on a failed GPU fails');
is(sql("SELECT count(*) FROM gpualloc.allocations WHERE job_id = $a AND end_seq IS NULL"), '0',
	'and holds nothing');
sql(q{SELECT gpualloc.set_gpu_state(name, node, slot, 'up') FROM gpualloc.gpus JOIN gpualloc.pools USING (pool_id)
	WHERE state = 'down'});
sql("ALTER SYSTEM RESET gpualloc.on_gpu_failure; SELECT pg_reload_conf();");

# a booking nobody starts is released after gpualloc.booking_timeout (10 s)
my $b = sql(q{SELECT gpualloc.submit_job('b', 'training', 'a100', 8, 8, work_gpu_hours => 80)});
sql(q{SELECT status FROM gpualloc.replan('fast')});
is(sql("SELECT status FROM gpualloc.jobs WHERE job_id = $b"), 'booked', 'a second job is booked');
ok($node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM gpualloc.allocation_commits WHERE reason = 'booking_timeout'"),
	'an unstarted booking is released after the timeout');
like(sql("SELECT status_message FROM gpualloc.jobs WHERE job_id = $b"), qr/booking expired: not started within/,
	'the job says why');

# executor reports and notifications of each kind of change
my $c = sql(q{SELECT gpualloc.submit_job('c', 'quantization', 'a100', 2, 2, work_gpu_hours => 1)});
sql(q{SELECT status FROM gpualloc.replan('fast')});
$node->poll_query_until('postgres', "SELECT status = 'booked' FROM gpualloc.jobs WHERE job_id = $c");
($ret, $out, $err) = $node->psql('postgres', "LISTEN gpualloc; SELECT gpualloc.job_rejected($c, 'image missing');",
	extra_params => [ '-U', 'exec_node0' ]);
is($ret, 0, 'the executor role may reject a booking');
like($out, qr/"reason" : "rejected"/, 'a rejection is notified');
is(sql("SELECT status FROM gpualloc.jobs WHERE job_id = $c"), 'queued', 'a rejected job is queued again');
sql(q{SELECT status FROM gpualloc.replan('fast')});
$node->poll_query_until('postgres', "SELECT status = 'booked' FROM gpualloc.jobs WHERE job_id = $c");
($ret, $out, $err) = $node->psql('postgres', "LISTEN gpualloc; SELECT gpualloc.job_started($c);",
	extra_params => [ '-U', 'exec_node0' ]);
is($ret, 0, 'the executor role may report a start');
($ret, $out, $err) = $node->psql('postgres', "LISTEN gpualloc; SELECT gpualloc.job_finished($c, false, message => 'exit 3');",
	extra_params => [ '-U', 'exec_node0' ]);
like($out, qr/"reason" : "job_finished".*"jobs" : \[$c\]/, 'a finish is notified');
($ret, $out, $err) = $node->psql('postgres', 'SELECT job_id, status, slots FROM gpualloc.executor_work',
	extra_params => [ '-U', 'exec_node0' ]);
is($ret, 0, 'the executor role reads executor_work');
for my $denied ("SELECT gpualloc.cancel_job($b)",
				"SELECT gpualloc.submit_job('x', 'training', 'a100', 1, work_gpu_hours => 1)",
				"SELECT gpualloc.replan('fast')",
				"SELECT count(*) FROM gpualloc.jobs",
				"SELECT gpualloc.set_gpu_state('a100', 0, 0, 'down')",
				"DELETE FROM gpualloc.allocations") {
	($ret, $out, $err) = $node->psql('postgres', $denied, extra_params => [ '-U', 'exec_node0' ]);
	like($err, qr/permission denied/, "the executor role may not: $denied");
}
my $d = sql(q{SELECT gpualloc.submit_job('d', 'quantization', 'a100', 1, 1, work_gpu_hours => 1)});
sql(q{SELECT status FROM gpualloc.replan('fast')});
is(sql("SELECT status FROM gpualloc.jobs WHERE job_id = $d"), 'booked', 'a fourth job is booked');
($ret, $out, $err) = $node->psql('postgres', "LISTEN gpualloc; SELECT gpualloc.cancel_job($d);");
like($out, qr/"reason" : "cancel".*"jobs" : \[$d\]/, 'a cancel of a booked job is notified');

# the change feed replays every change since a snapshot onto it
my $replayed = $before;
for my $row (split /\n/, sql("SELECT seq, change, gpu_id, coalesce('job ' || job_id, 'service ' || service)
						   FROM gpualloc.allocation_changes($seq0)")) {
	my ($s, $change, $gpu, $what) = split /\|/, $row;
	$replayed->{$gpu} = $change eq 'begin' ? $what : '';
}
is_deeply($replayed, snapshot(), 'snapshot plus allocation_changes(seq) is the current allocation');
my $seqs = sql('SELECT string_agg(seq::text, \',\' ORDER BY seq) FROM gpualloc.allocation_commits');
my @s = split /,/, $seqs;
is_deeply(\@s, [ 1 .. scalar(@s) ], 'change sets are numbered without gaps, in commit order');
is(sql('SELECT count(*) FROM gpualloc.check_integrity()'), '0', 'integrity holds at the end');
is(sql(q{SELECT count(*) FROM gpualloc.plan_runs WHERE status = 'failed'}), '0', 'no plan run failed');

$node->stop;
done_testing();
