# High availability under Patroni: a three-member cluster (etcd as the
# configuration store, synchronous_mode and synchronous_mode_strict on) with
# gpualloc preloaded on every member.  While a submitter and an executor
# write through a multi-host connection string (target_session_attrs =
# read-write) and a monitor samples every member, the leader dies: its
# Patroni and its postmaster are killed with SIGKILL, as a host crash would
# end them.  Checked: a new leader is elected and its planner commits a plan;
# every submit and executor report whose commit was acknowledged is on the
# new leader; no GPU is ever booked twice; a planner never runs on a member
# in recovery nor on two members at once, and worker plan runs never
# overlap; once its Patroni is started again, the old leader rejoins as a
# replica with the new leader's history and plans no more.  The failover
# figures are printed, and written as JSON to $GPUALLOC_HA_JSON when set
# (make test-ha sets it to bench/results/ha.json).
#
# Everything listens on 127.0.0.1 on free ports and lives under the test's
# temporary directory; every process started here is stopped at exit, on
# failure too.  Each wait has its own bound.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use HTTP::Tiny;
use JSON::PP;
use POSIX ();
use Time::HiRes qw(sleep time);

my $PG_BIN = '/usr/lib/postgresql/15/bin';
my $LOAD_BEFORE_KILL = 12;	# seconds of client load before the kill
my $LOAD_AFTER_PLAN = 8;	# and after the new leader's first plan
my $FAILOVER_BOUND = 120;	# seconds allowed for a new leader, and for its plan
my $TTL = 12;	# Patroni's leader key lives this long unless renewed (>= loop_wait + 2 * retry_timeout)
my $MEMBERS = 3;

for my $bin ('/usr/bin/patroni', '/usr/bin/etcd', "$PG_BIN/postgres")
{
	next if -x $bin;
	fail("$bin is installed (sh tools/install-deps.sh installs it)");
	done_testing();
	exit 1;
}

my $base = PostgreSQL::Test::Utils::tempdir('ha');
my $sockets = PostgreSQL::Test::Utils::tempdir_short();
my $scope = "gpualloc-ha-$$";
my ($etcd_client, $etcd_peer) = map { PostgreSQL::Test::Cluster::get_free_port() } 1 .. 2;
my @members = map {
	{
		name => "member$_",
		dir => "$base/member$_",
		pgport => PostgreSQL::Test::Cluster::get_free_port(),
		restport => PostgreSQL::Test::Cluster::get_free_port(),
	}
} 1 .. $MEMBERS;

# ---------------------------------------------------------------------------
# Processes: each started in a session of its own, logging to a file, and
# stopped by the END block whatever happens.

my %started;	# pid => what

sub spawn
{
	my ($what, $log, @cmd) = @_;
	my $pid = fork;
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		POSIX::setsid();
		open(STDOUT, '>>', $log) or POSIX::_exit(127);
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(127);
		exec(@cmd) or POSIX::_exit(127);
	}
	$started{$pid} = $what;
	return $pid;
}

# A child running a Perl loop (a client or the monitor): it must never run
# the test's END block, so it leaves through _exit.
sub spawn_loop
{
	my ($what, $body) = @_;
	my $pid = fork;
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		$SIG{$_} = 'DEFAULT' for qw(INT TERM HUP);
		POSIX::setsid();
		eval { $body->(); };
		POSIX::_exit($@ ? 1 : 0);
	}
	$started{$pid} = $what;
	return $pid;
}

# Interrupted (a CI time limit, ^C): leave through die, so that the END
# block below stops everything this test started.
$SIG{$_} = sub { die "interrupted by SIG$_[0]\n" } for qw(INT TERM HUP);

sub alive { my ($pid) = @_; return kill(0, $pid) && waitpid($pid, POSIX::WNOHANG()) == 0; }

