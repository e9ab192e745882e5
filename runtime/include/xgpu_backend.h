/*
 * xgpu backend ABI: the contract between libxgpu (the core) and a backend
 * plugin (libxgpu-<name>.so).
 *
 * A plugin exports one function, XGPU_BACKEND_ENTRY_NAME, of type
 * xgpu_backend_entry_fn. The core calls it once, before anything else, with
 * the newest ABI version it speaks; the plugin answers with the version both
 * speak and its table of hooks, or refuses with XGPU_ERROR_ABI_MISMATCH. From
 * then on the core never checks versions again: hooks a version added are
 * NULL-filled by the core for older plugins.
 *
 * Rules for the table (xgpu_backend_ops):
 * - It starts with its size and version and only ever grows at the end.
 * - Hooks marked "required" must be non-NULL; the core refuses the plugin
 *   otherwise, naming the missing hook.
 * - Hooks marked "optional" may be NULL: the core substitutes a default.
 * - The core validates every argument (handles, sizes, ranges, launch
 *   arguments) before calling a hook: a hook may assume its inputs are in
 *   range and of the right kind.
 * - Hooks report failures through services->error(), which records the
 *   backend's own code and text for xgpu_last_error(), and return its status.
 * - Handles (void *) are the backend's own objects; the core never looks
 *   inside them.
 * - Threads: the core serialises nothing on a queue (callers use one queue
 *   per thread); all other hooks may be called from several threads at once.
 *
 * ABI version history (append only):
 *   1  first version.
 *      Optional hooks appended since, below the marker in xgpu_backend_ops,
 *      need no new version: the core reads a plugin's table only up to the
 *      plugin's `size`, and a hook past it is NULL, then defaulted.
 *        queue_wait_event (xgpu 0.3.0)
 *        kernel_native (xgpu 0.4.0)
 *        build_identity, program_binary, program_load_binary (xgpu 0.4.0)
 */
#ifndef XGPU_BACKEND_H
#define XGPU_BACKEND_H

#include "xgpu.h"

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XGPU_BACKEND_ABI_VERSION 1u
#define XGPU_BACKEND_ENTRY_NAME "xgpu_backend_entry"

/* Which prelude branch the core prepends to kernel source. */
typedef enum xgpu_dialect {
    XGPU_DIALECT_OPENCL = 1, /* OpenCL C 1.2 */
    XGPU_DIALECT_CUDA = 2,   /* CUDA C++ through NVRTC */
    XGPU_DIALECT_HIP = 3     /* HIP C++ through hiprtc */
} xgpu_dialect;

enum xgpu_log_level {
    XGPU_LOG_ERROR = 0,
    XGPU_LOG_WARN = 1,
    XGPU_LOG_INFO = 2,
    XGPU_LOG_DEBUG = 3
};

/* Functions the core offers to a backend. Valid for the life of the process. */
typedef struct xgpu_core_services {
    uint32_t size;
    uint32_t abi_version;
    /* Records a failure for xgpu_last_error() on the calling thread and
     * returns `status`. native_name is the backend's code name
     * ("CL_OUT_OF_RESOURCES") or NULL. */
    xgpu_status (*error)(const char *backend, xgpu_status status, long long native_code,
                         const char *native_name, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 5, 6)))
#endif
        ;
    /* Writes to the xgpu log (stderr) when XGPU_LOG allows `level`. */
    void (*log)(const char *backend, int level, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;
    /* Records one vendor library the backend tried: the name asked for, the
     * file loaded (NULL when none), and what happened or what it offers
     * ("NVRTC 13.0, sm_75..sm_121"). Shown by xgpu_backend_get_library and
     * gpuinfo --doctor. Thread-safe; may be called at any time. */
    void (*library)(const char *backend, const char *name, const char *path, bool loaded,
                    const char *detail);
} xgpu_core_services;

