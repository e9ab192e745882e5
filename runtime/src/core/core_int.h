/* runtime/src/core's private declarations: the objects' structs, the
 * handle registry, the loader and the backends' hooks. Only core/ (and the
 * tests that drive it) include this; the layers above see core.h. */
#ifndef XGPU_CORE_INT_H
#define XGPU_CORE_INT_H

#include "core.h"
#include "support.h"
#include "xgpu.h"
#include "xgpu_backend.h"

#include <pthread.h>
#include <stdatomic.h>

/* ---- handle.c: the registry of live handles ---- */
/* The objects behind the handles. A handle (xgpu_buffer *, ...) is not
 * the object's address: the public structs are never defined, so a handle
 * cannot be dereferenced by mistake; xgpu__buffer_get & co. give the
 * object, and each object keeps its own handle as `self`. */
typedef struct xgpu__device xgpu__device;
typedef struct xgpu__context xgpu__context;
typedef struct xgpu__queue xgpu__queue;
typedef struct xgpu__buffer xgpu__buffer;
typedef struct xgpu__program xgpu__program;
typedef struct xgpu__kernel xgpu__kernel;
typedef struct xgpu__event xgpu__event;

/* Enters a new object of type `magic`, its handle in *handle;
 * XGPU_ERROR_OUT_OF_HOST_MEMORY when the registry cannot grow. */
xgpu_status xgpu__handle_add(void *object, uint32_t magic, const char *func, void **handle);
/* The object of a live handle of type `magic`; otherwise
 * XGPU_ERROR_INVALID_HANDLE as xgpu__handle_check says it, *object NULL.
 * Lock-free. */
xgpu_status xgpu__handle_get(const void *handle, uint32_t magic, const char *func, const char *what,
                             void **object);
/* Like xgpu__handle_get, and on success takes the handle out of the
 * registry in the same step, so that of two racing releases one wins. The
 * object is the caller's to free. */
xgpu_status xgpu__handle_take(const void *handle, uint32_t magic, const char *func,
                              const char *what, void **object);
/* The object of a handle already checked (the accessors of core.h), NULL
 * when it is not live after all. */
void *xgpu__handle_object(const void *handle, uint32_t magic);
/* Takes a live handle of type `magic` out of the registry, if it is there
 * (creation undone). */
void xgpu__handle_remove(const void *handle, uint32_t magic);
/* Checks a context handle and counts one more live object in it, in one
 * step under the registry's lock: a concurrent xgpu_context_release then
 * either sees the object (BUSY) or the creator sees a released handle. */
xgpu_status xgpu__context_pin(const xgpu_context *context, const char *func,
                              xgpu__context **object);
/* Undoes a pin: the object was not made, or is released. */
void xgpu__context_unpin(xgpu__context *context);
/* Takes a context out of the registry when nothing of it is alive (the
 * library's own cached objects aside), in the same step as the check;
 * XGPU_ERROR_BUSY (nothing changed, error not set) with *live otherwise. */
xgpu_status xgpu__context_take_if_idle(const xgpu_context *context, const char *func, long *live,
                                       xgpu__context **object);

/* Typed forms, one pair per type: xgpu__buffer_get(handle, func, what,
 * &object) and xgpu__buffer_take(...), and likewise for device, context,
 * queue, program, kernel and event. */
#define XGPU__HANDLE_TYPES(X)                                                                      \
    X(device, XGPU__MAGIC_DEVICE)                                                                  \
    X(context, XGPU__MAGIC_CONTEXT)                                                                \
    X(queue, XGPU__MAGIC_QUEUE)                                                                    \
    X(buffer, XGPU__MAGIC_BUFFER)                                                                  \
    X(program, XGPU__MAGIC_PROGRAM)                                                                \
    X(kernel, XGPU__MAGIC_KERNEL)                                                                  \
    X(event, XGPU__MAGIC_EVENT)
#define XGPU__HANDLE_FUNCTIONS(type, magic)                                                        \
    static inline xgpu_status xgpu__##type##_get(const xgpu_##type *handle, const char *func,      \
                                                 const char *what, xgpu__##type **object) {        \
        void *found = NULL;                                                                        \
        xgpu_status st = xgpu__handle_get(handle, (magic), func, what, &found);                    \
        *object = found;                                                                           \
        return st;                                                                                 \
    }                                                                                              \
    static inline xgpu_status xgpu__##type##_take(const xgpu_##type *handle, const char *func,     \
                                                  const char *what, xgpu__##type **object) {       \
        void *found = NULL;                                                                        \
        xgpu_status st = xgpu__handle_take(handle, (magic), func, what, &found);                   \
        *object = found;                                                                           \
        return st;                                                                                 \
    }
