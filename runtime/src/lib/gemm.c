/* xgpu_gemm: argument checks, parameter choice per device, and the launch
 * of kernels/gemm.xgpu. Column-major calls become row-major ones: C^T =
 * op(B)^T op(A)^T reads the same memory with A and B swapped. */
#include "lib_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows, columns of a stored operand and whether it fits its buffer. */
static xgpu_status check_matrix(const char *func, const xgpu_queue *q, const char *name,
                                const xgpu_matrix *mat, size_t rows, size_t cols, size_t elem) {
    char what[64];
    snprintf(what, sizeof what, "matrix %s", name);
    if (mat->ld < cols || mat->ld == 0) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: %s is stored %zu x %zu, so its leading dimension must be at "
                          "least %zu, not %zu",
                          func, what, rows, cols, cols ? cols : 1, mat->ld);
    }
    /* The kernel indexes with 32 bits: ld and the span must fit, checked
     * before anything is multiplied (ld = 2^63 used to wrap the span). */
    if (mat->ld > UINT32_MAX) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "%s: %s: leading dimension %zu does not fit 32 bits: xgpu_gemm "
                          "indexes with 32 bits",
                          func, what, mat->ld);
    }
    if (rows > 1 && mat->ld > (UINT32_MAX - cols) / (rows - 1)) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "%s: %s: %zu rows with leading dimension %zu span more than 2^32 "
                          "elements: xgpu_gemm indexes with 32 bits",
                          func, what, rows, mat->ld);
    }
    size_t elems = (rows - 1) * mat->ld + cols;
    if (mat->offset > UINT32_MAX || elems > UINT32_MAX - mat->offset) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "%s: %s spans %zu elements from %zu: xgpu_gemm indexes with 32 bits",
                          func, what, elems, mat->offset);
    }
    return xgpu__lib_check_buffer(func, what, q, mat->buffer, mat->offset * elem, elems * elem);
}

/* A stored operand: `rows` rows of `cols` elements, `ld` apart. */
typedef struct stored {
    const xgpu_matrix *mat;
    size_t rows, cols;
} stored;

/* Whether the elements [s, e) meet one of y's rows. y's rows are disjoint
 * and ascending (ld >= cols), so only two can: the last one starting at or
 * before s, and the one after it. */
static bool meets_rows(size_t s, size_t e, const stored *y) {
    size_t o = y->mat->offset, ld = y->mat->ld, i = 0;
    if (s >= o) {
        i = (s - o) / ld;
        if (i >= y->rows) {
            i = y->rows - 1;
        }
        if (s < o + i * ld + y->cols) {
            return true;
        }
        i++;
    }
    return i < y->rows && o + i * ld < e;
}

/* Whether two operands share an element: the elements they touch, not
 * their spans, so A or B may sit in the gap between C's rows (ld > cols).
 * check_matrix has bounded every index by 2^32, so nothing here overflows;
 * the loop runs over the rows of the shorter operand, fewer steps than the
 * GEMM itself does. */
static bool overlap(stored x, stored y) {
    if (x.mat->buffer != y.mat->buffer) {
        return false;
    }
    size_t x_end = x.mat->offset + (x.rows - 1) * x.mat->ld + x.cols;
    size_t y_end = y.mat->offset + (y.rows - 1) * y.mat->ld + y.cols;
    if (x.mat->offset >= y_end || y.mat->offset >= x_end) {
        return false;
    }
    if (x.rows > y.rows) {
        stored t = x;
        x = y;
        y = t;
    }
    for (size_t i = 0; i < x.rows; i++) {
        size_t s = x.mat->offset + i * x.mat->ld;
        if (meets_rows(s, s + x.cols, &y)) {
            return true;
        }
    }
    return false;
}

/* The problem in canonical row-major form: M x N = op(A) M x K times
 * op(B) K x N (a column-major call swaps A and B), with the stored shapes
 * of A (ar x ac) and B (br x bc). */
typedef struct gemm_problem {
    size_t M, N, K;
    const xgpu_matrix *A, *B;
    bool ta, tb;
    size_t ar, ac, br, bc;
} gemm_problem;

