/* CUDA contexts (the device's primary context), streams, device and pinned
 * memory, copies, fills and events. Every hook makes its context current on
 * the calling thread first. */
#include "cuda_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRV(ctx) (&(ctx)->state->driver)

static xgpu_status oom(const char *what) {
    return cu__services->error(CU_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                               "%s: malloc failed", what);
}

xgpu_status cu__context_create(void *state, uint32_t index, void **context) {
    cu_state *st = state;
    cu_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        return oom("context");
    }
    c->state = st;
    c->device = st->devices[index];
    c->sm = st->sm[index];
    CUresult r = st->driver.cuDevicePrimaryCtxRetain(&c->context, c->device);
    if (r != CUDA_SUCCESS) {
        free(c);
        return cu__fail(&st->driver, r, "cuDevicePrimaryCtxRetain", NULL);
    }
    *context = c;
    return XGPU_SUCCESS;
}

void cu__context_release(void *context) {
    cu_ctx *c = context;
    DRV(c)->cuDevicePrimaryCtxRelease(c->device);
    free(c);
}

xgpu_status cu__queue_create(void *context, void **queue) {
    cu_ctx *c = context;
    xgpu_status st = cu__make_current(c);
    if (st) {
        return st;
    }
    cu_queue *q = calloc(1, sizeof *q);
    if (!q) {
        return oom("queue");
    }
    q->ctx = c;
    /* Non-blocking: xgpu queues never synchronise with the legacy stream 0. */
    CUresult r = DRV(c)->cuStreamCreate(&q->stream, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS) {
        free(q);
        return cu__fail(DRV(c), r, "cuStreamCreate", NULL);
    }
    *queue = q;
    return XGPU_SUCCESS;
}

void cu__queue_release(void *queue) {
    cu_queue *q = queue;
    if (cu__make_current(q->ctx) == XGPU_SUCCESS) {
        DRV(q->ctx)->cuStreamDestroy(q->stream);
    }
    free(q);
}

xgpu_status cu__queue_finish(void *queue) {
    cu_queue *q = queue;
    xgpu_status st = cu__make_current(q->ctx);
    if (st) {
        return st;
    }
    CUresult r = DRV(q->ctx)->cuStreamSynchronize(q->stream);
    return r == CUDA_SUCCESS ? XGPU_SUCCESS : cu__fail(DRV(q->ctx), r, "cuStreamSynchronize", NULL);
}

static xgpu_status event_create(cu_ctx *c, cu_event **out) {
    cu_event *e = calloc(1, sizeof *e);
    if (!e) {
        return oom("event");
    }
    e->ctx = c;
    CUresult r = DRV(c)->cuEventCreate(&e->event, CU_EVENT_DEFAULT);
    if (r != CUDA_SUCCESS) {
        free(e);
        return cu__fail(DRV(c), r, "cuEventCreate", NULL);
    }
    *out = e;
    return XGPU_SUCCESS;
}

xgpu_status cu__finish_op(cu_queue *q, bool blocking, void **event) {
    const cu_driver *d = DRV(q->ctx);
    if (event) {
        cu_event *e = NULL;
        xgpu_status st = event_create(q->ctx, &e);
        if (st) {
            return st;
        }
        CUresult r = d->cuEventRecord(e->event, q->stream);
        if (r != CUDA_SUCCESS) {
            d->cuEventDestroy(e->event);
            free(e);
            return cu__fail(d, r, "cuEventRecord", NULL);
        }
        *event = e;
    }
    if (blocking) {
        CUresult r = d->cuStreamSynchronize(q->stream);
        if (r != CUDA_SUCCESS) {
            return cu__fail(d, r, "cuStreamSynchronize", NULL);
        }
    }
    return XGPU_SUCCESS;
}

xgpu_status cu__buffer_create(void *context, size_t size, void **buffer) {
    cu_ctx *c = context;
    xgpu_status st = cu__make_current(c);
    if (st) {
        return st;
    }
    cu_buffer *b = calloc(1, sizeof *b);
    if (!b) {
        return oom("buffer");
    }
    b->ctx = c;
    CUresult r = DRV(c)->cuMemAlloc(&b->ptr, size);
    if (r != CUDA_SUCCESS) {
        free(b);
        char detail[64];
        snprintf(detail, sizeof detail, " asking %zu bytes", size);
        return cu__fail(DRV(c), r, "cuMemAlloc", detail);
    }
    *buffer = b;
    return XGPU_SUCCESS;
}

xgpu_status cu__buffer_native(void *buffer, void **native) {
    *native = (void *)(uintptr_t)((cu_buffer *)buffer)->ptr; /* CUdeviceptr */
    return XGPU_SUCCESS;
}

xgpu_status cu__queue_native(void *queue, void **native) {
    *native = ((cu_queue *)queue)->stream;
    return XGPU_SUCCESS;
}

void cu__buffer_release(void *buffer) {
    cu_buffer *b = buffer;
    if (cu__make_current(b->ctx) == XGPU_SUCCESS) {
        /* Queued work may still use the buffer (xgpu.h allows the release);
         * cuMemFree only "may" synchronise, so wait for the context. */
        if (DRV(b->ctx)->cuCtxSynchronize) {
            DRV(b->ctx)->cuCtxSynchronize();
        }
        DRV(b->ctx)->cuMemFree(b->ptr);
    }
    free(b);
}

