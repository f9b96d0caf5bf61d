# Time limits and dependencies with the background planner: a running job
# past its limit is stopped by the worker's housekeeping (failed, its rows
# ended, executors told with reason "time_limit"), its after_ok dependent is
# cancelled, its after_any dependent is booked by the plan the stop wakes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('limits');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
gpualloc.replan_interval = '1h'
gpualloc.replan_debounce = '1s'
});
$node->start;

sub sql { return $node->safe_psql('postgres', shift); }

sql(q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant('postgres');
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
});

my $a = sql(q{SELECT gpualloc.submit_job('long', 'training', 'a100', 8, 8, work_gpu_hours => 80,
										 time_limit => interval '3 seconds')});
my $ok = sql(qq{SELECT gpualloc.submit_job('needs-success', 'quantization', 'a100', 1, 1, work_gpu_hours => 1,
										   after_ok => ARRAY[$a])});
my $any = sql(qq{SELECT gpualloc.submit_job('runs-anyway', 'batch_inference', 'a100', 2, 2, work_gpu_hours => 1,
											after_any => ARRAY[$a])});
sql(q{SELECT status FROM gpualloc.replan('fast')});
is(sql("SELECT string_agg(status, ',' ORDER BY job_id) FROM gpualloc.jobs"), 'booked,queued,queued',
	'only the job that waits for nothing is booked');
my $last_plan = sql('SELECT max(plan_id) FROM gpualloc.plan_runs');

my ($ret, $out, $err) = $node->psql('postgres', qq{
	LISTEN gpualloc;
	SELECT gpualloc.job_started($a);
	SELECT pg_sleep(12);
});
like($out, qr/"reason" : "time_limit", "plan_id" : null, "gpus" : \[[\d,]+\], "jobs" : \[$a\]/,
	'the executors are told the job past its limit must stop');
is(sql("SELECT status FROM gpualloc.jobs WHERE job_id = $a"), 'failed', 'the job is stopped as failed');
like(sql("SELECT status_message FROM gpualloc.jobs WHERE job_id = $a"), qr/time limit of .* reached: stopped/,
	'and says why');
is(sql("SELECT count(*) FROM gpualloc.allocations WHERE job_id = $a AND end_seq IS NULL"), '0',
	'its rows have ended');
is(sql("SELECT status FROM gpualloc.jobs WHERE job_id = $ok"), 'cancelled',
	'its after_ok dependent can never run: cancelled');
like(sql("SELECT status_message FROM gpualloc.jobs WHERE job_id = $ok"), qr/dependency never satisfied/,
	'and says why');
ok($node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE plan_id > $last_plan AND trigger = 'worker'"),
	'the stop wakes the planner');
ok($node->poll_query_until('postgres', "SELECT status = 'booked' FROM gpualloc.jobs WHERE job_id = $any"),
	'its after_any dependent is booked');
is(sql('SELECT count(*) FROM gpualloc.check_integrity()'), '0', 'integrity holds');

$node->stop;
done_testing();
