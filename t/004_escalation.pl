# Privilege escalation, replayed: none of these makes the attacker superuser.
#
#   a. An admin (a non-superuser member of gpualloc_admin) hands load_demand
#      sources that run its own code: a view over a function in pg_temp or in
#      its schema, a table turned into a view by a rule, a materialized view,
#      a table whose traffic column casts through its function, a table whose
#      row-level security policy calls it.  Views are refused before they are
#      read; what is read runs with the admin's own rights, so its ALTER ROLE
#      fails for want of them.
#   b. A writable public schema (as on clusters upgraded from PostgreSQL 14 or
#      older): a submitter overloads built-ins the extension uses (upper_inf,
#      lower, isempty, unnest, array_agg, count, ||, &&, = on the extension's
#      row types, ...) in public, each one escalating when a superuser runs
#      it.  The background planner plans, and a superuser (with the default
#      search_path and with public first), an admin, an executor, a reader and
#      submitters use every entry point.  None of the functions ever runs.
#   c. Tenants: no shared role becomes a tenant, a submitter cannot submit
#      for one, and another tenant's job can be neither seen nor cancelled.
#
# Two more, at the end, in a transaction that is rolled back or a database
# of their own: a superuser's load_demand of an admin's table must not run
# the admin's cast, and objects planted in a writable public before CREATE
# EXTENSION must not bind into its constraints, indexes and views.
#
# Every escalation function logs each call to a table the attacker owns
# (INSERT granted to PUBLIC) and bumps a sequence, which a rollback does not
# undo, so a call that failed is counted too.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('escalation');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
gpualloc.replan_interval = '2s'
gpualloc.replan_debounce = '1s'
gpualloc.solver_time_limit = '300ms'
gpualloc.booking_timeout = '10s'
});
$node->start;

sub sql { return $node->safe_psql('postgres', shift); }

# run SQL as a role; errors do not stop the test: (exit code, stdout, stderr)
sub as_role {
	my ($role, $query) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$query",
		extra_params => [ '-U', $role ]);
	return ($ret, $out, $err);
}

sub attacker_not_superuser {
	my $when = shift;
	is(sql(q{SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = 'attacker'}), 'f',
		"$when: the attacker is still not superuser");
}

# calls of the escalation functions so far, failed ones included
sub calls {
	return sql(q{SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM attacker.calls});
}

sql(q{
	CREATE EXTENSION gpualloc CASCADE;
	CREATE ROLE attacker LOGIN IN ROLE gpualloc_admin;
	CREATE SCHEMA attacker AUTHORIZATION attacker;
	CREATE ROLE boss LOGIN IN ROLE gpualloc_admin;
	CREATE ROLE team_a NOLOGIN;
	CREATE ROLE team_b NOLOGIN;
	CREATE ROLE alice LOGIN IN ROLE gpualloc_submitter, team_a;
	CREATE ROLE bob LOGIN IN ROLE gpualloc_submitter, team_b;
	CREATE ROLE exec1 LOGIN IN ROLE gpualloc_executor;
	CREATE ROLE reader1 LOGIN IN ROLE gpualloc_reader;
	SELECT gpualloc.add_tenant('postgres'), gpualloc.add_tenant('team_a'), gpualloc.add_tenant('team_b'),
		   gpualloc.add_tenant('attacker');
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0), gpualloc.add_node('a100', 1);
	SELECT gpualloc.add_service('chat', 'a100', 100, 4, churn_limit => 2);
	INSERT INTO gpualloc.demand_staging
	SELECT 'chat', h, 150 FROM generate_series(date_trunc('hour', now()) - interval '7 days',
											   date_trunc('hour', now()) - interval '2 hours', interval '1 hour') h;
	SELECT gpualloc.load_demand();
});
attacker_not_superuser('at the start');

# The attacker's instruments: a log any role may append to, a call counter,
# and the escalation itself.
my ($ret, $out, $err) = as_role('attacker', q{
	CREATE TABLE attacker.log (fn text, by_user name DEFAULT current_user, session name DEFAULT session_user);
	CREATE SEQUENCE attacker.calls;
	GRANT USAGE ON SCHEMA attacker TO PUBLIC;
	GRANT INSERT ON attacker.log TO PUBLIC;
	GRANT USAGE ON SEQUENCE attacker.calls TO PUBLIC;
	CREATE FUNCTION attacker.escalate(fn text) RETURNS void LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM pg_catalog.nextval('attacker.calls');
		INSERT INTO attacker.log (fn) VALUES (fn);
		RAISE WARNING 'attacker code % runs as %', fn, current_user;
		ALTER ROLE attacker SUPERUSER;
	END $$;
	CREATE FUNCTION attacker.evil() RETURNS double precision LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM attacker.escalate('attacker.evil');
		RETURN 1;
	END $$;
});
is($ret, 0, 'the attacker sets up its log, counter and escalation function') or diag($err);

