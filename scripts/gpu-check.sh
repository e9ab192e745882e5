#!/bin/bash
# Builds xgpu, then runs on one device (default cuda:0): gpuinfo, the whole
# conformance suite and the library's correctness tests, the CUDA
# compile-path test, vector_add, a timed saxpy and kernelbench (SGEMM
# beside cuBLAS on the same buffers); prints a short table and the
# kernelbench lines. Meant for a machine with an NVIDIA GPU and
# no package access: CMocka may come as a copy in .gpucheck/cmocka (see
# scripts/gpu-check-prepare.sh). Writes the full log to $OUT or build-gpu/.
# Usage: scripts/gpu-check.sh [selector]
set -u
sel=${1:-cuda:0}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-gpu
logdir=${OUT:-$build}
mkdir -p "$build" "$logdir"
log=$logdir/gpu-check.log
: >"$log"

extra=()
if [ -d "$root/.gpucheck/cmocka" ]; then
    extra+=("-DCMAKE_PREFIX_PATH=$root/.gpucheck/cmocka")
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
    t0=$(date +%s.%N)
    out=$("$@" 2>&1)
    rc=$?
    t1=$(date +%s.%N)
    { echo "== $name: $*"; echo "$out"; echo "(exit $rc)"; } >>"$log"
    local result=PASS
    if [ "$rc" -eq 77 ]; then
        result=SKIP
    elif [ "$rc" -ne 0 ]; then
        result=FAIL
        failed=1
    fi
    local detail
    detail=$(echo "$out" | grep -E "verified|FAILED|PASSED|skipped|passed|error" | tail -1)
    detail=${detail##*): }
    rows+=("$(awk -v n="$name" -v r="$result" -v a="$t0" -v b="$t1" -v d="${detail:0:70}" \
              'BEGIN { printf "%-24s %-5s %7.2fs  %s", n, r, b - a, d }')")
}

export XGPU_TEST_DEVICES=$sel
check gpuinfo "$build/bin/gpuinfo"
for t in buffers launch events threads bad_input; do
    check "conformance.$t" "$build/bin/test_$t"
done
for t in gemm reduce stream; do
    check "library.$t" "$build/bin/test_lib_$t"
done
if [ -x "$build/bin/test_cuda_compile" ]; then
    check cuda.compile.nvrtc "$build/bin/test_cuda_compile"
fi
check vector_add "$build/bin/vector_add" "$sel"
check saxpy "$build/bin/saxpy" "$sel" 16777216
# SGEMM 4096^3 beside cuBLAS/rocBLAS on the same buffers, the fp32 sum.
check kernelbench "$build/bin/kernelbench" -d "$sel" --gemm-sizes 2048,4096 --reduce-mib 1024

echo
echo "xgpu gpu-check on $sel"
"$build/bin/gpuinfo" 2>/dev/null | grep -E "^[0-9]" | sed 's/^/  /'
printf '%-24s %-5s %8s  %s\n' check result time detail
for r in "${rows[@]}"; do
    echo "$r"
done
echo
grep -E "^(sgemm|sum) " "$log" || true
echo "full log: $log"
exit $failed