/* Properties of a created kernel, filled by kernel_create. */
typedef struct xgpu_kernel_props {
    uint64_t max_group_size;           /* 0: use the device's */
    uint64_t static_local_bytes;       /* local memory the kernel declares itself */
    uint64_t preferred_group_multiple; /* group sizes should be multiples; 0: unknown */
    /* The number of parameters as the compiled kernel reports it. The core
     * sets it to XGPU_ARG_COUNT_UNKNOWN before kernel_create; a backend that
     * can count them (CL_KERNEL_NUM_ARGS, cuFuncGetParamInfo) stores it. The
     * core uses it when the signature cannot be read from the source. */
    uint32_t arg_count;
    /* Optional, with arg_count: each parameter's kind as the compiled kernel
     * reports it (OpenCL's argument info), owned by the backend's kernel
     * until kernel_release; NULL when unknown. */
    const xgpu_arg_kind *arg_kinds;
} xgpu_kernel_props;

#define XGPU_ARG_COUNT_UNKNOWN UINT32_MAX

/* One launch argument as the backend receives it: already checked. */
typedef struct xgpu_backend_arg {
    xgpu_arg_kind kind;
    size_t size;       /* scalar bytes, or local-memory bytes */
    void *buffer;      /* the backend's buffer handle for XGPU_ARG_BUFFER */
    const void *value; /* the scalar's bytes for XGPU_ARG_SCALAR */
} xgpu_backend_arg;

/* Optional hooks a plugin leaves NULL are filled with the core's defaults
 * when it is loaded (runtime/src/core/defaults.c, the one place): the core never
 * calls through NULL. A hook may return XGPU_ERROR_UNSUPPORTED without
 * setting an error to hand a case back to the core where its comment says
 * so (buffer_fill, queue_wait_event). */
