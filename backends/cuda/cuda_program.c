/* CUDA programs (NVRTC + cuModuleLoadData), kernels and launches. */
#include "cuda_internal.h"
#include "backend_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRV(ctx) (&(ctx)->state->driver)

static cu_state *nvrtc_once_state; /* pthread_once takes no argument */
static pthread_mutex_t nvrtc_once_lock = PTHREAD_MUTEX_INITIALIZER;

static void nvrtc_load_once(void) {
    cu_state *st = nvrtc_once_state;
    st->nvrtc_status =
        cu__nvrtc_load(&st->nvrtc, st->driver_version, st->nvrtc_reason, sizeof st->nvrtc_reason);
    if (st->nvrtc_status != XGPU_SUCCESS) {
        return;
    }
    /* PTX from an NVRTC newer than the driver does not load; CUBIN for the
     * exact device usually does (minor-version compatibility), but not
     * across major versions. */
    const cu_nvrtc *n = &st->nvrtc;
    int nv = n->major * 1000 + n->minor * 10, drv = st->driver_version;
    char detail[512];
    snprintf(detail, sizeof detail, "NVRTC %d.%d, sm_%d..sm_%d; %s (driver supports CUDA %d.%d)",
             n->major, n->minor, n->arch_count ? n->archs[0] : 0,
             n->arch_count ? n->archs[n->arch_count - 1] : 0,
             nv <= drv                ? "compatible with the driver"
             : n->major == drv / 1000 ? "newer than the driver: CUBIN loads, PTX may not"
                                      : "newer than the driver's major version: install a "
                                        "newer driver or an older NVRTC",
             drv / 1000, (drv % 1000) / 10);
    cu__services->library(CU_BACKEND_NAME, "libnvrtc", n->path, true, detail);
}

static xgpu_status nvrtc_get(cu_state *st, const cu_nvrtc **out) {
    pthread_mutex_lock(&nvrtc_once_lock);
    nvrtc_once_state = st;
    pthread_once(&st->nvrtc_once, nvrtc_load_once);
    pthread_mutex_unlock(&nvrtc_once_lock);
    if (st->nvrtc_status != XGPU_SUCCESS) {
        return cu__services->error(CU_BACKEND_NAME, st->nvrtc_status, 0, NULL, "%s",
                                   st->nvrtc_reason);
    }
    *out = &st->nvrtc;
    return XGPU_SUCCESS;
}

/* The driver refused the image: say which versions disagree. */
static xgpu_status load_failed(const cu_ctx *c, const cu_nvrtc *n, const cu_binary *bin, CUresult r,
                               const char *jit_log) {
    const cu_driver *d = DRV(c);
    char buf[32];
    const char *name = cu__result_name(d, r, buf, sizeof buf);
    int drv = c->state->driver_version;
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_INVALID_PTX ||
        r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE) {
        return cu__services->error(
            CU_BACKEND_NAME, XGPU_ERROR_BUILD_FAILED, r, name,
            "cuModuleLoadData: %s: the driver supports CUDA %d.%d, the code is %s for %s_%d "
            "from NVRTC %d.%d (%s); install a driver for CUDA %d.%d or newer, or an NVRTC no "
            "newer than %d.%d (libnvrtc.so.%d)%s%.1500s",
            name, drv / 1000, (drv % 1000) / 10, bin->ptx ? "PTX" : "CUBIN",
            bin->ptx ? "compute" : "sm", bin->target, n->major, n->minor, n->path, n->major,
            n->minor, drv / 1000, (drv % 1000) / 10, drv / 1000,
            jit_log[0] ? "; the driver's JIT says: " : "", jit_log);
    }
    char detail[1600];
    snprintf(detail, sizeof detail, "%s%.1500s", jit_log[0] ? "; the driver's JIT says: " : "",
             jit_log);
    return cu__fail(d, r, "cuModuleLoadData", detail);
}

xgpu_status cu__program_build(void *context, const char *source, const char *options,
                              void **program, char **log) {
    cu_ctx *c = context;
    const cu_nvrtc *n = NULL;
    xgpu_status st = nvrtc_get(c->state, &n);
    if (st) {
        return st;
    }
    cu_binary bin;
    st = cu__compile(n, source, options, c->sm, &bin, log);
    if (st) {
        return st;
    }
    cu_program *p = calloc(1, sizeof *p);
    if (!p) {
        free(bin.data);
        return cu__services->error(CU_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                   "program: malloc failed");
    }
    p->ctx = c;
    st = cu__make_current(c);
    if (!st) {
        /* With the Ex form, a PTX JIT failure comes with the driver's log. */
        char jit_log[4096] = "";
        CUresult r;
        if (DRV(c)->cuModuleLoadDataEx) {
            int jit_opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
            void *values[] = {jit_log, (void *)(uintptr_t)(sizeof jit_log - 1)};
            r = DRV(c)->cuModuleLoadDataEx(&p->module, bin.data, 2, jit_opts, values);
            jit_log[sizeof jit_log - 1] = '\0';
        } else {
            r = DRV(c)->cuModuleLoadData(&p->module, bin.data);
        }
        st = r == CUDA_SUCCESS ? XGPU_SUCCESS : load_failed(c, n, &bin, r, jit_log);
    }
    free(bin.data);
    if (st) {
        free(p);
        return st;
    }
    *program = p;
    return XGPU_SUCCESS;
}

void cu__program_release(void *program) {
    cu_program *p = program;
    if (cu__make_current(p->ctx) == XGPU_SUCCESS) {
        DRV(p->ctx)->cuModuleUnload(p->module);
    }
    free(p);
}

