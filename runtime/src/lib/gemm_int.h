/* xgpu_gemm's private steps, shared by gemm.c (the calls and launches),
 * gemm_check.c (the descriptor and the operands against their buffers),
 * gemm_batch.c (which elements the batches share) and gemm_route.c (the
 * kernel path and its parameters). */
#ifndef XGPU_LIB_GEMM_INT_H
#define XGPU_LIB_GEMM_INT_H

#include "lib_int.h"

#include <stdbool.h>
#include <stddef.h>

/* The problem in canonical row-major form: M x N = op(A) M x K times
 * op(B) K x N (a column-major call swaps A and B, and their strides),
 * with the stored shapes of A (ar x ac) and B (br x bc); `batch` GEMMs,
 * the i-th at offset + i * stride of each matrix. */
typedef struct xgpu__gemm_problem {
    size_t M, N, K;
    const xgpu_matrix *A, *B, *C;
    bool ta, tb;
    size_t ar, ac, br, bc;
    size_t batch; /* at least 1 */
    size_t sa, sb, sc;
    const char *a_name, *b_name; /* the caller's names of A and B: "a", "b" */
} xgpu__gemm_problem;

/* A stored operand of one batch: `rows` rows of `cols` elements, `ld`
 * apart, from `offset`. */
typedef struct xgpu__gemm_stored {
    size_t offset, ld, rows, cols;
} xgpu__gemm_stored;

/* What runs: the kernel, its types and parameters. */
typedef struct xgpu__gemm_plan {
    xgpu_dtype in, out;
    bool fragments;      /* kernels/gemm_mma.xgpu; else kernels/gemm.xgpu */
    bool tf32;           /* f32 inputs multiplied as tf32 (fragments only) */
    const char *path;    /* "simt", "fragments", "mma.sync", "mfma", "fragments-mfma" */
    const char *compute; /* "f32", "f64", "tf32", "f16", "bf16" */
    xgpu_gemm_params params;
    char source[80];
} xgpu__gemm_plan;

/* ---- gemm_check.c ---- */

/* The descriptor's own fields: types and their pair, flags, enums,
 * 32-bit dimensions. */
xgpu_status xgpu__gemm_check_desc(const char *func, const xgpu_device_info *info,
                                  const xgpu_gemm_desc *d);
xgpu__gemm_problem xgpu__gemm_canonical(const xgpu_gemm_desc *d);
/* Every batch's operands against their buffers and 32-bit indexing, and
 * which elements the batches' C share with each other and with A and B. */
xgpu_status xgpu__gemm_check_operands(const char *func, const xgpu_queue *queue,
                                      const xgpu_gemm_desc *d, const xgpu__gemm_problem *g);

/* ---- gemm_batch.c ---- */

/* Whether two batches of C, `delta` strides apart, share an element. */
bool xgpu__gemm_c_meets_itself(const xgpu__gemm_stored *c, size_t stride, size_t delta);
/* The first pair of batches whose C share an element; false when none. */
bool xgpu__gemm_c_overlap(const xgpu__gemm_stored *c, size_t stride, size_t batch, size_t *i,
                          size_t *j);
/* The first batch i of C and batch j of X (A or B) that share an element
 * of one buffer. Exact while the pairs whose spans meet are few enough to
 * walk (*exact stays true); beyond that, conservative: any pair whose
 * spans meet counts (*exact false). */
bool xgpu__gemm_cross_overlap(const xgpu__gemm_stored *c, size_t sc, const xgpu__gemm_stored *x,
                              size_t sx, size_t batch, size_t *i, size_t *j, bool *exact);

/* ---- gemm_route.c ---- */

/* The kernel and its parameters for a checked descriptor: the path
 * (XGPU_GEMM_PATH, the device's matrix units), then desc->params,
 * XGPU_GEMM_PARAMS, the tuning database or the built-in values. */
xgpu_status xgpu__gemm_plan_make(const char *func, xgpu_queue *queue, const xgpu_gemm_desc *d,
                                 xgpu__gemm_plan *plan);

#endif /* XGPU_LIB_GEMM_INT_H */
