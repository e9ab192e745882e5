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
# memory benchmarks, default 1024; the fleet and built-in-kernel runs take
# 256, or GPU_CHECK_MIB where it is less), GPU_CHECK_TIMEOUT (seconds a
# check may take, default 300), GPU_CHECK_SWEEP=1 (also sweep XGPU_GEMM_PARAMS with
# scripts/gemm-sweep.sh, and XGPU_REDUCE_UNROLL), GPU_CHECK_TUNE (seconds
# per kernel, dtype and class of the short gpubench tune, default 6; its
# tune.json lands beside the log), GPU_CHECK_CMAKE_ARGS
# (extra configure arguments, e.g. -DXGPU_BACKEND_OPENCL=OFF),
# GPU_CHECK_NO_CMOCKA=1 (build as if CMocka were absent),
# GPU_CHECK_BUDGET_S (seconds for the whole run, build included: a check
# starts only while time is left, and is stopped when it runs out; the
# checks it could not run say SKIP, and the report is still made),
# GPU_CHECK_BUILT=1 (use the binaries already in the build folder: no
# configure, no build), GPU_CHECK_SKIP (check names to leave out, comma-
# separated shell patterns, e.g. 'conformance.*,library.tune'). The
# numbers are whole and at most 9 digits (only the budget may be 0);
# anything else exits 2 before the build starts.
# The checks run in this order: correctness (conformance, library,
# examples), gpubench beside the vendor libraries, the tune and the tuned
# rows, the autotuner's own test, the sweeps; then the report. The summary
# table is rewritten to gpu-check-summary.txt beside the log after every
# check, so a run that is killed still leaves it.
# Exit status: 0 all passed, 1 a check failed, 2 a setting is wrong or the
# build failed, 3 the device was not found (its checks say SKIP), 4 all
# that ran passed but the time budget left checks out.
set -u
t_start=$(date +%s)
sel=${1:-cuda:0}
root=$(cd "$(dirname "$0")/.." && pwd)
# The time and size settings and the switches, checked before anything is
# built. need_number NAME DEFAULT UNIT MIN: prints the variable NAME (DEFAULT
# where unset or empty, and an empty DEFAULT stays empty) as a decimal
# number; it must be whole, at most 9 digits and MIN or more, else the
# message goes to stderr and the status is 2. Leading zeros are decimal
# ("08" is 8, "00" is 0).
need_number() {
    local v=${!1:-$2} what="a whole number"
    [ -z "$v" ] && return 0
    [ "$4" -gt 0 ] && what="a positive whole number"
    case $v in
    '' | *[!0-9]* | ??????????*) ;;
    *) if [ $((10#$v)) -ge "$4" ]; then
        echo $((10#$v))
        return 0
    fi ;;
    esac
    echo "gpu-check: $1 '$v' is not $what of $3 (at most 9 digits)" >&2
    return 2
}
# need_flag NAME: the variable NAME is unset, empty, 0 (off) or 1 (on);
# anything else ("yes", "false") stops the run with exit 2. Prints 1 or "".
need_flag() {
    case ${!1:-} in
    '' | 0) ;;
    1) echo 1 ;;
    *)
        echo "gpu-check: $1 '${!1}' is not 1 (on) or 0 (off)" >&2
        return 2
        ;;
    esac
}
built=$(need_flag GPU_CHECK_BUILT) || exit 2
sweep=$(need_flag GPU_CHECK_SWEEP) || exit 2
no_cmocka=$(need_flag GPU_CHECK_NO_CMOCKA) || exit 2
budget=$(need_number GPU_CHECK_BUDGET_S "" seconds 0) || exit 2
limit=$(need_number GPU_CHECK_TIMEOUT 300 seconds 1) || exit 2
# The memory benchmarks' size; the fleet and built-in-kernel runs take
# 256 MiB, or less where GPU_CHECK_MIB asks for less.
mib=$(need_number GPU_CHECK_MIB 1024 MiB 1) || exit 2
gemm_n=$(need_number GPU_CHECK_GEMM_N 4096 rows 1) || exit 2
tune_s=$(need_number GPU_CHECK_TUNE 6 seconds 1) || exit 2
small_mib=$((mib < 256 ? mib : 256))
build=${GPU_CHECK_BUILD:-$root/build-gpu}
logdir=${OUT:-$build}
mkdir -p "$build" "$logdir"
log=$logdir/gpu-check.log
: >"$log"
# This run's results only: a check that does not run this time must not
# leave an earlier run's file to the report. Only the files this script
# writes are removed (tune.json stays: a tune goes on from it); other files
# in $OUT are left alone.
for f in gemm gemm-batched memory check check-run fleet tuned report; do
    rm -f "$logdir/gpubench-$f.json"
done
rm -f "$logdir/gpubench-report.md" "$logdir/gpubench-report.html" "$logdir/watch.jsonl" \
    "$logdir/gemm-sweep.csv" "$build/sweep.txt" "$build/reduce-sweep.txt"

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
if [ -z "$no_cmocka" ] &&
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
# Ninja for a new build folder; one configured before keeps its generator
# (cmake refuses another, and the folder is never emptied here).
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build/CMakeCache.txt" ]; then
    extra+=(-G Ninja)
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

if [ -n "$built" ]; then
    echo "== build: skipped (GPU_CHECK_BUILT): the binaries in $build" | tee -a "$log"
    if [ ! -x "$build/bin/gpuinfo" ]; then
        echo "gpu-check: GPU_CHECK_BUILT is set but $build/bin/gpuinfo does not exist: build first, or unset it"
        exit 2
    fi
else
    echo "== build" | tee -a "$log"
    if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" &&
           cmake --build "$build" -j "$(nproc)"; } >>"$log" 2>&1; then
        tail -30 "$log"
        echo "gpu-check: build failed (log: $log)"
        exit 2
    fi
