/* Contexts, queues and pinned host memory. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static xgpu_status out_of_host_memory(const char *func) {
    return xgpu__error(NULL, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL, "%s: malloc failed", func);
}

xgpu_status xgpu_context_create(xgpu_device *device, xgpu_context **context) {
    static const char *const func = __func__;
    if (!context) {
        return xgpu__error(NULL, XGPU_ERROR_INVALID_ARGUMENT, 0, NULL, "%s: context is NULL", func);
    }
    *context = NULL;
    XGPU__CHECK_OR_RETURN(device, XGPU__MAGIC_DEVICE, func, "device");
    xgpu_context *c = calloc(1, sizeof *c);
    if (!c) {
        return out_of_host_memory(func);
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
    atomic_init(&c->lib_objects, 0);
    pthread_mutex_init(&c->host_lock, NULL);
    pthread_mutex_init(&c->lib_lock, NULL);
    st = xgpu__handle_add(c, XGPU__MAGIC_CONTEXT, func);
    if (st != XGPU_SUCCESS) {
        pthread_mutex_destroy(&c->host_lock);
        pthread_mutex_destroy(&c->lib_lock);
        b->ops.context_release(c->handle);
        free(c);
        return st;
    }
    *context = c;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_context_release(xgpu_context *context) {
    static const char *const func = __func__;
    if (!context) {
        return XGPU_SUCCESS;
    }
    /* Checked and taken out of the registry in one step: an object being
     * created right now has pinned the context, so it is seen. */
    long live = 0;
    xgpu_status st = xgpu__context_take_if_idle(context, func, &live);
    if (st == XGPU_ERROR_BUSY) {
        return xgpu__error(NULL, XGPU_ERROR_BUSY, 0, NULL,
                           "%s: %ld object(s) of this context (pinned host memory included) are "
                           "still alive; release them first",
                           func, live);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu__lib_release_all(context);
    context->ops->context_release(context->handle);
    pthread_mutex_destroy(&context->host_lock);
    pthread_mutex_destroy(&context->lib_lock);
    xgpu__handle_retire(context);
    return XGPU_SUCCESS;
}

xgpu_status xgpu_context_get_device(const xgpu_context *context, xgpu_device **device) {
    XGPU__CHECK_OR_RETURN(context, XGPU__MAGIC_CONTEXT, __func__, "context");
    if (!device) {
        return xgpu__error(NULL, XGPU_ERROR_INVALID_ARGUMENT, 0, NULL, "%s: device is NULL",
                           __func__);
    }
    *device = context->device;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_queue_create(xgpu_context *context, xgpu_queue **queue) {
    static const char *const func = __func__;
    if (!queue) {
        return xgpu__error(NULL, XGPU_ERROR_INVALID_ARGUMENT, 0, NULL, "%s: queue is NULL", func);
    }
    *queue = NULL;
    XGPU__PIN_OR_RETURN(context, func);
    xgpu_queue *q = calloc(1, sizeof *q);
    if (!q) {
        xgpu__context_unpin(context);
        return out_of_host_memory(func);
    }
    xgpu_status st = context->ops->queue_create(context->handle, &q->handle);
    if (st != XGPU_SUCCESS) {
        free(q);
        xgpu__context_unpin(context);
        return st;
    }
    q->context = context;
    st = xgpu__handle_add(q, XGPU__MAGIC_QUEUE, func);
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
    static const char *const func = __func__;
    if (!ptr) {
        return xgpu__error(NULL, XGPU_ERROR_INVALID_ARGUMENT, 0, NULL, "%s: ptr is NULL", func);
    }
    *ptr = NULL;
    XGPU__CHECK_OR_RETURN(context, XGPU__MAGIC_CONTEXT, func, "context");
    if (size == 0) {
        return xgpu__error(NULL, XGPU_ERROR_INVALID_SIZE, 0, NULL, "%s: size is 0", func);
    }
    /* A pinned block counts as a live object of the context. */
    XGPU__PIN_OR_RETURN(context, func);
    xgpu__host_block *blk = calloc(1, sizeof *blk);
    if (!blk) {
        xgpu__context_unpin(context);
        return out_of_host_memory(func);
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
    static const char *const func = __func__;
    XGPU__CHECK_OR_RETURN(context, XGPU__MAGIC_CONTEXT, func, "context");
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
        return xgpu__error(NULL, XGPU_ERROR_INVALID_ARGUMENT, 0, NULL,
                           "%s: %p was not allocated by xgpu_host_alloc on this context", func,
                           ptr);
    }
    context->ops->host_free(context->handle, blk->handle);
    free(blk);
    xgpu__context_unpin(context);
    return XGPU_SUCCESS;
}
