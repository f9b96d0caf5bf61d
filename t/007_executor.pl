# The reference executor, tools/gpualloc-executor (built by `make tools`),
# when things are not as they should be: a role without gpualloc rights, a
# database without the extension, and a login the server turns away (a
# wrong password, a role or a database that does not exist) and an SSL
# set-up that cannot work (sslmode=require, no SSL on the server) end it
# with status 1 and a hint, at once, with no retry loop; no server on the port,
# a standby (a lost connection, again and again) and a standby that takes
# no connections are retried with a delay that doubles; a job that exits
# while the server is down is reported once it is back, and not taken for an
# orphan; a node in no pool is warned about, and the executor keeps running
# until it is added.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(sleep time);

my $root = $ENV{TESTDIR} || '.';
my $executor = "$root/tools/gpualloc-executor";
system('make', '-s', '-C', $root, 'tools/gpualloc-executor') == 0
  or BAIL_OUT('cannot build tools/gpualloc-executor');

my $node = PostgreSQL::Test::Cluster->new('executor');
$node->init(allows_streaming => 1);
# the background planner stays idle: the test books jobs explicitly
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
gpualloc.enabled = off
});
# pwexec gives a password on the Unix socket: its line goes ahead of the
# node's "local all all trust"
my $hba = $node->data_dir . '/pg_hba.conf';
my $hba_rules = slurp_file($hba);
open my $hba_fh, '>', $hba or die "cannot write $hba: $!";
print $hba_fh "local all pwexec scram-sha-256\n", $hba_rules;
close $hba_fh;
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant(current_user);
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	CREATE ROLE exec0 LOGIN IN ROLE gpualloc_executor;
	CREATE ROLE noprivs LOGIN;
	CREATE DATABASE noext;
	SET password_encryption = 'scram-sha-256';
	CREATE ROLE pwexec LOGIN PASSWORD 'right' IN ROLE gpualloc_executor;
});

my $dir = $PostgreSQL::Test::Utils::tmp_check;
my $runs = 0;

# Starts an executor against $server; its stderr goes to a log file.
sub start_executor
{
	my ($server, @args) = @_;
	my $log = "$dir/executor-" . ++$runs . ".log";
	my $timeout = IPC::Run::timeout(120);
	my $h = IPC::Run::start(
		[ $executor, '-h', $server->host, '-p', $server->port, '--poll-seconds', '1',
			'--grace-seconds', '2', @args ],
		'<', \undef, '>', "$dir/executor-$runs.out", '2>', $log, $timeout);
	return { handle => $h, timeout => $timeout, log => $log };
}

sub slurp_log
{
	my ($file) = @_;
	open my $fh, '<', $file or return '';
	local $/;
	return <$fh>;
}

