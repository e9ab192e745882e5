#!/bin/sh
# The main job on a new machine: install what is missing, build, list every
# compute device (and why a backend is unavailable), then gpubench's quick
# suite on every device (xgpu beside the vendor library and OpenBLAS, every
# result verified), its results also in gpubench.json, and gpubench check's
# verdict per device on that file (the quick suite's sizes judge health and
# identity, not speed: gpubench check alone runs the sizes that do).
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
echo "== gpubench quick suite (CLBlast's first run compiles its kernels)"
"$build/bin/gpubench" --json gpubench.json || status=1

echo
echo "== gpubench check gpubench.json (a verdict per device; UNKNOWN: no reference for the model)"
"$build/bin/gpubench" check gpubench.json || true
exit "$status"
