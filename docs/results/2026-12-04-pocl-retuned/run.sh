#!/bin/bash
# pocl with the re-tuned shipped records (SHIPPED, this tree's build/)
# against the built-in parameters (XGPU_TUNE=off, the same build),
# alternating in one session, two rounds: GEMM 1024 (f32, f64) and 2048
# (f32) beside CLBlast and OpenBLAS, the sums and min/max/argmax at
# 256 MiB beside clpeak and the d2d copy, the stream kernels at 256 MiB.
set -u
out=$(cd "$(dirname "$0")" && pwd)
bin=$out/../../../build/bin
export XGPU_CACHE=off
for round in 1 2; do
    for which in OFF SHIPPED; do
        if [ "$which" = OFF ]; then tune=off; else tune=; fi
        run() { XGPU_TUNE=$tune "$bin/gpubench" "$@"; }
        run -b gemm --dtype f32,f64 --size 1024 >"$out/gemm1024-$which-$round.txt" 2>&1
        run -b gemm --dtype f32 --size 2048 >"$out/gemm2048-$which-$round.txt" 2>&1
        run -b reduce --dtype f32,f64,i32 --size 256 >"$out/reduce256-$which-$round.txt" 2>&1
        run -b stream --dtype f32 --size 256 >"$out/stream256-$which-$round.txt" 2>&1
    done
done
grep -H -E "^(gemm|reduce|stream) " "$out"/*.txt | sed 's|.*/||' | awk '{print $1, $2, $5, $6, $7, $8}'
