/* Core-internal declarations shared by the runtime's source files.
 * Nothing here is exported; internal symbols carry the xgpu__ prefix. */
#ifndef XGPU_INTERNAL_H
#define XGPU_INTERNAL_H

#include "xgpu.h"
#include "xgpu_backend.h"

#include <pthread.h>
#include <stdatomic.h>

/* Object type tags, checked on every API call to catch NULL, wrong-type and
 * (best effort) released handles with a clear error instead of a crash. */
enum {
    XGPU__MAGIC_DEVICE = 0x58444556,  /* "XDEV" */
    XGPU__MAGIC_CONTEXT = 0x58435458, /* "XCTX" */
    XGPU__MAGIC_QUEUE = 0x58515545,   /* "XQUE" */
    XGPU__MAGIC_BUFFER = 0x58425546,  /* "XBUF" */
    XGPU__MAGIC_PROGRAM = 0x58505247, /* "XPRG" */
    XGPU__MAGIC_KERNEL = 0x584b524e,  /* "XKRN" */
    XGPU__MAGIC_EVENT = 0x58455654,   /* "XEVT" */
    XGPU__MAGIC_DEAD = 0x44454144     /* "DEAD": released */
};

/* ---- error.c ---- */
xgpu_status xgpu__error(const char *backend, xgpu_status status, long long native_code,
                        const char *native_name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
xgpu_status xgpu__verror(const char *backend, xgpu_status status, long long native_code,
                         const char *native_name, const char *fmt, va_list ap);
/* Error for a bad handle: "func: what is NULL" or "... not a valid ...". */
xgpu_status xgpu__check_handle(const void *handle, uint32_t magic, const char *func,
                               const char *what);
/* Returns from the calling function when a handle is invalid. */
#define XGPU__CHECK(h, magic, func, what)                                                          \
    do {                                                                                           \
        xgpu_status check_st_ = xgpu__check_handle((h), (magic), (func), (what));                  \
        if (check_st_ != XGPU_SUCCESS) {                                                           \
            return check_st_;                                                                      \
        }                                                                                          \
    } while (0)

void xgpu__set_build_log(const char *log);
/* Resets xgpu_last_error() to XGPU_SUCCESS on the calling thread. */
void xgpu__clear_error(void);
/* Formats a byte count as "1.50 GiB (1610612736 bytes)". */
void xgpu__format_bytes(char *out, size_t out_size, unsigned long long bytes);

/* ---- log.c ---- */
void xgpu__log(const char *who, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void xgpu__vlog(const char *who, int level, const char *fmt, va_list ap);
bool xgpu__log_enabled(int level);

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
    uint32_t magic;
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

/* Finds, negotiates and probes plugins. Never fails: problems become
 * unavailable backends with reasons. Exposed for the loader tests. */
void xgpu__registry_load(const xgpu__loader_config *config, xgpu__registry *registry);
void xgpu__registry_free(xgpu__registry *registry);
/* The process-wide registry, loaded once from the environment. */
const xgpu__registry *xgpu__registry_get(void);
/* Fills NULL optional hooks of `ops` with core defaults. */
void xgpu__ops_fill_defaults(xgpu_backend_ops *ops);
extern const xgpu_core_services xgpu__services;

/* ---- objects ---- */
typedef struct xgpu__host_block {
    struct xgpu__host_block *next;
    void *ptr;
    void *handle;
} xgpu__host_block;

struct xgpu__lib_entry;

struct xgpu_context {
    uint32_t magic;
    xgpu_device *device;
    const xgpu_backend_ops *ops;
    void *handle;
    atomic_long live; /* objects of this context still alive, the library's included */
    pthread_mutex_t host_lock;
    xgpu__host_block *host_blocks;
    /* Library programs built on first use (lib_cache.c). */
    pthread_mutex_t lib_lock;
    struct xgpu__lib_entry *lib_cache;
    long lib_objects; /* how many of `live` the cache holds */
};

struct xgpu_queue {
    uint32_t magic;
    xgpu_context *context;
    void *handle;
    xgpu_buffer *scratch; /* partial results of library reductions */
    xgpu_buffer *counter; /* xgpu_reduce's groups-done counter, 0 between launches */
};

struct xgpu_buffer {
    uint32_t magic;
    xgpu_context *context;
    void *handle;
    size_t size;
};

struct xgpu_event {
    uint32_t magic;
    xgpu_context *context;
    void *handle;
};

/* A kernel's parameter list as read from its dialect source. */
#define XGPU__MAX_KERNEL_PARAMS 64
typedef struct xgpu__kernel_param {
    xgpu_arg_kind kind;
    size_t scalar_size; /* 0 when the type's size is not known */
    char name[64];
    char type[64];
} xgpu__kernel_param;

typedef struct xgpu__kernel_sig {
    bool known;
    uint32_t count;
    xgpu__kernel_param params[XGPU__MAX_KERNEL_PARAMS];
} xgpu__kernel_sig;

/* ---- kernel_sig.c ---- */
/* Reads kernel `name`'s parameters from dialect `source`. Returns false
 * (sig->known = false) when no such XGPU_KERNEL definition is found. */
bool xgpu__kernel_sig_parse(const char *source, const char *name, xgpu__kernel_sig *sig);

struct xgpu_program {
    uint32_t magic;
    xgpu_context *context;
    void *handle;
    char *source; /* the user's source, for kernel signatures */
    char *log;
};

struct xgpu_kernel {
    uint32_t magic;
    xgpu_program *program;
    void *handle;
    xgpu_kernel_props props;
    xgpu__kernel_sig sig;
    char name[128];
};

/* ---- event.c ---- */
/* Wraps a backend event into *event when both are non-NULL; releases the
 * backend event when the wrapper cannot be allocated. */
xgpu_status xgpu__event_wrap(xgpu_context *context, void *backend_event, xgpu_event **event);

/* ---- program.c ---- */
/* Dialect define + prelude + "#line 1" + source; malloc'ed, NULL on OOM. */
char *xgpu__compose_source(xgpu_dialect dialect, const char *source);

/* ---- prelude and library kernels (generated from kernels/) ---- */
extern const char xgpu__prelude[];
extern const char xgpu__kernel_gemm[];
extern const char xgpu__kernel_reduce[];
extern const char xgpu__kernel_stream[];

/* ---- lib_cache.c ---- */
/* The kernel `name` of library source `source` built with `options` on
 * the context, built on first use and cached. The cache owns it. */
xgpu_status xgpu__lib_kernel(xgpu_context *ctx, const char *source, const char *options,
                             const char *name, xgpu_kernel **kernel);
/* Releases every cached program; the context is being released. */
void xgpu__lib_release_all(xgpu_context *ctx);
/* The queue's scratch buffer, grown to at least `size` bytes. */
xgpu_status xgpu__queue_scratch(xgpu_queue *queue, size_t size, xgpu_buffer **buffer);
/* Checks a library call's buffer: handle, context, and that `bytes` from
 * `offset` fit. */
xgpu_status xgpu__lib_check_buffer(const char *func, const char *what, const xgpu_queue *queue,
                                   const xgpu_buffer *buffer, size_t offset, size_t bytes);
/* Work-items that keep the device busy for a grid-stride loop. */
size_t xgpu__lib_groups(const xgpu_device_info *info, size_t group, size_t n);

/* Build options of the library kernels, one function per source, shared
 * by the routines and the compile-matrix test (which builds every variant
 * the library can choose). `cpu`: for a CPU device. */
/* The GEMM parameter sets xgpu_gemm can choose for a device class. */
size_t xgpu__gemm_param_sets(bool cpu, xgpu_dtype dtype, xgpu_gemm_params *out, size_t max);
void xgpu__gemm_options(xgpu_dtype dtype, const xgpu_gemm_params *p, char *out, size_t size);
void xgpu__reduce_options(xgpu_reduce_op op, xgpu_dtype dtype, bool cpu, size_t group, char *out,
                          size_t size);
void xgpu__stream_options(xgpu_dtype dtype, bool cpu, size_t group, char *out, size_t size);

#endif /* XGPU_INTERNAL_H */
