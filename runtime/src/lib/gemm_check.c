/* xgpu_gemm's argument checks: the descriptor's types, flags and enums,
 * every batch's operands against their buffers and 32-bit indexing, and
 * (through gemm_batch.c) the elements C shares with itself, A and B. */
#include "gemm_int.h"

#include <stdio.h>
#include <string.h>

/* The pairs of A's and B's type and C's: fp32 and fp64 keep their type;
 * the 16-bit types accumulate in fp32 and write their own type or fp32. */
static bool pair_supported(xgpu_dtype in, xgpu_dtype out) {
    switch (in) {
    case XGPU_F32:
    case XGPU_F64:
        return out == in;
    case XGPU_F16:
    case XGPU_BF16:
        return out == in || out == XGPU_F32;
    default:
        return false;
    }
}

xgpu_status xgpu__gemm_check_desc(const char *func, const xgpu_device_info *info,
                                  const xgpu_gemm_desc *d) {
    xgpu_dtype out = d->c_dtype ? d->c_dtype : d->dtype;
    if (!pair_supported(d->dtype, out)) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: dtype %s with c_dtype %s is not supported on %s (%s): GEMM takes "
                          "f32 -> f32, f64 -> f64, f16 -> f16 or f32, bf16 -> bf16 or f32",
                          func, xgpu_dtype_name(d->dtype), xgpu_dtype_name(out), info->name,
                          info->backend);
    }
    xgpu_status st = xgpu__check_fp64(func, d->dtype, info);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (d->flags & ~XGPU_GEMM_ALLOW_TF32) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: flags 0x%x has unknown bits 0x%x (XGPU_GEMM_ALLOW_TF32 is the only "
                          "flag)",
                          func, d->flags, d->flags & ~XGPU_GEMM_ALLOW_TF32);
    }
    if ((d->flags & XGPU_GEMM_ALLOW_TF32) && d->dtype != XGPU_F32) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: XGPU_GEMM_ALLOW_TF32 applies to f32 GEMMs, not %s", func,
                          xgpu_dtype_name(d->dtype));
    }
    if ((d->layout != XGPU_ROW_MAJOR && d->layout != XGPU_COL_MAJOR) ||
        (d->trans_a != XGPU_NO_TRANS && d->trans_a != XGPU_TRANS) ||
        (d->trans_b != XGPU_NO_TRANS && d->trans_b != XGPU_TRANS)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: layout or transpose is not one of the enum's values", func);
    }
    if (d->m > UINT32_MAX || d->n > UINT32_MAX || d->k > UINT32_MAX) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "%s: %zu x %zu x %zu: dimensions must fit 32 bits", func, d->m, d->n,
                          d->k);
    }
    if (d->batch > UINT32_MAX) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE, "%s: batch %zu does not fit 32 bits", func,
                          d->batch);
    }
    return XGPU_SUCCESS;
}

xgpu__gemm_problem xgpu__gemm_canonical(const xgpu_gemm_desc *d) {
    xgpu__gemm_problem g;
    bool col = d->layout == XGPU_COL_MAJOR;
    g.M = col ? d->n : d->m;
    g.N = col ? d->m : d->n;
    g.K = d->k;
    g.A = col ? &d->b : &d->a;
    g.B = col ? &d->a : &d->b;
    g.C = &d->c;
    g.ta = (col ? d->trans_b : d->trans_a) == XGPU_TRANS;
    g.tb = (col ? d->trans_a : d->trans_b) == XGPU_TRANS;
    g.ar = g.ta ? g.K : g.M;
    g.ac = g.ta ? g.M : g.K;
    g.br = g.tb ? g.N : g.K;
    g.bc = g.tb ? g.K : g.N;
    g.batch = d->batch > 1 ? d->batch : 1;
    g.sa = g.batch > 1 ? (col ? d->stride_b : d->stride_a) : 0;
    g.sb = g.batch > 1 ? (col ? d->stride_a : d->stride_b) : 0;
    g.sc = g.batch > 1 ? d->stride_c : 0;
    g.a_name = col ? "b" : "a";
    g.b_name = col ? "a" : "b";
    return g;
}

/* One operand of every batch: its rows, the last batch's last element
 * within 32 bits and size_t, and the last batch within its buffer (the
 * batches lie at ascending offsets, so the last reaches farthest). */
