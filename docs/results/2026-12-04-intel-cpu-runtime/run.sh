#!/bin/sh
# Before (BASE: a build of adeb7a9) and after (NEW: this change) on Intel's
# CPU runtime for OpenCL, alternated, each case twice; then NEW on pocl.
# Usage: BASE=/path/bin NEW=/path/bin INTEL_ENV=/path/env.sh run.sh OUTDIR
# (INTEL_ENV sets OCL_ICD_VENDORS and LD_LIBRARY_PATH for the runtime's
# PyPI wheels intel-opencl-rt, intel-cmplr-lib-rt and tbb).
set -u
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
( . "$INTEL_ENV"
  "$NEW/gpuinfo" > "$out/gpuinfo-intel.txt" 2>&1
  for r in 1 2; do
    for b in BASE NEW; do
      eval bin=\$$b
      "$bin/gpubench" -b reduce --dtype f32,f64,i32 --size 256 --time 1 \
        > "$out/intel-reduce256-$b-$r.txt" 2>&1
      "$bin/gpubench" -b reduce --dtype f32,f64,i32 --size 1024 --time 1 \
        > "$out/intel-reduce1024-$b-$r.txt" 2>&1
      "$bin/gpubench" -b stream --size 256 --time 1 > "$out/intel-stream256-$b-$r.txt" 2>&1
      "$bin/gpubench" -b gemm --dtype f32,f64 --size 1024 --time 1 \
        > "$out/intel-gemm1024-$b-$r.txt" 2>&1
    done
  done )
"$NEW/gpubench" -b gemm,reduce,stream --dtype f32 --size 1024 --time 1 > "$out/pocl-NEW.txt" 2>&1
"$BASE/gpubench" -b gemm,reduce,stream --dtype f32 --size 1024 --time 1 > "$out/pocl-BASE.txt" 2>&1
