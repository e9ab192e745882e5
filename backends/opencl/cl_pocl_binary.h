/* pocl's program binaries, as far as the OpenCL backend needs to read
 * them: pure code, no OpenCL headers, unit-tested (tests/unit). */
#ifndef XGPU_CL_POCL_BINARY_H
#define XGPU_CL_POCL_BINARY_H

#include <stdbool.h>
#include <stddef.h>

/* Whether `data` is a pocl program binary that lacks files of pocl's own
 * kernel cache (a program.bc of no bytes, or none): pocl before 6.0
 * serializes a program from the files of its cache folder, and another
 * process compiling the same program may have just removed program.bc
 * there (its pocl_write_file removes the old file before renaming the new
 * one over it). A process that loads such a binary aborts inside pocl
 * (pocl_binary.c: assertion `len > 0'). False for whole pocl binaries,
 * for pocl format versions it does not know and for other drivers'
 * binaries. */
bool ocl__pocl_binary_partial(const void *data, size_t size);

#endif
