/*
 * test_scenario.c — reading scenario directories, and the fixture the
 * simulator tests use to write small scenarios to a temporary directory.
 */
#include "unit.h"
#include "scenario_fixture.h"
#include "sim/scenario.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

/* Shared with test_sim.c and test_baseline.c. */

static char tscn_dir[8][64];
static int	tscn_next;

void
tscn_add_file(const char *dir, const char *name, const char *text)
{
	char		path[256];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return;
	fputs(text, f);
	fclose(f);
}

const char *
tscn_write(const char *settings, const char *gpus, const char *services,
		   const char *demand, const char *jobs, const char *history)
{
	char	   *dir = tscn_dir[tscn_next++ % 8];

	snprintf(dir, 64, "/tmp/gpualloc-scn-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return NULL;
	tscn_add_file(dir, "scenario.csv", settings);
	tscn_add_file(dir, "gpus.csv", gpus);
	tscn_add_file(dir, "services.csv", services);
	tscn_add_file(dir, "demand.csv", demand);
	tscn_add_file(dir, "jobs.csv", jobs);
	if (history)
		tscn_add_file(dir, "history.csv", history);
	return dir;
}

/* Every file a test added (tscn_add_file), then the directory. */
void
tscn_remove(const char *dir)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;
	char		path[512];

	while (d != NULL && (e = readdir(d)) != NULL)
	{
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d != NULL)
		closedir(d);
	rmdir(dir);
}

static const char *settings =
"key,value\nname,unit\nstart,2026-03-02 00:00\nend,2026-03-02 04:00\n"
"step_minutes,30\nhorizon_hours,2\n";
static const char *gpus = "pool,node,gpus,extra\nh100,n0,8,x\nh100,n1,8,y\na100,m0,4,z\n";
static const char *services =
"service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
"chat,h100,2,100,0,1,64\n";
static const char *demand =
"service,ts,traffic\nchat,2026-03-01 23:00,50\nchat,2026-03-02 00:00,250\n";
static const char *jobs =
"job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,note\n"
"late,training,a100,1,2026-03-02 01:10,1,2,3,strategy=lora;technique=sft;params_b=8;tokens_m=10,\n"
"early,quantization,h100,\"2\",2026-03-02 00:00,2,4,6.5,,\"a, quoted\"\n";

TEST(scenario_reads_every_file)
{
	const char *dir = tscn_write(settings, gpus, services, demand, jobs, NULL);
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);

	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn == NULL)
		return;
	CHECK(strcmp(scn->name, "unit") == 0);
	CHECK_INT_EQ(scn->end - scn->start, 240);
	CHECK_INT_EQ(scn->replan_minutes, 30);	/* default */
	CHECK_NEAR(scn->penalty, 8, 0);
	CHECK_INT_EQ(ga_scenario_steps(scn), 8);
	CHECK_INT_EQ(scn->n_pools, 2);
	CHECK_INT_EQ(scn->pools[0].n_gpus, 16);
	CHECK_INT_EQ(scn->pools[1].first_gpu, 16);
	CHECK_INT_EQ(scn->n_gpus, 20);
	CHECK_INT_EQ(scn->services[0].churn_limit, 16);	/* 0 = no limit */
	CHECK_INT_EQ(scn->services[0].max_gpus, 16);	/* capped at the pool */
	CHECK_INT_EQ(scn->services[0].n_demand, 2);
	/* arrival order, not file order */
	CHECK(strcmp(scn->jobs[0].name, "early") == 0);
	CHECK(strcmp(scn->jobs[1].name, "late") == 0);
	CHECK_INT_EQ(scn->jobs[1].features->n, 4);
	CHECK_INT_EQ(scn->jobs[0].features->n, 0);
	CHECK_INT_EQ(scn->n_history, 0);
	/* 250 traffic at 100 per GPU = 3 GPUs; before the first row nothing */
	CHECK_INT_EQ(ga_scenario_true_demand(scn, 0, scn->start), 3);
	CHECK_INT_EQ(ga_scenario_true_demand(scn, 0, scn->start - 60), 1);
	CHECK_INT_EQ(ga_scenario_true_demand(scn, 0, scn->start - 120), 0);
	/* a half-hour step takes its hour; later hours repeat the last row */
	CHECK_INT_EQ(ga_scenario_true_demand(scn, 0, scn->start - 30), 1);
	CHECK_INT_EQ(ga_scenario_true_demand(scn, 0, scn->start + 600), 3);
	ga_scenario_destroy(scn);
	tscn_remove(dir);
}

void
tscn_expect_read_error(const char *dir, const char *want1, const char *want2)
{
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);

	CHECK(scn == NULL);
	if (scn == NULL)
	{
		CHECK_STR_CONTAINS(err.message, want1);
		CHECK_STR_CONTAINS(err.message, want2);
	}
	ga_scenario_destroy(scn);
}

