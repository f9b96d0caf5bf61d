# The background planner: it plans on its interval and commits a plan, a
# LISTEN connection hears about it, an injected failure is recorded and
# survived with the allocation untouched (and tried again soon, however long
# the interval), a GPU going down wakes it early, a
# killed planner is restarted, old plan runs are deleted after the
# retention, and on a standby it does not run.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('primary');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
gpualloc.replan_interval = '2s'
gpualloc.replan_debounce = '1s'
gpualloc.solver_time_limit = '300ms'
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant('postgres');
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.add_service('chat', 'a100', 100, 4, churn_limit => 2);
	INSERT INTO gpualloc.demand_staging
	SELECT 'chat', h, 200 FROM generate_series(date_trunc('hour', now()) - interval '7 days',
											   date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
	SELECT gpualloc.load_demand();
	SELECT gpualloc.submit_job('train', 'training', 'a100', 2, 4, priority => 2, work_gpu_hours => 8);
	SELECT gpualloc.submit_job('score', 'batch_inference', 'a100', 1, 2, work_gpu_hours => 3);
});

ok($node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE trigger = 'worker' AND status IN ('succeeded', 'fallback')"),
	'the worker commits a plan');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM gpualloc.plan_grid((SELECT max(plan_id) FROM gpualloc.plan_runs
											 WHERE status IN ('succeeded', 'fallback'))) g
	JOIN gpualloc.current_allocation c USING (pool, gpu_index)
	WHERE g.step = 0 AND (g.job_id IS DISTINCT FROM c.job_id OR g.service IS DISTINCT FROM c.service)}),
	'0', 'the committed allocation is step 0 of its plan');
ok($node->safe_psql('postgres',
	"SELECT count(*) FROM gpualloc.allocations WHERE upper_inf(during)") > 0,
	'GPUs are allocated');
# before each run the worker rolls fair-share usage up (at most hourly)
ok($node->poll_query_until('postgres',
	"SELECT count(*) = 1 AND bool_and(seq <= gpualloc.allocation_seq()) FROM gpualloc_internal.usage_rollup_state"),
	'the worker rolls fair-share usage up');

# a listener hears each committed run, with a JSON payload
# (a change to the allocation: a new job booked on a new node, by the
# submit's fast path or by the worker's next plan)
my ($ret, $out, $err) = $node->psql('postgres', q{
	LISTEN gpualloc;
	SELECT gpualloc.add_node('a100', 1);
	SELECT gpualloc.submit_job('probe', 'quantization', 'a100', 1, 1, work_gpu_hours => 0.5) > 0;
	SELECT pg_sleep(5);
});
like($out, qr/Asynchronous notification "gpualloc" with payload "\{"seq" : \d+, "reason" : "(?:plan|submit)", "plan_id" : (?:\d+|null), "gpus" : \[\d+(?:,\d+)*\], "jobs" : \[[\d,]*\], "truncated" : false\}"/,
	'LISTEN gpualloc receives the change notification');
my ($seq) = $out =~ /"seq" : (\d+)/;
ok($node->safe_psql('postgres', "SELECT count(*) > 0 FROM gpualloc.allocation_changes($seq - 1) WHERE seq = $seq"),
	'the notified change set is in the change feed');

# inject a failure: the plan grid cannot be written
my $before = $node->safe_psql('postgres',
	"SELECT string_agg(allocation_id::text, ',' ORDER BY allocation_id) FROM gpualloc.allocations WHERE upper_inf(during)");
my $last = $node->safe_psql('postgres', 'SELECT max(plan_id) FROM gpualloc.plan_runs');
$node->safe_psql('postgres',
	'ALTER TABLE gpualloc.plan_blocks ADD CONSTRAINT injected_failure CHECK (gpu_count < 0) NOT VALID');
ok($node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE plan_id > $last AND status = 'failed' AND message LIKE '%injected_failure%'"),
	'a failed run is recorded with its reason');
is($node->safe_psql('postgres',
	"SELECT string_agg(allocation_id::text, ',' ORDER BY allocation_id) FROM gpualloc.allocations WHERE upper_inf(during)"),
	$before, 'the last committed allocation stays in force');
