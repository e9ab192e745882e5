/* Core defaults for optional backend hooks, and the services table the core
 * hands to every backend. */
#include "internal.h"

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
        return xgpu__error(NULL, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
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

void xgpu__ops_fill_defaults(xgpu_backend_ops *ops) {
    if (!ops->host_alloc || !ops->host_free) {
        ops->host_alloc = default_host_alloc;
        ops->host_free = default_host_free;
    }
    if (!ops->shutdown) {
        ops->shutdown = default_shutdown;
    }
    /* buffer_fill stays NULL: the core's xgpu_buffer_fill expands the
     * pattern itself when the hook is absent (it needs the queue's ops).
     * queue_wait_event stays NULL for the same reason: its default, below,
     * calls the backend's event_wait, which a hook's arguments cannot
     * reach. */
}

xgpu_status xgpu__queue_wait_event(const xgpu_backend_ops *ops, void *queue, void *event) {
    if (ops->queue_wait_event) {
        return ops->queue_wait_event(queue, event);
    }
    /* Waiting on the host orders the queue's later work after the event:
     * nothing enqueued after this returns can start earlier. */
    return ops->event_wait(event);
}
