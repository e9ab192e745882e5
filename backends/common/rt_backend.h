/* One implementation of the backend hooks for runtime-style vendor APIs
 * (CUDA's driver API, HIP): queues, buffers, copies, fills, pinned memory,
 * events, modules, kernels and launches. A vendor plugin supplies a table
 * of thin calls (xgpu_rt_vendor) over its loaded API, its compiler (NVRTC,
 * hiprtc) and its real quirks (contexts, dynamic shared memory opt-in,
 * architecture handling); everything else is here, once.
 *
 * Object layout: a vendor's context, program and kernel structs start with
 * the xgpu_rt_ctx, xgpu_rt_program and xgpu_rt_kernel below, so that the
 * hooks here can take them as the core's void * handles. Queues, buffers
 * and events are entirely this layer's. */
#ifndef XGPU_RT_BACKEND_H
#define XGPU_RT_BACKEND_H

#include "xgpu_backend.h"

#include <stdint.h>

/* The vendor calls. `api` is the vendor's loaded function table; each
 * call returns XGPU_SUCCESS or records the failure through the core's
 * error service (with the vendor's own code and name) and returns its
 * status. Device pointers are uint64_t; streams, events, modules and
 * functions are opaque pointers. All are called with the context current
 * (make_current first), on any thread. */
typedef struct xgpu_rt_vendor {
    const char *backend; /* "cuda", "hip": the name in error messages */
    /* Makes the context current on the calling thread: cuCtxSetCurrent,
     * hipSetDevice. `device_ctx` is what the vendor put in xgpu_rt_ctx. */
    xgpu_status (*make_current)(const void *api, void *device_ctx);
    /* A non-blocking stream: it never synchronises with the legacy one. */
    xgpu_status (*stream_create)(const void *api, void **stream);
    void (*stream_destroy)(const void *api, void *stream);
    xgpu_status (*stream_sync)(const void *api, void *stream);
    xgpu_status (*event_create)(const void *api, void **event);
    xgpu_status (*event_record)(const void *api, void *event, void *stream);
    xgpu_status (*event_sync)(const void *api, void *event);
    /* Work enqueued on the stream after this waits for the event. */
    xgpu_status (*stream_wait_event)(const void *api, void *stream, void *event);
    xgpu_status (*event_elapsed)(const void *api, void *start, void *end, float *ms);
    void (*event_destroy)(const void *api, void *event);
    xgpu_status (*mem_alloc)(const void *api, size_t size, uint64_t *ptr);
    /* Frees only after queued work on the context is done (xgpu.h lets a
     * buffer be released while work that uses it is queued). */
    void (*mem_free)(const void *api, uint64_t ptr);
    xgpu_status (*host_alloc)(const void *api, size_t size, void **ptr);
    void (*host_free)(const void *api, void *ptr);
    xgpu_status (*copy_htod)(const void *api, uint64_t dst, const void *src, size_t size,
                             void *stream);
    xgpu_status (*copy_dtoh)(const void *api, void *dst, uint64_t src, size_t size, void *stream);
    xgpu_status (*copy_dtod)(const void *api, uint64_t dst, uint64_t src, size_t size,
                             void *stream);
    /* Optional (NULL: the layer answers XGPU_ERROR_UNSUPPORTED and the core
     * stages the copy). Between two contexts (src_ctx, dst_ctx: their
     * device_ctx), on the destination's stream, with the destination's
     * context current; peer access is enabled first where the vendor needs
     * it. XGPU_ERROR_UNSUPPORTED without an error when the vendor's library
     * has no peer copy or refuses peer access: the core then stages the
     * copy. */
    xgpu_status (*copy_peer)(const void *api, uint64_t dst, void *dst_ctx, uint64_t src,
                             void *src_ctx, size_t size, void *stream);
    /* Optional (NULL: no pair is direct). *can: 0 when the vendor's
     * library has no peer copy, else whether device `dst` (the vendor's
     * device handle: CUdevice, HIP ordinal) can copy from `src`'s memory
     * directly; dst == src: whether there is a peer copy at all (two
     * contexts of one device). */
    xgpu_status (*can_access_peer)(const void *api, int dst, int src, int *can);
    /* `count` elements of `width` bytes (1, 2 or 4) set to `value`. */
    xgpu_status (*memset)(const void *api, uint64_t dst, uint32_t value, unsigned width,
                          size_t count, void *stream);
    /* Loads a code object (CUBIN, PTX, HSACO). */
    xgpu_status (*module_load)(const void *api, const void *image, void **module);
    void (*module_unload)(const void *api, void *module);
    /* XGPU_ERROR_KERNEL_NOT_FOUND (with a message) for an unknown name. */
    xgpu_status (*get_function)(const void *api, void *module, const char *name, void **function);
    /* Fills max_group_size, static_local_bytes and, where the vendor can
     * count them, arg_count. */
    void (*function_props)(const void *api, void *function, xgpu_kernel_props *props);
    xgpu_status (*launch)(const void *api, void *function, const unsigned grid[3],
                          const unsigned block[3], unsigned shared_bytes, void *stream,
                          void **params);
} xgpu_rt_vendor;

