/*
 * test_sim_pools.c — jobs of several pools in the simulator: the alt_pools
 * column of jobs.csv, true durations per pool, the value of work done on
 * another pool, and planning on the first pool only.
 *
 * The scenario: pool "h100" of 8 GPUs (GPUs 0-7), pool "a100" of 4 (GPUs
 * 8-11), 4 hours, no service.  Two jobs prefer a100, each 4 GPUs for 8 GPU-hours there (2
 * hours), runnable on h100 in half the work.
 */
#include "unit.h"
#include "scenario_fixture.h"
#include "sim/scenario.h"

#include <math.h>

static const char *settings =
"key,value\nname,pools\nstart,2026-03-02 00:00\nend,2026-03-02 04:00\n"
"step_minutes,30\nhorizon_hours,4\n";
static const char *gpus = "pool,node,gpus\nh100,n0,8\na100,m0,4\n";
static const char *services =
"service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n";
static const char *demand = "service,ts,traffic\n";
static const char *two_jobs =
"job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,alt_pools\n"
"first,training,a100,1,2026-03-02 00:00,4,4,8,,h100:0.5\n"
"second,training,a100,1,2026-03-02 00:00,4,4,8,,h100:0.5\n";

static void
bad_alt(const char *alt, const char *rule)
{
	char		jobs[512];
	const char *dir;

	snprintf(jobs, sizeof(jobs),
			 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,alt_pools\n"
			 "a,training,a100,1,2026-03-02 00:00,1,1,2,,%s\n", alt);
	dir = tscn_write(settings, gpus, services, demand, jobs, NULL);
	tscn_expect_read_error(dir, "jobs.csv: line 2, column \"alt_pools\"", rule);
	tscn_remove(dir);
}

TEST(sim_pools_reads_alt_pools)
{
	const char *dir = tscn_write(settings, "pool,node,gpus\nh100,n0,8\na100,m0,4\nl4,k0,4\n",
								 services, demand,
								 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,alt_pools\n"
								 "a,training,a100,1,2026-03-02 00:00,1,1,2,,h100:0.5|l4:3\n"
								 "b,training,a100,1,2026-03-02 00:00,1,1,2,,\n", NULL);
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);

	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
	{
		const ga_scn_job *a = &scn->jobs[0];

		CHECK_INT_EQ(a->n_alt_pools, 2);
		CHECK_INT_EQ(a->alt_pool[0], 0);
		CHECK_INT_EQ(a->alt_pool[1], 2);
		CHECK(ga_scn_job_factor(a, 1) == 1);
		CHECK(ga_scn_job_factor(a, 0) == 0.5);
		CHECK(ga_scn_job_factor(a, 2) == 3);
		CHECK_INT_EQ(scn->jobs[1].n_alt_pools, 0);
		CHECK(ga_scn_job_factor(&scn->jobs[1], 0) == 0);
		ga_scenario_destroy(scn);
	}
	tscn_remove(dir);
}

TEST(sim_pools_alt_pools_errors_name_the_rule)
{
	bad_alt("v100:2", "not in gpus.csv");
	bad_alt("a100:2", "names the job's pool");
	bad_alt("h100:0.5|h100:0.7", "twice");
	bad_alt("h100:0", "above 0 and at most 1000");
	bad_alt("h100:fast", "above 0 and at most 1000");
	bad_alt("h100:2000", "above 0 and at most 1000");
	bad_alt("h100", "pool:factor");
	bad_alt("|", "pool:factor");
}

/*
 * With the alternative both jobs start at once.  The baselines take the
 * pools in preference order: one on a100 for 2 hours, the other on h100
 * for 1 (8 GPU-hours times 0.5 on 4 GPUs).  The planners put both on h100,
 * where the same work is done sooner.  On the first pool only they run one
 * after the other on a100 (next test).  An h100 run is worth its work: 8
 * a100 GPU-hours, so every policy's value is 16.
 */
TEST(sim_pools_second_pool_runs_a_job_at_its_speed)
{
	const char *dir = tscn_write(settings, gpus, services, demand, two_jobs, NULL);

	for (int p = GA_POLICY_FIFO; p <= GA_POLICY_FULL; p++)
	{
		ga_sim_result *res = tscn_simulate(dir, (ga_policy) p, true);
		int			on_h100 = 0;

		if (res == NULL)
			continue;
		for (int j = 0; j < 2; j++)
		{
			const ga_sim_job_trace *tr = &res->jobs[j];

			CHECK_MSG(tr->start_step == 0, "%s: job %d starts at %d", ga_policy_name((ga_policy) p),
					  j, tr->start_step);
			if (tr->first_gpu < 8)
			{
				on_h100++;
				CHECK_INT_EQ(tr->end_step, 2);
			}
			else
				CHECK_INT_EQ(tr->end_step, 4);
		}
		CHECK_MSG(on_h100 == (p >= GA_POLICY_FAST ? 2 : 1), "%s: %d jobs on h100",
				  ga_policy_name((ga_policy) p), on_h100);
		CHECK_MSG(fabs(res->metrics.value - 16) < 1e-9, "%s: value %g",
				  ga_policy_name((ga_policy) p), res->metrics.value);
		ga_sim_result_destroy(res);
	}
	tscn_remove(dir);
}

TEST(sim_pools_first_pool_only_ignores_alternatives)
{
	const char *dir = tscn_write(settings, gpus, services, demand, two_jobs, NULL);
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);
	ga_sim_options opt;
	ga_sim_result *res = NULL;

	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn == NULL)
		return;
	ga_sim_options_default(&opt, GA_POLICY_FAST);
	opt.perfect = true;
	opt.first_pool_only = true;
	CHECK_MSG(ga_simulate(scn, &opt, &res, &err) == GA_OK, "%s", err.message);
	if (res != NULL)
	{
		CHECK(res->jobs[0].first_gpu >= 8 && res->jobs[1].first_gpu >= 8);
		CHECK_INT_EQ(res->jobs[0].start_step + res->jobs[1].start_step, 4);
		ga_sim_result_destroy(res);
	}
	ga_scenario_destroy(scn);
	tscn_remove(dir);
}