fi
echo "== built in $(($(date +%s) - t_start)) s" >>"$log"

summary=$logdir/gpu-check-summary.txt
rows=()
failed=0
over_budget=0
# Seconds of the budget left (a large number without a budget).
time_left() {
    if [ -z "$budget" ]; then
        echo 1000000
    else
        echo $((budget - ($(date +%s) - t_start)))
    fi
}
# The table so far, for a run that is stopped before its end.
write_summary() {
    {
        printf '%-24s %-5s %8s  %s\n' check result time detail
        printf '%s\n' "${rows[@]}"
    } >"$summary"
}
skip_row() {
    rows+=("$(printf '%-24s %-5s %7s   %s' "$1" SKIP - "$2")")
    echo "== $1: SKIP: $2" >>"$log"
    write_summary
}
# Whether a check is left out by GPU_CHECK_SKIP.
skipped_by_request() {
    local pat pats=()
    # Split on commas only: the patterns are matched below, never expanded
    # against file names here.
    IFS=, read -r -a pats <<<"${GPU_CHECK_SKIP:-}"
    for pat in "${pats[@]}"; do
        # shellcheck disable=SC2053
        if [ -n "$pat" ] && [[ $1 == $pat ]]; then
            return 0
        fi
    done
    return 1
}
# Whether a check may start: not left out, and time left in the budget.
may_run() {
    if skipped_by_request "$1"; then
        skip_row "$1" "left out (GPU_CHECK_SKIP)"
        return 1
    fi
    if [ "$(time_left)" -le 0 ]; then
        over_budget=1
        skip_row "$1" "no time left (GPU_CHECK_BUDGET_S=$budget)"
        return 1
    fi
    return 0
}
# Whether every verdict of a gpubench check JSON (schema
# xgpu.gpubench-check/1) is UNKNOWN: its "summary" line counts the devices
# per verdict, '"summary": {"OK": 0, ..., "UNKNOWN": 1, ...}'. False when
# the file is missing, of another schema, or counts no device.
all_unknown() {
    local summary total=0 unknown=0 pair name count
    grep -q '"schema": "xgpu.gpubench-check/1"' "$1" 2>/dev/null || return 1
    summary=$(sed -n 's/^ *"summary": {\(.*\)}$/\1/p' "$1")
    [ -n "$summary" ] || return 1
    local IFS=,
    for pair in $summary; do
        name=$(echo "$pair" | sed -n 's/^ *"\([A-Z_]*\)": *[0-9]* *$/\1/p')
        count=$(echo "$pair" | sed -n 's/^ *"[A-Z_]*": *\([0-9]*\) *$/\1/p')
        [ -n "$name" ] && [ -n "$count" ] || return 1
        total=$((total + count))
        if [ "$name" = UNKNOWN ]; then
            unknown=$count
        fi
    done
    [ "$total" -gt 0 ] && [ "$unknown" -eq "$total" ]
}

