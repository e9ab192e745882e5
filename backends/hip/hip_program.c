/* HIP programs (hiprtc + hipModuleLoadData), kernels and launches. */
#include "hip_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT(ctx) (&(ctx)->state->rt)

/* Loads hiprtc for the state (the first build on any thread). */
static xgpu_status rtc_load(void *state, char *reason, size_t reason_size) {
    hip_state *st = state;
    return hip__rtc_load(&st->rt, &st->rtc, reason, reason_size);
}

static xgpu_status rtc_get(hip_state *st, const hip_rtc **out) {
    xgpu_status status =
        xgpu__util_lazy_get(&st->rtc_lazy, hip__services, HIP_BACKEND_NAME, rtc_load, st);
    if (status == XGPU_SUCCESS) {
        *out = &st->rtc;
    }
    return status;
}

/* Loads `code` (malloc'ed) into a new program that keeps it, or frees it. */
static xgpu_status load_program(hip_ctx *c, char *code, size_t size, void **program) {
    xgpu_status st = xgpu__rt_program_load(&c->rt, code, sizeof(xgpu_rt_program), program);
    if (st != XGPU_SUCCESS) {
        free(code);
        return st;
    }
    xgpu_rt_program *p = *program;
    p->image = code;
    p->image_size = size;
    return XGPU_SUCCESS;
}

xgpu_status hip__program_build(void *context, const char *source, const char *options,
                               void **program, char **log) {
    hip_ctx *c = context;
    const hip_rtc *rtc = NULL;
    xgpu_status st = rtc_get(c->state, &rtc);
    if (st != XGPU_SUCCESS) {
        /* No hiprtc: xgpu's own library kernels are built in as code
         * object bundles; any other source needs hiprtc. */
        const xgpu_embedded *e = xgpu__embedded_find(&hip__embedded_table, source, options);
        if (!e) {
            return hip__services->error(
                HIP_BACKEND_NAME, st, 0, NULL,
                "%s; without it only xgpu's library kernels run (%zu built in: %s)",
                c->state->rtc_lazy.reason, hip__embedded_table.count, hip__embedded_table.about);
        }
        hip__services->log(HIP_BACKEND_NAME, XGPU_LOG_DEBUG,
                           "no hiprtc: %s kernel from the built-in %s", e->name,
                           hip__embedded_table.about);
        char *code = malloc(e->size + 1);
        if (!code) {
            return xgpu__rt_oom(&c->rt, "program");
        }
        memcpy(code, e->data, e->size + 1);
        hip__last_failure(); /* forget an earlier one */
        st = load_program(c, code, e->size, program);
        if (st != XGPU_SUCCESS) {
            /* Keep the runtime's code and name (hipErrorNoBinaryForGpu:
             * no code object for this architecture in the bundle). */
            hipError_t he = hip__last_failure();
            char buf[32];
            const char *name = he ? hip__error_name(RT(c), he, buf, sizeof buf) : NULL;
            return hip__services->error(
                HIP_BACKEND_NAME, st, he, name,
                "the built-in %s kernel (%s) does not load on %s (hipModuleLoadData: %s): hiprtc "
                "is needed for this device (%s)",
                e->name, hip__embedded_table.about, c->state->arch[c->device],
                name ? name : "failed", c->state->rtc_lazy.reason);
        }
        return XGPU_SUCCESS;
    }
    char *code = NULL;
    size_t code_size = 0;
    st = hip__compile(rtc, source, options, c->state->arch[c->device], &code, &code_size, log);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    return load_program(c, code, code_size, program);
}

xgpu_status hip__program_load_binary(void *context, const void *data, size_t size,
                                     const char *options, void **program, char **log) {
    (void)options, (void)log;
    hip_ctx *c = context;
    char *code = malloc(size ? size : 1);
    if (!code) {
        return xgpu__rt_oom(&c->rt, "program");
    }
    memcpy(code, data, size);
    return load_program(c, code, size, program);
}

xgpu_status hip__build_identity(void *context, char *out, size_t size) {
    hip_ctx *c = context;
    const hip_rtc *rtc = NULL;
    bool have_rtc = rtc_get(c->state, &rtc) == XGPU_SUCCESS; /* the core clears the error */
    snprintf(out, size, "hiprtc %s (ROCm %d); %s", have_rtc ? rtc->path : "none",
             have_rtc ? rtc->rocm_version : 0, c->state->arch[c->device]);
    return XGPU_SUCCESS;
}

xgpu_status hip__kernel_create(void *program, const char *name, void **kernel,
                               xgpu_kernel_props *props) {
    return xgpu__rt_kernel_create(program, name, sizeof(xgpu_rt_kernel), kernel, props);
}

void hip__kernel_release(void *kernel) {
    free(kernel);
}
