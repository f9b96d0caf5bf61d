/*
 * test_scenario_windows.c — windows.csv: read, checked row by row, mapped
 * onto a plan's steps, and kept clear by every policy in a simulated run,
 * whose window_violations counts what really ran inside a window.
 */
#include "unit.h"
#include "scenario_fixture.h"
#include "sim/metrics.h"
#include "sim/scenario.h"

#include <stdlib.h>

/* 8 GPUs, 8 hours; 4 one-GPU jobs of 3 hours queued at the start. */
static const char *settings =
"key,value\nname,win\nstart,2026-03-02 00:00\nend,2026-03-02 08:00\n"
"step_minutes,30\nhorizon_hours,4\n";
static const char *gpus = "pool,node,gpus\nh100,n0,4\nh100,n1,4\n";
static const char *services =
"service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
"chat,h100,2,100,1,1,2\n";
static const char *demand = "service,ts,traffic\nchat,2026-03-01 23:00,100\n";
static const char *jobs =
"job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
"a,quantization,h100,1,2026-03-02 00:00,2,2,6,\n"
"b,quantization,h100,1,2026-03-02 00:00,2,2,6,\n"
"c,quantization,h100,1,2026-03-02 00:00,2,2,6,\n"
"d,quantization,h100,1,2026-03-02 00:00,2,2,6,\n";

static const char *
write_with_windows(const char *windows)
{
	const char *dir = tscn_write(settings, gpus, services, demand, jobs, NULL);

	if (dir != NULL)
		tscn_add_file(dir, "windows.csv", windows);
	return dir;
}

TEST(scenario_reads_windows_and_maps_them_to_steps)
{
	const char *dir = write_with_windows("pool,first_gpu,gpus,start,end\n"
										 "h100,4,4,2026-03-02 01:10,2026-03-02 03:00\n"
										 "h100,0,8,2026-03-02 20:00,2026-03-02 21:00\n");
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);
	ga_window	w[2];

	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
	{
		CHECK_INT_EQ(scn->n_windows, 2);
		CHECK_INT_EQ(scn->windows[0].first_gpu, 4);
		/* from 00:30: 01:10 lies in step 1, 03:00 ends step 4 exactly */
		CHECK_INT_EQ(ga_scenario_windows_at(scn, scn->start + 30, w), 2);
		CHECK(w[0].pool == 0 && w[0].first_gpu == 4 && w[0].n_gpus == 4);
		CHECK_INT_EQ(w[0].start_step, 1);
		CHECK_INT_EQ(w[0].end_step, 5);
		CHECK_INT_EQ(w[1].start_step, 39);
		/* from 03:00 the first is over */
		CHECK_INT_EQ(ga_scenario_windows_at(scn, scn->start + 180, w), 1);
		CHECK(ga_scenario_closed(scn, -1, 5, scn->start + 60, scn->start + 90));
		CHECK(!ga_scenario_closed(scn, -1, 3, scn->start + 60, scn->start + 90));
		CHECK(!ga_scenario_closed(scn, -1, 5, scn->start + 180, scn->start + 210));
	}
	ga_scenario_destroy(scn);
	tscn_remove(dir);
}

static void
expect_window_error(const char *row, const char *want1, const char *want2)
{
	char		text[256];
	const char *dir;

	snprintf(text, sizeof(text), "pool,first_gpu,gpus,start,end\n%s\n", row);
	dir = write_with_windows(text);
	tscn_expect_read_error(dir, want1, want2);
	tscn_remove(dir);
}

TEST(scenario_window_errors_name_line_and_column)
{
	expect_window_error("a100,0,1,2026-03-02 01:00,2026-03-02 02:00",
						"windows.csv: line 2, column \"pool\"", "not a pool");
	expect_window_error("h100,8,1,2026-03-02 01:00,2026-03-02 02:00",
						"line 2, column \"first_gpu\"", "must be a GPU of the pool");
	expect_window_error("h100,-1,1,2026-03-02 01:00,2026-03-02 02:00",
						"line 2, column \"first_gpu\"", "must be a GPU of the pool");
	expect_window_error("h100,4,5,2026-03-02 01:00,2026-03-02 02:00",
						"line 2, column \"gpus\"", "end inside the pool");
	expect_window_error("h100,4,0,2026-03-02 01:00,2026-03-02 02:00",
						"line 2, column \"gpus\"", "at least 1");
	expect_window_error("h100,0,1,2026-03-02 02:00,2026-03-02 02:00",
						"line 2, column \"end\"", "must be after start");
	expect_window_error("h100,0,1,2026-03-02,2026-03-02 02:00",
						"line 2, column \"start\"", "YYYY-MM-DD HH:MM");
}

TEST(simulated_runs_keep_out_of_windows)
{
	/* node n1 closed 01:00-03:00, the whole pool 05:00-05:30 */
	const char *dir = write_with_windows("pool,first_gpu,gpus,start,end\n"
										 "h100,4,4,2026-03-02 01:00,2026-03-02 03:00\n"
										 "h100,0,8,2026-03-02 05:00,2026-03-02 05:30\n");

	for (int p = 0; p < GA_N_POLICIES; p++)
		for (int perfect = 0; perfect < 2; perfect++)
		{
			ga_sim_result *res;

			if (p == GA_POLICY_ORACLE)
				continue;
			res = tscn_simulate(dir, (ga_policy) p, perfect);
			if (res == NULL)
				continue;
			CHECK_MSG(res->metrics.window_violations == 0, "%s%s: %g GPU-steps inside windows",
					  ga_policy_name((ga_policy) p), perfect ? " (perfect)" : "",
					  res->metrics.window_violations);
			/*
			 * Knowing the true work (3 h), jobs still run around the windows
			 * (one at least: fast and full keep node n0's spare GPUs for the
			 * service while n1 is closed, the baselines' reservation does not).
			 * With estimates (no features: 8 GPU-hours guessed, 4 h on 2 GPUs,
			 * 6.4 h with the overrun margin) no run fits before 05:00, and
			 * jobs wait rather than risk it.
			 */
			if (perfect)
				CHECK_MSG(res->metrics.completed_jobs >= 1, "%s: %g jobs completed",
						  ga_policy_name((ga_policy) p), res->metrics.completed_jobs);
			ga_sim_result_destroy(res);
		}
	tscn_remove(dir);
}

TEST(metrics_count_work_inside_windows)
{
	ga_run_record *rec = ga_run_record_create(8, 4, 0, 0.5, 0);
	ga_metrics	m;
	ga_error	err;

	rec->window_busy[1] = 3;
	rec->window_busy[3] = 2;
	CHECK_INT_EQ(ga_metrics_compute(rec, &m, &err), GA_OK);
	CHECK_NEAR(m.window_violations, 5, 0);
	ga_run_record_destroy(rec);
}
