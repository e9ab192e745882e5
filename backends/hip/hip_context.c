/* HIP contexts. The HIP runtime API has no context objects: an xgpu
 * context is a device ordinal, made current (hipSetDevice) by every hook.
 * Streams, memory, events and modules are the shared layer's
 * (backends/common/rt_backend.c, over hip_vendor.c). */
#include "hip_internal.h"

#include <stdint.h>
#include <stdlib.h>

xgpu_status hip__context_create(void *state, uint32_t index, void **context) {
    hip_state *st = state;
    hip_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        return hip__services->error(HIP_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                    "context: malloc failed");
    }
    c->state = st;
    c->device = (int)index;
    c->rt = (xgpu_rt_ctx){&hip__vendor, &st->rt, (void *)(intptr_t)index};
    xgpu_status s = xgpu__rt_make_current(&c->rt);
    if (s) {
        free(c);
        return s;
    }
    *context = c;
    return XGPU_SUCCESS;
}

void hip__context_release(void *context) {
    free(context);
}
