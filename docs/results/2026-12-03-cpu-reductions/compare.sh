#!/bin/sh
# argmax before and after the three-operation loop, on the default device
# (pocl here), alternating the two builds in one session: BASE is a build
# of the commit before, NEW of this one. f32 at 256 MiB and 1 GiB, 4 rounds.
BASE=${BASE:?build folder of the commit before}
NEW=${NEW:-build}
for size in 256 1024; do
    for round in 1 2 3 4; do
        for b in "$BASE" "$NEW"; do
            echo "== size $size round $round build $b"
            "$b/bin/gpubench" -b reduce --dtype f32 --size "$size" 2>&1 | grep -E '^reduce '
        done
    done
done