typedef struct xgpu_backend_ops {
    uint32_t size;        /* sizeof(xgpu_backend_ops) as the plugin was built */
    uint32_t abi_version; /* equals the negotiated version */
    const char *name;     /* "opencl"; must match the plugin file name */
    xgpu_dialect dialect;

    /* ---- The hooks below are in version 1. ---- */

    /* == Lifetime == */
    /* Required. Called after negotiation, on a thread of the core's
     * own (again after shutdown when a discovery is retried): the probes of different backends run
     * concurrently, so a probe touches only its backend's state. Loads vendor libraries and counts
     * devices. On failure writes a
     * human-readable reason (what is missing and what to do) and returns the
     * status; the backend is then listed as unavailable and never called
     * again. Must not print. */
    xgpu_status (*probe)(const xgpu_core_services *services, void **state, char *reason,
                         size_t reason_size);
    /* Optional; default: nothing. Frees what a successful probe allocated
     * in its state. Called when the core discards a registry: after a
     * discovery that ran out of host memory (the core then probes again on
     * its next call), and by the loader tests. Vendor libraries stay loaded. */
    void (*shutdown)(void *state);

    /* == Devices == */
    /* Required. */
    uint32_t (*device_count)(void *state);
    /* Required. `index` < device_count. Fills every field it knows; the
     * core has zeroed the struct and set ecc_enabled to -1. */
    xgpu_status (*device_info)(void *state, uint32_t index, xgpu_device_info *info);
    /* Optional; default: XGPU_ERROR_UNSUPPORTED. Free device memory now. */
    xgpu_status (*device_free_memory)(void *state, uint32_t index, uint64_t *free_bytes);

    /* == Contexts and queues == */
    /* Required. */
    xgpu_status (*context_create)(void *state, uint32_t index, void **context);
    /* Required. The core has checked that nothing of the context is alive. */
    void (*context_release)(void *context);
    /* Required. In-order queue with timing enabled. */
    xgpu_status (*queue_create)(void *context, void **queue);
    /* Required. The core calls queue_finish first. */
    void (*queue_release)(void *queue);
    /* Required. Blocks until the queue is drained. */
    xgpu_status (*queue_finish)(void *queue);

    /* == Memory == */
    /* Required. size > 0 and <= the device's max_alloc_bytes. */
    xgpu_status (*buffer_create)(void *context, size_t size, void **buffer);
    /* Required. Queued work may still use the buffer: the memory must be
     * freed only after it completes (clReleaseMemObject defers; the CUDA
     * and HIP backends synchronise the context before freeing). */
    void (*buffer_release)(void *buffer);
    /* Required. Ranges are inside the buffer. `event` may be NULL; when not,
     * the hook stores a new event that completes with the operation. */
    xgpu_status (*buffer_write)(void *queue, void *buffer, size_t offset, const void *src,
                                size_t size, bool blocking, void **event);
    /* Required. */
    xgpu_status (*buffer_read)(void *queue, void *buffer, size_t offset, void *dst, size_t size,
                               bool blocking, void **event);
    /* Required. Ranges do not overlap. */
    xgpu_status (*buffer_copy)(void *queue, void *src, size_t src_offset, void *dst,
                               size_t dst_offset, size_t size, void **event);
    /* Optional; default: one expanded 64 KiB chunk written, then doubled
     * by buffer_copy on the device. The pattern size is a power of two
     * <= 128 dividing offset and size. Returning XGPU_ERROR_UNSUPPORTED
     * (without setting an error) hands a pattern size to the default. */
    xgpu_status (*buffer_fill)(void *queue, void *buffer, size_t offset, size_t size,
                               const void *pattern, size_t pattern_size, void **event);
    /* Optional; default: malloc (not pinned). *handle is passed back to
     * host_free. */
    xgpu_status (*host_alloc)(void *context, size_t size, void **handle, void **ptr);
    /* Optional; default: free. */
    void (*host_free)(void *context, void *handle);
    /* Optional; default: XGPU_ERROR_UNSUPPORTED. The vendor object behind a
     * buffer (cl_mem, CUdeviceptr, hipDeviceptr_t) or a queue
     * (cl_command_queue, CUstream, hipStream_t), for interoperation. */
    xgpu_status (*buffer_native)(void *buffer, void **native);
    xgpu_status (*queue_native)(void *queue, void **native);

    /* == Programs and kernels == */
    /* Required. `source` already carries the dialect prelude. On success or
     * failure may set *log to a malloc'ed NUL-terminated log the core frees. */
    xgpu_status (*program_build)(void *context, const char *source, const char *options,
                                 void **program, char **log);
    /* Required. */
    void (*program_release)(void *program);
    /* Required. Returns XGPU_ERROR_KERNEL_NOT_FOUND for an unknown name. */
    xgpu_status (*kernel_create)(void *program, const char *name, void **kernel,
                                 xgpu_kernel_props *props);
    /* Required. */
    void (*kernel_release)(void *kernel);
    /* Required. The core has checked range and args against the kernel. */
    xgpu_status (*launch)(void *queue, void *kernel, const xgpu_range *range, size_t arg_count,
                          const xgpu_backend_arg *args, void **event);

    /* == Events == */
    /* Required. A new event completing after all prior work on the queue. */
    xgpu_status (*queue_record_event)(void *queue, void **event);
    /* Required. */
    xgpu_status (*event_wait)(void *event);
    /* Required. Milliseconds between the ends of two completed events. */
    xgpu_status (*event_elapsed_ms)(void *start, void *end, double *ms);
    /* Required. */
    void (*event_release)(void *event);

    /* ---- Hooks added by later versions go below this line. ---- */

    /* Optional, added in xgpu 0.3.0; default (or XGPU_ERROR_UNSUPPORTED):
     * the core waits for `event` on the host (event_wait) and returns. Called by
     * xgpu_queue_wait_event on the thread that owns `queue`: work enqueued on `queue` after this
     * call must start only after `event` completes, without blocking the host (OpenCL:
     * clEnqueueBarrierWithWaitList; CUDA: cuStreamWaitEvent; HIP: hipStreamWaitEvent). The core has
     * checked that the event and the queue belong to one context. The core may release `event` as
     * soon as this returns: a backend that needs it later retains it. */
    xgpu_status (*queue_wait_event)(void *queue, void *event);

    /* Optional, added in xgpu 0.4.0; default: XGPU_ERROR_UNSUPPORTED. The
     * vendor object behind a kernel (cl_kernel, CUfunction, hipFunction_t),
     * for xgpu_kernel_native. */
    xgpu_status (*kernel_native)(void *kernel, void **native);

    /* Optional, added in xgpu 0.4.0, all three or none; default: the
     * backend's programs are not kept in the persistent kernel cache.
     * build_identity writes (NUL-terminated, at most `size` bytes) what a
     * build's binary depends on besides the source, the options and the
     * device's name, arch and driver version the core adds itself: the
     * compiler and its version, the platform's version ("NVRTC 13.0",
     * "OpenCL 3.0 PoCL 3.1"). program_binary gives a built program's binary
     * (malloc'ed; the core frees it). program_load_binary makes a program
     * from a binary program_binary gave on a backend of the same identity;
     * a binary it refuses (XGPU_ERROR_BUILD_FAILED) is rebuilt from source. */
    xgpu_status (*build_identity)(void *context, char *out, size_t size);
    xgpu_status (*program_binary)(void *program, void **data, size_t *size);
    xgpu_status (*program_load_binary)(void *context, const void *data, size_t size,
                                       const char *options, void **program, char **log);

    /* Optional, added in xgpu 0.6.0, both or none; default: no direct
     * path, and the core stages copies between devices through host memory.
     * device_peer says whether this backend's device `src` can copy
     * directly into device `dst`'s memory (two indices of this backend,
     * equal for two contexts of one device). buffer_copy_peer copies `size`
     * bytes between buffers of two contexts of this backend, on `dst_queue`
     * (the core has finished src_queue's earlier work), and returns when the
     * copy is complete; XGPU_ERROR_UNSUPPORTED without an error hands the
     * copy back to the core, which stages it. */
    xgpu_status (*device_peer)(void *state, uint32_t src, uint32_t dst, bool *direct);
    xgpu_status (*buffer_copy_peer)(void *src_queue, void *src_buffer, size_t src_offset,
                                    void *dst_queue, void *dst_buffer, size_t dst_offset,
                                    size_t size);
} xgpu_backend_ops;

