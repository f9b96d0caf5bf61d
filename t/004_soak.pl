# A bounded soak of the executor contract: two nodes of 8 GPUs, a service
# with demand, one reference executor per node, and for about 45 seconds
# concurrent submitters (short `sleep` jobs, some `exit 1`), a canceller and
# GPUs going down and up again, with the background planner replanning every
# 2 s.  Then the load stops, every job is brought to a terminal state, and the
# run is checked: no failed plan run, check_integrity() empty, no GPU booked
# twice, no two running jobs on overlapping blocks, every job terminal, every
# booking started at most once (a job starts again only after a requeue
# stopped it), every exit reported with its status, the service hook told the
# service's GPUs, and the executors exit cleanly on SIGTERM.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(sleep time);

my $LOAD_SECONDS = 45;
my $root = $ENV{TESTDIR} || '.';
my $executor = "$root/tools/gpualloc-executor";
system('make', '-s', '-C', $root, 'tools/gpualloc-executor') == 0
  or BAIL_OUT('cannot build tools/gpualloc-executor');

my $node = PostgreSQL::Test::Cluster->new('soak');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
gpualloc.replan_interval = '2s'
gpualloc.replan_debounce = '1s'
gpualloc.solver_time_limit = '300ms'
gpualloc.booking_timeout = '30s'
gpualloc.on_gpu_failure = 'requeue'
max_connections = 40
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant('postgres');
	CREATE ROLE soak_exec LOGIN IN ROLE gpualloc_executor;
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.add_node('a100', 1);
	SELECT gpualloc.add_service('chat', 'a100', 100, 4, churn_limit => 2);
	INSERT INTO gpualloc.demand_staging
	SELECT 'chat', h, 250 FROM generate_series(date_trunc('hour', now()) - interval '7 days',
											   date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
	SELECT gpualloc.load_demand();
	CREATE TABLE soak_errors (who text, sqlstate text, message text);
	GRANT INSERT ON soak_errors TO PUBLIC;
});

my $dir = $PostgreSQL::Test::Utils::tmp_check;

# One executor per node, as the gpualloc_executor role, logging to a file.
sub start_executor
{
	my ($n) = @_;
	my $log = "$dir/executor-$n.log";
	my $hook = "$dir/hook-$n.log";
	unlink $log, $hook;
	my $timeout = IPC::Run::timeout(600);
	my $h = IPC::Run::start(
		[
			$executor, '-h', $node->host, '-p', $node->port,
			'-U', 'soak_exec', '-d', 'postgres', '--node', $n,
			'--poll-seconds', '1', '--grace-seconds', '2',
			'--service-hook', "echo \"\$GPUALLOC_SERVICE [\$GPUALLOC_GPUS]\" >> $hook"
		],
		'<', \undef, '>', "$dir/executor-$n.out", '2>', $log, $timeout);
	return { handle => $h, timeout => $timeout, log => $log, hook => $hook, node => $n };
}
my @executors = map { start_executor($_) } (0, 1);

sub slurp_log
{
	my ($file) = @_;
	open my $fh, '<', $file or return '';
	local $/;
	return <$fh>;
}

ok($node->poll_query_until('postgres',
	"SELECT count(*) = 2 FROM pg_stat_activity WHERE application_name LIKE 'gpualloc-executor node %'"),
	'both executors connect');

# ---------------------------------------------------------------------------
# The load: each actor is a psql running a bounded DO loop that commits after
# every call and records unexpected errors in soak_errors.  An error that is
# only a race with the job's own end (SQLSTATE 55000: the job is already
# finished or no longer in the state the call needs) is expected.
sub load_sql
{
	my ($who, $max, $body, $pause) = @_;
	return qq{
DO \$\$
DECLARE
	i integer := 0;
	t0 timestamptz := clock_timestamp();
	sz integer;
	id bigint;
	g record;
	down_node integer;
	down_slot integer;
BEGIN
	WHILE i < $max AND clock_timestamp() < t0 + interval '$LOAD_SECONDS seconds' LOOP
		i := i + 1;
		BEGIN
			$body
		EXCEPTION WHEN others THEN
			IF SQLSTATE <> '55000' THEN
				INSERT INTO soak_errors VALUES ('$who', SQLSTATE, SQLERRM);
			END IF;
		END;
		COMMIT;
		PERFORM pg_sleep($pause);
	END LOOP;
END
\$\$;
};
}

