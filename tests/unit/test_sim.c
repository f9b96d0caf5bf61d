/*
 * test_sim.c — the simulator on small scenarios with known outcomes, the
 * legality of every committed plan, overruns, and the oracle bound.
 */
#include "unit.h"
#include "scenario_fixture.h"
#include "sim/oracle.h"
#include "sim/sim.h"
#include "solve/solve.h"
#include "model/validate.h"

#include <stdlib.h>
#include <string.h>


static const char *settings_12h =
"key,value\nname,sim\nstart,2026-03-02 00:00\nend,2026-03-02 12:00\n"
"step_minutes,30\nhorizon_hours,6\nreplan_minutes,30\n";
static const char *gpus_8 = "pool,node,gpus\nh100,n0,8\n";
static const char *chat =
"service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
"chat,h100,1,100,2,0,8\n";

/* Hourly traffic from 2026-02-23: 100 at night, 200 from 08:00 to 20:00. */
static char *
daily_demand(void)
{
	char	   *buf = malloc(64 * 24 * 8 + 64);
	int			n = sprintf(buf, "service,ts,traffic\n");

	for (int d = 0; d < 8; d++)
		for (int h = 0; h < 24; h++)
			n += sprintf(buf + n, "chat,2026-%02d-%02d %02d:00,%d\n",
						 d < 6 ? 2 : 3, d < 6 ? 23 + d : d - 5, h,
						 h >= 8 && h < 20 ? 200 : 100);
	return buf;
}

ga_sim_result *
tscn_simulate(const char *dir, ga_policy policy, bool perfect)
{
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);
	ga_sim_options opt;
	ga_sim_result *res = NULL;

	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn == NULL)
		return NULL;
	ga_sim_options_default(&opt, policy);
	opt.perfect = perfect;
	opt.full_ms = 50;
	CHECK_MSG(ga_simulate(scn, &opt, &res, &err) == GA_OK, "%s: %s",
			  ga_policy_name(policy), err.message);
	ga_scenario_destroy(scn);
	return res;
}

/* No GPU ever runs two jobs at once in what really happened. */
static bool
no_double_booking(const ga_sim_result *res)
{
	for (int a = 0; a < res->n_jobs; a++)
		for (int b = a + 1; b < res->n_jobs; b++)
		{
			const ga_sim_job_trace *x = &res->jobs[a],
					   *y = &res->jobs[b];

			if (x->start_step < 0 || y->start_step < 0)
				continue;
			if (x->first_gpu < y->first_gpu + y->size && y->first_gpu < x->first_gpu + x->size &&
				x->start_step < y->end_step && y->start_step < x->end_step)
				return false;
		}
	return true;
}

TEST(sim_one_job_one_service_exact)
{
	char	   *demand = daily_demand();
	const char *dir = tscn_write(settings_12h, gpus_8, chat, demand,
								 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
								 "j1,training,h100,2,2026-03-02 00:10,4,4,8,strategy=lora;technique=sft;params_b=8;tokens_m=20\n",
								 NULL);

	for (int p = GA_POLICY_FIFO; p <= GA_POLICY_ORACLE; p++)
	{
		ga_sim_result *res = tscn_simulate(dir, (ga_policy) p, true);

		if (res == NULL)
			continue;
		/*
		 * 96 GPU-hours available; the job runs 4 GPUs x 2 h = 8; the service
		 * is served 1 GPU for 8 h and 2 GPUs for 4 h = 16.
		 */
		CHECK_NEAR(res->metrics.utilization, 24.0 / 96, 1e-9);
		CHECK_NEAR(res->metrics.value, 16, 1e-9);
		CHECK_NEAR(res->metrics.completed_jobs, 1, 1e-9);
		CHECK_NEAR(res->metrics.coverage, 1, 1e-9);
		if (p != GA_POLICY_ORACLE)
		{
			/* submitted 00:10, visible at 00:30, started then */
			CHECK_INT_EQ(res->jobs[0].start_step, 1);
			CHECK_INT_EQ(res->jobs[0].end_step, 5);
			CHECK_NEAR(res->metrics.wait_mean_h, 20.0 / 60, 1e-9);
			CHECK_INT_EQ(res->plans, 24);
		}
		ga_sim_result_destroy(res);
	}
	tscn_remove(dir);
	free(demand);
}

/*
 * The edges of the window under fifo with perfect knowledge.  chat holds
 * the peak of its day in reserve, 2 GPUs from the first step (the day's
 * rise at 08:00 is known, though beyond the 6-hour horizon), so no GPU
 * changes hands in the window (those it holds at its first step are not a
 * change).  "fits" runs 4 GPUs for exactly the 12 hours of the window and
 * completes at its end; "long" runs 2 GPUs for 16 hours, of which only the
 * 12 inside the window count.
 */
