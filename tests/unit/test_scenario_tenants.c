/*
 * test_scenario_tenants.c — tenants.csv: read and checked row by row
 * (every error names the file, the line, the field and the rule), absent
 * in older scenarios without changing them; every policy's simulated run
 * keeps each tenant within its limit; the per-tenant figures and
 * fairness metrics (sim/tenant_metrics.h) on a hand-made run; and the
 * fairshare baseline's factors (sim/fairshare.h) on the worked example.
 */
#include "unit.h"
#include "scenario_fixture.h"
#include "sim/scenario.h"
#include "sim/tenant_metrics.h"
#include "sim/fairshare.h"

#include <math.h>
#include <stdlib.h>

/* 8 GPUs, 8 hours; 4-GPU jobs of 1 hour: a of vision, b and c of speech, d of none. */
static const char *settings =
"key,value\nname,tenants\nstart,2026-03-02 00:00\nend,2026-03-02 08:00\n"
"step_minutes,30\nhorizon_hours,4\n";
static const char *gpus = "pool,node,gpus\nh100,n0,4\nh100,n1,4\n";
static const char *services =
"service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
"chat,h100,2,100,1,0,1\n";
static const char *demand = "service,ts,traffic\nchat,2026-03-01 23:00,0\n";
static const char *jobs =
"job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,tenant\n"
"a,quantization,h100,1,2026-03-02 00:00,2,4,4,,vision\n"
"b,quantization,h100,3,2026-03-02 00:00,2,4,4,,speech\n"
"c,quantization,h100,3,2026-03-02 00:00,2,4,4,,speech\n"
"d,quantization,h100,3,2026-03-02 00:00,4,4,4,,\n";

static const char *header = "tenant,pool,guarantee,limit,borrow,weight,cohort\n";

static const char *
write_tenants(const char *rows)
{
	const char *dir = tscn_write(settings, gpus, services, demand, jobs, NULL);
	char		text[1024];

	snprintf(text, sizeof(text), "%s%s", header, rows);
	if (dir != NULL)
		tscn_add_file(dir, "tenants.csv", text);
	return dir;
}

TEST(scenario_reads_tenant_policies)
{
	const char *dir = write_tenants("vision,h100,4,6,2,1,lab\nspeech,h100,2,,0,2.5,lab\n"
									"audit,h100,0,0,0,1,\n");
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);

	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
	{
		const ga_tenant_policy *v = &scn->policies[0];
		const ga_tenant_policy *s = &scn->policies[1];

		CHECK_INT_EQ(scn->n_policies, 3);
		CHECK_INT_EQ(scn->n_tenants, 3);	/* audit owns no job */
		CHECK(strcmp(scn->tenants[v->tenant], "vision") == 0);
		CHECK(v->guarantee == 4 && v->limit == 6 && v->borrow_limit == 2 && v->weight == 1);
		CHECK(s->limit == GA_NO_LIMIT && s->weight == 2.5);
		CHECK_INT_EQ(scn->n_cohorts, 1);
		CHECK(v->cohort == 0 && s->cohort == 0 && scn->policies[2].cohort == -1);
		CHECK(strcmp(scn->cohorts[0], "lab") == 0);
		CHECK_NEAR(ga_scenario_entitlement(scn, v->tenant, 0), 4.0 / 6, 1e-12);
	}
	ga_scenario_destroy(scn);
	tscn_remove(dir);
}

