# Independent pools solved at once (gpualloc.max_parallel_pools): a cluster
# of four pools, each with its service and its queue, set up alike in two
# databases.  A fast re-plan solved by four processes, or by two that share
# the four pools, commits the same allocation as one solved by the planner
# alone; by default no more processes solve than the machine has CPUs;
# the solvers start while the problem is built and wait for their parts
# (cancelled then, or given nothing to solve when the problem does not
# split, they exit); counting those groups costs what the jobs of several
# pools cost, not the queue; the pool solvers show in
# pg_stat_activity while they run; a re-plan cancelled by statement_timeout
# leaves the last committed allocation in force and no solver behind; the
# part of a solver terminated mid-solve is solved by the planner; with
# no free worker slot the planner solves every pool itself.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('pools');
$node->init;
# not preloaded: the pool solvers start from the library by name
$node->append_conf('postgresql.conf', q{
max_worker_processes = 8
});
$node->start;

# A database of its own with the extension, the tenant postgres and pools
# p0.. of $nodes nodes of 8 GPUs each, then the SQL given.
sub make_pools
{
	my ($db, $pools, $nodes, $sql) = @_;
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, qq{
		CREATE EXTENSION gpualloc CASCADE;
		SELECT gpualloc.add_tenant('postgres');
		SELECT gpualloc.add_pool('p' || q, 'A100-80GB', 80, 312) FROM generate_series(0, $pools - 1) q;
		SELECT gpualloc.add_node('p' || q, n) FROM generate_series(0, $pools - 1) q, generate_series(0, $nodes - 1) n;
		$sql
	});
}

