#!/bin/sh
# Installs the packages xgpu needs on Debian 12, Ubuntu 22.04 or 24.04,
# skipping those already present. Uses sudo when not root.
# Usage: scripts/install-deps.sh [--tests]
# (without --tests: what the main job needs, CLBlast and clpeak included;
# --tests adds what the suite needs to that).
# A package the release does not have is left out with what it would have
# added; only the build's own needs are an error.
set -eu

osr() { sed -n "s/^$1=//p" /etc/os-release 2>/dev/null | tr -d '"'; }
os_id=$(osr ID)
version=$(osr VERSION_ID)
distro=$(osr PRETTY_NAME)
distro=${distro:-${os_id:-this system} $version}

# Names that differ between releases. Debian 12's are the reference.
clang_rt=libclang-rt-14-dev # clang's runtime, libFuzzer included
rocm="libamdhip64-dev rocm-device-libs hipcc"
skipped=""
case "$os_id:$version" in
debian:12) ;;
ubuntu:22.04)
    # clang 14 keeps its runtime in libclang-common-14-dev; no ROCm packages.
    clang_rt=libclang-common-14-dev
    skipped=$rocm
    rocm=""
    ;;
ubuntu:24.04)
    # The default clang's runtime; ROCm 5.7's device libraries name their LLVM.
    clang_rt=libclang-rt-dev
    rocm="libamdhip64-dev rocm-device-libs-17 hipcc"
    ;;
*)
    echo "xgpu: $distro is not Debian 12, Ubuntu 22.04 or 24.04; trying Debian 12's package names"
    ;;
esac

required="build-essential cmake pkg-config ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers"
pkgs="$required pocl-opencl-icd clinfo libcjson-dev libopenblas-dev"
if [ "${1:-}" = "--tests" ]; then
    # The HIP backend's tests and the compile matrix use the distribution's
    # ROCm runtime, its hiprtc and hipcc. The fuzzers need clang and its
    # libFuzzer runtime. The telemetry tests load the distribution's ROCm
    # SMI for real. oclgrind checks every library kernel for data races
    # and uninitialised values (ctest -L oclgrind). Python runs the test of
    # scripts/tune-ship.py.
    required="$required libcmocka-dev"
    # gpubench's tests run its CLBlast and clpeak peers too (gpubench check
    # needs the vendor GEMM's figure).
    pkgs="$pkgs libcmocka-dev $rocm librocm-smi64-1 valgrind clang $clang_rt oclgrind python3"
    pkgs="$pkgs libclblast-dev clpeak"
else
    # gpubench compares with CLBlast and clpeak.
    pkgs="$pkgs libclblast-dev clpeak"
    skipped=""
fi

# What a package adds, for the message when a release lacks it.
adds() {
    case $1 in
    libamdhip64-dev | rocm-device-libs* | hipcc)
        echo "ROCm for the HIP backend's tests and the compile matrix, which skip without it" ;;
    clang | libclang-rt-* | libclang-common-*) echo "clang and libFuzzer, for tests/fuzz" ;;
    librocm-smi64-1) echo "ROCm SMI, which the telemetry test loads for real and skips without" ;;
    valgrind) echo "CI's valgrind step" ;;
    oclgrind) echo "oclgrind, for tests/oclgrind, which skips without it" ;;
    python3) echo "Python, for the test of scripts/tune-ship.py, which skips without it" ;;
    libclblast-dev) echo "CLBlast, gpubench's OpenCL GEMM peer" ;;
    clpeak) echo "gpubench's reference bandwidth row" ;;
    libopenblas-dev) echo "gpubench's host GEMM baseline" ;;
    libcjson-dev) echo "gpubench, which is not built without it" ;;
    pocl-opencl-icd) echo "an OpenCL device on the CPU" ;;
    clinfo) echo "the OpenCL driver's own device listing" ;;
    *) echo "needed to build or test xgpu" ;;
    esac
}

for p in $skipped; do
    echo "xgpu: not available on $distro: $p ($(adds "$p"))"
done

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "xgpu: all required packages are installed"
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
$sudo apt-get update -qq
install=""
for p in $missing; do
    if apt-cache show "$p" >/dev/null 2>&1; then
        install="$install $p"
    else
        case " $required " in
        *" $p "*)
            hint=""
            [ "$os_id" != ubuntu ] || hint=" (is universe enabled? sudo add-apt-repository universe)"
            echo "xgpu: $p is not in the package lists of $distro; it is needed to build xgpu$hint" >&2
            exit 1
            ;;
        esac
        echo "xgpu: not available on $distro: $p ($(adds "$p"))"
    fi
done
if [ -z "$install" ]; then
    exit 0
fi
echo "xgpu: installing:$install"
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $install
