/* CUDA backend: ABI entry, probe, device info and the hook table. Built
 * without any CUDA header or library; libcuda.so.1 is loaded at probe time,
 * NVRTC at the first program build. */
#define _GNU_SOURCE
#include "cuda_internal.h"
#include "embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The device nodes through which libcuda reaches a GPU: the NVIDIA kernel
 * driver's (/dev/nvidiactl, /dev/nvidia0; the NVIDIA container toolkit
 * passes these), WSL 2's GPU paravirtualisation (/dev/dxg, where libcuda
 * talks to the Windows driver) and the Jetson integrated GPU's nvgpu
 * driver (/dev/nvhost-ctrl-gpu), which has no /dev/nvidia*. */
static const char *const device_nodes[] = {"/dev/nvidiactl", "/dev/nvidia0", "/dev/dxg",
                                           "/dev/nvhost-ctrl-gpu"};

/* Without any of those nodes the driver library can see no GPU: loading it
 * (and cuInit) only to hear that is skipped, unless the driver library is
 * named (XGPU_CUDA_DRIVER: the tests' fake drivers) or XGPU_CUDA_PROBE=always
 * asks for it (gpuinfo --doctor does). */
static bool driver_pointless(void) {
    const char *probe = getenv("XGPU_CUDA_PROBE");
    const char *driver = secure_getenv("XGPU_CUDA_DRIVER");
    if ((probe && !strcmp(probe, "always")) || (driver && *driver)) {
        return false;
    }
    for (size_t i = 0; i < sizeof device_nodes / sizeof device_nodes[0]; i++) {
        if (access(device_nodes[i], F_OK) == 0) {
            return false;
        }
    }
    return true;
}

static xgpu_status cu_probe(const xgpu_core_services *services, void **state, char *reason,
                            size_t reason_size) {
    *state = NULL;
    xgpu_status s = xgpu__rt_init(services, &cu__vendor, reason, reason_size);
    if (s != XGPU_SUCCESS) {
        return s;
    }
    if (driver_pointless()) {
        services->library(CU_BACKEND_NAME, "libcuda.so.1", NULL, false,
                          "not loaded: without /dev/nvidiactl or /dev/nvidia0 it can see no GPU");
        snprintf(reason, reason_size,
                 "neither /dev/nvidiactl nor /dev/nvidia0 exists (nor WSL's /dev/dxg or a "
                 "Jetson's /dev/nvhost-ctrl-gpu), so the "
                 "NVIDIA kernel driver is not loaded (in a container: run it with --gpus all "
                 "through the NVIDIA container toolkit); the CUDA driver library was not loaded "
                 "(gpuinfo --doctor loads it; XGPU_CUDA_PROBE=always does too)");
        return XGPU_ERROR_NO_DEVICE;
    }
    cu__services = services;
    cu_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(reason, reason_size, "out of host memory");
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    s = cu__driver_load(&st->driver, &st->driver_version, reason, reason_size);
    if (s != XGPU_SUCCESS) {
        free(st); /* the library stays loaded, by design */
        return s;
    }
    xgpu__embedded_report(services, CU_BACKEND_NAME, "the CUDA plugin", "NVRTC",
                          &cu__embedded_table);
    const cu_driver *d = &st->driver;
    char buf[32];
    CUresult r = d->cuDeviceGetCount(&st->device_count);
    if (r != CUDA_SUCCESS || st->device_count <= 0) {
        snprintf(reason, reason_size, "the NVIDIA driver (%s) reports no GPU%s%s", d->path,
                 r != CUDA_SUCCESS ? ": cuDeviceGetCount " : "",
                 r != CUDA_SUCCESS ? cu__result_name(d, r, buf, sizeof buf) : "");
        free(st);
        return XGPU_ERROR_NO_DEVICE;
    }
    st->devices = calloc((size_t)st->device_count, sizeof *st->devices);
    st->sm = calloc((size_t)st->device_count, sizeof *st->sm);
    st->query_ctx = calloc((size_t)st->device_count, sizeof *st->query_ctx);
    if (!st->devices || !st->sm || !st->query_ctx) {
        free(st->devices);
        free(st->sm);
        free(st->query_ctx);
        free(st);
        snprintf(reason, reason_size, "out of host memory");
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (int i = 0; i < st->device_count; i++) {
        int major = 0, minor = 0;
        d->cuDeviceGet(&st->devices[i], i);
        d->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                st->devices[i]);
        d->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                st->devices[i]);
        st->sm[i] = 10 * major + minor;
    }
    pthread_mutex_init(&st->nvrtc_lazy.lock, NULL);
    pthread_mutex_init(&st->query_lock, NULL);
    *state = st;
    return XGPU_SUCCESS;
}

