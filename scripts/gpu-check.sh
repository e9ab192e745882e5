#!/bin/bash
# Builds xgpu, then runs on one device (default cuda:0): gpuinfo, the whole
# conformance suite and the library's correctness tests, the CUDA
# compile-path test, vector_add, a timed saxpy and gpubench (SGEMM beside
# cuBLAS on the same buffers, the reductions); prints a short table and
# gpubench's rows. Meant for a machine with an NVIDIA GPU and
# no package access: CMocka may come as a copy in .gpucheck/cmocka (see
# scripts/gpu-check-prepare.sh). Writes the full log to $OUT or build-gpu/.
# Usage: scripts/gpu-check.sh [selector]
# Environment: GPU_CHECK_BUILD (build folder, default build-gpu),
# GPU_CHECK_CMAKE_ARGS (extra configure arguments, e.g.
# -DXGPU_BACKEND_OPENCL=OFF), GPU_CHECK_NO_CMOCKA=1 (build as if CMocka
# were absent). Exit status: 0 all passed, 1 a check failed, 2 the build
# failed, 3 the device was not found (its checks say SKIP).
set -u
sel=${1:-cuda:0}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPU_CHECK_BUILD:-$root/build-gpu}
logdir=${OUT:-$build}
mkdir -p "$build" "$logdir"
log=$logdir/gpu-check.log
: >"$log"

# What a machine without package access may lack: CMocka (the tests are
# then not built, and their rows say SKIP), cJSON (gpubench), make (ninja
# is used when present). Copies carried in .gpucheck/ are used first.
prefix=""
for dep in cmocka cjson; do
    if [ -d "$root/.gpucheck/$dep" ]; then
        prefix="${prefix:+$prefix;}$root/.gpucheck/$dep"
    fi
done
extra=()
if [ -n "$prefix" ]; then
    extra+=("-DCMAKE_PREFIX_PATH=$prefix")
fi
if [ -z "${GPU_CHECK_NO_CMOCKA:-}" ] &&
    { [ -f "$root/.gpucheck/cmocka/include/cmocka.h" ] || [ -f /usr/include/cmocka.h ] ||
        pkg-config --exists cmocka 2>/dev/null; }; then
    tests=ON
else
    tests=OFF
    echo "gpu-check: CMocka not found: building without the tests (their rows say SKIP)" |
        tee -a "$log"
fi
extra+=("-DXGPU_BUILD_TESTS=$tests")
# shellcheck disable=SC2206
extra+=(${GPU_CHECK_CMAKE_ARGS:-})
if command -v ninja >/dev/null 2>&1; then
    extra+=(-G Ninja)
    # A build folder made by another generator cannot be reused.
    if [ -f "$build/CMakeCache.txt" ] && ! grep -q "CMAKE_GENERATOR:INTERNAL=Ninja" "$build/CMakeCache.txt"; then
        rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
    fi
fi
echo "== build" | tee -a "$log"
if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" &&
       cmake --build "$build" -j "$(nproc)"; } >>"$log" 2>&1; then
    tail -30 "$log"
    echo "gpu-check: build failed (log: $log)"
    exit 2
fi

rows=()
failed=0
check() {
    local name=$1
    shift
    local t0 t1 out rc
    if [ ! -x "$1" ]; then
        rows+=("$(printf '%-24s %-5s %7s   %s' "$name" SKIP - "not built in this configuration")")
        echo "== $name: SKIP: $1 was not built" >>"$log"
        return
    fi
    t0=$(date +%s.%N)
    out=$("$@" 2>&1)
    rc=$?
    t1=$(date +%s.%N)
    { echo "== $name: $*"; echo "$out"; echo "(exit $rc)"; } >>"$log"
    local result=PASS
    if [ "$rc" -eq 77 ] || { [ "$rc" -eq 1 ] && [ -n "${no_device_ok:-}" ]; }; then
        result=SKIP
    elif [ "$rc" -ne 0 ]; then
        result=FAIL
        failed=1
    fi
    local detail
    detail=$(echo "$out" | grep -E "verified|verification|FAILED|PASSED|skipped|passed|error" | tail -1)
    detail=${detail##*): }
    rows+=("$(awk -v n="$name" -v r="$result" -v a="$t0" -v b="$t1" -v d="${detail:0:70}" \
              'BEGIN { printf "%-24s %-5s %7.2fs  %s", n, r, b - a, d }')")
}

export XGPU_TEST_DEVICES=$sel
# Without the device, its checks cannot run: say so once, skip them.
no_device=""
if ! "$build/bin/gpuinfo" -d "$sel" >/dev/null 2>&1; then
    no_device=$("$build/bin/gpuinfo" 2>&1 | grep -E "^${sel%%:*}: " | head -1)
    no_device=${no_device:-"no device $sel"}
    echo "gpu-check: $sel not found: $no_device" | tee -a "$log"
fi
# gpuinfo exits 1 when it finds no device: that is its answer, not a failure.
no_device_ok=${no_device:+1}
check gpuinfo "$build/bin/gpuinfo"
check gpuinfo.doctor "$build/bin/gpuinfo" --doctor
no_device_ok=""
# NVRTC's compile path needs no device.
check cuda.compile.nvrtc "$build/bin/test_cuda_compile"
if [ -n "$no_device" ]; then
    check() {
        if [ -x "$2" ]; then
            rows+=("$(printf '%-24s %-5s %7s   %s' "$1" SKIP - "no device $sel")")
        else
            rows+=("$(printf '%-24s %-5s %7s   %s' "$1" SKIP - "not built in this configuration")")
        fi
    }
fi
for t in buffers launch events threads bad_input lifetimes; do
    check "conformance.$t" "$build/bin/test_$t"
done
for t in gemm reduce stream; do
    check "library.$t" "$build/bin/test_lib_$t"
done
check vector_add "$build/bin/vector_add" "$sel"
check saxpy "$build/bin/saxpy" "$sel" 16777216
# GEMM 4096^3 (f32 beside cuBLAS/rocBLAS/CLBlast on the same buffers, f64,
# f16, OpenBLAS on the host), then the 1 GiB sums (beside clpeak on OpenCL).
check gpubench.gemm "$build/bin/gpubench" -d "$sel" -b gemm --size 4096
check gpubench.reduce "$build/bin/gpubench" -d "$sel" -b reduce --size 1024

echo
echo "xgpu gpu-check on $sel"
"$build/bin/gpuinfo" 2>/dev/null | grep -E "^[0-9]" | sed 's/^/  /'
printf '%-24s %-5s %8s  %s\n' check result time detail
for r in "${rows[@]}"; do
    echo "$r"
done
echo
grep -E "^(gemm|reduce) " "$log" || true
echo "full log: $log"
if [ -n "$no_device" ]; then
    echo "gpu-check: device $sel not found: $no_device"
    exit 3
fi
exit $failed
