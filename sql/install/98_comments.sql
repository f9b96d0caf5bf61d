-- What \dt+, \dv+ and \df+ say about each object: the catalogue explains
-- the extension.  (COMMENT is idempotent, so this file also runs in every
-- upgrade script.)

COMMENT ON SCHEMA gpualloc IS 'gpualloc: GPU cluster allocator (batch blocks and elastic real-time inference on a rolling horizon). The API: tables, views and functions.';
COMMENT ON SCHEMA gpualloc_internal IS 'gpualloc internals: the commit path, helpers and checks; usable by no role but the extension''s owner.';

-- Tables
COMMENT ON TABLE gpualloc.pools IS 'GPU pools: one GPU model each; a GPU''s topology index in its pool is node * node_size + slot.';
COMMENT ON COLUMN gpualloc.pools.node_size IS 'GPUs per node (a power of two, at most 1024): the stride of the topology index.';
COMMENT ON COLUMN gpualloc.pools.peak_tflops IS 'Peak dense TFLOP/s of one GPU, used by the duration estimators.';
COMMENT ON TABLE gpualloc.gpus IS 'Every GPU: its pool, node, slot and state (up, drain: nothing new lands, down: unusable).';
COMMENT ON TABLE gpualloc.tenants IS 'Roles registered to own jobs (add_tenant); members of a tenant''s role share its jobs.';
COMMENT ON COLUMN gpualloc.tenants.max_priority IS 'Highest priority the tenant''s jobs may ask for; NULL: gpualloc.max_priority.';
COMMENT ON TABLE gpualloc.jobs IS 'Batch jobs (training, batch inference, quantization): queued, booked, running, then succeeded, failed or cancelled. Row-level security shows a submitter its tenants'' jobs only.';
COMMENT ON COLUMN gpualloc.jobs.tenant IS 'The registered tenant (a role) that owns the job.';
COMMENT ON COLUMN gpualloc.jobs.priority IS 'Value per GPU-hour run; at most the tenant''s maximum.';
COMMENT ON COLUMN gpualloc.jobs.gpus_min IS 'Smallest block the job accepts (a power of two).';
COMMENT ON COLUMN gpualloc.jobs.gpus_max IS 'Largest block the job accepts (a power of two, at most the pool).';
COMMENT ON COLUMN gpualloc.jobs.not_before IS 'Earliest start; NULL: at submission.';
COMMENT ON COLUMN gpualloc.jobs.deadline IS 'The job must end by then or is not placed.';
COMMENT ON COLUMN gpualloc.jobs.features IS 'What the duration estimators read (model size, tokens, variant, ...): known keys, types and ranges, at most 64 kB.';
COMMENT ON COLUMN gpualloc.jobs.est_gpus IS 'Block size the estimate below is for.';
COMMENT ON COLUMN gpualloc.jobs.est_work_gpu_hours IS 'Work the planner books: GPU-hours, the same at every block size (duration = work / GPUs).';
COMMENT ON COLUMN gpualloc.jobs.est_method IS 'How the estimate was made ("submitted": the submitter''s work_gpu_hours).';
COMMENT ON COLUMN gpualloc.jobs.status IS 'queued, booked (given a block, not started), running, succeeded, failed or cancelled.';
COMMENT ON COLUMN gpualloc.jobs.block_first IS 'Running job: first topology index of its block.';
COMMENT ON COLUMN gpualloc.jobs.block_size IS 'Running job: GPUs of its block.';
COMMENT ON COLUMN gpualloc.jobs.status_message IS 'Why the job is in its state (a cancel reason, an executor''s message, a lost GPU, an expired booking).';
COMMENT ON COLUMN gpualloc.jobs.booked_at IS 'Booked job: when the allocation gave it its block.';
COMMENT ON COLUMN gpualloc.jobs.command IS 'The shell command line the executor runs; NULL: the executor knows.';
COMMENT ON COLUMN gpualloc.jobs.requeues IS 'Runs lost to a failed GPU (gpualloc.on_gpu_failure = requeue).';
COMMENT ON COLUMN gpualloc.jobs.lost_gpu_hours IS 'GPU-hours of the runs lost to failed GPUs.';
COMMENT ON COLUMN gpualloc.jobs.time_limit IS 'Hard limit on the run: past started_at + time_limit the job is stopped (failed) and its GPUs freed; the planner plans min(estimate, limit). NULL: none.';
COMMENT ON TABLE gpualloc.job_dependencies IS 'Jobs that wait for earlier jobs: placed only once each has ended (after_ok: succeeded; a failed or cancelled after_ok job cancels its queued dependents).';
COMMENT ON COLUMN gpualloc.job_dependencies.job_id IS 'The job that waits.';
COMMENT ON COLUMN gpualloc.job_dependencies.after_job_id IS 'The job it waits for, submitted before it.';
COMMENT ON COLUMN gpualloc.job_dependencies.kind IS 'after_ok: runs only if that job succeeded; after_any: runs however it ended.';
COMMENT ON FUNCTION gpualloc_internal.check_dependencies_met(bigint) IS 'Refuse to start a job while a job it waits for has not ended (after_ok: succeeded).';
COMMENT ON FUNCTION gpualloc_internal.cancel_unsatisfiable_dependents() IS 'Trigger: a failed or cancelled job cancels the queued jobs that wait for it with after_ok.';
COMMENT ON TRIGGER jobs_cancel_unsatisfiable_dependents ON gpualloc.jobs IS 'A failed or cancelled job cancels its queued after_ok dependents.';
COMMENT ON FUNCTION gpualloc_internal.stop_overdue_jobs() IS 'Stop running jobs past their time limit: failed, GPUs freed (NOTIFY reason time_limit).';
COMMENT ON TABLE gpualloc.services IS 'Real-time inference services: a demand curve in GPUs (traffic / capacity_per_gpu) the planner covers within a churn limit.';
COMMENT ON COLUMN gpualloc.services.capacity_per_gpu IS 'Traffic one GPU serves per hour, in the unit of demand_history.traffic.';
COMMENT ON COLUMN gpualloc.services.churn_limit IS 'GPUs the service may gain or hand over between two steps.';
COMMENT ON COLUMN gpualloc.services.churn_budget IS 'Total GPU handovers allowed over a plan''s horizon; NULL: no budget.';
COMMENT ON TABLE gpualloc.demand_history IS 'Hourly traffic per service, from 2000 to the current hour: what the demand forecaster learns from.';
COMMENT ON TABLE gpualloc.demand_staging IS 'Where bulk demand is copied before load_demand() checks and moves it.';
COMMENT ON TABLE gpualloc.plan_runs IS 'One row per planning run: mode, trigger, status, objective, bound, gap, solve time, message.';
COMMENT ON COLUMN gpualloc.plan_runs.bound IS 'Upper bound on every legal plan''s objective (full mode).';
COMMENT ON COLUMN gpualloc.plan_runs.gap IS '(bound - objective) / bound: how far the plan may be from optimal.';
COMMENT ON COLUMN gpualloc.plan_runs.n_gpus IS 'GPU numbers the planner used (existing GPUs and the holes of their aligned chunks).';
COMMENT ON TABLE gpualloc.plan_blocks IS 'Each plan''s grid as rectangles: a workload on GPUs [gpu_first, +gpu_count) of a pool over steps [step_first, +step_count).';
COMMENT ON TABLE gpualloc.allocation_commits IS 'The change log of the allocation: one row per change set, with its sequence number, commit moment and reason.';
COMMENT ON TABLE gpualloc.allocations IS 'The committed allocation: a GPU, a workload, a time range. Open rows (end_seq NULL) are in force; it changes only through the commit path.';
COMMENT ON COLUMN gpualloc.allocations.during IS 'When the row was in force; unbounded above while open.';
COMMENT ON COLUMN gpualloc.allocations.begin_seq IS 'The change set that began the row (0: history from before the change log).';
COMMENT ON COLUMN gpualloc.allocations.end_seq IS 'The change set that ended the row; NULL while it is in force.';

