#!/bin/bash
# The run of this folder: gpubench's GEMM rows on pocl with the register
# family's built-in shape, some of the tuner's other shapes, and the CPU
# family's former default, one after another in one session.
# Usage: docs/results/2026-12-03-cpu-gemm-registers/sweep.sh  (GPUBENCH: its path)
set -u
here=$(cd "$(dirname "$0")" && pwd)
gpubench=${GPUBENCH:-$here/../../../build/bin/gpubench}
row() { # dtype size params
    echo "== $1 $2 params ${3:-built-in}"
    XGPU_GEMM_PARAMS=$3 "$gpubench" -b gemm --dtype "$1" --size "$2" --time 1 2>&1 | grep -E "^gemm"
}
for n in 1024 2048; do
    row f32 $n ""
    row f32 $n 128,256,16,16,64,1,1
    for p in 24,64,128,6,64 96,64,256,6,64 48,64,512,6,64 48,128,256,6,64 64,32,256,8,32 \
        48,32,256,12,32 48,16,256,6,16; do
        row f32 $n $p,1,4
    done
done
row f64 1024 ""
row f64 1024 128,256,16,16,64,1,1
for p in 24,32,128,6,32 96,32,256,6,32 48,16,256,12,16 48,8,256,6,8; do
    row f64 1024 $p,1,4
done
