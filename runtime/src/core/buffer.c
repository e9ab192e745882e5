/* Device buffers: allocation, copies and fills, with every range checked
 * before a backend sees it. */
#include "core_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

xgpu_status xgpu__buffer_range(const char *func, const char *what, const xgpu_buffer *buf,
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

static xgpu_status check_same_context(const char *func, const xgpu_queue *q, const xgpu_buffer *b,
                                      const char *what) {
    if (q->context != b->context) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: %s belongs to another context than the queue", func, what);
    }
    return XGPU_SUCCESS;
}

/* The context is pinned (counted live) by the caller. */
static xgpu_status buffer_create(const char *func, xgpu_context *context, size_t size,
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
    xgpu_buffer *b = calloc(1, sizeof *b);
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
    st = xgpu__handle_add(b, XGPU__MAGIC_BUFFER, func);
    if (st != XGPU_SUCCESS) {
        context->ops->buffer_release(b->handle);
        free(b);
        return st;
    }
    *buffer = b;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_buffer_create(xgpu_context *context, size_t size, xgpu_buffer **buffer) {
    if (!buffer) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: buffer is NULL", __func__);
    }
    *buffer = NULL;
    XGPU__PIN_OR_RETURN(context, __func__);
    xgpu_status st = buffer_create(__func__, context, size, buffer);
    if (st != XGPU_SUCCESS) {
        xgpu__context_unpin(context);
    }
    return st;
}

xgpu_status xgpu_buffer_release(xgpu_buffer *buffer) {
    if (!buffer) {
        return XGPU_SUCCESS;
    }
    XGPU__TAKE_OR_RETURN(buffer, XGPU__MAGIC_BUFFER, __func__, "buffer");
    buffer->context->ops->buffer_release(buffer->handle);
    xgpu__context_unpin(buffer->context);
    xgpu__handle_retire(buffer);
    return XGPU_SUCCESS;
}

xgpu_status xgpu_buffer_native(const xgpu_buffer *buffer, void **native) {
    XGPU__CHECK_OR_RETURN(buffer, XGPU__MAGIC_BUFFER, __func__, "buffer");
    if (!native) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: native is NULL", __func__);
    }
    const xgpu_backend_ops *ops = buffer->context->ops;
    return ops->buffer_native(buffer->handle, native);
}

xgpu_status xgpu_queue_native(const xgpu_queue *queue, void **native) {
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, __func__, "queue");
    if (!native) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: native is NULL", __func__);
    }
    const xgpu_backend_ops *ops = queue->context->ops;
    return ops->queue_native(queue->handle, native);
}

xgpu_status xgpu_buffer_size(const xgpu_buffer *buffer, size_t *size) {
    XGPU__CHECK_OR_RETURN(buffer, XGPU__MAGIC_BUFFER, __func__, "buffer");
    if (!size) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: size is NULL", __func__);
    }
    *size = buffer->size;
    return XGPU_SUCCESS;
}

/* Common checks of a host<->device transfer. */
static xgpu_status check_transfer(const char *func, xgpu_queue *queue, xgpu_buffer *buf,
                                  size_t offset, const void *host, size_t size,
                                  xgpu_event **event) {
    if (event) {
        *event = NULL;
    }
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, func, "queue");
    XGPU__CHECK_OR_RETURN(buf, XGPU__MAGIC_BUFFER, func, "buffer");
    xgpu_status st = check_same_context(func, queue, buf, "buffer");
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (!host) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: host pointer is NULL", func);
    }
    return xgpu__buffer_range(func, "buffer", buf, offset, size);
}

xgpu_status xgpu_buffer_write(xgpu_queue *queue, xgpu_buffer *dst, size_t dst_offset,
                              const void *src, size_t size, bool blocking, xgpu_event **event) {
    xgpu_status st = check_transfer(__func__, queue, dst, dst_offset, src, size, event);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    void *ev = NULL;
    st = queue->context->ops->buffer_write(queue->handle, dst->handle, dst_offset, src, size,
                                           blocking, event ? &ev : NULL);
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(queue->context, ev, event);
}

xgpu_status xgpu_buffer_read(xgpu_queue *queue, xgpu_buffer *src, size_t src_offset, void *dst,
                             size_t size, bool blocking, xgpu_event **event) {
    xgpu_status st = check_transfer(__func__, queue, src, src_offset, dst, size, event);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    void *ev = NULL;
    st = queue->context->ops->buffer_read(queue->handle, src->handle, src_offset, dst, size,
                                          blocking, event ? &ev : NULL);
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(queue->context, ev, event);
}

xgpu_status xgpu__copy_ranges(const char *func, const xgpu_buffer *src, size_t src_offset,
                              const xgpu_buffer *dst, size_t dst_offset, size_t size) {
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
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, __func__, "queue");
    XGPU__CHECK_OR_RETURN(src, XGPU__MAGIC_BUFFER, __func__, "src");
    XGPU__CHECK_OR_RETURN(dst, XGPU__MAGIC_BUFFER, __func__, "dst");
    xgpu_status st = check_same_context(__func__, queue, src, "src");
    if (st == XGPU_SUCCESS) {
        st = check_same_context(__func__, queue, dst, "dst");
    }
    if (st == XGPU_SUCCESS) {
        st = xgpu__copy_ranges(__func__, src, src_offset, dst, dst_offset, size);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    void *ev = NULL;
    st = queue->context->ops->buffer_copy(queue->handle, src->handle, src_offset, dst->handle,
                                          dst_offset, size, event ? &ev : NULL);
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(queue->context, ev, event);
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
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, __func__, "queue");
    XGPU__CHECK_OR_RETURN(buffer, XGPU__MAGIC_BUFFER, __func__, "buffer");
    xgpu_status st = check_same_context(__func__, queue, buffer, "buffer");
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
    st = xgpu__buffer_range(__func__, "buffer", buffer, offset, size);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    void *ev = NULL;
    const xgpu_backend_ops *ops = queue->context->ops;
    st = ops->buffer_fill(queue->handle, buffer->handle, offset, size, pattern, pattern_size,
                          event ? &ev : NULL);
    if (st == XGPU_ERROR_UNSUPPORTED) { /* the default, or not for this pattern size */
        st = xgpu__fill_by_copies(ops, queue->handle, buffer->handle, offset, size, pattern,
                                  pattern_size, event ? &ev : NULL);
    }
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(queue->context, ev, event);
}

xgpu_context *xgpu__buffer_context(const xgpu_buffer *buffer) {
    return buffer->context;
}

size_t xgpu__buffer_size(const xgpu_buffer *buffer) {
    return buffer->size;
}
