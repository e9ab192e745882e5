/* HIP programs (hiprtc + hipModuleLoadData), kernels and launches. */
#include "hip_internal.h"

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
    if (st != XGPU_SUCCESS) {
        return st;
    }
    char *code = NULL;
    size_t code_size = 0;
    st = hip__compile(rtc, source, options, c->state->arch[c->device], &code, &code_size, log);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    st = xgpu__rt_program_load(&c->rt, code, sizeof(xgpu_rt_program), program);
    free(code);
    return st;
}

xgpu_status hip__kernel_create(void *program, const char *name, void **kernel,
                               xgpu_kernel_props *props) {
    return xgpu__rt_kernel_create(program, name, sizeof(xgpu_rt_kernel), kernel, props);
}

void hip__kernel_release(void *kernel) {
    free(kernel);
}
