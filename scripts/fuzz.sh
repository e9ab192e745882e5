#!/bin/bash
# Runs every libFuzzer target BUILD_DIR/bin/fuzz_* for SECONDS each, on a
# scratch copy of its seed corpus tests/fuzz/corpus/<name>/ (the repository
# is never written), with tests/fuzz/<name>.dict when there is one. Prints
# each target's executions; fails when a target crashes, leaks, hangs or
# runs out of memory, and shows the input that did it in hex. Runs as many
# targets at once as there are cores.
# Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DXGPU_FUZZ=ON
#        cmake --build build-fuzz --target xgpu_fuzzers
# Usage: scripts/fuzz.sh BUILD_DIR SECONDS
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [ $# -ne 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 BUILD_DIR SECONDS" >&2
    exit 2
fi
build=$1
seconds=$2

shopt -s nullglob
fuzzers=("$build"/bin/fuzz_*)
if [ ${#fuzzers[@]} -eq 0 ]; then
    echo "fuzz: no $build/bin/fuzz_*; configure with -DCMAKE_C_COMPILER=clang -DXGPU_FUZZ=ON" \
         "and build the xgpu_fuzzers target" >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/xgpu-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One fuzzer's run: its log, its exit status in $work/<name>/rc, and the
# inputs that failed it in $work/<name>/artifacts.
fuzz_one() {
    local fuzzer=$1 name=${1##*/fuzz_} seeds corpus artifacts rc
    seeds=$root/tests/fuzz/corpus/$name
    corpus=$work/$name/corpus
    artifacts=$work/$name/artifacts
    mkdir -p "$corpus" "$artifacts"
    if [ -d "$seeds" ]; then
        cp -R "$seeds/." "$corpus/"
    else
        echo "fuzz_$name: warning: no seed corpus $seeds" >&2
    fi
    find "$corpus" -type f | wc -l >"$work/$name/seeded"
    local args=(-max_total_time="$seconds" -timeout=10 -print_final_stats=1
                -artifact_prefix="$artifacts/")
    if [ -f "$root/tests/fuzz/$name.dict" ]; then
        args+=(-dict="$root/tests/fuzz/$name.dict")
    fi
    set +e
    "$fuzzer" "${args[@]}" "$corpus" >"$work/$name/log" 2>&1
    rc=$?
    set -e
    echo "$rc" >"$work/$name/rc"
}

# As many fuzzers at once as there are cores (each is one process), so
# that CI spends SECONDS per round of cores rather than per fuzzer; the
# results are printed afterwards in the order of the targets.
jobs=$(nproc 2>/dev/null || echo 1)
running=0
for fuzzer in "${fuzzers[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz_one "$fuzzer" &
    running=$((running + 1))
done
wait

failed=()
for fuzzer in "${fuzzers[@]}"; do
    name=${fuzzer##*/fuzz_}
    log=$work/$name/log
    artifacts=$work/$name/artifacts
    rc=$(cat "$work/$name/rc" 2>/dev/null || echo "?")
    seeded=$(cat "$work/$name/seeded" 2>/dev/null || echo "?")
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" 2>/dev/null | tail -n 1)
    grown=$(find "$work/$name/corpus" -type f | wc -l)
    if [ "$rc" = 0 ]; then
        echo "fuzz_$name: ${execs:-?} execs in ${seconds}s, corpus $seeded -> $grown inputs"
        continue
    fi

    failed+=("fuzz_$name")
    echo "fuzz_$name: FAILED (exit $rc) after ${execs:-?} execs; its report:"
    # From the sanitizer's or libFuzzer's first error line on, else the end.
    first=$(grep -n -m 1 -E 'ERROR|runtime error|fuzz_[a-z0-9_]+: ' "$log" | cut -d: -f1 || true)
    if [ -n "$first" ]; then
        # Less ASan's shadow-byte map, which says nothing about the input.
        shadow='^ *(=>)?0x[0-9a-f]+: |^Shadow|^  [A-Z][A-Za-z ]+: +[0-9a-f]'
        tail -n "+$first" "$log" | grep -v -E "$shadow" | head -n 80
    else
        tail -n 60 "$log"
    fi
    for input in "$artifacts"/*; do
        echo "fuzz_$name: input $(basename "$input") ($(wc -c <"$input") bytes):"
        od -A x -t x1z -v "$input"
    done
done

if [ ${#failed[@]} -ne 0 ]; then
    echo "fuzz: ${#failed[@]} of ${#fuzzers[@]} fuzzers failed: ${failed[*]}"
    exit 1
fi
echo "fuzz: ${#fuzzers[@]} fuzzers, no crash in ${seconds}s each"
