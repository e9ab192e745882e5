/* The HIP runtime API as the shared runtime-style layer sees it
 * (backends/common/rt_backend.h): one thin call each, named in errors as
 * the HIP function it wraps. A context is a device ordinal: the layer's
 * device_ctx holds it, made current with hipSetDevice. The table at the
 * end names each call; xgpu__rt_init checks it at probe time. */
#include "hip_internal.h"

#include <stdio.h>
#include <string.h>

#define R(api) ((const hip_runtime *)(api))
#define PTR(p) ((hipDeviceptr_t)(uintptr_t)(p))

static xgpu_status check(const void *api, hipError_t e, const char *call) {
    return e == hipSuccess ? XGPU_SUCCESS : hip__fail(R(api), e, call, NULL);
}

static xgpu_status hip_rt_make_current(const void *api, void *device_ctx) {
    return check(api, R(api)->hipSetDevice((int)(intptr_t)device_ctx), "hipSetDevice");
}

static xgpu_status hip_rt_stream_create(const void *api, void **stream) {
    return check(api, R(api)->hipStreamCreateWithFlags((hipStream_t *)stream, hipStreamNonBlocking),
                 "hipStreamCreateWithFlags");
}

static void hip_rt_stream_destroy(const void *api, void *stream) {
    R(api)->hipStreamDestroy(stream);
}

static xgpu_status hip_rt_stream_sync(const void *api, void *stream) {
    return check(api, R(api)->hipStreamSynchronize(stream), "hipStreamSynchronize");
}

static xgpu_status hip_rt_event_create(const void *api, void **event) {
    return check(api, R(api)->hipEventCreateWithFlags((hipEvent_t *)event, hipEventDefault),
                 "hipEventCreateWithFlags");
}

static xgpu_status hip_rt_event_record(const void *api, void *event, void *stream) {
    return check(api, R(api)->hipEventRecord(event, stream), "hipEventRecord");
}

static xgpu_status hip_rt_event_sync(const void *api, void *event) {
    return check(api, R(api)->hipEventSynchronize(event), "hipEventSynchronize");
}

static xgpu_status hip_rt_stream_wait_event(const void *api, void *stream, void *event) {
    if (!R(api)->hipStreamWaitEvent) { /* wait on the host if the runtime lacks it */
        return check(api, R(api)->hipEventSynchronize(event), "hipEventSynchronize");
    }
    return check(api, R(api)->hipStreamWaitEvent(stream, event, 0), "hipStreamWaitEvent");
}

static xgpu_status hip_rt_event_elapsed(const void *api, void *start, void *end, float *ms) {
    return check(api, R(api)->hipEventElapsedTime(ms, start, end), "hipEventElapsedTime");
}

static void hip_rt_event_destroy(const void *api, void *event) {
    R(api)->hipEventDestroy(event);
}

static xgpu_status hip_rt_mem_alloc(const void *api, size_t size, uint64_t *ptr) {
    void *p = NULL;
    hipError_t e = R(api)->hipMalloc(&p, size);
    if (e != hipSuccess) {
        char detail[64];
        snprintf(detail, sizeof detail, " asking %zu bytes", size);
        return hip__fail(R(api), e, "hipMalloc", detail);
    }
    *ptr = (uint64_t)(uintptr_t)p;
    return XGPU_SUCCESS;
}

static void hip_rt_mem_free(const void *api, uint64_t ptr) {
    /* Queued work may still use the buffer: wait for the device first. */
    if (R(api)->hipDeviceSynchronize) {
        R(api)->hipDeviceSynchronize();
    }
    R(api)->hipFree(PTR(ptr));
}

static xgpu_status hip_rt_host_alloc(const void *api, size_t size, void **ptr) {
    return check(api, R(api)->hipHostMalloc(ptr, size, hipHostMallocDefault), "hipHostMalloc");
}

static void hip_rt_host_free(const void *api, void *ptr) {
    R(api)->hipHostFree(ptr);
}

static xgpu_status hip_rt_copy_htod(const void *api, uint64_t dst, const void *src, size_t size,
                                    void *stream) {
    /* hipMemcpyHtoDAsync takes a non-const source; it only reads it. */
    void *s;
    memcpy(&s, &src, sizeof s);
    return check(api, R(api)->hipMemcpyHtoDAsync(PTR(dst), s, size, stream), "hipMemcpyHtoDAsync");
}

static xgpu_status hip_rt_copy_dtoh(const void *api, void *dst, uint64_t src, size_t size,
                                    void *stream) {
    return check(api, R(api)->hipMemcpyDtoHAsync(dst, PTR(src), size, stream),
                 "hipMemcpyDtoHAsync");
}

