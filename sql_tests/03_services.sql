-- Real-time services and their demand: single rows and bulk loads.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

SELECT gpualloc.add_service('chat', 'a100', capacity_per_gpu => 50, max_gpus => 6,
	priority => 2, churn_limit => 2, min_gpus => 1) AS chat;
SELECT gpualloc.add_service('embed', 'h100', 400, 4, churn_budget => 10) AS embed;
SELECT name, priority, capacity_per_gpu, churn_limit, churn_budget, min_gpus, max_gpus FROM gpualloc.services ORDER BY service_id;

SELECT gpualloc.record_demand('chat', '2026-11-30 10:00+00', 120);
SELECT gpualloc.record_demand('chat', '2026-11-30 10:00+00', 130);           -- a correction replaces the row
INSERT INTO gpualloc.demand_staging
SELECT 'chat', h, 100 + 10 * extract(hour FROM h AT TIME ZONE 'UTC')
FROM generate_series('2026-11-30 11:00+00'::timestamptz, '2026-11-30 14:00+00', interval '1 hour') h;
INSERT INTO gpualloc.demand_staging VALUES ('embed', '2026-11-30 11:00+00', 900);
SELECT gpualloc.load_demand() AS loaded;
SELECT count(*) AS staged FROM gpualloc.demand_staging;
SELECT s.name, d.hour AT TIME ZONE 'UTC' AS hour, d.traffic FROM gpualloc.demand_history d JOIN gpualloc.services s USING (service_id) ORDER BY 1, 2;
-- any table with the three columns loads
CREATE TABLE my_demand (service text, hour timestamptz, traffic double precision);
INSERT INTO my_demand VALUES ('embed', '2026-11-30 12:00+00', 950);
SELECT gpualloc.load_demand('my_demand') AS loaded;
SELECT count(*) AS kept_in_source FROM my_demand;

-- bad input: each names the field and the rule, and changes nothing
SELECT gpualloc.add_service('chat', 'a100', 50, 4);                           -- duplicate service
SELECT gpualloc.add_service('vision', 'nope', 50, 4);                         -- unknown pool
SELECT gpualloc.add_service('vision', 'a100', 0, 4);                          -- zero capacity
SELECT gpualloc.add_service('vision', 'a100', 50, 40);                        -- more GPUs than the pool
SELECT gpualloc.add_service('vision', 'a100', 50, 4, min_gpus => 5);          -- min above max
SELECT gpualloc.add_service('vision', 'a100', 50, 4, churn_limit => 0);       -- churn limit below 1
SELECT gpualloc.add_service('vision', 'a100', 50, 4, churn_budget => -1);     -- negative budget
SELECT gpualloc.add_service('vision', 'a100', 50, 4, priority => 'NaN');      -- NaN priority
SELECT gpualloc.record_demand('nope', '2026-11-30 10:00+00', 1);              -- unknown service
SELECT gpualloc.record_demand('chat', '2026-11-30 10:30+00', 1);              -- hour not on the hour
SELECT gpualloc.record_demand('chat', '2026-11-30 10:00+00', -5);             -- negative traffic
SELECT gpualloc.record_demand('chat', '2026-11-30 10:00+00', 'NaN');          -- NaN traffic
INSERT INTO gpualloc.demand_staging VALUES ('chat', '2026-11-30 15:00+00', 10), ('chat', '2026-11-30 16:00+00', -1);
SELECT gpualloc.load_demand();                                                -- row 2 is bad: nothing loads
SELECT count(*) AS staged_still FROM gpualloc.demand_staging;
DELETE FROM gpualloc.demand_staging;
INSERT INTO gpualloc.demand_staging VALUES ('chat', '2026-11-30 15:00+00', 10), ('chat', '2026-11-30 15:00+00', 11);
SELECT gpualloc.load_demand();                                                -- duplicate hour
DELETE FROM gpualloc.demand_staging;
SELECT gpualloc.record_demand('chat', '1969-12-31 23:00+00', 5);              -- before 2000
SELECT gpualloc.record_demand('chat', '294276-01-01 00:00+00', 5);            -- far future
SELECT gpualloc.record_demand('chat', '2099-01-01 00:00+00', 5);             -- not begun yet
SELECT gpualloc.record_demand('chat', '2026-11-30 10:00+00', 1e308);          -- beyond 1e15
-- the current UTC hour is recorded whatever the session's time zone, one
-- whose hours begin at other minutes than UTC's included: 59 minutes behind
-- UTC, its current hour began up to an hour before the UTC hour did
SET TIME ZONE '<-0059>+00:59';
SELECT gpualloc.record_demand('chat', date_trunc('hour', now(), 'UTC'), 7);
SELECT count(*) AS current_hour_rows FROM gpualloc.demand_history WHERE hour = date_trunc('hour', now(), 'UTC');
DELETE FROM gpualloc.demand_history WHERE hour = date_trunc('hour', now(), 'UTC');
RESET TIME ZONE;
-- only plain tables are read, with the caller's rights
CREATE VIEW demand_view AS SELECT 'chat'::text AS service, '2026-11-30 10:00+00'::timestamptz AS hour, 1.0::float8 AS traffic;
SELECT gpualloc.load_demand('demand_view');                                   -- a view
SELECT gpualloc.load_demand('gpualloc.pools');                                -- no demand columns
SELECT gpualloc.load_demand(NULL);                                            -- no source
CREATE TABLE other_demand (service text, hour timestamptz, traffic float8);
INSERT INTO other_demand VALUES ('chat', '2026-11-30 13:00+00', 1e308);
SELECT gpualloc.load_demand('other_demand');                                  -- bad row from another table
SELECT count(*) AS demand_rows FROM gpualloc.demand_history;

SELECT gpualloc.remove_service('embed');
SELECT gpualloc.remove_service('embed');                                      -- already gone
SELECT name FROM gpualloc.services;
