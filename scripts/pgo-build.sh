#!/usr/bin/env bash
# Builds the storlab binary for `make build-pgo` into target/storlab (where `make build` puts
# the plain release build): with profile-guided optimization when an llvm-profdata of rustc's
# LLVM major version is at hand, else a plain release build. Opt-in: the default build is
# `make build`, and every performance goal is measured on it.
#
# Profile-guided optimization: an instrumented build (target/pgo/gen) runs a training set,
# `storlab validate` (every reference case) and shipped examples it does not cover (about
# 100 s), llvm-profdata merges what it counted, and the final build (target/pgo/use) lays
# out and inlines the code by it. The outputs are the same, only the speed differs (the
# simulator about 10% faster than the plain build). The profile is made again when a source
# file, a training input (examples, references), Cargo.lock or the compiler changes
# (target/pgo/stamp).
#
# Both builds link the whole program as one unit (fat LTO, one codegen unit), so the profile
# can inline across crates and modules (the core crate's statistics into the simulator's
# event handlers): case 2's database about 5% faster than with the release profile's four
# units. The tests keep the release profile: linking every test binary so would take minutes.
#
# llvm-profdata: `llvm-profdata-N` on the PATH, the toolchain's own (rustup component
# llvm-tools), or, as root with apt, Debian's package llvm-N. STORLAB_PGO=0 skips it all.
#
# Then, when LLVM's BOLT of the same major version is at hand (`llvm-bolt-N` and
# `merge-fdata-N`, or, as root with apt, Debian's package bolt-N), a post-link step: the
# optimized build is linked with its relocations kept, BOLT instruments it, the same
# training set runs, and BOLT lays the binary's hot code out again by what it counted (the
# simulator's path through its layers is more code than the instruction cache holds). The
# result must print the same result as the binary it came from on a check run, else the
# binary without it is kept. STORLAB_BOLT=0 skips this step.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
out=target/storlab

plain() {
    echo "storlab: $1; building without profile-guided optimization" >&2
    "$CARGO" build --release --locked
    mkdir -p target
    cp -f target/release/storlab "$out"
    exit 0
}

[ "${STORLAB_PGO:-1}" = 0 ] && plain "STORLAB_PGO=0"

major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
[ -n "$major" ] || plain "rustc does not name its LLVM version"

profdata_major() {
    "$1" --version 2>/dev/null | sed -n 's/.*LLVM version \([0-9]*\).*/\1/p' | head -n1
}

find_profdata() {
    local c
    for c in "llvm-profdata-$major" \
        "$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata" \
        llvm-profdata; do
        if command -v "$c" >/dev/null 2>&1 && [ "$(profdata_major "$c")" = "$major" ]; then
            command -v "$c"
            return 0
        fi
    done
    return 1
}

apt_updated=0
apt_install() {
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 1
    echo "installing: $1 (apt-get), $2"
    if [ "$apt_updated" = 0 ]; then
        apt-get update -qq || return 1
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
}

profdata=$(find_profdata || true)
if [ -z "$profdata" ] && apt_install "llvm-$major" "for profile-guided optimization"; then
    profdata=$(find_profdata || true)
fi
[ -n "$profdata" ] || plain "no llvm-profdata of LLVM $major (package llvm-$major or rustup component llvm-tools)"

# BOLT of rustc's LLVM major: llvm-bolt and merge-fdata.
find_bolt() {
    local b m
    for b in "llvm-bolt-$major" llvm-bolt; do
        m=${b/llvm-bolt/merge-fdata}
        if command -v "$b" >/dev/null 2>&1 && command -v "$m" >/dev/null 2>&1 &&
            "$b" --version 2>/dev/null | grep -q "LLVM version $major\."; then
            echo "$(command -v "$b") $(command -v "$m")"
            return 0
        fi
    done
    return 1
}
bolt=""
if [ "${STORLAB_BOLT:-1}" != 0 ]; then
    bolt=$(find_bolt || true)
    if [ -z "$bolt" ] && apt_install "bolt-$major" "for the post-link layout step"; then
        bolt=$(find_bolt || true)
    fi
    [ -n "$bolt" ] || echo "storlab: no llvm-bolt of LLVM $major (package bolt-$major); skipping the post-link step" >&2
fi