is($node->safe_psql('postgres', q{
	SELECT worker_alive, consecutive_failures >= 1, last_error LIKE '%injected_failure%', plan_id IS NOT NULL
	FROM gpualloc.planner_status}),
	't|t|t|t', 'planner_status shows the failing runs, their error and the plan still in force');
$node->safe_psql('postgres', 'ALTER TABLE gpualloc.plan_blocks DROP CONSTRAINT injected_failure');
$last = $node->safe_psql('postgres', 'SELECT max(plan_id) FROM gpualloc.plan_runs');
ok($node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE plan_id > $last AND status IN ('succeeded', 'fallback')"),
	'the worker carries on after the failure');
ok($node->log_contains('gpualloc planner: run failed'), 'the failure is logged');

# plan runs older than gpualloc.plan_retention go, with their blocks; a
# plan stays in force throughout
my $aged = $node->safe_psql('postgres', q{
	UPDATE gpualloc.plan_runs SET started_at = started_at - interval '30 days',
		finished_at = finished_at - interval '30 days';
	SELECT count(*) FROM gpualloc.plan_runs});
cmp_ok($aged, '>', 1, 'several runs aged by 30 days');
$node->safe_psql('postgres', "ALTER SYSTEM SET gpualloc.plan_retention = '7d'; SELECT pg_reload_conf();");
ok($node->poll_query_until('postgres', q{
	SELECT count(*) = 0 FROM gpualloc.plan_runs WHERE coalesce(finished_at, started_at) < now() - interval '7 days'}),
	'the planner deletes runs past gpualloc.plan_retention');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM gpualloc.plan_blocks b
	WHERE NOT EXISTS (SELECT 1 FROM gpualloc.plan_runs r WHERE r.plan_id = b.plan_id)}),
	'0', 'their blocks go with them');
is($node->safe_psql('postgres', q{
	SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE status IN ('succeeded', 'fallback')}),
	't', 'a successful plan is always kept');
$node->safe_psql('postgres', "ALTER SYSTEM RESET gpualloc.plan_retention; SELECT pg_reload_conf();");
ok($node->poll_query_until('postgres', q{
	SELECT consecutive_failures = 0 AND last_run_status IN ('succeeded', 'fallback')
	   AND next_run_due > now() - interval '5 seconds' AND plan_age < interval '1 minute'
	FROM gpualloc.planner_status}),
	'planner_status shows the recovery, the next run due and a fresh plan');

# every role that may read planner_status sees the same planner (a reader
# cannot see other roles' processes in pg_stat_activity), and a database the
# planner does not serve sees none
$node->safe_psql('postgres', 'CREATE ROLE status_reader LOGIN IN ROLE gpualloc_reader');
my $status_sql = 'SELECT worker_alive, worker_pid FROM gpualloc.planner_status';
my $as_owner = $node->safe_psql('postgres', $status_sql);
like($as_owner, qr/^t\|\d+$/, 'planner_status shows the planner alive with its pid');
is($node->safe_psql('postgres', $status_sql, extra_params => [ '-U', 'status_reader' ]),
	$as_owner, 'a reader sees the planner as the owner does');
$node->safe_psql('postgres', 'CREATE DATABASE not_planned');
$node->safe_psql('not_planned', 'CREATE EXTENSION gpualloc CASCADE');
is($node->safe_psql('not_planned', 'SELECT worker_alive, worker_pid IS NULL, next_run_due IS NULL FROM gpualloc.planner_status'),
	'f|t|t', 'in a database it does not plan, no planner is shown');

# a long interval: only a wake-up can trigger the next run
$node->safe_psql('postgres', "ALTER SYSTEM SET gpualloc.replan_interval = '1h'; SELECT pg_reload_conf();");
sleep 3;
$last = $node->safe_psql('postgres', 'SELECT max(plan_id) FROM gpualloc.plan_runs');
$node->safe_psql('postgres', "SELECT gpualloc.set_gpu_state('a100', 0, 7, 'down')");
# a worker run after $last, then no service on a GPU that is down
sub replans_around_down_gpus
{
	my ($after, $ran, $served) = @_;
	ok($node->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE plan_id > $after AND trigger = 'worker'"), $ran);
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM gpualloc.allocations a JOIN gpualloc.gpus g USING (gpu_id)
		WHERE g.state = 'down' AND upper_inf(a.during) AND a.service_id IS NOT NULL}), '0', $served);
}
replans_around_down_gpus($last, 'a GPU going down wakes the planner before its interval',
	'no service keeps a GPU that went down');

