/* runtime/src/lib: the kernel library (xgpu_gemm, xgpu_reduce,
 * xgpu_stream) over the shared kernels of kernels/. What tune/, the
 * compile-matrix test and the plugins' embed tools may call; this layer
 * sees tunedb.h, core.h and support.h. */
#ifndef XGPU_LIB_H
#define XGPU_LIB_H

#include "tunedb.h"
#include "xgpu.h"

#include <stdbool.h>
#include <stddef.h>

/* The parameters a library call of the context makes (xgpu__tune_choose
 * over the context's remembered choices): what xgpu_tune_lookup reports. */
xgpu_status xgpu__lib_choose(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                             xgpu__tune_class cls, xgpu__tune_choice *out);
/* XGPU_REDUCE_PARAMS (sum, minmax, argmax) or XGPU_STREAM_PARAMS
 * (stream): the tuning database's text of the kernel's parameters, used
 * instead of the database and the built-in values. *set says whether the
 * variable is set and not empty; a malformed value, or one the device
 * cannot run, is an error naming it. */
xgpu_status xgpu__lib_env_params(const char *func, xgpu_context *ctx, xgpu__tune_kernel_id id,
                                 xgpu_dtype dtype, xgpu__tune_values *v, bool *set);
/* The same without the XGPU_TUNE=auto tune a first call runs: what a
 * call would use now (xgpu_tune_lookup). */
xgpu_status xgpu__lib_peek(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                           xgpu__tune_class cls, xgpu__tune_choice *out);

/* Where a choice came from, in the words of xgpu_tune_choice.source:
 * "built-in default", "tuned (exact, user database)", ... */
void xgpu__lib_choice_source(const xgpu__tune_choice *c, char *out, size_t size);

/* xgpu_reduce and xgpu_stream with the given tuning values instead of the
 * database's (NULL: as the public calls); messages begin with `func`, the
 * public function the caller implements. */
xgpu_status xgpu__reduce_run(const char *func, xgpu_queue *queue, xgpu_reduce_op op,
                             xgpu_dtype dtype, xgpu_buffer *in, size_t offset, size_t n,
                             xgpu_buffer *out, size_t out_offset, const xgpu__tune_values *forced,
                             xgpu_event **event);
xgpu_status xgpu__stream_run(const char *func, xgpu_queue *queue, xgpu_stream_op op,
                             xgpu_dtype dtype, xgpu_buffer *a, xgpu_buffer *b, xgpu_buffer *c,
                             double scalar, size_t n, xgpu_buffer *out,
                             const xgpu__tune_values *forced, xgpu_event **event);

/* The build options reduce.xgpu needs after xgpu__reduce_options on this
 * device: " -DRED_TWO_PASS" when two_pass is set or the device lacks
 * device-scope release/acquire atomics, else what the single pass needs
 * ("-cl-std=CL2.0" or "CL3.0" on OpenCL, nothing on CUDA/HIP). */
const char *xgpu__reduce_pass_options(const xgpu_device_info *info, bool two_pass);

/* ---- variants.c ---- */
typedef struct xgpu__lib_variant {
    const char *name;   /* "gemm", "gemm_mma", "reduce", "stream" */
    const char *source; /* one of the embedded kernel sources */
    char options[256];
    /* Where it builds (the matrix-unit paths of the fragment GEMM): only
     * on this backend ("cuda", "hip"), NULL on every one; on CUDA from
     * this arch on (80: PTX for compute_80), 0 any; on HIP only these
     * archs (space-separated), NULL any. */
    const char *backend;
    int cuda_arch;
    const char *hip_archs;
} xgpu__lib_variant;
/* Whether `v` builds for the backend ("opencl", "cuda", "hip") and arch
 * ("sm_80", "gfx90a"; NULL: the backend's oldest). */
bool xgpu__lib_variant_builds_for(const xgpu__lib_variant *v, const char *backend,
                                  const char *arch);
/* The kernel builds the library routines make on a CPU or a GPU device
 * with the default parameters (the GPU ones with groups of 256), each
 * once. Writes at most `max`; returns how many there are, which callers
 * check against `max` (a list that outgrows it is an error, not a silent
 * cut). XGPU__LIB_VARIANTS_MAX is room for either list. */
#define XGPU__LIB_VARIANTS_MAX 128
size_t xgpu__lib_variants(bool cpu, xgpu__lib_variant *out, size_t max);

#endif /* XGPU_LIB_H */
