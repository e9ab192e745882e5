#!/bin/sh
# Installs what is missing, builds with warnings as errors and runs the
# whole test suite (unit, loader, conformance on every device, examples,
# install). Usage: scripts/test.sh [build-dir]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-test}

"$root/scripts/install-deps.sh" --tests
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXGPU_WERROR=ON \
      -DXGPU_BACKEND_OPENCL=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