check() {
    local name=$1
    shift
    local t0 t1 out rc
    if [ ! -x "$1" ]; then
        skip_row "$name" "not built in this configuration"
        return
    fi
    may_run "$name" || return
    # A hang must not eat the machine's time: each check has a limit, and
    # none runs past the budget.
    # The budget may have run out since may_run looked: the cap stays at
    # least 1 s (timeout 0 would mean no limit at all).
    local cap=$limit cut=""
    local left
    left=$(time_left)
    if [ -n "$budget" ] && [ "$left" -lt "$cap" ]; then
        cap=$((left > 0 ? left : 1))
        cut=1
    fi
    t0=$(date +%s.%N)
    out=$(timeout "$cap" "$@" 2>&1)
    rc=$?
    t1=$(date +%s.%N)
    { echo "== $name: $*"; echo "$out"; echo "(exit $rc)"; } >>"$log"
    local result=PASS
    if [ "$rc" -eq 124 ] && [ -n "$cut" ]; then
        result=SKIP
        over_budget=1
        out="$out
stopped after $cap s: the time budget (GPU_CHECK_BUDGET_S=$budget) ran out"
    elif [ "$rc" -eq 124 ]; then
        result=FAIL
        failed=1
        out="$out
timed out after $cap s"
    elif [ "$rc" -eq 77 ] || { [ "$rc" -eq 1 ] && [ -n "${no_device_ok:-}" ]; }; then
        result=SKIP
    elif [ "$rc" -eq 1 ] && [ "$name" = gpubench.check ] &&
        all_unknown "$logdir/gpubench-check.json"; then
        # Every verdict in its JSON UNKNOWN: the model has no reference (a CPU, a card
        # not in the table). Its figures are in the log, not judged.
        result=SKIP
        out="$out
UNKNOWN: no reference for this model: its figures are shown, not judged"
    elif [ "$rc" -ne 0 ]; then
        result=FAIL
        failed=1
    fi
    local detail
    detail=$(echo "$out" | grep -E "verified|verification|FAILED|PASSED|skipped|passed|error|timed out after|stopped after|UNKNOWN: |^gpubench check: [0-9]+ dev" | tail -1)
    detail=${detail##*): }
    rows+=("$(awk -v n="$name" -v r="$result" -v a="$t0" -v b="$t1" -v d="${detail:0:70}" \
              'BEGIN { printf "%-24s %-5s %7.2fs  %s", n, r, b - a, d }')")
    write_summary
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
            skip_row "$1" "no device $sel"
        else
            skip_row "$1" "not built in this configuration"
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
check gpubench.gemm "$build/bin/gpubench" -d "$bsel" -b gemm --size "$gemm_n" \
    --dtype f32,f64,tf32,f16,bf16,int8 --json "$logdir/gpubench-gemm.json"
# Strided-batched, as attention and grouped layers run it: 64 GEMMs of
# 512^3 per run, bf16 (f16 and f32 beside it) next to
# cublasGemmStridedBatchedEx (a few seconds).
check gpubench.gemm.batched "$build/bin/gpubench" -d "$sel" -b gemm --dtype bf16,f16,f32 \
    --batch 64 --size 512 --json "$logdir/gpubench-gemm-batched.json"
check gpubench.memory "$build/bin/gpubench" -d "$bsel" -b reduce,stream,transfer,launch \
    --size "$mib" --json "$logdir/gpubench-memory.json"
# The verdict: gpubench check's short set with health and telemetry, its
# result file and its verdicts kept (a device that is UNDERPERFORMING or
# worse fails
# here, the log says why; one whose model has no reference, every verdict
# UNKNOWN, says SKIP). Its figures become the model's measured reference.
check gpubench.check "$build/bin/gpubench" check -d "$bsel" \
    --save "$logdir/gpubench-check-run.json" --json "$logdir/gpubench-check.json"
# The fleet features on this node: every device of the backend at once,
# then the peer-to-peer matrix (direct where CUDA or HIP has a peer path),
# with NVML's or ROCm SMI's telemetry in every result of the JSON; then
# gpuinfo --watch for three intervals.
check gpubench.fleet "$build/bin/gpubench" --all-devices -d "${sel%%:*}" -b stream,p2p \
    --size "$small_mib" --json "$logdir/gpubench-fleet.json"
check gpuinfo.watch "$build/bin/gpuinfo" --watch -i 0.5 --count 3 --jsonl "$logdir/watch.jsonl"
# Without NVRTC: the library kernels from the PTX built into the plugin,
# compiled by the driver, verified as usual (a fresh cache, so nothing
# comes from an earlier run's binaries).
if [ "${sel%%:*}" = cuda ]; then
    check cuda.builtin_kernels /usr/bin/env XGPU_NVRTC=none XGPU_CACHE_DIR="$build/cache-nonvrtc" \
        "$build/bin/gpubench" -d "$sel" -b gemm,reduce,stream --size "$small_mib"
    rm -rf "$build/cache-nonvrtc"
fi
# The tuner: a short tune of the device (GPU_CHECK_TUNE seconds per kernel,
# dtype and class, default 6) into tune.json beside the log (to ship with
# scripts/tune-ship.py), then GEMM and the sums again with the tuned
# parameters, to set beside the rows above.
if [ -z "$no_device" ]; then
    check gpubench.tune /usr/bin/env XGPU_TUNE_DB="$logdir/tune.json" "$build/bin/gpubench" tune \
        -d "$sel" -k gemm,sum,argmax,stream --dtype f32,f64 --time "$tune_s"
    check gpubench.tuned /usr/bin/env XGPU_TUNE_DB="$logdir/tune.json" "$build/bin/gpubench" \
        -d "$sel" -b gemm,reduce --dtype f32,f64 --size "$gemm_n" \
        --json "$logdir/gpubench-tuned.json"
    # The bf16 GEMM's fragment kernel, briefly (3 s a class), into the same
    # tune.json.
    check gpubench.tune.bf16 /usr/bin/env XGPU_TUNE_DB="$logdir/tune.json" "$build/bin/gpubench" \
        tune -d "$sel" -k gemm --dtype bf16 --time 3
fi
# The autotuner's own test (a database of its own).
check library.tune /usr/bin/env XGPU_TUNE_DB="$build/tune-test.json" "$build/bin/test_tune"
# Tuning sweeps, on request: XGPU_GEMM_PARAMS for f32 GEMM (a table and
# gemm-sweep.csv), and XGPU_REDUCE_UNROLL for the f32 sum. Each stops
# where the budget runs out; what it measured by then is kept.
if [ -n "$sweep" ] && [ -z "$no_device" ]; then
    if may_run gemm.sweep; then
        t0=$(date +%s)
        # Four checks' time, or what is left of the budget (at least 1 s).
        cap=$((limit * 4)) cut=""
        left=$(time_left)
        if [ -n "$budget" ] && [ "$left" -lt "$cap" ]; then
            cap=$((left > 0 ? left : 1)) cut=1
        fi
        GEMM_SWEEP_GPUBENCH=$build/bin/gpubench GEMM_SWEEP_CSV=$logdir/gemm-sweep.csv \
            timeout "$cap" bash "$root/scripts/gemm-sweep.sh" "$sel" "$gemm_n" \
            >"$build/sweep.txt" 2>&1
        rc=$?
        cat "$build/sweep.txt" >>"$log"
        if [ "$rc" -eq 0 ]; then
            rows+=("$(printf '%-24s %-5s %7ss  %s' gemm.sweep PASS $(($(date +%s) - t0)) \
                "$(($(wc -l <"$logdir/gemm-sweep.csv") - 1)) settings in gemm-sweep.csv")")
        elif [ "$rc" -eq 124 ] && [ -n "$cut" ]; then
            over_budget=1
            rows+=("$(printf '%-24s %-5s %7ss  %s' gemm.sweep SKIP $(($(date +%s) - t0)) \
                "the time budget ran out; the settings it ran are in gemm-sweep.csv")")
        elif [ "$rc" -eq 124 ]; then
            rows+=("$(printf '%-24s %-5s %7ss  %s' gemm.sweep SKIP $(($(date +%s) - t0)) \
                "stopped at its limit, 4 x GPU_CHECK_TIMEOUT; the rest is in gemm-sweep.csv")")
        else
            failed=1
            rows+=("$(printf '%-24s %-5s %7ss  %s' gemm.sweep FAIL $(($(date +%s) - t0)) \
                "$(tail -1 "$build/sweep.txt" | cut -c1-70)")")
        fi
        write_summary
    fi
    if may_run reduce.sweep; then
        t0=$(date +%s)
        cut_short=""
        {
            echo "== reduce sweep: XGPU_REDUCE_UNROLL, f32 sum of $mib MiB"
            for u in 1 2 4 8 16; do
                left=$(time_left)
                if [ "$left" -le 0 ]; then
                    echo "unroll $u and above: not run, the time budget ran out"
                    cut_short=1
                    break
                fi
                XGPU_REDUCE_UNROLL=$u timeout "$((left < limit ? left : limit))" \
                    "$build/bin/gpubench" -d "$sel" -b reduce \
                    --dtype f32 --size "$mib" 2>&1 |
                    grep -E "^reduce +xgpu" | sed "s/^/unroll $u: /"
                if [ "${PIPESTATUS[0]}" -eq 124 ]; then
                    echo "unroll $u: stopped at the time limit"
                    if [ "$left" -lt "$limit" ]; then
                        cut_short=1
                        break
                    fi
                fi
            done
        } >"$build/reduce-sweep.txt" 2>&1
        cat "$build/reduce-sweep.txt" >>"$log"
        n_rows=$(grep -oE "^unroll [0-9]+: reduce" "$build/reduce-sweep.txt" | sort -u | wc -l)
        result=PASS
        why=""
        if [ -n "$cut_short" ]; then
            result=SKIP
            over_budget=1
            why="; the time budget ran out"
        elif [ "$n_rows" -eq 0 ]; then
            result=FAIL
            failed=1
        fi
        rows+=("$(printf '%-24s %-5s %7ss  %s' reduce.sweep "$result" $(($(date +%s) - t0)) \
            "$n_rows of 5 unroll settings measured$why")")
        write_summary
    fi
fi
# The report of every result file so far, made even when the budget ran
# out (it takes a second).
reports=()
for f in "$logdir/gpubench-gemm.json" "$logdir/gpubench-gemm-batched.json" \
    "$logdir/gpubench-memory.json" "$logdir/gpubench-tuned.json" \
    "$logdir/gpubench-fleet.json" "$logdir/gpubench-check-run.json"; do
    if [ -s "$f" ]; then
        reports+=("$f")
    fi
done
if [ "${#reports[@]}" -gt 0 ]; then
    budget_saved=$budget
    budget=""
    check gpubench.report "$build/bin/gpubench" report -o "$logdir/gpubench-report" "${reports[@]}"
    budget=$budget_saved
fi
# The clocks again, now that the GPU has worked.
if command -v nvidia-smi >/dev/null 2>&1; then
    { echo "== clocks after the benchmarks"
      nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv 2>&1
    } >>"$log"
fi

# The summary: the table, then gpubench's rows and the sweeps' tables; on
# the terminal and in gpu-check-summary.txt.
{
    echo "xgpu gpu-check on $sel ($(($(date +%s) - t_start)) s${budget:+ of a $budget s budget})"
    "$build/bin/gpuinfo" 2>/dev/null | grep -E "^[0-9]" | sed 's/^/  /'
    printf '%-24s %-5s %8s  %s\n' check result time detail
    printf '%s\n' "${rows[@]}"
    echo
    grep -E "^(gemm|reduce|stream|transfer|launch) " "$log" || true
    for f in "$build/sweep.txt" "$build/reduce-sweep.txt"; do
        if [ -n "$sweep" ] && [ -s "$f" ]; then
            echo
            cat "$f"
        fi
    done
} >"$summary"
echo
cat "$summary"
echo "full log: $log"
echo "summary: $summary"
if [ -n "$no_device" ]; then
    echo "gpu-check: device $sel not found: $no_device"
    exit 3
fi
if [ "$failed" -ne 0 ]; then
    exit 1
fi
if [ "$over_budget" -ne 0 ]; then
    echo "gpu-check: the time budget (GPU_CHECK_BUDGET_S=$budget) left checks out: their rows say SKIP"
    exit 4
fi
exit 0