xgpu_status cu__kernel_create(void *program, const char *name, void **kernel,
                              xgpu_kernel_props *props) {
    cu_program *p = program;
    const cu_driver *d = DRV(p->ctx);
    xgpu_status st = cu__make_current(p->ctx);
    if (st) {
        return st;
    }
    cu_kernel *k = calloc(1, sizeof *k);
    if (!k) {
        return cu__services->error(CU_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                   "kernel: malloc failed");
    }
    CUresult r = d->cuModuleGetFunction(&k->fn, p->module, name);
    if (r != CUDA_SUCCESS) {
        free(k);
        if (r == CUDA_ERROR_NOT_FOUND) {
            char buf[32];
            return cu__services->error(CU_BACKEND_NAME, XGPU_ERROR_KERNEL_NOT_FOUND, r,
                                       cu__result_name(d, r, buf, sizeof buf),
                                       "no kernel named '%s' in the program", name);
        }
        return cu__fail(d, r, "cuModuleGetFunction", NULL);
    }
    int threads = 0, shared = 0;
    d->cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn);
    d->cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn);
    props->max_group_size = (uint64_t)threads;
    props->static_local_bytes = (uint64_t)shared;
    props->preferred_group_multiple = 0; /* the device's warp size */
    if (d->cuFuncGetParamInfo) {         /* CUDA 12.4 and later drivers */
        /* The first index past the end answers CUDA_ERROR_INVALID_VALUE;
         * any other failure leaves the count unknown. */
        size_t offset = 0, size = 0;
        uint32_t n = 0;
        CUresult r2 = CUDA_SUCCESS;
        while (n < 65536 &&
               (r2 = d->cuFuncGetParamInfo(k->fn, n, &offset, &size)) == CUDA_SUCCESS) {
            n++;
        }
        if (r2 == CUDA_ERROR_INVALID_VALUE) {
            props->arg_count = n;
        }
    }
    k->ctx = p->ctx;
    k->dynamic_limit = cu__default_dynamic_limit(shared);
    pthread_mutex_init(&k->lock, NULL);
    *kernel = k;
    return XGPU_SUCCESS;
}

void cu__kernel_release(void *kernel) {
    cu_kernel *k = kernel;
    pthread_mutex_destroy(&k->lock);
    free(k);
}

/* Raises the kernel's dynamic shared memory limit when a launch needs more
 * than it is configured for: above 48 KiB minus the kernel's fixed-size
 * shared memory, the driver wants an opt-in (up to the device's opt-in
 * limit, which the core has checked). */
static xgpu_status ensure_dynamic_limit(cu_kernel *k, size_t bytes) {
    xgpu_status st = XGPU_SUCCESS;
    pthread_mutex_lock(&k->lock);
    if ((long long)bytes > k->dynamic_limit) {
        const cu_driver *d = DRV(k->ctx);
        CUresult r = d->cuFuncSetAttribute
                         ? d->cuFuncSetAttribute(
                               k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes)
                         : CUDA_ERROR_INVALID_VALUE;
        if (r == CUDA_SUCCESS) {
            k->dynamic_limit = (int)bytes;
        } else {
            char detail[80];
            snprintf(detail, sizeof detail, " raising dynamic shared memory to %zu bytes", bytes);
            st = cu__fail(d, r, "cuFuncSetAttribute", detail);
        }
    }
    pthread_mutex_unlock(&k->lock);
    return st;
}

xgpu_status cu__launch(void *queue, void *kernel, const xgpu_range *range, size_t arg_count,
                       const xgpu_backend_arg *args, void **event) {
    cu_queue *q = queue;
    cu_kernel *k = kernel;
    xgpu_status st = cu__make_current(q->ctx);
    if (st) {
        return st;
    }
    enum { SMALL = 32 };
    void *small_params[SMALL];
    CUdeviceptr small_ptrs[SMALL];
    unsigned int small_offsets[SMALL];
    void **params = small_params;
    CUdeviceptr *ptrs = small_ptrs;
    unsigned int *offsets = small_offsets;
    if (arg_count > SMALL) {
        params = malloc(arg_count * sizeof *params);
        ptrs = malloc(arg_count * sizeof *ptrs);
        offsets = malloc(arg_count * sizeof *offsets);
        if (!params || !ptrs || !offsets) {
            free(params);
            free(ptrs);
            free(offsets);
            return cu__services->error(CU_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                       "launch: malloc failed");
        }
    }
    size_t shared = xgpu_util_local_layout(args, arg_count, offsets);
    for (size_t i = 0; i < arg_count; i++) {
        switch (args[i].kind) {
        case XGPU_ARG_BUFFER:
            ptrs[i] = ((cu_buffer *)args[i].buffer)->ptr;
            params[i] = &ptrs[i];
            break;
        case XGPU_ARG_LOCAL:
            params[i] = &offsets[i];
            break;
        default:
            params[i] = (void *)args[i].value;
            break;
        }
    }
    st = ensure_dynamic_limit(k, shared);
    if (!st) {
        CUresult r = DRV(q->ctx)->cuLaunchKernel(
            k->fn, (unsigned)range->groups[0], (unsigned)(range->dims > 1 ? range->groups[1] : 1),
            (unsigned)(range->dims > 2 ? range->groups[2] : 1), (unsigned)range->group_size[0],
            (unsigned)(range->dims > 1 ? range->group_size[1] : 1),
            (unsigned)(range->dims > 2 ? range->group_size[2] : 1), (unsigned)shared, q->stream,
            params, NULL);
        st = r == CUDA_SUCCESS ? cu__finish_op(q, false, event)
                               : cu__fail(DRV(q->ctx), r, "cuLaunchKernel", NULL);
    }
    if (params != small_params) {
        free(params);
        free(ptrs);
        free(offsets);
    }
    return st;
}
