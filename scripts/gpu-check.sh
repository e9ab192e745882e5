#!/bin/bash
# Builds xgpu with all cores, then runs on one device (default cuda:0):
# gpuinfo and gpuinfo --doctor, the whole conformance suite and the
# library's correctness tests, the NVRTC compile test, the examples, and
# gpubench (GEMM f32/f64/tf32/f16/bf16 beside the vendor BLAS on the same
# buffers, cuBLAS's int8, 64 strided-batched bf16 GEMMs of 512^3, sums
# beside a device-to-device copy, the stream kernels, pinned and pageable
# transfers, launches beside the backend's raw launch; every
# device at once with the p2p matrix and telemetry; gpuinfo --watch), and
# on CUDA the library kernels again with NVRTC turned off (the PTX built
# into the plugin, compiled by the driver). Where
# the NVIDIA driver ships its OpenCL library, it is registered in a folder
# of the build's own and the suite and gpubench run on that path to the GPU
# too. Prints a short table and gpubench's rows; writes the log, gpubench's
# JSON and its report (Markdown and HTML) to $OUT, or to the build folder.
# Meant for a machine with an NVIDIA GPU and no package access: CMocka,
# cJSON, the OpenCL headers and loader and CLBlast may come as copies in
# .gpucheck/ (scripts/gpu-check-prepare.sh makes them).
# Usage: scripts/gpu-check.sh [selector]
# Environment: GPU_CHECK_BUILD (build folder, default build-gpu),
# GPU_CHECK_GEMM_N (GEMM size, default 4096), GPU_CHECK_MIB (MiB for the
# memory benchmarks, default 1024), GPU_CHECK_TIMEOUT (seconds a check may
# take, default 300), GPU_CHECK_SWEEP=1 (also sweep XGPU_GEMM_PARAMS with
# scripts/gemm-sweep.sh, and XGPU_REDUCE_UNROLL), GPU_CHECK_TUNE (seconds
# per kernel, dtype and class of the short gpubench tune, default 6; its
# tune.json lands beside the log), GPU_CHECK_CMAKE_ARGS
# (extra configure arguments, e.g. -DXGPU_BACKEND_OPENCL=OFF),
# GPU_CHECK_NO_CMOCKA=1 (build as if CMocka were absent).
# Exit status: 0 all passed, 1 a check failed, 2 the build failed, 3 the
# device was not found (its checks say SKIP).
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
for dep in cmocka cjson opencl clblast; do
    if [ -d "$root/.gpucheck/$dep" ]; then
        prefix="${prefix:+$prefix;}$root/.gpucheck/$dep"
        # libclblast finds the carried ICD loader only through this.
        export LD_LIBRARY_PATH="$root/.gpucheck/$dep/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
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
# The machine, for the record: driver, clocks as the driver reports them,
# toolkit. Nothing here changes a setting.
{
    echo "== machine"
    date -u +%Y-%m-%dT%H:%M:%SZ
    uname -srm
    grep -m1 "model name" /proc/cpuinfo
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,temperature.gpu,persistence_mode,compute_mode --format=csv 2>&1
        nvidia-smi 2>&1 | sed -n 3p
    fi
    for nvcc in nvcc /usr/local/cuda/bin/nvcc; do
        if command -v "$nvcc" >/dev/null 2>&1; then
            "$nvcc" --version 2>&1 | tail -2
            break
        fi
    done
} >>"$log" 2>&1

# OpenCL on the same GPU: when the driver ships its OpenCL library and no
# ICD folder was chosen, register it in a folder of our own (the machine's
# /etc/OpenCL/vendors is left alone, and its other drivers, such as a CPU
# OpenCL, are then not seen) so that the OpenCL backend finds it.
if [ -z "${OCL_ICD_VENDORS:-}" ] && ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
    nvocl=""
    for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
        if [ -e "$d/libnvidia-opencl.so.1" ]; then
            nvocl=$d/libnvidia-opencl.so.1
            break
        fi
    done
    if [ -z "$nvocl" ]; then
        nvocl=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1/ { print $NF; exit }')
    fi
    if [ -n "$nvocl" ]; then
        mkdir -p "$build/icd"
        echo "$nvocl" >"$build/icd/nvidia.icd"
        export OCL_ICD_VENDORS=$build/icd
        echo "gpu-check: OpenCL: registered $nvocl through OCL_ICD_VENDORS=$build/icd" | tee -a "$log"
    else
        echo "gpu-check: OpenCL: no libnvidia-opencl.so.1 on this machine" >>"$log"
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
    # A hang must not eat the machine's time: each check has a limit.
    out=$(timeout "${GPU_CHECK_TIMEOUT:-300}" "$@" 2>&1)
    rc=$?
    t1=$(date +%s.%N)
    { echo "== $name: $*"; echo "$out"; echo "(exit $rc)"; } >>"$log"
    local result=PASS
    if [ "$rc" -eq 124 ]; then
        result=FAIL
        failed=1
        out="$out