# Four pools of 64 GPUs, a service and 30 queued jobs in each, the same in
# every database this makes.
sub make_cluster
{
	my ($db) = @_;
	make_pools($db, 4, 8, q{
		SELECT gpualloc.add_service('svc' || q, 'p' || q, 100, 32, churn_limit => 4) FROM generate_series(0, 3) q;
		INSERT INTO gpualloc.demand_staging
		SELECT 'svc' || q, h, 600 + 400 * sin(extract(hour FROM h) / 24.0 * 2 * pi()) + 50 * q
		FROM generate_series(0, 3) q,
			 generate_series(date_trunc('hour', now()) - interval '7 days',
							 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
		SELECT gpualloc.load_demand();
		SELECT gpualloc.submit_job('j' || q || '-' || i, 'training', 'p' || q,
								   (1 << (i % 4)), (1 << (i % 4 + 1)),
								   priority => 1 + (i * 7 + q) % 5,
								   work_gpu_hours => 2 + (i * 13 + q * 5) % 40)
		FROM generate_series(0, 3) q, generate_series(0, 29) i;
	});
}

# The committed allocation, GPU by GPU, by names that do not depend on ids.
sub allocation
{
	my ($db) = @_;
	return $node->safe_psql($db, q{
		SELECT string_agg(format('%s/%s=%s', pool, gpu_index, coalesce(job_name, service, '-')), ' '
						  ORDER BY pool, gpu_index)
		FROM gpualloc.current_allocation});
}

sub solvers
{
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gpualloc pool solver'");
}

# Run a re-plan in the background in database par, see three pool solvers
# in the state given, see the run cancelled by its statement_timeout and
# no solver left behind.
sub replan_seen_then_cancelled
{
	my ($sql, $state, $seen, $cancelled, $gone) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start([ 'psql', '-X', '-d', $node->connstr('par'), '-c', $sql ],
		'>', \$out, '2>', \$err, IPC::Run::timeout(120));
	ok($node->poll_query_until('postgres', qq{
		SELECT count(*) = 3 AND bool_and($state)
		FROM pg_stat_activity WHERE backend_type = 'gpualloc pool solver'}), $seen);
	$h->finish;
	like($err, qr/canceling statement due to statement timeout/, $cancelled);
	ok(no_solver_left(), $gone);
}

sub no_solver_left
{
	return $node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'gpualloc pool solver'");
}

make_cluster('par');
make_cluster('ser');

# (once the library is loaded: before, a session keeps any value as a placeholder)
my ($ret, $stdout, $stderr) = $node->psql('par', q{
	LOAD 'gpualloc';
	SET gpualloc.max_parallel_pools = -2});
like($stderr, qr/-2 is outside the valid range for parameter "gpualloc.max_parallel_pools" \(-1 \.\. 1024\)/,
	'a setting below -1 is refused by name and range');

# the same fast re-plan, by four processes and by the planner alone; the
# time limit lets every pool's improvement run to its end, so the plan
# depends on the input alone
my $par = $node->safe_psql('par', q{
	SET gpualloc.max_parallel_pools = 4;
	SELECT status FROM gpualloc.replan('fast', '30 seconds')});
my $ser = $node->safe_psql('ser', q{
	SET gpualloc.max_parallel_pools = 1;
	SELECT status FROM gpualloc.replan('fast', '30 seconds')});
is($par, 'succeeded', 'the re-plan solved by four processes succeeds');
is($ser, 'succeeded', 'the re-plan solved by the planner alone succeeds');
my $alloc_par = allocation('par');
like($alloc_par, qr/p3\/\d+=j3-/, 'every pool has jobs allocated');
is($alloc_par, allocation('ser'), 'both commit the same allocation');
is($node->safe_psql('par', q{
	SELECT count(*) FROM gpualloc.plan_runs WHERE status = 'succeeded'}), '1',
	'one run recorded');

# fewer processes than pools: two processes, the planner and one solver,
# each solve two pools one after another, and commit the same allocation
make_cluster('two');
is($node->safe_psql('two', q{
	SET gpualloc.max_parallel_pools = 2;
	SELECT status FROM gpualloc.replan('fast', '30 seconds')}), 'succeeded',
	'the re-plan solved by two processes for four pools succeeds');
is(allocation('two'), $alloc_par, 'two processes commit the allocation four commit');
unlike(slurp_file($node->logfile), qr/exited without a plan/,
	'the solver solved both its pools: none was left to the planner');

# a long full re-plan: the solvers show while they run, then a
# statement_timeout cancels it
my $before = allocation('par');
my $runs = $node->safe_psql('par', 'SELECT count(*) FROM gpualloc.plan_runs');
replan_seen_then_cancelled(q{
		SET gpualloc.max_parallel_pools = 4;
		SET statement_timeout = '8s';
		SELECT * FROM gpualloc.replan('full', '120 seconds')},
	"query LIKE 'solving part % of 4 (full)'",
	'three pool solvers run beside the planner, each on its part',
	'the re-plan is cancelled by statement_timeout', 'no pool solver is left behind');
is(allocation('par'), $before, 'the last committed allocation stays in force');
is($node->safe_psql('par', 'SELECT count(*) FROM gpualloc.plan_runs'), $runs,
	'the cancelled run left nothing behind');

# the solvers start while the problem is built: with the planner's read of
# the GPUs held up by a lock, they wait for the parts; cancelled there,
# the run leaves no solver behind
my $locker = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('par'), '-c',
	  'BEGIN; LOCK TABLE gpualloc.gpus IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(6); COMMIT;' ],
	'>', \my $lock_out, '2>', \my $lock_err, IPC::Run::timeout(60));
ok($node->poll_query_until('par', q{
	SELECT count(*) > 0 FROM pg_locks WHERE relation = 'gpualloc.gpus'::regclass AND mode = 'AccessExclusiveLock'}),
	'a session holds the GPUs');
replan_seen_then_cancelled(q{
		SET gpualloc.max_parallel_pools = 4;
		SET statement_timeout = '3s';
		SELECT * FROM gpualloc.replan('fast', '30 seconds')},
	"query = 'waiting for the parts of the plan run'",
	'three pool solvers wait for the parts while the planner builds the problem',
	'the run is cancelled while it builds', 'the waiting solvers exit with it');
$locker->finish;
is(allocation('par'), $before, 'the last committed allocation still stays in force');

