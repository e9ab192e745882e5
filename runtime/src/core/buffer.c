/* Device buffers: allocation, copies and fills, with every range checked
 * before a backend sees it. */
#include "core_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

xgpu_status xgpu__buffer_range(const char *func, const char *what, const xgpu__buffer *buf,
                               size_t offset, size_t size) {
    if (size == 0) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE, "%s: size is 0", func);
    }
    if (offset > buf->size || size > buf->size - offset) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_RANGE,
                          "%s: %s range [%zu, %zu + %zu) reaches past the end of the "
                          "%zu-byte buffer",
                          func, what, offset, offset, size, buf->size);
    }
    return XGPU_SUCCESS;
}

static xgpu_status check_same_context(const char *func, const xgpu__queue *q, const xgpu__buffer *b,
                                      const char *what) {
    if (q->context != b->context) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: %s belongs to another context than the queue", func, what);
    }
    return XGPU_SUCCESS;
}

/* The context is pinned (counted live) by the caller. */
static xgpu_status buffer_create(const char *func, xgpu__context *context, size_t size,
                                 xgpu_buffer **buffer) {
    if (size == 0) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE, "%s: size is 0", func);
    }
    const xgpu_device_info *info = &context->device->info;
    char asked[64], have[64];
    xgpu__format_bytes(asked, sizeof asked, size);
    if (info->global_mem_bytes && size > info->global_mem_bytes) {
        xgpu__format_bytes(have, sizeof have, info->global_mem_bytes);
        return xgpu__fail(XGPU_ERROR_OUT_OF_DEVICE_MEMORY,
                          "%s: %s asked, but device %s:%u (%s) has %s of memory", func, asked,
                          info->backend, info->backend_index, info->name, have);
    }
    if (info->max_alloc_bytes && size > info->max_alloc_bytes) {
        xgpu__format_bytes(have, sizeof have, info->max_alloc_bytes);
        return xgpu__fail(XGPU_ERROR_OUT_OF_DEVICE_MEMORY,
                          "%s: %s asked, but the largest single allocation on device %s:%u "
                          "(%s) is %s",
                          func, asked, info->backend, info->backend_index, info->name, have);
    }
    xgpu__buffer *b = calloc(1, sizeof *b);
    if (!b) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: malloc failed", func);
    }
    xgpu_status st = context->ops->buffer_create(context->handle, size, &b->handle);
    if (st != XGPU_SUCCESS) {
        free(b);
        return st;
    }
    b->context = context;
    b->size = size;
    st = xgpu__handle_add(b, XGPU__MAGIC_BUFFER, func, (void **)&b->self);
    if (st != XGPU_SUCCESS) {
        context->ops->buffer_release(b->handle);
        free(b);
        return st;
    }
    *buffer = b->self;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_buffer_create(xgpu_context *context, size_t size, xgpu_buffer **buffer) {
    if (!buffer) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: buffer is NULL", __func__);
    }
    *buffer = NULL;
    xgpu__context *c;
    XGPU__OK_OR_RETURN(xgpu__context_pin(context, __func__, &c));
    xgpu_status st = buffer_create(__func__, c, size, buffer);
    if (st != XGPU_SUCCESS) {
        xgpu__context_unpin(c);
    }
    return st;
}

xgpu_status xgpu_buffer_release(xgpu_buffer *buffer) {
    if (!buffer) {
        return XGPU_SUCCESS;
    }
    xgpu__buffer *b;
    XGPU__OK_OR_RETURN(xgpu__buffer_take(buffer, __func__, "buffer", &b));
    b->context->ops->buffer_release(b->handle);
    xgpu__context_unpin(b->context);
    free(b);
    return XGPU_SUCCESS;
}

xgpu_status xgpu_buffer_native(const xgpu_buffer *buffer, void **native) {
    xgpu__buffer *b;
    XGPU__OK_OR_RETURN(xgpu__buffer_get(buffer, __func__, "buffer", &b));
    if (!native) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: native is NULL", __func__);
    }
    return b->context->ops->buffer_native(b->handle, native);
}

