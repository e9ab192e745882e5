/* The backend's own launch call on an xgpu kernel and queue, without xgpu:
 * clEnqueueNDRangeKernel, cuLaunchKernel, hipModuleLaunchKernel. gpubench
 * times it beside xgpu_launch so that launch overhead is a ratio. */
#ifndef XGPU_RAW_LAUNCH_H
#define XGPU_RAW_LAUNCH_H

#include <xgpu.h>

#include <stddef.h>

typedef struct raw_launch {
    const char *call;        /* "cuLaunchKernel", ... */
    const char *finish_call; /* "cuStreamSynchronize", ... */
    int kind;                /* which vendor, private to raw_launch.c */
    void *kernel, *queue, *buffer;
    void *calls[3]; /* the vendor's entry points, private to raw_launch.c */
} raw_launch;

/* Prepares raw launches of `kernel` (one buffer parameter) with `buffer` on
 * `queue`, on a device of `backend`. 0 when ready; -1 with a reason
 * ("not run: ...") when the backend has no raw peer here or its library
 * cannot be loaded. r->call names the call either way. */
int raw_launch_open(raw_launch *r, const char *backend, xgpu_kernel *kernel, xgpu_queue *queue,
                    xgpu_buffer *buffer, char *reason, size_t reason_size);
/* One work-item of one group, enqueued: 0, or the vendor's error code. */
int raw_launch_enqueue(raw_launch *r);
/* Waits for the queue: 0, or the vendor's error code. */
int raw_launch_finish(raw_launch *r);

#endif
