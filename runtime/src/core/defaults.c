/* Core defaults for optional backend hooks, and the services table the core
 * hands to every backend. */
#include "core_int.h"

#include <stdlib.h>
#include <string.h>

const xgpu_core_services xgpu__services = {
    sizeof(xgpu_core_services), XGPU_BACKEND_ABI_VERSION, xgpu__error, xgpu__log,
    xgpu__library_record,
};

static xgpu_status default_host_alloc(void *context, size_t size, void **handle, void **ptr) {
    (void)context;
    void *p = malloc(size);
    if (!p) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY,
                          "xgpu_host_alloc: malloc of %zu bytes failed", size);
    }
    *handle = p;
    *ptr = p;
    return XGPU_SUCCESS;
}

static void default_host_free(void *context, void *handle) {
    (void)context;
    free(handle);
}

static void default_shutdown(void *state) {
    (void)state;
}

static xgpu_status default_free_memory(void *state, uint32_t index, uint64_t *free_bytes) {
    (void)state, (void)index, (void)free_bytes;
    return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                      "xgpu_device_free_memory: this backend cannot report free memory");
}

static xgpu_status default_native(void *object, void **native) {
    (void)object, (void)native;
    return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                      "this backend gives no native handles for interoperation");
}

/* The hooks whose default needs the rest of the table (a hook's arguments
 * cannot reach it): XGPU_ERROR_UNSUPPORTED, without an error, tells the
 * core to do it itself (xgpu__fill, xgpu__queue_wait_event). */
static xgpu_status core_fill(void *queue, void *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, void **event) {
    (void)queue, (void)buffer, (void)offset, (void)size, (void)pattern, (void)pattern_size;
    (void)event;
    return XGPU_ERROR_UNSUPPORTED;
}

static xgpu_status core_wait_event(void *queue, void *event) {
    (void)queue, (void)event;
    return XGPU_ERROR_UNSUPPORTED;
}

static xgpu_status default_device_peer(void *state, uint32_t src, uint32_t dst, bool *direct) {
    (void)state, (void)src, (void)dst;
    *direct = false;
    return XGPU_SUCCESS;
}

static xgpu_status core_copy_peer(void *src_queue, void *src_buffer, size_t src_offset,
                                  void *dst_queue, void *dst_buffer, size_t dst_offset,
                                  size_t size) {
    (void)src_queue, (void)src_buffer, (void)src_offset, (void)dst_queue, (void)dst_buffer;
    (void)dst_offset, (void)size;
    return XGPU_ERROR_UNSUPPORTED;
}

/* Every optional hook is filled here, and only here: callers never test
 * a hook for NULL. */
void xgpu__ops_fill_defaults(xgpu_backend_ops *ops) {
    if (!ops->host_alloc || !ops->host_free) {
        ops->host_alloc = default_host_alloc;
        ops->host_free = default_host_free;
    }
    if (!ops->shutdown) {
        ops->shutdown = default_shutdown;
    }
    if (!ops->device_free_memory) {
        ops->device_free_memory = default_free_memory;
    }
    if (!ops->buffer_native) {
        ops->buffer_native = default_native;
    }
    if (!ops->queue_native) {
        ops->queue_native = default_native;
    }
    if (!ops->kernel_native) {
        ops->kernel_native = default_native;
    }
    if (!ops->buffer_fill) {
        ops->buffer_fill = core_fill;
    }
    if (!ops->queue_wait_event) {
        ops->queue_wait_event = core_wait_event;
    }
    if (!ops->device_peer || !ops->buffer_copy_peer) {
        ops->device_peer = default_device_peer;
        ops->buffer_copy_peer = core_copy_peer;
    }
}

xgpu_status xgpu__queue_wait_event(const xgpu_backend_ops *ops, void *queue, void *event) {
    xgpu_status st = ops->queue_wait_event(queue, event);
    if (st == XGPU_ERROR_UNSUPPORTED) {
        /* Waiting on the host orders the queue's later work after the
         * event: nothing enqueued after this returns can start earlier. */
        st = ops->event_wait(event);
    }
    return st;
}