TEST(sim_counts_only_what_happens_inside_the_window)
{
	char	   *demand = daily_demand();
	const char *dir = tscn_write(settings_12h, gpus_8, chat, demand,
								 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
								 "fits,training,h100,1,2026-03-02 00:00,4,4,48,strategy=lora;technique=sft;params_b=8;tokens_m=20\n"
								 "long,training,h100,1,2026-03-02 00:00,2,2,32,strategy=lora;technique=sft;params_b=8;tokens_m=20\n",
								 NULL);
	ga_sim_result *res = tscn_simulate(dir, GA_POLICY_FIFO, true);

	if (res != NULL)
	{
		CHECK_INT_EQ(res->jobs[0].start_step, 0);
		CHECK_INT_EQ(res->jobs[0].end_step, 24);
		CHECK_INT_EQ(res->jobs[1].start_step, 0);
		CHECK_INT_EQ(res->jobs[1].end_step, 32);
		CHECK_NEAR(res->metrics.completed_jobs, 1, 0);
		CHECK_NEAR(res->metrics.completed_value, 48, 1e-9);
		CHECK_NEAR(res->metrics.value, 48 + 24, 1e-9);
		CHECK_NEAR(res->metrics.churn, 0, 0);
		CHECK_NEAR(res->metrics.coverage, 1, 1e-9);
		ga_sim_result_destroy(res);
	}
	tscn_remove(dir);
	free(demand);
}

TEST(sim_overrun_keeps_running_without_double_booking)
{
	char	   *demand = daily_demand();
	/* the features describe a few minutes of work; the truth is 3 hours */
	const char *dir = tscn_write(settings_12h, "pool,node,gpus\nh100,n0,4\n",
								 "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n",
								 "service,ts,traffic\n",
								 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
								 "long,training,h100,1,2026-03-02 00:00,4,4,12,strategy=lora;technique=sft;params_b=1;tokens_m=1\n"
								 "next,training,h100,1,2026-03-02 00:00,4,4,4,strategy=lora;technique=sft;params_b=1;tokens_m=1\n",
								 NULL);

	for (int p = GA_POLICY_FIFO; p <= GA_POLICY_FULL; p++)
	{
		ga_sim_result *res = tscn_simulate(dir, (ga_policy) p, false);

		if (res == NULL)
			continue;
		CHECK_MSG(res->overruns > 0, "%s saw no overrun", ga_policy_name((ga_policy) p));
		/* whichever starts first runs to its true end; the other follows */
		CHECK(no_double_booking(res));
		CHECK_INT_EQ(res->jobs[0].start_step + res->jobs[1].start_step, 0 + 6);
		CHECK_INT_EQ(res->jobs[0].end_step - res->jobs[0].start_step, 6);
		CHECK_INT_EQ(res->jobs[1].end_step - res->jobs[1].start_step, 2);
		CHECK_NEAR(res->metrics.completed_jobs, 2, 0);
		CHECK_NEAR(res->metrics.value, 16, 1e-9);
		ga_sim_result_destroy(res);
	}
	tscn_remove(dir);
	free(demand);
}

/* A random day: 16 GPUs, one service, a stream of jobs over 12 hours. */
static const char *
random_scenario(unsigned seed, char **demand, char **jobs)
{
	static const int sizes[] = {1, 2, 4, 8};
	static const char *const kinds[] = {
		"training,h100,%d,2026-03-02 %02d:%02d,%d,%d,%.1f,strategy=lora;technique=dpo;params_b=8;tokens_m=%d\n",
		"quantization,h100,%d,2026-03-02 %02d:%02d,%d,%d,%.1f,algorithm=awq;params_b=%d\n",
	};
	int			n;

	srand(seed);
	*demand = daily_demand();
	*jobs = malloc(16384);
	n = sprintf(*jobs, "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n");
	for (int j = 0; j < 16; j++)
	{
		int			hi = sizes[rand() % 4];
		int			lo = rand() % 2 ? hi : (hi > 1 ? hi / 2 : 1);
		int			prio = 1 << (rand() % 3);

		n += sprintf(*jobs + n, "j%02d,", j);
		n += sprintf(*jobs + n, kinds[j % 2], prio, rand() % 12, (rand() % 4) * 15, lo, hi,
					 1 + (rand() % 400) / 10.0, 5 + rand() % 60);
	}
	return tscn_write("key,value\nstart,2026-03-02 00:00\nend,2026-03-03 00:00\n"
					  "step_minutes,30\nhorizon_hours,12\nreplan_minutes,60\n",
					  "pool,node,gpus\nh100,n0,8\nh100,n1,8\n", chat, *demand, *jobs,
					  "job,kind,pool,gpus,features,actual_hours\n"
					  "h1,training,h100,2,strategy=lora;technique=dpo;params_b=8;tokens_m=30,3.5\n");
}