xgpu_status xgpu_queue_native(const xgpu_queue *queue, void **native) {
    xgpu__queue *q;
    XGPU__OK_OR_RETURN(xgpu__queue_get(queue, __func__, "queue", &q));
    if (!native) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: native is NULL", __func__);
    }
    return q->context->ops->queue_native(q->handle, native);
}

xgpu_status xgpu_buffer_size(const xgpu_buffer *buffer, size_t *size) {
    xgpu__buffer *b;
    XGPU__OK_OR_RETURN(xgpu__buffer_get(buffer, __func__, "buffer", &b));
    if (!size) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: size is NULL", __func__);
    }
    *size = b->size;
    return XGPU_SUCCESS;
}

/* Common checks of a host<->device transfer; the objects in *q and *b. */
static xgpu_status check_transfer(const char *func, xgpu_queue *queue, xgpu_buffer *buf,
                                  size_t offset, const void *host, size_t size, xgpu_event **event,
                                  xgpu__queue **q, xgpu__buffer **b) {
    if (event) {
        *event = NULL;
    }
    XGPU__OK_OR_RETURN(xgpu__queue_get(queue, func, "queue", q));
    XGPU__OK_OR_RETURN(xgpu__buffer_get(buf, func, "buffer", b));
    xgpu_status st = check_same_context(func, *q, *b, "buffer");
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (!host) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: host pointer is NULL", func);
    }
    return xgpu__buffer_range(func, "buffer", *b, offset, size);
}

xgpu_status xgpu_buffer_write(xgpu_queue *queue, xgpu_buffer *dst, size_t dst_offset,
                              const void *src, size_t size, bool blocking, xgpu_event **event) {
    xgpu__queue *q;
    xgpu__buffer *b;
    xgpu_status st = check_transfer(__func__, queue, dst, dst_offset, src, size, event, &q, &b);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    void *ev = NULL;
    st = q->context->ops->buffer_write(q->handle, b->handle, dst_offset, src, size, blocking,
                                       event ? &ev : NULL);
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(q->context, ev, event);
}

xgpu_status xgpu_buffer_read(xgpu_queue *queue, xgpu_buffer *src, size_t src_offset, void *dst,
                             size_t size, bool blocking, xgpu_event **event) {
    xgpu__queue *q;
    xgpu__buffer *b;
    xgpu_status st = check_transfer(__func__, queue, src, src_offset, dst, size, event, &q, &b);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    void *ev = NULL;
    st = q->context->ops->buffer_read(q->handle, b->handle, src_offset, dst, size, blocking,
                                      event ? &ev : NULL);
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(q->context, ev, event);
}

xgpu_status xgpu__copy_ranges(const char *func, const xgpu__buffer *src, size_t src_offset,
                              const xgpu__buffer *dst, size_t dst_offset, size_t size) {
    xgpu_status st = xgpu__buffer_range(func, "src", src, src_offset, size);
    if (st == XGPU_SUCCESS) {
        st = xgpu__buffer_range(func, "dst", dst, dst_offset, size);
    }
    if (st == XGPU_SUCCESS && src == dst && src_offset < dst_offset + size &&
        dst_offset < src_offset + size) {
        st = xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                        "%s: source [%zu, +%zu) and destination [%zu, +%zu) overlap", func,
                        src_offset, size, dst_offset, size);
    }
    return st;
}

