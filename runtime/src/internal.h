/* Core-internal declarations shared by the runtime's source files.
 * Nothing here is exported; internal symbols carry the xgpu__ prefix. */
#ifndef XGPU_INTERNAL_H
#define XGPU_INTERNAL_H

#include "tune.h"
#include "xgpu.h"
#include "xgpu_backend.h"

#include <pthread.h>
#include <stdatomic.h>

/* Object types in the handle registry (handle.c), checked on every API
 * call to refuse NULL, wrong-type, foreign and released handles with a
 * clear error instead of a crash. */
enum {
    XGPU__MAGIC_DEVICE = 0x58444556,  /* "XDEV" */
    XGPU__MAGIC_CONTEXT = 0x58435458, /* "XCTX" */
    XGPU__MAGIC_QUEUE = 0x58515545,   /* "XQUE" */
    XGPU__MAGIC_BUFFER = 0x58425546,  /* "XBUF" */
    XGPU__MAGIC_PROGRAM = 0x58505247, /* "XPRG" */
    XGPU__MAGIC_KERNEL = 0x584b524e,  /* "XKRN" */
    XGPU__MAGIC_EVENT = 0x58455654    /* "XEVT" */
};

/* ---- error.c ---- */
xgpu_status xgpu__error(const char *backend, xgpu_status status, long long native_code,
                        const char *native_name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
xgpu_status xgpu__verror(const char *backend, xgpu_status status, long long native_code,
                         const char *native_name, const char *fmt, va_list ap);
/* ---- handle.c: the registry of live handles ---- */
/* Enters a new object; XGPU_ERROR_OUT_OF_HOST_MEMORY when the registry
 * cannot grow. */
xgpu_status xgpu__handle_add(void *object, uint32_t magic, const char *func);
/* SUCCESS when `handle` is a live object of type `magic`; otherwise
 * XGPU_ERROR_INVALID_HANDLE with "func: what is NULL", "... was already
 * released", ... The handle is never dereferenced. */
xgpu_status xgpu__handle_check(const void *handle, uint32_t magic, const char *func,
                               const char *what);
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
/* Returns from the calling function when a handle is invalid. */
#define XGPU__CHECK_OR_RETURN(h, magic, func, what)                                                \
    do {                                                                                           \
        xgpu_status check_st_ = xgpu__handle_check((h), (magic), (func), (what));                  \
        if (check_st_ != XGPU_SUCCESS) {                                                           \
            return check_st_;                                                                      \
        }                                                                                          \
    } while (0)

void xgpu__set_build_log(const char *log);
/* Resets xgpu_last_error() to XGPU_SUCCESS on the calling thread. */
void xgpu__clear_error(void);
/* A copy of the calling thread's last error (malloc'ed; NULL when out of
 * memory), to put back with xgpu__error_restore after internal steps whose
 * failures are not the caller's: xgpu_last_error() keeps the last failure
 * until another call fails. */
struct xgpu__error_state *xgpu__error_save(void);
/* Puts `saved` back as the last error (clears it when `saved` is NULL) and
 * frees it. */
void xgpu__error_restore(struct xgpu__error_state *saved);
/* Frees `saved` and keeps the last error as it is now (may be NULL). */
void xgpu__error_discard(struct xgpu__error_state *saved);
/* Formats a byte count as "1.50 GiB (1610612736 bytes)". */
void xgpu__format_bytes(char *out, size_t out_size, unsigned long long bytes);

/* ---- log.c ---- */
void xgpu__log(const char *who, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void xgpu__vlog(const char *who, int level, const char *fmt, va_list ap);
bool xgpu__log_enabled(int level);
/* XGPU_LOG's value as an XGPU_LOG_* level; -1 (silent) for NULL or any
 * other text. Pure, for the fuzzers and tests. */
int xgpu__log_level_parse(const char *value);

/* ---- library_log.c ---- */
void xgpu__library_record(const char *backend, const char *name, const char *path, bool loaded,
                          const char *detail);
uint32_t xgpu__library_count(const char *backend);
bool xgpu__library_get(const char *backend, uint32_t index, xgpu_library_info *out);

/* ---- env_parse.c: pure parsers of XGPU_* values ---- */
#define XGPU__MAX_LISTED_BACKENDS 16
typedef struct xgpu__backend_list {
    size_t count;
    char names[XGPU__MAX_LISTED_BACKENDS][32];
} xgpu__backend_list;
/* XGPU_BACKENDS: names of [a-z0-9_-], 1..31 characters, separated by
 * commas or spaces; at least one. False with a reason in err otherwise. */
bool xgpu__backend_list_parse(const char *list, xgpu__backend_list *out, char *err,
                              size_t err_size);
/* Whether `name` is in the list; a NULL list holds every name. */
bool xgpu__backend_list_has(const xgpu__backend_list *list, const char *name);
/* XGPU_GEMM_PARAMS: "tile_m,tile_n,tile_k,work_m,work_n[,vector_width]",
 * each a decimal number in 1..XGPU__GEMM_PARAM_MAX, nothing else. */
#define XGPU__GEMM_PARAM_MAX 1024
bool xgpu__gemm_params_parse(const char *text, xgpu_gemm_params *out, char *err, size_t err_size);
/* A whole decimal number in lo..hi, nothing around it. */
bool xgpu__uint_parse(const char *text, uint32_t lo, uint32_t hi, uint32_t *out, char *err,
                      size_t err_size);

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

/* ---- selector.c ---- */
/* A parsed device selector: a comma-separated list of terms, the grammar
 * xgpu.h documents above xgpu_device_match. */
typedef enum xgpu__term_kind {
    XGPU__TERM_INDEX,   /* "2": global device index */
    XGPU__TERM_BACKEND, /* "opencl": every device of that backend */
    XGPU__TERM_PATH,    /* "opencl:1": index within the backend */
    XGPU__TERM_PCI,     /* "0000:01:00.0" or "01:00.0" */
    XGPU__TERM_UUID     /* "GPU-6f1e...", dashes optional */
} xgpu__term_kind;

/* A PCI address; parsed from selectors and from xgpu_device_info's
 * pci_bus_id alike, so "01:00.0" and "0000:01:00.0" are one device. */
typedef struct xgpu__pci_address {
    uint32_t domain;   /* 0..0xffff */
    uint32_t bus;      /* 0..0xff */
    uint32_t device;   /* 0..0x1f */
    uint32_t function; /* 0..7 */
} xgpu__pci_address;

/* Fields a kind does not use are zero, so two terms compare with memcmp. */
typedef struct xgpu__selector_term {
    xgpu__term_kind kind;
    uint32_t index;        /* INDEX: global; PATH: within `backend` */
    char backend[32];      /* BACKEND, PATH: the name, as in xgpu__backend */
    xgpu__pci_address pci; /* PCI */
    uint8_t uuid[16];      /* UUID */
} xgpu__selector_term;

#define XGPU__SELECTOR_MAX_TERMS 64

typedef struct xgpu__selector {
    uint32_t count; /* 1..XGPU__SELECTOR_MAX_TERMS after a successful parse */
    xgpu__selector_term terms[XGPU__SELECTOR_MAX_TERMS];
} xgpu__selector;

/* Parses `s` (may be NULL) without touching the registry. On failure
 * returns false with *out zeroed and a message naming the bad term,
 * without a function name, in err[err_size]. Pure: no allocation, no
 * global state but errno. */
bool xgpu__selector_parse(const char *s, xgpu__selector *out, char *err, size_t err_size);

/* Writes a term as the parser reads it back: "2", "opencl", "opencl:1",
 * "0000:01:00.0", "GPU-" and the dashed lower-case UUID gpuinfo prints. */
void xgpu__selector_term_format(const xgpu__selector_term *t, char *out, size_t size);

/* Parses exactly `n` bytes of `s` as a PCI bus id ("dddd:bb:dd.f", with a
 * domain of 4 or 8 hex digits, or "bb:dd.f" for domain 0). */
bool xgpu__pci_address_parse(const char *s, size_t n, xgpu__pci_address *out);

/* ---- objects ---- */
typedef struct xgpu__host_block {
    struct xgpu__host_block *next;
    void *ptr;
    void *handle;
} xgpu__host_block;

struct xgpu__lib_entry;

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
    /* Library programs built on first use (lib_cache.c). */
    pthread_mutex_t lib_lock;
    struct xgpu__lib_entry *lib_cache;
    atomic_long lib_objects; /* how many of `live` the cache holds */
    /* The parameters library calls chose (tune_lookup.c), under lib_lock. */
    xgpu__tune_memo tune_memo[XGPU__TUNE_MEMO_MAX];
    size_t tune_memo_count;
};

struct xgpu_queue {
    xgpu_context *context;
    void *handle;
    xgpu_buffer *scratch; /* partial results of library reductions */
    xgpu_buffer *counter; /* xgpu_reduce's groups-done counter, 0 between launches */
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

/* Build options of the library kernels, one function per source, shared
 * by the routines and the compile-matrix test (which builds every variant
 * the library can choose). `cpu`: for a CPU device. */
/* The GEMM parameter sets xgpu_gemm can choose for a device class. */
size_t xgpu__gemm_param_sets(bool cpu, xgpu_dtype dtype, xgpu_gemm_params *out, size_t max);
void xgpu__gemm_options(xgpu_dtype dtype, const xgpu_gemm_params *p, char *out, size_t size);
/* Whether the kernel can run with `p` on the device (elem: bytes per
 * element in local memory); the error names `who`. */
xgpu_status xgpu__gemm_check_params(const xgpu_gemm_params *p, const xgpu_device_info *info,
                                    size_t elem, const char *who);
/* The built-in parameters for a device class, or small ones when those do
 * not fit the device. */
void xgpu__gemm_builtin(const xgpu_device_info *info, xgpu_dtype dtype, xgpu_gemm_params *params);
/* Loads in flight per work-item in the GPU reduction (XGPU_REDUCE_UNROLL
 * overrides it). */
#define XGPU__REDUCE_UNROLL_GPU 4
/* v: the reduction's tuning values (group, gpcu, unroll, vec, chunked). */
void xgpu__reduce_options(xgpu_reduce_op op, xgpu_dtype dtype, const xgpu__tune_values *v,
                          char *out, size_t size);
xgpu__tune_kernel_id xgpu__reduce_tune_id(xgpu_reduce_op op);
/* v: the stream kernels' tuning values (group, gpcu, chunked). */
void xgpu__stream_options(xgpu_dtype dtype, const xgpu__tune_values *v, char *out, size_t size);
/* xgpu_reduce and xgpu_stream with the given tuning values instead of the
 * database's (NULL: as the public calls). */
xgpu_status xgpu__reduce_run(xgpu_queue *queue, xgpu_reduce_op op, xgpu_dtype dtype,
                             xgpu_buffer *in, size_t offset, size_t n, xgpu_buffer *out,
                             size_t out_offset, const xgpu__tune_values *forced,
                             xgpu_event **event);
xgpu_status xgpu__stream_run(xgpu_queue *queue, xgpu_stream_op op, xgpu_dtype dtype, xgpu_buffer *a,
                             xgpu_buffer *b, xgpu_buffer *c, double scalar, size_t n,
                             xgpu_buffer *out, const xgpu__tune_values *forced, xgpu_event **event);

/* ---- lib_variants.c ---- */
typedef struct xgpu__lib_variant {
    const char *name;   /* "gemm", "reduce", "stream" */
    const char *source; /* one of the embedded kernel sources */
    char options[256];
} xgpu__lib_variant;
/* The kernel builds the library routines make on a CPU or a GPU device
 * with the default parameters (the GPU ones with groups of 256), each
 * once. Writes at most `max`; returns how many there are. */
size_t xgpu__lib_variants(bool cpu, xgpu__lib_variant *out, size_t max);

#endif /* XGPU_INTERNAL_H */
