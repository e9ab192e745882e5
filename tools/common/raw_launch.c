/* Raw launches through the vendor's library, loaded at run time (the one
 * xgpu's backend already loaded, found by its soname), on the objects
 * xgpu_kernel_native, xgpu_queue_native and xgpu_buffer_native give. */
#define _GNU_SOURCE
#include "raw_launch.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { RAW_OPENCL = 1, RAW_CUDA, RAW_HIP };

/* cuLaunchKernel and hipModuleLaunchKernel share this shape (function,
 * grid x y z, block x y z, shared bytes, stream, parameters, extra). */
typedef int (*module_launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, void *, void **, void **);
typedef int (*stream_sync_fn)(void *);
typedef int (*cl_set_arg_fn)(void *, unsigned, size_t, const void *);
typedef int (*cl_enqueue_fn)(void *, void *, unsigned, const size_t *, const size_t *,
                             const size_t *, unsigned, const void *, void *);
typedef int (*cl_finish_fn)(void *);

static void *open_first(const char *const *names) {
    for (size_t i = 0; names[i]; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            return lib;
        }
    }
    return NULL;
}

static void *symbol(void *lib, const char *name) {
    return lib ? dlsym(lib, name) : NULL;
}

int raw_launch_open(raw_launch *r, const char *backend, xgpu_kernel *kernel, xgpu_queue *queue,
                    xgpu_buffer *buffer, char *reason, size_t reason_size) {
    static const char *const opencl[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
    static const char *const cuda[] = {"libcuda.so.1", "libcuda.so", NULL};
    static const char *const hip[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so",
                                      "libamdhip64.so.7", NULL};
    memset(r, 0, sizeof *r);
    const char *const *names;
    const char *first, *second;
    if (!strcmp(backend, "opencl")) {
        r->kind = RAW_OPENCL;
        r->call = "clEnqueueNDRangeKernel";
        names = opencl;
        first = "clEnqueueNDRangeKernel";
        second = r->finish_call = "clFinish";
    } else if (!strcmp(backend, "cuda")) {
        r->kind = RAW_CUDA;
        r->call = "cuLaunchKernel";
        names = cuda;
        first = "cuLaunchKernel";
        second = r->finish_call = "cuStreamSynchronize";
    } else if (!strcmp(backend, "hip")) {
        r->kind = RAW_HIP;
        r->call = "hipModuleLaunchKernel";
        names = hip;
        first = "hipModuleLaunchKernel";
        second = r->finish_call = "hipStreamSynchronize";
    } else {
        r->call = "raw launch";
        r->finish_call = "";
        snprintf(reason, reason_size, "not run: no raw launch known for backend %s", backend);
        return -1;
    }
    if (xgpu_kernel_native(kernel, &r->kernel) || xgpu_queue_native(queue, &r->queue) ||
        xgpu_buffer_native(buffer, &r->buffer)) {
        snprintf(reason, reason_size, "not run: %s", xgpu_last_error()->message);
        return -1;
    }
    void *lib = open_first(names);
    void *a = symbol(lib, first), *b = symbol(lib, second);
    void *c = r->kind == RAW_OPENCL ? symbol(lib, "clSetKernelArg") : a;
    if (!a || !b || !c) {
        snprintf(reason, reason_size, "not run: %s",
                 !lib ? "the vendor library does not load" : "the vendor library lacks the calls");
        return -1;
    }
    r->calls[0] = a;
    r->calls[1] = b;
    r->calls[2] = c;
    return 0;
}

int raw_launch_enqueue(raw_launch *r) {
    if (r->kind == RAW_OPENCL) {
        cl_enqueue_fn enqueue;
        cl_set_arg_fn set_arg;
        memcpy(&enqueue, &r->calls[0], sizeof enqueue);
        memcpy(&set_arg, &r->calls[2], sizeof set_arg);
        /* As xgpu does each launch: set the argument, then enqueue. */
        int err = set_arg(r->kernel, 0, sizeof r->buffer, &r->buffer);
        const size_t one = 1;
        return err ? err : enqueue(r->queue, r->kernel, 1, NULL, &one, &one, 0, NULL, NULL);
    }
    module_launch_fn launch;
    memcpy(&launch, &r->calls[0], sizeof launch);
    /* CUdeviceptr and hipDeviceptr_t: 64 bits, held in r->buffer. */
    void *params[] = {&r->buffer};
    return launch(r->kernel, 1, 1, 1, 1, 1, 1, 0, r->queue, params, NULL);
}

int raw_launch_finish(raw_launch *r) {
    if (r->kind == RAW_OPENCL) {
        cl_finish_fn finish;
        memcpy(&finish, &r->calls[1], sizeof finish);
        return finish(r->queue);
    }
    stream_sync_fn sync;
    memcpy(&sync, &r->calls[1], sizeof sync);
    return sync(r->queue);
}
