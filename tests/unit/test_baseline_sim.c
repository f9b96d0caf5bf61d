/*
 * test_baseline_sim.c — the baselines' static daily reservation in the
 * simulator: with perfect knowledge, fifo and backfill leave no real-time
 * demand unserved whenever the services' daily peaks fit the GPUs of their
 * pool left open, on generated scenarios whose daily peaks change from day
 * to day, whose jobs run for up to two days, whose steps may straddle
 * midnight, and, in half of them, where a maintenance window or an advance
 * reservation closes the node the reservation would sit on for some hours.
 */
#include "unit.h"
#include "scenario_fixture.h"
#include "model/calendar.h"

#include <stdint.h>
#include <stdlib.h>

#define N_SCENARIOS 24

/* A private splitmix64 stream (never rand()), so every run draws the same. */
static uint64_t
draw(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static int
between(uint64_t *state, int lo, int hi)
{
	return lo + (int) (draw(state) % (uint64_t) (hi - lo + 1));
}

typedef struct gen_scn
{
	char	   *settings;
	char	   *gpus;
	char	   *services;
	char	   *demand;
	char	   *jobs;
	char	   *closed_name;	/* windows.csv or reservations.csv; NULL: none */
	char		closed[256];
} gen_scn;

/*
 * Services get shares of the pool summing to at most its size, and each day
 * a random peak within its share: the daily peaks always fit the pool.
 * Hourly demand is drawn below the day's peak, which one random hour
 * reaches.  Demand is written from a day before the window to two days
 * after it, so every horizon sees true demand.
 */
static void
write_demand(gen_scn *g, uint64_t *st, int n_services, const int *share,
			 int64_t start, int days)
{
	size_t		cap = (size_t) n_services * (days + 3) * 24 * 48 + 64;
	int			n;

	g->demand = malloc(cap);
	n = sprintf(g->demand, "service,ts,traffic\n");
	for (int s = 0; s < n_services; s++)
		for (int d = -1; d < days + 2; d++)
		{
			int			peak = between(st, 1, share[s]);
			int			peak_hour = between(st, 0, 23);
			int64_t		midnight = start - start % 1440 + (int64_t) d * 1440;

			for (int h = 0; h < 24; h++)
			{
				char		ts[32];
				int			q = h == peak_hour ? peak : between(st, 0, peak);

				ga_format_minutes(midnight + h * 60, ts, sizeof(ts));
				n += sprintf(g->demand + n, "s%d,%s,%d\n", s, ts, q * 100);
			}
		}
}

static void
write_jobs(gen_scn *g, uint64_t *st, int pool_gpus, int64_t start, int days)
{
	int			n_jobs = between(st, 8, 30);
	int			n;

	g->jobs = malloc((size_t) n_jobs * 160 + 128);
	n = sprintf(g->jobs, "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n");
	for (int j = 0; j < n_jobs; j++)
	{
		int			hi = 1 << between(st, 0, pool_gpus == 16 ? 3 : 2);
		int			lo = between(st, 0, 1) ? hi : (hi > 1 ? hi / 2 : 1);
		char		ts[32];

		ga_format_minutes(start + between(st, 0, days * 24 * 60 - 1), ts, sizeof(ts));
		n += sprintf(g->jobs + n,
					 "j%02d,training,h100,%d,%s,%d,%d,%d,strategy=lora;technique=sft;params_b=8;tokens_m=20\n",
					 j, 1 << between(st, 0, 2), ts, lo, hi, hi * between(st, 1, 48));
	}
}

static void
generate(int i, gen_scn *g)
{
	uint64_t	st = 7777 + (uint64_t) i;
	int			pool_gpus = between(&st, 0, 1) ? 16 : 8;
	int			n_services = between(&st, 1, 2);
	int			step = between(&st, 0, 1) ? 30 : 60;
	int			days = between(&st, 2, 3);
	/* a start at hh:10 puts midnight inside a step */
	int64_t		start = 29556000 + between(&st, 0, 23) * 60 + (between(&st, 0, 1) ? 10 : 0);
	int			share[2];
	char		from[32],
				to[32],
				from_ts[32],
				to_ts[32];

	/* half of the 16-GPU pools lose the high node for hours: shares fit the other */
	int			open_gpus = pool_gpus == 16 && between(&st, 0, 1) ? 8 : pool_gpus;

	share[0] = between(&st, 1, open_gpus - (n_services > 1 ? 1 : 0));
	share[1] = open_gpus - share[0];
	g->closed_name = NULL;
	if (open_gpus < pool_gpus)
	{
		int64_t		from = start + between(&st, 0, (days - 1) * 24) * 60;
		int			hours = between(&st, 2, 12);

		ga_format_minutes(from, from_ts, sizeof(from_ts));
		ga_format_minutes(from + hours * 60, to_ts, sizeof(to_ts));
		/* an advance reservation closes its cells to services as a window does */
		if (between(&st, 0, 1))
		{
			g->closed_name = "windows.csv";
			snprintf(g->closed, sizeof(g->closed), "pool,first_gpu,gpus,start,end\nh100,8,8,%s,%s\n",
					 from_ts, to_ts);
		}
		else
		{
			g->closed_name = "reservations.csv";
			snprintf(g->closed, sizeof(g->closed),
					 "tenant,pool,first_gpu,gpus,start,end\nvision,h100,8,8,%s,%s\n", from_ts, to_ts);
		}
	}
	ga_format_minutes(start, from, sizeof(from));
	ga_format_minutes(start + (int64_t) days * 1440, to, sizeof(to));
	g->settings = malloc(512);
	sprintf(g->settings, "key,value\nname,gen%d\nstart,%s\nend,%s\nstep_minutes,%d\n"
			"horizon_hours,%d\nreplan_minutes,%d\n", i, from, to, step,
			between(&st, 2, 24), step * between(&st, 1, 4));
	g->gpus = malloc(128);
	sprintf(g->gpus, "pool,node,gpus\nh100,n0,8\n%s", pool_gpus == 16 ? "h100,n1,8\n" : "");
	g->services = malloc(256);
	sprintf(g->services, "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
			"s0,h100,1,100,%d,0,%d\n%s", between(&st, 0, 4), pool_gpus,
			n_services > 1 ? "s1,h100,2,100,0,1,16\n" : "");
	write_demand(g, &st, n_services, share, start, days);
	write_jobs(g, &st, pool_gpus, start, days);
}

static void
gen_free(gen_scn *g)
{
	free(g->settings);
	free(g->gpus);
	free(g->services);
	free(g->demand);
	free(g->jobs);
}

TEST(property_baselines_serve_all_demand_with_perfect_knowledge)
{
	int			started = 0;
	int			closed = 0;

	for (int i = 0; i < N_SCENARIOS; i++)
	{
		gen_scn		g;
		const char *dir;

		generate(i, &g);
		dir = tscn_write(g.settings, g.gpus, g.services, g.demand, g.jobs, NULL);
		CHECK(dir != NULL);
		if (dir && g.closed_name)
		{
			tscn_add_file(dir, g.closed_name, g.closed);
			closed++;
		}
		for (int p = GA_POLICY_FIFO; p <= GA_POLICY_BACKFILL && dir; p++)
		{
			ga_sim_result *res = tscn_simulate(dir, (ga_policy) p, true);

			if (res == NULL)
				continue;
			CHECK_MSG(res->metrics.unmet_gpu_hours == 0 && res->metrics.coverage == 1,
					  "scenario %d, %s: %g GPU-hours unmet (coverage %g)", i,
					  ga_policy_name((ga_policy) p), res->metrics.unmet_gpu_hours,
					  res->metrics.coverage);
			for (int j = 0; j < res->n_jobs; j++)
				started += res->jobs[j].start_step >= 0;
			ga_sim_result_destroy(res);
		}
		if (dir)
			tscn_remove(dir);
		gen_free(&g);
	}
	/* the property is not met by running nothing: batch work does run */
	CHECK(started > 2 * N_SCENARIOS);
	/* and windows or reservations do close the reservation's node in some */
	CHECK(closed >= N_SCENARIOS / 6);
}

/*
 * With forecasts a day's reservation is fixed by the first plan of the day:
 * hourly re-plans see noisy demand and new forecasts all day, yet with no
 * job to displace it the service holds the same GPUs at every step of a
 * day.  The weekend's reservation is higher than Friday's.
 */
/* 2026-03-13 00:00, a Friday: the first moment of the windows below */
#define FRIDAY_MINUTE 29556000

/*
 * Service chat's hourly demand from three weeks before FRIDAY_MINUTE (time
 * for the forecasts to learn its pattern) to three days after:
 * traffic(minute, st) for each hour.  Freed by the caller.
 */
static char *
chat_demand(int (*traffic) (int64_t minute, uint64_t *st), uint64_t *st)
{
	char	   *demand = malloc(24 * 24 * 40 + 64);
	int			n = sprintf(demand, "service,ts,traffic\n");

	for (int h = -21 * 24; h < 3 * 24; h++)
	{
		char		ts[32];
		int64_t		minute = FRIDAY_MINUTE + (int64_t) h * 60;

		ga_format_minutes(minute, ts, sizeof(ts));
		n += sprintf(demand + n, "chat,%s,%d\n", ts, traffic(minute, st));
	}
	return demand;
}

/* busier at weekends: the window runs from a Friday to a Sunday */
static int
weekend_traffic(int64_t minute, uint64_t *st)
{
	return ga_day_of_week(minute) >= 5 ? 100 * between(st, 3, 6) : 100 * between(st, 1, 3);
}

TEST(baselines_fix_the_day_reservation_with_forecasts)
{
	uint64_t	st = 99;
	char	   *demand = chat_demand(weekend_traffic, &st);
	const char *dir;

	dir = tscn_write("key,value\nname,fixed\nstart,2026-03-13 00:00\nend,2026-03-16 00:00\n"
					 "step_minutes,30\nhorizon_hours,24\nreplan_minutes,60\n",
					 "pool,node,gpus\nh100,n0,8\n",
					 "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
					 "chat,h100,1,100,0,0,8\n", demand,
					 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n",
					 NULL);
	for (int p = GA_POLICY_FIFO; p <= GA_POLICY_BACKFILL && dir; p++)
	{
		ga_sim_result *res = tscn_simulate(dir, (ga_policy) p, false);
		const int  *alloc;

		if (res == NULL)
			continue;
		alloc = res->record->svc_alloc;
		for (int t = 1; t < 144; t++)
			if (t % 48 != 0)
				CHECK_MSG(alloc[t] == alloc[t - 1], "%s: step %d holds %d, step %d %d",
						  ga_policy_name((ga_policy) p), t, alloc[t], t - 1, alloc[t - 1]);
		CHECK(alloc[0] > 0);
		CHECK_MSG(alloc[48] > alloc[0], "Friday %d, Saturday %d", alloc[0], alloc[48]);
		ga_sim_result_destroy(res);
	}
	if (dir)
		tscn_remove(dir);
	free(demand);
}

/* 600 from 14:00 to 17:00 every day, 100 otherwise */
static int
afternoon_traffic(int64_t minute, uint64_t *st)
{
	int			hour = (int) ((minute % 1440) / 60);

	(void) st;
	return hour >= 14 && hour < 17 ? 600 : 100;
}

/*
 * A horizon shorter than the day does not shorten the day's reservation:
 * the first plan of the day, at midnight with a 6-hour horizon, sees none of
 * the afternoon's peak in its planned curve, yet an operator reserves the
 * day's forecast peak.  Three weeks of the same day teach the forecast the
 * afternoon; jobs submitted at midnight would take every GPU left.  Both
 * baselines then hold the peak from midnight and serve all of the demand.
 */
TEST(baselines_reserve_the_day_peak_past_a_short_horizon)
{
	char	   *demand = chat_demand(afternoon_traffic, NULL);
	const char *dir;

	dir = tscn_write("key,value\nname,short\nstart,2026-03-13 00:00\nend,2026-03-15 00:00\n"
					 "step_minutes,30\nhorizon_hours,6\nreplan_minutes,60\n",
					 "pool,node,gpus\nh100,n0,8\n",
					 "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
					 "chat,h100,1,100,0,0,8\n", demand,
					 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
					 "a,training,h100,1,2026-03-13 00:00,2,2,40,\n"
					 "b,training,h100,1,2026-03-13 00:00,2,2,40,\n"
					 "c,training,h100,1,2026-03-13 00:00,2,2,40,\n"
					 "d,training,h100,1,2026-03-13 00:00,2,2,40,\n",
					 NULL);
	for (int p = GA_POLICY_FIFO; p <= GA_POLICY_BACKFILL && dir; p++)
	{
		ga_sim_result *res = tscn_simulate(dir, (ga_policy) p, false);
		int			started = 0;

		if (res == NULL)
			continue;
		CHECK_MSG(res->metrics.coverage == 1, "%s: coverage %g, %g GPU-hours unmet",
				  ga_policy_name((ga_policy) p), res->metrics.coverage,
				  res->metrics.unmet_gpu_hours);
		CHECK_MSG(res->record->svc_alloc[0] >= 6, "%s: holds %d GPUs at midnight",
				  ga_policy_name((ga_policy) p), res->record->svc_alloc[0]);
		for (int j = 0; j < res->n_jobs; j++)
			started += res->jobs[j].start_step >= 0;
		/* the GPUs the reservation leaves do run jobs */
		CHECK(started >= 1);
		ga_sim_result_destroy(res);
	}
	if (dir)
		tscn_remove(dir);
	free(demand);
}
