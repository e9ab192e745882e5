#!/bin/sh
# gpubench -b reduce with the cases of an f32 size timed in rounds
# (fbc6b4c) on pocl, no tuning record, clpeak read before and after;
# TAG=sides names the files of the runs at bf9c64b, where the f64 and i32
# sums join the f32 cases' rounds.
# Usage: BIN=/path/bin [TAG=name] run.sh OUTDIR
set -u
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
export XGPU_TUNE_DB="$out/empty-tune.json"
rm -f "$XGPU_TUNE_DB"
for r in 1 2 3; do
    "$BIN/gpubench" -b reduce --dtype f32,f64,i32 --size 256 >"$out/pocl-${TAG:+$TAG-}reduce256-$r.txt" 2>&1
    "$BIN/gpubench" -b reduce --dtype f32,f64,i32 --size 1024 >"$out/pocl-${TAG:+$TAG-}reduce1024-$r.txt" 2>&1
done
rm -f "$XGPU_TUNE_DB"
