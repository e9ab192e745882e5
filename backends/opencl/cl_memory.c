/* OpenCL contexts, queues, buffers, pinned host memory and events. */
#include "cl_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Out-events: an event is asked for only when `event` is not NULL. */
#define CL_EVENT_OUT(event) ((event) ? (cl_event *)(event) : NULL)

xgpu_status ocl__context_create(void *state, uint32_t index, void **context) {
    ocl_state *st = state;
    ocl_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        return ocl__services->error(OCL_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                    "context: malloc failed");
    }
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     (cl_context_properties)st->platforms[index], 0};
    c->device = st->devices[index];
    c->context = clCreateContext(props, 1, &c->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        free(c);
        return ocl__fail(err, "clCreateContext", NULL);
    }
    c->internal = clCreateCommandQueue(c->context, c->device, 0, &err);
    if (err != CL_SUCCESS) {
        clReleaseContext(c->context);
        free(c);
        return ocl__fail(err, "clCreateCommandQueue", NULL);
    }
    *context = c;
    return XGPU_SUCCESS;
}

void ocl__context_release(void *context) {
    ocl_ctx *c = context;
    clReleaseCommandQueue(c->internal);
    clReleaseContext(c->context);
    free(c);
}

xgpu_status ocl__queue_create(void *context, void **queue) {
    ocl_ctx *c = context;
    cl_int err;
    cl_command_queue q =
        clCreateCommandQueue(c->context, c->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        return ocl__fail(err, "clCreateCommandQueue", "in-order, profiling");
    }
    *queue = q;
    return XGPU_SUCCESS;
}

void ocl__queue_release(void *queue) {
    clReleaseCommandQueue(queue);
}

xgpu_status ocl__queue_finish(void *queue) {
    cl_int err = clFinish(queue);
    return err == CL_SUCCESS ? XGPU_SUCCESS : ocl__fail(err, "clFinish", NULL);
}

xgpu_status ocl__buffer_create(void *context, size_t size, void **buffer) {
    ocl_ctx *c = context;
    cl_int err;
    cl_mem m = clCreateBuffer(c->context, CL_MEM_READ_WRITE, size, NULL, &err);
    if (err != CL_SUCCESS) {
        char detail[64];
        snprintf(detail, sizeof detail, "%zu bytes", size);
        return ocl__fail(err, "clCreateBuffer", detail);
    }
    *buffer = m;
    return XGPU_SUCCESS;
}

void ocl__buffer_release(void *buffer) {
    clReleaseMemObject(buffer);
}

xgpu_status ocl__buffer_native(void *buffer, void **native) {
    *native = buffer; /* the cl_mem itself */
    return XGPU_SUCCESS;
}

xgpu_status ocl__queue_native(void *queue, void **native) {
    *native = queue; /* the cl_command_queue itself */
    return XGPU_SUCCESS;
}

xgpu_status ocl__buffer_write(void *queue, void *buffer, size_t offset, const void *src,
                              size_t size, bool blocking, void **event) {
    cl_int err = clEnqueueWriteBuffer(queue, buffer, blocking ? CL_TRUE : CL_FALSE, offset, size,
                                      src, 0, NULL, CL_EVENT_OUT(event));
    return err == CL_SUCCESS ? XGPU_SUCCESS : ocl__fail(err, "clEnqueueWriteBuffer", NULL);
}

xgpu_status ocl__buffer_read(void *queue, void *buffer, size_t offset, void *dst, size_t size,
                             bool blocking, void **event) {
    cl_int err = clEnqueueReadBuffer(queue, buffer, blocking ? CL_TRUE : CL_FALSE, offset, size,
                                     dst, 0, NULL, CL_EVENT_OUT(event));
    return err == CL_SUCCESS ? XGPU_SUCCESS : ocl__fail(err, "clEnqueueReadBuffer", NULL);
}

xgpu_status ocl__buffer_copy(void *queue, void *src, size_t src_offset, void *dst,
                             size_t dst_offset, size_t size, void **event) {
    cl_int err = clEnqueueCopyBuffer(queue, src, dst, src_offset, dst_offset, size, 0, NULL,
                                     CL_EVENT_OUT(event));
    return err == CL_SUCCESS ? XGPU_SUCCESS : ocl__fail(err, "clEnqueueCopyBuffer", NULL);
}

