/* Events: completion and device-side timing. */
#include "core_int.h"

#include <stdlib.h>

xgpu_status xgpu__event_wrap(xgpu__context *context, void *backend_event, xgpu_event **event) {
    if (!event || !backend_event) {
        return XGPU_SUCCESS;
    }
    xgpu__event *e = calloc(1, sizeof *e);
    if (!e) {
        context->ops->event_release(backend_event);
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY,
                          "event: malloc failed (the operation itself was enqueued)");
    }
    e->context = context;
    e->handle = backend_event;
    xgpu_status st = xgpu__handle_add(
        e, XGPU__MAGIC_EVENT, "event (the operation itself was enqueued)", (void **)&e->self);
    if (st != XGPU_SUCCESS) {
        context->ops->event_release(backend_event);
        free(e);
        return st;
    }
    atomic_fetch_add(&context->live, 1);
    *event = e->self;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_queue_record_event(xgpu_queue *queue, xgpu_event **event) {
    if (!event) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: event is NULL", __func__);
    }
    *event = NULL;
    xgpu__queue *q;
    XGPU__OK_OR_RETURN(xgpu__queue_get(queue, __func__, "queue", &q));
    void *ev = NULL;
    xgpu_status st = q->context->ops->queue_record_event(q->handle, &ev);
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(q->context, ev, event);
}

xgpu_status xgpu_queue_wait_event(xgpu_queue *queue, xgpu_event *event) {
    xgpu__queue *q;
    xgpu__event *e;
    XGPU__OK_OR_RETURN(xgpu__queue_get(queue, __func__, "queue", &q));
    XGPU__OK_OR_RETURN(xgpu__event_get(event, __func__, "event", &e));
    if (e->context != q->context) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: the event belongs to another context than the queue (events "
                          "order work within one context)",
                          __func__);
    }
    return xgpu__queue_wait_event(q->context->ops, q->handle, e->handle);
}

xgpu_status xgpu_event_wait(xgpu_event *event) {
    xgpu__event *e;
    XGPU__OK_OR_RETURN(xgpu__event_get(event, __func__, "event", &e));
    return e->context->ops->event_wait(e->handle);
}

xgpu_status xgpu_event_elapsed_ms(xgpu_event *start, xgpu_event *end, double *ms) {
    xgpu__event *s, *e;
    XGPU__OK_OR_RETURN(xgpu__event_get(start, __func__, "start", &s));
    XGPU__OK_OR_RETURN(xgpu__event_get(end, __func__, "end", &e));
    if (!ms) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: ms is NULL", __func__);
    }
    if (s->context != e->context) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: the events belong to different contexts", __func__);
    }
    const xgpu_backend_ops *ops = s->context->ops;
    xgpu_status st = ops->event_wait(s->handle);
    if (st == XGPU_SUCCESS) {
        st = ops->event_wait(e->handle);
    }
    return st != XGPU_SUCCESS ? st : ops->event_elapsed_ms(s->handle, e->handle, ms);
}

xgpu_status xgpu_event_release(xgpu_event *event) {
    if (!event) {
        return XGPU_SUCCESS;
    }
    xgpu__event *e;
    XGPU__OK_OR_RETURN(xgpu__event_take(event, __func__, "event", &e));
    e->context->ops->event_release(e->handle);
    xgpu__context_unpin(e->context);
    free(e);
    return XGPU_SUCCESS;
}
