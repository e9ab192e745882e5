/* Physical devices: every xgpu device path grouped by device_id.h's
 * devid_merge, so that one GPU reached through CUDA and OpenCL is one
 * entry with two paths. gpuinfo lists them; gpubench embeds them in its
 * results (fields.h's JSON). */
#ifndef XGPU_TOOLS_PHYSDEV_H
#define XGPU_TOOLS_PHYSDEV_H

#include <xgpu.h>

#include <stdint.h>

#define PD_MAX_PATHS 8

/* One physical device and every backend path that reaches it. The first
 * path (backend order: cuda, hip, opencl) is the primary one whose info is
 * shown. */
typedef struct pd_device {
    uint32_t index; /* xgpu's global index of the first path, as -d takes it */
    uint32_t path_count;
    xgpu_device *devices[PD_MAX_PATHS];
    xgpu_device_info infos[PD_MAX_PATHS];
} pd_device;

/* All devices xgpu reaches, merged, in *out (malloc'ed; NULL and *count 0
 * when there are none). 0, or -1 when xgpu fails (xgpu_last_error says
 * why) or memory runs out. */
int pd_collect(pd_device **out, uint32_t *count);
/* Keeps, in order, the physical devices any of whose paths is one of
 * chosen[nchosen] (from xgpu_device_match): a selector that names one path
 * of a GPU selects the GPU. Returns how many were kept at the front. */
uint32_t pd_select(pd_device *devs, uint32_t n, xgpu_device *const *chosen, uint32_t nchosen);

#endif
