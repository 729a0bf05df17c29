#!/usr/bin/env bash
# Fuzzes every parser of user files (fuzz/: cargo-fuzz targets on libFuzzer): array,
# workload, I/O workload and plan files, each trace reader with format detection, DiskSim
# drive descriptions and their import, drive traces, AWR and Statspack reports, the inputs
# of --workload-from and --profile-from, validate's reference cases, and the DSN of
# storlab db with its service and password files.
#
#   scripts/fuzz.sh SECONDS [TARGET...]   runs each target (default: all) for SECONDS
#   scripts/fuzz.sh --merge [TARGET...]   minimizes fuzz/corpus/TARGET together with the
#                                         inputs the runs found into fuzz/corpus/TARGET
#                                         (the regression inputs stay where they are):
#                                         the fewest inputs that cover every edge covered
#
# A run starts from the corpus kept in the repository (fuzz/corpus/TARGET) and from the
# regression inputs of the crate that owns the parser (crates/*/tests/fixtures/fuzz/TARGET);
# what it finds goes to fuzz/target/corpus/TARGET, so the repository is left as it was.
# Findings are a panic, an input over -timeout seconds, a single allocation over
# -malloc_limit_mb or a resident size over -rss_limit_mb; each fails the run and is saved in
# fuzz/artifacts/TARGET/ (turn it into a regression input: see fuzz/README.md). Exit 1 when
# any target found something, with the file names.
#
# cargo-fuzz (installed from crates.io when missing) drives cargo with nightly -Z flags for
# the sanitizer and the coverage instrumentation; RUSTC_BOOTSTRAP=1 lets the stable
# toolchain accept them.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO=${CARGO:-cargo}
cargo_fuzz_version=0.13.2
targets_all="array workload io_workload plan trace_spc trace_msr trace_blkparse trace_fio trace_detect
    drive_spec drive_import drive_trace awr workload_from validate_case conninfo"
export RUSTC_BOOTSTRAP=1

mode=${1:?usage: scripts/fuzz.sh SECONDS|--merge [TARGET...]}
shift
targets=${*:-$targets_all}

if [ "$($CARGO fuzz --version 2>/dev/null)" != "cargo-fuzz $cargo_fuzz_version" ]; then
    echo "installing: cargo-fuzz $cargo_fuzz_version (cargo install)" >&2
    $CARGO install --locked --quiet --version "$cargo_fuzz_version" cargo-fuzz
fi

# Bounds of one input: the shipped configuration files are under 3 KB, the trace fixtures
# under 12 KB, the AWR reports under 13 KB, a drive's four DiskSim files under 20 KB.
max_len() {
    case $1 in
        trace_* | awr | workload_from) echo 16384 ;;
        drive_import) echo 32768 ;;
        *) echo 8192 ;;
    esac
}

# The libFuzzer flags every run uses: input size, memory (a single allocation over the
# limit is a finding, not only a large resident size), per-input time.
limits() {
    echo "-max_len=$(max_len "$1") -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10"
}

# Corpus directories of a target: where new inputs go first, then the read-only seeds.
seeds() {
    echo "fuzz/corpus/$1"
    for d in crates/*/tests/fixtures/fuzz/"$1"; do
        if [ -d "$d" ]; then echo "$d"; fi
    done
}

mkdir -p fuzz/target/logs
build_start=$SECONDS
# 16 codegen units instead of cargo-fuzz's 1: the build takes about a quarter less time.
if ! $CARGO fuzz build --codegen-units 16 >fuzz/target/logs/build.log 2>&1; then
    tail -40 fuzz/target/logs/build.log
    echo "fuzz: the build failed (fuzz/target/logs/build.log)" >&2
    exit 1
fi
echo "fuzz: built in $((SECONDS - build_start)) s"

bin=fuzz/target/x86_64-unknown-linux-gnu/release
if [ "$mode" = --merge ]; then
    for t in $targets; do
        merged=fuzz/target/merged/$t
        rm -rf "$merged" && mkdir -p "$merged" "fuzz/target/corpus/$t"
        # shellcheck disable=SC2046
        "$bin/$t" -set_cover_merge=1 -use_counters=0 $(limits "$t") "$merged" "fuzz/corpus/$t" "fuzz/target/corpus/$t" \
            >"fuzz/target/logs/merge-$t.log" 2>&1 \
            || { tail -20 "fuzz/target/logs/merge-$t.log"; exit 1; }
        rm -rf "fuzz/corpus/$t" && mv "$merged" "fuzz/corpus/$t"
        echo "fuzz: $t: $(find "fuzz/corpus/$t" -type f | wc -l) inputs in fuzz/corpus/$t"
    done
    exit 0
fi

seconds=$mode
# One target a core at a time; each reports in the order of the list.
fuzz_one() {
    local t=$1 log=fuzz/target/logs/$1.log rc=0
    mkdir -p "fuzz/target/corpus/$t" "fuzz/artifacts/$t"
    # shellcheck disable=SC2046
    "$bin/$t" -max_total_time="$seconds" $(limits "$t") -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$t/" "fuzz/target/corpus/$t" $(seeds "$t") >"$log" 2>&1 \
        || rc=$?
    echo "$rc" >"fuzz/target/logs/$t.rc"
}
jobs_max=$(nproc 2>/dev/null || echo 1)
for t in $targets; do
    rm -f "fuzz/target/logs/$t.rc"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
    fuzz_one "$t" &
done
wait
failed=""
for t in $targets; do
    log=fuzz/target/logs/$t.log
    if [ "$(cat "fuzz/target/logs/$t.rc" 2>/dev/null)" = 0 ]; then
        echo "fuzz: $t: $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)"
    else
        tail -40 "$log"
        failed="$failed $t"
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz: findings in:$failed (inputs in fuzz/artifacts/, logs in fuzz/target/logs/)" >&2
    exit 1
fi