static gemm_problem canonical(const xgpu_gemm_desc *d) {
    gemm_problem g;
    bool col = d->layout == XGPU_COL_MAJOR;
    g.M = col ? d->n : d->m;
    g.N = col ? d->m : d->n;
    g.K = d->k;
    g.A = col ? &d->b : &d->a;
    g.B = col ? &d->a : &d->b;
    g.ta = (col ? d->trans_b : d->trans_a) == XGPU_TRANS;
    g.tb = (col ? d->trans_a : d->trans_b) == XGPU_TRANS;
    g.ar = g.ta ? g.K : g.M;
    g.ac = g.ta ? g.M : g.K;
    g.br = g.tb ? g.N : g.K;
    g.bc = g.tb ? g.K : g.N;
    return g;
}

/* The descriptor's own fields: dtype, enums, 32-bit dimensions. */
static xgpu_status check_desc(const char *func, const xgpu_device_info *info,
                              const xgpu_gemm_desc *d) {
    if (d->dtype != XGPU_F32 && d->dtype != XGPU_F64 && d->dtype != XGPU_F16) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED, "%s: dtype %s: GEMM takes f32, f64 or f16", func,
                          xgpu_dtype_name(d->dtype));
    }
    xgpu_status st = xgpu__check_fp64(func, d->dtype, info);
    if (st != XGPU_SUCCESS) {
        return st;
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
    return XGPU_SUCCESS;
}

/* The operands against their buffers, and C against A and B. */
static xgpu_status check_operands(const char *func, const xgpu_queue *queue,
                                  const xgpu_gemm_desc *d, const gemm_problem *g) {
    bool col = d->layout == XGPU_COL_MAJOR;
    size_t elem = xgpu_dtype_size(d->dtype);
    xgpu_status st = XGPU_SUCCESS;
    if (g->K > 0) {
        st = check_matrix(func, queue, col ? "b" : "a", g->A, g->ar, g->ac, elem);
        if (st == XGPU_SUCCESS) {
            st = check_matrix(func, queue, col ? "a" : "b", g->B, g->br, g->bc, elem);
        }
    }
    if (st == XGPU_SUCCESS) {
        st = check_matrix(func, queue, "c", &d->c, g->M, g->N, elem);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    stored sc = {&d->c, g->M, g->N};
    if (g->K > 0 &&
        (overlap(sc, (stored){g->A, g->ar, g->ac}) || overlap(sc, (stored){g->B, g->br, g->bc}))) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: C overlaps A or B in the same buffer",
                          func);
    }
    return XGPU_SUCCESS;
}

/* m * n * k, saturating: what picks the shape class. */
static size_t gemm_work(const xgpu_gemm_desc *d) {
    size_t mn = d->n && d->m > SIZE_MAX / d->n ? SIZE_MAX : d->m * d->n;
    return d->k && mn > SIZE_MAX / d->k ? SIZE_MAX : mn * d->k;
}

/* The caller's parameters, XGPU_GEMM_PARAMS, the tuning database's or the
 * built-in ones; checked. */
static xgpu_status choose_params(const char *func, const xgpu_queue *queue, const xgpu_gemm_desc *d,
                                 xgpu_gemm_params *p) {
    const xgpu_device_info *info = xgpu__context_info(xgpu__queue_context(queue));
    if (d->params) {
        *p = *d->params;
        return xgpu__gemm_check_params(p, info, xgpu__gemm_local_elem(d->dtype), func);
    }
    bool from_env = false;
    xgpu_status st = xgpu__gemm_env_params(p, &from_env, func);
    if (st == XGPU_SUCCESS && !from_env) { /* the tuning database, else the built-in values */
        xgpu__tune_choice c;
        st = xgpu__lib_choose(xgpu__queue_context(queue), XGPU__TK_GEMM, d->dtype,
                              xgpu__tune_class_of(XGPU__TK_GEMM, gemm_work(d)), &c);
        if (st == XGPU_SUCCESS) {
            *p = xgpu__tune_to_gemm(&c.values);
        }
    }
    if (st == XGPU_SUCCESS) { /* the fallback for small devices may not fit either */
        st = xgpu__gemm_check_params(p, info, xgpu__gemm_local_elem(d->dtype),
                                     from_env ? "xgpu_gemm: XGPU_GEMM_PARAMS" : func);
    }
    return st;
}

