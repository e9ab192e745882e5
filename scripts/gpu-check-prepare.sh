#!/bin/sh
# Copies this machine's CMocka (header and library) into .gpucheck/cmocka,
# which git ignores, so that a GPU machine without package access can build
# the tests: carry .gpucheck with the working tree, then run
# scripts/gpu-check.sh there.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dst=$root/.gpucheck/cmocka
header=$(dpkg -L libcmocka-dev | grep '/cmocka\.h$' | head -1)
lib=$(dpkg -L libcmocka0 | grep 'libcmocka\.so\.0\.' | head -1)
mkdir -p "$dst/include" "$dst/lib"
cp "$header" "$dst/include/"
cp "$lib" "$dst/lib/"
(cd "$dst/lib" && ln -sf "$(basename "$lib")" libcmocka.so.0 && ln -sf libcmocka.so.0 libcmocka.so)
echo "prepared $dst"