static uint32_t cu_device_count(void *state) {
    return (uint32_t)((cu_state *)state)->device_count;
}

static int attr(const cu_state *st, int attrib, CUdevice dev) {
    int v = 0;
    return st->driver.cuDeviceGetAttribute(&v, attrib, dev) == CUDA_SUCCESS ? v : 0;
}

static xgpu_status cu_device_info(void *state, uint32_t index, xgpu_device_info *info) {
    cu_state *st = state;
    const cu_driver *d = &st->driver;
    CUdevice dev = st->devices[index];
    int sm = st->sm[index];
    info->type = XGPU_DEVICE_TYPE_GPU;
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA Corporation");
    if (d->cuDeviceGetName(info->name, (int)sizeof info->name, dev) != CUDA_SUCCESS) {
        snprintf(info->name, sizeof info->name, "NVIDIA GPU %u", index);
    }
    snprintf(info->arch, sizeof info->arch, "sm_%d", sm);
    snprintf(info->device_version, sizeof info->device_version, "compute capability %d.%d", sm / 10,
             sm % 10);
    snprintf(info->driver_version, sizeof info->driver_version, "%d.%d", st->driver_version / 1000,
             (st->driver_version % 1000) / 10);
    snprintf(info->language_version, sizeof info->language_version, "CUDA C++ (NVRTC)");
    info->compute_units = (uint32_t)attr(st, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    info->max_clock_mhz = (uint32_t)attr(st, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev) / 1000;
    size_t total = 0;
    if (d->cuDeviceTotalMem(&total, dev) == CUDA_SUCCESS) {
        info->global_mem_bytes = total;
        info->max_alloc_bytes = total;
    }
    /* Kernels may use up to the opt-in maximum: launches raise the
     * function's limit when they need more than the default 48 KiB. */
    int optin = attr(st, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
    int per_block = attr(st, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev);
    info->local_mem_bytes = (uint64_t)(optin > per_block ? optin : per_block);
    info->local_mem_static_bytes = (uint64_t)per_block; /* ptxas: 0xc000 max */
    info->local_mem_per_cu_bytes =
        (uint64_t)attr(st, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, dev);
    info->constant_mem_bytes = (uint64_t)attr(st, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, dev);
    info->max_group_size = (uint64_t)attr(st, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev);
    static const int block_attr[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
    static const int grid_attr[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                     CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                     CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
    for (int i = 0; i < 3; i++) {
        info->max_group_dims[i] = (uint64_t)attr(st, block_attr[i], dev);
        info->max_groups[i] = (uint64_t)attr(st, grid_attr[i], dev);
    }
    int warp = attr(st, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev);
    info->preferred_group_multiple = (uint32_t)warp;
    info->subgroups = warp > 0;
    info->device_scope_atomics = true; /* __threadfence + atomics */
    info->subgroup_size = (uint32_t)warp;
    info->fp64 = true;
    /* fp16 arithmetic in kernels (XGPU_HAS_FP16) needs cuda_fp16.h, which
     * the backend does not pass to NVRTC yet: say no until it does. fp16
     * storage (xgpu_half, GEMM's f16) works without it. */
    info->fp16 = false;
    info->l2_cache_bytes = (uint64_t)attr(st, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
    info->memory_clock_mhz = (uint32_t)attr(st, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev) / 1000;
    info->memory_bus_width_bits =
        (uint32_t)attr(st, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev);
    int ecc = 0;
    info->ecc_enabled =
        d->cuDeviceGetAttribute(&ecc, CU_DEVICE_ATTRIBUTE_ECC_ENABLED, dev) == CUDA_SUCCESS
            ? (ecc != 0)
            : -1;
    int domain = 0, bus = 0, slot = 0;
    if (d->cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev) == CUDA_SUCCESS &&
        d->cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev) == CUDA_SUCCESS) {
        d->cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev);
        info->has_pci_bus_id = true;
        snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%04x:%02x:%02x.0",
                 (unsigned)domain & 0xffff, (unsigned)bus & 0xff, (unsigned)slot & 0x1f);
    }
    CUuuid uuid;
    if (d->cuDeviceGetUuid && d->cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) {
        memcpy(info->uuid, uuid.bytes, sizeof info->uuid);
        info->has_uuid = true;
    }
    return XGPU_SUCCESS;
}

/* cuMemGetInfo needs a current context: the device's primary context,
 * retained once and kept (see cu_state.query_ctx). The caller's current
 * context is put back afterwards, whatever it was. */
static xgpu_status cu_device_free_memory(void *state, uint32_t index, uint64_t *free_bytes) {
    cu_state *st = state;
    const cu_driver *d = &st->driver;
    pthread_mutex_lock(&st->query_lock);
    CUresult r = CUDA_SUCCESS;
    if (!st->query_ctx[index]) {
        r = d->cuDevicePrimaryCtxRetain(&st->query_ctx[index], st->devices[index]);
        if (r != CUDA_SUCCESS) {
            st->query_ctx[index] = NULL;
        }
    }
    CUcontext ctx = st->query_ctx[index];
    pthread_mutex_unlock(&st->query_lock);
    if (r != CUDA_SUCCESS) {
        return cu__fail(d, r, "cuDevicePrimaryCtxRetain", NULL);
    }
    CUcontext saved = NULL;
    bool restore = d->cuCtxGetCurrent && d->cuCtxGetCurrent(&saved) == CUDA_SUCCESS;
    size_t free_now = 0, total = 0;
    r = d->cuCtxSetCurrent(ctx);
    if (r == CUDA_SUCCESS) {
        r = d->cuMemGetInfo(&free_now, &total);
    }
    if (restore && saved != ctx) {
        d->cuCtxSetCurrent(saved);
    }
    if (r != CUDA_SUCCESS) {
        return cu__fail(d, r, "cuMemGetInfo", NULL);
    }
    *free_bytes = free_now;
    return XGPU_SUCCESS;
}

static xgpu_status cu_device_peer(void *state, uint32_t src, uint32_t dst, bool *direct) {
    cu_state *st = state;
    return xgpu__rt_device_peer(&cu__vendor, &st->driver, st->devices[src], st->devices[dst],
                                direct);
}

static void cu_shutdown(void *state) {
    cu_state *st = state;
    if (!st) {
        return;
    }
    for (int i = 0; i < st->device_count; i++) {
        if (st->query_ctx[i]) {
            st->driver.cuDevicePrimaryCtxRelease(st->devices[i]);
        }
    }
    pthread_mutex_destroy(&st->query_lock);
    pthread_mutex_destroy(&st->nvrtc_lazy.lock);
    free(st->devices);
    free(st->sm);
    free(st->query_ctx);
    free(st);
}

static const xgpu_backend_ops cu_ops = {
    .size = sizeof(xgpu_backend_ops),
    .abi_version = 1,
    .name = CU_BACKEND_NAME,
    .dialect = XGPU_DIALECT_CUDA,
    .probe = cu_probe,
    .shutdown = cu_shutdown,
    .device_count = cu_device_count,
    .device_info = cu_device_info,
    .device_free_memory = cu_device_free_memory,
    .device_peer = cu_device_peer,
    .context_create = cu__context_create,
    .context_release = cu__context_release,
    .program_build = cu__program_build,
    .program_load_binary = cu__program_load_binary,
    .build_identity = cu__build_identity,
    .kernel_create = cu__kernel_create,
    .kernel_release = cu__kernel_release,
    XGPU_RT_BACKEND_HOOKS,
};

XGPU_BACKEND_EXPORT(cu_ops)
