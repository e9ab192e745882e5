/* What a device's extension string and type offer kernels: pure code (no
 * OpenCL calls), shared by the device info and the build, and tested
 * alone. */
#include "cl_extensions.h"

#include <string.h>

bool ocl__has_extension(const char *exts, const char *name) {
    size_t n = strlen(name);
    if (!exts || !n) {
        return false;
    }
    /* Extension names are space-separated: match whole words only. */
    for (const char *p = strstr(exts, name); p; p = strstr(p + 1, name)) {
        bool start = p == exts || p[-1] == ' ';
        bool end = p[n] == '\0' || p[n] == ' ';
        if (start && end) {
            return true;
        }
    }
    return false;
}

bool ocl__subgroups_usable(const char *exts) {
    /* xgpu builds OpenCL C without -cl-std, so the compiler's default
     * (OpenCL C 1.x) applies: the subgroup built-ins the prelude uses
     * (get_sub_group_size, get_sub_group_local_id, sub_group_reduce_*)
     * exist where an extension declares them, cl_khr_subgroups or Intel's
     * cl_intel_subgroups. OpenCL 2.1's core subgroups
     * (CL_DEVICE_MAX_NUM_SUB_GROUPS) and 3.0's __opencl_c_subgroups
     * feature need OpenCL C 2.0 or 3.0 and do not count. */
    return ocl__has_extension(exts, "cl_khr_subgroups") ||
           ocl__has_extension(exts, "cl_intel_subgroups");
}

const char *ocl__subgroups_option(bool usable) {
    return usable ? " -DXGPU__CL_SUBGROUPS=1" : "";
}

const char *ocl__prefetch_option(bool cpu_only) {
    return cpu_only ? " -DXGPU__CL_PREFETCH=1" : "";
}

bool ocl__cpu_only(uint64_t type) {
    return (type & ~(uint64_t)OCL__TYPE_DEFAULT) == OCL__TYPE_CPU;
}
