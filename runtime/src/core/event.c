/* Events: completion and device-side timing. */
#include "core_int.h"

#include <stdlib.h>

xgpu_status xgpu__event_wrap(xgpu_context *context, void *backend_event, xgpu_event **event) {
    if (!event || !backend_event) {
        return XGPU_SUCCESS;
    }
    xgpu_event *e = calloc(1, sizeof *e);
    if (!e) {
        context->ops->event_release(backend_event);
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY,
                          "event: malloc failed (the operation itself was enqueued)");
    }
    e->context = context;
    e->handle = backend_event;
    xgpu_status st =
        xgpu__handle_add(e, XGPU__MAGIC_EVENT, "event (the operation itself was enqueued)");
    if (st != XGPU_SUCCESS) {
        context->ops->event_release(backend_event);
        free(e);
        return st;
    }
    atomic_fetch_add(&context->live, 1);
    *event = e;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_queue_record_event(xgpu_queue *queue, xgpu_event **event) {
    if (!event) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: event is NULL", __func__);
    }
    *event = NULL;
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, __func__, "queue");
    void *ev = NULL;
    xgpu_status st = queue->context->ops->queue_record_event(queue->handle, &ev);
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(queue->context, ev, event);
}

xgpu_status xgpu_queue_wait_event(xgpu_queue *queue, xgpu_event *event) {
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, __func__, "queue");
    XGPU__CHECK_OR_RETURN(event, XGPU__MAGIC_EVENT, __func__, "event");
    if (event->context != queue->context) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: the event belongs to another context than the queue (events "
                          "order work within one context)",
                          __func__);
    }
    return xgpu__queue_wait_event(queue->context->ops, queue->handle, event->handle);
}

xgpu_status xgpu_event_wait(xgpu_event *event) {
    XGPU__CHECK_OR_RETURN(event, XGPU__MAGIC_EVENT, __func__, "event");
    return event->context->ops->event_wait(event->handle);
}

xgpu_status xgpu_event_elapsed_ms(xgpu_event *start, xgpu_event *end, double *ms) {
    XGPU__CHECK_OR_RETURN(start, XGPU__MAGIC_EVENT, __func__, "start");
    XGPU__CHECK_OR_RETURN(end, XGPU__MAGIC_EVENT, __func__, "end");
    if (!ms) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: ms is NULL", __func__);
    }
    if (start->context != end->context) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: the events belong to different contexts", __func__);
    }
    const xgpu_backend_ops *ops = start->context->ops;
    xgpu_status st = ops->event_wait(start->handle);
    if (st == XGPU_SUCCESS) {
        st = ops->event_wait(end->handle);
    }
    return st != XGPU_SUCCESS ? st : ops->event_elapsed_ms(start->handle, end->handle, ms);
}

xgpu_status xgpu_event_release(xgpu_event *event) {
    if (!event) {
        return XGPU_SUCCESS;
    }
    XGPU__TAKE_OR_RETURN(event, XGPU__MAGIC_EVENT, __func__, "event");
    event->context->ops->event_release(event->handle);
    xgpu__context_unpin(event->context);
    xgpu__handle_retire(event);
    return XGPU_SUCCESS;
}