static xgpu_status check_matrix(const char *func, const xgpu_queue *q, const char *name,
                                const xgpu_matrix *mat, size_t rows, size_t cols, size_t elem,
                                size_t batch, size_t stride) {
    char what[64];
    if (batch > 1) {
        snprintf(what, sizeof what, "matrix %s of batch %zu", name, batch - 1);
    } else {
        snprintf(what, sizeof what, "matrix %s", name);
    }
    if (mat->ld < cols || mat->ld == 0) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: matrix %s is stored %zu x %zu, so its leading dimension must be at "
                          "least %zu, not %zu",
                          func, name, rows, cols, cols ? cols : 1, mat->ld);
    }
    /* The kernel indexes with 32 bits: ld and the span must fit, checked
     * before anything is multiplied (ld = 2^63 used to wrap the span). */
    if (mat->ld > UINT32_MAX) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "%s: matrix %s: leading dimension %zu does not fit 32 bits: xgpu_gemm "
                          "indexes with 32 bits",
                          func, name, mat->ld);
    }
    if (rows > 1 && mat->ld > (UINT32_MAX - cols) / (rows - 1)) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "%s: matrix %s: %zu rows with leading dimension %zu span more than 2^32 "
                          "elements: xgpu_gemm indexes with 32 bits",
                          func, name, rows, mat->ld);
    }
    size_t elems = (rows - 1) * mat->ld + cols;
    if (batch > 1 && stride > (SIZE_MAX - mat->offset) / (batch - 1)) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "%s: %s: offset %zu + %zu * stride %zu overflows size_t", func, what,
                          mat->offset, batch - 1, stride);
    }
    size_t first = mat->offset + (batch - 1) * stride;
    if (first > UINT32_MAX || elems > UINT32_MAX - first) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "%s: %s spans %zu elements from %zu: xgpu_gemm indexes with 32 bits",
                          func, what, elems, first);
    }
    return xgpu__lib_check_buffer(func, what, q, mat->buffer, first * elem, elems * elem);
}

/* An operand of batch 0 in bytes, so that operands of different element
 * types in one buffer compare. */
static xgpu__gemm_stored stored_bytes(const xgpu_matrix *m, size_t rows, size_t cols, size_t elem) {
    return (xgpu__gemm_stored){m->offset * elem, m->ld * elem, rows, cols * elem};
}

/* C against A or B of every batch. */
static xgpu_status check_cross(const char *func, const xgpu__gemm_problem *g,
                               const xgpu__gemm_stored *c, size_t sc, const xgpu_matrix *x,
                               const char *name, xgpu__gemm_stored sx_rows, size_t sx) {
    if (x->buffer != g->C->buffer) {
        return XGPU_SUCCESS;
    }
    size_t i = 0, j = 0;
    bool exact = true;
    if (!xgpu__gemm_cross_overlap(c, sc, &sx_rows, sx, g->batch, &i, &j, &exact)) {
        return XGPU_SUCCESS;
    }
    if (g->batch == 1) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: C overlaps A or B in the same buffer (matrix %s)", func, name);
    }
    return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                      "%s: C of batch %zu %s matrix %s of batch %zu in the same buffer%s", func, i,
                      exact ? "overlaps" : "may overlap", name, j,
                      exact ? ""
                            : " (too many batches interleave to check element by element; "
                              "their spans meet)");
}

xgpu_status xgpu__gemm_check_operands(const char *func, const xgpu_queue *queue,
                                      const xgpu_gemm_desc *d, const xgpu__gemm_problem *g) {
    size_t in = xgpu_dtype_size(d->dtype);
    size_t out = xgpu_dtype_size(d->c_dtype ? d->c_dtype : d->dtype);
    xgpu_status st = XGPU_SUCCESS;
    if (g->K > 0) {
        st = check_matrix(func, queue, g->a_name, g->A, g->ar, g->ac, in, g->batch, g->sa);
        if (st == XGPU_SUCCESS) {
            st = check_matrix(func, queue, g->b_name, g->B, g->br, g->bc, in, g->batch, g->sb);
        }
    }
    if (st == XGPU_SUCCESS) {
        st = check_matrix(func, queue, "c", g->C, g->M, g->N, out, g->batch, g->sc);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu__gemm_stored c = stored_bytes(g->C, g->M, g->N, out);
    size_t i = 0, j = 0;
    if (g->batch > 1 && xgpu__gemm_c_overlap(&c, g->sc * out, g->batch, &i, &j)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: C of batch %zu and C of batch %zu share elements (stride_c %zu, "
                          "ld %zu, C %zu x %zu as stored): each batch needs a C of its own",
                          func, i, j, d->stride_c, g->C->ld, g->M, g->N);
    }
    if (g->K == 0) {
        return XGPU_SUCCESS; /* A and B are not read */
    }
    st = check_cross(func, g, &c, g->sc * out, g->A, g->a_name,
                     stored_bytes(g->A, g->ar, g->ac, in), g->sa * in);
    if (st == XGPU_SUCCESS) {
        st = check_cross(func, g, &c, g->sc * out, g->B, g->b_name,
                         stored_bytes(g->B, g->br, g->bc, in), g->sb * in);
    }
    return st;
}