TEST(scenario_rejects_bad_tenant_rows)
{
	static const char *const rows[][3] = {
		{"vision,a100,4,6,0,1,\n", "pool", "is not a pool of gpus.csv"},
		{"vision,h100,-1,6,0,1,\n", "guarantee", "must not be negative"},
		{"vision,h100,6,,0,1,\nspeech,h100,4,,0,1,\n", "guarantee", "above its GPUs"},
		{"vision,h100,4,2,0,1,\n", "limit", "at least the guarantee"},
		{"vision,h100,4,x,0,1,\n", "limit", "line 2"},
		{"vision,h100,4,6,-2,1,\n", "borrow", "must not be negative"},
		{"vision,h100,4,6,0,0,\n", "weight", "must be positive"},
		/* two such weights summed were infinite: every share 0 */
		{"vision,h100,4,6,0,1.5e308,\n", "weight", "at most 1e6"},
		{"vision,h100,4,6,0,1,\nvision,h100,2,6,0,1,\n", "line 3", "already has a row for this tenant"},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
	{
		const char *dir = write_tenants(rows[i][0]);

		tscn_expect_read_error(dir, "tenants.csv", rows[i][1]);
		tscn_expect_read_error(dir, rows[i][2], "line");
		tscn_remove(dir);
	}
}

/* A scenario without tenants.csv reads as before and has no fairness figures. */
TEST(scenario_without_tenants_has_no_fairness)
{
	const char *dir = tscn_write(settings, gpus, services, demand, jobs, NULL);
	ga_sim_result *res = tscn_simulate(dir, GA_POLICY_FAST, false);

	if (res != NULL)
	{
		CHECK(isnan(res->metrics.jain_index));
		CHECK(isnan(res->metrics.min_entitlement_share));
	}
	ga_sim_result_destroy(res);
	tscn_remove(dir);
}

/* The most GPUs tenant holds at a step of the run, from the job traces. */
static int
peak_gpus(const ga_scenario *scn, const ga_sim_result *res, int tenant)
{
	int			peak = 0;

	for (int t = 0; t < ga_scenario_steps(scn); t++)
	{
		int			held = 0;

		for (int j = 0; j < scn->n_jobs; j++)
			if (scn->jobs[j].tenant == tenant && res->jobs[j].start_step >= 0 &&
				res->jobs[j].start_step <= t && t < res->jobs[j].end_step)
				held += res->jobs[j].size;
		peak = held > peak ? held : peak;
	}
	return peak;
}

/*
 * speech may hold 2 GPUs, vision 4 of its guarantee plus the 2 nobody is
 * guaranteed; the job of no tenant runs on those only.  Every policy's
 * run keeps the limits in reality and reports the fairness figures.
 */
TEST(sim_runs_keep_tenant_limits)
{
	const char *dir = write_tenants("vision,h100,4,,0,1,\nspeech,h100,2,2,0,1,\n");
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);
	ga_policy	policies[] = {GA_POLICY_FIFO, GA_POLICY_BACKFILL, GA_POLICY_FAST, GA_POLICY_FULL,
	GA_POLICY_QUOTA, GA_POLICY_FAIRSHARE};

	CHECK_MSG(scn != NULL, "%s", err.message);
	for (size_t i = 0; scn != NULL && i < sizeof(policies) / sizeof(policies[0]); i++)
	{
		ga_sim_result *res = tscn_simulate(dir, policies[i], false);
		int			speech = scn->jobs[1].tenant;

		if (res == NULL)
			continue;
		CHECK_MSG(peak_gpus(scn, res, speech) <= 2, "%s: speech holds %d GPUs",
				  ga_policy_name(policies[i]), peak_gpus(scn, res, speech));
		CHECK_MSG(peak_gpus(scn, res, scn->jobs[0].tenant) <= 6, "%s: vision above 6 GPUs",
				  ga_policy_name(policies[i]));
		CHECK(res->jobs[1].start_step >= 0 && res->jobs[1].size == 2);
		CHECK(res->metrics.jain_index > 0 && res->metrics.jain_index <= 1);
		CHECK(res->metrics.min_entitlement_share >= 0);
		ga_sim_result_destroy(res);
	}
	ga_scenario_destroy(scn);
	tscn_remove(dir);
}