TEST(sim_oracle_bounds_every_policy_and_plans_are_legal)
{
	for (unsigned seed = 1; seed <= 6; seed++)
	{
		char	   *demand,
				   *jobs;
		const char *dir = random_scenario(seed, &demand, &jobs);
		ga_sim_result *oracle = tscn_simulate(dir, GA_POLICY_ORACLE, true);

		for (int k = 0; k < 2; k++)
			for (int p = GA_POLICY_FIFO; p <= GA_POLICY_FULL && oracle; p++)
			{
				ga_sim_result *res = tscn_simulate(dir, (ga_policy) p, k == 1);
				const ga_metrics *m,
						   *o = &oracle->metrics;

				if (res == NULL)
					continue;
				m = &res->metrics;
				/* the value bounds cover only runs that reach the coverage floor */
				if (m->coverage >= GA_ORACLE_COVERAGE_FLOOR)
				{
					CHECK_MSG(m->value <= o->value + 1e-6, "seed %u %s: value %g > bound %g",
							  seed, ga_policy_name((ga_policy) p), m->value, o->value);
					CHECK(m->completed_value <= o->completed_value + 1e-6);
					CHECK(m->completed_jobs <= o->completed_jobs + 1e-6);
				}
				CHECK(m->utilization <= o->utilization + 1e-9);
				CHECK(m->coverage <= o->coverage + 1e-9);
				CHECK(m->value > 0);
				CHECK(no_double_booking(res));
				if (p == GA_POLICY_FAST || p == GA_POLICY_FULL)
					CHECK_INT_EQ(res->plans_validated, res->plans);
				CHECK_INT_EQ(res->plans, 24);	/* hourly re-plans over a day */
				ga_sim_result_destroy(res);
			}
		ga_sim_result_destroy(oracle);
		tscn_remove(dir);
		free(demand);
		free(jobs);
	}
}

TEST(sim_allocator_beats_fifo_on_contended_day)
{
	char	   *demand,
			   *jobs;
	const char *dir = random_scenario(7, &demand, &jobs);
	ga_sim_result *fifo = tscn_simulate(dir, GA_POLICY_FIFO, true);
	ga_sim_result *fast = tscn_simulate(dir, GA_POLICY_FAST, true);

	/* a static peak reservation idles GPUs at night; fast lends them out */
	if (fifo && fast)
		CHECK(fast->metrics.utilization > fifo->metrics.utilization);
	ga_sim_result_destroy(fifo);
	ga_sim_result_destroy(fast);
	tscn_remove(dir);
	free(demand);
	free(jobs);
}

/*
 * demand.csv of service chat from 2026-02-22 to 2026-03-02 (a week of
 * history and the window's day): traffic 200 an hour, and afternoon from
 * 12:00 to 18:00.
 */
static void
afternoon_demand(char *demand, size_t size, int afternoon)
{
	snprintf(demand, size, "service,ts,traffic\n");
	for (int d = 0; d < 9; d++)
		for (int h = 0; h < 24; h++)
			snprintf(demand + strlen(demand), size - strlen(demand),
					 "chat,2026-%s-%02d %02d:00,%d\n", d < 7 ? "02" : "03", d < 7 ? 22 + d : d - 6, h,
					 h >= 12 && h < 18 ? afternoon : 200);
}

/*
 * A 4-hour horizon and an afternoon peak: the service needs 2 of 8 GPUs at
 * night and all 8 from 12:00 to 18:00.  At midnight a 4-GPU job of
 * priority 1 running 14 hours fits beside the night's demand, and against
 * the horizon's peak alone its run past the horizon looked free: fast
 * started it and the service went 4 GPUs short at noon.  With each
 * service's peak of the next 24 hours charged past the horizon
 * (ga_service.day_peak), fast serves all of the demand, with perfect
 * knowledge and with forecasts learnt from a week of the same days.
 */