my $submit_body = q{
			sz := (ARRAY[1, 1, 1, 2, 2, 4, 8])[1 + floor(random() * 7)::integer];
			PERFORM gpualloc.submit_job('WHO-' || i, 'training', 'a100', sz, sz,
				priority => 1 + floor(random() * 3),
				work_gpu_hours => sz / 60.0,
				command => CASE WHEN random() < 0.1 THEN 'exit 1'
								ELSE 'sleep 0.' || (1 + floor(random() * 9))::integer END);
};
my $cancel_body = q{
			SELECT job_id INTO id FROM gpualloc.jobs
			WHERE status IN ('queued', 'booked', 'running')
			  AND (random() < 0.5 OR status = 'running')
			ORDER BY random() LIMIT 1;
			IF id IS NOT NULL THEN
				PERFORM gpualloc.cancel_job(id, 'soak');
			END IF;
};
# odd steps take a GPU down, even steps bring it back
my $chaos_body = q{
			IF down_node IS NULL THEN
				SELECT n AS node, s AS slot INTO g
				FROM generate_series(0, 1) n, generate_series(0, 7) s ORDER BY random() LIMIT 1;
				PERFORM gpualloc.set_gpu_state('a100', g.node, g.slot, 'down');
				down_node := g.node;
				down_slot := g.slot;
			ELSE
				PERFORM gpualloc.set_gpu_state('a100', down_node, down_slot, 'up');
				down_node := NULL;
			END IF;
};

my @load;
for my $who ('s1', 's2', 's3')
{
	(my $body = $submit_body) =~ s/WHO/$who/;
	push @load, [ $who, load_sql($who, 80, $body, '0.3 + random() * 0.9') ];
}
push @load, [ 'cancel', load_sql('cancel', 40, $cancel_body, '0.8 + random() * 1.5') ];
push @load, [ 'chaos', load_sql('chaos', 16, $chaos_body, '1 + random() * 2.5') ];

my $psql = $node->installed_command('psql');
my @running;
for my $l (@load)
{
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ $psql, '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c', $l->[1] ],
		'<', \undef, '>', \$out, '2>', \$err,
		IPC::Run::timeout($LOAD_SECONDS + 60));
	push @running, [ $l->[0], $h, \$out, \$err ];
}
for my $r (@running)
{
	my ($who, $h, $out, $err) = @$r;
	my $finished = eval { $h->finish; 1 };
	ok($finished && $h->result == 0, "load $who ran to its end")
	  or diag("load $who: $$err");
}
is($node->safe_psql('postgres',
	"SELECT coalesce(string_agg(who || ': ' || sqlstate || ' ' || message, E'\n'), '') FROM soak_errors"),
	'', 'no submission, cancel or GPU state change failed (a cancel racing a start included)');

# a GPU the time limit left down comes back
$node->safe_psql('postgres',
	"SELECT gpualloc.set_gpu_state('a100', node, slot, 'up') FROM gpualloc.gpus WHERE state <> 'up'");