xgpu_status xgpu_buffer_copy(xgpu_queue *queue, xgpu_buffer *src, size_t src_offset,
                             xgpu_buffer *dst, size_t dst_offset, size_t size, xgpu_event **event) {
    if (event) {
        *event = NULL;
    }
    xgpu__queue *q;
    xgpu__buffer *s, *d;
    XGPU__OK_OR_RETURN(xgpu__queue_get(queue, __func__, "queue", &q));
    XGPU__OK_OR_RETURN(xgpu__buffer_get(src, __func__, "src", &s));
    XGPU__OK_OR_RETURN(xgpu__buffer_get(dst, __func__, "dst", &d));
    xgpu_status st = check_same_context(__func__, q, s, "src");
    if (st == XGPU_SUCCESS) {
        st = check_same_context(__func__, q, d, "dst");
    }
    if (st == XGPU_SUCCESS) {
        st = xgpu__copy_ranges(__func__, s, src_offset, d, dst_offset, size);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    void *ev = NULL;
    st = q->context->ops->buffer_copy(q->handle, s->handle, src_offset, d->handle, dst_offset, size,
                                      event ? &ev : NULL);
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(q->context, ev, event);
}

xgpu_status xgpu__fill_by_copies(const xgpu_backend_ops *ops, void *queue, void *buffer,
                                 size_t offset, size_t size, const void *pattern,
                                 size_t pattern_size, void **ev) {
    /* XGPU__FILL_CHUNK is a power of two >= 128, so a multiple of any
     * pattern size; size is a multiple of the pattern size. */
    size_t chunk = size < XGPU__FILL_CHUNK ? size : XGPU__FILL_CHUNK;
    unsigned char *tmp = calloc(1, chunk);
    if (!tmp) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY,
                          "xgpu_buffer_fill: calloc of %zu bytes failed", chunk);
    }
    for (size_t i = 0; i < chunk; i += pattern_size) {
        memcpy(tmp + i, pattern, pattern_size);
    }
    /* Blocking, so the temporary can be freed at once. */
    xgpu_status st =
        ops->buffer_write(queue, buffer, offset, tmp, chunk, true, chunk == size ? ev : NULL);
    free(tmp);
    /* Then double the filled part on the device: each copy reads what is
     * already filled and writes the range right after it. */
    for (size_t filled = chunk; st == XGPU_SUCCESS && filled < size;) {
        size_t n = size - filled < filled ? size - filled : filled;
        bool last = filled + n == size;
        st = ops->buffer_copy(queue, buffer, offset, buffer, offset + filled, n, last ? ev : NULL);
        filled += n;
    }
    return st;
}

xgpu_status xgpu_buffer_fill(xgpu_queue *queue, xgpu_buffer *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, xgpu_event **event) {
    if (event) {
        *event = NULL;
    }
    xgpu__queue *q;
    xgpu__buffer *b;
    XGPU__OK_OR_RETURN(xgpu__queue_get(queue, __func__, "queue", &q));
    XGPU__OK_OR_RETURN(xgpu__buffer_get(buffer, __func__, "buffer", &b));
    xgpu_status st = check_same_context(__func__, q, b, "buffer");
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (!pattern) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: pattern is NULL", __func__);
    }
    if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1))) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "%s: pattern_size %zu is not a power of two from 1 to 128", __func__,
                          pattern_size);
    }
    if (offset % pattern_size || size % pattern_size) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: offset %zu and size %zu must be multiples of pattern_size %zu",
                          __func__, offset, size, pattern_size);
    }
    st = xgpu__buffer_range(__func__, "buffer", b, offset, size);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    void *ev = NULL;
    const xgpu_backend_ops *ops = q->context->ops;
    st = ops->buffer_fill(q->handle, b->handle, offset, size, pattern, pattern_size,
                          event ? &ev : NULL);
    if (st == XGPU_ERROR_UNSUPPORTED) { /* the default, or not for this pattern size */
        st = xgpu__fill_by_copies(ops, q->handle, b->handle, offset, size, pattern, pattern_size,
                                  event ? &ev : NULL);
    }
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(q->context, ev, event);
}

/* The object of a buffer handle the caller has checked. */
static xgpu__buffer *buffer_of(const xgpu_buffer *buffer) {
    return xgpu__handle_object(buffer, XGPU__MAGIC_BUFFER);
}

xgpu_context *xgpu__buffer_context(const xgpu_buffer *buffer) {
    return buffer_of(buffer)->context->self;
}

size_t xgpu__buffer_size(const xgpu_buffer *buffer) {
    return buffer_of(buffer)->size;
}