-- Views
COMMENT ON VIEW gpualloc.current_allocation IS 'Every GPU with the workload it holds now (NULL: idle) and the change set that began it.';
COMMENT ON VIEW gpualloc.queue IS 'Queued, booked and running jobs: running first, then booked, then queued, most valuable first; a booked job shows its block.';
COMMENT ON VIEW gpualloc.executor_work IS 'What an executor acts on: booked and running jobs with their command and the nodes and slots of their GPUs.';
COMMENT ON VIEW gpualloc.planner_status IS 'The background planner''s health: alive, last run and success, consecutive failures, last error, next run due, plan age.';
COMMENT ON VIEW gpualloc.queue_plan IS 'The queue against the latest plan: planned start and end, waiting time, deadline misses.';
COMMENT ON VIEW gpualloc.plan_history IS 'Planning runs with their solve time, objective, bound and gap.';
COMMENT ON VIEW gpualloc.utilization_hourly IS 'utilization() over all history.';
COMMENT ON VIEW gpualloc.tenant_value_hourly IS 'tenant_value() over all history.';
COMMENT ON VIEW gpualloc.service_coverage_hourly IS 'service_coverage() over all history.';
COMMENT ON VIEW gpualloc_internal.bookings IS 'The block each booked job holds in the allocation.';