# a wake-up from another database is not this planner's: it is not woken,
# and request_replan() says no planner serves the caller
$last = $node->safe_psql('postgres', 'SELECT max(plan_id) FROM gpualloc.plan_runs');
is($node->safe_psql('not_planned', 'SELECT gpualloc.request_replan()'), 'f',
	'request_replan() in a database the planner does not serve says so');
sleep 3;
is($node->safe_psql('postgres', "SELECT count(*) FROM gpualloc.plan_runs WHERE plan_id > $last"),
	'0', 'and wakes no planner');

# a wake-up asked for in a transaction is sent when it commits: a run woken
# before would plan without the change, and none would follow it
$last = $node->safe_psql('postgres', 'SELECT max(plan_id) FROM gpualloc.plan_runs');
my ($tx_out, $tx_err) = ('', '');
IPC::Run::run(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
	  "BEGIN; SELECT gpualloc.set_gpu_state('a100', 0, 6, 'down'); SELECT pg_sleep(4); COMMIT;" ],
	'>', \$tx_out, '2>', \$tx_err, IPC::Run::timeout(60));
my $committed = $node->safe_psql('postgres', 'SELECT now()');
is($node->safe_psql('postgres',
	"SELECT count(*) FROM gpualloc.plan_runs WHERE plan_id > $last AND started_at < '$committed'"),
	'0', 'no run starts while the transaction that woke the planner is open');
replans_around_down_gpus($last, 'the planner runs once it commits',
	'and the GPU that went down in it serves nothing');

# a cancel between runs has nothing to cancel: the planner goes on
my $planner = $node->safe_psql('postgres', 'SELECT gpualloc.planner_pid()');
$node->safe_psql('postgres', "SELECT pg_cancel_backend($planner)");
sleep 2;
is($node->safe_psql('postgres', 'SELECT gpualloc.planner_pid()'), $planner,
	'a cancel while the planner waits does not end it');

# settings of the database do not break the planner's runs: it plans in
# READ COMMITTED whatever default_transaction_isolation says
$node->safe_psql('postgres', q{
	ALTER DATABASE postgres SET default_transaction_isolation = 'serializable';
	ALTER DATABASE postgres SET session_replication_role = 'replica';});
$node->safe_psql('postgres', "SELECT pg_terminate_backend($planner)");
$last = $node->safe_psql('postgres', 'SELECT max(plan_id) FROM gpualloc.plan_runs');
ok($node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE plan_id > $last AND trigger = 'worker' AND status IN ('succeeded', 'fallback')"),
	'with serializable and replica as the database defaults the planner still plans');
$node->safe_psql('postgres', q{
	ALTER DATABASE postgres RESET default_transaction_isolation;
	ALTER DATABASE postgres RESET session_replication_role;});

# the planner plans (a worker run matching the condition), and within a
# minute of $since: soon, not a whole interval (1 h) later
sub worker_plans_soon
{
	my ($condition, $since, $plans, $soon) = @_;
	ok($node->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE trigger = 'worker' AND $condition"), $plans);
	cmp_ok(time - $since, '<', 60, $soon);
}

# a wake-up while a replan() call holds the planner lock is not lost: the
# worker skips that run, then runs once the lock is free, not an hour later
$last = $node->safe_psql('postgres', 'SELECT max(plan_id) FROM gpualloc.plan_runs');
my $log_offset = -s $node->logfile;
my ($lock_out, $lock_err) = ('', '');
my $holder = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
	  'BEGIN; SELECT pg_advisory_xact_lock(1735423329); SELECT pg_sleep(4); COMMIT;' ],
	'>', \$lock_out, '2>', \$lock_err, IPC::Run::timeout(60));
ok($node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 1735423329 AND granted"),
	'a replan() call holds the planner lock');