/*
 * A hand-made run: a (vision) and b (speech) over steps 0-1, 4 GPUs each,
 * c (speech) and d never.  Each job could have used 4 GPU-hours (2 steps
 * at 4 GPUs), so vision's demand is 4, speech's 8; 8 GPU-hours ran.
 * Guaranteed 2 and 6 GPUs, shares of 2 and 6 pass no demand: vision is
 * entitled to 2, speech to 6.  With weights 3 and 1 and no guarantee,
 * vision's share of 6 passes its demand of 4: it is entitled to 4 and the
 * surplus goes to speech, entitled to 4 (not 2).
 */
TEST(tenant_fairness_of_a_hand_made_run)
{
	const char *const policies[2] = {"vision,h100,2,,0,1,\nspeech,h100,6,,0,1,\n",
	"vision,h100,0,,0,3,\nspeech,h100,0,,0,1,\n"};
	const double entitled[2][2] = {{2, 6}, {4, 4}};

	for (int k = 0; k < 2; k++)
	{
		const char *dir = write_tenants(policies[k]);
		ga_error	err;
		ga_scenario *scn = ga_scenario_read(dir, &err);
		ga_sim_job_trace traces[4] = {{0, 2, 0, 4}, {0, 2, 4, 4}, {-1, -1, -1, -1}, {-1, -1, -1, -1}};
		ga_sim_result res = {.n_jobs = 4, .jobs = traces};
		ga_tenant_figures f[3];
		double		jain,
					min_share,
					x[2];

		CHECK_MSG(scn != NULL, "%s", err.message);
		if (scn == NULL)
			continue;
		CHECK_INT_EQ(ga_tenant_figures_compute(scn, &res, f), 2);
		CHECK_INT_EQ(f[0].jobs, 1);
		CHECK_NEAR(f[0].gpu_hours, 4, 1e-9);
		CHECK_NEAR(f[1].gpu_hours, 4, 1e-9);
		CHECK_NEAR(f[0].demand_gpu_hours, 4, 1e-9);
		CHECK_NEAR(f[1].demand_gpu_hours, 8, 1e-9);
		CHECK_NEAR(f[0].entitled_gpu_hours, entitled[k][0], 1e-9);
		CHECK_NEAR(f[1].entitled_gpu_hours, entitled[k][1], 1e-9);
		CHECK_NEAR(f[1].value, 3 * 4, 1e-9);
		CHECK_NEAR(f[1].wait_p50_h, 4, 1e-9);	/* 0 and 8 (c censored) */
		CHECK_NEAR(f[1].wait_p95_h, 7.6, 1e-9);
		ga_tenant_fairness(f, 2, &jain, &min_share);
		x[0] = 4 / entitled[k][0];
		x[1] = 4 / entitled[k][1];
		CHECK_NEAR(jain, (x[0] + x[1]) * (x[0] + x[1]) / (2 * (x[0] * x[0] + x[1] * x[1])), 1e-12);
		CHECK_NEAR(min_share, fmin(x[0], x[1]), 1e-12);
		ga_scenario_destroy(scn);
		tscn_remove(dir);
	}
}

/*
 * Demand and water-filling over three tenants (8 GPUs, 16 steps of half an
 * hour).  Demands: a (vision, 1 GPU, 1 GPU-hour) 1; b (speech, ran at 2
 * GPUs of its 4, 3 GPU-hours of work: 3 steps at 2) 3 at the size it ran
 * at; c (audio, 4 GPUs, 16 GPU-hours) 16 and d (audio, submitted at 07:30
 * for 8 GPU-hours at 4 GPUs) only its last step's 2: audio's demand is 18;
 * e, submitted at the window's end, is not counted.  Received: a 1, b 2
 * (steps 0-1 at 2), c 6 (steps 0-2 at 4): 9 GPU-hours shared.
 *
 * Guarantees 2, 2, 2: thirds of 3 pass vision's demand, held at 1; halves
 * of the 8 left pass speech's 3, held at 3; audio gets 5.  Guarantees 1, 1,
 * 6: eighths give vision 1.125, held at 1; the 8 left give speech 8/7 and
 * audio 48/7, under their demands.  Guarantees 2, 2 and audio none: the
 * guaranteed take 1 and 3, audio by weight the 5 they leave.
 */
