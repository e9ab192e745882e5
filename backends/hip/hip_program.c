/* HIP programs (hiprtc + hipModuleLoadData), kernels and launches. */
#include "hip_internal.h"
#include "backend_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT(ctx) (&(ctx)->state->rt)

static hip_state *rtc_once_state; /* pthread_once takes no argument */
static pthread_mutex_t rtc_once_lock = PTHREAD_MUTEX_INITIALIZER;

static void rtc_load_once(void) {
    hip_state *st = rtc_once_state;
    st->rtc_status = hip__rtc_load(&st->rt, &st->rtc, st->rtc_reason, sizeof st->rtc_reason);
}

static xgpu_status rtc_get(hip_state *st, const hip_rtc **out) {
    pthread_mutex_lock(&rtc_once_lock);
    rtc_once_state = st;
    pthread_once(&st->rtc_once, rtc_load_once);
    pthread_mutex_unlock(&rtc_once_lock);
    if (st->rtc_status != XGPU_SUCCESS) {
        return hip__services->error(HIP_BACKEND_NAME, st->rtc_status, 0, NULL, "%s",
                                    st->rtc_reason);
    }
    *out = &st->rtc;
    return XGPU_SUCCESS;
}

xgpu_status hip__program_build(void *context, const char *source, const char *options,
                               void **program, char **log) {
    hip_ctx *c = context;
    const hip_rtc *rtc = NULL;
    xgpu_status st = rtc_get(c->state, &rtc);
    if (st) {
        return st;
    }
    char *code = NULL;
    size_t code_size = 0;
    st = hip__compile(rtc, source, options, c->state->arch[c->device], &code, &code_size, log);
    if (st) {
        return st;
    }
    hip_program *p = calloc(1, sizeof *p);
    if (!p) {
        free(code);
        return hip__services->error(HIP_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                    "program: malloc failed");
    }
    p->ctx = c;
    st = hip__make_current(c);
    if (!st) {
        hipError_t e = RT(c)->hipModuleLoadData(&p->module, code);
        st = e == hipSuccess ? XGPU_SUCCESS : hip__fail(RT(c), e, "hipModuleLoadData", NULL);
    }
    free(code);
    if (st) {
        free(p);
        return st;
    }
    *program = p;
    return XGPU_SUCCESS;
}

void hip__program_release(void *program) {
    hip_program *p = program;
    if (hip__make_current(p->ctx) == XGPU_SUCCESS) {
        RT(p->ctx)->hipModuleUnload(p->module);
    }
    free(p);
}

xgpu_status hip__kernel_create(void *program, const char *name, void **kernel,
                               xgpu_kernel_props *props) {
    hip_program *p = program;
    const hip_runtime *rt = RT(p->ctx);
    xgpu_status st = hip__make_current(p->ctx);
    if (st) {
        return st;
    }
    hip_kernel *k = calloc(1, sizeof *k);
    if (!k) {
        return hip__services->error(HIP_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                    "kernel: malloc failed");
    }
    hipError_t e = rt->hipModuleGetFunction(&k->fn, p->module, name);
    if (e != hipSuccess) {
        free(k);
        if (e == hipErrorNotFound) {
            char buf[32];
            return hip__services->error(HIP_BACKEND_NAME, XGPU_ERROR_KERNEL_NOT_FOUND, e,
                                        hip__error_name(rt, e, buf, sizeof buf),
                                        "no kernel named '%s' in the program", name);
        }
        return hip__fail(rt, e, "hipModuleGetFunction", NULL);
    }
    int threads = 0, shared = 0;
    if (rt->hipFuncGetAttribute) {
        rt->hipFuncGetAttribute(&threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn);
        rt->hipFuncGetAttribute(&shared, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn);
    }
    props->max_group_size = (uint64_t)threads;
    props->static_local_bytes = (uint64_t)shared;
    props->preferred_group_multiple = 0; /* the device's wavefront size */
    k->ctx = p->ctx;
    *kernel = k;
    return XGPU_SUCCESS;
}

void hip__kernel_release(void *kernel) {
    free(kernel);
}

xgpu_status hip__launch(void *queue, void *kernel, const xgpu_range *range, size_t arg_count,
                        const xgpu_backend_arg *args, void **event) {
    hip_queue *q = queue;
    hip_kernel *k = kernel;
    xgpu_status st = hip__make_current(q->ctx);
    if (st) {
        return st;
    }
    enum { SMALL = 32 };
    void *small_params[SMALL];
    hipDeviceptr_t small_ptrs[SMALL];
    unsigned int small_offsets[SMALL];
    void **params = small_params;
    hipDeviceptr_t *ptrs = small_ptrs;
    unsigned int *offsets = small_offsets;
    if (arg_count > SMALL) {
        params = malloc(arg_count * sizeof *params);
        ptrs = malloc(arg_count * sizeof *ptrs);
        offsets = malloc(arg_count * sizeof *offsets);
        if (!params || !ptrs || !offsets) {
            free(params);
            free(ptrs);
            free(offsets);
            return hip__services->error(HIP_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                        "launch: malloc failed");
        }
    }
    size_t shared = xgpu_util_local_layout(args, arg_count, offsets);
    for (size_t i = 0; i < arg_count; i++) {
        switch (args[i].kind) {
        case XGPU_ARG_BUFFER:
            ptrs[i] = ((hip_buffer *)args[i].buffer)->ptr;
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
    hipError_t e = RT(q->ctx)->hipModuleLaunchKernel(
        k->fn, (unsigned)range->groups[0], (unsigned)(range->dims > 1 ? range->groups[1] : 1),
        (unsigned)(range->dims > 2 ? range->groups[2] : 1), (unsigned)range->group_size[0],
        (unsigned)(range->dims > 1 ? range->group_size[1] : 1),
        (unsigned)(range->dims > 2 ? range->group_size[2] : 1), (unsigned)shared, q->stream, params,
        NULL);
    st = e == hipSuccess ? hip__finish_op(q, false, event)
                         : hip__fail(RT(q->ctx), e, "hipModuleLaunchKernel", NULL);
    if (params != small_params) {
        free(params);
        free(ptrs);
        free(offsets);
    }
    return st;
}
