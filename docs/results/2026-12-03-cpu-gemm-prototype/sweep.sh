#!/bin/bash
# The run of this folder, side by side: the prototype's shapes at n = 1024
# and 2048, then gpubench's xgpu, CLBlast and OpenBLAS rows. The harness is
# built in a temporary folder; the kernel is read from this one.
# Usage: docs/results/2026-12-03-cpu-gemm-prototype/sweep.sh  (GPUBENCH: its path)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d "${TMPDIR:-/tmp}/xgpu-proto.XXXXXX")
trap 'rm -rf "$bin"' EXIT
gcc -O2 -o "$bin/host" "$here/host.c" -lOpenCL -lopenblas -lm
cd "$here" # host reads mk.cl from the current folder
for n in 1024 2048; do
    "$bin/host" $n "-DMR=6 -DNV=4" 6 64 1 1
    "$bin/host" $n "-DMR=6 -DNV=4" 6 64 1 8 || true # groups of 8 need panels in eights
    "$bin/host" $n "-DMR=8 -DNV=2" 8 32 1 1
    "$bin/host" $n "-DMR=4 -DNV=4" 4 64 1 1
    "$bin/host" $n "-DMR=12 -DNV=2" 12 32 1 1
    "$bin/host" $n "-DMR=6 -DNV=4 -DRB=4 -DKC=128" 6 64 4 1
    "$bin/host" $n "-DMR=6 -DNV=4 -DRB=8 -DKC=256" 6 64 8 1
done
gpubench=${GPUBENCH:-$here/../../../build/bin/gpubench}
for n in 1024 2048; do
    "$gpubench" -b gemm --dtype f32 --size $n --time 1 2>&1 | grep -E "^gemm"
done
