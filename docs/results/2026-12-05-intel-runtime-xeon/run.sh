#!/bin/sh
# xgpu's built-in parameters on Intel's CPU runtime for OpenCL and on pocl,
# the same build, on one Intel Xeon host, two rounds; each gpubench run
# has its vendor peers beside it (CLBlast, OpenBLAS, clpeak, the
# device-to-device copy). No tuning record: an empty tuning database.
# Usage: BIN=/path/bin INTEL_ENV=/path/env.sh run.sh OUTDIR
# (INTEL_ENV sets OCL_ICD_VENDORS and LD_LIBRARY_PATH for the runtime's
# PyPI wheels intel-opencl-rt, intel-cmplr-lib-rt and tbb).
set -u
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
export XGPU_TUNE_DB="$out/empty-tune.json"
rm -f "$XGPU_TUNE_DB"
one() { # NAME ARGS...: one gpubench run into NAME.txt
    name=$1
    shift
    "$BIN/gpubench" "$@" >"$out/$name.txt" 2>&1
}
( . "$INTEL_ENV" && "$BIN/gpuinfo" -v >"$out/gpuinfo-intel.txt" 2>&1 )
"$BIN/gpuinfo" -v >"$out/gpuinfo-pocl.txt" 2>&1
for r in 1 2; do
    for impl in intel pocl; do
        (
            if [ "$impl" = intel ]; then
                . "$INTEL_ENV"
            fi
            one "$impl-gemm1024-$r" -b gemm --dtype f32,f64 --size 1024
            one "$impl-gemm2048-$r" -b gemm --dtype f32 --size 2048
            one "$impl-reduce256-$r" -b reduce --dtype f32,f64,i32 --size 256
            one "$impl-reduce1024-$r" -b reduce --dtype f32,f64,i32 --size 1024
            one "$impl-stream256-$r" -b stream --size 256
        )
    done
done
rm -f "$XGPU_TUNE_DB"
