/* HIP streams, device and pinned memory, copies, fills and events. Every
 * hook makes its device current on the calling thread first. */
#include "hip_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT(ctx) (&(ctx)->state->rt)

static xgpu_status oom(const char *what) {
    return hip__services->error(HIP_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                "%s: malloc failed", what);
}

/* HIP has no context objects in its runtime API: a context is a device
 * ordinal, made current (hipSetDevice) by every hook. */
xgpu_status hip__context_create(void *state, uint32_t index, void **context) {
    hip_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        return oom("context");
    }
    c->state = state;
    c->device = (int)index;
    xgpu_status st = hip__make_current(c);
    if (st) {
        free(c);
        return st;
    }
    *context = c;
    return XGPU_SUCCESS;
}

void hip__context_release(void *context) {
    free(context);
}

xgpu_status hip__queue_create(void *context, void **queue) {
    hip_ctx *c = context;
    xgpu_status st = hip__make_current(c);
    if (st) {
        return st;
    }
    hip_queue *q = calloc(1, sizeof *q);
    if (!q) {
        return oom("queue");
    }
    q->ctx = c;
    /* Non-blocking: xgpu queues never synchronise with the null stream. */
    hipError_t r = RT(c)->hipStreamCreateWithFlags(&q->stream, hipStreamNonBlocking);
    if (r != hipSuccess) {
        free(q);
        return hip__fail(RT(c), r, "hipStreamCreateWithFlags", NULL);
    }
    *queue = q;
    return XGPU_SUCCESS;
}

void hip__queue_release(void *queue) {
    hip_queue *q = queue;
    if (hip__make_current(q->ctx) == XGPU_SUCCESS) {
        RT(q->ctx)->hipStreamDestroy(q->stream);
    }
    free(q);
}

xgpu_status hip__queue_finish(void *queue) {
    hip_queue *q = queue;
    xgpu_status st = hip__make_current(q->ctx);
    if (st) {
        return st;
    }
    hipError_t r = RT(q->ctx)->hipStreamSynchronize(q->stream);
    return r == hipSuccess ? XGPU_SUCCESS : hip__fail(RT(q->ctx), r, "hipStreamSynchronize", NULL);
}

static xgpu_status event_create(hip_ctx *c, hip_event **out) {
    hip_event *e = calloc(1, sizeof *e);
    if (!e) {
        return oom("event");
    }
    e->ctx = c;
    hipError_t r = RT(c)->hipEventCreateWithFlags(&e->event, hipEventDefault);
    if (r != hipSuccess) {
        free(e);
        return hip__fail(RT(c), r, "hipEventCreateWithFlags", NULL);
    }
    *out = e;
    return XGPU_SUCCESS;
}

xgpu_status hip__finish_op(hip_queue *q, bool blocking, void **event) {
    const hip_runtime *d = RT(q->ctx);
    if (event) {
        hip_event *e = NULL;
        xgpu_status st = event_create(q->ctx, &e);
        if (st) {
            return st;
        }
        hipError_t r = d->hipEventRecord(e->event, q->stream);
        if (r != hipSuccess) {
            d->hipEventDestroy(e->event);
            free(e);
            return hip__fail(d, r, "hipEventRecord", NULL);
        }
        *event = e;
    }
    if (blocking) {
        hipError_t r = d->hipStreamSynchronize(q->stream);
        if (r != hipSuccess) {
            return hip__fail(d, r, "hipStreamSynchronize", NULL);
        }
    }
    return XGPU_SUCCESS;
}

xgpu_status hip__buffer_create(void *context, size_t size, void **buffer) {
    hip_ctx *c = context;
    xgpu_status st = hip__make_current(c);
    if (st) {
        return st;
    }
    hip_buffer *b = calloc(1, sizeof *b);
    if (!b) {
        return oom("buffer");
    }
    b->ctx = c;
    hipError_t r = RT(c)->hipMalloc(&b->ptr, size);
    if (r != hipSuccess) {
        free(b);
        char detail[64];
        snprintf(detail, sizeof detail, " asking %zu bytes", size);
        return hip__fail(RT(c), r, "hipMalloc", detail);
    }
    *buffer = b;
    return XGPU_SUCCESS;
}

xgpu_status hip__buffer_native(void *buffer, void **native) {
    *native = ((hip_buffer *)buffer)->ptr;
    return XGPU_SUCCESS;
}

xgpu_status hip__queue_native(void *queue, void **native) {
    *native = ((hip_queue *)queue)->stream;
    return XGPU_SUCCESS;
}

void hip__buffer_release(void *buffer) {
    hip_buffer *b = buffer;
    if (hip__make_current(b->ctx) == XGPU_SUCCESS) {
        /* Queued work may still use the buffer (xgpu.h allows the release):
         * wait for the device before the memory goes back. */
        if (RT(b->ctx)->hipDeviceSynchronize) {
            RT(b->ctx)->hipDeviceSynchronize();
        }
        RT(b->ctx)->hipFree(b->ptr);
    }
    free(b);
}

xgpu_status hip__buffer_write(void *queue, void *buffer, size_t offset, const void *src,
                              size_t size, bool blocking, void **event) {
    hip_queue *q = queue;
    hip_buffer *b = buffer;
    xgpu_status st = hip__make_current(q->ctx);
    if (st) {
        return st;
    }
    hipError_t r =
        RT(q->ctx)->hipMemcpyHtoDAsync((char *)b->ptr + offset, (void *)src, size, q->stream);
    if (r != hipSuccess) {
        return hip__fail(RT(q->ctx), r, "hipMemcpyHtoDAsync", NULL);
    }
    return hip__finish_op(q, blocking, event);
}

