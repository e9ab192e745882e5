#!/bin/sh
# Copies this machine's CMocka and cJSON (headers and libraries, as real
# files: symbolic links may not survive being carried) into .gpucheck/,
# which git ignores, so that a GPU machine without package access can build
# the tests and gpubench: carry .gpucheck with the working tree, then run
# scripts/gpu-check.sh there. Where this machine has them, it also copies the
# OpenCL headers, the Khronos ICD loader (ocl-icd) and CLBlast, so that the
# OpenCL backend can be built there and tried on the vendor's OpenCL driver.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)

# copy_lib DEST SONAME: the library's real file under its soname and its
# development name, both regular files.
copy_lib() {
    real=$(readlink -f "$2")
    cp "$real" "$1/$(basename "$2")"
    dev=$(basename "$2" | sed 's/\.so\..*/.so/')
    cp "$real" "$1/$dev"
}

libdir() {
    dpkg -L "$1" | grep -E "/$2\.so\.[0-9]+$" | head -1
}

dst=$root/.gpucheck/cmocka
rm -rf "$dst"
mkdir -p "$dst/include" "$dst/lib"
cp "$(dpkg -L libcmocka-dev | grep '/cmocka\.h$' | head -1)" "$dst/include/"
copy_lib "$dst/lib" "$(libdir libcmocka0 libcmocka)"
echo "prepared $dst"

dst=$root/.gpucheck/cjson
rm -rf "$dst"
mkdir -p "$dst/include/cjson" "$dst/lib"
cp "$(dpkg -L libcjson-dev | grep '/cjson/cJSON\.h$' | head -1)" "$dst/include/cjson/"
copy_lib "$dst/lib" "$(libdir libcjson1 libcjson)"
echo "prepared $dst"
# Optional: OpenCL headers, the ICD loader and CLBlast.
if [ -f /usr/include/CL/cl.h ] && dpkg -s ocl-icd-libopencl1 >/dev/null 2>&1; then
    dst=$root/.gpucheck/opencl
    rm -rf "$dst"
    mkdir -p "$dst/include" "$dst/lib"
    cp -r /usr/include/CL "$dst/include/"
    copy_lib "$dst/lib" "$(libdir ocl-icd-libopencl1 libOpenCL)"
    echo "prepared $dst"
    clblast=$(dpkg -L libclblast1 2>/dev/null | grep -E '/libclblast\.so\.[0-9]+$' | head -1)
    if [ -n "$clblast" ] && [ -f /usr/include/clblast_c.h ]; then
        dst=$root/.gpucheck/clblast
        rm -rf "$dst"
        mkdir -p "$dst/include" "$dst/lib"
        cp /usr/include/clblast_c.h /usr/include/clblast_half.h "$dst/include/" 2>/dev/null ||
            cp /usr/include/clblast_c.h "$dst/include/"
        copy_lib "$dst/lib" "$clblast"
        echo "prepared $dst"
    fi
fi
du -sh "$root/.gpucheck" | sed 's/^/gpu-check-prepare: size /'
find "$root/.gpucheck" -type l -print | sed 's/^/gpu-check-prepare: unexpected link: /'
