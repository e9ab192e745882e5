/* Physical devices: the same GPU seen through two backends (CUDA and
 * OpenCL on NVIDIA, HIP and OpenCL on AMD) is one device with two paths. */
#include "gpuinfo.h"

#include <stdlib.h>
#include <string.h>

static int same_device(const xgpu_device_info *a, const xgpu_device_info *b) {
    if (a->has_uuid && b->has_uuid) {
        return memcmp(a->uuid, b->uuid, sizeof a->uuid) == 0;
    }
    if (a->has_pci_bus_id && b->has_pci_bus_id) {
        return strcmp(a->pci_bus_id, b->pci_bus_id) == 0;
    }
    return 0;
}

uint32_t gi_merge(const xgpu_device_info *infos, uint32_t n, uint32_t *group) {
    uint32_t groups = 0;
    for (uint32_t i = 0; i < n; i++) {
        group[i] = UINT32_MAX;
        for (uint32_t j = 0; j < i; j++) {
            /* Two paths of one backend are two devices (two GPUs of a
             * model can share nothing but a name). */
            if (strcmp(infos[i].backend, infos[j].backend) != 0 &&
                same_device(&infos[i], &infos[j])) {
                group[i] = group[j];
                break;
            }
        }
        if (group[i] == UINT32_MAX) {
            group[i] = groups++;
        }
    }
    return groups;
}

void gi_path(const xgpu_device_info *info, char *out, size_t size) {
    snprintf(out, size, "%s:%u", info->backend, info->backend_index);
}

void gi_uuid(const xgpu_device_info *info, char *out, size_t size) {
    const uint8_t *u = info->uuid;
    if (!info->has_uuid) {
        snprintf(out, size, "%s", "");
        return;
    }
    snprintf(out, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
}

int gi_collect(gi_device **out, uint32_t *count) {
    *out = NULL;
    *count = 0;
    uint32_t n = 0;
    if (xgpu_device_count(&n) != XGPU_SUCCESS) {
        return -1;
    }
    if (n == 0) {
        return 0;
    }
    xgpu_device_info *infos = calloc(n, sizeof *infos);
    xgpu_device **devs = calloc(n, sizeof *devs);
    uint32_t *group = calloc(n, sizeof *group);
    gi_device *phys = calloc(n, sizeof *phys);
    int rc = (infos && devs && group && phys) ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        if (xgpu_device_get(i, &devs[i]) != XGPU_SUCCESS ||
            xgpu_device_get_info(devs[i], &infos[i], sizeof infos[i]) != XGPU_SUCCESS) {
            rc = -1;
        }
    }
    uint32_t groups = rc == 0 ? gi_merge(infos, n, group) : 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        gi_device *d = &phys[group[i]];
        if (d->path_count == 0) {
            d->index = i; /* the first path's global index: what -d and xgpu_device_get take */
        }
        if (d->path_count < GI_MAX_PATHS) {
            d->devices[d->path_count] = devs[i];
            d->infos[d->path_count] = infos[i];
            d->path_count++;
        }
    }
    free(infos);
    free(devs);
    free(group);
    if (rc != 0) {
        free(phys);
        return rc;
    }
    *out = phys;
    *count = groups;
    return 0;
}

uint32_t gi_select(gi_device *devs, uint32_t n, xgpu_device *const *chosen, uint32_t nchosen) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool hit = false;
        for (uint32_t p = 0; p < devs[i].path_count && !hit; p++) {
            for (uint32_t c = 0; c < nchosen && !hit; c++) {
                hit = devs[i].devices[p] == chosen[c];
            }
        }
        if (hit) {
            devs[kept++] = devs[i];
        }
    }
    return kept;
}
