/* Mixed-precision and strided-batched GEMM problems through xgpu_gemm and
 * their check: random nonzero inputs rounded to the input type, a
 * double-precision host reference on the rounded values (on tf32-rounded
 * ones when xgpu_gemm_choose says tf32), a tolerance from the precisions
 * and k, C poisoned with NaN where beta is 0, A and B poisoned where
 * alpha is 0, and every element outside C left as it was. */
#ifndef XGPU_TEST_GEMM_MIXED_H
#define XGPU_TEST_GEMM_MIXED_H

#include "harness.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct mcase {
    xgpu_dtype in, out; /* out 0: in */
    uint32_t flags;
    xgpu_layout layout;
    xgpu_transpose ta, tb;
    size_t m, n, k;
    double alpha, beta;
    size_t batch;                   /* 0: one GEMM */
    size_t pad, offset;             /* per leading dimension; before each matrix */
    size_t gap_a, gap_b, gap_c;     /* elements between one batch's matrix and the next */
    bool shared_a;                  /* stride_a = 0 */
    bool interleaved_c;             /* the batches' C side by side in one row (ld = batch * n) */
    const xgpu_gemm_params *params; /* NULL: the device's choice */
} mcase;

/* Runs the case and checks every element of C; fills *choice (may be
 * NULL) with what xgpu_gemm_choose said. */
void mcase_run(const mcase *c, xgpu_gemm_choice *choice);
/* The case's descriptor over buffers big enough for it (released by
 * mcase_release): for tests of what xgpu_gemm refuses. */
typedef struct mbuffers {
    xgpu_buffer *a, *b, *c;
} mbuffers;
xgpu_gemm_desc mcase_desc(const mcase *c, mbuffers *bufs);
void mcase_release(mbuffers *bufs);
/* The largest deviation of the last mcase_run from the reference on
 * unrounded f32 inputs, over the fp32 tolerance (> 1: tf32 rounding
 * showed). */
extern double mcase_f32_excess;

#endif