$node->safe_psql('postgres', 'SELECT gpualloc.request_replan()');
ok($node->wait_for_log(qr/another planner is running/, $log_offset), 'the woken planner finds it taken');
$holder->finish;
ok($node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE plan_id > $last AND trigger = 'worker'"),
	'and plans once it is free');

# a failed run is tried again after gpualloc.replan_retry, the delay
# doubling with each failure in a row, not an interval (1 h) later; once the
# cause is gone, the next try plans without any wake-up
$node->safe_psql('postgres', "ALTER SYSTEM SET gpualloc.replan_retry = '2s'; SELECT pg_reload_conf();");
$last = $node->safe_psql('postgres', 'SELECT max(plan_id) FROM gpualloc.plan_runs');
$log_offset = -s $node->logfile;
$node->safe_psql('postgres',
	'ALTER TABLE gpualloc.plan_blocks ADD CONSTRAINT injected_failure CHECK (gpu_count < 0) NOT VALID');
$node->safe_psql('postgres', 'SELECT gpualloc.request_replan()');
ok($node->wait_for_log(qr/gpualloc planner: 1 failed run in a row; trying again in 2 s/, $log_offset),
	'a failed run is tried again after gpualloc.replan_retry');
ok($node->wait_for_log(qr/gpualloc planner: 2 failed runs in a row; trying again in 4 s/, $log_offset),
	'the delay doubles with each failure in a row');
cmp_ok($node->safe_psql('postgres',
	"SELECT count(*) FROM gpualloc.plan_runs WHERE plan_id > $last AND trigger = 'worker' AND status = 'failed'"),
	'>=', 2, 'each try is recorded as a failed run');
$node->safe_psql('postgres', 'ALTER TABLE gpualloc.plan_blocks DROP CONSTRAINT injected_failure');
worker_plans_soon("plan_id > $last AND status IN ('succeeded', 'fallback')", time,
	'once the cause is gone, a retry plans', 'within the retry delay, not the interval');
ok($node->poll_query_until('postgres', 'SELECT consecutive_failures = 0 FROM gpualloc.planner_status'),
	'and the failures in a row are over');
$node->safe_psql('postgres', "ALTER SYSTEM RESET gpualloc.replan_retry; SELECT pg_reload_conf();");

# turned off and on again with a 1 h interval: it plans soon after, not an
# hour later
$node->safe_psql('postgres', "ALTER SYSTEM SET gpualloc.enabled = off; SELECT pg_reload_conf();");
sleep 2;
$last = $node->safe_psql('postgres', 'SELECT max(plan_id) FROM gpualloc.plan_runs');
my $turned_on = time;
$node->safe_psql('postgres', "ALTER SYSTEM SET gpualloc.enabled = on; SELECT pg_reload_conf();");
worker_plans_soon("plan_id > $last", $turned_on, 'gpualloc.enabled turned on plans again',
	'and soon, not a whole interval later');

# a killed planner is restarted by the postmaster
my $pid = $node->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE backend_type = 'gpualloc planner'");
ok($pid =~ /^\d+$/, 'the planner runs');
my $killed_at = $node->safe_psql('postgres', 'SELECT now()');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
ok($node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'gpualloc planner' AND pid <> $pid"),
	'a killed planner is restarted');

# the extension dropped and created again while the planner waits out a 1 h
# interval: it plans soon after, not an interval later (first the restarted
# planner's own first run, so that no run of its finds the extension gone)
$node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE trigger = 'worker' AND started_at > '$killed_at'");
# (at once, so that it never finds the extension missing, and nothing added
# after it, which would wake it)
$node->safe_psql('postgres', 'DROP EXTENSION gpualloc CASCADE; CREATE EXTENSION gpualloc CASCADE;');
worker_plans_soon('true', time, 'after DROP and CREATE EXTENSION the planner plans again',
	'soon, not a whole interval later');

# on a standby the planner does not run; it starts once promoted
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->start;
$node->wait_for_catchup($standby);
sleep 2;
is($standby->safe_psql('postgres',
	"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gpualloc planner'"),
	'0', 'no planner runs on a standby');
ok(!$standby->log_contains('gpualloc planner started'), 'the standby never started one');
$standby->promote;
ok($standby->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'gpualloc planner'"),
	'the planner starts once the standby is promoted');

$standby->stop;
$node->stop;
done_testing();
