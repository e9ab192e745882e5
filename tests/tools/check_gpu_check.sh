#!/bin/sh
# scripts/gpu-check.sh on the binaries of this build (GPU_CHECK_BUILT), on
# this machine's OpenCL device (pocl in CI): settings that are not numbers
# (or are zero, or longer than 9 digits) are refused before anything runs;
# a device that does not exist gives exit 3 and SKIP rows; a budget of 0
# runs nothing, says why in every row and exits 4; a check that outlasts
# the budget is stopped and says so; a short real run (the heavy checks
# left out by GPU_CHECK_SKIP) passes, writes gpubench's JSON, the report and the
# summary, and a device without a reference model says SKIP at
# gpubench.check rather than failing the run (read from its JSON: a device
# of another verdict beside it fails).
# Usage: check_gpu_check.sh SCRIPTS_DIR BUILD_DIR. Exit 77 without a device.
set -u
script=$1/gpu-check.sh
build=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/xgpu-gpu-check.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
# run NAME EXPECTED-STATUS [VAR=VALUE ...]: gpu-check on $sel with the
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
# has FILE PATTERN: a line of $dir/FILE matches; else the file is shown.
has() {
    if ! grep -qE "$2" "$dir/$1"; then
        no "$1: no line matching '$2'"
        tail -40 "$dir/$1"
    fi
}

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
run mib_zeros 2 GPU_CHECK_MIB=00
has mib_zeros.out "GPU_CHECK_MIB '00' is not a positive whole number of MiB"
run mib_octal 2 GPU_CHECK_BUDGET_S=08 GPU_CHECK_MIB=08 GPU_CHECK_BUILD="$dir/empty"
has mib_octal.out "GPU_CHECK_BUILT is set but .*/empty/bin/gpuinfo does not exist"
run gemm_word 2 GPU_CHECK_GEMM_N=big
has gemm_word.out "GPU_CHECK_GEMM_N 'big' is not a positive whole number of rows"
run tune_zero 2 GPU_CHECK_TUNE=0
has tune_zero.out "GPU_CHECK_TUNE '0' is not a positive whole number of seconds"
run timeout_huge 2 GPU_CHECK_TIMEOUT=99999999999999999999
has timeout_huge.out "GPU_CHECK_TIMEOUT '9+' is not a positive whole number of seconds \(at most 9 digits\)"
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
# (a build folder whose gpubench sleeps: the cut does not hang on how fast
# this host runs a real benchmark).
mkdir -p "$dir/slow/bin"
printf '#!/bin/sh\nexit 0\n' >"$dir/slow/bin/gpuinfo"
printf '#!/bin/sh\nexec sleep 60\n' >"$dir/slow/bin/gpubench"
chmod +x "$dir/slow/bin/gpuinfo" "$dir/slow/bin/gpubench"
run cut 4 GPU_CHECK_BUILD="$dir/slow" GPU_CHECK_BUDGET_S=4 \
    GPU_CHECK_SKIP='gpuinfo*,gpubench.gemm.batched,gpubench.memory,gpubench.check,gpubench.fleet,gpubench.tune*,gpubench.report'
has cut/gpu-check-summary.txt "^gpubench.gemm +SKIP .*stopped after [0-9]+ s: the time budget"
has cut/gpu-check-summary.txt "^library.tune +SKIP .*no time left"
has cut.out "^xgpu gpu-check on opencl:0 \([0-9]+ s of a 4 s budget\)"
# Without a budget, a check's own limit is a failure, not a budget cut.
run hang 1 GPU_CHECK_BUILD="$dir/slow" GPU_CHECK_TIMEOUT=2 \
    GPU_CHECK_SKIP='gpuinfo*,gpubench.gemm.batched,gpubench.memory,gpubench.check,gpubench.fleet,gpubench.tune*,gpubench.report'
has hang/gpu-check-summary.txt "^gpubench.gemm +FAIL .*timed out after 2 s"
if grep -q "time budget" "$dir/hang.out"; then
    no "hang: a check's own limit was called a budget cut"
fi
run flag_word 2 GPU_CHECK_SWEEP=yes
has flag_word.out "GPU_CHECK_SWEEP 'yes' is not 1 \(on\) or 0 \(off\)"

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

# gpubench check's SKIP comes from its JSON, not its prose: a fake gpubench
# whose check prints "1 UNKNOWN" and exits 1, its JSON counting the
# verdicts given in FAKE_UNKNOWN and FAKE_DEGRADED.
mkdir -p "$dir/verdicts/bin"
printf '#!/bin/sh\nexit 0\n' >"$dir/verdicts/bin/gpuinfo"
cat >"$dir/verdicts/bin/gpubench" <<'FAKE'
#!/bin/sh
[ "$1" = check ] || exit 0
json=""
while [ $# -gt 0 ]; do
    [ "$1" = --json ] && json=$2
    shift
done
printf '{\n  "schema": "xgpu.gpubench-check/1",\n  "devices": [\n  ],\n  "summary": {"OK": 0, "UNDERPERFORMING": 0, "UNKNOWN": %s, "DEGRADED": %s, "FAULTY": 0}\n}\n' \
    "$FAKE_UNKNOWN" "$FAKE_DEGRADED" >"$json"
echo "gpubench check: 1 device: 1 UNKNOWN"
exit 1
FAKE
chmod +x "$dir/verdicts/bin/gpuinfo" "$dir/verdicts/bin/gpubench"
only_check='gpuinfo*,gpubench.gemm*,gpubench.memory,gpubench.fleet,gpubench.tune*,gpubench.report,library.tune'
run unknown 0 GPU_CHECK_BUILD="$dir/verdicts" GPU_CHECK_SKIP="$only_check" FAKE_UNKNOWN=2 \
    FAKE_DEGRADED=0
has unknown/gpu-check-summary.txt "^gpubench.check +SKIP .*UNKNOWN: no reference for this model"
run degraded 1 GPU_CHECK_BUILD="$dir/verdicts" GPU_CHECK_SKIP="$only_check" FAKE_UNKNOWN=1 \
    FAKE_DEGRADED=1
has degraded/gpu-check-summary.txt "^gpubench.check +FAIL "

if [ -n "$had_cache" ] && [ ! -f "$build/CMakeCache.txt" ]; then
    no "gpu-check removed the build folder's CMakeCache.txt"
fi

[ "$fail" -eq 0 ] && echo "gpu-check: all cases as expected"
exit "$fail"