/* The entries a vendor table must fill, as data (name and place); the
 * others may be NULL. */
#define XGPU_RT_VENDOR_REQUIRED(X)                                                                 \
    X(make_current)                                                                                \
    X(stream_create)                                                                               \
    X(stream_destroy)                                                                              \
    X(stream_sync)                                                                                 \
    X(event_create)                                                                                \
    X(event_record)                                                                                \
    X(event_sync)                                                                                  \
    X(stream_wait_event)                                                                           \
    X(event_elapsed)                                                                               \
    X(event_destroy)                                                                               \
    X(mem_alloc)                                                                                   \
    X(mem_free)                                                                                    \
    X(host_alloc)                                                                                  \
    X(host_free)                                                                                   \
    X(copy_htod)                                                                                   \
    X(copy_dtoh)                                                                                   \
    X(copy_dtod)                                                                                   \
    X(memset)                                                                                      \
    X(module_load)                                                                                 \
    X(module_unload)                                                                               \
    X(get_function)                                                                                \
    X(function_props)                                                                              \
    X(launch)

/* Called by the plugin's probe before anything else of this layer: keeps
 * the core's services for the hooks and checks the vendor's table, as the
 * loader checks a plugin's. XGPU_ERROR_BACKEND_UNAVAILABLE, with a reason
 * naming the first required entry that is NULL (or a NULL `backend`),
 * rather than a crash at the first hook that needs it. */
xgpu_status xgpu__rt_init(const xgpu_core_services *services, const xgpu_rt_vendor *vendor,
                          char *reason, size_t reason_size);

/* The first member of a vendor's context struct. */
typedef struct xgpu_rt_ctx {
    const xgpu_rt_vendor *vendor;
    const void *api;
    void *device_ctx; /* CUcontext; the HIP device ordinal, stored as a pointer */
} xgpu_rt_ctx;

/* The first member of a vendor's program struct. */
typedef struct xgpu_rt_program {
    xgpu_rt_ctx *ctx;
    void *module;
    /* The code object the module was loaded from (owned; NULL when not
     * kept), for the persistent kernel cache. */
    void *image;
    size_t image_size;
} xgpu_rt_program;

/* The first member of a vendor's kernel struct. */
typedef struct xgpu_rt_kernel {
    xgpu_rt_ctx *ctx;
    void *function;
    /* Optional: called before each launch with the dynamic shared memory it
     * needs (CUDA's opt-in above 48 KiB). */
    xgpu_status (*prepare_launch)(struct xgpu_rt_kernel *kernel, size_t shared_bytes);
} xgpu_rt_kernel;

/* Set by xgpu__rt_init at the plugin's probe; the error and log services. */
extern const xgpu_core_services *xgpu__rt_services;

xgpu_status xgpu__rt_make_current(const xgpu_rt_ctx *ctx);
/* Records XGPU_ERROR_OUT_OF_HOST_MEMORY for `what`. */
xgpu_status xgpu__rt_oom(const xgpu_rt_ctx *ctx, const char *what);

/* Hooks, with the xgpu_backend_ops signatures. */
xgpu_status xgpu__rt_queue_create(void *context, void **queue);
void xgpu__rt_queue_release(void *queue);
xgpu_status xgpu__rt_queue_finish(void *queue);
xgpu_status xgpu__rt_buffer_create(void *context, size_t size, void **buffer);
void xgpu__rt_buffer_release(void *buffer);
xgpu_status xgpu__rt_buffer_write(void *queue, void *buffer, size_t offset, const void *src,
                                  size_t size, bool blocking, void **event);