XGPU__HANDLE_TYPES(XGPU__HANDLE_FUNCTIONS)
#undef XGPU__HANDLE_FUNCTIONS

/* Returns a failed lookup's status from the calling function: the one form
 * for xgpu__buffer_get & co., xgpu__context_pin and the like. */
#define XGPU__OK_OR_RETURN(call)                                                                   \
    do {                                                                                           \
        xgpu_status ok_st_ = (call);                                                               \
        if (ok_st_ != XGPU_SUCCESS) {                                                              \
            return ok_st_;                                                                         \
        }                                                                                          \
    } while (0)

/* ---- error.c ---- */
/* Keeps `log` as the calling thread's last build log. */
void xgpu__set_build_log(const char *log);

/* ---- log.c ---- */
/* XGPU_LOG's value as an XGPU_LOG_* level; -1 (silent) for NULL or any
 * other text. Pure, for the fuzzers and tests. */
int xgpu__log_level_parse(const char *value);

/* ---- library_log.c ---- */
void xgpu__library_record(const char *backend, const char *name, const char *path, bool loaded,
                          const char *detail);
uint32_t xgpu__library_count(const char *backend);
bool xgpu__library_get(const char *backend, uint32_t index, xgpu_library_info *out);

/* ---- loader.c ---- */
typedef struct xgpu__backend {
    char name[32];
    char path[512];
    bool available;
    xgpu_status status;
    char reason[512];
    uint32_t abi_version;
    xgpu_backend_ops ops; /* copy with optional hooks filled by core defaults */
    void *state;
    uint32_t device_count;
} xgpu__backend;

struct xgpu__device {
    xgpu_device *self;
    xgpu__backend *backend;
    uint32_t index; /* within the backend */
    uint32_t global_index;
    xgpu_device_info info;
};

typedef struct xgpu__registry {
    xgpu__backend *backends;
    uint32_t backend_count;
    xgpu__device *devices;
    uint32_t device_count;
} xgpu__registry;

/* Where and what to load. Strings may be NULL. */
typedef struct xgpu__loader_config {
    const char *plugin_path; /* XGPU_PLUGIN_PATH: ':'-separated directories */
    const char *backends;    /* XGPU_BACKENDS: ','-separated names, NULL = all */
    const char *self_dir;    /* the directory libxgpu was loaded from */
    const char *install_dir; /* the compiled-in plugin directory */
} xgpu__loader_config;

/* Finds, negotiates and probes plugins. Problems become unavailable
 * backends with reasons; the only failure is XGPU_ERROR_OUT_OF_HOST_MEMORY
 * (the registry is then partly filled: free it). Exposed for the loader
 * tests. */
xgpu_status xgpu__registry_load(const xgpu__loader_config *config, xgpu__registry *registry);
/* Calls every available backend's shutdown hook and frees the registry. */
void xgpu__registry_free(xgpu__registry *registry);
/* The process-wide registry, loaded from the environment on first use.
 * XGPU_ERROR_OUT_OF_HOST_MEMORY (error set, naming func) when the load ran
 * out of memory; nothing of it is kept and the next call loads again. */
xgpu_status xgpu__registry_get(const xgpu__registry **registry, const char *func);
/* Fills NULL optional hooks of `ops` with core defaults. */
void xgpu__ops_fill_defaults(xgpu_backend_ops *ops);
/* queue_wait_event, or its default (a host wait) when the backend has none. */
xgpu_status xgpu__queue_wait_event(const xgpu_backend_ops *ops, void *queue, void *event);
extern const xgpu_core_services xgpu__services;

/* ---- objects ---- */
typedef struct xgpu__host_block {
    struct xgpu__host_block *next;
    void *ptr;
    void *handle;
} xgpu__host_block;