# two pools of 16 GPUs with a database of their own, the jobs given, and ten
# more jobs of 4 GPUs spread over both
sub two_pools {
	my ($db, $jobs) = @_;
	make_pools($db, 2, 2, qq{
		$jobs
		SELECT gpualloc.submit_job('more-' || i, 'training', 'p' || (i % 2), 4, 4, work_gpu_hours => 8)
		FROM generate_series(0, 9) i;
	});
}

# a fast re-plan of $db in up to two processes, logged at DEBUG1: its
# status, and what the server logged meanwhile
sub replan_logged {
	my ($db) = @_;
	my $log_at = -s $node->logfile;
	my $status = $node->safe_psql($db, q{
		SET gpualloc.max_parallel_pools = 2;
		SET log_min_messages = debug1;
		SELECT status FROM gpualloc.replan('fast', '30 seconds')});
	return ($status, substr(slurp_file($node->logfile), $log_at));
}

# pools a job of several pools joins are one group: no solver is started
# for them, and the planner solves the problem in one piece
two_pools('joined', q{
	SELECT gpualloc.submit_job('both', 'training', 'p0', 8, 8, work_gpu_hours => 16, alt_pools => ARRAY['p1']);});
my ($status, $log) = replan_logged('joined');
is($status, 'succeeded', 'pools joined by a job of both are planned');
unlike($log, qr/pool solver\(s\) before building the problem/, 'no solver is started for them');
unlike($log, qr/wrote the parts into shared memory/, 'and no part is written');
is($node->safe_psql('joined', q{
	SELECT count(DISTINCT job_name) > 2 FROM gpualloc.current_allocation}), 't',
	'and the plan books jobs');

# a problem that does not split for a reason seen only in the problem (a
# job waits for one of the other pool): the solver started ahead is given
# up and the planner solves the problem in one piece
two_pools('chained', q{
	SELECT gpualloc.submit_job('first', 'training', 'p0', 8, 8, work_gpu_hours => 16);
	SELECT gpualloc.submit_job('then', 'training', 'p1', 8, 8, work_gpu_hours => 16,
							   after_ok => ARRAY[(SELECT job_id FROM gpualloc.jobs WHERE name = 'first')]);});
($status, $log) = replan_logged('chained');
is($status, 'succeeded', 'a problem in one piece is planned with a solver started ahead');
like($log, qr/started 1 pool solver\(s\) before building the problem/, 'a solver was started ahead');
unlike($log, qr/wrote the parts into shared memory/, 'and was handed no part');
ok(no_solver_left(), 'the solver started ahead exits');
is($node->safe_psql('chained', q{
	SELECT count(DISTINCT job_name) > 2 FROM gpualloc.current_allocation}), 't',
	'and its plan books jobs');

# the count of groups before a run costs what the jobs of several pools
# cost, not the queue: in one session, as the background planner keeps its
# query plans, a run on a short queue and then one on a long one (3,000
# more queued jobs, none of several pools) scan gpualloc.job_pools a
# handful of times, never once per queued job
sub job_pools_scans {
	return qq{
		SELECT pg_catalog.pg_stat_force_next_flush() \\gset
		SELECT pg_catalog.pg_stat_clear_snapshot() \\gset
		SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans
		FROM pg_catalog.pg_stat_user_tables WHERE relid = 'gpualloc.job_pools'::regclass \\gset
		\\echo :scans
	};
}
make_cluster('deep');
my $scans = $node->safe_psql('deep', join('', q{
	SET gpualloc.max_parallel_pools = 2;
	SELECT status FROM gpualloc.replan('fast', '30 seconds') \\gset
	INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max,
							   est_gpus, est_hours_p10, est_hours_p50, est_hours_p90, est_work_gpu_hours, est_method)
	SELECT 'deep-' || p.pool_id || '-' || i, 'batch_inference', 'postgres', p.pool_id, 1, 1, 1, 1, 2, 2, 2, 2, 'submitted'
	FROM gpualloc.pools p, generate_series(1, 750) i;
	}, job_pools_scans(), q{
	SELECT status FROM gpualloc.replan('fast', '30 seconds') \\gset
	\\echo :status
	}, job_pools_scans()));
