# The extension on a real server: it loads through shared_preload_libraries,
# and pg_dump keeps the rows users put in its tables.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'gpualloc'\n");
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION gpualloc CASCADE');
is($node->safe_psql('postgres', "SELECT extversion FROM pg_extension WHERE extname = 'gpualloc'"),
	$node->safe_psql('postgres', "SELECT default_version FROM pg_available_extensions WHERE name = 'gpualloc'"),
	'extension installs at its current version with the library preloaded');

$node->safe_psql('postgres', q{
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.add_service('chat', 'a100', 50, 4);
	SELECT gpualloc.record_demand('chat', '2026-11-30 10:00+00', 120);
	SELECT gpualloc.add_tenant('postgres');
	SELECT gpualloc.submit_job('ft', 'training', 'a100', 2, 4, work_gpu_hours => 8);
	SELECT gpualloc.job_started(1, 0, 4);
});

# dump the database and restore it into a fresh one
my $dump = $node->basedir . '/gpualloc.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('postgres'), '-f', $dump ],
	'pg_dump succeeds');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ],
	'pg_restore succeeds');

is($node->safe_psql('restored', q{
	SELECT (SELECT count(*) FROM gpualloc.gpus) || ',' ||
		   (SELECT count(*) FROM gpualloc.services) || ',' ||
		   (SELECT count(*) FROM gpualloc.demand_history) || ',' ||
		   (SELECT status FROM gpualloc.jobs WHERE job_id = 1) || ',' ||
		   (SELECT count(*) FROM gpualloc.allocations WHERE job_id = 1)
}), '8,1,1,running,4', 'restored database keeps GPUs, services, demand, jobs and allocations');

# sequences were dumped too: a new job does not collide with restored ids
is($node->safe_psql('restored',
	"SELECT gpualloc.submit_job('next', 'training', 'a100', 1, work_gpu_hours => 1)"),
	'2', 'job ids continue after restore');

# the exclusion constraint survives the round trip
my ($ret, $out, $err) = $node->psql('restored', q{
	INSERT INTO gpualloc.allocations (gpu_id, service_id, during, begin_seq, end_seq)
	SELECT gpu_id, 1, tstzrange(now(), now() + interval '1 hour'), 0, 0 FROM gpualloc.gpus WHERE slot = 0
});
like($err, qr/allocations_no_double_booking/, 'restored table still refuses double booking');

# the background planner (interval 30 min) notices the new extension soon
ok($node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE trigger = 'worker'"),
	'the planner plans soon after the extension is created');

$node->stop;
done_testing();
