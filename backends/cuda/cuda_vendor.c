/* The CUDA driver API as the shared runtime-style layer sees it
 * (backends/common/rt_backend.h): one thin call each, named in errors as
 * the driver function it wraps. The table at the end names each call;
 * xgpu__rt_init checks it at probe time. */
#include "cuda_internal.h"

#include <stdio.h>

#define D(api) ((const cu_driver *)(api))

static xgpu_status check(const void *api, CUresult r, const char *call) {
    return r == CUDA_SUCCESS ? XGPU_SUCCESS : cu__fail(D(api), r, call, NULL);
}

static xgpu_status cu_rt_make_current(const void *api, void *device_ctx) {
    return check(api, D(api)->cuCtxSetCurrent((CUcontext)device_ctx), "cuCtxSetCurrent");
}

static xgpu_status cu_rt_stream_create(const void *api, void **stream) {
    return check(api, D(api)->cuStreamCreate((CUstream *)stream, CU_STREAM_NON_BLOCKING),
                 "cuStreamCreate");
}

static void cu_rt_stream_destroy(const void *api, void *stream) {
    D(api)->cuStreamDestroy(stream);
}

static xgpu_status cu_rt_stream_sync(const void *api, void *stream) {
    return check(api, D(api)->cuStreamSynchronize(stream), "cuStreamSynchronize");
}

static xgpu_status cu_rt_event_create(const void *api, void **event) {
    return check(api, D(api)->cuEventCreate((CUevent *)event, CU_EVENT_DEFAULT), "cuEventCreate");
}

static xgpu_status cu_rt_event_record(const void *api, void *event, void *stream) {
    return check(api, D(api)->cuEventRecord(event, stream), "cuEventRecord");
}

static xgpu_status cu_rt_event_sync(const void *api, void *event) {
    return check(api, D(api)->cuEventSynchronize(event), "cuEventSynchronize");
}

