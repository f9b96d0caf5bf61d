# The plan as a picture: gpualloc.plan_svg(plan_id, color_by).  A small
# cluster is planned and drawn by kind and by tenant: the legend lists each
# kind, tenant and service that appears and none that does not; committed
# and running blocks are solid, tentative ones hatched; the jobs the plan
# left out are listed with their reason; a bad color_by is refused by name;
# the SVG is well-formed XML (xmllint).  Then a 512-GPU cluster of small and
# large jobs: every job's block is tall enough to carry its name.  Last,
# maintenance windows: each drawn hatched over the GPUs and steps it closes,
# labelled with its reason, in the legend, and no job's block inside one.
# Then an advance reservation: drawn outlined apart from the windows,
# labelled with its tenant, in the legend, and no other tenant's block
# inside it.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('svg');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
gpualloc.enabled = off
});
$node->start;

# The job groups of an SVG: job id => { state, rects (class, fill, height), label }.
sub job_groups
{
	my ($svg) = @_;
	my %jobs;
	while ($svg =~ m{<g class="job" data-job-id="(\d+)"([^>]*)>(.*?)</g>}gs)
	{
		my ($id, $attrs, $body) = ($1, $2, $3);
		my ($state) = $attrs =~ /data-state="(\w+)"/;
		my @rects;
		while ($body =~ m{<rect class="([^"]+)" x="[^"]*" y="[^"]*" width="[^"]*" height="([^"]*)" fill="([^"]+)"/>}g)
		{
			push @rects, { class => $1, height => $2, fill => $3 };
		}
		my ($label) = $body =~ m{<text class="jobname[^"]*"[^>]*>([^<]*)</text>};
		$jobs{$id} = { state => $state, rects => \@rects, label => $label };
	}
	return \%jobs;
}

sub well_formed
{
	my ($svg) = @_;
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ 'xmllint', '--noout', '-' ], '<', \$svg, '>', \$out, '2>', \$err);
	diag($err) unless $ok;
	return $ok;
}

sub legend_keys
{
	my ($svg, $group) = @_;
	my @keys = $svg =~ m{<g class="legend-item" data-legend="$group" data-key="([^"]*)">}g;
	return join(',', sort @keys);
}

