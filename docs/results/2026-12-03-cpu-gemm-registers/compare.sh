#!/bin/bash
# The third run of this folder, after the defaults moved to the shapes the
# first two led with: xgpu's built-in GEMM beside the CPU family's former
# default, CLBlast, and OpenBLAS with the kernel it picks on this host and
# with its AVX-512 kernel (OPENBLAS_CORETYPE=SkylakeX), twice over.
# Usage: docs/results/2026-12-03-cpu-gemm-registers/compare.sh  (GPUBENCH: its path)
set -u
here=$(cd "$(dirname "$0")" && pwd)
gpubench=${GPUBENCH:-$here/../../../build/bin/gpubench}
row() { # dtype size params coretype
    echo "== $1 $2 params ${3:-built-in} openblas ${4:-picked}"
    XGPU_GEMM_PARAMS=$3 OPENBLAS_CORETYPE=$4 "$gpubench" -b gemm --dtype "$1" --size "$2" \
        --time 1 2>&1 | grep -E "^gemm"
}
for pass in 1 2; do
    for n in 1024 2048; do
        row f32 $n "" ""
        row f32 $n "" SkylakeX
        row f32 $n 128,256,16,16,64,1,1 ""
    done
    row f64 1024 "" ""
    row f64 1024 "" SkylakeX
    row f64 1024 128,256,16,16,64,1,1 ""
done
