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
    xgpu__device *dev;
    XGPU__OK_OR_RETURN(xgpu__device_get(device, __func__, "device", &dev));
    xgpu__context *c = calloc(1, sizeof *c);
    if (!c) {
        return out_of_host_memory(__func__);
    }
    const xgpu__backend *b = dev->backend;
    xgpu_status st = b->ops.context_create(b->state, dev->index, &c->handle);
    if (st != XGPU_SUCCESS) {
        free(c);
        return st;
    }
    c->device = dev;
    c->ops = &b->ops;
    atomic_init(&c->live, 0);
    atomic_init(&c->ext_objects, 0);
    pthread_mutex_init(&c->host_lock, NULL);
    pthread_mutex_init(&c->ext_lock, NULL);
    st = xgpu__handle_add(c, XGPU__MAGIC_CONTEXT, __func__, (void **)&c->self);
    if (st != XGPU_SUCCESS) {
        pthread_mutex_destroy(&c->host_lock);
        pthread_mutex_destroy(&c->ext_lock);
        b->ops.context_release(c->handle);
        free(c);
        return st;
    }
    *context = c->self;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_context_release(xgpu_context *context) {
    if (!context) {
        return XGPU_SUCCESS;
    }
    /* Checked and taken out of the registry in one step: an object being
     * created right now has pinned the context, so it is seen. */
    long live = 0;
    xgpu__context *c = NULL;
    xgpu_status st = xgpu__context_take_if_idle(context, __func__, &live, &c);
    if (st == XGPU_ERROR_BUSY) {
        return xgpu__fail(XGPU_ERROR_BUSY,
                          "%s: %ld object(s) of this context (pinned host memory included) are "
                          "still alive; release them first",
                          __func__, live);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (c->ext) {
        c->ext_release(c->self, c->ext);
    }
    c->ops->context_release(c->handle);
    pthread_mutex_destroy(&c->host_lock);
    pthread_mutex_destroy(&c->ext_lock);
    free(c);
    return XGPU_SUCCESS;
}

xgpu_status xgpu_context_get_device(const xgpu_context *context, xgpu_device **device) {
    xgpu__context *c;
    XGPU__OK_OR_RETURN(xgpu__context_get(context, __func__, "context", &c));
    if (!device) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: device is NULL", __func__);
    }
    *device = c->device->self;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_queue_create(xgpu_context *context, xgpu_queue **queue) {
    if (!queue) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: queue is NULL", __func__);
    }
    *queue = NULL;
    xgpu__context *c;
    XGPU__OK_OR_RETURN(xgpu__context_pin(context, __func__, &c));
    xgpu__queue *q = calloc(1, sizeof *q);
    if (!q) {
        xgpu__context_unpin(c);
        return out_of_host_memory(__func__);
    }
    xgpu_status st = c->ops->queue_create(c->handle, &q->handle);
    if (st != XGPU_SUCCESS) {
        free(q);
        xgpu__context_unpin(c);
        return st;
    }
    q->context = c;
    st = xgpu__handle_add(q, XGPU__MAGIC_QUEUE, __func__, (void **)&q->self);
    if (st != XGPU_SUCCESS) {
        c->ops->queue_release(q->handle);
        free(q);
        xgpu__context_unpin(c);
        return st;
    }
    *queue = q->self;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_queue_finish(xgpu_queue *queue) {
    xgpu__queue *q;
    XGPU__OK_OR_RETURN(xgpu__queue_get(queue, __func__, "queue", &q));
    return q->context->ops->queue_finish(q->handle);
}

xgpu_status xgpu_queue_release(xgpu_queue *queue) {
    if (!queue) {
        return XGPU_SUCCESS;
    }
    xgpu__queue *q;
    XGPU__OK_OR_RETURN(xgpu__queue_take(queue, __func__, "queue", &q));
    const xgpu_backend_ops *ops = q->context->ops;
    xgpu_status st = ops->queue_finish(q->handle);
    xgpu_buffer_release(q->scratch);
    xgpu_buffer_release(q->counter);
    ops->queue_release(q->handle);
    xgpu__context_unpin(q->context);
    free(q);
    return st;
}

xgpu_status xgpu_host_alloc(xgpu_context *context, size_t size, void **ptr) {
    if (!ptr) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: ptr is NULL", __func__);
    }
    *ptr = NULL;
    xgpu__context *c;
    XGPU__OK_OR_RETURN(xgpu__context_get(context, __func__, "context", &c));
    if (size == 0) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE, "%s: size is 0", __func__);
    }
    /* A pinned block counts as a live object of the context. */
    XGPU__OK_OR_RETURN(xgpu__context_pin(context, __func__, &c));
    xgpu__host_block *blk = calloc(1, sizeof *blk);
    if (!blk) {
        xgpu__context_unpin(c);
        return out_of_host_memory(__func__);
    }
    xgpu_status st = c->ops->host_alloc(c->handle, size, &blk->handle, &blk->ptr);
    if (st != XGPU_SUCCESS) {
        free(blk);
        xgpu__context_unpin(c);
        return st;
    }
    pthread_mutex_lock(&c->host_lock);
    blk->next = c->host_blocks;
    c->host_blocks = blk;
    pthread_mutex_unlock(&c->host_lock);
    *ptr = blk->ptr;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_host_free(xgpu_context *context, void *ptr) {
    xgpu__context *c;
    XGPU__OK_OR_RETURN(xgpu__context_get(context, __func__, "context", &c));
    if (!ptr) {
        return XGPU_SUCCESS;
    }
    pthread_mutex_lock(&c->host_lock);
    xgpu__host_block **link = &c->host_blocks;
    while (*link && (*link)->ptr != ptr) {
        link = &(*link)->next;
    }
    xgpu__host_block *blk = *link;
    if (blk) {
        *link = blk->next;
    }
    pthread_mutex_unlock(&c->host_lock);
    if (!blk) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: %p was not allocated by xgpu_host_alloc on this context", __func__,
                          ptr);
    }
    c->ops->host_free(c->handle, blk->handle);
    free(blk);
    xgpu__context_unpin(c);
    return XGPU_SUCCESS;
}