timed out after ${GPU_CHECK_TIMEOUT:-300} s"
    elif [ "$rc" -eq 77 ] || { [ "$rc" -eq 1 ] && [ -n "${no_device_ok:-}" ]; }; then
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

# With the vendor's OpenCL registered above, the suite runs on both paths
# to the GPU.
tsel=$sel
if [ -n "${OCL_ICD_VENDORS:-}" ] && [ "$OCL_ICD_VENDORS" = "$build/icd" ]; then
    tsel="$sel,opencl"
fi
export XGPU_TEST_DEVICES=$tsel
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
for t in buffers launch events threads bad_input lifetimes selectors; do
    check "conformance.$t" "$build/bin/test_$t"
done
for t in gemm reduce stream; do
    check "library.$t" "$build/bin/test_lib_$t"
done
check vector_add "$build/bin/vector_add" "$sel"
check saxpy "$build/bin/saxpy" "$sel" 16777216
# gpubench on the device, and on the same GPU through OpenCL when the
# vendor's OpenCL driver was registered above: GEMM 4096^3 (f32, f64,
# tf32, f16 and bf16 with C in f32, each beside the vendor BLAS on the same
# buffers, cuBLAS's int8, OpenBLAS on the host), then
# 1 GiB sums beside a device-to-device copy, the stream kernels, pinned and
# pageable transfers and launches beside the backend's raw launch.
bsel=$tsel
check gpubench.gemm "$build/bin/gpubench" -d "$bsel" -b gemm --size "${GPU_CHECK_GEMM_N:-4096}" \
    --dtype f32,f64,tf32,f16,bf16,int8 --json "$logdir/gpubench-gemm.json"
# Strided-batched, as attention and grouped layers run it: 64 GEMMs of
# 512^3 per run, bf16 (f16 and f32 beside it) next to
# cublasGemmStridedBatchedEx (a few seconds).
check gpubench.gemm.batched "$build/bin/gpubench" -d "$sel" -b gemm --dtype bf16,f16,f32 \
    --batch 64 --size 512 --json "$logdir/gpubench-gemm-batched.json"
check gpubench.memory "$build/bin/gpubench" -d "$bsel" -b reduce,stream,transfer,launch \
    --size "${GPU_CHECK_MIB:-1024}" --json "$logdir/gpubench-memory.json"
# The verdict: gpubench check's short set with health and telemetry, its
# result file and its verdicts kept (a device that is not OK fails here:
# the log says why). Its figures become the model's measured reference.
check gpubench.check "$build/bin/gpubench" check -d "$bsel" \
    --save "$logdir/gpubench-check-run.json" --json "$logdir/gpubench-check.json"
# The fleet features on this node: every device of the backend at once,
# then the peer-to-peer matrix (direct where CUDA or HIP has a peer path),
# with NVML's or ROCm SMI's telemetry in every result of the JSON; then
# gpuinfo --watch for three intervals.
check gpubench.fleet "$build/bin/gpubench" --all-devices -d "${sel%%:*}" -b stream,p2p \
    --size 256 --json "$logdir/gpubench-fleet.json"
check gpuinfo.watch "$build/bin/gpuinfo" --watch -i 0.5 --count 3 --jsonl "$logdir/watch.jsonl"
# Without NVRTC: the library kernels from the PTX built into the plugin,
# compiled by the driver, verified as usual (a fresh cache, so nothing
# comes from an earlier run's binaries).
if [ "${sel%%:*}" = cuda ]; then
    check cuda.builtin_kernels /usr/bin/env XGPU_NVRTC=none XGPU_CACHE_DIR="$build/cache-nonvrtc" \
        "$build/bin/gpubench" -d "$sel" -b gemm,reduce,stream --size 256
    rm -rf "$build/cache-nonvrtc"
