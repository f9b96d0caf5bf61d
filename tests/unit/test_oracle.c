/*
 * test_oracle.c — the oracle against an optimum found by enumeration, and
 * against every policy on random scenarios of other shapes than test_sim.c
 * (a pool whose size is not a power of two, two services).
 */
#include "unit.h"
#include "scenario_fixture.h"
#include "../../src/core/sim.h"

#include <stdio.h>
#include <stdlib.h>



/*
 * Two whole-pool jobs of 16 steps in a 24-step window: A (priority 1) from
 * step 0, B (priority 5) from step 2.  Every pair of non-overlapping starts
 * (or no start) is tried; the best value, utilisation and completions are
 * the exact optimum of any schedule, which the oracle must reach and should
 * not exceed by much.  The old preemptive bound was 352 value and 1.5
 * completed jobs here: A could fill steps 0-1 and 18-23 around B.
 */
TEST(oracle_tiny_exact_optimum_by_enumeration)
{
	const char *dir = tscn_write("key,value\nstart,2026-03-02 00:00\nend,2026-03-02 12:00\n"
								 "step_minutes,30\nhorizon_hours,6\nreplan_minutes,30\n",
								 "pool,node,gpus\nh100,n0,8\n",
								 "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n",
								 "service,ts,traffic\n",
								 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
								 "A,training,h100,1,2026-03-02 00:00,8,8,64,strategy=lora;technique=sft;params_b=8;tokens_m=20\n"
								 "B,training,h100,5,2026-03-02 01:00,8,8,64,strategy=lora;technique=sft;params_b=8;tokens_m=20\n",
								 NULL);
	const int	T = 24,
				d = 16,
				rel[2] = {0, 2};
	const double prio[2] = {1, 5};
	double		best_value = 0,
				best_busy = 0,
				best_done = 0;
	ga_sim_result *oracle = tscn_simulate(dir, GA_POLICY_ORACLE, true);

	/* start -1 means never started */
	for (int a = -1; a < T; a++)
		for (int b = -1; b < T; b++)
		{
			int			s[2] = {a, b};
			double		value = 0,
						busy = 0,
						done = 0;

			if ((a >= 0 && a < rel[0]) || (b >= 0 && b < rel[1]))
				continue;
			if (a >= 0 && b >= 0 && a < b + d && b < a + d)
				continue;		/* both need the whole pool */
			for (int j = 0; j < 2; j++)
			{
				int			run;

				if (s[j] < 0)
					continue;
				run = (s[j] + d < T ? s[j] + d : T) - s[j];
				value += prio[j] * 8 * run * 0.5;
				busy += 8.0 * run;
				done += s[j] + d <= T;
			}
			best_value = value > best_value ? value : best_value;
			best_busy = busy > best_busy ? busy : best_busy;
			best_done = done > best_done ? done : best_done;
		}
	CHECK_NEAR(best_value, 344, 1e-9);	/* B at step 2, A after it */
	CHECK_NEAR(best_done, 1, 1e-9);
	if (oracle != NULL)
	{
		const ga_metrics *o = &oracle->metrics;

		CHECK(o->is_bound);
		CHECK_MSG(o->value >= best_value - 1e-6, "value bound %g < optimum %g",
				  o->value, best_value);
		CHECK_MSG(o->value <= best_value * 1.02, "value bound %g is loose", o->value);
		CHECK(o->utilization >= best_busy / (8.0 * T) - 1e-9);
		CHECK_NEAR(o->completed_jobs, best_done, 0);
		CHECK(o->completed_value >= 5 * 8 * d * 0.5 - 1e-6);
		CHECK(o->completed_value <= 5 * 8 * d * 0.5 * 1.02);
	}
	ga_sim_result_destroy(oracle);
	tscn_remove(dir);
}