# Ask each process to stop, wait up to $grace seconds, then kill what is
# left with its process group.  With $group, the first signal goes to the
# whole group too (a client and the psql it waits for).
sub stop_processes
{
	my ($grace, $group, @pids) = @_;
	kill 'TERM', map { $group ? -$_ : $_ } grep { alive($_) } @pids;
	my $until = time + $grace;
	sleep 0.2 while time < $until && grep { alive($_) } @pids;
	for my $pid (grep { alive($_) } @pids)
	{
		kill 'KILL', -$pid;
		kill 'KILL', $pid;
		waitpid($pid, 0);
	}
	delete @started{@pids};
}

sub postmaster_pid
{
	my ($m) = @_;
	open(my $fh, '<', "$m->{dir}/data/postmaster.pid") or return undef;
	my $pid = <$fh>;
	close $fh;
	return defined $pid && $pid =~ /^(\d+)$/ ? $1 : undef;
}

END
{
	my $rc = $?;
	# a failed run's Patroni logs go with its temporary directory: show
	# their ends first
	if ($rc != 0 || !Test::More->builder->is_passing)
	{
		for my $m (@members)
		{
			open(my $fh, '<', "$m->{dir}/patroni.log") or next;
			my @lines = <$fh>;
			close $fh;
			diag("$m->{name} patroni.log: $_") for @lines[ ($#lines > 40 ? $#lines - 40 : 0) .. $#lines ];
		}
	}
	# clients and monitor first, then Patroni (which stops its PostgreSQL),
	# then any postmaster left behind, then etcd
	my @loops = grep { $started{$_} =~ /^(client|monitor)/ } keys %started;
	stop_processes(5, 1, @loops);
	my @patronis = grep { $started{$_} =~ /^patroni/ } keys %started;
	stop_processes(30, 0, @patronis);
	for my $m (@members)
	{
		my $pid = postmaster_pid($m);
		next unless $pid && kill(0, $pid);
		kill 'QUIT', $pid;
		sleep 2;
		kill 'KILL', $pid if kill(0, $pid);
	}
	stop_processes(10, 0, keys %started);
	$? = $rc;
}

# ---------------------------------------------------------------------------
# SQL through psql, always with a time limit.

sub conninfo
{
	my ($m) = @_;
	return "host=127.0.0.1 port=$m->{pgport} dbname=postgres user=postgres connect_timeout=3";
}

# What executors and submitters use: every member, the primary wanted.
my $multi_host = 'host=' . join(',', map { '127.0.0.1' } @members)
  . ' port=' . join(',', map { $_->{pgport} } @members)
  . ' dbname=postgres user=postgres target_session_attrs=read-write connect_timeout=3';

# Runs $sql; returns (exit code, output); a run past $limit seconds is
# killed and counts as failed.
sub run_sql
{
	my ($conninfo, $sql, $limit) = @_;
	my ($out, $err) = ('', '');
	my $ok = eval {
		IPC::Run::run([ "$PG_BIN/psql", '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1',
						'-d', $conninfo, '-c', $sql ],
			'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout($limit // 20));
	};
	die $@ if !$ok && $@ =~ /^interrupted/;
	return (1, $err) unless $ok;
	chomp $out;
	return (0, $out);
}

sub sql_at
{
	my ($m, $sql) = @_;
	my ($rc, $out) = run_sql(conninfo($m), $sql);
	die "query on $m->{name} failed: $out\n$sql\n" if $rc;
	return $out;
}

# Polls $cond every $step seconds for up to $limit seconds; true when it held.
sub wait_until
{
	my ($limit, $step, $cond) = @_;
	my $until = time + $limit;
	while (time < $until)
	{
		return 1 if $cond->();
		sleep $step;
	}
	return 0;
}

sub patroni_cluster
{
	my $res = HTTP::Tiny->new(timeout => 3)
	  ->get("http://127.0.0.1:$members[0]{restport}/cluster");
	return undef unless $res->{success};
	return eval { decode_json($res->{content}) };
}

sub role_of
{
	my ($cluster, $name) = @_;
	my ($m) = grep { $_->{name} eq $name } @{ $cluster->{members} // [] };
	return $m ? $m->{role} // '' : '';
}

# ---------------------------------------------------------------------------
# etcd and three Patroni members.

mkdir "$base/etcd";
spawn('etcd', "$base/etcd.log", '/usr/bin/etcd',
	'--name', 'ha', '--data-dir', "$base/etcd/data",
	'--listen-client-urls', "http://127.0.0.1:$etcd_client",
	'--advertise-client-urls', "http://127.0.0.1:$etcd_client",
	'--listen-peer-urls', "http://127.0.0.1:$etcd_peer",
	'--initial-advertise-peer-urls', "http://127.0.0.1:$etcd_peer",
	'--initial-cluster', "ha=http://127.0.0.1:$etcd_peer",
	'--initial-cluster-state', 'new');
ok(wait_until(60, 0.2, sub {
	HTTP::Tiny->new(timeout => 2)->get("http://127.0.0.1:$etcd_client/health")->{success} }),
	'etcd answers on loopback');

sub patroni_config
{
	my ($m) = @_;
	return <<"EOC";
scope: $scope
name: $m->{name}
log:
  level: INFO
restapi:
  listen: 127.0.0.1:$m->{restport}
  connect_address: 127.0.0.1:$m->{restport}
etcd3:
  hosts: 127.0.0.1:$etcd_client
bootstrap:
  dcs:
    ttl: $TTL
    loop_wait: 1
    retry_timeout: 5
    # fail over at once when the primary crashes, rather than restart it
    primary_start_timeout: 0
    synchronous_mode: true
    synchronous_mode_strict: true
    postgresql:
      use_pg_rewind: true
      # the same on every member, kept by Patroni (ALTER SYSTEM would set
      # one member only)
      parameters:
        shared_preload_libraries: gpualloc
        gpualloc.database: postgres
        gpualloc.replan_interval: 2s
        gpualloc.replan_debounce: 1s
        gpualloc.solver_time_limit: 300ms
        wal_log_hints: 'on'
        # a replica retries streaming from the new leader (whose slot for it
        # may not exist yet) after this, not the default 5 s: in strict
        # mode the new leader's commits wait for it
        wal_retrieve_retry_interval: 1s
  initdb:
    - encoding: UTF8
    - locale: C
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$m->{pgport}
  connect_address: 127.0.0.1:$m->{pgport}
  data_dir: $m->{dir}/data
  bin_dir: $PG_BIN
  pgpass: $m->{dir}/pgpass
  authentication:
    superuser:
      username: postgres
      password: ha-test
    replication:
      username: replicator
      password: ha-test
  parameters:
    unix_socket_directories: '$sockets'
    logging_collector: 'on'
    log_directory: '$m->{dir}/log'
    log_filename: postgresql.log
    log_line_prefix: '%m [%p] %b '
EOC
}

# The first member bootstraps the cluster; the others are cloned from it.
for my $m (@members)
{
	mkdir $m->{dir};
	chmod 0700, $m->{dir};
	open(my $fh, '>', "$m->{dir}/patroni.yml") or die $!;
	print $fh patroni_config($m);
	close $fh;
	$m->{patroni} = spawn("patroni $m->{name}", "$m->{dir}/patroni.log",
		'/usr/bin/patroni', "$m->{dir}/patroni.yml");
	if ($m == $members[0])
	{
		wait_until(90, 0.5, sub {
			role_of(patroni_cluster() // {}, $m->{name}) =~ /^(leader|master|primary)$/ });
	}
}

my $cluster;
ok(wait_until(180, 1, sub {
	$cluster = patroni_cluster() or return 0;
	my @roles = map { $_->{role} } @{ $cluster->{members} };
	my @streaming = grep { ($_->{role} ne 'leader') && ($_->{state} // '') =~ /^(running|streaming)$/ }
	  @{ $cluster->{members} };
	return @roles == $MEMBERS && (grep { $_ eq 'leader' } @roles) == 1
	  && (grep { $_ eq 'sync_standby' } @roles) == 1 && @streaming == $MEMBERS - 1;
}), 'Patroni runs a leader, a synchronous standby and a replica');

is(join(' ', map { sql_at($_, q{SELECT current_setting('shared_preload_libraries') || ','
	|| current_setting('gpualloc.replan_interval') || ',' || current_setting('wal_retrieve_retry_interval')}) } @members),
	join(' ', ('gpualloc,2s,1s') x $MEMBERS), 'every member has the settings of the shared configuration');

my ($leader) = grep { role_of($cluster, $_->{name}) eq 'leader' } @members;
$leader //= $members[0];
my ($sync) = grep { role_of($cluster, $_->{name}) eq 'sync_standby' } @members;
diag("leader $leader->{name}, synchronous standby " . ($sync ? $sync->{name} : 'none'));

# ---------------------------------------------------------------------------
# gpualloc on the leader: two nodes of 8 GPUs and a tenant.

sql_at($leader, q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant('postgres');
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.add_node('a100', 1);
});
ok(wait_until(60, 0.5, sub {
	sql_at($leader, q{SELECT count(*) > 0 FROM gpualloc.plan_runs
					  WHERE trigger = 'worker' AND status IN ('succeeded', 'fallback')}) eq 't' }),
	'the planner on the leader commits a plan');
is(join(',', map { sql_at($_, 'SELECT pg_is_in_recovery()') } grep { $_ != $leader } @members),
	't,t', 'the other members are standbys');
is(sql_at($leader, q{SELECT current_setting('synchronous_standby_names') || ',' ||
	(SELECT string_agg(application_name || ':' || sync_state, ',' ORDER BY sync_state DESC)
	 FROM pg_stat_replication)}),
	join(',', $sync ? ($sync->{name}, "$sync->{name}:sync") : (),
		map { "$_->{name}:async" } grep { $_ != $leader && $_ != ($sync // 0) } @members),
	'commits on the leader wait for the synchronous standby');

# ---------------------------------------------------------------------------
# Clients: each appends one line per acknowledged write to its file (the
# line is written only after psql returned the committed result).

my $stop_file = "$base/stop";

sub append_line
{
	my ($file, $line) = @_;
	open(my $fh, '>>', $file) or die "$file: $!";
	printf $fh "%.3f %s\n", time, $line;
	close $fh;
}

sub client_loop
{
	my ($pause, $step) = @_;
	my $until = time + 600;
	while (!-e $stop_file && time < $until)
	{
		$step->();
		sleep $pause;
	}
}

# The submitter: one job per statement, unique names.  A failed attempt is
# recorded with the first line of its error.
my $submits = "$base/submits.acked";
my $submit_errors = "$base/submits.failed";
spawn_loop('client submitter', sub {
	my $i = 0;
	client_loop(0.15, sub {
		$i++;
		my $name = "ha-job-$i";
		my ($rc, $out) = run_sql($multi_host,
			"SELECT gpualloc.submit_job('$name', 'batch_inference', 'a100', 1, 2, work_gpu_hours => 0.25)");
		if ($rc == 0 && $out =~ /^\d+$/)
		{
			append_line($submits, "$name $out");
		}
		else
		{
			my ($first) = split /\n/, $out || 'no result';
			$first =~ s/\s+/ /g;
			append_line($submit_errors, "$name $first");
		}
	});
});

# The executor: starts the lowest booked job, finishes the lowest job
# running for two seconds; each report one statement naming its job.
my $reports = "$base/reports.acked";
spawn_loop('client executor', sub {
	client_loop(0.1, sub {
		my ($rc, $out) = run_sql($multi_host, q{
			SELECT w.job_id, gpualloc.job_started(w.job_id) IS NULL
			FROM (SELECT job_id FROM gpualloc.executor_work WHERE status = 'booked'
				  ORDER BY job_id LIMIT 1) w});
		append_line($reports, "started $1") if $rc == 0 && $out =~ /^(\d+)\|/;
		($rc, $out) = run_sql($multi_host, q{
			SELECT w.job_id, gpualloc.job_finished(w.job_id, succeeded => true) IS NULL
			FROM (SELECT job_id FROM gpualloc.jobs WHERE status = 'running'
				  AND started_at < now() - interval '2 seconds' ORDER BY job_id LIMIT 1) w});
		append_line($reports, "finished $1") if $rc == 0 && $out =~ /^(\d+)\|/;
	});
});

# The monitor: each round asks every member whether it is in recovery and
# how many planners it runs; a member that does not answer is left out.
my $samples = "$base/monitor.samples";
spawn_loop('monitor', sub {
	my $round = 0;
	client_loop(0.25, sub {
		$round++;
		for my $m (@members)
		{
			my ($rc, $out) = run_sql(conninfo($m), q{
				SELECT pg_is_in_recovery(), count(*) FROM pg_stat_activity
				WHERE backend_type = 'gpualloc planner'}, 5);
			append_line($samples, "$round $m->{name} $out") if $rc == 0 && $out =~ /^[tf]\|\d+$/;
		}
	});
});

sub read_lines
{
	my ($file) = @_;
	open(my $fh, '<', $file) or return ();
	my @lines = map { chomp; [ split / / ] } <$fh>;
	close $fh;
	return @lines;
}

sleep $LOAD_BEFORE_KILL;
ok((grep { 1 } read_lines($submits)) > 0 && (grep { $_->[1] eq 'started' } read_lines($reports)) > 0,
	'submits and executor reports are acknowledged before the kill');

# ---------------------------------------------------------------------------
# The kill.

my $plans_before = sql_at($leader,
	"SELECT count(*) FROM gpualloc.plan_runs WHERE status IN ('succeeded', 'fallback')");
my $log_size_at_kill = -s "$leader->{dir}/log/postgresql.log" // 0;
my $victim = postmaster_pid($leader);
ok($victim && kill(0, $victim), "the leader's postmaster runs (pid " . ($victim // '?') . ')');
ok(alive($leader->{patroni}), "the leader's Patroni runs (pid $leader->{patroni})");
# The whole member dies, as its host would: Patroni first, so that it cannot
# restart PostgreSQL in place (which it does after a crash when it judges a
# failover impossible at that moment), then the postmaster.  The leader key
# then expires after ttl and the synchronous standby takes it.
my $killed_at = time;
kill 'KILL', $leader->{patroni};
kill 'KILL', $victim;
waitpid($leader->{patroni}, 0);
delete $started{ $leader->{patroni} };
diag(sprintf('killed the Patroni and the postmaster of %s at %.3f', $leader->{name}, $killed_at));

my @others = grep { $_ != $leader } @members;
my ($new_leader, $leader_seen_at);
wait_until($FAILOVER_BOUND, 0.1, sub {
	for my $m (@others)
	{
		my ($rc, $out) = run_sql(conninfo($m), 'SELECT pg_is_in_recovery()', 5);
		next unless $rc == 0 && $out eq 'f';
		($new_leader, $leader_seen_at) = ($m, time);
		return 1;
	}
	return 0;
});
ok($new_leader, "a new leader is elected within $FAILOVER_BOUND s");
die "no new leader\n" unless $new_leader;
is($new_leader->{name}, $sync ? $sync->{name} : '', 'the new leader is the former synchronous standby');

# The new leader's first committed plan: a worker run started after the kill
# (a run of the old leader in flight at the kill started before it).  Its
# finished_at is written inside the run's transaction; the commit, which
# waits for a synchronous standby, is when the row becomes visible here.
my ($first_plan_seen_at, $first_plan_finished_at);
wait_until($FAILOVER_BOUND - (time - $killed_at), 0.1, sub {
	my ($rc, $out) = run_sql(conninfo($new_leader), sprintf(q{
		SELECT extract(epoch FROM min(finished_at)) FROM gpualloc.plan_runs
		WHERE trigger = 'worker' AND status IN ('succeeded', 'fallback')
		  AND started_at > to_timestamp(%.6f)}, $killed_at), 5);
	return 0 unless $rc == 0 && $out =~ /^[\d.]+$/;
	($first_plan_seen_at, $first_plan_finished_at) = (time, $out);
	return 1;
});
ok($first_plan_seen_at, "the new leader commits a plan within $FAILOVER_BOUND s of the kill");

# The old leader's host comes back: its Patroni starts again, and must bring
# its PostgreSQL back as a replica of the new leader.
my $restarted_at = time;
$leader->{patroni} = spawn("patroni $leader->{name}", "$leader->{dir}/patroni.log",
	'/usr/bin/patroni', "$leader->{dir}/patroni.yml");

sleep $LOAD_AFTER_PLAN;
append_line($stop_file, 'stop');
my @loops = grep { $started{$_} =~ /^(client|monitor)/ } keys %started;
ok(wait_until(60, 0.2, sub { !grep { alive($_) } @loops }), 'the clients and the monitor stop');
stop_processes(1, 1, @loops);

# ---------------------------------------------------------------------------
# Nothing acknowledged is lost.

my @submit_acks = read_lines($submits);
my @report_acks = read_lines($reports);
my @after_kill = grep { $_->[0] > $killed_at } @submit_acks;
ok(@after_kill > 0, 'submits are acknowledged again after the failover, through the multi-host connection string');

my %jobs = map { my @f = split /\|/; ($f[0] => { name => $f[1], status => $f[2] }) }
  split /\n/, sql_at($new_leader, 'SELECT job_id, name, status FROM gpualloc.jobs');
my @lost_submits = grep { !$jobs{ $_->[2] } || $jobs{ $_->[2] }{name} ne $_->[1] } @submit_acks;
is(scalar @lost_submits, 0,
	sprintf('every acknowledged submit is on the new leader (%d acknowledged)', scalar @submit_acks));
my @lost_starts = grep {
	$_->[1] eq 'started' && (!$jobs{ $_->[2] } || $jobs{ $_->[2] }{status} !~ /^(running|succeeded)$/)
} @report_acks;
is(scalar @lost_starts, 0, 'every acknowledged job_started is reflected');
my @lost_finishes = grep {
	$_->[1] eq 'finished' && (!$jobs{ $_->[2] } || $jobs{ $_->[2] }{status} ne 'succeeded')
} @report_acks;
is(scalar @lost_finishes, 0, 'every acknowledged job_finished is reflected');
diag("lost: $_->[1] $_->[2]") for (@lost_submits, @lost_starts, @lost_finishes);

# ---------------------------------------------------------------------------
# No GPU booked twice, ever; one holder per GPU now.

my $no_double_booking = q{
	SELECT (SELECT count(*) FROM gpualloc.allocations a JOIN gpualloc.allocations b
			ON a.gpu_id = b.gpu_id AND a.allocation_id < b.allocation_id AND a.during && b.during)
		|| ',' || (SELECT count(*) FROM (SELECT gpu_id FROM gpualloc.allocations WHERE upper_inf(during)
										 GROUP BY gpu_id HAVING count(*) > 1) x)
		|| ',' || (SELECT count(*) FROM gpualloc.allocations)};
my ($overlaps, $shared_now, $allocation_rows) = split /,/, sql_at($new_leader, $no_double_booking);
is("$overlaps,$shared_now", '0,0',
	"no GPU is booked twice in allocations' history ($allocation_rows rows) nor now");
ok($allocation_rows > 0, 'the allocation history is not empty');

# ---------------------------------------------------------------------------
# One planner at a time.

# Each member's planner is seen from its first sample with one to its last;
# two members' spans must not overlap (a member seen twice would span the
# gap between, which can only make the check stricter).
my (%rounds, %span, @planner_in_recovery);
for my $s (read_lines($samples))
{
	my ($at, $round, $name, $state) = @$s;
	my ($recovery, $planners) = split /\|/, $state;
	$rounds{$round} = 1;
	next unless $planners > 0;
	push @planner_in_recovery, $s if $recovery eq 't';
	$span{$name}[0] //= $at;
	$span{$name}[1] = $at;
}
my @with_planner = sort keys %span;
my @two_planners;
for my $i (0 .. $#with_planner)
{
	for my $j ($i + 1 .. $#with_planner)
	{
		my ($p, $q) = @span{ @with_planner[ $i, $j ] };
		push @two_planners, "@with_planner[$i, $j]" if $p->[0] <= $q->[1] && $q->[0] <= $p->[1];
	}
}
my $sampled = keys %rounds;
diag(sprintf('planner seen on %s from kill%+.3f s to kill%+.3f s', $_, $span{$_}[0] - $killed_at,
	$span{$_}[1] - $killed_at)) for @with_planner;
ok($sampled > 10, "the monitor sampled the members ($sampled rounds)");
is(join(',', @with_planner), join(',', sort map { $_->{name} } $leader, $new_leader),
	'it saw a planner on the old leader and on the new one, on no other member');
is(scalar @planner_in_recovery, 0, 'no planner ever ran on a member in recovery');
is(join(', ', @two_planners), '', 'no two members ever ran a planner at the same time');
is(sql_at($new_leader, q{
	SELECT count(*) FROM gpualloc.plan_runs a JOIN gpualloc.plan_runs b
	ON a.plan_id < b.plan_id AND a.trigger = 'worker' AND b.trigger = 'worker'
	   AND tstzrange(a.started_at, a.finished_at) && tstzrange(b.started_at, b.finished_at)}),
	'0', 'no two worker plan runs overlap in time');

# ---------------------------------------------------------------------------
# The old leader comes back as a replica of the new one, and plans no more.

my $rejoined_at;
ok(wait_until($FAILOVER_BOUND, 0.5, sub {
	my ($rc, $out) = run_sql(conninfo($leader), 'SELECT pg_is_in_recovery()', 5);
	$rejoined_at = time if $rc == 0 && $out eq 't';
	return $rejoined_at;
}), "the old leader rejoins as a replica within $FAILOVER_BOUND s");
# The new leader's history, then a WAL position after it: once the old
# leader has replayed that far it holds at least that history.  The new
# leader keeps planning and taking submissions meanwhile, so the old one may
# hold more by the time it is read; none of these counts falls in the test.
my $history = q{SELECT (SELECT count(*) FROM gpualloc.plan_runs) || ',' || (SELECT count(*) FROM gpualloc.jobs)
	|| ',' || (SELECT count(*) FROM gpualloc.allocations) || ',' || (SELECT max(seq) FROM gpualloc.allocation_commits)};
my $new_history = sql_at($new_leader, $history);
my $lsn = sql_at($new_leader, 'SELECT pg_current_wal_lsn()');
my $caught_up = $rejoined_at && wait_until(60, 0.5, sub {
	my ($rc, $out) = run_sql(conninfo($leader),
		"SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn", 5);
	return $rc == 0 && $out eq 't';
});
ok($caught_up, 'the old leader replays the new leader\'s WAL');
my $old_history = $caught_up ? sql_at($leader, $history) : '';
my @held = split /,/, $old_history;
my @wanted = split /,/, $new_history;
ok(@held == @wanted && !grep({ $held[$_] < $wanted[$_] } 0 .. $#wanted),
	"the old leader holds the new leader's history (plan runs, jobs, allocation rows, last change set: "
	  . "$old_history, at least $new_history)");
is($rejoined_at ? sql_at($leader, q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gpualloc planner'}) : '',
	'0', 'no planner runs on the old leader');
my $log_after_kill = '';
if (open(my $fh, '<', "$leader->{dir}/log/postgresql.log"))
{
	seek($fh, $log_size_at_kill, 0);
	local $/;
	$log_after_kill = <$fh> // '';
	close $fh;
}
my $log_before_kill = '';
if (open(my $fh, '<', "$leader->{dir}/log/postgresql.log"))
{
	read($fh, $log_before_kill, $log_size_at_kill);
	close $fh;
}
like($log_before_kill, qr/gpualloc planner started/, 'the old leader\'s log shows its planner before the kill');
unlike($log_after_kill, qr/gpualloc planner started/, 'and no planner started after the kill');

# ---------------------------------------------------------------------------
# The figures.

# Failed submit attempts around the kill, each with its error's first line.
my @submit_failures = read_lines($submit_errors);
diag(sprintf('submit failed at kill%+.3f s: %s', $_->[0] - $killed_at, join(' ', @$_[ 2 .. $#$_ ])))
  for @submit_failures;
# How long submits went unacknowledged: the longest wait between two
# consecutive acknowledgements, the later one after the kill.  Not the
# first acknowledgement after the kill against the last before: a submit
# the old leader answered in the instant before it died counts as after
# the kill, and the gap would read a few hundred milliseconds.
my @ack_times = sort { $a <=> $b } map { $_->[0] } @submit_acks;
my $submit_gap;
for my $i (1 .. $#ack_times)
{
	next unless $ack_times[$i] > $killed_at;
	my $gap = $ack_times[$i] - $ack_times[ $i - 1 ];
	$submit_gap = $gap if !defined $submit_gap || $gap > $submit_gap;
}
my $r3 = sub { defined $_[0] ? 0 + sprintf('%.3f', $_[0]) : undef };
my %figures = (
	members => $MEMBERS,
	synchronous_mode => JSON::PP::true,
	synchronous_mode_strict => JSON::PP::true,
	primary_start_timeout_s => 0,
	loop_wait_s => 1,
	ttl_s => $TTL,
	wal_retrieve_retry_interval_s => 1,
	replan_interval_s => 2,
	kill_to_new_leader_s => $r3->($leader_seen_at - $killed_at),
	kill_to_first_committed_plan_s => $r3->($first_plan_seen_at ? $first_plan_seen_at - $killed_at : undef),
	kill_to_first_plan_finished_s => $r3->($first_plan_finished_at ? $first_plan_finished_at - $killed_at : undef),
	target_first_committed_plan_s => 30,
	submit_gap_s => $r3->($submit_gap),
	old_leader_restarted_s => $r3->($restarted_at - $killed_at),
	old_leader_rejoined_s => $r3->($rejoined_at ? $rejoined_at - $killed_at : undef),
	killed => 'the leader\'s Patroni and postmaster (SIGKILL)',
	submits_acknowledged => scalar @submit_acks,
	submits_acknowledged_after_kill => scalar @after_kill,
	submit_attempts_failed => scalar @submit_failures,
	reports_acknowledged => scalar @report_acks,
	acknowledged_writes_lost => @lost_submits + @lost_starts + @lost_finishes,
	plans_committed_before_kill => 0 + $plans_before,
	monitor_rounds => 0 + $sampled,
	planner_on_standby_samples => scalar @planner_in_recovery,
	overlapping_planner_spans => scalar @two_planners,
	double_bookings => 0 + $overlaps,
	patroni => (split ' ', `/usr/bin/patroni --version 2>/dev/null` // '')[-1],
	postgresql => sql_at($new_leader, 'SHOW server_version'),
	measured_at => POSIX::strftime('%Y-%m-%dT%H:%M:%SZ', gmtime),
);
diag(sprintf("%-34s %s", $_, $figures{$_} // 'n/a')) for sort keys %figures;
if ($ENV{GPUALLOC_HA_JSON})
{
	open(my $fh, '>', $ENV{GPUALLOC_HA_JSON}) or die "$ENV{GPUALLOC_HA_JSON}: $!";
	print $fh JSON::PP->new->canonical->pretty->encode(\%figures);
	close $fh;
}

done_testing();
