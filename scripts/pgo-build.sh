#!/usr/bin/env bash
# Builds the storlab binary for `make build` (and so `make demo` and `make bench`) into
# target/storlab: with profile-guided optimization when an llvm-profdata of rustc's LLVM
# major version is at hand, else a plain release build.
#
# Profile-guided optimization: an instrumented build (target/pgo/gen) runs a training set,
# `storlab validate` (every reference case) and shipped examples it does not cover (about
# 100 s), llvm-profdata merges what it counted, and the final build (target/pgo/use) lays
# out and inlines the code by it. The outputs are the same, only the
# speed differs (the simulator about 10% faster; README, Performance). The profile is made
# again when a source file, a training input (examples, references), Cargo.lock or the
# compiler changes (target/pgo/stamp).
#
# llvm-profdata: `llvm-profdata-N` on the PATH, the toolchain's own (rustup component
# llvm-tools), or, as root with apt, Debian's package llvm-N. STORLAB_PGO=0 skips it all.
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

profdata=$(find_profdata || true)
if [ -z "$profdata" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing: llvm-$major (apt-get), for profile-guided optimization"
    if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "llvm-$major" >/dev/null; then
        profdata=$(find_profdata || true)
    fi
fi
[ -n "$profdata" ] || plain "no llvm-profdata of LLVM $major (package llvm-$major or rustup component llvm-tools)"

pgo=$PWD/target/pgo
mkdir -p "$pgo"
stamp=$( (rustc -vV; "$profdata" --version; cat Cargo.lock; git ls-files -z crates examples references Cargo.toml scripts/pgo-build.sh 2>/dev/null | xargs -0 cat 2>/dev/null || find crates examples references -type f -print0 | sort -z | xargs -0 cat) | sha256sum | cut -d' ' -f1)

if [ ! -f "$pgo/storlab.profdata" ] || [ "$(cat "$pgo/stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "storlab: profile-guided build, step 1 of 2: instrumented build and training run"
    rm -rf "$pgo/raw" "$pgo/storlab.profdata" "$pgo/stamp"
    RUSTFLAGS="-Cprofile-generate=$pgo/raw" "$CARGO" build --release --locked --target-dir "$pgo/gen" -p storlab-cli
    bin=$pgo/gen/release/storlab
    train=$(mktemp -d)
    trap 'rm -rf "$train"' EXIT
    sim() { "$bin" sim "$@" --json "$train/run.json" >/dev/null; }
    # The validation suite (every reference case: the IOgen matrices and the database tests
    # of cases 1 and 2 on RAID 5 and RAID 10), then shipped examples it does not cover: the
    # example database, OLTP streams with their log, ASM mirroring with a preferred read
    # group, sequential writes.
    # validate exits 1 when a figure is outside its tolerance; its runs train all the same.
    "$bin" validate --json "$train/validate.json" >/dev/null || true
    sim --array examples/arrays/enterprise-raid5.toml --workload examples/workloads/dpaws-update-row.toml --duration 30s --warmup 2s
    sim --array examples/arrays/enterprise-raid10.toml --workload examples/workloads/oltp-data-and-log.toml --duration 20s --warmup 2s
    sim --array examples/arrays/asm-prfg.toml --workload examples/workloads/asm-oltp.toml --duration 20s --warmup 2s
    sim --array examples/arrays/midrange-raid10.toml --profile seqwrite-1m --duration 20s --warmup 2s
    "$profdata" merge -o "$pgo/storlab.profdata" "$pgo/raw"
    echo "$stamp" >"$pgo/stamp"
fi

echo "storlab: profile-guided build, step 2 of 2: optimized build"
RUSTFLAGS="-Cprofile-use=$pgo/storlab.profdata" "$CARGO" build --release --locked --target-dir "$pgo/use" -p storlab-cli
cp -f "$pgo/use/release/storlab" "$out"