static void
expect_error(const char *s, const char *g, const char *sv, const char *d,
			 const char *j, const char *h, const char *want1, const char *want2)
{
	const char *dir = tscn_write(s, g, sv, d, j, h);

	tscn_expect_read_error(dir, want1, want2);
	tscn_remove(dir);
}

TEST(scenario_errors_name_file_line_and_column)
{
	expect_error(settings, gpus, services, demand,
				 "job,kind,pool,priority,submit,gpus_min,gpus_max,features\n",
				 NULL, "jobs.csv: line 1", "missing column \"work_gpu_hours\"");
	expect_error(settings, gpus, services, demand,
				 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
				 "a,training,h100,1,2026-03-02 00:00,1,1,2,\n"
				 "b,training,h100,high,2026-03-02 00:00,1,1,2,\n",
				 NULL, "jobs.csv: line 3, column \"priority\"", "\"high\" is not a finite number");
	expect_error(settings, gpus, services, demand,
				 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
				 "a,training,h100,1,2026-03-02 00:00,3,4,2,\n",
				 NULL, "line 2, column \"gpus_min\"", "power of two");
	expect_error(settings, gpus, services, "service,ts,traffic\nchat,2026-03-02 00:00,5\nmail,2026-03-02 01:00,5\n",
				 jobs, NULL, "demand.csv: line 3, column \"service\"", "not a service");
	expect_error(settings, gpus, services, "service,ts,traffic\nchat,2026-03-02 00:30,5\n",
				 jobs, NULL, "demand.csv: line 2, column \"ts\"", "whole hour");
	expect_error(settings, gpus, services, "service,ts,traffic\nchat,2026-03-02 02:00,5\nchat,2026-03-02 01:00,5\n",
				 jobs, NULL, "demand.csv: line 3", "time order");
	expect_error(settings, gpus, services, demand,
				 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
				 "a,training,v100,1,2026-03-02 00:00,1,1,2,\n",
				 NULL, "jobs.csv: line 2, column \"pool\"", "not a pool");
	expect_error("key,value\nstart,2026-03-02 00:00\n", gpus, services, demand, jobs, NULL,
				 "scenario.csv", "\"end\" is required");
	expect_error("key,value\nstart,2026-03-02\nend,2026-03-03 00:00\n", gpus, services, demand, jobs, NULL,
				 "scenario.csv: line 2, column \"value\"", "YYYY-MM-DD HH:MM");
	/* a plan's horizon holds at most GA_MAX_STEPS steps: 168 h of 1 min is 10,080 */
	expect_error("key,value\nstart,2026-03-02 00:00\nend,2026-03-02 04:00\nstep_minutes,1\nhorizon_hours,168\n",
				 gpus, services, demand, jobs, NULL,
				 "horizon_hours 168 at step_minutes 1 makes 10080 steps a plan", "at most 10000");
	expect_error(settings, "pool,node,gpus\nh100,n0,8\na100,m0,4\nh100,n1,8\n", services, demand, jobs, NULL,
				 "gpus.csv: line 4", "consecutive");
	expect_error(settings, gpus, services, demand,
				 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
				 "a,training,h100,1,2026-03-02 00:00,4,2,2,\n",
				 NULL, "line 2, column \"gpus_max\"", "at least gpus_min");
	expect_error(settings, gpus, services, demand, jobs,
				 "job,kind,pool,gpus,features,actual_hours\nh,training,h100,2,params_b=8,-1\n",
				 "history.csv: line 2, column \"actual_hours\"", "must be positive");
	expect_error(settings, gpus, services, demand,
				 "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
				 "a,training,h100,1,2026-03-02 00:00,1,1,2,\"unterminated\n",
				 NULL, "jobs.csv: line 2", "unterminated");
}

TEST(scenario_missing_directory_is_an_error)
{
	ga_error	err;

	CHECK(ga_scenario_read("/nonexistent/gpualloc", &err) == NULL);
	CHECK_STR_CONTAINS(err.message, "/nonexistent/gpualloc/scenario.csv");
}

/* The longest horizon a plan may hold is read and simulated: 166 h of 1 min, 9,960 steps. */
TEST(scenario_horizon_of_most_steps_is_planned)
{
	const char *dir = tscn_write("key,value\nstart,2026-03-02 00:00\nend,2026-03-02 01:00\n"
								 "step_minutes,1\nhorizon_hours,166\nreplan_minutes,60\n",
								 gpus, services, demand, jobs, NULL);
	ga_sim_result *res = tscn_simulate(dir, GA_POLICY_FAST, true);

	if (res != NULL)
		CHECK(res->metrics.coverage > 0);
	ga_sim_result_destroy(res);
	tscn_remove(dir);
}
