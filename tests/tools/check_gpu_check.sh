#!/bin/sh
# scripts/gpu-check.sh on the binaries of this build (GPU_CHECK_BUILT), on
# this machine's OpenCL device (pocl in CI): settings that are not numbers
# are refused before anything runs; a device that does not exist gives
# exit 3 and SKIP rows; a budget of 0 runs nothing, says why in every row
# and exits 4; a check that outlasts the budget is stopped and says so; a short real run (the heavy checks left out by
# GPU_CHECK_SKIP) passes, writes gpubench's JSON, the report and the
# summary, and a device without a reference model says SKIP at
# gpubench.check rather than failing the run.
# Usage: check_gpu_check.sh SCRIPTS_DIR BUILD_DIR. Exit 77 without a device.
set -u
script=$1/gpu-check.sh
build=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/xgpu-gpu-check.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
# run NAME EXPECTED-STATUS [VAR=VALUE ...] -- SELECTOR: gpu-check with the
# settings given, its output in $dir/NAME.out and its files in $dir/NAME.
run() {
    name=$1 want=$2
    shift 2
    mkdir -p "$dir/$name"
    env GPU_CHECK_BUILT=1 GPU_CHECK_BUILD="$build" OUT="$dir/$name" GPU_CHECK_GEMM_N=64 \
        GPU_CHECK_MIB=1 "$@" bash "$script" "$sel" >"$dir/$name.out" 2>&1
    got=$?
    if [ "$got" -ne "$want" ]; then
        no "$name: exit $got, expected $want"
        cat "$dir/$name.out"
    fi
}
has() { grep -qE "$2" "$dir/$1" || no "$1: no line matching '$2'"; }

if ! "$build/bin/gpuinfo" -d opencl:0 >/dev/null 2>&1; then
    echo "SKIP: no OpenCL device"
    exit 77
fi

# The build folder is used, never emptied: its CMake cache stays.
had_cache=""
[ -f "$build/CMakeCache.txt" ] && had_cache=1

sel=opencl:0
run budget_word 2 GPU_CHECK_BUDGET_S=ten
has budget_word.out "GPU_CHECK_BUDGET_S 'ten' is not a whole number"
run mib_word 2 GPU_CHECK_MIB=lots
has mib_word.out "GPU_CHECK_MIB 'lots' is not a positive whole number of MiB"
run timeout_zero 2 GPU_CHECK_TIMEOUT=0
has timeout_zero.out "GPU_CHECK_TIMEOUT '0' is not a positive whole number"
run not_built 2 GPU_CHECK_BUILD="$dir/empty"
has not_built.out "GPU_CHECK_BUILT is set but .*/empty/bin/gpuinfo does not exist"

sel=opencl:99
run no_device 3
has no_device.out "gpu-check: opencl:99 not found"
has no_device/gpu-check-summary.txt "^library.gemm +SKIP +- +no device opencl:99"
has no_device/gpu-check-summary.txt "^gpubench.gemm +SKIP +- +no device opencl:99"

sel=opencl:0
run budget_zero 4 GPU_CHECK_BUDGET_S=0
has budget_zero.out "the time budget \(GPU_CHECK_BUDGET_S=0\) left checks out"
has budget_zero/gpu-check-summary.txt "^gpuinfo +SKIP +- +no time left \(GPU_CHECK_BUDGET_S=0\)"
has budget_zero/gpu-check-summary.txt "^gpubench.gemm +SKIP +- +no time left"
if grep -qE " (PASS|FAIL) " "$dir/budget_zero/gpu-check-summary.txt"; then
    no "budget_zero: a check ran with no time left"
fi

# A check that outlasts the budget is stopped, says so, and the run exits 4
# (the batched GEMM takes tens of seconds on a CPU device; nothing else
# runs).
run cut 4 GPU_CHECK_BUDGET_S=8 GPU_CHECK_SKIP='gpuinfo*,cuda.*,conformance.*,library.*,vector_add,saxpy,gpubench.gemm,gpubench.memory,gpubench.check,gpubench.fleet,gpubench.tune*,gpubench.report' \
    GPU_CHECK_GEMM_N=64
has cut/gpu-check-summary.txt "^gpubench.gemm.batched +SKIP .*stopped after [0-9]+ s: the time budget"
has cut.out "^xgpu gpu-check on opencl:0 \([0-9]+ s of a 8 s budget\)"

# A short real run: the lighter checks only (the suite, the tuner, the
# batched GEMM and the memory benchmarks, whose clpeak peer takes seconds,
# have tests of their own); the fleet's stream at 1 MiB.
run short 0 GPU_CHECK_BUDGET_S=600 \
    GPU_CHECK_SKIP='conformance.*,library.*,cuda.*,gpubench.gemm.batched,gpubench.memory,gpubench.tune*'
s=short/gpu-check-summary.txt
for c in gpuinfo gpuinfo.doctor gpubench.gemm gpubench.fleet gpuinfo.watch gpubench.report; do
    has "$s" "^$c +PASS "
done
# The fleet run takes GPU_CHECK_MIB where it is under 256.
has short/gpu-check.log "^== gpubench.fleet: .* --size 1 "
# The examples, where this build has them.
for c in vector_add saxpy; do
    if [ -x "$build/bin/$c" ]; then
        has "$s" "^$c +PASS "
    else
        has "$s" "^$c +SKIP +- +not built in this configuration"
    fi
done
has "$s" "^gpubench.check +SKIP .*UNKNOWN: no reference for this model"
has "$s" "^library.reduce +SKIP +- +left out \(GPU_CHECK_SKIP\)"
has "$s" "^gpubench.tuned +SKIP +- +left out \(GPU_CHECK_SKIP\)"
has "$s" "^xgpu gpu-check on opencl:0 \([0-9]+ s of a 600 s budget\)"
has "$s" "^gemm +xgpu +opencl:0 +f32 +64x64x64 .*verified"
for f in gpubench-gemm.json gpubench-check-run.json gpubench-report.md gpubench-report.html \
    gpu-check.log; do
    [ -s "$dir/short/$f" ] || no "short: $f was not written"
done
has short/gpubench-report.md "opencl:0"
[ -e "$dir/short/gpubench-memory.json" ] && no "short: a check left out wrote its file"

if [ -n "$had_cache" ] && [ ! -f "$build/CMakeCache.txt" ]; then
    no "gpu-check removed the build folder's CMakeCache.txt"
fi

[ "$fail" -eq 0 ] && echo "gpu-check: all cases as expected"
exit "$fail"
