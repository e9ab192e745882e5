#!/bin/sh
# usage: run_install_test.sh BUILD_DIR CONSUMER_DIR EXAMPLE_SOURCE WORK_DIR
set -eu
build=$1 consumer=$2 example=$3 work=$4
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

echo "== install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
test -f "$prefix/include/xgpu.h"
test -f "$prefix/include/xgpu_backend.h"
ls "$prefix"/lib*/xgpu/libxgpu-opencl.so

echo "== every installed program starts from the prefix"
# Without the build tree's library path: only the program's own RUNPATH.
for prog in "$prefix"/bin/*; do
    if ! env -u LD_LIBRARY_PATH "$prog" --help >"$work/help.out" 2>&1; then
        cat "$work/help.out"
        echo "installed $(basename "$prog") does not start (--help failed)"
        exit 1
    fi
    echo "$(basename "$prog") --help: ok"
done

echo "== find_package(xgpu)"
cmake -S "$consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
      -DEXAMPLE_SOURCE="$example" >"$work/configure.log"
cmake --build "$work/consumer" >"$work/build.log"
"$work/consumer/consumer" | tee "$work/find_package.out"
grep -q verified "$work/find_package.out"

echo "== pkg-config xgpu"
pcdir=$(dirname "$(ls "$prefix"/lib*/pkgconfig/xgpu.pc)")
export PKG_CONFIG_PATH="$pcdir"
pkg-config --exists "xgpu >= 0.6"
libdir=$(pkg-config --variable=libdir xgpu)
# shellcheck disable=SC2046
${CC:-cc} -std=c11 -o "$work/pc_consumer" "$example" $(pkg-config --cflags xgpu) \
    $(pkg-config --libs xgpu) -lm -Wl,-rpath,"$libdir"
"$work/pc_consumer" | tee "$work/pkg_config.out"
grep -q verified "$work/pkg_config.out"
echo "install test passed"
