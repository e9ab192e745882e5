#!/bin/sh
# The reductions' CPU loops with and without the prefetch hints, side by
# side: two builds (A: before, B: with the hints), each on Intel's CPU
# runtime for OpenCL and on pocl, two rounds, A then B within each
# implementation so that each pair runs minutes apart at most. No tuning
# record (an empty tuning database): the built-in parameters. The stream
# kernels did not change between A and B; their pairs show the noise.
# Usage: BIN_A=/path/bin BIN_B=/path/bin INTEL_ENV=/path/env.sh run.sh OUTDIR
# (INTEL_ENV sets OCL_ICD_VENDORS and LD_LIBRARY_PATH for the runtime's
# PyPI wheels intel-opencl-rt, intel-cmplr-lib-rt and tbb).
set -u
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
export XGPU_TUNE_DB="$out/empty-tune.json"
rm -f "$XGPU_TUNE_DB"
for r in 1 2; do
    for impl in intel pocl; do
        (
            if [ "$impl" = intel ]; then
                . "$INTEL_ENV"
            fi
            for build in A B; do
                eval "bin=\$BIN_$build"
                for size in 256 1024; do
                    "$bin/gpubench" -b reduce --dtype f32,f64,i32 --size "$size" \
                        >"$out/$impl-$build-reduce$size-$r.txt" 2>&1
                done
                "$bin/gpubench" -b stream --size 256 >"$out/$impl-$build-stream256-$r.txt" 2>&1
            done
        )
    done
done
rm -f "$XGPU_TUNE_DB"