static const char *three_jobs =
"job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,tenant\n"
"a,quantization,h100,1,2026-03-02 00:00,1,1,1,,vision\n"
"b,quantization,h100,1,2026-03-02 00:00,2,4,3,,speech\n"
"c,quantization,h100,1,2026-03-02 00:00,4,4,16,,audio\n"
"d,quantization,h100,1,2026-03-02 07:30,4,4,8,,audio\n"
"e,quantization,h100,1,2026-03-02 08:00,4,4,8,,vision\n";

TEST(tenant_entitlement_is_water_filled_and_capped_by_demand)
{
	const char *const policies[3] = {
		"vision,h100,2,,0,1,\nspeech,h100,2,,0,1,\naudio,h100,2,,0,1,\n",
		"vision,h100,1,,0,1,\nspeech,h100,1,,0,1,\naudio,h100,6,,0,1,\n",
	"vision,h100,2,,0,1,\nspeech,h100,2,,0,1,\naudio,h100,0,,0,1,\n"};
	const double entitled[3][3] = {{1, 3, 5}, {1, 8.0 / 7, 48.0 / 7}, {1, 3, 5}};
	const double received[3] = {1, 2, 6};

	for (int k = 0; k < 3; k++)
	{
		const char *dir = tscn_write(settings, gpus, services, demand, three_jobs, NULL);
		ga_error	err;
		ga_scenario *scn;
		ga_sim_job_trace traces[5] = {{0, 2, 0, 1}, {0, 2, 2, 2}, {0, 3, 4, 4},
		{-1, -1, -1, -1}, {-1, -1, -1, -1}};
		ga_sim_result res = {.n_jobs = 5, .jobs = traces};
		ga_tenant_figures f[3];
		double		jain,
					min_share,
					sum = 0,
					sum_sq = 0,
					least = INFINITY;
		char		text[512];

		snprintf(text, sizeof(text), "%s%s", header, policies[k]);
		tscn_add_file(dir, "tenants.csv", text);
		scn = ga_scenario_read(dir, &err);
		CHECK_MSG(scn != NULL, "%s", err.message);
		if (scn == NULL)
		{
			tscn_remove(dir);
			continue;
		}
		CHECK_INT_EQ(ga_tenant_figures_compute(scn, &res, f), 3);
		CHECK_NEAR(f[0].demand_gpu_hours, 1, 1e-9);
		CHECK_NEAR(f[1].demand_gpu_hours, 3, 1e-9);
		CHECK_NEAR(f[2].demand_gpu_hours, 18, 1e-9);
		for (int i = 0; i < 3; i++)
		{
			double		x = received[i] / entitled[k][i];

			CHECK_NEAR(f[i].gpu_hours, received[i], 1e-9);
			CHECK_MSG(fabs(f[i].entitled_gpu_hours - entitled[k][i]) < 1e-9,
					  "case %d tenant %d: entitled %g, want %g", k, i,
					  f[i].entitled_gpu_hours, entitled[k][i]);
			sum += x;
			sum_sq += x * x;
			least = fmin(least, x);
		}
		ga_tenant_fairness(f, 3, &jain, &min_share);
		CHECK_NEAR(jain, sum * sum / (3 * sum_sq), 1e-12);
		CHECK_NEAR(min_share, least, 1e-12);
		ga_scenario_destroy(scn);
		tscn_remove(dir);
	}
}

/*
 * fast and full plan with the fair-share factors, as the extension's
 * planner does (fairshare plans so too, backfill not): on 4 GPUs, A's job
 * holds them all for the first 2 hours; at 01:00 A and B each submit a
 * 4-GPU job of 2 hours, A's at priority 1.2, B's at 1.  At 02:00 A's factor
 * is 2^-2 against B's 1, so B's job is planned first; backfill, on the
 * jobs' own priorities, starts A's.  The value still counts the jobs' own
 * priorities: 1 * 8 + 1 * 4 + 1.2 * 4 GPU-hours whoever goes first.
 */