# --- a. an admin's load_demand sources ------------------------------------

my $hour = sql(q{SELECT date_trunc('hour', now()) - interval '1 hour'});

($ret, $out, $err) = as_role('attacker', qq{
	CREATE FUNCTION pg_temp.evil() RETURNS double precision LANGUAGE plpgsql AS \$\$
	BEGIN
		PERFORM attacker.escalate('pg_temp.evil');
		RETURN 1;
	END \$\$;
	CREATE TEMP VIEW demand_v AS SELECT 'chat'::text AS service, '$hour'::timestamptz AS hour, pg_temp.evil() AS traffic;
	SELECT gpualloc.load_demand('pg_temp.demand_v');
});
like($err, qr/source demand_v is not a table/, 'a. a temporary view over a pg_temp function is refused');
is(calls(), '0', 'a. and its function never ran');

($ret, $out, $err) = as_role('attacker', qq{
	CREATE VIEW attacker.demand_view AS
	SELECT 'chat'::text AS service, '$hour'::timestamptz AS hour, attacker.evil() AS traffic;
	SELECT gpualloc.load_demand('attacker.demand_view');
});
like($err, qr/source attacker\.demand_view is not a table/, 'a. a view over a function of its own schema is refused');

($ret, $out, $err) = as_role('attacker', qq{
	CREATE TABLE attacker.sneaky (service text, hour timestamptz, traffic double precision);
	CREATE RULE "_RETURN" AS ON SELECT TO attacker.sneaky DO INSTEAD
	SELECT 'chat'::text AS service, '$hour'::timestamptz AS hour, attacker.evil() AS traffic;
	SELECT gpualloc.load_demand('attacker.sneaky');
});
like($err, qr/source attacker\.sneaky is not a table/, 'a. a table turned into a view by an ON SELECT rule is refused');

($ret, $out, $err) = as_role('attacker', qq{
	CREATE MATERIALIZED VIEW attacker.demand_mv AS
	SELECT 'chat'::text AS service, '$hour'::timestamptz AS hour, attacker.evil() AS traffic WITH NO DATA;
	SELECT gpualloc.load_demand('attacker.demand_mv');
});
like($err, qr/source attacker\.demand_mv is not a table/, 'a. a materialized view is refused');
is(calls(), '0', 'a. no view was ever read: the attacker\'s function never ran');

# a table whose traffic column is a type of the attacker's, cast to a number
# by the attacker's function
($ret, $out, $err) = as_role('attacker', qq{
	CREATE TYPE attacker.amount AS (v double precision);
	CREATE FUNCTION attacker.amount_to_float(attacker.amount) RETURNS double precision LANGUAGE plpgsql AS \$\$
	BEGIN
		PERFORM attacker.escalate('cast amount as double precision');
		RETURN (\$1).v;
	END \$\$;
	CREATE CAST (attacker.amount AS double precision) WITH FUNCTION attacker.amount_to_float(attacker.amount);
	CREATE TABLE attacker.demand_cast (service text, hour timestamptz, traffic attacker.amount);
	INSERT INTO attacker.demand_cast VALUES ('chat', '$hour', ROW(5));
	SELECT gpualloc.load_demand('attacker.demand_cast');
});
like($err, qr/ERROR:  42804: source attacker.demand_cast has columns of types load_demand does not read: traffic attacker.amount/,
	'a. a column of the caller\'s own type (and so its cast) is refused before anything is read');
unlike($err, qr/attacker code cast amount/, 'a. so the malicious cast never runs');
attacker_not_superuser('a. malicious cast');

# a table with forced row-level security whose policy calls the attacker's function
($ret, $out, $err) = as_role('attacker', qq{
	CREATE FUNCTION attacker.policy_check() RETURNS boolean LANGUAGE plpgsql AS \$\$
	BEGIN
		PERFORM attacker.escalate('row-level security policy');
		RETURN true;
	END \$\$;
	CREATE TABLE attacker.demand_rls (service text, hour timestamptz, traffic double precision);
	INSERT INTO attacker.demand_rls VALUES ('chat', '$hour', 5);
	ALTER TABLE attacker.demand_rls ENABLE ROW LEVEL SECURITY;
	ALTER TABLE attacker.demand_rls FORCE ROW LEVEL SECURITY;
	CREATE POLICY everything ON attacker.demand_rls USING (attacker.policy_check());
	SELECT gpualloc.load_demand('attacker.demand_rls');
});
like($err, qr/attacker code row-level security policy runs as attacker/,
	'a. a row-level security policy of a loaded table runs with the caller\'s rights');