# ---------------------------------------------------------------------------
# Drain: let what is booked and queued run; then cancel what is still queued
# and let the executors finish the rest.
# poll a query until it returns 't', for at most $seconds
sub wait_until
{
	my ($sql, $seconds) = @_;
	my $until = time() + $seconds;
	while (time() < $until)
	{
		return 1 if $node->safe_psql('postgres', $sql) eq 't';
		sleep 0.5;
	}
	return 0;
}
my $active = "SELECT count(*) = 0 FROM gpualloc.jobs WHERE status IN ('queued', 'booked', 'running')";
if (!wait_until($active, 30))
{
	note('cancelling the jobs still queued');
	$node->safe_psql('postgres', q{
		DO $$
		DECLARE j bigint;
		BEGIN
			FOR j IN SELECT job_id FROM gpualloc.jobs WHERE status = 'queued' LOOP
				BEGIN
					PERFORM gpualloc.cancel_job(j, 'soak: end of load');
				EXCEPTION WHEN object_not_in_prerequisite_state THEN NULL;
				END;
			END LOOP;
		END $$;});
	wait_until($active, 30);
}
is($node->safe_psql('postgres',
	"SELECT count(*) FROM gpualloc.jobs WHERE status NOT IN ('succeeded', 'failed', 'cancelled')"),
	'0', 'every job reached a terminal state');

# ---------------------------------------------------------------------------
# The database's view of the run.
my $stats = $node->safe_psql('postgres', q{
	SELECT count(*), count(*) FILTER (WHERE status = 'succeeded'), count(*) FILTER (WHERE status = 'failed'),
		   count(*) FILTER (WHERE status = 'cancelled')
	FROM gpualloc.jobs});
my ($n_jobs, $n_ok, $n_failed, $n_cancelled) = split /\|/, $stats;
note("jobs: $n_jobs, succeeded $n_ok, failed $n_failed, cancelled $n_cancelled");
cmp_ok($n_jobs, '>=', 60, 'the load submitted jobs');
cmp_ok($n_ok, '>=', 30, 'jobs ran to success');

is($node->safe_psql('postgres', "SELECT count(*) FROM gpualloc.plan_runs WHERE status = 'failed'"),
	'0', 'no plan run failed')
  or diag($node->safe_psql('postgres', q{
	SELECT string_agg(format('run %s (%s, %s): %s', plan_id, mode, trigger, message), E'\n' ORDER BY plan_id)
	FROM gpualloc.plan_runs WHERE status = 'failed'}));
cmp_ok($node->safe_psql('postgres', "SELECT count(*) FROM gpualloc.plan_runs WHERE status IN ('succeeded', 'fallback')"),
	'>=', 5, 'the planner kept planning');
is($node->safe_psql('postgres',
	"SELECT coalesce(string_agg(problem || ' job ' || coalesce(job_id::text, '-') || ' gpu ' || coalesce(gpu_id::text, '-') || ': ' || coalesce(detail, ''), E'\n'), '') FROM gpualloc.check_integrity()"),
	'', 'check_integrity() finds nothing');
is($node->safe_psql('postgres',
	"SELECT count(*) FROM (SELECT gpu_id FROM gpualloc.allocations WHERE upper_inf(during) GROUP BY gpu_id HAVING count(*) > 1) x"),
	'0', 'no GPU has two open rows');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM gpualloc.allocations a JOIN gpualloc.allocations b
	ON a.gpu_id = b.gpu_id AND a.allocation_id < b.allocation_id AND a.during && b.during}),
	'0', 'no GPU was booked twice for overlapping times');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM gpualloc.jobs a JOIN gpualloc.jobs b
	ON a.pool_id = b.pool_id AND a.job_id < b.job_id
	 AND a.block_first < b.block_first + b.block_size AND b.block_first < a.block_first + a.block_size
	 AND tstzrange(a.started_at, a.finished_at) && tstzrange(b.started_at, b.finished_at)
	WHERE a.started_at IS NOT NULL AND b.started_at IS NOT NULL}),
	'0', 'no two jobs ran on overlapping blocks at the same time');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM gpualloc.jobs
	WHERE (status = 'succeeded' AND command NOT LIKE 'sleep %')
	   OR (status = 'failed' AND command <> 'exit 1')}),
	'0', 'a job succeeds exactly when its command exits 0');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM gpualloc.jobs
	WHERE status IN ('succeeded', 'failed') AND status_message NOT IN ('exit 0', 'exit 1')}),
	'0', 'job_finished carries the exit status');