/* Enqueues the kernel for a checked problem. */
static xgpu_status launch_gemm(xgpu_queue *queue, const xgpu_gemm_desc *d, const gemm_problem *g,
                               const xgpu_gemm_params *p, xgpu_event **event) {
    char options[256];
    xgpu__gemm_options(d->dtype, p, options, sizeof options);
    xgpu_kernel *kernel = NULL;
    xgpu_status st = xgpu__lib_kernel(xgpu__queue_context(queue), xgpu__kernel_gemm, options,
                                      "xgpu_gemm", &kernel);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    const xgpu_matrix *A = g->A, *B = g->B;
    size_t M = g->M, N = g->N, K = g->K;
    /* alpha == 0: C = beta * C, and A and B are not read (as reference
     * BLAS), so a NaN in them cannot reach C. The kernel runs with k = 0. */
    size_t KR = d->alpha == 0.0 ? 0 : K;
    /* Vector loads need the operand's rows (in the load direction) to start
     * on vector boundaries: offset, leading dimension and length. */
    uint32_t vw = xgpu__gemm_vector_width(d->dtype, p);
    bool vec_a =
        vw > 1 && KR > 0 && A->offset % vw == 0 && A->ld % vw == 0 && (g->ta ? M : K) % vw == 0;
    bool vec_b =
        vw > 1 && KR > 0 && B->offset % vw == 0 && B->ld % vw == 0 && (g->tb ? K : N) % vw == 0;
    bool f64 = d->dtype == XGPU_F64;
    xgpu_arg alpha = f64 ? xgpu_arg_f64(d->alpha) : xgpu_arg_f32((float)d->alpha);
    xgpu_arg beta = f64 ? xgpu_arg_f64(d->beta) : xgpu_arg_f32((float)d->beta);
    /* K == 0: A and B are not read; any buffer will do for the argument. */
    xgpu_buffer *abuf = KR ? A->buffer : d->c.buffer, *bbuf = KR ? B->buffer : d->c.buffer;
    xgpu_arg args[] = {xgpu_arg_u32((uint32_t)M),
                       xgpu_arg_u32((uint32_t)N),
                       xgpu_arg_u32((uint32_t)KR),
                       alpha,
                       xgpu_arg_buffer(abuf),
                       xgpu_arg_u32((uint32_t)(KR ? A->offset : 0)),
                       xgpu_arg_u32((uint32_t)(KR ? A->ld : 1)),
                       xgpu_arg_buffer(bbuf),
                       xgpu_arg_u32((uint32_t)(KR ? B->offset : 0)),
                       xgpu_arg_u32((uint32_t)(KR ? B->ld : 1)),
                       beta,
                       xgpu_arg_buffer(d->c.buffer),
                       xgpu_arg_u32((uint32_t)d->c.offset),
                       xgpu_arg_u32((uint32_t)d->c.ld),
                       xgpu_arg_u32(g->ta),
                       xgpu_arg_u32(g->tb),
                       xgpu_arg_u32(vec_a),
                       xgpu_arg_u32(vec_b)};
    xgpu_range range = {2,
                        {(N + p->tile_n - 1) / p->tile_n, (M + p->tile_m - 1) / p->tile_m, 1},
                        {p->tile_n / p->work_n, p->tile_m / p->work_m, 1}};
    return xgpu_launch(queue, kernel, &range, sizeof args / sizeof args[0], args, event);
}

xgpu_status xgpu_gemm(xgpu_queue *queue, const xgpu_gemm_desc *d, xgpu_event **event) {
    if (event) {
        *event = NULL;
    }
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, __func__, "queue");
    if (!d) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: desc is NULL", __func__);
    }
    xgpu_status st = check_desc(__func__, xgpu__context_info(xgpu__queue_context(queue)), d);
    if (st != XGPU_SUCCESS || d->m == 0 || d->n == 0) {
        return st; /* m or n == 0: nothing to compute, as in BLAS */
    }
    gemm_problem g = canonical(d);
    st = check_operands(__func__, queue, d, &g);
    xgpu_gemm_params p;
    if (st == XGPU_SUCCESS) {
        st = choose_params(__func__, queue, d, &p);
    }
    return st == XGPU_SUCCESS ? launch_gemm(queue, d, &g, &p, event) : st;
}