like($err, qr/ERROR:  42501: must be superuser to alter superuser roles/,
	'a. so its ALTER ROLE fails for want of privilege');
attacker_not_superuser('a. row-level security policy');

# a partitioned table whose partition casts through the attacker's function
($ret, $out, $err) = as_role('attacker', qq{
	CREATE TABLE attacker.demand_parts (service text, hour timestamptz, traffic attacker.amount) PARTITION BY LIST (service);
	CREATE TABLE attacker.demand_chat PARTITION OF attacker.demand_parts FOR VALUES IN ('chat');
	INSERT INTO attacker.demand_parts VALUES ('chat', '$hour', ROW(5));
	SELECT gpualloc.load_demand('attacker.demand_parts');
});
like($err, qr/ERROR:  42804: source attacker.demand_parts has columns of types load_demand does not read/,
	'a. a partitioned table with such a column is refused too');
unlike($err, qr/attacker code cast amount/, 'a. and its cast never runs');
attacker_not_superuser('a. partitioned table');

# what the admin stages in gpualloc.demand_staging is data, whoever loads it
($ret, $out, $err) = as_role('attacker', qq{
	INSERT INTO gpualloc.demand_staging VALUES ('chat', '$hour', 175);
});
is($ret, 0, 'a. an admin may stage demand rows') or diag($err);
is(sql('SELECT gpualloc.load_demand()'), '1', 'a. a superuser loads the staged rows');
is(sql(q{SELECT count(*) FROM attacker.log}), '0', 'a. no attacker function ever ran with more rights than the attacker\'s');
attacker_not_superuser('after a');
my $calls_after_a = calls();

# --- b. a writable public schema -------------------------------------------

