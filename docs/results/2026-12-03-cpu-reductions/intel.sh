#!/bin/sh
# On Intel's CPU runtime for OpenCL (PyPI intel-opencl-rt, intel-cmplr-lib-rt
# and tbb, registered through OCL_ICD_VENDORS): the reductions at 256 MiB,
# the commit before's built-in and its argmax beside this commit's built-in
# (a group of one vector of work-items, 2 a core), alternating, 3 rounds.
# intel-groups.log is the run that chose the groups: the former built-in,
# then group=16 with 1 and 2 groups a core, forced through
# XGPU_REDUCE_PARAMS on the commit before's build.
BASE=${BASE:?build folder of the commit before}
NEW=${NEW:-build}
for round in 1 2 3; do
    echo "== round $round base built-in"
    "$BASE/bin/gpubench" -b reduce --size 256 2>&1 | grep -E '^reduce '
    echo "== round $round base group=16,gpcu=2"
    XGPU_REDUCE_PARAMS=group=16,gpcu=2,unroll=1,vec=64,chunked=1 "$BASE/bin/gpubench" -b reduce --size 256 2>&1 | grep -E '^reduce '
    echo "== round $round new built-in"
    "$NEW/bin/gpubench" -b reduce --size 256 2>&1 | grep -E '^reduce '
done
