# The upgrade path: a database filled at version 0.1 and updated with ALTER
# EXTENSION gpualloc UPDATE has the same schema (pg_dump -s) as a fresh
# install of the current version, keeps its data, and behaves the same.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
gpualloc.enabled = off
});
$node->start;

my $current = $node->safe_psql('postgres',
	"SELECT default_version FROM pg_available_extensions WHERE name = 'gpualloc'");
$node->safe_psql('postgres', 'CREATE DATABASE upgraded');
$node->safe_psql('postgres', 'CREATE DATABASE fresh');

# the same cluster and work, through each version's API
my $cluster = q{
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.add_node('a100', 1);
	SELECT gpualloc.add_service('chat', 'a100', 100, 4, churn_limit => 2);
	SELECT gpualloc.record_demand('chat', date_trunc('hour', now()) - make_interval(hours => h), 150 + 10 * (h % 5))
	FROM generate_series(1, 72) h;
	SELECT gpualloc.submit_job('train', 'training', 'a100', 4, 4, priority => 3, work_gpu_hours => 40);
	SELECT gpualloc.submit_job('score', 'batch_inference', 'a100', 2, 2, priority => 2, work_gpu_hours => 6);
	SELECT gpualloc.submit_job('quant', 'quantization', 'a100', 1, 2, work_gpu_hours => 2);
	SELECT gpualloc.submit_job('done', 'training', 'a100', 1, 1, work_gpu_hours => 1);
	SELECT gpualloc.job_started(1, 0, 4);
	SELECT gpualloc.job_started(4, 8, 1);
	SELECT gpualloc.job_finished(4);
};
$node->safe_psql('upgraded', "CREATE EXTENSION gpualloc VERSION '0.1' CASCADE; $cluster");
is($node->safe_psql('upgraded', "SELECT extversion FROM pg_extension WHERE extname = 'gpualloc'"),
	'0.1', 'version 0.1 installs and takes work');
$node->safe_psql('upgraded', 'ALTER EXTENSION gpualloc UPDATE');
is($node->safe_psql('upgraded', "SELECT extversion FROM pg_extension WHERE extname = 'gpualloc'"),
	$current, "ALTER EXTENSION gpualloc UPDATE reaches $current");
$node->safe_psql('fresh', "CREATE EXTENSION gpualloc CASCADE; SELECT gpualloc.add_tenant(current_user); $cluster");

# the same schema, object for object
sub schema_of {
	my ($db) = @_;
	my ($stdout, $stderr);
	# --binary-upgrade dumps an extension's member objects one by one (a plain
	# dump says only CREATE EXTENSION); object ids and the dump's own
	# settings, comments and session keys differ between any two databases, and
	# the binary-upgrade calls carry object ids and how a column was added
	IPC::Run::run([ 'pg_dump', '-s', '--binary-upgrade', '-d', $node->connstr($db) ],
				  '>', \$stdout, '2>', \$stderr)
	  or die "pg_dump $db failed: $stderr";
	# pg_dump orders objects of one kind and name by object id, so the same
	# schema may print in another order: compare the lines as sets
	return join("\n", sort grep { !/^(--|SET |SELECT pg_catalog\.set_config|\\(un)?restrict )/ && !/binary_upgrade_|^WHERE oid = '\d+';$/ && /\S/ }
				split /\n/, $stdout);
}
my $upgraded_schema = schema_of('upgraded');
my $fresh_schema = schema_of('fresh');
ok(length($fresh_schema) > 10000, 'pg_dump -s shows the extension');
if ($upgraded_schema eq $fresh_schema) {
	pass('an upgraded database has the schema of a fresh install');
} else {
	my @u = split /\n/, $upgraded_schema;
	my @f = split /\n/, $fresh_schema;
	my %in_f = map { $_ => 1 } @f;
	my %in_u = map { $_ => 1 } @u;
	diag("only after the upgrade: $_") for grep { !$in_f{$_} } @u;
	diag("only in a fresh install: $_") for grep { !$in_u{$_} } @f;
	fail('an upgraded database has the schema of a fresh install');
}

# the data survived, in 0.2's terms
is($node->safe_psql('upgraded', q{SELECT string_agg(name || ':' || status, ',' ORDER BY job_id) FROM gpualloc.jobs}),
	'train:running,score:queued,quant:queued,done:succeeded', 'jobs keep their state');
is($node->safe_psql('upgraded', q{SELECT string_agg(tenant::text, ',') FROM gpualloc.tenants}),
	$node->safe_psql('upgraded', 'SELECT current_user'), 'the roles that owned jobs are registered tenants');
is($node->safe_psql('upgraded', q{SELECT count(*) FROM gpualloc.current_allocation WHERE job_id = 1}),
	'4', 'the running job keeps its GPUs');
is($node->safe_psql('upgraded', q{SELECT count(*) FROM gpualloc.demand_history}), '72', 'demand history is kept');
is($node->safe_psql('upgraded', 'SELECT count(*) FROM gpualloc.check_integrity()'), '0',
	'the upgraded allocation passes the integrity check');

# and both plan the same from here
for my $db ('upgraded', 'fresh') {
	$node->safe_psql($db, q{SELECT status FROM gpualloc.replan('fast')});
}
my $summary = q{
	SELECT string_agg(name || ':' || status || ':' || coalesce(block_size::text, '-'), ',' ORDER BY name)
	FROM gpualloc.queue};
is($node->safe_psql('upgraded', $summary), $node->safe_psql('fresh', $summary),
	'an upgraded database plans as a fresh one');
my $held = q{SELECT string_agg(coalesce(workload_kind, 'idle') || '=' || n, ',' ORDER BY 1)
	FROM (SELECT workload_kind, count(*) AS n FROM gpualloc.current_allocation GROUP BY 1) c};
is($node->safe_psql('upgraded', $held), $node->safe_psql('fresh', $held), 'and commits the same allocation');
is($node->safe_psql('upgraded', 'SELECT count(*) FROM gpualloc.check_integrity()'), '0', 'integrity holds');
is($node->safe_psql('upgraded', q{
	SELECT gpualloc.submit_job('after', 'training', 'a100', 1, work_gpu_hours => 1, command => 'true') > 0}),
	't', 'the new API works on the upgraded database');

$node->stop;
done_testing();