my ($scans_before, $status_deep, $scans_after) = split /\n/, $scans;
is($status_deep, 'succeeded', 'a re-plan with 3,000 more queued jobs succeeds');
cmp_ok($scans_after - $scans_before, '<', 100,
	'and scans gpualloc.job_pools a handful of times, not once per queued job');

# the default (-1): a process per pool but no more than the online CPUs,
# the planner counting as one
chomp(my $cpus = `getconf _NPROCESSORS_ONLN`);
my $want = ($cpus < 4 ? $cpus : 4) - 1;
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('par'), '-c', q{
		SET gpualloc.max_parallel_pools = -1;
		SET statement_timeout = '6s';
		SELECT * FROM gpualloc.replan('full', '120 seconds')} ],
	'>', \$out, '2>', \$err, IPC::Run::timeout(120));
SKIP:
{
	skip 'one CPU: the planner solves every pool itself', 2 if $want < 1;
	ok($node->poll_query_until('postgres', qq{
		SELECT count(*) = $want FROM pg_stat_activity WHERE backend_type = 'gpualloc pool solver'}),
		"by default $want pool solver(s) run beside the planner on $cpus CPUs");
	# solvers start one after another: a second look, once all have started
	sleep(2);
	is(solvers(), $want, 'and no more join them');
}
$h->finish;
like($err, qr/canceling statement due to statement timeout/, 'the default re-plan is cancelled too');

# a solver's time limit is the run's: a full re-plan in four processes
# succeeds and commits through the one path
my $full = $node->safe_psql('par', q{
	SET gpualloc.max_parallel_pools = 4;
	SELECT status || ' ' || solved_by || ' ' || (bound >= objective - 1e-6 * abs(objective))
	FROM gpualloc.replan('full', '3 seconds')});
is($full, 'succeeded full true', 'a full re-plan in four processes commits, bounded by the sum of its parts\' bounds');
is(solvers(), '0', 'its solvers exited');

# a solver terminated in the middle of its part: the planner solves that
# part itself with what is left of the time limit, and the run commits
$before = $node->safe_psql('par', "SELECT count(*) FROM gpualloc.plan_runs WHERE status = 'succeeded'");
my $log_at = -s $node->logfile;
($out, $err) = ('', '');
$h = IPC::Run::start(
	[ 'psql', '-X', '-qAt', '-d', $node->connstr('par'), '-c', q{
		SET gpualloc.max_parallel_pools = 4;
		SELECT status FROM gpualloc.replan('full', '6 seconds')} ],
	'>', \$out, '2>', \$err, IPC::Run::timeout(120));
ok($node->poll_query_until('postgres', q{
	SELECT count(*) = 3 FROM pg_stat_activity WHERE backend_type = 'gpualloc pool solver'}),
	'three solvers run');
is($node->safe_psql('postgres', q{
	SELECT pg_terminate_backend(min(pid)) FROM pg_stat_activity
	WHERE backend_type = 'gpualloc pool solver'}), 't', 'one of them is terminated');
$h->finish;
is($out, "succeeded\n", 'the run still succeeds');
like(substr(slurp_file($node->logfile), $log_at),
	qr/a pool solver exited without a plan; the planner solves part \d itself/,
	'the planner solved the terminated solver\'s part');
is($node->safe_psql('par', "SELECT count(*) FROM gpualloc.plan_runs WHERE status = 'succeeded'"),
	$before + 1, 'and committed one run');

# no free worker slot: the planner solves every part itself
$node->append_conf('postgresql.conf', 'max_worker_processes = 0');
$node->restart;
is($node->safe_psql('ser', q{
	SET gpualloc.max_parallel_pools = -1;
	SELECT status FROM gpualloc.replan('fast', '30 seconds')}), 'succeeded',
	'with no worker slot free the planner solves every pool itself');

$node->stop;
done_testing();
