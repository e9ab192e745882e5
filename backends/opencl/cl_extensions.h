/* The OpenCL backend's reading of what a device offers kernels, from its
 * extension string and type (cl_extensions.c): pure code, no OpenCL
 * calls. */
#ifndef XGPU_CL_EXTENSIONS_H
#define XGPU_CL_EXTENSIONS_H

#include <stdbool.h>
#include <stdint.h>

/* CL_DEVICE_TYPE_DEFAULT, _CPU, _GPU and _ACCELERATOR: bit values fixed by
 * the OpenCL specification, named here so this file needs no OpenCL
 * headers; cl_device_info.c asserts at compile time that they agree. */
enum {
    OCL__TYPE_DEFAULT = 1,
    OCL__TYPE_CPU = 2,
    OCL__TYPE_GPU = 4,
    OCL__TYPE_ACCELERATOR = 8,
};

/* Whether `name` is one of the space-separated names of `exts`. */
bool ocl__has_extension(const char *exts, const char *name);
/* Whether kernels built by this backend can use subgroups: the one rule
 * behind xgpu_device_info.subgroups and the prelude's XGPU_HAS_SUBGROUPS
 * (which the build option below sets). */
bool ocl__subgroups_usable(const char *exts);
/* The build option that tells the prelude: " -DXGPU__CL_SUBGROUPS=1", or
 * "" when subgroups are not usable. */
const char *ocl__subgroups_option(bool usable);
/* The build option that turns on the prelude's XGPU_PREFETCH,
 * " -DXGPU__CL_PREFETCH=1", for a device whose type is CPU alone (its
 * compiler emits the host's instructions, where a prefetch is a cache
 * hint); "" for the others. Oclgrind, which reports every type at once,
 * interprets the program and knows no prefetch. */
const char *ocl__prefetch_option(bool cpu_only);
/* Whether a CL_DEVICE_TYPE value is CPU alone, DEFAULT aside: true for
 * pocl's CPU devices (CPU, or CPU|DEFAULT for the first one), false for
 * GPUs and for oclgrind's CPU|GPU|ACCELERATOR. */
bool ocl__cpu_only(uint64_t type);

#endif
