#!/bin/sh
# xgpu's built-in parameters on pocl, one AMD EPYC host, beside CLBlast,
# OpenBLAS, clpeak and the device-to-device copy. No tuning record: an
# empty tuning database. Rounds 1 and 2 run everything; rounds 3 and 4
# (ROUNDS="3 4" KINDS=reduce) only the reductions.
# Usage: BIN=/path/bin run.sh OUTDIR
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
"$BIN/gpuinfo" -v >"$out/gpuinfo-pocl.txt" 2>&1
for r in ${ROUNDS:-1 2}; do
    case ${KINDS:-all} in
    all)
        one "pocl-gemm1024-$r" -b gemm --dtype f32,f64 --size 1024
        one "pocl-gemm2048-$r" -b gemm --dtype f32 --size 2048
        ;;
    esac
    one "pocl-reduce256-$r" -b reduce --dtype f32,f64,i32 --size 256
    one "pocl-reduce1024-$r" -b reduce --dtype f32,f64,i32 --size 1024
    case ${KINDS:-all} in
    all) one "pocl-stream256-$r" -b stream --size 256 ;;
    esac
done
rm -f "$XGPU_TUNE_DB"
