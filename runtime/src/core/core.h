/* runtime/src/core: what the layers above the object model (tunedb/, lib/,
 * tune/) may call. The objects themselves stay opaque up there: their
 * structs, the registry, the loader and the backend hooks are core_int.h's,
 * which only core/ includes. Nothing here includes a header of a layer
 * above; internal symbols carry the xgpu__ prefix and are not exported. */
#ifndef XGPU_CORE_H
#define XGPU_CORE_H

#include "xgpu.h"
#include "xgpu_backend.h" /* XGPU_LOG_* levels */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- error.c: the calling thread's last error ---- */

/* Sets the calling thread's last error and returns `status`. `backend`
 * names the backend whose vendor call failed (NULL for the core itself);
 * native_code and native_name are the vendor's own (0 and NULL when none). */
xgpu_status xgpu__error(const char *backend, xgpu_status status, long long native_code,
                        const char *native_name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
xgpu_status xgpu__verror(const char *backend, xgpu_status status, long long native_code,
                         const char *native_name, const char *fmt, va_list ap);
/* The core's own failures, which carry no backend or vendor code: sets the
 * last error and returns `status`. Messages begin with the function's name,
 * passed as __func__ (or a `func` that holds it). */
xgpu_status xgpu__fail(xgpu_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* XGPU_ERROR_UNSUPPORTED when `dtype` is XGPU_F64 and the device has no
 * fp64, naming `func` and the device; XGPU_SUCCESS otherwise. */
xgpu_status xgpu__check_fp64(const char *func, xgpu_dtype dtype, const xgpu_device_info *info);
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

/* ---- log.c: XGPU_LOG ---- */
void xgpu__log(const char *who, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void xgpu__vlog(const char *who, int level, const char *fmt, va_list ap);
bool xgpu__log_enabled(int level);

/* ---- handle.c: checks of the handles an API call is given ---- */

/* Object types in the handle registry, checked on every API call to refuse
 * NULL, wrong-type, foreign and released handles with a clear error
 * instead of a crash. */
enum {
    XGPU__MAGIC_DEVICE = 0x58444556,  /* "XDEV" */
    XGPU__MAGIC_CONTEXT = 0x58435458, /* "XCTX" */
    XGPU__MAGIC_QUEUE = 0x58515545,   /* "XQUE" */
    XGPU__MAGIC_BUFFER = 0x58425546,  /* "XBUF" */
    XGPU__MAGIC_PROGRAM = 0x58505247, /* "XPRG" */
    XGPU__MAGIC_KERNEL = 0x584b524e,  /* "XKRN" */
    XGPU__MAGIC_EVENT = 0x58455654    /* "XEVT" */
};

/* SUCCESS when `handle` is a live object of type `magic`; otherwise
 * XGPU_ERROR_INVALID_HANDLE with "func: what is NULL", "... was already
 * released", ... A handle is a slot of the registry and a generation, not
 * an address: it is never dereferenced, and a released one stays refused
 * whatever is created after it. Lock-free. */
xgpu_status xgpu__handle_check(const void *handle, uint32_t magic, const char *func,
                               const char *what);
/* Returns from the calling function when a handle is invalid. */
#define XGPU__CHECK_OR_RETURN(h, magic, func, what)                                                \
    do {                                                                                           \
        xgpu_status check_st_ = xgpu__handle_check((h), (magic), (func), (what));                  \
        if (check_st_ != XGPU_SUCCESS) {                                                           \
            return check_st_;                                                                      \
        }                                                                                          \
    } while (0)

/* ---- accessors of live objects (checked handles only) ---- */
const xgpu_device_info *xgpu__device_info(const xgpu_device *device);
xgpu_context *xgpu__queue_context(const xgpu_queue *queue);
const xgpu_device_info *xgpu__context_info(const xgpu_context *context);
xgpu_context *xgpu__buffer_context(const xgpu_buffer *buffer);
size_t xgpu__buffer_size(const xgpu_buffer *buffer);
/* The backend's build identity for the context (compiler and driver
 * versions, what the kernel cache keys on); false, with the last error as
 * it was, when the backend has none or it fails. */
bool xgpu__context_build_identity(xgpu_context *context, char *out, size_t size);

/* ---- context.c: what a layer above keeps per context and per queue ---- */

/* The state the kernel library keeps in a context (lib/cache.c), opaque to
 * the core: made by `make` on the first call, under the context's lock, and
 * released by `release` when the context is, before the backend's context.
 * NULL when `make` returns NULL (out of memory). Thread-safe. */
void *xgpu__context_ext(xgpu_context *context, void *(*make)(void),
                        void (*release)(xgpu_context *context, void *ext));
/* Counts `delta` of the context's live objects as held by that state (its
 * cached programs and kernels): xgpu_context_release leaves them out of its
 * "still alive" check and the state's release frees them. */
void xgpu__context_ext_hold(xgpu_context *context, long delta);
/* The queue's scratch buffer, grown to at least `size` bytes (library
 * reductions keep their per-group partials there); released with the queue. */
xgpu_status xgpu__queue_scratch(xgpu_queue *queue, size_t size, xgpu_buffer **buffer);
/* The queue's 4-byte counter buffer, zero when made: xgpu_reduce's
 * groups-done counter, which the kernel leaves at zero between launches.
 * Released with the queue. */
xgpu_status xgpu__queue_counter(xgpu_queue *queue, xgpu_buffer **buffer);

/* ---- kcache.c: xgpu's cache folder (kernel cache, tuning database) ---- */
#define XGPU__KCACHE_PATH_MAX 4096
/* xgpu's cache folder: XGPU_CACHE_DIR, else $XDG_CACHE_HOME/xgpu, else
 * ~/.cache/xgpu, without trailing slashes; false with the reason when
 * none is set. Nothing is created or checked. */
bool xgpu__cache_dir(char *dir, size_t size, char *why, size_t why_size);
/* Creates each missing component of the absolute `path`, mode 0700. */
int xgpu__make_dirs(const char *path);

/* ---- the dialect prelude and the library's kernel sources (generated
 * from kernels/ at build time) ---- */
extern const char xgpu__prelude[];
extern const char xgpu__fragment[]; /* kernels/xgpu_fragment.h, composed after the prelude */
extern const char xgpu__kernel_gemm[];
extern const char xgpu__kernel_gemm_mma[];
extern const char xgpu__kernel_reduce[];
extern const char xgpu__kernel_stream[];

/* ---- program.c ---- */
/* Dialect define + prelude + fragment layer + "#line 1" + source; malloc'ed, NULL on OOM. */
char *xgpu__compose_source(xgpu_dialect dialect, const char *source);

#endif /* XGPU_CORE_H */
