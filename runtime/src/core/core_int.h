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
/* Enters a new object; XGPU_ERROR_OUT_OF_HOST_MEMORY when the registry
 * cannot grow. */
xgpu_status xgpu__handle_add(void *object, uint32_t magic, const char *func);
/* Like xgpu__handle_check, and on success takes the handle out of the
 * registry in the same step, so that of two racing releases one wins. */
xgpu_status xgpu__handle_take(void *handle, uint32_t magic, const char *func, const char *what);
/* Returns from the calling function when a handle cannot be taken. */
#define XGPU__TAKE_OR_RETURN(h, magic, func, what)                                                 \
    do {                                                                                           \
        xgpu_status take_st_ = xgpu__handle_take((h), (magic), (func), (what));                    \
        if (take_st_ != XGPU_SUCCESS) {                                                            \
            return take_st_;                                                                       \
        }                                                                                          \
    } while (0)
/* Checks a context handle and counts one more live object in it, in one
 * step under the registry's lock: a concurrent xgpu_context_release then
 * either sees the object (BUSY) or the creator sees a released handle. */
xgpu_status xgpu__context_pin(xgpu_context *context, const char *func);
/* Undoes a pin: the object was not made, or is released. */
void xgpu__context_unpin(xgpu_context *context);
/* Takes a context out of the registry when nothing of it is alive (the
 * library's own cached objects aside), in the same step as the check;
 * XGPU_ERROR_BUSY (nothing changed, error not set) with *live otherwise. */
xgpu_status xgpu__context_take_if_idle(xgpu_context *context, const char *func, long *live);
/* Returns from the calling function when a context cannot be pinned. */
#define XGPU__PIN_OR_RETURN(context, func)                                                         \
    do {                                                                                           \
        xgpu_status pin_st_ = xgpu__context_pin((context), (func));                                \
        if (pin_st_ != XGPU_SUCCESS) {                                                             \
            return pin_st_;                                                                        \
        }                                                                                          \
    } while (0)
/* Takes an object out of the registry, if it is there (creation undone). */
void xgpu__handle_remove(void *handle);
/* Frees a released object's memory later (see handle.c). */
void xgpu__handle_retire(void *object);

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

struct xgpu_device {
    xgpu__backend *backend;
    uint32_t index; /* within the backend */
    uint32_t global_index;
    xgpu_device_info info;
};

typedef struct xgpu__registry {
    xgpu__backend *backends;
    uint32_t backend_count;
    xgpu_device *devices;
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

struct xgpu_context {
    xgpu_device *device;
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
    void (*ext_release)(xgpu_context *context, void *ext);
    atomic_long ext_objects; /* how many of `live` that state holds */
};

struct xgpu_queue {
    xgpu_context *context;
    void *handle;
    xgpu_buffer *scratch; /* xgpu__queue_scratch's */
    xgpu_buffer *counter; /* xgpu__queue_counter's */
};

struct xgpu_buffer {
    xgpu_context *context;
    void *handle;
    size_t size;
};

struct xgpu_event {
    xgpu_context *context;
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

struct xgpu_program {
    atomic_int refs; /* the handle's and one per kernel: a kernel keeps its program */
    xgpu_context *context;
    void *handle;
    char *source; /* the user's source, for kernel signatures */
    char *log;
    bool from_cache; /* loaded from the persistent kernel cache */
};

struct xgpu_kernel {
    xgpu_program *program; /* holds a reference */
    void *handle;
    xgpu_kernel_props props;
    xgpu__kernel_sig sig;
    char name[128];
};

/* ---- buffer.c ---- */
/* XGPU_ERROR_INVALID_SIZE for 0, XGPU_ERROR_OUT_OF_RANGE when [offset,
 * offset + size) reaches past the buffer; `what` names the buffer. */
xgpu_status xgpu__buffer_range(const char *func, const char *what, const xgpu_buffer *buf,
                               size_t offset, size_t size);
/* A copy's two ranges, each within its buffer and not overlapping when the
 * buffers are one. */
xgpu_status xgpu__copy_ranges(const char *func, const xgpu_buffer *src, size_t src_offset,
                              const xgpu_buffer *dst, size_t dst_offset, size_t size);
/* The host memory a fill without a backend hook uses at most. */
#define XGPU__FILL_CHUNK ((size_t)64 * 1024)
/* Fills by writing one expanded chunk and doubling it with device copies:
 * host memory stays at XGPU__FILL_CHUNK whatever the size. */
xgpu_status xgpu__fill_by_copies(const xgpu_backend_ops *ops, void *queue, void *buffer,
                                 size_t offset, size_t size, const void *pattern,
                                 size_t pattern_size, void **event);

/* ---- event.c ---- */
/* Wraps a backend event into *event when both are non-NULL; releases the
 * backend event when the wrapper cannot be allocated. */
xgpu_status xgpu__event_wrap(xgpu_context *context, void *backend_event, xgpu_event **event);

#endif /* XGPU_CORE_INT_H */
