/* Contexts, queues and pinned host memory. */
#include "core_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static xgpu_status out_of_host_memory(const char *func) {
    return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: malloc failed", func);
}

xgpu_status xgpu_context_create(xgpu_device *device, xgpu_context **context) {
    if (!context) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: context is NULL", __func__);
    }
    *context = NULL;
    XGPU__CHECK_OR_RETURN(device, XGPU__MAGIC_DEVICE, __func__, "device");
    xgpu_context *c = calloc(1, sizeof *c);
    if (!c) {
        return out_of_host_memory(__func__);
    }
    const xgpu__backend *b = device->backend;
    xgpu_status st = b->ops.context_create(b->state, device->index, &c->handle);
    if (st != XGPU_SUCCESS) {
        free(c);
        return st;
    }
    c->device = device;
    c->ops = &b->ops;
    atomic_init(&c->live, 0);
    atomic_init(&c->ext_objects, 0);
    pthread_mutex_init(&c->host_lock, NULL);
    pthread_mutex_init(&c->ext_lock, NULL);
    st = xgpu__handle_add(c, XGPU__MAGIC_CONTEXT, __func__);
    if (st != XGPU_SUCCESS) {
        pthread_mutex_destroy(&c->host_lock);
        pthread_mutex_destroy(&c->ext_lock);
        b->ops.context_release(c->handle);
        free(c);
        return st;
    }
    *context = c;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_context_release(xgpu_context *context) {
    if (!context) {
        return XGPU_SUCCESS;
    }
    /* Checked and taken out of the registry in one step: an object being
     * created right now has pinned the context, so it is seen. */
    long live = 0;
    xgpu_status st = xgpu__context_take_if_idle(context, __func__, &live);
    if (st == XGPU_ERROR_BUSY) {
        return xgpu__fail(XGPU_ERROR_BUSY,
                          "%s: %ld object(s) of this context (pinned host memory included) are "
                          "still alive; release them first",
                          __func__, live);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (context->ext) {
        context->ext_release(context, context->ext);
    }
    context->ops->context_release(context->handle);
    pthread_mutex_destroy(&context->host_lock);
    pthread_mutex_destroy(&context->ext_lock);
    xgpu__handle_retire(context);
    return XGPU_SUCCESS;
}

xgpu_status xgpu_context_get_device(const xgpu_context *context, xgpu_device **device) {
    XGPU__CHECK_OR_RETURN(context, XGPU__MAGIC_CONTEXT, __func__, "context");
    if (!device) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: device is NULL", __func__);
    }
    *device = context->device;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_queue_create(xgpu_context *context, xgpu_queue **queue) {
    if (!queue) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: queue is NULL", __func__);
    }
    *queue = NULL;
    XGPU__PIN_OR_RETURN(context, __func__);
    xgpu_queue *q = calloc(1, sizeof *q);
    if (!q) {
        xgpu__context_unpin(context);
        return out_of_host_memory(__func__);
    }
    xgpu_status st = context->ops->queue_create(context->handle, &q->handle);
    if (st != XGPU_SUCCESS) {
        free(q);
        xgpu__context_unpin(context);
        return st;
    }
    q->context = context;
    st = xgpu__handle_add(q, XGPU__MAGIC_QUEUE, __func__);
    if (st != XGPU_SUCCESS) {
        context->ops->queue_release(q->handle);
        free(q);
        xgpu__context_unpin(context);
        return st;
    }
    *queue = q;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_queue_finish(xgpu_queue *queue) {
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, __func__, "queue");
    return queue->context->ops->queue_finish(queue->handle);
}

xgpu_status xgpu_queue_release(xgpu_queue *queue) {
    if (!queue) {
        return XGPU_SUCCESS;
    }
    XGPU__TAKE_OR_RETURN(queue, XGPU__MAGIC_QUEUE, __func__, "queue");
    const xgpu_backend_ops *ops = queue->context->ops;
    xgpu_status st = ops->queue_finish(queue->handle);
    xgpu_buffer_release(queue->scratch);
    xgpu_buffer_release(queue->counter);
    ops->queue_release(queue->handle);
    xgpu__context_unpin(queue->context);
    xgpu__handle_retire(queue);
    return st;
}

