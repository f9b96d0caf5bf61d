/*
 * test_fuzz_found.c — one test per bug the fuzz targets (tests/fuzz/), the
 * sanitized unit tests (build/unit_tests_san) or runs on unusual scenarios
 * found in the core, each replaying the input that showed it.  Under the sanitizers a regression
 * is a sanitizer report; without them, the wrong result each test checks.
 */
#include "unit.h"
#include "forecast/forecast_estimator.h"
#include "scenario_fixture.h"
#include "sim/scenario.h"

#include <limits.h>
#include <stdlib.h>

#define NUM(k, v) ((ga_feature) {(k), true, (v), NULL})
#define TXT(k, v) ((ga_feature) {(k), false, 0, (v)})

/*
 * ga_training_efficiency rounded GPUs up to nodes as (gpus + 7) / 8, a
 * signed overflow for a count near INT_MAX (ga_estimate_job takes any
 * gpus >= 1): the node count went negative and the estimate NaN.
 */
TEST(fuzz_training_gpu_count_near_int_max)
{
	ga_feature	f[] = {TXT("strategy", "lora"), TXT("technique", "dpo"),
	NUM("params_b", 8), NUM("tokens_m", 200)};
	ga_job_estimate e;
	ga_error	err = {0};

	CHECK_INT_EQ(ga_estimate_job(NULL, "training", f, 4, INT_MAX, &e, &err), GA_OK);
	CHECK_INT_EQ(e.gpus, INT_MAX);
	CHECK(isfinite(e.hours_p50) && e.hours_p50 > 0);
	CHECK(e.hours_p10 <= e.hours_p50 && e.hours_p50 <= e.hours_p90);
	CHECK_INT_EQ(ga_estimate_job(NULL, "training", f, 4, INT_MAX - 7, &e, &err), GA_OK);
	CHECK(isfinite(e.hours_p50) && e.hours_p50 > 0);
}

/*
 * ga_feature_list_parse took "=value" as a pair with the empty key, which
 * only an estimator's validation caught later, as "feature #N has an empty
 * key"; the scenario reader kept such jobs.  The parser now refuses it and
 * names the item.
 */
TEST(fuzz_feature_item_with_empty_key)
{
	ga_error	err = {0};
	ga_feature_list *list = ga_feature_list_parse("n=0.5;gpu_mo=2; = mi300x ", &err);

	CHECK(list == NULL);
	CHECK_INT_EQ(err.code, GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "\"=mi300x\" has an empty key");
	ga_feature_list_destroy(list);
	/* an item of blanks only is still an empty item, skipped */
	list = ga_feature_list_parse(" ; ;a=1", &err);
	CHECK(list != NULL && list->n == 1);
	ga_feature_list_destroy(list);
}

/*
 * A finished job whose hours are so small (or large) that its ratio to the
 * prior overflows went into the history as an infinite log ratio; the next
 * fit turned every estimate of its kind into NaN (p10 and p90 both).  Such
 * a run is now refused, and the estimates after the fit stay finite.
 */
TEST(fuzz_history_with_overflowing_ratio)
{
	ga_feature	train[] = {TXT("strategy", "full"), TXT("technique", "sft"),
	NUM("params_b", 7), NUM("tokens_m", 211)};
	ga_feature	infer[] = {NUM("params_b", 8), NUM("tokens_m", 100)};
	ga_feature	quant[] = {NUM("params_b", 8), TXT("algorithm", "gptq")};
	struct
	{
		const char *kind;
		ga_feature *f;
		int			n;
		int			gpus;
		double		hours;
	}			runs[] = {
		{"training", train, 4, 2, 3e-323},
		{"inference", infer, 2, 1, 4e-324},
		{"quantization", quant, 2, 1 << 30, 1e300},
	};
	ga_estimator *est = ga_estimator_create();
	ga_error	err = {0};

	CHECK(est != NULL);
	if (est == NULL)
		return;
	for (int i = 0; i < 3; i++)
	{
		ga_job_estimate e;

		CHECK_INT_EQ(ga_estimator_add_history(est, runs[i].kind, runs[i].f, runs[i].n,
											  runs[i].gpus, runs[i].hours, &err), GA_EINVAL);
		CHECK_STR_CONTAINS(err.message, "out of range");
		CHECK_INT_EQ(ga_estimator_history(est, runs[i].kind), 0);
		/* one ordinary run, so the fit has something to fit */
		CHECK_INT_EQ(ga_estimator_add_history(est, runs[i].kind, runs[i].f, runs[i].n,
											  2, 3.0, &err), GA_OK);
		CHECK_INT_EQ(ga_estimator_fit(est, &err), GA_OK);
		CHECK_INT_EQ(ga_estimate_job(est, runs[i].kind, runs[i].f, runs[i].n, 2, &e, &err), GA_OK);
		CHECK_MSG(isfinite(e.hours_p10) && isfinite(e.hours_p50) && isfinite(e.hours_p90),
				  "%s: p10 %g p50 %g p90 %g", runs[i].kind, e.hours_p10, e.hours_p50, e.hours_p90);
		CHECK(e.hours_p10 <= e.hours_p50 && e.hours_p50 <= e.hours_p90);
	}
	ga_estimator_destroy(est);
}

