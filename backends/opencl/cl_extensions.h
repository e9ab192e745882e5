/* The OpenCL backend's reading of a device's extension string
 * (cl_extensions.c): pure code, no OpenCL calls. */
#ifndef XGPU_CL_EXTENSIONS_H
#define XGPU_CL_EXTENSIONS_H

#include <stdbool.h>

/* Whether `name` is one of the space-separated names of `exts`. */
bool ocl__has_extension(const char *exts, const char *name);
/* Whether kernels built by this backend can use subgroups: the one rule
 * behind xgpu_device_info.subgroups and the prelude's XGPU_HAS_SUBGROUPS
 * (which the build option below sets). */
bool ocl__subgroups_usable(const char *exts);
/* The build option that tells the prelude: " -DXGPU__CL_SUBGROUPS=1", or
 * "" when subgroups are not usable. */
const char *ocl__subgroups_option(bool usable);

#endif