xgpu_status xgpu__rt_buffer_read(void *queue, void *buffer, size_t offset, void *dst, size_t size,
                                 bool blocking, void **event);
xgpu_status xgpu__rt_buffer_copy(void *queue, void *src, size_t src_offset, void *dst,
                                 size_t dst_offset, size_t size, void **event);
xgpu_status xgpu__rt_buffer_copy_peer(void *src_queue, void *src_buffer, size_t src_offset,
                                      void *dst_queue, void *dst_buffer, size_t dst_offset,
                                      size_t size);
xgpu_status xgpu__rt_buffer_fill(void *queue, void *buffer, size_t offset, size_t size,
                                 const void *pattern, size_t pattern_size, void **event);
xgpu_status xgpu__rt_host_alloc(void *context, size_t size, void **handle, void **ptr);
void xgpu__rt_host_free(void *context, void *handle);
xgpu_status xgpu__rt_buffer_native(void *buffer, void **native);
xgpu_status xgpu__rt_queue_native(void *queue, void **native);
xgpu_status xgpu__rt_kernel_native(void *kernel, void **native);
/* A copy of the program's code object (program_binary). */
xgpu_status xgpu__rt_program_binary(void *program, void **data, size_t *size);
xgpu_status xgpu__rt_queue_record_event(void *queue, void **event);
xgpu_status xgpu__rt_event_wait(void *event);
xgpu_status xgpu__rt_queue_wait_event(void *queue, void *event);
xgpu_status xgpu__rt_event_elapsed_ms(void *start, void *end, double *ms);
void xgpu__rt_event_release(void *event);
xgpu_status xgpu__rt_launch(void *queue, void *kernel, const xgpu_range *range, size_t arg_count,
                            const xgpu_backend_arg *args, void **event);

/* The device_peer hook for a vendor (xgpu_backend_ops), over its
 * can_access_peer: `src` and `dst` are the vendor's device handles. */
xgpu_status xgpu__rt_device_peer(const xgpu_rt_vendor *vendor, const void *api, int src, int dst,
                                 bool *direct);

/* Loads `image` into a new program of `size` bytes (>= sizeof
 * xgpu_rt_program; the vendor's struct) on the context. */
xgpu_status xgpu__rt_program_load(xgpu_rt_ctx *ctx, const void *image, size_t size, void **program);
void xgpu__rt_program_release(void *program);
/* A new kernel of `size` bytes (>= sizeof xgpu_rt_kernel) for `name`,
 * with its properties; the vendor then fills its own fields. */
xgpu_status xgpu__rt_kernel_create(void *program, const char *name, size_t size, void **kernel,
                                   xgpu_kernel_props *props);

/* The hooks this layer implements, for a vendor's xgpu_backend_ops
 * initializer: context, program and kernel creation stay the vendor's. */
#define XGPU_RT_BACKEND_HOOKS                                                                      \
    .queue_create = xgpu__rt_queue_create, .queue_release = xgpu__rt_queue_release,                \
    .queue_finish = xgpu__rt_queue_finish, .buffer_create = xgpu__rt_buffer_create,                \
    .buffer_release = xgpu__rt_buffer_release, .buffer_write = xgpu__rt_buffer_write,              \
    .buffer_read = xgpu__rt_buffer_read, .buffer_copy = xgpu__rt_buffer_copy,                      \
    .buffer_fill = xgpu__rt_buffer_fill, .host_alloc = xgpu__rt_host_alloc,                        \
    .host_free = xgpu__rt_host_free, .buffer_native = xgpu__rt_buffer_native,                      \
    .queue_native = xgpu__rt_queue_native, .program_release = xgpu__rt_program_release,            \
    .launch = xgpu__rt_launch, .queue_record_event = xgpu__rt_queue_record_event,                  \
    .event_wait = xgpu__rt_event_wait, .event_elapsed_ms = xgpu__rt_event_elapsed_ms,              \
    .event_release = xgpu__rt_event_release, .queue_wait_event = xgpu__rt_queue_wait_event,        \
    .kernel_native = xgpu__rt_kernel_native, .program_binary = xgpu__rt_program_binary,            \
    .buffer_copy_peer = xgpu__rt_buffer_copy_peer

#endif