xgpu_status xgpu_host_alloc(xgpu_context *context, size_t size, void **ptr) {
    if (!ptr) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: ptr is NULL", __func__);
    }
    *ptr = NULL;
    XGPU__CHECK_OR_RETURN(context, XGPU__MAGIC_CONTEXT, __func__, "context");
    if (size == 0) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE, "%s: size is 0", __func__);
    }
    /* A pinned block counts as a live object of the context. */
    XGPU__PIN_OR_RETURN(context, __func__);
    xgpu__host_block *blk = calloc(1, sizeof *blk);
    if (!blk) {
        xgpu__context_unpin(context);
        return out_of_host_memory(__func__);
    }
    xgpu_status st = context->ops->host_alloc(context->handle, size, &blk->handle, &blk->ptr);
    if (st != XGPU_SUCCESS) {
        free(blk);
        xgpu__context_unpin(context);
        return st;
    }
    pthread_mutex_lock(&context->host_lock);
    blk->next = context->host_blocks;
    context->host_blocks = blk;
    pthread_mutex_unlock(&context->host_lock);
    *ptr = blk->ptr;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_host_free(xgpu_context *context, void *ptr) {
    XGPU__CHECK_OR_RETURN(context, XGPU__MAGIC_CONTEXT, __func__, "context");
    if (!ptr) {
        return XGPU_SUCCESS;
    }
    pthread_mutex_lock(&context->host_lock);
    xgpu__host_block **link = &context->host_blocks;
    while (*link && (*link)->ptr != ptr) {
        link = &(*link)->next;
    }
    xgpu__host_block *blk = *link;
    if (blk) {
        *link = blk->next;
    }
    pthread_mutex_unlock(&context->host_lock);
    if (!blk) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: %p was not allocated by xgpu_host_alloc on this context", __func__,
                          ptr);
    }
    context->ops->host_free(context->handle, blk->handle);
    free(blk);
    xgpu__context_unpin(context);
    return XGPU_SUCCESS;
}

/* ---- what the layers above see of contexts and queues (core.h) ---- */

xgpu_context *xgpu__queue_context(const xgpu_queue *queue) {
    return queue->context;
}

const xgpu_device_info *xgpu__context_info(const xgpu_context *context) {
    return &context->device->info;
}

bool xgpu__context_build_identity(xgpu_context *context, char *out, size_t size) {
    if (!context->ops->build_identity || !size) {
        return false;
    }
    struct xgpu__error_state *saved = xgpu__error_save();
    bool ok = context->ops->build_identity(context->handle, out, size) == XGPU_SUCCESS;
    xgpu__error_restore(saved);
    if (!ok) {
        out[0] = '\0';
    }
    return ok;
}

void *xgpu__context_ext(xgpu_context *context, void *(*make)(void),
                        void (*release)(xgpu_context *context, void *ext)) {
    pthread_mutex_lock(&context->ext_lock);
    if (!context->ext) {
        context->ext = make();
        context->ext_release = release;
    }
    void *ext = context->ext;
    pthread_mutex_unlock(&context->ext_lock);
    return ext;
}

void xgpu__context_ext_hold(xgpu_context *context, long delta) {
    atomic_fetch_add(&context->ext_objects, delta);
}

xgpu_status xgpu__queue_scratch(xgpu_queue *queue, size_t size, xgpu_buffer **buffer) {
    if (queue->scratch && queue->scratch->size >= size) {
        *buffer = queue->scratch;
        return XGPU_SUCCESS;
    }
    /* The queue is in order: the old scratch's users have been enqueued
     * before anything that uses the new one, and backends defer the free
     * of a buffer in use. Wait anyway so no backend needs to. */
    if (queue->scratch) {
        xgpu_status st = xgpu_queue_finish(queue);
        if (st != XGPU_SUCCESS) {
            return st;
        }
        xgpu_buffer_release(queue->scratch);
        queue->scratch = NULL;
    }
    size_t grown = size < 4096 ? 4096 : size;
    xgpu_status st = xgpu_buffer_create(queue->context, grown, &queue->scratch);
    *buffer = queue->scratch;
    return st;
}

xgpu_status xgpu__queue_counter(xgpu_queue *queue, xgpu_buffer **buffer) {
    if (!queue->counter) {
        const uint32_t zero = 0;
        xgpu_buffer *counter = NULL;
        xgpu_status st = xgpu_buffer_create(queue->context, sizeof zero, &counter);
        if (st == XGPU_SUCCESS) {
            st = xgpu_buffer_write(queue, counter, 0, &zero, sizeof zero, true, NULL);
        }
        if (st != XGPU_SUCCESS) {
            xgpu_buffer_release(counter);
            return st;
        }
        queue->counter = counter;
    }
    *buffer = queue->counter;
    return XGPU_SUCCESS;
}