sql(q{
	REVOKE gpualloc_admin FROM attacker;
	GRANT gpualloc_submitter TO attacker;
	GRANT CREATE ON SCHEMA public TO PUBLIC;
});
($ret, $out, $err) = as_role('attacker', q{
	-- more specific than pg_catalog's polymorphic built-ins: ordinary name
	-- resolution prefers them wherever public is on the search path
	CREATE FUNCTION public.upper_inf(tstzrange) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.upper_inf(tstzrange)'); RETURN pg_catalog.upper_inf($1); END $$;
	CREATE FUNCTION public.lower_inf(tstzrange) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.lower_inf(tstzrange)'); RETURN pg_catalog.lower_inf($1); END $$;
	CREATE FUNCTION public.lower(tstzrange) RETURNS timestamptz LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.lower(tstzrange)'); RETURN pg_catalog.lower($1); END $$;
	CREATE FUNCTION public.upper(tstzrange) RETURNS timestamptz LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.upper(tstzrange)'); RETURN pg_catalog.upper($1); END $$;
	CREATE FUNCTION public.isempty(tstzrange) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.isempty(tstzrange)'); RETURN pg_catalog.isempty($1); END $$;
	CREATE FUNCTION public.unnest(integer[]) RETURNS SETOF integer LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.unnest(integer[])'); RETURN QUERY SELECT pg_catalog.unnest($1); END $$;
	CREATE FUNCTION public.unnest(bigint[]) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.unnest(bigint[])'); RETURN QUERY SELECT pg_catalog.unnest($1); END $$;
	CREATE FUNCTION public.cardinality(integer[]) RETURNS integer LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.cardinality(integer[])'); RETURN pg_catalog.cardinality($1); END $$;
	CREATE FUNCTION public.format(text, text) RETURNS text LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.format(text, text)'); RETURN pg_catalog.format($1, $2); END $$;
	CREATE FUNCTION public.tstzrange(timestamptz, timestamptz) RETURNS tstzrange LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.tstzrange(timestamptz, timestamptz)'); RETURN pg_catalog.tstzrange($1, $2); END $$;

	-- aggregates
	CREATE FUNCTION attacker.count_step(bigint, integer) RETURNS bigint LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.count(integer)'); RETURN $1 + 1; END $$;
	CREATE AGGREGATE public.count(integer) (sfunc = attacker.count_step, stype = bigint, initcond = '0');
	CREATE FUNCTION attacker.count_step(bigint, bigint) RETURNS bigint LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.count(bigint)'); RETURN $1 + 1; END $$;
	CREATE AGGREGATE public.count(bigint) (sfunc = attacker.count_step, stype = bigint, initcond = '0');
	CREATE FUNCTION attacker.count_star(bigint) RETURNS bigint LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.count(*)'); RETURN $1 + 1; END $$;
	CREATE AGGREGATE public.count(*) (sfunc = attacker.count_star, stype = bigint, initcond = '0');
	CREATE FUNCTION attacker.agg_int(integer[], integer) RETURNS integer[] LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.array_agg(integer)'); RETURN $1 || $2; END $$;
	CREATE AGGREGATE public.array_agg(integer) (sfunc = attacker.agg_int, stype = integer[]);
	CREATE FUNCTION attacker.agg_big(bigint[], bigint) RETURNS bigint[] LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.array_agg(bigint)'); RETURN $1 || $2; END $$;
	CREATE AGGREGATE public.array_agg(bigint) (sfunc = attacker.agg_big, stype = bigint[]);

	-- operators on the types the extension works with, and on its row types
	CREATE FUNCTION attacker.overlaps(tstzrange, tstzrange) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.&&(tstzrange, tstzrange)'); RETURN pg_catalog.range_overlaps($1, $2); END $$;
	CREATE OPERATOR public.&& (leftarg = tstzrange, rightarg = tstzrange, function = attacker.overlaps);
	CREATE FUNCTION attacker.intersect(tstzrange, tstzrange) RETURNS tstzrange LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.*(tstzrange, tstzrange)'); RETURN pg_catalog.range_intersect($1, $2); END $$;
	CREATE OPERATOR public.* (leftarg = tstzrange, rightarg = tstzrange, function = attacker.intersect);
	CREATE FUNCTION attacker.range_eq(tstzrange, tstzrange) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.=(tstzrange, tstzrange)'); RETURN pg_catalog.range_eq($1, $2); END $$;
	CREATE OPERATOR public.= (leftarg = tstzrange, rightarg = tstzrange, function = attacker.range_eq);
	CREATE FUNCTION attacker.cat(text, bigint) RETURNS text LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.||(text, bigint)'); RETURN pg_catalog.textcat($1, $2::text); END $$;
	CREATE OPERATOR public.|| (leftarg = text, rightarg = bigint, function = attacker.cat);
	CREATE FUNCTION attacker.cat(text, integer) RETURNS text LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.||(text, integer)'); RETURN pg_catalog.textcat($1, $2::text); END $$;
	CREATE OPERATOR public.|| (leftarg = text, rightarg = integer, function = attacker.cat);
	CREATE FUNCTION attacker.int_arr_eq(integer[], integer[]) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.=(integer[], integer[])'); RETURN pg_catalog.array_eq($1, $2); END $$;
	CREATE OPERATOR public.= (leftarg = integer[], rightarg = integer[], function = attacker.int_arr_eq);
	CREATE FUNCTION attacker.jobs_eq(gpualloc.jobs, gpualloc.jobs) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.=(gpualloc.jobs, gpualloc.jobs)'); RETURN pg_catalog.record_eq($1, $2); END $$;
	CREATE OPERATOR public.= (leftarg = gpualloc.jobs, rightarg = gpualloc.jobs, function = attacker.jobs_eq);
	CREATE FUNCTION attacker.pools_eq(gpualloc.pools, gpualloc.pools) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.=(gpualloc.pools, gpualloc.pools)'); RETURN pg_catalog.record_eq($1, $2); END $$;
	CREATE OPERATOR public.= (leftarg = gpualloc.pools, rightarg = gpualloc.pools, function = attacker.pools_eq);

	-- exact copies of built-ins: they win only where public precedes pg_catalog
	CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
	BEGIN PERFORM attacker.escalate('public.now()'); RETURN pg_catalog.now(); END $$;
	CREATE FUNCTION public.clock_timestamp() RETURNS timestamptz LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.clock_timestamp()'); RETURN pg_catalog.clock_timestamp(); END $$;
	CREATE FUNCTION public.current_setting(text, boolean) RETURNS text LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.current_setting(text, boolean)'); RETURN pg_catalog.current_setting($1, $2); END $$;
	CREATE FUNCTION public.pg_advisory_xact_lock(bigint) RETURNS void LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.pg_advisory_xact_lock(bigint)'); PERFORM pg_catalog.pg_advisory_xact_lock($1); END $$;
	CREATE FUNCTION public.pg_notify(text, text) RETURNS void LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.pg_notify(text, text)'); PERFORM pg_catalog.pg_notify($1, $2); END $$;
	CREATE FUNCTION public.date_trunc(text, timestamptz) RETURNS timestamptz LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.date_trunc(text, timestamptz)'); RETURN pg_catalog.date_trunc($1, $2); END $$;
	CREATE FUNCTION public.pg_has_role(name, oid, text) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN PERFORM attacker.escalate('public.pg_has_role(name, oid, text)'); RETURN pg_catalog.pg_has_role($1, $2, $3); END $$;
});
is($ret, 0, 'b. a submitter overloads built-ins in a writable public schema') or diag($err);
is(sql(q{SELECT pg_catalog.count(*) FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		 WHERE n.nspname = 'public' AND p.proowner = 'attacker'::regrole}),
	'22', 'b. the attacker owns 22 functions and aggregates in public');

