#!/bin/bash
# Builds the release packages with cpack and checks them as a user would get
# them: the .tar.gz unpacked into an empty folder, with the build folder
# renamed so that nothing can come from it, must run gpuinfo and a verified
# gpubench on the first OpenCL device through its own $ORIGIN RUNPATH; the
# .deb must carry its metadata and files. Prints the glibc the bundle needs
# and what it takes from the system. Installs what is missing first (as
# scripts/run.sh does).
# Usage: scripts/bundle-check.sh [build-dir]   (default: build-bundle)
#   BUNDLE_DEVICE  the device gpubench runs on (default: opencl:0)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-bundle}
case $build in /*) ;; *) build=$PWD/$build ;; esac
device=${BUNDLE_DEVICE:-opencl:0}
SECONDS=0

say() { printf 'bundle-check: %s\n' "$*"; }
fail() {
    printf 'bundle-check: FAIL: %s\n' "$*" >&2
    exit 1
}

say "== build (Release, no tests) in $build"
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DXGPU_BUILD_TESTS=OFF \
      -DXGPU_BUILD_EXAMPLES=OFF -DXGPU_BACKEND_OPENCL=ON -DCMAKE_INSTALL_LIBDIR=lib >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null

say "== cpack"
rm -f "$build"/xgpu-*.tar.gz "$build"/xgpu_*.deb
(cd "$build" && cpack >cpack.log 2>&1) || { cat "$build/cpack.log"; fail "cpack failed"; }
grep "xgpu: \(Depends\|Recommends\)" "$build/cpack.log" || true
tarball=$(ls "$build"/xgpu-*.tar.gz)
deb=$(ls "$build"/xgpu_*.deb)
say "made $(basename "$tarball") and $(basename "$deb")"

say "== the .deb"
dpkg-deb --info "$deb"
dpkg-deb --contents "$deb"
info=$(dpkg-deb --info "$deb")
contents=$(dpkg-deb --contents "$deb")
version=$(sed -n 's/^project(xgpu VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
echo "$info" | grep -q "^ Package: xgpu$" || fail ".deb: no 'Package: xgpu'"
echo "$info" | grep -q "^ Version: $version-" || fail ".deb: version is not $version"
echo "$info" | grep -q "^ Architecture: $(dpkg --print-architecture)$" ||
    fail ".deb: architecture is not $(dpkg --print-architecture)"
echo "$info" | grep -q "^ Maintainer: xgpu developers$" || fail ".deb: no maintainer"
echo "$info" | grep -q "^ Depends: libc6 (>= " || fail ".deb: Depends does not name libc6"
for f in usr/bin/gpuinfo usr/bin/gpubench usr/lib/libxgpu.so.0 usr/lib/xgpu/libxgpu-opencl.so \
         usr/lib/xgpu/libxgpu-cuda.so usr/lib/xgpu/libxgpu-hip.so usr/include/xgpu.h \
         usr/lib/pkgconfig/xgpu.pc; do
    echo "$contents" | grep -Eq " \./$f( |$)" || fail ".deb lacks /$f"
done
say ".deb: metadata and files ok"

say "== the .tar.gz, unpacked with $build renamed"
moved=$build.moved-by-bundle-check
[ ! -e "$moved" ] || fail "$moved is there (an interrupted run?): move it back to $build first"
unpack=$(cd "$(mktemp -d "${TMPDIR:-/tmp}/xgpu-bundle.XXXXXX")" && pwd -P)
renamed=0
restore() {
    if [ "$renamed" = 1 ]; then
        mv "$moved" "$build"
    fi
    cd /
    rm -rf "$unpack"
}
trap restore EXIT
cp "$tarball" "$unpack/"
mv "$build" "$moved"
renamed=1
say "renamed $build to $(basename "$moved") until the end"
cd "$unpack"
tar xzf "$(basename "$tarball")"
bundle=$unpack/$(basename "$tarball" .tar.gz)
test -d "$bundle" || fail "the archive has no top folder $(basename "$bundle")"
cd "$bundle"
find . -type f | sort
# The ELF files of the bundle: programs, libxgpu, plugins.
elfs=$(find bin lib -type f \( -path 'bin/*' -o -name '*.so' -o -name '*.so.*' \) | sort)
for f in bin/gpuinfo bin/gpubench lib/libxgpu.so.0 lib/xgpu/libxgpu-opencl.so \
         lib/xgpu/libxgpu-cuda.so lib/xgpu/libxgpu-hip.so include/xgpu.h; do
    test -e "$f" || fail "the archive lacks $f"
done

say "== RUNPATH and libraries"
for prog in bin/gpuinfo bin/gpubench; do
    runpath=$(readelf -d "$prog" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
    echo "$prog: RUNPATH $runpath"
    [ "$runpath" = "\$ORIGIN/../lib" ] || fail "$prog: RUNPATH is '$runpath', not \$ORIGIN/../lib"
    libs=$(env -u LD_LIBRARY_PATH ldd "$prog")
    echo "$libs"
    if echo "$libs" | grep -q "not found"; then
        fail "$prog: a library is not found"
    fi
    echo "$libs" | grep -q "libxgpu.so.0 => $bundle/bin/../lib/libxgpu.so.0 " ||
        fail "$prog: libxgpu.so.0 does not come from the bundle"
done
# What the bundle takes from the system besides glibc: the README's list.
system=$(for f in $elfs; do
    readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
done | grep -Ev '^(libxgpu\.so|libc\.so|libm\.so|libdl\.so|libpthread\.so|ld-linux)' |
    sort -u | tr '\n' ' ' | sed 's/ $//')
say "from the system besides glibc: ${system:-nothing}"

say "== glibc"
glibc=$(for f in $elfs; do objdump -T "$f"; done |
    grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -1)
[ -n "$glibc" ] || fail "no GLIBC_ symbol version found"
needing=$(for f in $elfs; do
    objdump -T "$f" | grep -q "($glibc)" && printf '%s ' "$f"
done)
say "the bundle needs glibc ${glibc#GLIBC_} or newer (symbol version $glibc, in ${needing% })"

say "== bin/gpuinfo"
run() { env -u LD_LIBRARY_PATH -u XGPU_PLUGIN_PATH -u XGPU_BACKENDS "$@"; }
run bin/gpuinfo || fail "bin/gpuinfo exited $?"
say "== bin/gpuinfo --doctor"
# Its standard error goes to the log as it comes; the status is named
# (1: no device path passed the smoke test; 128+N: killed by signal N).
rc=0
doctor=$(run bin/gpuinfo --doctor) || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "$doctor"
    fail "bin/gpuinfo --doctor exited $rc"
fi
echo "$doctor"
# libxgpu names its plugins from the folder it was loaded from: bin/../lib.
plugins=$(echo "$doctor" | sed -n 's/^ *ok *plugin \(.*\)/\1/p')
[ -n "$plugins" ] || fail "gpuinfo --doctor loaded no plugin"
for plugin in $plugins; do
    case $plugin in
    "$bundle"/lib/xgpu/* | "$bundle"/bin/../lib/xgpu/*) ;;
    *) fail "plugin $plugin is not the bundle's" ;;
    esac
done
if echo "$doctor" | grep -q "$build"; then
    fail "gpuinfo --doctor names the build folder $build"
fi

say "== bin/gpubench -d $device (GEMM, reductions, launches; f32)"
run bin/gpubench -d "$device" -b gemm,reduce,launch --dtype f32 --json result.json ||
    fail "bin/gpubench exited $?"
grep -q '"schema": "xgpu.gpubench/1"' result.json || fail "result.json has no schema"
grep -q '"verified": true' result.json || fail "result.json has no verified result"
if grep -q '"verified": false' result.json; then
    fail "result.json has a result that failed verification"
fi
# The vendor libraries gpubench links must have run: their rows are there.
for peer in clblast openblas; do
    if readelf -d bin/gpubench | grep -q "(NEEDED).*lib$peer"; then
        grep -q "\"impl\": \"$peer\"" result.json || fail "gpubench links $peer but has no $peer row"
    fi
done
say "gpubench: $(grep -c '"verified": true' result.json) results verified"

# The kernel cache: the same benchmarks twice from an empty xgpu cache, with
# pocl's own cache of built programs emptied before each run, so that only
# xgpu's can make the second run's builds (first_s) cheaper.
say "== the kernel cache: two runs, the second loading xgpu's cached programs"
first_s() { sed -n 's/.*"first_s": \([0-9.eE+-]*\).*/\1/p' "$1" | awk '{ s += $1 } END { printf "%.3f", s }'; }
cache=$(mktemp -d)
for n in 1 2; do
    rm -rf "$cache/pocl"
    run env XGPU_CACHE_DIR="$cache/xgpu" POCL_CACHE_DIR="$cache/pocl" \
        bin/gpubench -d "$device" -b gemm,reduce --dtype f32 --size 64 --json "cache$n.json" \
        >/dev/null || fail "bin/gpubench (cache run $n) exited $?"
done
entries=$(find "$cache/xgpu" -name '*.xkc' | wc -l)
one=$(first_s cache1.json)
two=$(first_s cache2.json)
rm -rf "$cache"
say "first_s summed: $one s with an empty cache, $two s from $entries cached programs"
[ "$entries" -gt 0 ] || fail "the kernel cache holds no entry after a run"
awk -v a="$one" -v b="$two" 'BEGIN { exit !(b < a) }' ||
    fail "the second run's builds ($two s) were not cheaper than the first's ($one s)"

say "passed in $SECONDS s (bundle needs glibc ${glibc#GLIBC_}+)"