-- API functions
COMMENT ON FUNCTION gpualloc.add_pool(text, text, double precision, double precision, integer) IS 'Admin: a new pool of one GPU model; returns its id.';
COMMENT ON FUNCTION gpualloc.remove_pool(text) IS 'Admin: remove a pool with no queued, booked or running job and no service.';
COMMENT ON FUNCTION gpualloc.add_gpu(text, integer, integer) IS 'Admin: one GPU at a node and slot; returns its id.';
COMMENT ON FUNCTION gpualloc.add_node(text, integer, integer) IS 'Admin: slots 0 .. gpus-1 of a node (all node_size slots by default).';
COMMENT ON FUNCTION gpualloc.remove_gpu(text, integer, integer) IS 'Admin: remove a GPU nothing is allocated on.';
COMMENT ON FUNCTION gpualloc.set_gpu_state(text, integer, integer, text) IS 'Admin: up, drain or down; down takes the GPU from its service, releases a booking on it, requeues or fails a job running on it, and wakes the planner.';
COMMENT ON FUNCTION gpualloc.drain_gpu(text, integer, integer) IS 'Admin: set_gpu_state(..., ''drain''): what runs finishes, nothing new lands.';
COMMENT ON FUNCTION gpualloc.add_service(text, text, double precision, integer, double precision, integer, integer, integer) IS 'Admin: a real-time service in a pool, with its capacity per GPU, size bounds and churn limit.';
COMMENT ON FUNCTION gpualloc.remove_service(text) IS 'Admin: remove a service; its GPUs are given back through the commit path.';
COMMENT ON FUNCTION gpualloc.record_demand(text, timestamptz, double precision) IS 'Admin: one hour of a service''s traffic (a second call for the hour corrects it).';
COMMENT ON FUNCTION gpualloc.record_demand_rows(text[], timestamptz[], double precision[]) IS 'Admin: hours of traffic given as three arrays; every row checked before any is written.';
COMMENT ON FUNCTION gpualloc.load_demand(regclass) IS 'Admin: bulk load (service, hour, traffic) from a plain or partitioned table, read with the caller''s rights.';
COMMENT ON FUNCTION gpualloc.add_tenant(name, double precision) IS 'Admin: register a role as a tenant, with an optional maximum priority.';
COMMENT ON FUNCTION gpualloc.set_tenant(name, double precision) IS 'Admin: change a tenant''s maximum priority (NULL: gpualloc.max_priority).';
COMMENT ON FUNCTION gpualloc.remove_tenant(name) IS 'Admin: unregister a tenant that owns no job.';
COMMENT ON FUNCTION gpualloc.submit_job(text, text, text, integer, integer, double precision, jsonb, name, timestamptz, timestamptz, double precision, text, bigint[], bigint[], interval, text[]) IS 'Submitter: queue a batch job for a tenant, optionally after other jobs (after_ok, after_any), with a hard time_limit, and on further pools of other GPU models (alt_pools, in preference order); booked at once when it waits for no job and a block is free for its whole run. Returns its id.';
COMMENT ON FUNCTION gpualloc.cancel_job(bigint, text) IS 'Submitter (own tenants) or admin: cancel a queued, booked or running job and free its GPUs now.';
COMMENT ON FUNCTION gpualloc.job_started(bigint, integer, integer, timestamptz) IS 'Executor: a booked job started on its booked block (or a queued one on a free block given here).';
COMMENT ON FUNCTION gpualloc.job_finished(bigint, boolean, timestamptz, text) IS 'Executor: a running job ended, succeeded or failed; its GPUs are freed.';
COMMENT ON FUNCTION gpualloc.job_rejected(bigint, text) IS 'Executor: a booked job could not be started; its booking is released and the planner asked to place it again.';
COMMENT ON FUNCTION gpualloc.estimate_job(text, jsonb, integer, text) IS 'A job''s duration (p10, p50, p90), work and suggested GPUs from its features, corrected by finished jobs of its kind.';
COMMENT ON FUNCTION gpualloc.forecast_demand(text, timestamptz, interval) IS 'A service''s demand forecast per step from its history before "from": traffic p50 and upper, GPUs upper and as planned (churn-shaped).';
COMMENT ON FUNCTION gpualloc.replan(text, interval) IS 'Admin: plan the horizon now (fast: the heuristic; full: the MILP within time_limit) and commit its first step.';
COMMENT ON FUNCTION gpualloc.request_replan() IS 'Ask the background planner for a run soon (debounced); returns whether one runs to hear it.';
COMMENT ON FUNCTION gpualloc.plan_grid(bigint) IS 'A plan as a grid: every GPU and step with its workload.';
COMMENT ON FUNCTION gpualloc.plan_svg(bigint, text) IS 'A plan as an SVG Gantt chart, coloured by job kind or tenant; committed blocks solid, tentative ones hatched, unplanned jobs listed with their reason.';
COMMENT ON FUNCTION gpualloc.utilization(timestamptz, timestamptz) IS 'Per hour and pool: GPU-hours available, busy with batch work, serving real-time demand, held above it, idle.';
COMMENT ON FUNCTION gpualloc.tenant_value(timestamptz, timestamptz) IS 'Per hour and tenant: jobs, GPU-hours and priority-weighted value.';
COMMENT ON FUNCTION gpualloc.service_coverage(timestamptz, timestamptz) IS 'Per hour and service: demanded, held, served and unmet GPU-hours, and coverage.';
COMMENT ON FUNCTION gpualloc.allocation_seq() IS 'The sequence number of the last committed change set of the allocation (0: none).';
COMMENT ON FUNCTION gpualloc.allocation_changes(bigint) IS 'Every allocation row that began or ended after since_seq, in sequence order: how a consumer catches up.';
COMMENT ON FUNCTION gpualloc.check_integrity() IS 'Everything that should never be (open rows of ended jobs, jobs off their block, rows on down GPUs, expired bookings, ...); no row when healthy.';
COMMENT ON FUNCTION gpualloc.caller_role() IS 'The role that called the API, seen through SECURITY DEFINER.';

