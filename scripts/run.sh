#!/bin/sh
# The main job on a new machine: install what is missing, build, list every
# compute device (and why a backend is unavailable), then on each device a
# quick verified check (vector_add, saxpy) and kernelbench (SGEMM beside
# CLBlast, the fp32 sum beside clpeak's bandwidth).
# Usage: scripts/run.sh [build-dir]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DXGPU_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null

echo "== gpuinfo"
status=0
"$build/bin/gpuinfo" || status=$?
if [ "$status" -ne 0 ]; then
    echo "no device to run on"
    exit "$status"
fi

echo
echo "== quick check on every device path"
# The last column of each device line lists its paths: "cuda:0, opencl:1".
paths=$("$build/bin/gpuinfo" | grep -E '^[0-9]' | sed -E 's/.*  //; s/, / /g')
for path in $paths; do
    "$build/bin/vector_add" "$path" || status=1
    "$build/bin/saxpy" "$path" || status=1
done

echo
echo "== kernelbench on every device path (CLBlast's first run compiles its kernels)"
for path in $paths; do
    "$build/bin/kernelbench" -d "$path" || status=1
done
exit "$status"
