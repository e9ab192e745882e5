/* This machine as a framework will find it: the NVIDIA driver's CUDA
 * version and the GPUs' sm_XY, the ROCm runtime's version and the GPUs'
 * gfx names, from the fields xgpu's CUDA and HIP backends fill. */
#include "fw.h"

#include <xgpu.h>

#include <stdio.h>
#include <string.h>

/* Adds a GPU's architecture to list[] once. */
static void add_gpu(fw_gpu *list, unsigned *n, const xgpu_device_info *info) {
    for (unsigned i = 0; i < *n; i++) {
        if (!strcmp(list[i].arch, info->arch)) {
            return;
        }
    }
    if (*n == FW_MAX_GPUS) {
        return;
    }
    fw_gpu *g = &list[(*n)++];
    fw_copy(g->arch, sizeof g->arch, info->arch);
    snprintf(g->path, sizeof g->path, "%.31s:%u", info->backend, info->backend_index);
    int sm = 0;
    g->sm = sscanf(info->arch, "sm_%d", &sm) == 1 ? sm : 0;
}

/* Whether backend `name` loaded a library whose name starts with one of
 * `prefixes` (libcuda: the NVIDIA driver; libamdhip64, libgalaxyhip: a
 * HIP runtime). */
static bool loaded(const char *name, const char *const *prefixes) {
    uint32_t nb = 0;
    if (xgpu_backend_count(&nb) != XGPU_SUCCESS) {
        return false;
    }
    for (uint32_t b = 0; b < nb; b++) {
        xgpu_backend_info bi;
        if (xgpu_backend_get_info(b, &bi, sizeof bi) != XGPU_SUCCESS || strcmp(bi.name, name)) {
            continue;
        }
        for (uint32_t l = 0; l < bi.library_count; l++) {
            xgpu_library_info lib;
            if (xgpu_backend_get_library(b, l, &lib, sizeof lib) != XGPU_SUCCESS || !lib.loaded) {
                continue;
            }
            for (size_t p = 0; prefixes[p]; p++) {
                if (!strncmp(lib.name, prefixes[p], strlen(prefixes[p]))) {
                    return true;
                }
            }
        }
    }
    return false;
}

void fw_host_collect(fw_host *h) {
    static const char *const cuda_libs[] = {"libcuda", NULL};
    static const char *const hip_libs[] = {"libamdhip64", "libgalaxyhip", NULL};
    memset(h, 0, sizeof *h);
    h->cuda_major = h->cuda_minor = h->rocm_major = h->rocm_minor = -1;
    uint32_t n = 0;
    if (xgpu_device_count(&n) != XGPU_SUCCESS) {
        n = 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        xgpu_device *dev;
        xgpu_device_info info;
        if (xgpu_device_get(i, &dev) != XGPU_SUCCESS ||
            xgpu_device_get_info(dev, &info, sizeof info) != XGPU_SUCCESS) {
            continue;
        }
        int ma, mi;
        if (!strcmp(info.backend, "cuda")) {
            /* driver_version: cuDriverGetVersion as "12.4". */
            if (sscanf(info.driver_version, "%d.%d", &ma, &mi) == 2) {
                h->cuda_major = ma;
                h->cuda_minor = mi;
            }
            add_gpu(h->cuda, &h->cuda_gpus, &info);
        } else if (!strcmp(info.backend, "hip")) {
            /* language_version: "HIP 6.2.41133 (libamdhip64.so.6)". */
            if (sscanf(info.language_version, "HIP %d.%d", &ma, &mi) == 2) {
                h->rocm_major = ma;
                h->rocm_minor = mi;
            }
            add_gpu(h->hip, &h->hip_gpus, &info);
        }
    }
    h->nvidia_driver = h->cuda_gpus > 0 || loaded("cuda", cuda_libs);
    h->rocm_runtime = h->hip_gpus > 0 || loaded("hip", hip_libs);
}