# Waits until the executor's log matches $re; false after $seconds.
sub wait_for_log
{
	my ($e, $re, $seconds) = @_;
	my $until = time + ($seconds // 30);
	while (time < $until)
	{
		return 1 if slurp_log($e->{log}) =~ $re;
		sleep 0.1;
	}
	return 0;
}

# Waits up to $seconds for the executor to exit; its exit status ('signal N'
# when a signal ended it), or undef if it was still running (it is then killed).
sub wait_exit
{
	my ($e, $seconds) = @_;
	$e->{timeout}->start($seconds);
	my $done = eval { $e->{handle}->finish; 1 };
	if (!$done)
	{
		$e->{handle}->kill_kill;
		return undef;
	}
	my $st = $e->{handle}->full_result(0);
	return ($st & 127) ? 'signal ' . ($st & 127) : $st >> 8;
}

sub stop_executor
{
	my ($e) = @_;
	$e->{handle}->signal('TERM');
	return wait_exit($e, 20);
}

# ---- a role without gpualloc rights: exit 1 at once, with a hint ----
{
	my $e = start_executor($node, '-U', 'noprivs', '-d', 'postgres', '--node', '0');
	my $status = wait_exit($e, 10);
	my $log = slurp_log($e->{log});
	is($status, 1, 'a role without gpualloc rights: the executor exits with status 1')
	  or diag($log);
	like($log, qr/permission denied for schema gpualloc \(SQLSTATE 42501\)/,
		'it logs the server\'s message and its SQLSTATE');
	like($log, qr/grant the role gpualloc_executor \(GRANT gpualloc_executor TO "noprivs"\)/,
		'and says what to do');
	unlike($log, qr/reconnecting|retrying/, 'and does not retry');
}

# ---- a database without the extension: exit 1, install it ----
{
	my $e = start_executor($node, '-U', 'exec0', '-d', 'noext', '--node', '0');
	my $status = wait_exit($e, 10);
	my $log = slurp_log($e->{log});
	is($status, 1, 'a database without gpualloc: the executor exits with status 1')
	  or diag($log);
	like($log, qr/\(SQLSTATE 3F000\); install gpualloc in this database/,
		'it says the extension is missing');
}

# ---- a login turned away: exit 1 at once, with the reason ----
# libpq reports these while connecting, where there is no result to read a
# SQLSTATE from; before, they were retried for ever like a server that is down.
{
	local $ENV{PGPASSWORD} = 'wrong';
	my $e = start_executor($node, '-U', 'pwexec', '-d', 'postgres', '--node', '0');
	my $status = wait_exit($e, 10);
	my $log = slurp_log($e->{log});
	is($status, 1, 'a wrong password: the executor exits with status 1')
	  or diag($log);
	like($log, qr/password authentication failed for user "pwexec" \(SQLSTATE 28P01\); check the password/,
		'it names the authentication failure and says what to do');
	unlike($log, qr/reconnecting|retrying/, 'and does not retry');
}
{
	local $ENV{PGPASSWORD} = 'right';
	my $e = start_executor($node, '-U', 'pwexec', '-d', 'postgres', '--node', '0');
	ok(wait_for_log($e, qr/connected to .* as pwexec/), 'with the right password it connects')
	  or diag(slurp_log($e->{log}));
	is(stop_executor($e), 0, 'and exits with status 0 on SIGTERM');
}
{
	my $e = start_executor($node, '-U', 'ghost', '-d', 'postgres', '--node', '0');
	my $status = wait_exit($e, 10);
	my $log = slurp_log($e->{log});
	is($status, 1, 'a role that does not exist: the executor exits with status 1')
	  or diag($log);
	like($log, qr/role "ghost" does not exist \(SQLSTATE 28000\); check the user \(-U\)/,
		'it says the role does not exist');
}
{
	my $e = start_executor($node, '-U', 'exec0', '-d', 'nosuchdb', '--node', '0');
	my $status = wait_exit($e, 10);
	my $log = slurp_log($e->{log});
	is($status, 1, 'a database that does not exist: the executor exits with status 1')
	  or diag($log);
	like($log, qr/database "nosuchdb" does not exist \(SQLSTATE 3D000\); name the database that has gpualloc \(-d\)/,
		'it says the database does not exist');
}
{
	$node->safe_psql('postgres', 'CREATE DATABASE noconnect; REVOKE CONNECT ON DATABASE noconnect FROM PUBLIC;');
	my $e = start_executor($node, '-U', 'exec0', '-d', 'noconnect', '--node', '0');
	my $status = wait_exit($e, 10);
	my $log = slurp_log($e->{log});
	is($status, 1, 'a database the role may not connect to: the executor exits with status 1')
	  or diag($log);
	like($log, qr/permission denied for database "noconnect" \(SQLSTATE 42501\); grant the role the right to connect \(GRANT CONNECT ON DATABASE "noconnect" TO "exec0"\)/,
		'it says the role lacks CONNECT and how to grant it');
}
# ---- an SSL set-up that cannot work: sslmode=require against a server
# without SSL (over TCP: libpq uses no SSL on a Unix socket) ----
{
	$node->append_conf('postgresql.conf', "listen_addresses = '127.0.0.1'");
	$node->restart;
	my $e = start_executor($node, '-U', 'exec0', '-h', '127.0.0.1', '-d', 'dbname=postgres sslmode=require',
		'--node', '0');
	my $status = wait_exit($e, 10);
	my $log = slurp_log($e->{log});
	is($status, 1, 'sslmode=require against a server without SSL: the executor exits with status 1')
	  or diag($log);
	like($log, qr/server does not support SSL, but SSL was required; the SSL settings of the connection .* do not fit together/,
		'it quotes libpq and names the settings to check');
	unlike($log, qr/retrying/, 'and does not retry');
	my $p = start_executor($node, '-U', 'exec0', '-h', '127.0.0.1', '-d', 'dbname=postgres sslmode=prefer',
		'--node', '0');
	ok(wait_for_log($p, qr/connected to 127\.0\.0\.1 .* as exec0/), 'with sslmode=prefer it connects')
	  or diag(slurp_log($p->{log}));
	is(stop_executor($p), 0, 'and stops on SIGTERM');
}
# ---- a malformed connection string: bad usage, before any connection ----
{
	my $e = start_executor($node, '-U', 'exec0', '-d', 'dbname=postgres bogus=1', '--node', '0');
	my $status = wait_exit($e, 10);
	my $log = slurp_log($e->{log});
	is($status, 2, 'a connection string with an unknown keyword: the executor exits with status 2')
	  or diag($log);
	like($log, qr/--dbname: invalid connection option "bogus"/, 'it names the keyword');
	my $u = start_executor($node, '-U', 'exec0', '-d', 'postgresql://[::1', '--node', '0');
	is(wait_exit($u, 10), 2, 'a malformed URI: status 2');
}

# ---- no server on the port: retried, as a server that is down ----
{
	my $down = PostgreSQL::Test::Cluster->new('down');	# a free port, never started
	my $e = start_executor($down, '-U', 'exec0', '-d', 'postgres', '--node', '0');
	ok(wait_for_log($e, qr/could not connect: .*; retrying in 2\.00 s/, 10),
		'no server on the port: the executor retries with a doubling delay')
	  or diag(slurp_log($e->{log}));
	sleep 1;
	unlike(slurp_log($e->{log}), qr/exiting with status/, 'and does not give up');
	is(stop_executor($e), 0, 'still running after seconds, it exits with status 0 on SIGTERM');
}

# ---- a standby: every connection is lost at LISTEN, the delay doubles ----
{
	$node->backup('base');
	my $standby = PostgreSQL::Test::Cluster->new('standby');
	$standby->init_from_backup($node, 'base', has_streaming => 1);
	$standby->start;
	my $e = start_executor($standby, '-U', 'exec0', '-d', 'postgres', '--node', '0');
	ok(wait_for_log($e, qr/reconnecting in 1\.00 s/, 10),
		'on a standby the reconnection delay doubles (0.25, 0.5, 1 s)')
	  or diag(slurp_log($e->{log}));
	ok(wait_for_log($e, qr/reconnecting in 2\.00 s/, 10), 'and keeps doubling');
	my $log = slurp_log($e->{log});
	like($log, qr/cannot execute LISTEN during recovery/, 'the loss is the standby refusing LISTEN');
	my $tries = () = $log =~ /reconnecting in/g;
	ok($tries <= 5, "a few attempts, not one every 0.25 s ($tries)");
	is(stop_executor($e), 0, 'the executor waiting for a primary stops on SIGTERM');

	# the server's answer is not about the executor's set-up: keep trying
	$standby->append_conf('postgresql.conf', 'hot_standby = off');
	$standby->restart;
	$e = start_executor($standby, '-U', 'exec0', '-d', 'postgres', '--node', '0');
	ok(wait_for_log($e, qr/could not connect: .*FATAL:  57P03: .*; retrying in 1\.00 s/, 10),
		'a standby taking no connections (57P03) is retried')
	  or diag(slurp_log($e->{log}));
	is(stop_executor($e), 0, 'and the executor stops on SIGTERM');
	$standby->stop;
}

# ---- a job that exits while the server is down ----
{
	my $e = start_executor($node, '-U', 'exec0', '-d', 'postgres', '--node', '0');
	ok(wait_for_log($e, qr/connected to .* as exec0/), 'the executor connects as exec0');
	my $job = $node->safe_psql('postgres', q{
		SELECT gpualloc.submit_job('nap', 'training', 'a100', 1, work_gpu_hours => 0.01,
								   command => 'sleep 3')});
	$node->safe_psql('postgres', "SELECT gpualloc.replan('fast')");
	ok(wait_for_log($e, qr/started job $job pid/), 'the executor starts the job')
	  or diag(slurp_log($e->{log}));
	$node->stop('fast');
	ok(wait_for_log($e, qr/job $job exited \(pid \d+\): exit 0/, 20),
		'the job exits while the server is down');
	$node->start;
	ok($node->poll_query_until('postgres',
		"SELECT status = 'succeeded' FROM gpualloc.jobs WHERE job_id = $job"),
		'once the server is back the job is reported succeeded');
	# two more passes of --poll-seconds 1: time for a false orphan to show
	ok(wait_for_log($e, qr/finished job $job: exit 0 \(succeeded\)/), 'the executor logs the report');
	sleep 2.5;
	my $log = slurp_log($e->{log});
	unlike($log, qr/job $job has no process here|failed job $job/,
		'a job just reported is not taken for an orphan');
	is($node->safe_psql('postgres', "SELECT status FROM gpualloc.jobs WHERE job_id = $job"),
		'succeeded', 'and stays succeeded');
	is(stop_executor($e), 0, 'the executor exits with status 0 on SIGTERM');
}

# ---- a node in no pool: warned about, and picked up once added ----
{
	my $e = start_executor($node, '-U', 'exec0', '-d', 'postgres', '--node', '5');
	ok(wait_for_log($e, qr/warning: node 5 is in no pool of this cluster: nothing will run here until it is added \(gpualloc\.add_node\)/),
		'a node in no pool: the executor warns')
	  or diag(slurp_log($e->{log}));
	sleep 1.5;
	my $log = slurp_log($e->{log});
	my $warnings = () = $log =~ /node 5 is in no pool/g;
	is($warnings, 1, 'once, not at every poll');
	$node->safe_psql('postgres', "SELECT gpualloc.add_node('a100', 5)");
	ok(wait_for_log($e, qr/node 5 now has 8 GPUs/), 'and notices when the node is added');
	is(stop_executor($e), 0, 'it kept running, and exits with status 0 on SIGTERM');

	$e = start_executor($node, '-U', 'exec0', '-d', 'postgres', '--node', '0', '--pool', 'h100');
	ok(wait_for_log($e, qr/warning: node 0 is not in pool h100: nothing will run here until it is added/),
		'--pool naming a pool the node is not in: the executor warns')
	  or diag(slurp_log($e->{log}));
	is(stop_executor($e), 0, 'and exits with status 0 on SIGTERM');
}

$node->stop;
done_testing();