TEST(sim_short_horizon_keeps_the_afternoon_peak)
{
	char		demand[16384];
	const char *dir;

	afternoon_demand(demand, sizeof(demand), 800);
	dir = tscn_write("key,value\nstart,2026-03-02 00:00\nend,2026-03-03 00:00\n"
					 "step_minutes,30\nhorizon_hours,4\nreplan_minutes,30\n",
					 "pool,node,gpus\nh100,n0,8\n",
					 "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
					 "chat,h100,1,100,8,0,8\n",
					 demand,
					 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
					 "long,other,h100,1,2026-03-02 00:00,4,4,56,\n",
					 /* so the estimate with forecasts is the job's 56 GPU-hours */
					 "kind,gpus,features,actual_hours\nother,4,,14\n");
	CHECK(dir != NULL);
	if (dir == NULL)
		return;
	for (int perfect = 1; perfect >= 0; perfect--)
	{
		ga_sim_result *res = tscn_simulate(dir, GA_POLICY_FAST, perfect);

		if (res == NULL)
			continue;
		CHECK_MSG(res->metrics.coverage > 1 - 1e-9, "%s: coverage %.4f",
				  perfect ? "perfect knowledge" : "forecasts", res->metrics.coverage);
		ga_sim_result_destroy(res);
	}
	tscn_remove(dir);
}

/*
 * A 4-hour horizon and a rise longer than it to ramp: the service needs 2
 * of 16 GPUs at night and 14 from 12:00 to 18:00, and may gain 1 GPU a
 * 30-minute step, so it must start growing at 06:00.  Forecast and shaped
 * over the horizon alone, the curve showed the rise only from 08:00, too
 * late by 4 GPUs at noon; shaped over the day, as the extension shapes it,
 * the plans ramp from 06:00 and the service is covered.
 */
TEST(sim_short_horizon_ramps_toward_a_rise_past_it)
{
	char		demand[16384];
	const char *dir;
	ga_sim_result *res;

	afternoon_demand(demand, sizeof(demand), 1400);
	dir = tscn_write("key,value\nstart,2026-03-02 00:00\nend,2026-03-03 00:00\n"
					 "step_minutes,30\nhorizon_hours,4\nreplan_minutes,30\n",
					 "pool,node,gpus\nh100,n0,8\nh100,n1,8\n",
					 "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
					 "chat,h100,1,100,1,0,16\n",
					 demand,
					 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n",
					 "kind,gpus,features,actual_hours\n");
	CHECK(dir != NULL);
	if (dir == NULL)
		return;
	res = tscn_simulate(dir, GA_POLICY_FAST, false);
	CHECK(res != NULL);
	if (res != NULL)
		CHECK_MSG(res->metrics.coverage > 1 - 1e-9, "coverage %.4f", res->metrics.coverage);
	ga_sim_result_destroy(res);
	tscn_remove(dir);
}

/*
 * The first re-plan's problem, as the benchmarks take it: the scenario's
 * GPUs, the jobs released by its first step only (j1 at 00:00, not j2 at
 * 05:00), the service with its forecast over the horizon (6 hours of
 * 30-minute steps); a fast plan of it is legal.  Only fast and full plan
 * such problems: a baseline is refused, naming the policy.
 */
TEST(sim_first_problem_is_the_first_replans)
{
	char	   *demand = daily_demand();
	const char *dir = tscn_write(settings_12h, gpus_8, chat, demand,
								 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
								 "j1,training,h100,2,2026-03-02 00:00,4,4,8,strategy=lora;technique=sft;params_b=8;tokens_m=20\n"
								 "j2,training,h100,2,2026-03-02 05:00,4,4,8,strategy=lora;technique=sft;params_b=8;tokens_m=20\n",
								 NULL);
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);
	ga_sim_options opt;
	ga_problem *p = NULL;

	CHECK_MSG(scn != NULL, "%s", scn ? "" : err.message);
	if (scn != NULL)
	{
		ga_plan    *plan = NULL;
		ga_solve_options fast = {0};

		ga_sim_options_default(&opt, GA_POLICY_BACKFILL);
		CHECK_INT_EQ(ga_sim_first_problem(scn, &opt, &p, &err), GA_EINVAL);
		CHECK(p == NULL);
		CHECK(strstr(err.message, "policy") != NULL);
		ga_sim_options_default(&opt, GA_POLICY_FULL);
		CHECK_MSG(ga_sim_first_problem(scn, &opt, &p, &err) == GA_OK, "%s", err.message);
		if (p != NULL)
		{
			CHECK_INT_EQ(p->n_gpus, 8);
			CHECK_INT_EQ(p->n_jobs, 1);
			CHECK_INT_EQ(p->n_services, 1);
			CHECK_INT_EQ(p->params.n_steps, 12);
			CHECK(p->services[0].demand[0] >= 1);
			CHECK_INT_EQ(ga_solve_fast(p, &fast, &plan, &err), GA_OK);
			CHECK(plan != NULL && ga_validate(p, plan, &err) == GA_OK);
		}
		ga_plan_destroy(plan);
		ga_problem_destroy(p);
		ga_scenario_destroy(scn);
	}
	tscn_remove(dir);
	free(demand);
}
