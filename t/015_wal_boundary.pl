# A re-plan flushes its plan's WAL before it takes the commit lock.  Where
# the WAL written so far ends exactly at the end of a page, the position the
# next record would be inserted at lies past the next page's header, beyond
# anything written, and a flush asked for there fails the re-plan.  Records
# are 8-byte aligned, about 1,020 places a page, so about one re-plan in a
# thousand ends there.  Here 3,000 re-plans run, each after a message that
# pads the WAL by a scrambled multiple of 8 bytes, so they end at offsets
# spread over a page; every one must succeed.  Flushing to the insert
# position instead failed 3 of them (and so this test) when tried.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('walpage');
$node->init;
# no full-page images or checkpoints, so each re-plan writes about as much WAL
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.enabled = off
full_page_writes = off
checkpoint_timeout = '1h'
max_wal_size = '4GB'
});
$node->start;

sub sql { return $node->safe_psql('postgres', shift); }

sql(q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant('postgres');
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.submit_job('j' || i, 'training', 'a100', 8, 8, work_gpu_hours => 800)
	FROM generate_series(1, 4) i;
});

my $rounds = 3000;
my $batch = 100;
my $succeeded = 0;
my $failures = '';
for (my $first = 0; $first < $rounds; $first += $batch)
{
	my $script = '';
	for my $k ($first .. $first + $batch - 1)
	{
		my $pad = 8 * (($k * 2654435761) % 1021);
		$script .= "SELECT pg_logical_emit_message(false, 'pad', repeat('x', $pad)) IS NOT NULL AS padded \\gset\n";
		$script .= "SELECT status FROM gpualloc.replan('fast');\n";
	}
	my ($ret, $out, $err) = $node->psql('postgres', $script);
	$succeeded += () = $out =~ /^succeeded$/mg;
	$failures .= $err if $err ne '';
}
is($succeeded, $rounds, "all $rounds re-plans succeeded, ending at offsets spread over a WAL page");
is($failures, '', 'no re-plan raised an error');

done_testing();
