/*
 * test_scenario_reservations.c — the tenant column of jobs.csv and
 * reservations.csv: read, checked row by row, mapped onto a plan's steps,
 * honoured by every policy in a simulated run (window_violations counts
 * other tenants' work inside a reservation), and the reservation start
 * delay.
 */
#include "unit.h"
#include "scenario_fixture.h"
#include "sim/metrics.h"
#include "sim/scenario.h"

#include <stdlib.h>

/* 8 GPUs, 8 hours; two tenants' 4-GPU jobs of 1 hour queued at the start. */
static const char *settings =
"key,value\nname,resv\nstart,2026-03-02 00:00\nend,2026-03-02 08:00\n"
"step_minutes,30\nhorizon_hours,4\n";
static const char *gpus = "pool,node,gpus\nh100,n0,4\nh100,n1,4\n";
static const char *services =
"service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
"chat,h100,2,100,1,1,2\n";
static const char *demand = "service,ts,traffic\nchat,2026-03-01 23:00,100\n";
static const char *jobs =
"job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,tenant\n"
"a,quantization,h100,1,2026-03-02 00:00,4,4,4,,vision\n"
"b,quantization,h100,3,2026-03-02 00:00,4,4,4,,speech\n"
"c,quantization,h100,3,2026-03-02 00:00,4,4,4,,speech\n"
"d,quantization,h100,3,2026-03-02 00:00,4,4,4,,\n";

static const char *
write_with(const char *name, const char *text)
{
	const char *dir = tscn_write(settings, gpus, services, demand, jobs, NULL);

	if (dir != NULL)
		tscn_add_file(dir, name, text);
	return dir;
}

/* node n0 held for vision from 01:00 to 05:00 */
static const char *one_reservation =
"tenant,pool,first_gpu,gpus,start,end\n"
"vision,h100,0,4,2026-03-02 01:00,2026-03-02 05:00\n";

TEST(scenario_reads_tenants_and_reservations)
{
	const char *dir = write_with("reservations.csv", one_reservation);
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);
	ga_advance_reservation r[1];

	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
	{
		int			vision = scn->reservations[0].tenant;

		CHECK_INT_EQ(scn->n_tenants, 2);
		CHECK_INT_EQ(scn->n_reservations, 1);
		CHECK(strcmp(scn->tenants[vision], "vision") == 0);
		for (int j = 0; j < scn->n_jobs; j++)
			CHECK(strcmp(scn->jobs[j].name, "a") == 0 ? scn->jobs[j].tenant == vision :
				  strcmp(scn->jobs[j].name, "d") == 0 ? scn->jobs[j].tenant == -1 :
				  scn->jobs[j].tenant >= 0 && scn->jobs[j].tenant != vision);
		/* from 00:30: steps 1..8 */
		CHECK_INT_EQ(ga_scenario_reservations_at(scn, scn->start + 30, r), 1);
		CHECK(r[0].tenant == vision && r[0].cells.first_gpu == 0 && r[0].cells.n_gpus == 4 &&
			  r[0].cells.start_step == 1 && r[0].cells.end_step == 9);
		CHECK(ga_scenario_closed(scn, -1, 2, scn->start + 60, scn->start + 90));
		CHECK(!ga_scenario_closed(scn, vision, 2, scn->start + 60, scn->start + 90));
		CHECK(!ga_scenario_closed(scn, -1, 5, scn->start + 60, scn->start + 90));
		CHECK_INT_EQ(ga_scenario_reservations_at(scn, scn->start + 300, r), 0);
	}
	ga_scenario_destroy(scn);
	tscn_remove(dir);
}

static void
expect_reservation_error(const char *row, const char *want1, const char *want2)
{
	char		text[256];
	const char *dir;

	snprintf(text, sizeof(text), "tenant,pool,first_gpu,gpus,start,end\n%s\n", row);
	dir = write_with("reservations.csv", text);
	tscn_expect_read_error(dir, want1, want2);
	tscn_remove(dir);
}

TEST(scenario_reservation_errors_name_line_and_column)
{
	expect_reservation_error(",h100,0,1,2026-03-02 01:00,2026-03-02 02:00",
							 "reservations.csv: line 2, column \"tenant\"", "");
	expect_reservation_error("vision,a100,0,1,2026-03-02 01:00,2026-03-02 02:00",
							 "reservations.csv: line 2, column \"pool\"", "not a pool");
	expect_reservation_error("vision,h100,4,5,2026-03-02 01:00,2026-03-02 02:00",
							 "line 2, column \"gpus\"", "end inside the pool");
	expect_reservation_error("vision,h100,0,1,2026-03-02 02:00,2026-03-02 01:00",
							 "line 2, column \"end\"", "must be after start");
}

TEST(simulated_runs_honour_reservations)
{
	const char *dir = write_with("reservations.csv", one_reservation);

	for (int p = 0; p < GA_N_POLICIES; p++)
		for (int perfect = 0; perfect < 2; perfect++)
		{
			ga_sim_result *res;

			if (p == GA_POLICY_ORACLE)
				continue;
			res = tscn_simulate(dir, (ga_policy) p, perfect);
			if (res == NULL)
				continue;
			CHECK_MSG(res->metrics.window_violations == 0, "%s%s: %g GPU-steps inside another's reservation",
					  ga_policy_name((ga_policy) p), perfect ? " (perfect)" : "",
					  res->metrics.window_violations);
			/*
			 * Knowing the true work, the planners keep n0 for a (vision,
			 * the lowest priority), which waits for the reservation and
			 * starts as it opens; with estimates it runs before.
			 */
			if (p == GA_POLICY_FAST || p == GA_POLICY_FULL)
				CHECK_MSG(res->metrics.reservation_start_delay_steps <= 1 &&
						  (!perfect || res->record->reservation_delay >= 0),
						  "%s%s: delay %d steps", ga_policy_name((ga_policy) p),
						  perfect ? " (perfect)" : "", res->record->reservation_delay);
			ga_sim_result_destroy(res);
		}
	tscn_remove(dir);
}

TEST(metrics_report_the_reservation_delay)
{
	ga_run_record *rec = ga_run_record_create(8, 4, 0, 0.5, 0);
	ga_metrics	m;
	ga_error	err;

	CHECK_INT_EQ(rec->reservation_delay, -1);
	CHECK_INT_EQ(ga_metrics_compute(rec, &m, &err), GA_OK);
	CHECK_NEAR(m.reservation_start_delay_steps, 0, 0);
	rec->reservation_delay = 3;
	CHECK_INT_EQ(ga_metrics_compute(rec, &m, &err), GA_OK);
	CHECK_NEAR(m.reservation_start_delay_steps, 3, 0);
	ga_run_record_destroy(rec);
}
