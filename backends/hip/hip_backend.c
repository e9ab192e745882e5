/* HIP backend: ABI entry, probe, device info and the hook table, for AMD
 * GPUs (ROCm) and Hygon DCUs (DTK). Built without any ROCm header. */
#define _GNU_SOURCE
#include "hip_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Without /dev/kfd the ROCm runtime sees no GPU: loading it (10 to 15 ms
 * of every start) only to hear that is skipped, unless Hygon's DTK may be
 * installed (DTK_PATH, ROCM_PATH into a DTK, /opt/dtk or /opt/dtk-*), the
 * runtime is named (XGPU_HIP_RUNTIME), or XGPU_HIP_PROBE=always asks for
 * it (gpuinfo --doctor does). */
static bool runtime_pointless(void) {
    const char *probe = getenv("XGPU_HIP_PROBE");
    if ((probe && !strcmp(probe, "always")) || access("/dev/kfd", F_OK) == 0) {
        return false;
    }
    const char *runtime = secure_getenv("XGPU_HIP_RUNTIME");
    hip_dtk dtk[1];
    return (!runtime || !*runtime) && hip__dtk_find(dtk, 1) == 0;
}

static xgpu_status hip_probe(const xgpu_core_services *services, void **state, char *reason,
                             size_t reason_size) {
    *state = NULL;
    hip__services = services;
    xgpu_status s = xgpu__rt_init(services, &hip__vendor, reason, reason_size);
    if (s != XGPU_SUCCESS) {
        return s;
    }
    if (runtime_pointless()) {
        services->library(HIP_BACKEND_NAME, "libamdhip64.so", NULL, false,
                          "not loaded: without /dev/kfd it can see no GPU");
        snprintf(reason, reason_size,
                 "/dev/kfd does not exist, so the amdgpu kernel driver is not loaded (in a "
                 "container: pass --device=/dev/kfd --device=/dev/dri); the HIP runtime was not "
                 "loaded (gpuinfo --doctor loads it; XGPU_HIP_PROBE=always does too)");
        return XGPU_ERROR_NO_DEVICE;
    }
    hip_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(reason, reason_size, "out of host memory");
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    s = hip__runtime_load(&st->rt, &st->device_count, reason, reason_size);
    if (st->rt.lib) { /* after the runtime's own record: the doctor lists it first */
        xgpu__embedded_report(services, HIP_BACKEND_NAME, "the HIP plugin", "hiprtc",
                              &hip__embedded_table);
    }
    if (s != XGPU_SUCCESS) {
        free(st); /* the runtime library stays loaded, by design */
        return s;
    }
    st->arch = calloc((size_t)st->device_count, sizeof *st->arch);
    if (!st->arch) {
        free(st);
        snprintf(reason, reason_size, "out of host memory");
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (int i = 0; i < st->device_count; i++) {
        hip__device_arch(&st->rt, i, st->arch[i], sizeof st->arch[i]);
    }
    pthread_mutex_init(&st->rtc_lazy.lock, NULL);
    *state = st;
    return XGPU_SUCCESS;
}

static uint32_t hip_device_count(void *state) {
    return (uint32_t)((hip_state *)state)->device_count;
}

static int attr(const hip_runtime *rt, int attribute, int dev) {
    int v = 0;
    if (attribute < 0 || rt->hipDeviceGetAttribute(&v, attribute, dev) != hipSuccess) {
        return 0;
    }
    return v;
}

static xgpu_status hip_device_info(void *state, uint32_t index, xgpu_device_info *info) {
    hip_state *st = state;
    const hip_runtime *rt = &st->rt;
    const hip_attributes *a = rt->attributes;
    int dev = (int)index;
    info->type = XGPU_DEVICE_TYPE_GPU;
    snprintf(info->vendor, sizeof info->vendor, "%s",
             rt->flavor == HIP_FLAVOR_DTK ? "Hygon" : "Advanced Micro Devices, Inc.");
    if (rt->hipDeviceGetName(info->name, (int)sizeof info->name, dev) != hipSuccess) {
        snprintf(info->name, sizeof info->name, "HIP device %u", index);
    }
    snprintf(info->arch, sizeof info->arch, "%s", st->arch[index]);
    int drv = 0;
    if (rt->hipDriverGetVersion && rt->hipDriverGetVersion(&drv) == hipSuccess) {
        snprintf(info->driver_version, sizeof info->driver_version, "%d", drv);
    }
    snprintf(info->device_version, sizeof info->device_version, "%s", st->arch[index]);
    snprintf(info->language_version, sizeof info->language_version, "HIP %d.%d.%d (%s)",
             rt->version / 10000000, (rt->version / 100000) % 100, rt->version % 100000, rt->name);
    info->compute_units = (uint32_t)attr(rt, a->cu_count, dev);
    info->max_clock_mhz = (uint32_t)attr(rt, a->clock_khz, dev) / 1000;
    size_t total = 0;
    if (rt->hipDeviceTotalMem(&total, dev) == hipSuccess) {
        info->global_mem_bytes = total;
        info->max_alloc_bytes = total;
    }
    info->local_mem_bytes = (uint64_t)attr(rt, a->shared_per_block, dev);
    info->local_mem_per_cu_bytes = (uint64_t)attr(rt, a->shared_per_cu, dev);
    info->constant_mem_bytes = (uint64_t)attr(rt, a->total_constant, dev);
    info->max_group_size = (uint64_t)attr(rt, a->max_threads_per_block, dev);
    info->max_group_dims[0] = (uint64_t)attr(rt, a->max_block_x, dev);
    info->max_group_dims[1] = (uint64_t)attr(rt, a->max_block_y, dev);
    info->max_group_dims[2] = (uint64_t)attr(rt, a->max_block_z, dev);
    info->max_groups[0] = (uint64_t)attr(rt, a->max_grid_x, dev);
    info->max_groups[1] = (uint64_t)attr(rt, a->max_grid_y, dev);
    info->max_groups[2] = (uint64_t)attr(rt, a->max_grid_z, dev);
    int wave = attr(rt, a->warp_size, dev);
    info->preferred_group_multiple = (uint32_t)wave;
    info->subgroups = wave > 0;
    info->device_scope_atomics = true; /* __threadfence + atomics */
    info->subgroup_size = (uint32_t)wave;
    info->fp64 = true;
    info->fp16 = false; /* XGPU_HAS_FP16 needs hip_fp16.h, not enabled yet */
    info->l2_cache_bytes = (uint64_t)attr(rt, a->l2_cache, dev);
    info->memory_clock_mhz = (uint32_t)attr(rt, a->memory_clock_khz, dev) / 1000;
    info->memory_bus_width_bits = (uint32_t)attr(rt, a->memory_bus_width, dev);
    int ecc = 0;
    info->ecc_enabled =
        a->ecc >= 0 && rt->hipDeviceGetAttribute(&ecc, a->ecc, dev) == hipSuccess ? (ecc != 0) : -1;
    char bus[64] = "";
    if (rt->hipDeviceGetPCIBusId &&
        rt->hipDeviceGetPCIBusId(bus, (int)sizeof bus, dev) == hipSuccess && bus[0]) {
        for (char *p = bus; *p; p++) {
            *p = (char)tolower((unsigned char)*p);
        }
        info->has_pci_bus_id = true;
        snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%.12s", bus);
    }
    hipUUID uuid;
    if (rt->hipDeviceGetUuid && rt->hipDeviceGetUuid(&uuid, dev) == hipSuccess) {
        memcpy(info->uuid, uuid.bytes, sizeof info->uuid);
        info->has_uuid = true;
    }
    return XGPU_SUCCESS;
}

static xgpu_status hip_device_free_memory(void *state, uint32_t index, uint64_t *free_bytes) {
    hip_state *st = state;
    hipError_t set = st->rt.hipSetDevice((int)index);
    if (set != hipSuccess) {
        return hip__fail(&st->rt, set, "hipSetDevice", NULL);
    }
    size_t free_now = 0, total = 0;
    hipError_t e = st->rt.hipMemGetInfo(&free_now, &total);
    if (e != hipSuccess) {
        return hip__fail(&st->rt, e, "hipMemGetInfo", NULL);
    }
    *free_bytes = free_now;
    return XGPU_SUCCESS;
}

static xgpu_status hip_device_peer(void *state, uint32_t src, uint32_t dst, bool *direct) {
    hip_state *st = state;
    return xgpu__rt_device_peer(&hip__vendor, &st->rt, (int)src, (int)dst, direct);
}

static const xgpu_backend_ops hip_ops = {
    .size = sizeof(xgpu_backend_ops),
    .abi_version = 1,
    .name = HIP_BACKEND_NAME,
    .dialect = XGPU_DIALECT_HIP,
    .probe = hip_probe,
    .device_count = hip_device_count,
    .device_info = hip_device_info,
    .device_free_memory = hip_device_free_memory,
    .device_peer = hip_device_peer,
    .context_create = hip__context_create,
    .context_release = hip__context_release,
    .program_build = hip__program_build,
    .program_load_binary = hip__program_load_binary,
    .build_identity = hip__build_identity,
    .kernel_create = hip__kernel_create,
    .kernel_release = hip__kernel_release,
    XGPU_RT_BACKEND_HOOKS,
};

XGPU_BACKEND_EXPORT(hip_ops)