my $plans_before = sql(q{SELECT coalesce(pg_catalog.max(plan_id), 0) FROM gpualloc.plan_runs});

# a superuser, an honest admin, submitters, an executor and a reader use
# every entry point; the superuser also with public searched first
my $job_sql = sub {
	my $name = shift;
	return sql(qq{SELECT gpualloc.submit_job('$name', 'training', 'a100', 2, 2, work_gpu_hours => 2)});
};
my @first = map { $job_sql->("b-first-$_") } 1 .. 3;
like(sql(q{SELECT status || ' ' || solved_by FROM gpualloc.replan('fast')}), qr/^succeeded fast$/,
	'b. the superuser plans fast');
like(sql(q{SELECT status FROM gpualloc.replan('full', time_limit => '2 seconds')}), qr/^(succeeded|fallback)$/,
	'b. the superuser plans full');
sql("SELECT gpualloc.cancel_job($_)") for @first;

my @superuser_calls = (
	q{SELECT gpualloc.cancel_job(%J2%, 'not needed')},
	q{SELECT gpualloc.job_started(%J1%)},
	q{SELECT gpualloc.job_rejected(%J3%, 'image missing')},
	q{SELECT gpualloc.job_finished(%J1%, succeeded => true, message => 'done')},
	q{SELECT * FROM gpualloc.current_allocation},
	q{SELECT * FROM gpualloc.queue},
	q{SELECT * FROM gpualloc.executor_work},
	q{SELECT * FROM gpualloc.queue_plan},
	q{SELECT * FROM gpualloc.plan_history},
	q{SELECT * FROM gpualloc.utilization_hourly},
	q{SELECT * FROM gpualloc.tenant_value_hourly},
	q{SELECT * FROM gpualloc.service_coverage_hourly},
	q{SELECT * FROM gpualloc.utilization('-infinity', 'infinity')},
	q{SELECT * FROM gpualloc.tenant_value('-infinity', 'infinity')},
	q{SELECT * FROM gpualloc.service_coverage('-infinity', 'infinity')},
	q{SELECT * FROM gpualloc.check_integrity()},
	q{SELECT * FROM gpualloc.allocation_changes(0)},
	q{SELECT gpualloc.allocation_seq()},
	q{SELECT gpualloc.plan_svg(%PLAN%)},
	q{SELECT * FROM gpualloc.plan_grid(%PLAN%)},
	q{SELECT * FROM gpualloc.forecast_demand('chat', '%HOUR%', '6 hours')},
	q{SELECT * FROM gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}', 2, 'a100')},
	q{SELECT gpualloc.record_demand('chat', '%HOUR%', 160)},
	q{INSERT INTO gpualloc.demand_staging VALUES ('chat', '%HOUR%', 170)},
	q{SELECT gpualloc.load_demand()},
	q{SELECT gpualloc.set_gpu_state('a100', 1, 7, 'down')},
	q{SELECT gpualloc.set_gpu_state('a100', 1, 7, 'up')},
	q{SELECT gpualloc.drain_gpu('a100', 1, 6)},
	q{SELECT gpualloc.set_gpu_state('a100', 1, 6, 'up')},
	q{SELECT gpualloc.add_pool('spare', 'H100-SXM', 80, 989, node_size => 2)},
	q{SELECT gpualloc.add_node('spare', 0)},
	q{SELECT gpualloc.add_gpu('spare', 1, 0)},
	q{SELECT gpualloc.remove_gpu('spare', 1, 0)},
	q{SELECT gpualloc.add_service('tts', 'spare', 10, 2)},
	q{SELECT gpualloc.remove_service('tts')},
	q{SELECT gpualloc.remove_gpu('spare', 0, 0)},
	q{SELECT gpualloc.remove_gpu('spare', 0, 1)},
	q{SELECT gpualloc.remove_pool('spare')},
	q{SELECT gpualloc.add_tenant('team_c_%N%', max_priority => 3)},
	q{SELECT gpualloc.set_tenant('team_c_%N%', 4)},
	q{SELECT gpualloc.remove_tenant('team_c_%N%')},
	q{SELECT gpualloc.request_replan()},
	q{SELECT status FROM gpualloc.replan('fast')},
	q{SELECT gpualloc.cancel_job(%J3%)},
);
my $plan = sql(q{SELECT pg_catalog.max(plan_id) FROM gpualloc.plan_runs WHERE status IN ('succeeded', 'fallback')});
my $n = 0;
for my $path ('"$user", public', 'public, pg_catalog, gpualloc, pg_temp') {
	$n++;
	sql(qq{CREATE ROLE team_c_$n NOLOGIN});
	my ($jobs1, $jobs2, $jobs3) = ($job_sql->("b-started-$n"), $job_sql->("b-cancelled-$n"), $job_sql->("b-rejected-$n"));
	sql(q{SELECT status FROM gpualloc.replan('fast')});
	my $bad = 0;
	for my $call (@superuser_calls) {
		(my $q = $call) =~ s/%J1%/$jobs1/g;
		$q =~ s/%J2%/$jobs2/g;
		$q =~ s/%J3%/$jobs3/g;
		$q =~ s/%PLAN%/$plan/g;
		$q =~ s/%HOUR%/$hour/g;
		$q =~ s/%N%/$n/g;
		my ($r, $o, $e) = $node->psql('postgres', "SET search_path = $path;\n$q");
		if ($r != 0 || $e =~ /attacker code/) {
			$bad++;
			diag("search_path $path: $q: $e");
		}
	}
	is($bad, 0, "b. every call a superuser makes with search_path $path succeeds");
}

