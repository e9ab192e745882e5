/* CUDA contexts: an xgpu context is the device's primary context, retained
 * for as long as the xgpu context lives. Everything else a context holds
 * (streams, memory, events, modules) is the shared layer's
 * (backends/common/rt_backend.c, over cuda_vendor.c). */
#include "cuda_internal.h"

#include <stdlib.h>

xgpu_status cu__context_create(void *state, uint32_t index, void **context) {
    cu_state *st = state;
    cu_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        return cu__services->error(CU_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                   "context: malloc failed");
    }
    c->state = st;
    c->device = st->devices[index];
    c->sm = st->sm[index];
    CUcontext primary = NULL;
    CUresult r = st->driver.cuDevicePrimaryCtxRetain(&primary, c->device);
    if (r != CUDA_SUCCESS) {
        free(c);
        return cu__fail(&st->driver, r, "cuDevicePrimaryCtxRetain", NULL);
    }
    c->rt = (xgpu_rt_ctx){&cu__vendor, &st->driver, primary};
    *context = c;
    return XGPU_SUCCESS;
}

void cu__context_release(void *context) {
    cu_ctx *c = context;
    c->state->driver.cuDevicePrimaryCtxRelease(c->device);
    free(c);
}
