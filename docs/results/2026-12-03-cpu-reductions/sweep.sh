#!/bin/sh
# Reductions on pocl: the built-in (vec 64) beside vec 128 and 256, alternating, 3 rounds.
B=${B:-build/bin/gpubench}
for size in 256 1024; do
for round in 1 2 3; do
for vec in 64 128 256; do
  echo "== size $size round $round vec $vec"
  XGPU_REDUCE_PARAMS="group=4,gpcu=1,unroll=1,vec=$vec,chunked=1" $B -b reduce --size $size 2>&1 | grep -E "^reduce " | cut -c1-120
done; done; done
