# storlab: the two set-up commands are `make demo` and `make test` (see README.md).
CARGO ?= cargo
STORLAB := target/release/storlab

.PHONY: build demo test bench fmt clean

build:
	$(CARGO) build --release --locked

# The main job: build, then run the demo study (a few minutes on 2 cores).
demo: build
	$(STORLAB) demo --out out/demo

# Every check: formatting, lints (warnings are errors), every test in release mode.
test:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
	$(CARGO) test --workspace --release --locked

# Throughput and memory benchmarks; writes target/bench/sim.json.
bench: build
	$(CARGO) bench --locked -p storlab-sim --bench sim_throughput

fmt:
	$(CARGO) fmt --all

clean:
	$(CARGO) clean
	rm -rf out
