#!/bin/bash
# The second run of this folder: the shapes that led the first (sweep.sh),
# again, one after another, to tell a shape from the machine's noise.
# Usage: docs/results/2026-12-03-cpu-gemm-registers/sweep2.sh  (GPUBENCH: its path)
set -u
here=$(cd "$(dirname "$0")" && pwd)
gpubench=${GPUBENCH:-$here/../../../build/bin/gpubench}
row() { # dtype size params
    echo "== $1 $2 params ${3:-built-in}"
    XGPU_GEMM_PARAMS=$3 "$gpubench" -b gemm --dtype "$1" --size "$2" --time 1 2>&1 | grep -E "^gemm"
}
for n in 1024 2048; do
    for p in "" 96,64,256,6,64,1,4 48,64,512,6,64,1,4 96,64,512,6,64,1,4 64,32,256,8,32,1,4 \
        128,32,256,8,32,1,4 ""; do
        row f32 $n "$p"
    done
    for p in "" 96,32,256,6,32,1,4 96,32,512,6,32,1,4 ""; do
        row f64 $n "$p"
    done
done
