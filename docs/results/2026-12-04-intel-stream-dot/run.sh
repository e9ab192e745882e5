#!/bin/bash
# Stream kernels before (BASE, a build of 559b4f5 at
# /tmp/base) and after (NEW, this tree's build/) the dot's CPU layout,
# alternating, on Intel's CPU runtime (env.sh of the PyPI wheels, see
# ../2026-12-04-intel-cpu-runtime/README.md) and on pocl; the dot with
# its default parameters and with the group-chunked layout forced.
set -u
out=$(cd "$(dirname "$0")" && pwd)
export XGPU_CACHE=off
forced="group=16,gpcu=4,chunked=2,unroll=0"
for round in 1 2; do
    for which in BASE NEW; do
        [ "$which" = BASE ] && bin=/tmp/base/build/bin || bin=$out/../../../build/bin
        (. /tmp/tf-intel/env.sh
         "$bin/gpubench" -b stream --size 256 >"$out/intel-stream256-$which-$round.txt" 2>&1
         "$bin/gpubench" -b stream --size 1024 >"$out/intel-stream1024-$which-$round.txt" 2>&1)
        "$bin/gpubench" -b stream --size 256 >"$out/pocl-stream256-$which-$round.txt" 2>&1
        XGPU_STREAM_PARAMS=$forced "$bin/gpubench" -b stream --size 256 \
            >"$out/pocl-stream256-chunked2-$which-$round.txt" 2>&1
    done
done
grep -H "^stream" "$out"/*.txt | sed 's|.*/||' | awk '{print $1, $5, $6, $7, $8}'
