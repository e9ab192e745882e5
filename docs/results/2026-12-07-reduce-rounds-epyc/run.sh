#!/bin/sh
# gpubench -b reduce with the cases of an f32 size timed in rounds
# (fbc6b4c) on pocl, no tuning record, clpeak read before and after.
# Usage: BIN=/path/bin run.sh OUTDIR
set -u
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
export XGPU_TUNE_DB="$out/empty-tune.json"
rm -f "$XGPU_TUNE_DB"
for r in 1 2 3; do
    "$BIN/gpubench" -b reduce --dtype f32,f64,i32 --size 256 >"$out/pocl-reduce256-$r.txt" 2>&1
    "$BIN/gpubench" -b reduce --dtype f32,f64,i32 --size 1024 >"$out/pocl-reduce1024-$r.txt" 2>&1
done
rm -f "$XGPU_TUNE_DB"