# ---------------------------------------------------------------------------
# The executors' view: starts, stops and reports, from their logs.
my (%starts, %stops, %finished, %node_of);
for my $e (@executors)
{
	my $log = slurp_log($e->{log});
	while ($log =~ /started job (\d+) /g) { $starts{$1}++; $node_of{$1} = $e->{node}; }
	while ($log =~ /stopping job (\d+) .*: (?:requeued|no longer running)/g) { $stops{$1}++; }
	# a run that ended on its own after its job was requeued, before the
	# executor heard of the requeue: its report is refused, and it is over
	while ($log =~ /job (\d+) ended \([^)]*\), not reported: .*(?: is (?:queued|booked)|an earlier run)/g) { $stops{$1}++; }
	while ($log =~ /finished job (\d+): /g) { $finished{$1}++; }
	unlike($log, qr/could not read the allocation|could not connect|connection lost/,
		"executor $e->{node} read the allocation without errors");
	like($log, qr/notify seq=\d+ reason=/, "executor $e->{node} hears notifications");
}
my @ran = split /\n/, $node->safe_psql('postgres',
	"SELECT job_id FROM gpualloc.jobs WHERE status IN ('succeeded', 'failed') ORDER BY job_id");
is(scalar(grep { !$starts{$_} } @ran), 0, 'every job that finished was started by an executor');
is(scalar(grep { ($finished{$_} // 0) != 1 } @ran), 0, 'every job that finished was reported once');
# a job starts again only after a requeue: the database counts them, and the
# old run was over first (the executor stopped it, or it ended on its own and
# its report was refused since the job had been requeued)
my %requeues = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
	"SELECT job_id, requeues FROM gpualloc.jobs");
my @twice = grep { $starts{$_} > ($requeues{$_} // 0) + 1 || $starts{$_} > ($stops{$_} // 0) + 1 } keys %starts;
is(scalar(@twice), 0, 'no booking was started twice (a second start follows a requeue)')
  or diag("started again without a requeue: @twice");
note('requeued jobs: ' . scalar(grep { $_ > 0 } values %requeues) . ', starts: ' . scalar(keys %starts));
my $multi = $node->safe_psql('postgres', q{
	SELECT count(*) FROM gpualloc.jobs j JOIN gpualloc.pools p USING (pool_id)
	WHERE j.block_first IS NOT NULL AND j.block_first / p.node_size <> (j.block_first + j.block_size - 1) / p.node_size});
is($multi, '0', 'every block lies on one node');

# The service hook was told the service's GPUs on each node.
for my $e (@executors)
{
	my $n = $e->{node};
	my $want = $node->safe_psql('postgres',
		"SELECT coalesce(string_agg(slot::text, ',' ORDER BY slot), '') FROM gpualloc.current_allocation WHERE service = 'chat' AND node = $n");
	my $got = '';
	for (1 .. 20)
	{
		my @lines = grep { /^chat / } split /\n/, slurp_log($e->{hook});
		$got = @lines ? ($lines[-1] =~ /\[(.*)\]/)[0] : '';
		last if $got eq $want;
		sleep 0.5;
	}
	is($got, $want, "the service hook on node $n has the service's current GPUs");
}

# ---------------------------------------------------------------------------
# The executors stop cleanly on SIGTERM.
for my $e (@executors)
{
	$e->{handle}->signal('TERM');
	$e->{timeout}->start(20);
	my $done = eval { $e->{handle}->finish; 1 };
	$e->{handle}->kill_kill unless $done;
	ok($done && $e->{handle}->result == 0, "executor $e->{node} exits with status 0 on SIGTERM");
	like(slurp_log($e->{log}), qr/stopped\n\z/, "executor $e->{node} logs its clean stop");
}

$node->stop;
done_testing();
