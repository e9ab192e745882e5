/* Which ABI the loaded HIP runtime speaks, and reading it: the numbering
 * of hipDeviceAttribute_t and the layout of hipDeviceProp_t. Both changed
 * under the same function names (ROCm 5.0 renumbered the attributes, ROCm
 * 6 versioned the property struct as hipGetDevicePropertiesR0600), and
 * Hygon's libgalaxyhip keeps the old ones whatever HIP version it reports:
 * asked with the wrong numbers a runtime answers another attribute, or
 * none, and a struct of the wrong size is written past its end. */
#define _GNU_SOURCE
#include "hip_internal.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From ROCm 5.2's hip_runtime_api.h (checked against 6.x). */
static const hip_attributes attributes_modern = {.max_threads_per_block = 56,
                                                 .max_block_x = 26,
                                                 .max_block_y = 27,
                                                 .max_block_z = 28,
                                                 .max_grid_x = 29,
                                                 .max_grid_y = 30,
                                                 .max_grid_z = 31,
                                                 .shared_per_block = 74,
                                                 .total_constant = 83,
                                                 .warp_size = 87,
                                                 .clock_khz = 5,
                                                 .memory_clock_khz = 60,
                                                 .memory_bus_width = 59,
                                                 .cu_count = 63,
                                                 .l2_cache = 19,
                                                 .shared_per_cu = 10002,
                                                 .ecc = 0};

/* HIP before ROCm 5.0 (checked against ROCm 4.5.2's header), and Hygon's
 * libgalaxyhip. */
static const hip_attributes attributes_legacy = {.max_threads_per_block = 0,
                                                 .max_block_x = 1,
                                                 .max_block_y = 2,
                                                 .max_block_z = 3,
                                                 .max_grid_x = 4,
                                                 .max_grid_y = 5,
                                                 .max_grid_z = 6,
                                                 .shared_per_block = 7,
                                                 .total_constant = 8,
                                                 .warp_size = 9,
                                                 .clock_khz = 11,
                                                 .memory_clock_khz = 12,
                                                 .memory_bus_width = 13,
                                                 .cu_count = 14,
                                                 .l2_cache = 16,
                                                 .shared_per_cu = 23,
                                                 .ecc = 41};

/* Where gcnArchName sits in each layout (hip_api.h). */
enum { R0000_ARCH_OFFSET = 396, R0600_ARCH_OFFSET = 1160 };
/* More than either struct: a runtime of a later layout writes no further. */
enum { PROPS_MAX = 16384 };

/* Is the library libgalaxyhip, by the name it was asked for or the file a
 * link leads to (a DTK's libamdhip64.so.5 may be a link to it)? */
static bool is_galaxyhip(const hip_runtime *rt) {
    char real[PATH_MAX];
    const char *base = NULL;
    if (realpath(rt->path, real)) {
        base = strrchr(real, '/');
    }
    return strstr(rt->name, "galaxyhip") || strstr(rt->path, "galaxyhip") ||
           (base && strstr(base, "galaxyhip"));
}

void hip__choose_abi(hip_runtime *rt) {
    rt->legacy_abi = is_galaxyhip(rt) || rt->version < 50000000;
    rt->attributes = rt->legacy_abi ? &attributes_legacy : &attributes_modern;
    /* The versioned symbol says what it writes; without it (ROCm 5,
     * libgalaxyhip) hipGetDeviceProperties writes the 792-byte struct. */
    rt->props = rt->hipGetDevicePropertiesR0600 ? HIP_PROPS_R0600 : HIP_PROPS_R0000;
}

const char *hip__abi_about(const hip_runtime *rt) {
    if (rt->legacy_abi) {
        return rt->props == HIP_PROPS_R0600
                   ? "legacy attribute numbers, hipDeviceProp_tR0600"
                   : "legacy ABI: pre-ROCm 5.0 attribute numbers, 792-byte hipDeviceProp_t";
    }
    return rt->props == HIP_PROPS_R0600 ? "ROCm 6 ABI: hipDeviceProp_tR0600"
                                        : "ROCm 5 ABI: 792-byte hipDeviceProp_t";
}

static bool arch_char(char c) {
    return isalnum((unsigned char)c) || c == ':' || c == '+' || c == '-' || c == '_';
}

/* A "gfx..." string starting a field (after a NUL) and ending in one. */
static bool arch_at(const char *p, const char *end) {
    if (strncmp(p, "gfx", 3) != 0 || p[-1] != '\0') {
        return false;
    }
    for (const char *q = p; q < end; q++) {
        if (*q == '\0') {
            return q - p >= 5;
        }
        if (!arch_char(*q)) {
            return false;
        }
    }
    return false;
}

void hip__device_arch(const hip_runtime *rt, int dev, char *out, size_t size) {
    out[0] = '\0';
    char *props = calloc(1, PROPS_MAX);
    if (!props) {
        return;
    }
    hipError_t e = rt->props == HIP_PROPS_R0600 ? rt->hipGetDevicePropertiesR0600(props, dev)
                   : rt->hipGetDeviceProperties ? rt->hipGetDeviceProperties(props, dev)
                                                : hipErrorNotFound;
    if (e == hipSuccess) {
        const char *known =
            props + (rt->props == HIP_PROPS_R0600 ? R0600_ARCH_OFFSET : R0000_ARCH_OFFSET);
        if (arch_at(known, props + PROPS_MAX)) {
            snprintf(out, size, "%.*s", (int)size - 1, known);
        } else {
            /* A layout xgpu does not know: the first "gfx..." field after
             * the 256-byte name. */
            hip__services->log(
                HIP_BACKEND_NAME, XGPU_LOG_DEBUG,
                "%s: no gcnArchName at offset %d of hipDeviceProp_t; searching it", rt->path,
                rt->props == HIP_PROPS_R0600 ? R0600_ARCH_OFFSET : R0000_ARCH_OFFSET);
            for (const char *p = props + 256; p < props + PROPS_MAX - 8; p++) {
                if (arch_at(p, props + PROPS_MAX)) {
                    snprintf(out, size, "%.*s", (int)size - 1, p);
                    break;
                }
            }
        }
    }
    free(props);
}