# One pool of two nodes of 8 GPUs; two services with demand and one without;
# three tenants, one of them with no jobs.
$node->safe_psql('postgres', q{
	CREATE EXTENSION gpualloc CASCADE;
	CREATE ROLE svg_alice;
	CREATE ROLE svg_bob;
	CREATE ROLE svg_carol;
	SELECT gpualloc.add_tenant('svg_alice');
	SELECT gpualloc.add_tenant('svg_bob');
	SELECT gpualloc.add_tenant('svg_carol');
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.add_node('a100', 1);
	SELECT gpualloc.add_service('chat', 'a100', 50, 4, priority => 3);
	SELECT gpualloc.add_service('search', 'a100', 50, 2, priority => 3);
	SELECT gpualloc.add_service('unused', 'a100', 50, 2);
	SELECT gpualloc.record_demand(s, h, CASE s WHEN 'chat' THEN 100 WHEN 'search' THEN 50 ELSE 0 END)
	FROM unnest(ARRAY['chat', 'search', 'unused']) s,
		 generate_series(date_trunc('hour', now()) - interval '7 days',
						 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
	SELECT gpualloc.submit_job('train-a', 'training', 'a100', 4, 4, tenant => 'svg_alice', priority => 3,
							   work_gpu_hours => 8);
	SELECT gpualloc.submit_job('score-b', 'batch_inference', 'a100', 2, 2, tenant => 'svg_bob', priority => 2,
							   work_gpu_hours => 4);
	SELECT gpualloc.submit_job('quant-a', 'quantization', 'a100', 1, 1, tenant => 'svg_alice', priority => 2,
							   work_gpu_hours => 2);
	SELECT gpualloc.submit_job('later-a', 'training', 'a100', 4, 4, tenant => 'svg_alice',
							   not_before => now() + interval '3 hours', work_gpu_hours => 16);
	SELECT gpualloc.submit_job('huge', 'training', 'a100', 16, 16, tenant => 'svg_bob', work_gpu_hours => 16);
	SELECT gpualloc.submit_job('late', 'quantization', 'a100', 4, 4, tenant => 'svg_bob',
							   deadline => now() + interval '2 hours', work_gpu_hours => 400);
	SELECT gpualloc.submit_job('noest', 'batch_inference', 'a100', 1, 1, tenant => 'svg_bob', work_gpu_hours => 1);
	UPDATE gpualloc.jobs SET est_work_gpu_hours = NULL WHERE name = 'noest';
	-- one GPU down: no block of 16 is left
	SELECT gpualloc.set_gpu_state('a100', 1, 7, 'down');
});
my $plan = $node->safe_psql('postgres', "SELECT plan_id FROM gpualloc.replan('fast')");
ok($plan =~ /^\d+$/, 'the cluster is planned');
# train-a starts: running; the others at step 0 stay booked
$node->safe_psql('postgres',
	"SELECT gpualloc.job_started(job_id) FROM gpualloc.jobs WHERE name = 'train-a' AND status = 'booked'");
is($node->safe_psql('postgres', "SELECT status FROM gpualloc.jobs WHERE name = 'train-a'"),
	'running', 'train-a runs');
my %job_id = map { split /\|/ } split /\n/,
  $node->safe_psql('postgres', 'SELECT name, job_id FROM gpualloc.jobs');

my $by_kind = $node->safe_psql('postgres', "SELECT gpualloc.plan_svg($plan, 'kind')");
my $by_tenant = $node->safe_psql('postgres', "SELECT gpualloc.plan_svg($plan, color_by => 'tenant')");
my $default = $node->safe_psql('postgres', "SELECT gpualloc.plan_svg($plan)");

ok(well_formed($by_kind), 'by kind: well-formed XML');
ok(well_formed($by_tenant), 'by tenant: well-formed XML');
like($default, qr/data-color-by="kind"/, 'kind is the default');
like($by_tenant, qr/data-color-by="tenant"/, 'color_by => tenant is taken');
is($node->safe_psql('postgres', "SELECT gpualloc.plan_svg($plan) = gpualloc.plan_svg($plan, 'kind')"),
	't', 'the same plan at the same moment draws the same SVG');

# the legend: what appears, nothing else
is(legend_keys($by_kind, 'kind'), 'batch_inference,quantization,training', 'by kind: a legend entry per kind');
is(legend_keys($by_kind, 'tenant'), '', 'by kind: no tenant entries');
is(legend_keys($by_tenant, 'tenant'), 'svg_alice,svg_bob', 'by tenant: the tenants with blocks, not svg_carol');
is(legend_keys($by_tenant, 'kind'), '', 'by tenant: no kind entries');
for my $svg ($by_kind, $by_tenant)
{
	is(legend_keys($svg, 'service'), 'chat,search', 'a legend entry per service with blocks, not "unused"');
}
unlike($by_tenant, qr/svg_carol/, 'a tenant without jobs is nowhere in the picture');
like($by_kind, qr/data-legend="state" data-key="running"/, 'the legend explains running blocks');
like($by_kind, qr/data-legend="state" data-key="committed"/, 'the legend explains committed blocks');
like($by_kind, qr/data-legend="state" data-key="tentative"[^\n]*fill="url\(#h\d+\)"/,
	'the legend shows tentative blocks hatched');
like($by_kind, qr/data-legend="grid" data-key="down"/, 'the down GPU is in the legend');
unlike($by_kind, qr/data-legend="grid" data-key="missing"/, 'no "no GPU" entry: every index has a GPU');

# each service its own colour, in the legend and on its blocks
my %service_fill = $by_kind =~ m{data-legend="service" data-key="(\w+)"><rect class="swatch"[^>]* fill="(#[0-9a-f]{6})"}g;
isnt($service_fill{chat}, $service_fill{search}, 'chat and search have different colours');
like($by_kind, qr{<rect class="k-service"[^>]* fill="$service_fill{chat}" data-state="committed"><title>chat },
	'chat step 0 is solid in its colour: the allocation holds it');

# committed and running solid, tentative hatched
for my $svg ($by_kind, $by_tenant)
{
	my $jobs = job_groups($svg);
	my $running = $jobs->{ $job_id{'train-a'} };
	is($running->{state}, 'running', 'train-a is drawn running');
	like($running->{rects}[0]{fill}, qr/^#[0-9a-f]{6}$/, 'a running block is solid');
	my @committed = grep { $_->{state} eq 'committed' } values %$jobs;
	ok(@committed > 0, 'booked jobs are drawn committed');
	ok(!grep({ $_->{rects}[0]{fill} !~ /^#[0-9a-f]{6}$/ } @committed), 'committed blocks are solid');
	my $later = $jobs->{ $job_id{'later-a'} };
	is($later->{state}, 'tentative', 'a job planned for later is tentative');
	like($later->{rects}[0]{fill}, qr/^url\(#h\d+\)$/, 'a tentative block is hatched');
	my ($pattern) = $later->{rects}[0]{fill} =~ /#(h\d+)/;
	like($svg, qr/<pattern id="$pattern"/, 'its hatch is defined');
	is(scalar(keys %$jobs), $node->safe_psql('postgres',
		"SELECT count(DISTINCT job_id) FROM gpualloc.plan_blocks WHERE plan_id = $plan"), 'one group per planned job');
	ok(!grep({ !defined $_->{label} } values %$jobs), 'every job carries its name on its block');
}
like($by_kind, qr{data-job-id="$job_id{'train-a'}" data-kind="training" data-tenant="svg_alice"}, 'job attributes');

# the jobs left out, with their reason
my %reason = $by_kind =~ m{<g class="unplanned-job" data-job-id="(\d+)"[^>]*><title>[^<]*</title><text[^>]*>[^<]*<tspan class="reason">([^<]*)</tspan>}g;
like($reason{ $job_id{huge} }, qr/^gpus_min 16 larger than the usable pool \(at most 8 GPUs up in one block\)$/,
	'a job larger than the usable pool');
like($reason{ $job_id{late} }, qr/^deadline unreachable: /, 'a job that cannot meet its deadline');
like($reason{ $job_id{noest} }, qr/^no estimate of its work/, 'a job without an estimate');
ok(!exists $reason{ $job_id{'later-a'} }, 'a planned job is not listed');
like($by_kind, qr/Not planned: 3 queued or booked jobs without a block in this plan/, 'the list has a heading');
# a job submitted after the plan
$node->safe_psql('postgres',
	"SELECT gpualloc.submit_job('fresh', 'quantization', 'a100', 1, 1, tenant => 'svg_bob', work_gpu_hours => 1)");
like($node->safe_psql('postgres', "SELECT gpualloc.plan_svg($plan)"),
	qr{data-job-id="\d+" data-status="(?:queued|booked)"><title>fresh [^<]*</title><text[^>]*>[^<]*<tspan class="reason">submitted after this plan was made</tspan>},
	'a job submitted after the plan');

# a bad color_by is refused by name, with the allowed values
my ($ret, $out, $err) = $node->psql('postgres', "SELECT gpualloc.plan_svg($plan, 'colour')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
isnt($ret, 0, 'a bad color_by fails');
like($err, qr/ERROR:  22023: color_by must be one of kind, tenant; got colour/,
	'invalid_parameter_value naming color_by and the allowed values');
($ret, $out, $err) = $node->psql('postgres', "SELECT gpualloc.plan_svg($plan, NULL)",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  22004: color_by must not be NULL/, 'a NULL color_by is refused by name, as a NULL plan_id is');

# readers may draw it either way
$node->safe_psql('postgres', 'CREATE ROLE svg_reader LOGIN IN ROLE gpualloc_reader');
like($node->safe_psql('postgres', "SELECT gpualloc.plan_svg($plan, 'tenant')", extra_params => [ '-U', 'svg_reader' ]),
	qr/^<svg /, 'a reader draws the plan by tenant');

# 512 GPUs: 1-GPU jobs among 32-GPU ones each keep a block tall enough for a name
$node->safe_psql('postgres', 'CREATE DATABASE big');
$node->safe_psql('big', q{
	CREATE EXTENSION gpualloc CASCADE;
	SELECT gpualloc.add_tenant('svg_alice');
	SELECT gpualloc.add_pool('h100', 'H100-80GB', 80, 989);
	SELECT gpualloc.add_node('h100', n) FROM generate_series(0, 63) n;
	SELECT gpualloc.submit_job('small-' || i, 'batch_inference', 'h100', 1 << (i % 2), 1 << (i % 2),
							   tenant => 'svg_alice', work_gpu_hours => (1 << (i % 2)) * (2 + i % 5))
	FROM generate_series(1, 60) i;
	SELECT gpualloc.submit_job('large-' || i, 'training', 'h100', 32, 32, tenant => 'svg_alice',
							   work_gpu_hours => 32 * (2 + i % 7))
	FROM generate_series(1, 20) i;
});
my $big_plan = $node->safe_psql('big', "SELECT plan_id FROM gpualloc.replan('fast')");
my $big = $node->safe_psql('big', "SELECT gpualloc.plan_svg($big_plan)");
ok(well_formed($big), '512 GPUs: well-formed XML');
like($big, qr/one row per 4 GPUs, GPUs with small jobs drawn taller/, '512 GPUs: rows of 4 GPUs, stretched');
my $jobs = job_groups($big);
is(scalar(keys %$jobs), 80, '512 GPUs: every job planned');
my @thin = grep { $_->{rects}[0]{height} < 11.5 } values %$jobs;
is(scalar(@thin), 0, '512 GPUs: every block at least 12 px high');
my @unlabelled = grep { !defined $_->{label} } values %$jobs;
is(scalar(@unlabelled), 0, '512 GPUs: every job labelled on its block');

unlike($by_kind, qr/class="maintenance"|<pattern id="hatch-maint"|data-key="maintenance"/,
	'no maintenance window: none drawn, no legend entry, no hatch');

# Maintenance windows: node 1 (indexes 8-15) from one hour ahead for two,
# the whole pool a day ahead (past the horizon: not drawn)
$node->safe_psql('postgres', 'CREATE DATABASE maint');
$node->safe_psql('maint', q{
	CREATE EXTENSION gpualloc CASCADE;
	CREATE ROLE svg_dave;
	SELECT gpualloc.add_tenant('svg_dave');
	SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
	SELECT gpualloc.add_node('a100', 0);
	SELECT gpualloc.add_node('a100', 1);
	SELECT gpualloc.add_maintenance_window('a100', date_trunc('hour', now()) + interval '2 hours',
										   date_trunc('hour', now()) + interval '5 hours',
										   first_gpu => 8, gpus => 8, reason => 'firmware');
	SELECT gpualloc.add_maintenance_window('a100', now() + interval '30 hours', now() + interval '31 hours',
										   reason => 'rack move');
	SELECT gpualloc.submit_job('long-' || i, 'training', 'a100', 8, 8, tenant => 'svg_dave',
							   not_before => now() + interval '1 hour', work_gpu_hours => 8 * (1 + i))
	FROM generate_series(1, 4) i;
	SELECT gpualloc.submit_job('short-' || i, 'quantization', 'a100', 2, 2, tenant => 'svg_dave',
							   not_before => now() + interval '1 hour', work_gpu_hours => 2)
	FROM generate_series(1, 6) i;
});
my $maint_plan = $node->safe_psql('maint', "SELECT plan_id FROM gpualloc.replan('fast')");
my $maint = $node->safe_psql('maint', "SELECT gpualloc.plan_svg($maint_plan)");
ok(well_formed($maint), 'windows: well-formed XML');
my @windows = $maint =~ m{<g class="maintenance" data-pool="a100" data-gpu-first="(\d+)" data-gpu-count="(\d+)" data-step-first="(\d+)" data-step-count="(\d+)">}g;
is(scalar(@windows), 4, 'windows: the one inside the horizon is drawn, the one past it is not');
my ($first, $count, $step_first, $step_count) = @windows;
is("$first+$count", '8+8', 'windows: drawn over indexes 8-15');
my ($step_mins) = $node->safe_psql('maint',
	"SELECT extract(epoch FROM step) / 60 FROM gpualloc.plan_runs WHERE plan_id = $maint_plan");
is($step_count, 180 / $step_mins, 'windows: over the three hours it lasts');
like($maint, qr{<rect class="maint" [^>]*><title>maintenance: firmware, GPUs 8-15, [^<]+</title></rect>},
	'windows: a hatched box with the reason and times in its tooltip');
like($maint, qr{<text class="maintlabel"[^>]*>maintenance: firmware</text>}, 'windows: labelled on the grid');
like($maint, qr/<pattern id="hatch-maint"/, 'windows: the hatch is defined');
like($maint, qr/data-legend="grid" data-key="maintenance"/, 'windows: in the legend');
is($node->safe_psql('maint', qq{
	SELECT count(*) FROM gpualloc.plan_blocks b JOIN gpualloc.plan_runs r USING (plan_id)
	JOIN gpualloc.maintenance_windows w USING (pool_id)
	WHERE b.plan_id = $maint_plan AND b.gpu_first < w.first_gpu + coalesce(w.gpus, 1 << 30)
	  AND w.first_gpu < b.gpu_first + b.gpu_count
	  AND r.plan_start + b.step_first * r.step < w.ends_at
	  AND w.starts_at < r.plan_start + (b.step_first + b.step_count) * r.step}), '0',
	'windows: no block of the plan inside one');
ok(job_groups($maint) && scalar(keys %{ job_groups($maint) }) > 0, 'windows: jobs are planned around them');
unlike($maint, qr/class="reservation"|data-key="reservation"/, 'no reservation: none drawn, no legend entry');

# An advance reservation: node 0 (indexes 0-7) for svg_erin from six hours
# ahead for four, while svg_dave's jobs queue
$node->safe_psql('maint', q{
	CREATE ROLE svg_erin;
	SELECT gpualloc.add_tenant('svg_erin');
	SELECT gpualloc.add_reservation('svg_erin', 'a100', date_trunc('hour', now()) + interval '6 hours',
									date_trunc('hour', now()) + interval '10 hours',
									first_gpu => 0, gpus => 8, reason => 'sprint');
	SELECT gpualloc.submit_job('erin-' || i, 'training', 'a100', 4, 4, tenant => 'svg_erin',
							   not_before => now() + interval '1 hour', work_gpu_hours => 8)
	FROM generate_series(1, 2) i;
});
my $resv_plan = $node->safe_psql('maint', "SELECT plan_id FROM gpualloc.replan('fast')");
my $resv = $node->safe_psql('maint', "SELECT gpualloc.plan_svg($resv_plan, 'tenant')");
ok(well_formed($resv), 'reservations: well-formed XML');
my @resv = $resv =~ m{<g class="reservation" data-pool="a100" data-tenant="svg_erin" data-gpu-first="(\d+)" data-gpu-count="(\d+)" data-step-first="(\d+)" data-step-count="(\d+)">}g;
is(scalar(@resv), 4, 'reservations: drawn once, with its tenant');
is("$resv[0]+$resv[1]", '0+8', 'reservations: drawn over indexes 0-7');
is($resv[3], 240 / $step_mins, 'reservations: over the four hours it lasts');
like($resv, qr{<rect class="resv" [^>]*><title>reserved for svg_erin: sprint, GPUs 0-7, [^<]+</title></rect>},
	'reservations: an outlined box with the tenant, the reason and times in its tooltip');
like($resv, qr{<text class="resvlabel"[^>]*>reserved for svg_erin: sprint</text>}, 'reservations: labelled with the tenant');
like($resv, qr/<g class="maintenance" data-pool="a100" data-gpu-first="8"/, 'reservations: drawn apart from the window');
like($resv, qr/data-legend="grid" data-key="reservation"/, 'reservations: in the legend');
is($node->safe_psql('maint', qq{
	SELECT count(*) FROM gpualloc.plan_blocks b JOIN gpualloc.plan_runs r USING (plan_id)
	JOIN gpualloc.jobs j ON j.job_id = b.job_id
	JOIN gpualloc.advance_reservations v ON v.pool_id = b.pool_id AND v.tenant <> j.tenant
	WHERE b.plan_id = $resv_plan AND b.gpu_first < v.first_gpu + coalesce(v.gpus, 1 << 30)
	  AND v.first_gpu < b.gpu_first + b.gpu_count
	  AND r.plan_start + b.step_first * r.step < v.ends_at
	  AND v.starts_at < r.plan_start + (b.step_first + b.step_count) * r.step}), '0',
	'reservations: no block of another tenant inside it');
if ($ENV{GPUALLOC_SVG_OUT})
{
	open(my $fh, '>', $ENV{GPUALLOC_SVG_OUT}) or die "cannot write $ENV{GPUALLOC_SVG_OUT}: $!";
	print $fh $maint;
	close($fh);
}

$node->stop;
done_testing();