struct xgpu__context {
    xgpu_context *self;
    xgpu__device *device;
    const xgpu_backend_ops *ops;
    void *handle;
    /* Objects of this context still alive (pinned host blocks and the
     * library's cached objects included), and objects being created:
     * changed under the handle registry's lock by xgpu__context_pin. */
    atomic_long live;
    pthread_mutex_t host_lock;
    xgpu__host_block *host_blocks;
    /* The kernel library's state (xgpu__context_ext): made on first use
     * under ext_lock, released through ext_release with the context. */
    pthread_mutex_t ext_lock;
    void *ext;
    void (*ext_release)(xgpu_context *context, void *ext); /* given `self` */
    atomic_long ext_objects;                               /* how many of `live` that state holds */
};

struct xgpu__queue {
    xgpu_queue *self;
    xgpu__context *context;
    void *handle;
    xgpu_buffer *scratch; /* xgpu__queue_scratch's (a handle) */
    size_t scratch_size;
    xgpu_buffer *counter; /* xgpu__queue_counter's (a handle) */
};

struct xgpu__buffer {
    xgpu_buffer *self;
    xgpu__context *context;
    void *handle;
    size_t size;
};

struct xgpu__event {
    xgpu_event *self;
    xgpu__context *context;
    void *handle;
};

/* A kernel's parameter list as read from its dialect source. */
typedef enum xgpu__scalar_class {
    XGPU__CLASS_OTHER = 0, /* vectors, user types: only the size is checked */
    XGPU__CLASS_FLOAT,
    XGPU__CLASS_INTEGER
} xgpu__scalar_class;

typedef struct xgpu__kernel_param {
    xgpu_arg_kind kind;
    size_t scalar_size; /* 0 when the type's size is not known */
    xgpu__scalar_class scalar_class;
    char name[64];
    char type[64];
} xgpu__kernel_param;

typedef struct xgpu__kernel_sig {
    bool known;
    uint32_t count;
    xgpu__kernel_param *params; /* count entries, malloc'ed; NULL when count is 0 */
} xgpu__kernel_sig;

/* ---- kernel_sig.c ---- */
/* Reads kernel `name`'s parameters from dialect `source`. Returns false
 * (sig->known = false, nothing to free) when no such XGPU_KERNEL definition
 * is found or memory runs out (*oom set when oom is not NULL). */
bool xgpu__kernel_sig_parse(const char *source, const char *name, xgpu__kernel_sig *sig, bool *oom);
void xgpu__kernel_sig_free(xgpu__kernel_sig *sig);

struct xgpu__program {
    xgpu_program *self;
    atomic_int refs; /* the handle's and one per kernel: a kernel keeps its program */
    xgpu__context *context;
    void *handle;
    char *source; /* the user's source, for kernel signatures */
    char *log;
    bool from_cache; /* loaded from the persistent kernel cache */
};

struct xgpu__kernel {
    xgpu_kernel *self;
    xgpu__program *program; /* holds a reference */
    void *handle;
    xgpu_kernel_props props;
    xgpu__kernel_sig sig;
    char name[128];
};

/* ---- buffer.c ---- */
/* XGPU_ERROR_INVALID_SIZE for 0, XGPU_ERROR_OUT_OF_RANGE when [offset,
 * offset + size) reaches past the buffer; `what` names the buffer. */
xgpu_status xgpu__buffer_range(const char *func, const char *what, const xgpu__buffer *buf,
                               size_t offset, size_t size);
/* A copy's two ranges, each within its buffer and not overlapping when the
 * buffers are one. */
xgpu_status xgpu__copy_ranges(const char *func, const xgpu__buffer *src, size_t src_offset,
                              const xgpu__buffer *dst, size_t dst_offset, size_t size);
/* The host memory a fill without a backend hook uses at most. */
#define XGPU__FILL_CHUNK ((size_t)64 * 1024)
/* Fills by writing one expanded chunk and doubling it with device copies:
 * host memory stays at XGPU__FILL_CHUNK whatever the size. */
xgpu_status xgpu__fill_by_copies(const xgpu_backend_ops *ops, void *queue, void *buffer,
                                 size_t offset, size_t size, const void *pattern,
                                 size_t pattern_size, void **event);

/* ---- program.c ---- */
/* The largest group the kernel takes: its own limit, or the device's. */
size_t xgpu__kernel_group_limit(const xgpu__kernel *kernel);

/* ---- event.c ---- */
/* Wraps a backend event into *event when both are non-NULL; releases the
 * backend event when the wrapper cannot be allocated. */
xgpu_status xgpu__event_wrap(xgpu__context *context, void *backend_event, xgpu_event **event);

#endif /* XGPU_CORE_INT_H */
