-- Pools and GPUs: the happy path and every rule the cluster API enforces.
\set SHOW_CONTEXT never
-- gpualloc lives in its own schema, CASCADE or not
CREATE SCHEMA other;
CREATE EXTENSION gpualloc SCHEMA other;
CREATE EXTENSION gpualloc SCHEMA other CASCADE;
SELECT count(*) AS extensions_in_other FROM pg_extension WHERE extnamespace = 'other'::regnamespace;
DROP SCHEMA other;
CREATE EXTENSION gpualloc;
SHOW search_path;                 -- the install script's own path ends with it
SET client_min_messages = warning;

SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312) AS pool_id;
SELECT gpualloc.add_pool('h100', 'H100-SXM', 80, 989, node_size => 4) AS pool_id;
SELECT gpualloc.add_node('a100', 0);
SELECT gpualloc.add_node('a100', 1, 4);
SELECT gpualloc.add_gpu('a100', 1, 4);
SELECT gpualloc.add_node('h100', 0);
SELECT pool, node, slot, gpu_index, state, workload_kind FROM gpualloc.current_allocation ORDER BY pool, gpu_index;

SELECT gpualloc.drain_gpu('a100', 1, 4);
SELECT gpualloc.set_gpu_state('a100', 1, 3, 'down');
SELECT gpualloc.set_gpu_state('a100', 1, 3, 'up');
SELECT node, slot, state FROM gpualloc.gpus JOIN gpualloc.pools USING (pool_id) WHERE name = 'a100' AND node = 1 ORDER BY slot;
SELECT gpualloc.remove_gpu('a100', 1, 4);
SELECT count(*) AS a100_gpus FROM gpualloc.gpus JOIN gpualloc.pools USING (pool_id) WHERE name = 'a100';

-- bad input: each names the field and the rule, and changes nothing
SELECT gpualloc.add_pool('a100', 'A100', 80, 312);                 -- duplicate pool
SELECT gpualloc.add_pool('bad name!', 'A100', 80, 312);            -- invalid name
SELECT gpualloc.add_pool('', 'A100', 80, 312);                     -- empty name
SELECT gpualloc.add_pool('l40s', 'L40S', -48, 362);                -- negative memory
SELECT gpualloc.add_pool('l40s', 'L40S', 'NaN', 362);              -- NaN memory
SELECT gpualloc.add_pool('l40s', 'L40S', 48, 'Infinity');          -- infinite TFLOPS
SELECT gpualloc.add_pool('l40s', 'L40S', 48, 362, node_size => 6); -- node size not a power of two
SELECT gpualloc.add_node('nope', 0);                               -- unknown pool
SELECT gpualloc.add_node('a100', 2, 9);                            -- more GPUs than a node has
SELECT gpualloc.add_gpu('a100', 0, 0);                             -- duplicate GPU
SELECT gpualloc.add_gpu('a100', -1, 0);                            -- negative node
SELECT gpualloc.add_gpu('a100', 3, 8);                             -- slot outside the node
SELECT gpualloc.set_gpu_state('a100', 0, 0, 'broken');             -- unknown state
SELECT gpualloc.drain_gpu('a100', 7, 0);                           -- unknown GPU
SELECT count(*) AS pools FROM gpualloc.pools;
SELECT count(*) AS gpus FROM gpualloc.gpus;

-- a pool goes only when nothing depends on it
SELECT gpualloc.add_pool('spare', 'T4', 16, 65, node_size => 2);
SELECT gpualloc.add_node('spare', 0);
SELECT gpualloc.remove_pool('spare');
SELECT gpualloc.remove_pool('spare');                              -- already gone
SELECT name FROM gpualloc.pools ORDER BY pool_id;