fi
reports=()
for f in "$logdir/gpubench-gemm.json" "$logdir/gpubench-gemm-batched.json" \
    "$logdir/gpubench-memory.json" \
    "$logdir/gpubench-fleet.json" "$logdir/gpubench-check-run.json"; do
    if [ -s "$f" ]; then
        reports+=("$f")
    fi
done
if [ "${#reports[@]}" -gt 0 ]; then
    check gpubench.report "$build/bin/gpubench" report -o "$logdir/gpubench-report" "${reports[@]}"
fi
# The autotuner: its tests, then a short tune of the device (GPU_CHECK_TUNE
# seconds per kernel, dtype and class, default 6) into tune.json beside the
# log (to ship with scripts/tune-ship.py), then GEMM and the sums again
# with the tuned parameters, to set beside the rows above.
check library.tune /usr/bin/env XGPU_TUNE_DB="$build/tune-test.json" "$build/bin/test_tune"
if [ -z "$no_device" ]; then
    check gpubench.tune /usr/bin/env XGPU_TUNE_DB="$logdir/tune.json" "$build/bin/gpubench" tune \
        -d "$sel" -k gemm,sum,argmax,stream --dtype f32,f64 --time "${GPU_CHECK_TUNE:-6}"
    # The bf16 GEMM's fragment kernel, briefly (3 s a class), into the same
    # tune.json.
    check gpubench.tune.bf16 /usr/bin/env XGPU_TUNE_DB="$logdir/tune.json" "$build/bin/gpubench" \
        tune -d "$sel" -k gemm --dtype bf16 --time 3
    check gpubench.tuned /usr/bin/env XGPU_TUNE_DB="$logdir/tune.json" "$build/bin/gpubench" \
        -d "$sel" -b gemm,reduce --dtype f32,f64 --size "${GPU_CHECK_GEMM_N:-4096}" \
        --json "$logdir/gpubench-tuned.json"
fi
# Tuning sweeps, on request: XGPU_GEMM_PARAMS for f32 GEMM (a table and
# gemm-sweep.csv), and XGPU_REDUCE_UNROLL for the f32 sum.
if [ -n "${GPU_CHECK_SWEEP:-}" ] && [ -z "$no_device" ]; then
    GEMM_SWEEP_GPUBENCH=$build/bin/gpubench GEMM_SWEEP_CSV=$logdir/gemm-sweep.csv \
        bash "$root/scripts/gemm-sweep.sh" "$sel" "${GPU_CHECK_GEMM_N:-4096}" >"$build/sweep.txt" 2>&1
    cat "$build/sweep.txt" >>"$log"
    {
        echo "== reduce sweep: XGPU_REDUCE_UNROLL, f32 sum of ${GPU_CHECK_MIB:-1024} MiB"
        for u in 1 2 4 8 16; do
            XGPU_REDUCE_UNROLL=$u "$build/bin/gpubench" -d "$sel" -b reduce --dtype f32 \
                --size "${GPU_CHECK_MIB:-1024}" 2>&1 | grep -E "^reduce +xgpu" | sed "s/^/unroll $u: /"
        done
    } >"$build/reduce-sweep.txt" 2>&1
    cat "$build/reduce-sweep.txt" >>"$log"
fi
# The clocks again, now that the GPU has worked.
if command -v nvidia-smi >/dev/null 2>&1; then
    { echo "== clocks after the benchmarks"
      nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv 2>&1
    } >>"$log"
fi

echo
echo "xgpu gpu-check on $sel"
"$build/bin/gpuinfo" 2>/dev/null | grep -E "^[0-9]" | sed 's/^/  /'
printf '%-24s %-5s %8s  %s\n' check result time detail
for r in "${rows[@]}"; do
    echo "$r"
done
echo
grep -E "^(gemm|reduce|stream|transfer|launch) " "$log" || true
for f in "$build/sweep.txt" "$build/reduce-sweep.txt"; do
    if [ -n "${GPU_CHECK_SWEEP:-}" ] && [ -s "$f" ]; then
        echo
        cat "$f"
    fi
done
echo "full log: $log"
if [ -n "$no_device" ]; then
    echo "gpu-check: device $sel not found: $no_device"
    exit 3
fi
exit $failed