my @role_calls = (
	[ 'boss', q{SELECT status FROM gpualloc.replan('fast')} ],
	[ 'boss', q{SELECT * FROM gpualloc.check_integrity()} ],
	[ 'boss', q{SELECT gpualloc.plan_svg(%PLAN%)} ],
	[ 'boss', q{SELECT gpualloc.set_gpu_state('a100', 1, 5, 'down')} ],
	[ 'boss', q{SELECT gpualloc.set_gpu_state('a100', 1, 5, 'up')} ],
	[ 'boss', q{SELECT gpualloc.load_demand()} ],
	[ 'alice', q{SELECT gpualloc.submit_job('alice-1', 'quantization', 'a100', 1, tenant => 'team_a', work_gpu_hours => 1)} ],
	[ 'alice', q{SELECT count(*) FROM gpualloc.jobs} ],
	[ 'alice', q{SELECT * FROM gpualloc.estimate_job('quantization', '{"params_b": 8, "algorithm": "awq"}')} ],
	[ 'attacker', q{SELECT gpualloc.submit_job('bait', 'quantization', 'a100', 1, work_gpu_hours => 1)} ],
	[ 'exec1', q{SELECT * FROM gpualloc.current_allocation} ],
	[ 'exec1', q{SELECT * FROM gpualloc.executor_work} ],
	[ 'exec1', q{SELECT * FROM gpualloc.allocation_changes(0)} ],
	[ 'reader1', q{SELECT * FROM gpualloc.queue} ],
	[ 'reader1', q{SELECT * FROM gpualloc.queue_plan} ],
	[ 'reader1', q{SELECT * FROM gpualloc.utilization('-infinity', 'infinity')} ],
	[ 'reader1', q{SELECT * FROM gpualloc.service_coverage_hourly} ],
	[ 'reader1', q{SELECT gpualloc.plan_svg(%PLAN%)} ],
	[ 'reader1', q{SELECT * FROM gpualloc.planner_status} ],
	[ 'boss', q{SELECT * FROM gpualloc.queue_plan} ],
	[ 'boss', q{SELECT * FROM gpualloc.planner_status} ],
);
my ($ran, @failed) = (0);
for my $rc (@role_calls) {
	(my $q = $rc->[1]) =~ s/%PLAN%/$plan/g;
	my ($r, $o, $e) = as_role($rc->[0], $q);
	if ($e =~ /attacker code/) {
		$ran++;
		diag("$rc->[0]: $q: $e");
	}
	push @failed, "$rc->[0]: $q: $e" if $r != 0;
}
is($ran, 0, 'b. an admin, submitters, an executor and a reader use the API without running attacker code');
is(scalar(@failed), 0, 'b. and every one of those calls succeeds (readers and admins read queue_plan and planner_status)')
	or diag(join("\n", @failed));

# the executor starts, finishes and rejects what the plan books
sql(q{SELECT status FROM gpualloc.replan('fast')});
my $alice_job = sql(q{SELECT job_id FROM gpualloc.jobs WHERE name = 'alice-1'});
$node->poll_query_until('postgres', "SELECT status = 'booked' FROM gpualloc.jobs WHERE job_id = $alice_job");
($ret, $out, $err) = as_role('exec1', qq{SELECT gpualloc.job_started($alice_job);
	SELECT gpualloc.job_finished($alice_job, false, message => 'exit 1');});
is($ret, 0, 'b. the executor reports a start and a finish') or diag($err);
my $bait = sql(q{SELECT job_id FROM gpualloc.jobs WHERE name = 'bait'});
$node->poll_query_until('postgres', "SELECT status = 'booked' FROM gpualloc.jobs WHERE job_id = $bait");
($ret, $out, $err) = as_role('exec1', qq{SELECT gpualloc.job_rejected($bait, 'no image')});
is($ret, 0, 'b. the executor rejects a booking') or diag($err);

