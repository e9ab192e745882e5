/* Physical devices: xgpu's device paths grouped by devid_merge. */
#include "physdev.h"
#include "device_id.h"

#include <stdbool.h>
#include <stdlib.h>

int pd_collect(pd_device **out, uint32_t *count) {
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
    pd_device *phys = calloc(n, sizeof *phys);
    int rc = (infos && devs && group && phys) ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        if (xgpu_device_get(i, &devs[i]) != XGPU_SUCCESS ||
            xgpu_device_get_info(devs[i], &infos[i], sizeof infos[i]) != XGPU_SUCCESS) {
            rc = -1;
        }
    }
    uint32_t groups = rc == 0 ? devid_merge(infos, n, group) : 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        pd_device *d = &phys[group[i]];
        if (d->path_count == 0) {
            d->index = i; /* the first path's global index: what -d and xgpu_device_get take */
        }
        if (d->path_count < PD_MAX_PATHS) {
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

uint32_t pd_select(pd_device *devs, uint32_t n, xgpu_device *const *chosen, uint32_t nchosen) {
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