/* ---- what the layers above see of contexts and queues (core.h) ---- */

/* The objects of handles the caller has checked. */
static xgpu__context *context_of(const xgpu_context *context) {
    return xgpu__handle_object(context, XGPU__MAGIC_CONTEXT);
}

static xgpu__queue *queue_of(const xgpu_queue *queue) {
    return xgpu__handle_object(queue, XGPU__MAGIC_QUEUE);
}

xgpu_context *xgpu__queue_context(const xgpu_queue *queue) {
    return queue_of(queue)->context->self;
}

const xgpu_device_info *xgpu__context_info(const xgpu_context *context) {
    return &context_of(context)->device->info;
}

bool xgpu__context_build_identity(xgpu_context *context, char *out, size_t size) {
    xgpu__context *c = context_of(context);
    if (!c->ops->build_identity || !size) {
        return false;
    }
    struct xgpu__error_state *saved = xgpu__error_save();
    bool ok = c->ops->build_identity(c->handle, out, size) == XGPU_SUCCESS;
    xgpu__error_restore(saved);
    if (!ok) {
        out[0] = '\0';
    }
    return ok;
}

void *xgpu__context_ext(xgpu_context *context, void *(*make)(void),
                        void (*release)(xgpu_context *context, void *ext)) {
    xgpu__context *c = context_of(context);
    pthread_mutex_lock(&c->ext_lock);
    if (!c->ext) {
        c->ext = make();
        c->ext_release = release;
    }
    void *ext = c->ext;
    pthread_mutex_unlock(&c->ext_lock);
    return ext;
}

void xgpu__context_ext_hold(xgpu_context *context, long delta) {
    atomic_fetch_add(&context_of(context)->ext_objects, delta);
}

xgpu_status xgpu__queue_scratch(xgpu_queue *queue, size_t size, xgpu_buffer **buffer) {
    xgpu__queue *q = queue_of(queue);
    if (q->scratch && q->scratch_size >= size) {
        *buffer = q->scratch;
        return XGPU_SUCCESS;
    }
    /* The queue is in order: the old scratch's users have been enqueued
     * before anything that uses the new one, and backends defer the free
     * of a buffer in use. Wait anyway so no backend needs to. */
    if (q->scratch) {
        xgpu_status st = xgpu_queue_finish(queue);
        if (st != XGPU_SUCCESS) {
            return st;
        }
        xgpu_buffer_release(q->scratch);
        q->scratch = NULL;
        q->scratch_size = 0;
    }
    size_t grown = size < 4096 ? 4096 : size;
    xgpu_status st = xgpu_buffer_create(q->context->self, grown, &q->scratch);
    q->scratch_size = st == XGPU_SUCCESS ? grown : 0;
    *buffer = q->scratch;
    return st;
}

xgpu_status xgpu__queue_counter(xgpu_queue *queue, xgpu_buffer **buffer) {
    xgpu__queue *q = queue_of(queue);
    if (!q->counter) {
        const uint32_t zero = 0;
        xgpu_buffer *counter = NULL;
        xgpu_status st = xgpu_buffer_create(q->context->self, sizeof zero, &counter);
        if (st == XGPU_SUCCESS) {
            st = xgpu_buffer_write(queue, counter, 0, &zero, sizeof zero, true, NULL);
        }
        if (st != XGPU_SUCCESS) {
            xgpu_buffer_release(counter);
            return st;
        }
        q->counter = counter;
    }
    *buffer = q->counter;
    return XGPU_SUCCESS;
}