# The training set: every reference case (`storlab validate`: the IOgen matrices and the
# database tests of cases 1 and 2 on RAID 5 and RAID 10), then shipped examples it does not
# cover: the example database, OLTP streams with their log, ASM mirroring with a preferred
# read group, sequential writes.
train_dir=""
train() {
    local bin=$1 args
    # One scratch directory for every training run, removed on exit (an interrupted build
    # included).
    if [ -z "$train_dir" ]; then
        train_dir=$(mktemp -d)
        trap 'rm -rf "$train_dir"' EXIT
    fi
    # validate exits 1 when a figure is outside its tolerance; its runs train all the same.
    "$bin" validate --json "$train_dir/validate.json" >/dev/null || true
    for args in \
        "--array examples/arrays/enterprise-raid5.toml --workload examples/workloads/dpaws-update-row.toml --duration 30s --warmup 2s" \
        "--array examples/arrays/enterprise-raid10.toml --workload examples/workloads/oltp-data-and-log.toml --duration 20s --warmup 2s" \
        "--array examples/arrays/asm-prfg.toml --workload examples/workloads/asm-oltp.toml --duration 20s --warmup 2s" \
        "--array examples/arrays/midrange-raid10.toml --profile seqwrite-1m --duration 20s --warmup 2s"; do
        # shellcheck disable=SC2086 # the arguments are split on purpose
        "$bin" sim $args --json "$train_dir/run.json" >/dev/null
    done
}

pgo=$PWD/target/pgo
# The whole program as one unit, for these two builds only (not `cargo test --release`).
export CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
mkdir -p "$pgo"
stamp=$( (rustc -vV; "$profdata" --version; cat Cargo.lock; git ls-files -z crates examples references Cargo.toml scripts/pgo-build.sh 2>/dev/null | xargs -0 cat 2>/dev/null || find crates examples references -type f -print0 | sort -z | xargs -0 cat) | sha256sum | cut -d' ' -f1)

if [ ! -f "$pgo/storlab.profdata" ] || [ "$(cat "$pgo/stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "storlab: profile-guided build, step 1 of 2: instrumented build and training run"
    rm -rf "$pgo/raw" "$pgo/storlab.profdata" "$pgo/stamp"
    RUSTFLAGS="-Cprofile-generate=$pgo/raw" "$CARGO" build --release --locked --target-dir "$pgo/gen" -p storlab-cli
    train "$pgo/gen/release/storlab"
    "$profdata" merge -o "$pgo/storlab.profdata" "$pgo/raw"
    echo "$stamp" >"$pgo/stamp"
fi

echo "storlab: profile-guided build, step 2 of 2: optimized build"
flags="-Cprofile-use=$pgo/storlab.profdata"
# BOLT rewrites the binary's code layout; it needs the link's relocations.
[ -n "$bolt" ] && flags="$flags -Clink-arg=-Wl,--emit-relocs"
RUSTFLAGS="$flags" "$CARGO" build --release --locked --target-dir "$pgo/use" -p storlab-cli
built=$pgo/use/release/storlab
cp -f "$built" "$out"
[ -n "$bolt" ] || exit 0

# The post-link step, made again when the optimized binary changed.
read -r llvm_bolt merge_fdata <<<"$bolt"
sum=$(sha256sum "$built" | cut -d' ' -f1)
if [ ! -f "$pgo/storlab.bolt" ] || [ "$(cat "$pgo/bolt.stamp" 2>/dev/null)" != "$sum" ]; then
    echo "storlab: post-link layout (BOLT): instrumented binary and training run"
    rm -rf "$pgo/bolt" "$pgo/storlab.bolt" "$pgo/bolt.stamp"
    mkdir -p "$pgo/bolt"
    if "$llvm_bolt" "$built" -instrument -o "$pgo/bolt/storlab.inst" \
        --instrumentation-file="$pgo/bolt/prof" --instrumentation-file-append-pid >"$pgo/bolt/log" 2>&1 &&
        train "$pgo/bolt/storlab.inst" &&
        "$merge_fdata" "$pgo"/bolt/prof.*.fdata >"$pgo/bolt/merged.fdata" 2>>"$pgo/bolt/log" &&
        "$llvm_bolt" "$built" -o "$pgo/bolt/storlab" -data="$pgo/bolt/merged.fdata" \
            -reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions -split-all-cold \
            -split-eh -icf=1 -use-gnu-stack >>"$pgo/bolt/log" 2>&1; then
        # The check: one short database run prints the same result with either binary.
        check() {
            "$1" sim --array examples/arrays/enterprise-raid5.toml \
                --workload examples/workloads/dpaws-update-row.toml --duration 5s --warmup 1s |
                grep -v 'wall'
        }
        if [ "$(check "$built")" = "$(check "$pgo/bolt/storlab")" ]; then
            mv "$pgo/bolt/storlab" "$pgo/storlab.bolt"
            echo "$sum" >"$pgo/bolt.stamp"
        else
            echo "storlab: the post-link binary's check run differs; keeping the binary without it" >&2
        fi
    else
        echo "storlab: the post-link step failed ($pgo/bolt/log); keeping the binary without it" >&2
    fi
    rm -rf "$pgo/bolt"/prof.*.fdata "$pgo/bolt/storlab.inst"
fi
if [ -f "$pgo/storlab.bolt" ]; then
    cp -f "$pgo/storlab.bolt" "$out"
fi
