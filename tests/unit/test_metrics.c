/*
 * test_metrics.c — the metrics (docs/model.md, Metrics) on records checked by hand.
 */
#include "unit.h"
#include "sim/metrics.h"

TEST(metrics_hand_checked_record)
{
	/* 4 GPUs, 2 steps of 1 h, one service */
	ga_run_record *rec = ga_run_record_create(4, 2, 1, 1.0, 3);
	ga_metrics	m;
	ga_error	err;

	rec->batch_gpus[0] = 2;
	rec->batch_gpus[1] = 1;
	/* step 0: 2 GPUs held for a demand of 1 (one idle); step 1: 1 held, 3 demanded */
	rec->svc_alloc[0] = 2;
	rec->svc_demand[0] = 1;
	rec->svc_alloc[1] = 1;
	rec->svc_demand[1] = 3;
	rec->svc_churn[1] = 1;
	rec->jobs[0] = (ga_job_outcome) {.priority = 2, .wait_hours = 0, .started = true, .completed = true, .gpu_hours = 2};
	rec->jobs[1] = (ga_job_outcome) {.priority = 2, .wait_hours = 4, .started = true, .completed = false, .gpu_hours = 1};
	rec->jobs[2] = (ga_job_outcome) {.priority = 1, .wait_hours = 6, .started = false};
	CHECK_INT_EQ(ga_run_record_add_solve(rec, 3.0, &err), GA_OK);
	CHECK_INT_EQ(ga_run_record_add_solve(rec, 1.0, &err), GA_OK);
	CHECK_INT_EQ(ga_metrics_compute(rec, &m, &err), GA_OK);
	/* busy: batch 3 + served min(2,1) + min(1,3) = 5 of 8 GPU-hours */
	CHECK_NEAR(m.utilization, 5.0 / 8, 1e-12);
	CHECK_NEAR(m.coverage, 2.0 / 4, 1e-12);
	CHECK_NEAR(m.unmet_gpu_hours, 2, 1e-12);
	CHECK_NEAR(m.churn, 1, 0);
	CHECK_NEAR(m.value, 2 * 2 + 2 * 1, 1e-12);
	CHECK_NEAR(m.completed_value, 4, 1e-12);
	CHECK_NEAR(m.completed_jobs, 1, 0);
	CHECK_NEAR(m.wait_mean_h, 10.0 / 3, 1e-12);
	/* p95 of {0, 4, 6} by interpolation: 4 + 0.9 * 2 */
	CHECK_NEAR(m.wait_p95_h, 5.8, 1e-12);
	CHECK_INT_EQ(m.n_classes, 2);
	CHECK_NEAR(m.classes[0].priority, 2, 0);
	CHECK_INT_EQ(m.classes[0].jobs, 2);
	CHECK_NEAR(m.classes[0].mean_hours, 2, 1e-12);
	CHECK_NEAR(m.classes[1].mean_hours, 6, 1e-12);
	CHECK_NEAR(m.solve_p50_ms, 2, 1e-12);
	CHECK_NEAR(m.solve_p99_ms, 2.98, 1e-12);
	ga_run_record_destroy(rec);
}

TEST(metrics_empty_record)
{
	ga_run_record *rec = ga_run_record_create(2, 3, 0, 0.5, 0);
	ga_metrics	m;
	ga_error	err;

	CHECK_INT_EQ(ga_metrics_compute(rec, &m, &err), GA_OK);
	CHECK_NEAR(m.utilization, 0, 0);
	CHECK_NEAR(m.coverage, 1, 0);	/* nothing demanded, nothing missed */
	CHECK(isnan(m.wait_mean_h));
	CHECK(isnan(m.solve_p50_ms));
	CHECK_INT_EQ(m.n_classes, 0);
	ga_run_record_destroy(rec);
}

TEST(metrics_count_hours_not_steps)
{
	/* 2 GPUs, 3 steps of half an hour, one service short of 2 GPUs each step */
	ga_run_record *rec = ga_run_record_create(2, 3, 1, 0.5, 0);
	ga_metrics	m;
	ga_error	err;

	for (int t = 0; t < 3; t++)
	{
		rec->svc_alloc[t] = 1;
		rec->svc_demand[t] = 3;
	}
	CHECK_INT_EQ(ga_metrics_compute(rec, &m, &err), GA_OK);
	/* 6 GPU-steps unmet are 3 GPU-hours */
	CHECK_NEAR(m.unmet_gpu_hours, 3, 1e-12);
	CHECK_NEAR(m.coverage, 1.0 / 3, 1e-12);
	CHECK_NEAR(m.utilization, 3.0 / 6, 1e-12);
	ga_run_record_destroy(rec);
}