-- Internals
COMMENT ON FUNCTION gpualloc_internal.commit_lock() IS 'Take the commit lock (READ COMMITTED only), before any job row is locked.';
COMMENT ON FUNCTION gpualloc_internal.allocations_set(integer[], bigint[], integer[], text, bigint) IS 'The one commit path: set each listed GPU''s open row to a workload at the commit moment, as one change set, and NOTIFY.';
COMMENT ON FUNCTION gpualloc_internal.commit_plan_step(bigint, integer[], bigint[], integer[], bigint[]) IS 'Write a plan''s step 0 around whatever changed while it was solved.';
COMMENT ON FUNCTION gpualloc_internal.release_job(bigint, text) IS 'End every open row of a job.';
COMMENT ON FUNCTION gpualloc_internal.expire_bookings() IS 'Release bookings not started within gpualloc.booking_timeout.';
COMMENT ON FUNCTION gpualloc_internal.gpu_failed(integer) IS 'A GPU went down: end its service row, release a booking on it, requeue or fail the job running on it.';
COMMENT ON FUNCTION gpualloc_internal.purge_plans() IS 'Delete plan runs older than gpualloc.plan_retention with their blocks, never the latest successful plan.';
COMMENT ON FUNCTION gpualloc_internal.refresh_estimates() IS 'Queued jobs'' estimates from what finished jobs taught the estimators.';
COMMENT ON FUNCTION gpualloc.planner_next_run() IS 'When the background planner means to run next (NULL: it does not run).';
COMMENT ON FUNCTION gpualloc_internal.wake_on_gpu_state() IS 'Trigger: a GPU changing state asks the planner for a run.';
COMMENT ON FUNCTION gpualloc_internal.wake_on_job_end() IS 'Trigger: a job ending before its estimate asks the planner for a run.';
COMMENT ON FUNCTION gpualloc_internal.plan_blocks_of_deleted() IS 'Trigger: the blocks of deleted plan runs or pools go with them (plan_blocks has no foreign keys).';
COMMENT ON FUNCTION gpualloc_internal.dashboard_window(timestamptz, timestamptz) IS 'The window a dashboard function reads: no earlier than the first recorded data, no later than now.';
COMMENT ON FUNCTION gpualloc_internal.allocation_hours(timestamptz, timestamptz) IS 'Allocation rows cut into their pieces per hour inside a window.';
COMMENT ON FUNCTION gpualloc_internal.service_hours(timestamptz, timestamptz) IS 'Per service and hour: demand and GPUs held inside a window.';
COMMENT ON FUNCTION gpualloc_internal.allocated_block(bigint) IS 'The block a job holds in the allocation.';
COMMENT ON FUNCTION gpualloc_internal.check_block(gpualloc.jobs, integer, integer) IS 'A block a job may start on: aligned, of its sizes, every GPU present, not down, free of other workloads.';
COMMENT ON FUNCTION gpualloc_internal.check_demand_row(text, timestamptz, double precision, text) IS 'One row of demand: a known service, an hour from 2000 to now, traffic from 0 to 1e15.';
COMMENT ON FUNCTION gpualloc_internal.check_features(text, jsonb) IS 'A job''s features: known keys, types and ranges of its kind, at most 64 kB.';
COMMENT ON FUNCTION gpualloc_internal.check_max_priority(double precision) IS 'A tenant''s maximum priority: in (0, 1e6].';
COMMENT ON FUNCTION gpualloc_internal.check_name(text, text) IS 'A name: 1 to 63 letters, digits, "_", ".", ":" or "-".';
COMMENT ON FUNCTION gpualloc_internal.check_positive(text, double precision) IS 'A positive finite number.';
COMMENT ON FUNCTION gpualloc_internal.check_pow2(text, integer) IS 'A power of two.';
COMMENT ON FUNCTION gpualloc_internal.check_reason(text, text) IS 'A reason or message of at most 1000 bytes.';
COMMENT ON FUNCTION gpualloc_internal.check_tenant_role(name) IS 'A role that may be a tenant: it exists and is not a gpualloc_* or pg_* role.';
COMMENT ON FUNCTION gpualloc_internal.can_act_for(name) IS 'Whether the caller is an admin or a member of the tenant''s role.';
COMMENT ON FUNCTION gpualloc_internal.is_admin() IS 'Whether the caller is a member of gpualloc_admin or a superuser.';
COMMENT ON FUNCTION gpualloc_internal.is_executor() IS 'Whether the caller is an admin or a member of gpualloc_executor.';
COMMENT ON FUNCTION gpualloc_internal.require_admin(text) IS 'Refuse a caller that is not an admin.';
COMMENT ON FUNCTION gpualloc_internal.require_executor(text) IS 'Refuse a caller that is neither an executor nor an admin.';
COMMENT ON FUNCTION gpualloc_internal.job_for_update(bigint, boolean) IS 'Lock a job the caller may act on; another tenant''s is reported missing.';
COMMENT ON FUNCTION gpualloc_internal.gpu(text, integer, integer) IS 'A GPU by pool, node and slot, or an error naming it.';
COMMENT ON FUNCTION gpualloc_internal.pool(text) IS 'A pool by name, or an error naming it.';
COMMENT ON FUNCTION gpualloc_internal.service(text) IS 'A service by name, or an error naming it.';
COMMENT ON FUNCTION gpualloc_internal.pool_capacity(integer) IS 'GPUs of a pool that are not down.';
COMMENT ON FUNCTION gpualloc_internal.setting(text, text) IS 'A gpualloc setting, or its default before the library is loaded in the session.';