static xgpu_status hip_rt_copy_peer(const void *api, uint64_t dst, void *dst_ctx, uint64_t src,
                                    void *src_ctx, size_t size, void *stream) {
    const hip_runtime *h = R(api);
    if (!h->hipMemcpyPeerAsync) {
        return XGPU_ERROR_UNSUPPORTED;
    }
    int dst_dev = (int)(intptr_t)dst_ctx, src_dev = (int)(intptr_t)src_ctx;
    if (dst_dev != src_dev && h->hipDeviceEnablePeerAccess) {
        /* Refused: the core stages the copy. */
        hipError_t e = h->hipDeviceEnablePeerAccess(src_dev, 0);
        if (e != hipSuccess && e != hipErrorPeerAccessAlreadyEnabled) {
            return XGPU_ERROR_UNSUPPORTED;
        }
    }
    return check(
        api, h->hipMemcpyPeerAsync(PTR(dst), dst_dev, PTR(src), src_dev, size, (hipStream_t)stream),
        "hipMemcpyPeerAsync");
}

static xgpu_status hip_rt_can_access_peer(const void *api, int dst, int src, int *can) {
    const hip_runtime *h = R(api);
    *can = 0;
    if (!h->hipMemcpyPeerAsync) {
        return XGPU_SUCCESS;
    }
    if (dst == src) { /* never its own peer; its contexts share memory */
        *can = 1;
        return XGPU_SUCCESS;
    }
    return h->hipDeviceCanAccessPeer
               ? check(api, h->hipDeviceCanAccessPeer(can, dst, src), "hipDeviceCanAccessPeer")
               : XGPU_SUCCESS;
}

static xgpu_status hip_rt_copy_dtod(const void *api, uint64_t dst, uint64_t src, size_t size,
                                    void *stream) {
    return check(api, R(api)->hipMemcpyDtoDAsync(PTR(dst), PTR(src), size, stream),
                 "hipMemcpyDtoDAsync");
}

static xgpu_status hip_rt_memset(const void *api, uint64_t dst, uint32_t value, unsigned width,
                                 size_t count, void *stream) {
    if (width == 1) {
        return check(api, R(api)->hipMemsetD8Async(PTR(dst), (unsigned char)value, count, stream),
                     "hipMemsetD8Async");
    }
    if (width == 2) {
        return check(api, R(api)->hipMemsetD16Async(PTR(dst), (unsigned short)value, count, stream),
                     "hipMemsetD16Async");
    }
    return check(api, R(api)->hipMemsetD32Async(PTR(dst), (int)value, count, stream),
                 "hipMemsetD32Async");
}

static xgpu_status hip_rt_module_load(const void *api, const void *image, void **module) {
    return check(api, R(api)->hipModuleLoadData((hipModule_t *)module, image), "hipModuleLoadData");
}

static void hip_rt_module_unload(const void *api, void *module) {
    R(api)->hipModuleUnload(module);
}

static xgpu_status hip_rt_get_function(const void *api, void *module, const char *name,
                                       void **function) {
    hipError_t e = R(api)->hipModuleGetFunction((hipFunction_t *)function, module, name);
    if (e == hipErrorNotFound) {
        char buf[32];
        return hip__services->error(HIP_BACKEND_NAME, XGPU_ERROR_KERNEL_NOT_FOUND, e,
                                    hip__error_name(R(api), e, buf, sizeof buf),
                                    "no kernel named '%s' in the program", name);
    }
    return check(api, e, "hipModuleGetFunction");
}

static void hip_rt_function_props(const void *api, void *function, xgpu_kernel_props *props) {
    int threads = 0, shared = 0;
    if (R(api)->hipFuncGetAttribute) {
        R(api)->hipFuncGetAttribute(&threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
        R(api)->hipFuncGetAttribute(&shared, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
    }
    props->max_group_size = (uint64_t)threads;
    props->static_local_bytes = (uint64_t)shared;
}

static xgpu_status hip_rt_launch(const void *api, void *function, const unsigned grid[3],
                                 const unsigned block[3], unsigned shared_bytes, void *stream,
                                 void **params) {
    return check(api,
                 R(api)->hipModuleLaunchKernel(function, grid[0], grid[1], grid[2], block[0],
                                               block[1], block[2], shared_bytes, stream, params,
                                               NULL),
                 "hipModuleLaunchKernel");
}

const xgpu_rt_vendor hip__vendor = {
    .backend = HIP_BACKEND_NAME,
    .make_current = hip_rt_make_current,
    .stream_create = hip_rt_stream_create,
    .stream_destroy = hip_rt_stream_destroy,
    .stream_sync = hip_rt_stream_sync,
    .event_create = hip_rt_event_create,
    .event_record = hip_rt_event_record,
    .event_sync = hip_rt_event_sync,
    .stream_wait_event = hip_rt_stream_wait_event,
    .event_elapsed = hip_rt_event_elapsed,
    .event_destroy = hip_rt_event_destroy,
    .mem_alloc = hip_rt_mem_alloc,
    .mem_free = hip_rt_mem_free,
    .host_alloc = hip_rt_host_alloc,
    .host_free = hip_rt_host_free,
    .copy_htod = hip_rt_copy_htod,
    .copy_dtoh = hip_rt_copy_dtoh,
    .copy_dtod = hip_rt_copy_dtod,
    .copy_peer = hip_rt_copy_peer,
    .can_access_peer = hip_rt_can_access_peer,
    .memset = hip_rt_memset,
    .module_load = hip_rt_module_load,
    .module_unload = hip_rt_module_unload,
    .get_function = hip_rt_get_function,
    .function_props = hip_rt_function_props,
    .launch = hip_rt_launch,
};