xgpu_status hip__buffer_read(void *queue, void *buffer, size_t offset, void *dst, size_t size,
                             bool blocking, void **event) {
    hip_queue *q = queue;
    hip_buffer *b = buffer;
    xgpu_status st = hip__make_current(q->ctx);
    if (st) {
        return st;
    }
    hipError_t r = RT(q->ctx)->hipMemcpyDtoHAsync(dst, (char *)b->ptr + offset, size, q->stream);
    if (r != hipSuccess) {
        return hip__fail(RT(q->ctx), r, "hipMemcpyDtoHAsync", NULL);
    }
    return hip__finish_op(q, blocking, event);
}

xgpu_status hip__buffer_copy(void *queue, void *src, size_t src_offset, void *dst,
                             size_t dst_offset, size_t size, void **event) {
    hip_queue *q = queue;
    xgpu_status st = hip__make_current(q->ctx);
    if (st) {
        return st;
    }
    hipError_t r = RT(q->ctx)->hipMemcpyDtoDAsync((char *)((hip_buffer *)dst)->ptr + dst_offset,
                                                  (char *)((hip_buffer *)src)->ptr + src_offset,
                                                  size, q->stream);
    if (r != hipSuccess) {
        return hip__fail(RT(q->ctx), r, "hipMemcpyDtoDAsync", NULL);
    }
    return hip__finish_op(q, false, event);
}

/* A pattern that is one 4-byte word repeated can use hipMemsetD32. */
static bool repeats_word(const unsigned char *p, size_t size) {
    for (size_t i = 4; i < size; i++) {
        if (p[i] != p[i % 4]) {
            return false;
        }
    }
    return true;
}

xgpu_status hip__buffer_fill(void *queue, void *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, void **event) {
    hip_queue *q = queue;
    hip_buffer *b = buffer;
    const hip_runtime *d = RT(q->ctx);
    xgpu_status st = hip__make_current(q->ctx);
    if (st) {
        return st;
    }
    hipDeviceptr_t dst = (char *)b->ptr + offset;
    hipError_t r;
    const char *call;
    if (pattern_size == 1) {
        call = "hipMemsetD8Async";
        r = d->hipMemsetD8Async(dst, *(const unsigned char *)pattern, size, q->stream);
    } else if (pattern_size == 2) {
        unsigned short v;
        memcpy(&v, pattern, 2);
        call = "hipMemsetD16Async";
        r = d->hipMemsetD16Async(dst, v, size / 2, q->stream);
    } else if (repeats_word(pattern, pattern_size)) {
        unsigned int v;
        memcpy(&v, pattern, 4);
        call = "hipMemsetD32Async";
        r = d->hipMemsetD32Async(dst, (int)v, size / 4, q->stream);
    } else {
        /* Wider patterns: the core's fill (one chunk, then device copies). */
        return XGPU_ERROR_UNSUPPORTED;
    }
    if (r != hipSuccess) {
        return hip__fail(d, r, call, NULL);
    }
    return hip__finish_op(q, false, event);
}

xgpu_status hip__host_alloc(void *context, size_t size, void **handle, void **ptr) {
    hip_ctx *c = context;
    xgpu_status st = hip__make_current(c);
    if (st) {
        return st;
    }
    void *p = NULL;
    hipError_t r = RT(c)->hipHostMalloc(&p, size, hipHostMallocDefault);
    if (r != hipSuccess) {
        return hip__fail(RT(c), r, "hipHostMalloc", NULL);
    }
    *handle = p;
    *ptr = p;
    return XGPU_SUCCESS;
}

void hip__host_free(void *context, void *handle) {
    hip_ctx *c = context;
    if (hip__make_current(c) == XGPU_SUCCESS) {
        RT(c)->hipHostFree(handle);
    }
}

xgpu_status hip__queue_record_event(void *queue, void **event) {
    hip_queue *q = queue;
    xgpu_status st = hip__make_current(q->ctx);
    return st ? st : hip__finish_op(q, false, event);
}

xgpu_status hip__event_wait(void *event) {
    hip_event *e = event;
    xgpu_status st = hip__make_current(e->ctx);
    if (st) {
        return st;
    }
    hipError_t r = RT(e->ctx)->hipEventSynchronize(e->event);
    return r == hipSuccess ? XGPU_SUCCESS : hip__fail(RT(e->ctx), r, "hipEventSynchronize", NULL);
}

xgpu_status hip__event_elapsed_ms(void *start, void *end, double *ms) {
    hip_event *a = start, *b = end;
    xgpu_status st = hip__make_current(a->ctx);
    if (st) {
        return st;
    }
    float t = 0;
    hipError_t r = RT(a->ctx)->hipEventElapsedTime(&t, a->event, b->event);
    if (r != hipSuccess) {
        return hip__fail(RT(a->ctx), r, "hipEventElapsedTime", NULL);
    }
    *ms = t;
    return XGPU_SUCCESS;
}

void hip__event_release(void *event) {
    hip_event *e = event;
    if (hip__make_current(e->ctx) == XGPU_SUCCESS) {
        RT(e->ctx)->hipEventDestroy(e->event);
    }
    free(e);
}