COMMENT ON TABLE gpualloc.maintenance_windows IS 'Maintenance windows: a GPU range of a pool (topology indexes; gpus NULL: to the pool''s end) closed from starts_at to ends_at. No new work is placed there, and no job whose estimated run would reach into it starts there.';
COMMENT ON FUNCTION gpualloc_internal.pool_index_limit(gpualloc.pools) IS 'The largest topology index a pool can have (node 65535, its last slot).';
COMMENT ON FUNCTION gpualloc.add_maintenance_window(text, timestamptz, timestamptz, integer, integer, text) IS 'Close GPUs first_gpu .. first_gpu + gpus - 1 of a pool (gpus NULL: to its end) from starts_at to ends_at (admin); returns the window id.';
COMMENT ON FUNCTION gpualloc.remove_maintenance_window(integer) IS 'Drop a maintenance window (admin): its GPUs are open again.';
COMMENT ON VIEW gpualloc.maintenance_schedule IS 'Every maintenance window: pool, GPU range, GPUs it closes, times, state (scheduled, in progress, over) and reason.';

-- Jobs of several GPU models.
COMMENT ON COLUMN gpualloc.jobs.requested_pool_id IS 'The job''s first-choice pool while it is booked or running on one of its alternative pools (pool_id then names the pool it is on); NULL while pool_id is its first choice.';
COMMENT ON TABLE gpualloc.job_pools IS 'Pools a job may also run on after its first, in preference order, each with its estimated work there (submit_job''s alt_pools).';
COMMENT ON COLUMN gpualloc.job_pools.job_id IS 'The job.';
COMMENT ON COLUMN gpualloc.job_pools.pool_id IS 'A further pool the job may run on, never its first.';
COMMENT ON COLUMN gpualloc.job_pools.preference IS 'Its rank after the first pool: 1, 2 or 3.';
COMMENT ON COLUMN gpualloc.job_pools.est_work_gpu_hours IS 'The job''s estimated work on this pool in its GPU-hours: the estimator''s on this pool''s GPU model, or the submitted work_gpu_hours scaled by the two GPU models'' peak throughput.';
COMMENT ON COLUMN gpualloc.job_pools.est_method IS 'How est_work_gpu_hours was found: the estimator''s method, or submitted_scaled.';