/* Hourly traffic of two services over 9 days from 2026-02-23. */
static char *
two_service_demand(unsigned seed)
{
	char	   *buf = malloc(2 * 9 * 24 * 48 + 64);
	int			n = sprintf(buf, "service,ts,traffic\n");

	for (int d = 0; d < 9; d++)
		for (int h = 0; h < 24; h++)
		{
			int			month = d < 6 ? 2 : 3;
			int			day = d < 6 ? 23 + d : d - 5;

			n += sprintf(buf + n, "chat,2026-%02d-%02d %02d:00,%u\n", month, day, h,
						 h >= 9 && h < 18 ? 250 + (seed * 37 + h * 11) % 100 : 80);
			n += sprintf(buf + n, "embed,2026-%02d-%02d %02d:00,%u\n", month, day, h,
						 40 + (seed * 13 + h * 7) % 60);
		}
	return buf;
}

/* 12 GPUs (8 + 4), two services, 20 jobs of sizes 1-8 over a day. */
static const char *
odd_pool_scenario(unsigned seed, char **demand, char **jobs)
{
	static const int sizes[] = {1, 2, 4, 8};
	int			n;

	srand(seed);
	*demand = two_service_demand(seed);
	*jobs = malloc(16384);
	n = sprintf(*jobs, "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n");
	for (int j = 0; j < 20; j++)
	{
		int			hi = sizes[rand() % 4];
		int			lo = rand() % 3 == 0 ? 1 : hi;

		n += sprintf(*jobs + n,
					 "o%02d,training,h100,%d,2026-03-02 %02d:%02d,%d,%d,%.1f,"
					 "strategy=lora;technique=sft;params_b=8;tokens_m=%d\n",
					 j, 1 + rand() % 5, rand() % 16, (rand() % 4) * 15, lo, hi,
					 0.5 + (rand() % 300) / 10.0, 5 + rand() % 60);
	}
	return tscn_write("key,value\nstart,2026-03-02 00:00\nend,2026-03-03 00:00\n"
					  "step_minutes,30\nhorizon_hours,12\nreplan_minutes,60\n",
					  "pool,node,gpus\nh100,n0,8\nh100,n1,4\n",
					  "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
					  "chat,h100,2,100,2,0,6\nembed,h100,1,50,1,0,2\n",
					  *demand, *jobs,
					  "job,kind,pool,gpus,features,actual_hours\n"
					  "h1,training,h100,2,strategy=lora;technique=sft;params_b=8;tokens_m=30,3.5\n");
}

/* The oracle bounds every metric it bounds, for every policy and mode. */
static void
check_bounds(unsigned seed, const ga_metrics *o, const ga_metrics *m, ga_policy p,
			 bool perfect)
{
	const char *name = ga_policy_name(p);

	CHECK_MSG(m->value <= o->value + 1e-6, "seed %u %s/%d: value %g > %g",
			  seed, name, perfect, m->value, o->value);
	CHECK_MSG(m->utilization <= o->utilization + 1e-9, "seed %u %s/%d: util %g > %g",
			  seed, name, perfect, m->utilization, o->utilization);
	CHECK_MSG(m->completed_value <= o->completed_value + 1e-6,
			  "seed %u %s/%d: completed value %g > %g",
			  seed, name, perfect, m->completed_value, o->completed_value);
	CHECK_MSG(m->completed_jobs <= o->completed_jobs + 1e-9,
			  "seed %u %s/%d: completed jobs %g > %g",
			  seed, name, perfect, m->completed_jobs, o->completed_jobs);
	CHECK(m->coverage <= o->coverage + 1e-9);
	CHECK(m->unmet_gpu_hours >= o->unmet_gpu_hours - 1e-6);
}

TEST(oracle_bounds_every_policy_on_an_odd_pool_with_two_services)
{
	for (unsigned seed = 1; seed <= 5; seed++)
	{
		char	   *demand,
				   *jobs;
		const char *dir = odd_pool_scenario(seed, &demand, &jobs);
		ga_sim_result *oracle = tscn_simulate(dir, GA_POLICY_ORACLE, true);

		for (int k = 0; k < 2 && oracle; k++)
			for (int p = GA_POLICY_FIFO; p <= GA_POLICY_FULL; p++)
			{
				ga_sim_result *res = tscn_simulate(dir, (ga_policy) p, k == 1);

				if (res == NULL)
					continue;
				check_bounds(seed, &oracle->metrics, &res->metrics, (ga_policy) p, k == 1);
				ga_sim_result_destroy(res);
			}
		ga_sim_result_destroy(oracle);
		tscn_remove(dir);
		free(demand);
		free(jobs);
	}
}
