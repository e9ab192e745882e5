#!/bin/bash
# Small SGEMMs on the default device (pocl here): the register family's
# built-in shape (96 rows a group) beside smaller ones, one after
# another, the built-in again last, to tell a shape from the machine's noise.
# Usage: docs/results/2026-12-03-cpu-gemm-small/sweep.sh  (GPUBENCH: its path)
set -u
here=$(cd "$(dirname "$0")" && pwd)
gpubench=${GPUBENCH:-$here/../../../build/bin/gpubench}
row() { # size params
    echo "== f32 $1 params ${2:-built-in}"
    XGPU_GEMM_PARAMS=$2 "$gpubench" -b gemm --dtype f32 --size "$1" --time 0.5 2>&1 | grep -E "^gemm"
}
for n in 128 256 512; do
    for p in "" 48,64,512,6,64,1,4 24,64,512,6,64,1,4 48,32,512,6,32,1,4 96,32,512,6,32,1,4 \
        24,32,512,6,32,1,4 ""; do
        row $n "$p"
    done
done