# the background planner plans a few times, and releases a booking nobody starts
ok($node->poll_query_until('postgres', qq{
	SELECT pg_catalog.count(*) >= 3 FROM gpualloc.plan_runs
	WHERE trigger = 'worker' AND plan_id > $plans_before AND status IN ('succeeded', 'fallback')}),
	'b. the background planner plans at least three times');
my $unstarted = $job_sql->('b-unstarted');
ok($node->poll_query_until('postgres',
	"SELECT pg_catalog.count(*) > 0 FROM gpualloc.allocation_commits WHERE reason = 'booking_timeout'"),
	'b. the planner releases a booking nobody started');
is(sql(qq{SELECT pg_catalog.count(*) FROM gpualloc.plan_runs WHERE plan_id > $plans_before AND status = 'failed'}), '0',
	'b. no plan failed');
is(sql(q{SELECT pg_catalog.count(*) FROM gpualloc.check_integrity() WHERE problem <> 'booking past its timeout'}), '0',
	'b. integrity holds');

is(sql(q{SELECT pg_catalog.count(*) FROM attacker.log}), '0', 'b. the attacker\'s log is empty');
is(calls(), $calls_after_a, 'b. not one of the attacker\'s functions was ever called, even to fail');
attacker_not_superuser('after b');

# the traps were live: an unqualified call by the attacker itself resolves
# to them (and fails for want of rights)
($ret, $out, $err) = as_role('attacker', q{SELECT upper_inf(tstzrange(pg_catalog.now(), NULL))});
like($err, qr/attacker code public\.upper_inf\(tstzrange\) runs as attacker/,
	'b. (control) ordinary name resolution picks public.upper_inf(tstzrange)');
($ret, $out, $err) = as_role('attacker', q{SELECT tstzrange(pg_catalog.now(), NULL) && tstzrange(pg_catalog.now(), NULL)});
like($err, qr/attacker code public\.&&\(tstzrange, tstzrange\) runs as attacker/,
	'b. (control) and public.&& for tstzrange');
attacker_not_superuser('after the controls');

# --- c. tenants ---------------------------------------------------------------

sql(q{GRANT gpualloc_admin TO attacker});
($ret, $out, $err) = as_role('attacker', q{SELECT gpualloc.add_tenant('gpualloc_submitter')});
like($err, qr/role "gpualloc_submitter" cannot be a tenant/, 'c. an admin cannot make the shared submitter role a tenant');
for my $shared ('gpualloc_admin', 'gpualloc_executor', 'gpualloc_reader', 'pg_read_all_data') {
	($ret, $out, $err) = as_role('attacker', qq{SELECT gpualloc.add_tenant('$shared')});
	like($err, qr/role "$shared" cannot be a tenant/, "c. nor $shared");
}
is(sql(q{SELECT pg_catalog.count(*) FROM gpualloc.tenants WHERE tenant LIKE 'gpualloc\_%' OR tenant LIKE 'pg\_%'}), '0',
	'c. no shared role is a tenant');
sql(q{REVOKE gpualloc_admin FROM attacker});

($ret, $out, $err) = as_role('attacker',
	q{SELECT gpualloc.submit_job('shared', 'training', 'a100', 1, tenant => 'gpualloc_submitter', work_gpu_hours => 1)});
like($err, qr/tenant "gpualloc_submitter" is not registered/, 'c. a submitter cannot submit for the shared submitter role');
($ret, $out, $err) = as_role('attacker',
	q{SELECT gpualloc.submit_job('theirs', 'training', 'a100', 1, tenant => 'team_a', work_gpu_hours => 1)});
like($err, qr/permission denied to submit jobs for tenant "team_a"/, 'c. nor for a tenant it is not a member of');

my $a_job = as_role_value('alice',
	q{SELECT gpualloc.submit_job('a-private', 'training', 'a100', 1, tenant => 'team_a', work_gpu_hours => 1,
		not_before => pg_catalog.now() + interval '1 hour')});
