# gpualloc — PGXS build of the extension, plus the core's unit tests, tools
# and the two user-facing commands: `make demo` and `make test`.

EXTENSION    = gpualloc
EXTVERSION   = 0.2
MODULE_big   = gpualloc
# Releases: each version's install script is built from sql/install/; a
# released version's script is kept as it shipped (sql/gpualloc--0.1.sql),
# and each upgrade script is its migration in sql/upgrade/ followed by the
# code of the new version (every file of sql/install/ but the tables).
DATA         = sql/gpualloc--0.1.sql
DATA_built   = sql/gpualloc--$(EXTVERSION).sql sql/gpualloc--0.1--0.2.sql
SQL_SRCS     = $(sort $(wildcard sql/install/*.sql))
SQL_CODE     = $(filter-out sql/install/01_schema.sql,$(SQL_SRCS))
PGFILEDESC   = "gpualloc - GPU cluster allocator"

CORE_SRCS    = $(sort $(wildcard src/core/*/*.c))
PG_SRCS      = $(sort $(wildcard src/pg/*.c))
OBJS         = $(CORE_SRCS:.c=.o) $(PG_SRCS:.c=.o)
CORE_HDRS    = $(wildcard src/core/*/*.h)

# pg_regress reads INPUTDIR/sql and INPUTDIR/expected: build/regress maps
# those two names onto sql_tests/ and expected/ (sql/ holds the extension's
# install and upgrade scripts).
REGRESS      = $(basename $(notdir $(sort $(wildcard sql_tests/*.sql))))
# UTF8 and the C locale whatever the environment: with LANG unset (a bare
# system) the temporary server would be SQL_ASCII, and psql would pad
# non-ASCII output by its bytes rather than its characters
REGRESS_OPTS = --inputdir=build/regress --temp-instance=./tmp_check --temp-config=./test.conf --load-extension=btree_gist \
               --encoding=UTF8 --no-locale
REGRESS_PREP = build/regress
ISOLATION    = $(basename $(notdir $(sort $(wildcard specs/*.spec))))
ISOLATION_OPTS = --temp-instance=./tmp_check_iso --temp-config=./test.conf --encoding=UTF8 --no-locale
TAP_TESTS    = 1

SHLIB_LINK  += -lglpk -lm
PG_CPPFLAGS += -Isrc/core -DGPUALLOC_EXTVERSION='"$(EXTVERSION)"'
PG_CFLAGS   += -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers

# The core is plain C11: its objects get the strict standard and may declare
# variables where they are first used.
src/core/%.o: CFLAGS += -std=c11 -Wno-declaration-after-statement

# Debian's server-dev wants clang for LLVM bitcode; we do not ship any.
override with_llvm = no

# pg_config may not be installed yet (make deps installs it), so PGXS is only
# included when it is there; the targets below that need it say so.
PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
endif

# Every object depends on every header: cheap to rebuild, never stale.
$(OBJS): $(CORE_HDRS) $(wildcard src/pg/*.h)

# The install script is assembled from sql/install/ in file-name order.
sql/gpualloc--$(EXTVERSION).sql: $(SQL_SRCS)
	cat $(SQL_SRCS) > $@

sql/gpualloc--0.1--0.2.sql: sql/upgrade/0.1--0.2.sql $(SQL_CODE)
	cat $^ > $@

# ---------------------------------------------------------------------------
# Core unit tests and tools: built straight from the core sources, without
# PostgreSQL, with the same warnings as the extension.
BUILD_DIR    = build
CORE_CC      = $(or $(CC),cc)
CORE_FLAGS   = -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Isrc/core
CORE_LIBS    = -lglpk -lm
UNIT_SRCS    = $(sort $(wildcard tests/unit/*.c))

$(BUILD_DIR)/unit_tests: $(UNIT_SRCS) $(CORE_SRCS) $(CORE_HDRS) tests/unit/unit.h
	@mkdir -p $(BUILD_DIR)
	$(CORE_CC) $(CORE_FLAGS) -o $@ $(UNIT_SRCS) $(CORE_SRCS) $(CORE_LIBS)

# The same tests built with AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer, any report fatal: the "unit-san" suite of make
# test.  Built with the C compiler the unit tests use (gcc on Debian brings
# libasan and libubsan with it), so make test needs no clang.  gcc leaves an
# out-of-range float-to-int conversion out of "undefined" (clang does not),
# so it is asked for by name.
SAN_CC       = $(CORE_CC)
SAN_FLAGS    = -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Isrc/core \
               -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all

$(BUILD_DIR)/unit_tests_san: $(UNIT_SRCS) $(CORE_SRCS) $(CORE_HDRS) tests/unit/unit.h
	@mkdir -p $(BUILD_DIR)
	$(SAN_CC) $(SAN_FLAGS) -o $@ $(UNIT_SRCS) $(CORE_SRCS) $(CORE_LIBS)

$(BUILD_DIR)/%: tools/%.c $(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(BUILD_DIR)
	$(CORE_CC) $(CORE_FLAGS) -o $@ $< $(CORE_SRCS) $(CORE_LIBS)

# The forecast benchmark is three files: demand, durations, and the report.
BENCH_FORECAST_SRCS = tools/bench_forecast.c tools/bench_demand.c tools/bench_durations.c tools/json_text.c
$(BUILD_DIR)/bench_forecast: $(BENCH_FORECAST_SRCS) tools/bench_forecast.h tools/json_text.h $(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(BUILD_DIR)
	$(CORE_CC) $(CORE_FLAGS) -Itools -o $@ $(BENCH_FORECAST_SRCS) $(CORE_SRCS) $(CORE_LIBS)

build/regress:
	@mkdir -p $@
	@ln -sfn ../../sql_tests $@/sql
	@ln -sfn ../../expected $@/expected

.PHONY: deps unit unit-san test demo tools bench-solver bench-forecast mutation mutation-sql

deps:
	@sh tools/install-deps.sh

unit: $(BUILD_DIR)/unit_tests
	./$(BUILD_DIR)/unit_tests

unit-san: $(BUILD_DIR)/unit_tests_san
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		./$(BUILD_DIR)/unit_tests_san

test:
	@sh tools/run-tests.sh

# The high-availability test alone (t/020_ha.pl, also part of make test):
# Patroni and etcd on loopback, the leader killed under load; writes
# bench/results/ha.json.
.PHONY: test-ha
test-ha:
	@sh tools/test-ha.sh

# Each mutant of tests/mutation/mutants.txt against make unit, in a scratch
# copy of the tree; ends with "mutation score: K/N killed (P%)".
mutation:
	@bash tools/mutation.sh

# The mutants marked "sql: yes" against pg_regress, the isolation specs and
# the TAP files they name, each installed into the system PostgreSQL under
# /tmp/gpualloc-pg.lock (taken per mutant; do not wrap this in it); the
# unmutated build is installed again before the lock is let go.  Ends with
# "sql mutation score: K/N killed (P%)".
mutation-sql:
	@bash tools/mutation.sh --sql

demo:
	@sh tools/demo.sh

bench-solver: $(BUILD_DIR)/bench_solver
	./$(BUILD_DIR)/bench_solver --out bench/results/solver.json

# FORECAST_DATA: the directory of series to backtest (data/real/README.md
# gives the formats: any Philly traces, any <name>_hourly.csv).
FORECAST_DATA ?= data/real

bench-forecast: $(BUILD_DIR)/bench_forecast
	./$(BUILD_DIR)/bench_forecast --data $(FORECAST_DATA) --out bench/results/forecast.json

# make tools: the simulator (at tools/gpualloc-sim, the path its usage
# names), the reference executor and the command-line client.
tools: tools/gpualloc-sim tools/gpualloc-executor tools/gpualloc

# The reference executor: plain C11 over libpq, none of the core.
PQ_INCLUDEDIR = $(shell $(PG_CONFIG) --includedir 2>/dev/null)
tools/gpualloc-executor: tools/gpualloc-executor.c
	$(CORE_CC) -std=c11 -O2 -g -Wall -Wextra -Werror -I$(PQ_INCLUDEDIR) -o $@ $< -lpq

tools/gpualloc-sim: tools/gpualloc-sim.c tools/json_text.c tools/json_text.h $(CORE_SRCS) $(CORE_HDRS)
	$(CORE_CC) $(CORE_FLAGS) -o $@ tools/gpualloc-sim.c tools/json_text.c $(CORE_SRCS) $(CORE_LIBS)

# The command-line client: C11 over libpq, no server header; its version
# is the extension's.
PQ_LIBDIR    = $(shell $(PG_CONFIG) --libdir 2>/dev/null)
CLI_SRCS     = $(sort $(wildcard tools/cli/*.c))
CLI_FLAGS    = -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra -Werror \
			   $(if $(PQ_INCLUDEDIR),-I$(PQ_INCLUDEDIR)) -DCLI_VERSION='"$(EXTVERSION)"'

tools/gpualloc: $(CLI_SRCS) tools/cli/cli.h Makefile
	$(CORE_CC) $(CLI_FLAGS) -o $@ $(CLI_SRCS) $(if $(PQ_LIBDIR),-L$(PQ_LIBDIR)) -lpq -lm

# ---------------------------------------------------------------------------
# Fuzzing (tests/fuzz/, README.md, Tests): libFuzzer targets built by clang
# with AddressSanitizer and UndefinedBehaviorSanitizer, linked with the core
# sources they reach (GLPK only for the simulator's).  make fuzz builds every target and runs each
# for FUZZ_SECONDS from its seed corpus; any crash, leak or timeout fails it.
FUZZ_CC      = clang
FUZZ_FLAGS   = -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Isrc/core -Itests/fuzz \
               -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_CORE    = src/core/model/common.c src/core/model/calendar.c src/core/model/problem.c \
               src/core/model/plan.c src/core/model/serial.c src/core/model/advance_reservation.c \
               src/core/model/tenant_quota.c src/core/model/terminal.c \
               src/core/sim/csv.c src/core/sim/scenario.c $(sort $(wildcard src/core/forecast/*.c))
FUZZ_TARGETS = $(basename $(notdir $(sort $(wildcard tests/fuzz/fuzz_*.c))))
FUZZ_SECONDS ?= 60

FUZZ_HDRS    = $(wildcard tests/fuzz/*.h)

$(BUILD_DIR)/fuzz/%: tests/fuzz/%.c $(FUZZ_HDRS) $(FUZZ_CORE) $(CORE_HDRS)
	@mkdir -p $(BUILD_DIR)/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_CORE) -lm

# The simulator reaches the planners, so fuzz_sim takes the whole core and GLPK.
$(BUILD_DIR)/fuzz/fuzz_sim: tests/fuzz/fuzz_sim.c $(FUZZ_HDRS) $(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(BUILD_DIR)/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(CORE_SRCS) $(CORE_LIBS)

.PHONY: fuzz fuzz-build deps-fuzz
deps-fuzz:
	@sh tools/install-deps.sh --fuzz

fuzz-build: deps-fuzz $(addprefix $(BUILD_DIR)/fuzz/,$(FUZZ_TARGETS))

fuzz: fuzz-build
	@FUZZ_SECONDS="$(FUZZ_SECONDS)" sh tools/fuzz.sh $(FUZZ_TARGETS)

# ---------------------------------------------------------------------------
# Benchmark scenarios and the side-by-side simulator benchmark.  The
# scenarios are generated from fixed seeds and data/real; their CSVs are
# committed, being the benchmark's inputs.  scenarios-check regenerates them
# twice and compares the runs with each other and with scenarios/.  The
# generator reads CSV with the scenario reader's CSV module, reads and writes
# timestamps with the core's calendar, and takes ga_pow2_ceil from the
# estimators' helpers, so it links those and what they need; the report
# program stands alone.
GEN_CORE     = src/core/sim/csv.c src/core/model/calendar.c src/core/model/common.c src/core/forecast/forecast_common.c
$(BUILD_DIR)/gen_scenarios: tools/gen_scenarios.c $(GEN_CORE) $(CORE_HDRS)
	@mkdir -p $(BUILD_DIR)
	$(CORE_CC) $(CORE_FLAGS) -o $@ tools/gen_scenarios.c $(GEN_CORE) -lm

$(BUILD_DIR)/bench_report: tools/bench_report.c tools/json_text.c tools/json_text.h
	@mkdir -p $(BUILD_DIR)
	$(CORE_CC) $(CORE_FLAGS) -o $@ tools/bench_report.c tools/json_text.c -lm

.PHONY: scenarios scenarios-check bench

scenarios: $(BUILD_DIR)/gen_scenarios
	./$(BUILD_DIR)/gen_scenarios --data data/real --out scenarios

scenarios-check: $(BUILD_DIR)/gen_scenarios
	@sh tools/check_scenarios.sh

# The full policy's time limit per re-plan, passed as --full-ms: 300 ms keeps
# the 3,264 re-plans of the two runs near ten minutes; FULL_MS= (empty) uses
# the simulator's own default of 1 s.
FULL_MS ?= 300

bench: tools $(BUILD_DIR)/bench_report
	@test -f scenarios/08_real_week/jobs.csv || $(MAKE) scenarios
	@FULL_MS="$(FULL_MS)" sh tools/bench.sh

# Jobs of several pools: scenario 13 with each job's alt_pools and on its
# first pool only, every policy, both knowledge modes (bench/results/alt_pools.json).
.PHONY: bench-alt-pools
bench-alt-pools: tools
	@FULL_MS="$(FULL_MS)" sh tools/bench-alt-pools.sh

# pgbench against a throwaway server; BENCH_SECONDS sets the run length (30).
.PHONY: bench-submit
bench-submit: deps
	@sh tools/bench-submit.sh

# replan() on four equal pools, solved by one process and by four
# (gpualloc.max_parallel_pools); writes bench/results/pools.json.
.PHONY: bench-pools
bench-pools: deps
	@sh tools/bench-pools.sh

# The soak of t/004_soak.pl at scale: 64 GPUs, 8 nodes, 8 reference executors,
# BENCH_JOBS (3000) short jobs; writes bench/results/ops.json.
.PHONY: bench-estimates
bench-estimates: deps
	@sh tools/bench-estimates.sh

.PHONY: bench-queue-depth
bench-queue-depth: deps
	@sh tools/bench-queue-depth.sh

.PHONY: bench-ops
bench-ops: deps
	@sh tools/bench-ops.sh

# 1,024 / 4,096 / 10,000 GPUs with 1,000 / 10,000 / 50,000 queued jobs:
# replan('fast') and replan('full') end to end with the backend's peak memory,
# and submit_job p50/p99 at each size; writes bench/results/scale.json.
.PHONY: bench-scale
bench-scale: deps
	@sh tools/bench-scale.sh

clean: clean-build
clean-build:
	rm -rf $(BUILD_DIR) tmp_check tmp_check_iso output_iso results log regression.diffs regression.out