xgpu_status cu__buffer_write(void *queue, void *buffer, size_t offset, const void *src, size_t size,
                             bool blocking, void **event) {
    cu_queue *q = queue;
    cu_buffer *b = buffer;
    xgpu_status st = cu__make_current(q->ctx);
    if (st) {
        return st;
    }
    CUresult r = DRV(q->ctx)->cuMemcpyHtoDAsync(b->ptr + offset, src, size, q->stream);
    if (r != CUDA_SUCCESS) {
        return cu__fail(DRV(q->ctx), r, "cuMemcpyHtoDAsync", NULL);
    }
    return cu__finish_op(q, blocking, event);
}

xgpu_status cu__buffer_read(void *queue, void *buffer, size_t offset, void *dst, size_t size,
                            bool blocking, void **event) {
    cu_queue *q = queue;
    cu_buffer *b = buffer;
    xgpu_status st = cu__make_current(q->ctx);
    if (st) {
        return st;
    }
    CUresult r = DRV(q->ctx)->cuMemcpyDtoHAsync(dst, b->ptr + offset, size, q->stream);
    if (r != CUDA_SUCCESS) {
        return cu__fail(DRV(q->ctx), r, "cuMemcpyDtoHAsync", NULL);
    }
    return cu__finish_op(q, blocking, event);
}

xgpu_status cu__buffer_copy(void *queue, void *src, size_t src_offset, void *dst, size_t dst_offset,
                            size_t size, void **event) {
    cu_queue *q = queue;
    xgpu_status st = cu__make_current(q->ctx);
    if (st) {
        return st;
    }
    CUresult r =
        DRV(q->ctx)->cuMemcpyDtoDAsync(((cu_buffer *)dst)->ptr + dst_offset,
                                       ((cu_buffer *)src)->ptr + src_offset, size, q->stream);
    if (r != CUDA_SUCCESS) {
        return cu__fail(DRV(q->ctx), r, "cuMemcpyDtoDAsync", NULL);
    }
    return cu__finish_op(q, false, event);
}

/* A pattern that is one 4-byte word repeated can use cuMemsetD32. */
static bool repeats_word(const unsigned char *p, size_t size) {
    for (size_t i = 4; i < size; i++) {
        if (p[i] != p[i % 4]) {
            return false;
        }
    }
    return true;
}

xgpu_status cu__buffer_fill(void *queue, void *buffer, size_t offset, size_t size,
                            const void *pattern, size_t pattern_size, void **event) {
    cu_queue *q = queue;
    cu_buffer *b = buffer;
    const cu_driver *d = DRV(q->ctx);
    xgpu_status st = cu__make_current(q->ctx);
    if (st) {
        return st;
    }
    CUdeviceptr dst = b->ptr + offset;
    CUresult r;
    const char *call;
    if (pattern_size == 1) {
        call = "cuMemsetD8Async";
        r = d->cuMemsetD8Async(dst, *(const unsigned char *)pattern, size, q->stream);
    } else if (pattern_size == 2) {
        unsigned short v;
        memcpy(&v, pattern, 2);
        call = "cuMemsetD16Async";
        r = d->cuMemsetD16Async(dst, v, size / 2, q->stream);
    } else if (repeats_word(pattern, pattern_size)) {
        unsigned int v;
        memcpy(&v, pattern, 4);
        call = "cuMemsetD32Async";
        r = d->cuMemsetD32Async(dst, v, size / 4, q->stream);
    } else {
        /* Wider patterns: the core's fill (one chunk, then device copies). */
        return XGPU_ERROR_UNSUPPORTED;
    }
    if (r != CUDA_SUCCESS) {
        return cu__fail(d, r, call, NULL);
    }
    return cu__finish_op(q, false, event);
}

xgpu_status cu__host_alloc(void *context, size_t size, void **handle, void **ptr) {
    cu_ctx *c = context;
    xgpu_status st = cu__make_current(c);
    if (st) {
        return st;
    }
    void *p = NULL;
    CUresult r = DRV(c)->cuMemAllocHost(&p, size);
    if (r != CUDA_SUCCESS) {
        return cu__fail(DRV(c), r, "cuMemAllocHost", NULL);
    }
    *handle = p;
    *ptr = p;
    return XGPU_SUCCESS;
}

void cu__host_free(void *context, void *handle) {
    cu_ctx *c = context;
    if (cu__make_current(c) == XGPU_SUCCESS) {
        DRV(c)->cuMemFreeHost(handle);
    }
}

xgpu_status cu__queue_record_event(void *queue, void **event) {
    cu_queue *q = queue;
    xgpu_status st = cu__make_current(q->ctx);
    return st ? st : cu__finish_op(q, false, event);
}

xgpu_status cu__event_wait(void *event) {
    cu_event *e = event;
    xgpu_status st = cu__make_current(e->ctx);
    if (st) {
        return st;
    }
    CUresult r = DRV(e->ctx)->cuEventSynchronize(e->event);
    return r == CUDA_SUCCESS ? XGPU_SUCCESS : cu__fail(DRV(e->ctx), r, "cuEventSynchronize", NULL);
}

xgpu_status cu__event_elapsed_ms(void *start, void *end, double *ms) {
    cu_event *a = start, *b = end;
    xgpu_status st = cu__make_current(a->ctx);
    if (st) {
        return st;
    }
    float t = 0;
    CUresult r = DRV(a->ctx)->cuEventElapsedTime(&t, a->event, b->event);
    if (r != CUDA_SUCCESS) {
        return cu__fail(DRV(a->ctx), r, "cuEventElapsedTime", NULL);
    }
    *ms = t;
    return XGPU_SUCCESS;
}

void cu__event_release(void *event) {
    cu_event *e = event;
    if (cu__make_current(e->ctx) == XGPU_SUCCESS) {
        DRV(e->ctx)->cuEventDestroy(e->event);
    }
    free(e);
}