like($a_job, qr/^\d+$/, 'c. alice submits a job for team_a');
($ret, $out, $err) = as_role('bob', qq{SELECT count(*) FROM gpualloc.jobs WHERE job_id = $a_job});
is($out, '0', 'c. bob of team_b does not see it');
($ret, $out, $err) = as_role('bob', qq{SELECT count(*) FROM gpualloc.jobs WHERE tenant = 'team_a'});
is($out, '0', 'c. nor any job of team_a');
($ret, $out, $err) = as_role('bob', qq{SELECT gpualloc.cancel_job($a_job, 'mine now')});
like($err, qr/job $a_job does not exist/, 'c. bob cannot cancel it: to him it does not exist');
($ret, $out, $err) = as_role('attacker', qq{SELECT gpualloc.cancel_job($a_job)});
like($err, qr/job $a_job does not exist/, 'c. nor can the attacker');
($ret, $out, $err) = as_role('bob', qq{SELECT * FROM gpualloc.queue});
like($err, qr/permission denied for view queue/, 'c. bob cannot read the queue view either');
is(sql(qq{SELECT status FROM gpualloc.jobs WHERE job_id = $a_job}), 'queued', 'c. alice\'s job is untouched');
($ret, $out, $err) = as_role('alice', qq{SELECT count(*) FROM gpualloc.jobs WHERE job_id = $a_job});
is($out, '1', 'c. alice sees her tenant\'s job');
attacker_not_superuser('after c');

is(sql(q{SELECT pg_catalog.count(*) FROM attacker.log}), '0', 'at the end the attacker\'s log is still empty');

# --- two escalations found by this test and since closed ----------------------
# Each runs in a transaction that is rolled back, or in a database and for a
# role of its own, so it cannot spoil the assertions above.
{

	# a superuser loading a table an admin prepared runs the admin's cast
	my ($r, $o, $e) = $node->psql('postgres', q{
		BEGIN;
		SELECT gpualloc.load_demand('attacker.demand_cast');
		SELECT 'attacker superuser: ' || rolsuper FROM pg_catalog.pg_roles WHERE rolname = 'attacker';
		ROLLBACK;
	});
	unlike($o, qr/attacker superuser: true/, 'a superuser loading an admin\'s table does not run the admin\'s cast');
}
attacker_not_superuser('after the superuser\'s load (rolled back)');

{

	# objects planted in a writable public before CREATE EXTENSION ... CASCADE
	# (btree_gist lands in public, so public is on the install script's path)
	sql(q{CREATE ROLE planter LOGIN; CREATE DATABASE planted;});
	$node->safe_psql('planted', q{GRANT CREATE ON SCHEMA public TO PUBLIC;});
	my ($r, $o, $e) = $node->psql('planted', q{
		CREATE TABLE public.planted_log (fn text, by_user name DEFAULT current_user);
		GRANT INSERT ON public.planted_log TO PUBLIC;
		CREATE FUNCTION public.planted_escalate(fn text) RETURNS void LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO public.planted_log (fn) VALUES (fn);
			ALTER ROLE planter SUPERUSER;
		END $$;
		-- IMMUTABLE, so an index may use it; the volatile inner call still runs
		CREATE FUNCTION public.upper_inf(tstzrange) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
		BEGIN PERFORM public.planted_escalate('upper_inf'); RETURN pg_catalog.upper_inf($1); END $$;
		CREATE FUNCTION public.lower(tstzrange) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE AS $$
		BEGIN PERFORM public.planted_escalate('lower'); RETURN pg_catalog.lower($1); END $$;
		CREATE FUNCTION public.isempty(tstzrange) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
		BEGIN PERFORM public.planted_escalate('isempty'); RETURN pg_catalog.isempty($1); END $$;
	}, extra_params => [ '-U', 'planter' ]);
	$node->safe_psql('planted', 'CREATE EXTENSION gpualloc CASCADE');
	is($node->safe_psql('planted', q{
		SELECT pg_catalog.count(*) FROM pg_catalog.pg_depend d
		JOIN pg_catalog.pg_proc p ON d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.refobjid = p.oid
		WHERE p.proowner = 'planter'::pg_catalog.regrole AND d.classid <> 'pg_catalog.pg_proc'::pg_catalog.regclass}),
		'0', 'no constraint, index or view of the extension depends on a function planted in public');
	($r, $o, $e) = $node->psql('planted', q{
		BEGIN;
		SELECT gpualloc.add_tenant('postgres');
		SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312) > 0;
		SELECT gpualloc.add_node('a100', 0);
		SELECT gpualloc.submit_job('j', 'training', 'a100', 2, work_gpu_hours => 2) > 0;
		SELECT status FROM gpualloc.replan('fast');
		SELECT 'planter superuser: ' || rolsuper FROM pg_catalog.pg_roles WHERE rolname = 'planter';
		ROLLBACK;
	});
	unlike($o, qr/planter superuser: true/, 'a plan committed by a superuser does not run a function planted before install');
}
is(sql(q{SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = 'planter'}), 'f', 'the planter is not superuser after the rollback');
attacker_not_superuser('at the end');

$node->stop;
done_testing();

# the first line of a query's output as a role, or its error
sub as_role_value {
	my ($role, $query) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', $query, extra_params => [ '-U', $role ]);
	return $ret == 0 ? $out : $err;
}
