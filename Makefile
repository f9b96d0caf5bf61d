# gpualloc — PGXS build of the extension, plus the core's unit tests, tools
# and the two user-facing commands: `make demo` and `make test`.

EXTENSION    = gpualloc
EXTVERSION   = 0.1
MODULE_big   = gpualloc
DATA_built   = sql/gpualloc--$(EXTVERSION).sql
SQL_SRCS     = $(sort $(wildcard sql/install/*.sql))
PGFILEDESC   = "gpualloc - GPU cluster allocator"

CORE_SRCS    = $(sort $(wildcard src/core/*/*.c))
PG_SRCS      = $(sort $(wildcard src/pg/*.c))
OBJS         = $(CORE_SRCS:.c=.o) $(PG_SRCS:.c=.o)
CORE_HDRS    = $(wildcard src/core/*/*.h)

# pg_regress reads INPUTDIR/sql and INPUTDIR/expected: build/regress maps
# those two names onto sql_tests/ and expected/ (sql/ holds the extension's
# install and upgrade scripts).
REGRESS      = $(basename $(notdir $(sort $(wildcard sql_tests/*.sql))))
REGRESS_OPTS = --inputdir=build/regress --temp-instance=./tmp_check --temp-config=./test.conf --load-extension=btree_gist
REGRESS_PREP = build/regress
ISOLATION    = $(basename $(notdir $(sort $(wildcard specs/*.spec))))
ISOLATION_OPTS = --temp-instance=./tmp_check_iso --temp-config=./test.conf
TAP_TESTS    = 1

SHLIB_LINK  += -lglpk -lm
PG_CPPFLAGS += -Isrc/core
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

$(BUILD_DIR)/%: tools/%.c $(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(BUILD_DIR)
	$(CORE_CC) $(CORE_FLAGS) -o $@ $< $(CORE_SRCS) $(CORE_LIBS)

# The forecast benchmark is three files: demand, durations, and the report.
BENCH_FORECAST_SRCS = tools/bench_forecast.c tools/bench_demand.c tools/bench_durations.c
$(BUILD_DIR)/bench_forecast: $(BENCH_FORECAST_SRCS) tools/bench_forecast.h $(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(BUILD_DIR)
	$(CORE_CC) $(CORE_FLAGS) -Itools -o $@ $(BENCH_FORECAST_SRCS) $(CORE_SRCS) $(CORE_LIBS)

build/regress:
	@mkdir -p $@
	@ln -sfn ../../sql_tests $@/sql
	@ln -sfn ../../expected $@/expected

.PHONY: deps unit test demo tools bench-solver bench-forecast

deps:
	@sh tools/install-deps.sh

unit: $(BUILD_DIR)/unit_tests
	./$(BUILD_DIR)/unit_tests

test: deps
	@sh tools/run-tests.sh

demo: deps
	@sh tools/demo.sh

bench-solver: $(BUILD_DIR)/bench_solver
	./$(BUILD_DIR)/bench_solver --out bench/results/solver.json

bench-forecast: $(BUILD_DIR)/bench_forecast
	./$(BUILD_DIR)/bench_forecast --data data/real --out bench/results/forecast.json

# The simulator lives at tools/gpualloc-sim, the path its usage names.
tools: tools/gpualloc-sim

tools/gpualloc-sim: tools/gpualloc-sim.c $(CORE_SRCS) $(CORE_HDRS)
	$(CORE_CC) $(CORE_FLAGS) -o $@ tools/gpualloc-sim.c $(CORE_SRCS) $(CORE_LIBS)

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

$(BUILD_DIR)/bench_report: tools/bench_report.c
	@mkdir -p $(BUILD_DIR)
	$(CORE_CC) $(CORE_FLAGS) -o $@ $< -lm

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

# pgbench against a throwaway server; BENCH_SECONDS sets the run length (30).
.PHONY: bench-submit
bench-submit: deps
	@sh tools/bench-submit.sh

clean: clean-build
clean-build:
	rm -rf $(BUILD_DIR) tmp_check tmp_check_iso output_iso results log regression.diffs regression.out