/*
 * Features each inside its range can overflow together: a model of 1e-300
 * billion parameters with a reward model of 1e5 billion makes the RLHF
 * FLOPs infinite.  The estimate was an infinite number of hours (work a
 * caller would book); it is now an error.
 */
TEST(fuzz_estimate_that_overflows_is_an_error)
{
	ga_feature	f[] = {TXT("strategy", "full"), TXT("technique", "rlhf"),
	NUM("params_b", 1e-300), NUM("reward_params_b", 1e5), NUM("tokens_m", 1)};
	ga_job_estimate e;
	ga_error	err = {0};

	CHECK_INT_EQ(ga_estimate_job(NULL, "training", f, 5, 8, &e, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "training estimate is out of range");
	/* the same job at a sane size still estimates */
	f[2] = NUM("params_b", 7);
	CHECK_INT_EQ(ga_estimate_job(NULL, "training", f, 5, 8, &e, &err), GA_OK);
	CHECK(isfinite(e.hours_p90));
}

/* ---- the scenario reader ---- */

static const char *settings =
"key,value\nstart,2026-03-02 00:00\nend,2026-03-02 04:00\nstep_minutes,30\nhorizon_hours,2\n";
static const char *gpus = "pool,node,gpus\nh100,n0,8\n";
static const char *services =
"service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\nchat,h100,2,100,0,1,8\n";
static const char *demand = "service,ts,traffic\nchat,2026-03-02 00:00,250\n";
static const char *jobs = "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n";

/* Read a scenario; NULL (err set) when it does not read. */
static ga_scenario *
read_scenario(const char *s, const char *g, const char *sv, const char *d,
			  const char *j, ga_error *err)
{
	const char *dir = tscn_write(s, g, sv, d, j, NULL);
	ga_scenario *scn;

	CHECK(dir != NULL);
	if (dir == NULL)
		return NULL;
	scn = ga_scenario_read(dir, err);
	tscn_remove(dir);
	return scn;
}

static void
expect_refused(const char *s, const char *g, const char *sv, const char *d,
			   const char *j, const char *want1, const char *want2)
{
	ga_error	err = {0};
	ga_scenario *scn = read_scenario(s, g, sv, d, j, &err);

	CHECK(scn == NULL);
	CHECK_STR_CONTAINS(err.message, want1);
	CHECK_STR_CONTAINS(err.message, want2);
	ga_scenario_destroy(scn);
}

/*
 * gpus.csv added each node's GPUs (up to 1e9 a row) to an int total: three
 * rows of 1e9 overflowed it.  The total is now bounded by GA_SCN_MAX_GPUS.
 */
TEST(fuzz_scenario_gpu_total_is_bounded)
{
	ga_error	err = {0};
	ga_scenario *scn;

	expect_refused(settings, "pool,node,gpus\nh100,n0,1000000000\nh100,n1,1000000000\nh100,n2,1000000000\n",
				   services, demand, jobs, "gpus.csv: line 2, column \"gpus\"",
				   "brings the GPUs listed to more than 1048576");
	expect_refused(settings, "pool,node,gpus\nh100,n0,524288\na100,n1,524288\na100,n2,1\n",
				   services, demand, jobs, "gpus.csv: line 4", "more than 1048576");
	scn = read_scenario(settings, "pool,node,gpus\nh100,n0,524288\na100,n1,524288\n",
						services, demand, jobs, &err);
	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
		CHECK_INT_EQ(scn->n_gpus, GA_SCN_MAX_GPUS);
	ga_scenario_destroy(scn);
}

/*
 * A window of 1970 to 9999 in one-minute steps has more steps than an int
 * holds: ga_scenario_steps came out negative.  A horizon of 1e9 hours
 * overflowed the simulator's horizon minutes.  Both are now bounded.
 */
TEST(fuzz_scenario_window_and_horizon_are_bounded)
{
	ga_error	err = {0};
	ga_scenario *scn;

	expect_refused("key,value\nstart,1970-01-01 00:00\nend,9999-12-31 23:00\nstep_minutes,1\n",
				   gpus, services, demand, jobs, "scenario.csv", "at most 1048576 steps");
	expect_refused("key,value\nstart,2026-03-02 00:00\nend,2026-03-02 04:00\nhorizon_hours,1000000000\n",
				   gpus, services, demand, jobs, "scenario.csv: line 4, column \"value\"",
				   "\"1000000000\" must be at most 8784");
	/* two years of minutes, 1,051,200 steps, are just too many */
	expect_refused("key,value\nstart,2026-01-01 00:00\nend,2028-01-01 00:00\nstep_minutes,1\n",
				   gpus, services, demand, jobs, "scenario.csv", "at most 1048576 steps");
	/* a window just inside the bound still reads, with a horizon inside a plan's steps */
	scn = read_scenario("key,value\nstart,2026-01-01 00:00\nend,2027-12-01 00:00\n"
						"step_minutes,1\nhorizon_hours,166\n",
						gpus, services, demand, jobs, &err);
	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
		CHECK(ga_scenario_steps(scn) > 1000000 && ga_scenario_steps(scn) <= GA_SCN_MAX_STEPS);
	ga_scenario_destroy(scn);
	/* and the longest horizon, a leap year, in hourly steps (8,784 a plan) */
	scn = read_scenario("key,value\nstart,2026-01-01 00:00\nend,2027-12-01 00:00\n"
						"step_minutes,60\nhorizon_hours,8784\n",
						gpus, services, demand, jobs, &err);
	CHECK_MSG(scn != NULL, "%s", err.message);
	ga_scenario_destroy(scn);
}

/*
 * ga_scenario_true_demand turns traffic / capacity_per_gpu into an int
 * count of GPUs: traffic 1e300 made that conversion undefined (UBSan:
 * "outside the range of representable values of type 'int'").  The reader
 * now refuses an hour that needs more than GA_SCN_MAX_GPUS.
 */
TEST(fuzz_scenario_demand_beyond_int_is_refused)
{
	ga_error	err = {0};
	ga_scenario *scn;

	expect_refused(settings, gpus, services, "service,ts,traffic\nchat,2026-03-02 00:00,1e300\n",
				   jobs, "demand.csv: line 2, column \"traffic\"", "needs more than 1048576 GPUs");
	expect_refused(settings, gpus,
				   "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
				   "chat,h100,2,1e-300,0,1,8\n",
				   "service,ts,traffic\nchat,2026-03-02 00:00,1\n",
				   jobs, "demand.csv: line 2", "needs more than 1048576 GPUs");
	scn = read_scenario(settings, gpus, services,
						"service,ts,traffic\nchat,2026-03-02 00:00,104857600\n", jobs, &err);
	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
		CHECK_INT_EQ(ga_scenario_true_demand(scn, 0, scn->start), GA_SCN_MAX_GPUS);
	ga_scenario_destroy(scn);
}

/* ---- the simulator ---- */

/*
 * The simulator turned a job's true work into whole steps with an int
 * conversion of ceil(work / step / gpus): work_gpu_hours 1e300 (or 1e10)
 * made it undefined (UBSan: "outside the range of representable values of
 * type 'int'").  It is now capped like ga_job_duration: the job runs past
 * the window and never completes, under every step-by-step policy.
 */
TEST(fuzz_sim_job_longer_than_an_int_of_steps)
{
	static const ga_policy policies[] = {GA_POLICY_FIFO, GA_POLICY_BACKFILL, GA_POLICY_FAST};
	const char *dir = tscn_write(settings, gpus, services, demand,
								 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
								 "huge,other,h100,1,2026-03-02 00:00,1,1,1e300,\n"
								 "long,other,h100,1,2026-03-02 00:00,2,2,1e10,\n"
								 "short,other,h100,1,2026-03-02 00:00,1,1,1,\n",
								 NULL);

	CHECK(dir != NULL);
	if (dir == NULL)
		return;
	for (int p = 0; p < 3; p++)
		for (int perfect = 0; perfect < 2; perfect++)
		{
			ga_sim_result *res = tscn_simulate(dir, policies[p], perfect);

			if (res == NULL)
				continue;
			/* arrival order is file order here: huge, long, short */
			for (int j = 0; j < 2; j++)
			{
				CHECK_INT_EQ(res->jobs[j].start_step, 0);
				CHECK(res->jobs[j].end_step > res->record->n_steps);
			}
			CHECK_INT_EQ(res->jobs[2].end_step - res->jobs[2].start_step, 2);
			CHECK(res->metrics.completed_jobs == 1);
			ga_sim_result_destroy(res);
		}
	tscn_remove(dir);
}

/*
 * The oracle turned a job's true work into steps with an int conversion of
 * its own, without the simulator's cap: work_gpu_hours 1e10 wrapped the
 * duration negative and the bound's prefix sums were read before their
 * start (a crash).  Both now use ga_scenario_run_steps, capped.
 */
TEST(scenario_oracle_job_longer_than_an_int_of_steps)
{
	const char *dir = tscn_write(settings, gpus, services, demand,
								 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
								 "long,other,h100,1,2026-03-02 00:00,2,2,1e10,\n"
								 "short,other,h100,1,2026-03-02 00:00,1,1,1,\n",
								 NULL);
	ga_sim_result *res;

	CHECK(dir != NULL);
	if (dir == NULL)
		return;
	res = tscn_simulate(dir, GA_POLICY_ORACLE, true);
	CHECK(res != NULL);
	if (res != NULL)
	{
		/* a bound: at most the short job completes */
		CHECK(res->metrics.completed_jobs <= 1 + 1e-9);
		CHECK(isfinite(res->metrics.value) && res->metrics.value > 0);
		ga_sim_result_destroy(res);
	}
	tscn_remove(dir);
}

/*
 * A submission far past the window with 1-minute steps (year 6110: more
 * minutes than an int holds) wrapped its first step negative: the job ran
 * from step 0 in every policy though it is never seen, and the oracle read
 * out of bounds.  Its first step is now past any window.
 */
TEST(scenario_submission_far_past_the_window_is_never_seen)
{
	static const ga_policy policies[] = {GA_POLICY_FIFO, GA_POLICY_FAST, GA_POLICY_ORACLE};
	const char *dir = tscn_write("key,value\nstart,2026-03-02 00:00\nend,2026-03-02 04:00\n"
								 "step_minutes,1\nhorizon_hours,2\n", gpus, services, demand,
								 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
								 "now,other,h100,1,2026-03-02 00:00,1,1,1,\n"
								 "future,other,h100,1,6110-01-01 00:00,4,4,20,\n",
								 NULL);
	ga_error	err = {0};
	ga_scenario *scn;

	CHECK(dir != NULL);
	if (dir == NULL)
		return;
	scn = ga_scenario_read(dir, &err);
	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
	{
		CHECK_INT_EQ(ga_scenario_release_step(scn, scn->jobs[1].submit), GA_SCN_MAX_STEPS + 1);
		CHECK_INT_EQ(ga_scenario_release_step(scn, scn->start - 10), 0);
		CHECK_INT_EQ(ga_scenario_release_step(scn, scn->start + 61), 61);
		ga_scenario_destroy(scn);
	}
	for (int p = 0; p < 3; p++)
	{
		ga_sim_result *res = tscn_simulate(dir, policies[p], true);

		if (res == NULL)
			continue;
		if (policies[p] != GA_POLICY_ORACLE)
		{
			CHECK_INT_EQ(res->jobs[1].start_step, -1);
			/* only the 1-GPU job ran: 60 GPU-steps of batch work */
			long		busy = 0;

			for (int t = 0; t < res->record->n_steps; t++)
				busy += res->record->batch_gpus[t];
			CHECK_INT_EQ(busy, 60);
		}
		CHECK(res->metrics.completed_jobs <= 1 + 1e-9);
		ga_sim_result_destroy(res);
	}
	tscn_remove(dir);
}

/*
 * work_gpu_hours 1e308 (finite, so read) overflowed to inf in GPU-steps,
 * and so did a history row's gpus x actual_hours in the mean work a job no
 * estimator knows is booked with: the run stopped with "work_gpu_steps must
 * be finite and positive".  Both are now capped.
 */
TEST(scenario_work_near_the_largest_double_runs)
{
	const char *dir = tscn_write(settings, gpus, services, demand,
								 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
								 "vast,other,h100,1,2026-03-02 00:00,1,1,1e308,\n"
								 "short,other,h100,1,2026-03-02 00:00,1,1,1,\n",
								 "kind,gpus,features,actual_hours\nweird,8,,1e308\n");

	CHECK(dir != NULL);
	if (dir == NULL)
		return;
	for (int perfect = 0; perfect < 2; perfect++)
	{
		ga_sim_result *res = tscn_simulate(dir, GA_POLICY_FIFO, perfect);

		if (res == NULL)
			continue;
		CHECK_INT_EQ(res->jobs[0].start_step, 0);
		CHECK(res->jobs[0].end_step > res->record->n_steps);
		CHECK(res->metrics.completed_jobs == 1);
		ga_sim_result_destroy(res);
	}
	tscn_remove(dir);
}

/*
 * Priorities, the penalty and the half-life are bounded as in the
 * extension: a priority of 1e308 made value infinite (and GLPK fail), a
 * half-life of 1e16 hours a decay of exactly 1 (no step worth more than a
 * later one, so the planners put work off).
 */
TEST(scenario_weights_are_bounded)
{
	expect_refused(settings, gpus, services, demand,
				   "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
				   "j,other,h100,2e6,2026-03-02 00:00,1,1,1,\n",
				   "column \"priority\"", "must be positive and at most 1e6");
	expect_refused(settings, gpus,
				   "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\nchat,h100,1e308,100,0,1,8\n",
				   demand, jobs, "services.csv: line 2", "must be positive and at most 1e6");
	expect_refused("key,value\nstart,2026-03-02 00:00\nend,2026-03-02 04:00\npenalty,1e7\n",
				   gpus, services, demand, jobs, "scenario.csv: line 4", "must be at most 1e6");
	expect_refused("key,value\nstart,2026-03-02 00:00\nend,2026-03-02 04:00\nhalf_life_hours,1e16\n",
				   gpus, services, demand, jobs, "scenario.csv: line 4", "must be at most 1e6");
}

/*
 * Errors of the after_ok / after_any links named "jobs.csv" alone, where
 * every other error names the scenario's directory: they name the path.
 * And alt_pools entries may have spaces around the pool and the factor,
 * as after_ok names may, but no hexadecimal factor.
 */
TEST(scenario_links_and_alt_pools_read_as_documented)
{
	const char *two_pools = "pool,node,gpus\nh100,n0,8\nl4,n1,8\n";
	const char *header = "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,after_ok,alt_pools\n";
	char		text[512];
	const char *dir;
	ga_error	err = {0};
	ga_scenario *scn;

	snprintf(text, sizeof(text), "%sa,other,h100,1,2026-03-02 00:00,1,1,1,,nobody,\n", header);
	dir = tscn_write(settings, two_pools, services, demand, text, NULL);
	CHECK(dir != NULL);
	if (dir != NULL)
	{
		tscn_expect_read_error(dir, dir, "jobs.csv: line 2, column \"after_ok\": no job is named \"nobody\"");
		tscn_remove(dir);
	}
	snprintf(text, sizeof(text), "%sa,other,h100,1,2026-03-02 00:00,1,1,1,,, l4 : 0.5 |\n", header);
	scn = read_scenario(settings, two_pools, services, demand, text, &err);
	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
	{
		CHECK_INT_EQ(scn->jobs[0].n_alt_pools, 1);
		CHECK_NEAR(ga_scn_job_factor(&scn->jobs[0], 1), 0.5, 0);
		ga_scenario_destroy(scn);
	}
	snprintf(text, sizeof(text), "%sa,other,h100,1,2026-03-02 00:00,1,1,1,,,l4:0x1p-1\n", header);
	expect_refused(settings, two_pools, services, demand, text,
				   "column \"alt_pools\"", "has a factor that is not a number");
}

