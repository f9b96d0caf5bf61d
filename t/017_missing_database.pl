# The background planner's database does not exist (not created yet, or
# dropped WITH (FORCE)): each attempt to open it ends the planner with
# FATAL and the postmaster starts it again, so after the second attempt in
# a row the planner waits before the next one, 5 s and doubling (up to 5
# minutes), and says so in the log; a shutdown does not wait for the wait;
# once the database exists the planner opens it and plans after CREATE
# EXTENSION.
use strict;
use warnings;
use Time::HiRes qw(time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('nodb');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'later'
gpualloc.replan_interval = '2s'
});
$node->start;

# attempts 1 and 2 at the postmaster's 5 s; then waits of 5, 10, 20 s
my $at = $node->wait_for_log(qr/database "later" does not exist/);
pass('the planner cannot open a database that does not exist');
$at = $node->wait_for_log(
	qr/gpualloc planner: database "later" could not be opened 2 times in a row; trying again in 5 s/, $at);
pass('after two attempts in a row it waits 5 s more before the next');
$at = $node->wait_for_log(qr/could not be opened 3 times in a row; trying again in 10 s/, $at);
pass('then 10 s');
$at = $node->wait_for_log(qr/could not be opened 4 times in a row; trying again in 20 s/, $at);
pass('then 20 s');

# the planner is in its 20 s wait: a fast shutdown ends it at once
my $t0 = time();
$node->stop('fast');
my $took = time() - $t0;
cmp_ok($took, '<', 10, "a shutdown does not wait for the planner's wait (took " . sprintf('%.1f', $took) . ' s)');

# a new start counts again from the first attempt; the database created
# meanwhile is opened by the next one
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE later');
ok($node->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'gpualloc planner' AND datname = 'later'}),
	'once the database exists the planner opens it');
$node->safe_psql('later', q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant('postgres');
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.submit_job('train', 'training', 'a100', 2, 4, work_gpu_hours => 8);
});
ok($node->poll_query_until('later',
	"SELECT count(*) > 0 FROM gpualloc.plan_runs WHERE trigger = 'worker' AND status IN ('succeeded', 'fallback')"),
	'and plans after CREATE EXTENSION');

$node->stop;
done_testing();