xgpu_status ocl__buffer_fill(void *queue, void *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, void **event) {
    cl_int err = clEnqueueFillBuffer(queue, buffer, pattern, pattern_size, offset, size, 0, NULL,
                                     CL_EVENT_OUT(event));
    return err == CL_SUCCESS ? XGPU_SUCCESS : ocl__fail(err, "clEnqueueFillBuffer", NULL);
}

/* Pinned host memory: a CL_MEM_ALLOC_HOST_PTR buffer kept mapped. */
typedef struct ocl_host_block {
    cl_mem mem;
    void *ptr;
} ocl_host_block;

xgpu_status ocl__host_alloc(void *context, size_t size, void **handle, void **ptr) {
    ocl_ctx *c = context;
    ocl_host_block *h = calloc(1, sizeof *h);
    if (!h) {
        return ocl__services->error(OCL_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                    "host_alloc: malloc failed");
    }
    cl_int err;
    h->mem =
        clCreateBuffer(c->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, NULL, &err);
    if (err != CL_SUCCESS) {
        free(h);
        return ocl__fail(err, "clCreateBuffer", "CL_MEM_ALLOC_HOST_PTR");
    }
    h->ptr = clEnqueueMapBuffer(c->internal, h->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size,
                                0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(h->mem);
        free(h);
        return ocl__fail(err, "clEnqueueMapBuffer", NULL);
    }
    *handle = h;
    *ptr = h->ptr;
    return XGPU_SUCCESS;
}

void ocl__host_free(void *context, void *handle) {
    ocl_ctx *c = context;
    ocl_host_block *h = handle;
    clEnqueueUnmapMemObject(c->internal, h->mem, h->ptr, 0, NULL, NULL);
    clFinish(c->internal);
    clReleaseMemObject(h->mem);
    free(h);
}

xgpu_status ocl__queue_record_event(void *queue, void **event) {
    cl_int err = clEnqueueMarkerWithWaitList(queue, 0, NULL, (cl_event *)event);
    return err == CL_SUCCESS ? XGPU_SUCCESS : ocl__fail(err, "clEnqueueMarkerWithWaitList", NULL);
}

xgpu_status ocl__queue_wait_event(void *queue, void *event) {
    /* An event of another queue must be flushed there before a barrier
     * waits on it (OpenCL 1.2, 5.13), or the wait may never end: flush the
     * queue that owns it (clFlush is thread-safe). */
    cl_event e = event;
    cl_command_queue owner = NULL;
    cl_int err = clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof owner, &owner, NULL);
    if (err != CL_SUCCESS) {
        return ocl__fail(err, "clGetEventInfo", "CL_EVENT_COMMAND_QUEUE");
    }
    if (owner && owner != (cl_command_queue)queue) {
        err = clFlush(owner);
        if (err != CL_SUCCESS) {
            return ocl__fail(err, "clFlush", "the queue of the awaited event");
        }
    }
    /* The barrier holds the queue's later commands until the event
     * completes, and keeps its own reference to the event. */
    err = clEnqueueBarrierWithWaitList(queue, 1, &e, NULL);
    return err == CL_SUCCESS ? XGPU_SUCCESS
                             : ocl__fail(err, "clEnqueueBarrierWithWaitList", "one event");
}

xgpu_status ocl__event_wait(void *event) {
    cl_event e = event;
    cl_int err = clWaitForEvents(1, &e);
    if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
        cl_int exec = 0;
        clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
        return ocl__fail(exec < 0 ? exec : err, "clWaitForEvents", "the command failed");
    }
    return err == CL_SUCCESS ? XGPU_SUCCESS : ocl__fail(err, "clWaitForEvents", NULL);
}

xgpu_status ocl__event_elapsed_ms(void *start, void *end, double *ms) {
    cl_ulong t0 = 0, t1 = 0;
    cl_int err = clGetEventProfilingInfo(start, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL);
    if (err == CL_SUCCESS) {
        err = clGetEventProfilingInfo(end, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    }
    if (err != CL_SUCCESS) {
        return ocl__fail(err, "clGetEventProfilingInfo", "CL_PROFILING_COMMAND_END");
    }
    *ms = ((double)t1 - (double)t0) * 1e-6;
    return XGPU_SUCCESS;
}

void ocl__event_release(void *event) {
    clReleaseEvent(event);
}