TEST(sim_fast_and_full_plan_with_fair_share)
{
	static const char *four = "pool,node,gpus\nh100,n0,4\n";
	static const char *queued =
		"job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,tenant\n"
		"a0,quantization,h100,1,2026-03-02 00:00,4,4,8,,A\n"
		"a1,quantization,h100,1.2,2026-03-02 01:00,4,4,4,,A\n"
		"b1,quantization,h100,1,2026-03-02 01:00,4,4,4,,B\n";
	const char *dir = tscn_write(settings, four, services, demand, queued, NULL);
	ga_policy	policies[] = {GA_POLICY_FAST, GA_POLICY_FULL, GA_POLICY_FAIRSHARE, GA_POLICY_BACKFILL};

	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
	{
		ga_sim_result *res = tscn_simulate(dir, policies[i], true);
		bool		b_first = policies[i] != GA_POLICY_BACKFILL;

		if (res == NULL)
			continue;
		CHECK_INT_EQ(res->jobs[0].start_step, 0);
		CHECK_MSG(res->jobs[b_first ? 2 : 1].start_step == 4 && res->jobs[b_first ? 1 : 2].start_step == 6,
				  "%s: a1 starts at step %d, b1 at %d", ga_policy_name(policies[i]),
				  res->jobs[1].start_step, res->jobs[2].start_step);
		CHECK_NEAR(res->metrics.value, 8 + 4 + 1.2 * 4, 1e-9);
		ga_sim_result_destroy(res);
	}
	tscn_remove(dir);
}

/*
 * The fair-share factors reproduce docs/model.md's worked figures: in a
 * 4-GPU pool with H = 168 h, tenant A held all 4 GPUs from 72 h to 48 h
 * before now and B one GPU from 24 h to 23 h before: A's priority factor
 * is 0.254 / 0.984 = 0.258, B's 1.
 */
TEST(sim_fairshare_factors_match_the_worked_example)
{
	static const char *hourly =
		"key,value\nname,fs\nstart,2026-03-02 00:00\nend,2026-03-06 00:00\n"
		"step_minutes,60\nhorizon_hours,4\n";
	static const char *four = "pool,node,gpus\nh100,n0,4\n";
	static const char *two_jobs =
		"job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,tenant\n"
		"a,quantization,h100,1,2026-03-02 00:00,4,4,96,,A\n"
		"b,quantization,h100,1,2026-03-04 00:00,1,1,1,,B\n";
	const char *dir = tscn_write(hourly, four, services, demand, two_jobs, NULL);
	ga_sim_job_trace traces[2] = {{0, 24, 0, 4}, {48, 49, 0, 1}};
	double		factor[2];
	ga_scenario *scn;
	ga_error	err;

	tscn_add_file(dir, "tenants.csv", "tenant,pool,guarantee,limit,borrow,weight,cohort\n"
				  "A,h100,2,,0,1,\nB,h100,2,,0,1,\n");
	scn = ga_scenario_read(dir, &err);
	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
	{
		CHECK_INT_EQ(ga_sim_fairshare(scn, traces, 72, factor, &err), GA_OK);
		CHECK_NEAR(factor[scn->jobs[0].tenant], 0.258, 0.0005);
		CHECK_NEAR(factor[scn->jobs[1].tenant], 1, 1e-12);
		/* before anyone used the pool, every factor is 1 */
		CHECK_INT_EQ(ga_sim_fairshare(scn, traces, 0, factor, &err), GA_OK);
		CHECK_NEAR(factor[0], 1, 1e-12);
		CHECK_NEAR(factor[1], 1, 1e-12);
	}
	ga_scenario_destroy(scn);
	tscn_remove(dir);
}
