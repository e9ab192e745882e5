#!/bin/sh
# gemm_oclgrind.sh TEST_PROGRAM: a GEMM test's `tiny` cases (the GPU
# family; the fragment kernel's variants) under oclgrind (data races,
# uninitialized values), through oclgrind's ICD as
# the only OpenCL platform, its checks turned on by its variables (not the
# oclgrind wrapper, whose preloaded runtime a sanitizer build refuses).
# 77 (skipped) without oclgrind; fails when the program fails or oclgrind
# reports anything. OCLGRIND_ICD overrides where its library is looked for.
prog=$1
icd=${OCLGRIND_ICD:-/usr/lib/oclgrind/liboclgrind-rt-icd.so}
if [ ! -f "$icd" ]; then
    echo "skipped: oclgrind's ICD library ($icd) not found (Debian: oclgrind)"
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/xgpu-oclgrind-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
echo "$icd" >"$dir/oclgrind.icd"
mkdir "$dir/cache"
# A cache of its own: binaries built for another device must not be used.
OCL_ICD_VENDORS=$dir OCL_ICD_FILENAMES= XGPU_BACKENDS=opencl XGPU_CACHE_DIR=$dir/cache \
    OCLGRIND_DATA_RACES=1 OCLGRIND_UNINITIALIZED=1 "$prog" tiny >"$dir/out" 2>&1
rc=$?
cat "$dir/out"
if [ $rc -ne 0 ]; then
    echo "FAILED: exit status $rc"
    exit 1
fi
if ! grep -q "PASSED" "$dir/out"; then
    echo "FAILED: the tests did not run"
    exit 1
fi
# oclgrind's reports name the kernel and the work-item ("Kernel: ...",
# "Entity: Global(...) Local(...)").
if grep -q -i -e "Entity: " -e "data race" -e "Uninitialized" -e "Invalid read" -e "Invalid write" \
    "$dir/out"; then
    echo "FAILED: oclgrind reported errors"
    exit 1
fi
echo "oclgrind: no errors"