/* Negotiation. In: the core's newest version and its services. Out: the
 * version both speak and the plugin's table (static storage, never freed). */
typedef struct xgpu_negotiate_in {
    uint32_t size;
    uint32_t core_abi_version;
    const xgpu_core_services *services;
} xgpu_negotiate_in;

typedef struct xgpu_negotiate_out {
    uint32_t size;
    uint32_t abi_version;
    const xgpu_backend_ops *ops;
} xgpu_negotiate_out;

typedef xgpu_status (*xgpu_backend_entry_fn)(const xgpu_negotiate_in *in, xgpu_negotiate_out *out);

/* Defines a plugin's entry point for its table `table` of ABI version 1: the
 * one symbol a plugin exports. Refuses a core older than version 1. */
#define XGPU_BACKEND_EXPORT(table)                                                                 \
    __attribute__((visibility("default"))) xgpu_status xgpu_backend_entry(                         \
        const xgpu_negotiate_in *in, xgpu_negotiate_out *out);                                     \
    xgpu_status xgpu_backend_entry(const xgpu_negotiate_in *in, xgpu_negotiate_out *out) {         \
        if (!in || !out || in->core_abi_version < 1) {                                             \
            return XGPU_ERROR_ABI_MISMATCH;                                                        \
        }                                                                                          \
        out->abi_version = 1;                                                                      \
        out->ops = &(table);                                                                       \
        return XGPU_SUCCESS;                                                                       \
    }

/* Published layout: these offsets never change. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(offsetof(xgpu_backend_ops, size) == 0, "ops.size must be first");
_Static_assert(offsetof(xgpu_backend_ops, abi_version) == 4, "ops.abi_version at 4");
_Static_assert(offsetof(xgpu_negotiate_in, core_abi_version) == 4, "in.core_abi_version at 4");
_Static_assert(offsetof(xgpu_negotiate_out, abi_version) == 4, "out.abi_version at 4");
#endif

#ifdef __cplusplus
}
#endif
#endif /* XGPU_BACKEND_H */
