#!/bin/sh
# Installs the Debian packages xgpu needs, skipping those already present.
# Uses sudo when not root. Usage: scripts/install-deps.sh [--tests]
# (without --tests: what the main job needs, CLBlast and clpeak included).
set -eu

pkgs="build-essential cmake pkg-config ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers
      pocl-opencl-icd clinfo libcjson-dev libopenblas-dev"
if [ "${1:-}" = "--tests" ]; then
    # The HIP backend's tests and the compile matrix use Debian's ROCm
    # runtime, its hiprtc and hipcc. The fuzzers need clang and its
    # libFuzzer runtime (libclang-rt-14-dev on Debian 12).
    pkgs="$pkgs libcmocka-dev libamdhip64-dev rocm-device-libs hipcc valgrind clang
          libclang-rt-14-dev"
else
    # gpubench compares with CLBlast and clpeak.
    pkgs="$pkgs libclblast-dev clpeak"
fi

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "xgpu: all required Debian packages are installed"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "xgpu: need root or sudo to install:$missing" >&2
    exit 1
fi
echo "xgpu: installing:$missing"
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