static xgpu_status cu_rt_stream_wait_event(const void *api, void *stream, void *event) {
    if (!D(api)->cuStreamWaitEvent) { /* every driver has it; wait on the host if not */
        return check(api, D(api)->cuEventSynchronize(event), "cuEventSynchronize");
    }
    return check(api, D(api)->cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

static xgpu_status cu_rt_event_elapsed(const void *api, void *start, void *end, float *ms) {
    return check(api, D(api)->cuEventElapsedTime(ms, start, end), "cuEventElapsedTime");
}

static void cu_rt_event_destroy(const void *api, void *event) {
    D(api)->cuEventDestroy(event);
}

static xgpu_status cu_rt_mem_alloc(const void *api, size_t size, uint64_t *ptr) {
    CUdeviceptr p = 0;
    CUresult r = D(api)->cuMemAlloc(&p, size);
    if (r != CUDA_SUCCESS) {
        char detail[64];
        snprintf(detail, sizeof detail, " asking %zu bytes", size);
        return cu__fail(D(api), r, "cuMemAlloc", detail);
    }
    *ptr = p;
    return XGPU_SUCCESS;
}

static void cu_rt_mem_free(const void *api, uint64_t ptr) {
    /* cuMemFree only "may" synchronise: wait for the context's queued
     * work, which may still use the buffer. */
    if (D(api)->cuCtxSynchronize) {
        D(api)->cuCtxSynchronize();
    }
    D(api)->cuMemFree(ptr);
}

static xgpu_status cu_rt_host_alloc(const void *api, size_t size, void **ptr) {
    return check(api, D(api)->cuMemAllocHost(ptr, size), "cuMemAllocHost");
}

static void cu_rt_host_free(const void *api, void *ptr) {
    D(api)->cuMemFreeHost(ptr);
}

static xgpu_status cu_rt_copy_htod(const void *api, uint64_t dst, const void *src, size_t size,
                                   void *stream) {
    return check(api, D(api)->cuMemcpyHtoDAsync(dst, src, size, stream), "cuMemcpyHtoDAsync");
}

static xgpu_status cu_rt_copy_dtoh(const void *api, void *dst, uint64_t src, size_t size,
                                   void *stream) {
    return check(api, D(api)->cuMemcpyDtoHAsync(dst, src, size, stream), "cuMemcpyDtoHAsync");
}

static xgpu_status cu_rt_copy_peer(const void *api, uint64_t dst, void *dst_ctx, uint64_t src,
                                   void *src_ctx, size_t size, void *stream) {
    const cu_driver *d = D(api);
    if (!d->cuMemcpyPeerAsync) {
        return XGPU_ERROR_UNSUPPORTED;
    }
    if (dst_ctx != src_ctx && d->cuCtxEnablePeerAccess) {
        /* Refused (too many peers, for one): the core stages the copy. */
        CUresult r = d->cuCtxEnablePeerAccess((CUcontext)src_ctx, 0);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
            return XGPU_ERROR_UNSUPPORTED;
        }
    }
    return check(api, d->cuMemcpyPeerAsync(dst, dst_ctx, src, src_ctx, size, stream),
                 "cuMemcpyPeerAsync");
}

static xgpu_status cu_rt_can_access_peer(const void *api, int dst, int src, int *can) {
    const cu_driver *d = D(api);
    *can = 0;
    if (!d->cuMemcpyPeerAsync) {
        return XGPU_SUCCESS;
    }
    if (dst == src) { /* never its own peer; its contexts share memory */
        *can = 1;
        return XGPU_SUCCESS;
    }
    return d->cuDeviceCanAccessPeer
               ? check(api, d->cuDeviceCanAccessPeer(can, dst, src), "cuDeviceCanAccessPeer")
               : XGPU_SUCCESS;
}

static xgpu_status cu_rt_copy_dtod(const void *api, uint64_t dst, uint64_t src, size_t size,
                                   void *stream) {
    return check(api, D(api)->cuMemcpyDtoDAsync(dst, src, size, stream), "cuMemcpyDtoDAsync");
}

static xgpu_status cu_rt_memset(const void *api, uint64_t dst, uint32_t value, unsigned width,
                                size_t count, void *stream) {
    if (width == 1) {
        return check(api, D(api)->cuMemsetD8Async(dst, (unsigned char)value, count, stream),
                     "cuMemsetD8Async");
    }
    if (width == 2) {
        return check(api, D(api)->cuMemsetD16Async(dst, (unsigned short)value, count, stream),
                     "cuMemsetD16Async");
    }
    return check(api, D(api)->cuMemsetD32Async(dst, value, count, stream), "cuMemsetD32Async");
}

static xgpu_status cu_rt_module_load(const void *api, const void *image, void **module) {
    return check(api, D(api)->cuModuleLoadData((CUmodule *)module, image), "cuModuleLoadData");
}

static void cu_rt_module_unload(const void *api, void *module) {
    D(api)->cuModuleUnload(module);
}

static xgpu_status cu_rt_get_function(const void *api, void *module, const char *name,
                                      void **function) {
    CUresult r = D(api)->cuModuleGetFunction((CUfunction *)function, module, name);
    if (r == CUDA_ERROR_NOT_FOUND) {
        char buf[32];
        return cu__services->error(CU_BACKEND_NAME, XGPU_ERROR_KERNEL_NOT_FOUND, r,
                                   cu__result_name(D(api), r, buf, sizeof buf),
                                   "no kernel named '%s' in the program", name);
    }
    return check(api, r, "cuModuleGetFunction");
}

static void cu_rt_function_props(const void *api, void *function, xgpu_kernel_props *props) {
    const cu_driver *d = D(api);
    int threads = 0, shared = 0;
    d->cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
    d->cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
    props->max_group_size = (uint64_t)threads;
    props->static_local_bytes = (uint64_t)shared;
    if (d->cuFuncGetParamInfo) { /* CUDA 12.4 and later drivers */
        /* The first index past the end answers CUDA_ERROR_INVALID_VALUE;
         * any other failure leaves the count unknown. */
        size_t offset = 0, size = 0;
        uint32_t n = 0;
        CUresult r = CUDA_SUCCESS;
        while (n < 65536 &&
               (r = d->cuFuncGetParamInfo(function, n, &offset, &size)) == CUDA_SUCCESS) {
            n++;
        }
        if (r == CUDA_ERROR_INVALID_VALUE) {
            props->arg_count = n;
        }
    }
}

static xgpu_status cu_rt_launch(const void *api, void *function, const unsigned grid[3],
                                const unsigned block[3], unsigned shared_bytes, void *stream,
                                void **params) {
    return check(api,
                 D(api)->cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1],
                                        block[2], shared_bytes, stream, params, NULL),
                 "cuLaunchKernel");
}

const xgpu_rt_vendor cu__vendor = {
    .backend = CU_BACKEND_NAME,
    .make_current = cu_rt_make_current,
    .stream_create = cu_rt_stream_create,
    .stream_destroy = cu_rt_stream_destroy,
    .stream_sync = cu_rt_stream_sync,
    .event_create = cu_rt_event_create,
    .event_record = cu_rt_event_record,
    .event_sync = cu_rt_event_sync,
    .stream_wait_event = cu_rt_stream_wait_event,
    .event_elapsed = cu_rt_event_elapsed,
    .event_destroy = cu_rt_event_destroy,
    .mem_alloc = cu_rt_mem_alloc,
    .mem_free = cu_rt_mem_free,
    .host_alloc = cu_rt_host_alloc,
    .host_free = cu_rt_host_free,
    .copy_htod = cu_rt_copy_htod,
    .copy_dtoh = cu_rt_copy_dtoh,
    .copy_dtod = cu_rt_copy_dtod,
    .copy_peer = cu_rt_copy_peer,
    .can_access_peer = cu_rt_can_access_peer,
    .memset = cu_rt_memset,
    .module_load = cu_rt_module_load,
    .module_unload = cu_rt_module_unload,
    .get_function = cu_rt_get_function,
    .function_props = cu_rt_function_props,
    .launch = cu_rt_launch,
};
