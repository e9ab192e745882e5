/* xgpu_gemm on every device: both layouts, both transposes of each
 * operand, the listed sizes (1, 7, 33, 1000, 1023, 1025, tall-skinny
 * 8192x64x8192), leading dimensions larger than the rows, offsets, beta 0
 * over a NaN-poisoned C; f32, f64 and f16 storage. Results are compared
 * with a double-precision host reference: every element for small
 * problems, and for large ones the last row and column (edge tiles) plus
 * random samples. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameters for run_problem, NULL for the device's default. */
static const xgpu_gemm_params *test_params;

typedef struct problem {
    xgpu_dtype dtype;
    xgpu_layout layout;
    xgpu_transpose ta, tb;
    size_t m, n, k;
    size_t pad;    /* extra elements per leading dimension */
    size_t offset; /* elements before each matrix */
    double alpha, beta;
} problem;

/* IEEE half from float, round to nearest even (host side of f16 tests). */
static uint16_t to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffff;
    if (exp <= 0) {
        return (uint16_t)sign; /* the tests never make subnormals */
    }
    uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) {
        h++;
    }
    return (uint16_t)h;
}

static double from_half(uint16_t h) {
    int exp = (h >> 10) & 0x1f;
    double m = (h & 0x3ff) / 1024.0;
    double v = exp ? ldexp(1.0 + m, exp - 15) : ldexp(m, -14);
    return (h & 0x8000) ? -v : v;
}

/* Host matrices are kept as doubles holding exactly the stored values. */
static void fill(double *host, void *raw, xgpu_dtype dt, size_t count, uint32_t *seed) {
    for (size_t i = 0; i < count; i++) {
        double v = (double)(xt_rand_u32(seed) >> 8) / (1 << 24) * 2.0 - 1.0;
        if (dt == XGPU_F32) {
            ((float *)raw)[i] = (float)v;
            host[i] = (float)v;
        } else if (dt == XGPU_F64) {
            ((double *)raw)[i] = v;
            host[i] = v;
        } else {
            ((uint16_t *)raw)[i] = to_half((float)v);
            host[i] = from_half(((uint16_t *)raw)[i]);
        }
    }
}

static double get(const void *raw, xgpu_dtype dt, size_t i) {
    if (dt == XGPU_F32) {
        return ((const float *)raw)[i];
    }
    if (dt == XGPU_F64) {
        return ((const double *)raw)[i];
    }
    return from_half(((const uint16_t *)raw)[i]);
}

/* Element (i, j) of op(X) for a matrix stored with `layout`. */
static double op_at(const double *x, size_t off, size_t ld, xgpu_layout layout, xgpu_transpose t,
                    size_t i, size_t j) {
    size_t r = t == XGPU_TRANS ? j : i, c = t == XGPU_TRANS ? i : j;
    return layout == XGPU_ROW_MAJOR ? x[off + r * ld + c] : x[off + c * ld + r];
}

static size_t at(xgpu_layout layout, size_t off, size_t ld, size_t i, size_t j) {
    return layout == XGPU_ROW_MAJOR ? off + i * ld + j : off + j * ld + i;
}

/* How a problem's matrices are stored: the leading dimensions, and the
 * elements each buffer holds, offset and padding included. */
typedef struct storage {
    bool row;
    size_t lda, ldb, ldc;
    size_t na, nb, nc;
} storage;

static storage storage_of(const problem *p) {
    storage z;
    /* Stored shapes (rows x cols in the layout's own sense). */
    size_t ar = p->ta == XGPU_TRANS ? p->k : p->m, ac = p->ta == XGPU_TRANS ? p->m : p->k;
    size_t br = p->tb == XGPU_TRANS ? p->n : p->k, bc = p->tb == XGPU_TRANS ? p->k : p->n;
    z.row = p->layout == XGPU_ROW_MAJOR;
    z.lda = (z.row ? ac : ar) + p->pad, z.ldb = (z.row ? bc : br) + p->pad;
    z.ldc = (z.row ? p->n : p->m) + p->pad;
    z.na = p->offset + (z.row ? ar : ac) * z.lda, z.nb = p->offset + (z.row ? br : bc) * z.ldb;
    z.nc = p->offset + (z.row ? p->m : p->n) * z.ldc;
    return z;
}

/* The host's matrices: the stored values as doubles (ha, hb, hc), the same
 * in the problem's dtype as the device gets them (ra, rb, rc), and `out`,
 * C as the device left it. */
typedef struct matrices {
    double *ha, *hb, *hc;
    void *ra, *rb, *rc, *out;
} matrices;

/* Pseudo-random A, B and C for `p`, seeded by its shape; C is NaN in the
 * device's copy when beta is 0, as it must not be read. */
static void make_matrices(const problem *p, const storage *z, matrices *h) {
    size_t elem = xgpu_dtype_size(p->dtype);
    h->ha = malloc(z->na * sizeof(double)), h->hb = malloc(z->nb * sizeof(double));
    h->hc = malloc(z->nc * sizeof(double));
    h->ra = malloc(z->na * elem), h->rb = malloc(z->nb * elem), h->rc = malloc(z->nc * elem);
    h->out = malloc(z->nc * elem);
    assert_true(h->ha && h->hb && h->hc && h->ra && h->rb && h->rc && h->out);
    uint32_t seed = (uint32_t)(p->m * 131 + p->n * 17 + p->k * 7 + p->ta * 3 + p->tb + 1);
    fill(h->ha, h->ra, p->dtype, z->na, &seed);
    fill(h->hb, h->rb, p->dtype, z->nb, &seed);
    fill(h->hc, h->rc, p->dtype, z->nc, &seed);
    if (p->beta == 0.0) {
        /* C must not be read: poison it with NaN in every dtype. */
        memset(h->rc, 0xff, z->nc * elem);
    }
}

static void free_matrices(matrices *h) {
    free(h->ha);
    free(h->hb);
    free(h->hc);
    free(h->ra);
    free(h->rb);
    free(h->rc);
    free(h->out);
}

/* xgpu_gemm on device copies of ra, rb and rc; C read back into out. */
static void gemm_on_device(const problem *p, const storage *z, matrices *h) {
    size_t elem = xgpu_dtype_size(p->dtype);
    xgpu_buffer *da, *db, *dc;
    XT_OK(xgpu_buffer_create(xt.ctx, z->na * elem, &da));
    XT_OK(xgpu_buffer_create(xt.ctx, z->nb * elem, &db));
    XT_OK(xgpu_buffer_create(xt.ctx, z->nc * elem, &dc));
    XT_OK(xgpu_buffer_write(xt.queue, da, 0, h->ra, z->na * elem, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, db, 0, h->rb, z->nb * elem, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, dc, 0, h->rc, z->nc * elem, true, NULL));
    xgpu_gemm_desc d = {p->dtype,
                        p->layout,
                        p->ta,
                        p->tb,
                        p->m,
                        p->n,
                        p->k,
                        p->alpha,
                        p->beta,
                        {da, p->offset, z->lda},
                        {db, p->offset, z->ldb},
                        {dc, p->offset, z->ldc},
                        test_params};
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, dc, 0, h->out, z->nc * elem, true, NULL));
    XT_OK(xgpu_buffer_release(da));
    XT_OK(xgpu_buffer_release(db));
    XT_OK(xgpu_buffer_release(dc));
}

/* alpha * op(A) op(B) + beta * C at (i, j) in double, and in *scale the
 * same sum of absolute values, which the tolerance is relative to. */
static double reference_at(const problem *p, const storage *z, const matrices *h, size_t i,
                           size_t j, double *scale) {
    double ref = 0;
    *scale = 0;
    for (size_t k = 0; k < p->k; k++) {
        double t = op_at(h->ha, p->offset, z->lda, p->layout, p->ta, i, k) *
                   op_at(h->hb, p->offset, z->ldb, p->layout, p->tb, k, j);
        ref += t;
        *scale += fabs(t);
    }
    size_t ci = at(p->layout, p->offset, z->ldc, i, j);
    ref *= p->alpha;
    *scale *= fabs(p->alpha);
    if (p->beta != 0.0) {
        ref += p->beta * h->hc[ci];
        *scale += fabs(p->beta * h->hc[ci]);
    }
    return ref;
}

/* C against the reference: every element of a small problem; for a large
 * one the last row, the last column (edge tiles) and random samples. */
static void check_c(const problem *p, const storage *z, const matrices *h) {
    double eps = p->dtype == XGPU_F64 ? 0x1p-52 : 0x1p-23;
    double out_eps = p->dtype == XGPU_F16 ? 0x1p-11 : 0.0; /* rounding to half on store */
    bool all = p->m * p->n * p->k <= 40u * 40u * 40u;
    size_t samples = all ? p->m * p->n : 1500 + p->m + p->n;
    uint32_t pick = 99;
    for (size_t s = 0; s < samples; s++) {
        size_t i, j;
        if (all) {
            i = s / p->n, j = s % p->n;
        } else if (s < p->n) {
            i = p->m - 1, j = s; /* the last row */
        } else if (s < p->n + p->m) {
            i = s - p->n, j = p->n - 1; /* the last column */
        } else {
            i = xt_rand_u32(&pick) % p->m, j = xt_rand_u32(&pick) % p->n;
        }
        double scale;
        double ref = reference_at(p, z, h, i, j, &scale);
        double got = get(h->out, p->dtype, at(p->layout, p->offset, z->ldc, i, j));
        double tol = 2.0 * (double)(p->k + 2) * eps * scale + out_eps * fabs(ref) + 1e-300;
        if (!(fabs(got - ref) <= tol)) {
            fail_msg("%s %s %c%c %zux%zux%zu: C[%zu,%zu] = %.9g, reference %.9g (tolerance "
                     "%.3g)",
                     xgpu_dtype_name(p->dtype), z->row ? "row" : "col", p->ta ? 'T' : 'N',
                     p->tb ? 'T' : 'N', p->m, p->n, p->k, i, j, got, ref, tol);
        }
    }
}

/* Nothing outside C's m x n block was written (padding, offset). */
static void check_outside_c(const problem *p, const storage *z, const matrices *h) {
    size_t elem = xgpu_dtype_size(p->dtype);
    for (size_t x = 0; x < z->nc; x++) {
        size_t r = z->row ? (x - p->offset) / z->ldc : (x - p->offset) % z->ldc;
        size_t cidx = z->row ? (x - p->offset) % z->ldc : (x - p->offset) / z->ldc;
        bool inside = x >= p->offset && (z->row ? cidx < p->n : r < p->m);
        if (!inside && memcmp((char *)h->out + x * elem, (char *)h->rc + x * elem, elem)) {
            fail_msg("element %zu outside C was written", x);
        }
    }
}

static void run_problem(const problem *p) {
    storage z = storage_of(p);
    matrices h;
    make_matrices(p, &z, &h);
    gemm_on_device(p, &z, &h);
    check_c(p, &z, &h);
    check_outside_c(p, &z, &h);
    free_matrices(&h);
}

static void all_layouts_and_transposes(xgpu_dtype dt, size_t m, size_t n, size_t k, size_t pad,
                                       size_t offset) {
    for (int l = 0; l < 2; l++) {
        for (int ta = 0; ta < 2; ta++) {
            for (int tb = 0; tb < 2; tb++) {
                problem p = {dt,
                             (xgpu_layout)l,
                             (xgpu_transpose)ta,
                             (xgpu_transpose)tb,
                             m,
                             n,
                             k,
                             pad,
                             offset,
                             1.25,
                             (ta + tb) % 2 ? 0.0 : -0.5};
                run_problem(&p);
            }
        }
    }
}

static void small_sizes_every_layout(void **state) {
    (void)state;
    static const size_t sizes[][3] = {{1, 1, 1},  {7, 7, 7},  {33, 33, 33},
                                      {7, 33, 1}, {33, 1, 7}, {5, 40, 37}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        all_layouts_and_transposes(XGPU_F32, sizes[s][0], sizes[s][1], sizes[s][2], s % 3,
                                   s % 2 ? 3 : 0);
    }
}

static void large_sizes_every_layout(void **state) {
    (void)state;
    static const size_t sizes[] = {1000, 1023, 1025};
    for (size_t s = 0; s < 3; s++) {
        all_layouts_and_transposes(XGPU_F32, sizes[s], sizes[s], sizes[s], s, s);
    }
}

static void tall_skinny(void **state) {
    (void)state;
    problem p = {XGPU_F32, XGPU_ROW_MAJOR, XGPU_NO_TRANS, XGPU_NO_TRANS, 8192, 64, 8192, 0, 0, 1.0,
                 0.0};
    run_problem(&p);
    problem q = {XGPU_F32, XGPU_COL_MAJOR, XGPU_TRANS, XGPU_NO_TRANS, 64, 8192, 8192, 1, 5, 0.5,
                 2.0};
    run_problem(&q);
}

static void f64_and_f16(void **state) {
    (void)state;
    if (xt.info.fp64) {
        all_layouts_and_transposes(XGPU_F64, 33, 7, 65, 1, 2);
        all_layouts_and_transposes(XGPU_F64, 129, 130, 131, 0, 0);
    }
    all_layouts_and_transposes(XGPU_F16, 33, 7, 65, 2, 1);
    all_layouts_and_transposes(XGPU_F16, 129, 130, 64, 0, 0);
}

/* Vector loads: on for operands aligned to the width (multiples of 4
 * everywhere), off for the others; both must give the same answers. */
static void vector_loads(void **state) {
    (void)state;
    static const xgpu_gemm_params f32x4 = {64, 64, 16, 8, 4, 4, 0};
    static const xgpu_gemm_params f64x2 = {64, 64, 16, 4, 4, 2, 0};
    test_params = &f32x4;
    all_layouts_and_transposes(XGPU_F32, 96, 132, 68, 0, 0); /* vector loads */
    all_layouts_and_transposes(XGPU_F32, 96, 132, 68, 4, 8); /* aligned padding, offsets */
    all_layouts_and_transposes(XGPU_F32, 33, 67, 35, 1, 3);  /* scalar fallback */
    all_layouts_and_transposes(XGPU_F32, 64, 64, 64, 0, 1);  /* misaligned offset */
    if (xt.info.fp64) {
        test_params = &f64x2;
        all_layouts_and_transposes(XGPU_F64, 66, 34, 130, 2, 4);
        all_layouts_and_transposes(XGPU_F64, 33, 7, 65, 1, 1);
    }
    test_params = NULL;
}

/* Contiguous work per item (the CPU shape): each work-item's rows and
 * columns adjacent, with and without vector loads, on edge tiles too. */
static void contiguous_work(void **state) {
    (void)state;
    static const xgpu_gemm_params f32 = {64, 64, 16, 8, 16, 1, 1};
    static const xgpu_gemm_params f32x4 = {32, 64, 16, 4, 16, 4, 1};
    static const xgpu_gemm_params f64 = {32, 32, 16, 4, 8, 2, 1};
    test_params = &f32;
    all_layouts_and_transposes(XGPU_F32, 96, 132, 68, 0, 0);
    all_layouts_and_transposes(XGPU_F32, 33, 67, 35, 1, 3);
    test_params = &f32x4;
    all_layouts_and_transposes(XGPU_F32, 96, 132, 68, 4, 8);
    all_layouts_and_transposes(XGPU_F32, 37, 70, 19, 0, 1);
    if (xt.info.fp64) {
        test_params = &f64;
        all_layouts_and_transposes(XGPU_F64, 66, 34, 130, 2, 4);
        all_layouts_and_transposes(XGPU_F64, 33, 7, 65, 1, 1);
    }
    test_params = NULL;
}

static void user_params_and_k_zero(void **state) {
    (void)state;
    /* Explicit parameters, small tiles: the same answers. */
    xgpu_gemm_params params = {32, 32, 8, 4, 4, 1, 0};
    const size_t n = 70;
    float *h = malloc(n * n * sizeof *h), *out = malloc(n * n * sizeof *out);
    assert_true(h && out);
    xt_random_f32(h, n * n, 5, -1, 1);
    xgpu_buffer *a, *c;
    XT_OK(xgpu_buffer_create(xt.ctx, n * n * 4, &a));
    XT_OK(xgpu_buffer_create(xt.ctx, n * n * 4, &c));
    XT_OK(xgpu_buffer_write(xt.queue, a, 0, h, n * n * 4, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, c, 0, h, n * n * 4, true, NULL));
    /* k == 0: C = beta * C, A and B not read. */
    xgpu_gemm_desc d = {XGPU_F32, XGPU_ROW_MAJOR, XGPU_NO_TRANS, XGPU_NO_TRANS, n,      n, 0, 1.0,
                        2.0,      {a, 0, 1},      {a, 0, n},     {c, 0, n},     &params};
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, c, 0, out, n * n * 4, true, NULL));
    for (size_t i = 0; i < n * n; i++) {
        assert_true(out[i] == 2.0f * h[i]);
    }
    /* alpha == 0: A and B are not read, so NaN in them cannot reach C (as
     * reference BLAS); it used to: 0 * NaN = NaN. */
    xgpu_buffer *nan_ab;
    XT_OK(xgpu_buffer_create(xt.ctx, n * n * 4, &nan_ab));
    uint32_t nan_bits = 0x7fc00000u;
    XT_OK(xgpu_buffer_fill(xt.queue, nan_ab, 0, n * n * 4, &nan_bits, 4, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, c, 0, h, n * n * 4, true, NULL));
    xgpu_gemm_desc z = {XGPU_F32, XGPU_ROW_MAJOR, XGPU_NO_TRANS,  XGPU_NO_TRANS, n,      n, n, 0.0,
                        0.5,      {nan_ab, 0, n}, {nan_ab, 0, n}, {c, 0, n},     &params};
    XT_OK(xgpu_gemm(xt.queue, &z, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, c, 0, out, n * n * 4, true, NULL));
    for (size_t i = 0; i < n * n; i++) {
        if (out[i] != 0.5f * h[i]) {
            fail_msg("alpha = 0: c[%zu] = %g, want %g", i, out[i], 0.5f * h[i]);
        }
    }
    XT_OK(xgpu_buffer_release(nan_ab));
    /* m == 0: nothing happens, successfully. */
    d.m = 0;
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    free(h);
    free(out);
    XT_OK(xgpu_buffer_release(a));
    XT_OK(xgpu_buffer_release(c));
}

/* Overlap is judged on the elements touched: A may live in the gap between
 * C's rows (C's ld > n) in the same buffer, and is computed with; an A that
 * touches one element of C, on its first row or a later one, is refused. */
static void operand_in_c_row_gap(void **state) {
    (void)state;
    enum { M = 16, N = 16, K = 16, LD = 2 * N, TOTAL = M * LD };
    float host[TOTAL], bh[K * N], got[TOTAL];
    uint32_t seed = 5;
    for (size_t i = 0; i < TOTAL; i++) {
        host[i] = (float)(xt_rand_u32(&seed) % 17) - 8.0f; /* small integers: exact sums */
    }
    for (size_t i = 0; i < K * N; i++) {
        bh[i] = (float)(xt_rand_u32(&seed) % 9) - 4.0f;
    }
    xgpu_buffer *buf, *b;
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof host, &buf));
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof bh, &b));
    XT_OK(xgpu_buffer_write(xt.queue, buf, 0, host, sizeof host, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, b, 0, bh, sizeof bh, true, NULL));
    /* C in columns 0..N-1 of each LD-wide row, A in columns N..2N-1. */
    xgpu_gemm_desc d = {
        .dtype = XGPU_F32,
        .layout = XGPU_ROW_MAJOR,
        .trans_a = XGPU_NO_TRANS,
        .trans_b = XGPU_NO_TRANS,
        .m = M,
        .n = N,
        .k = K,
        .alpha = 1.0,
        .beta = 1.0,
        .a = {buf, N, LD},
        .b = {b, 0, N},
        .c = {buf, 0, LD},
    };
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, buf, 0, got, sizeof got, true, NULL));
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < N; j++) {
            float want = host[i * LD + j];
            for (size_t p = 0; p < K; p++) {
                want += host[i * LD + N + p] * bh[p * N + j];
            }
            if (got[i * LD + j] != want) {
                fail_msg("C[%zu][%zu] = %g, expected %g", i, j, got[i * LD + j], want);
            }
            assert_true(got[i * LD + N + j] == host[i * LD + N + j]); /* A untouched */
        }
    }
    /* One column to the left: A's first element is C[0][N-1]. */
    d.a = (xgpu_matrix){buf, N - 1, LD};
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "overlaps");
    /* Row 0 in C's gap, row 1 at C[2][0]: the overlap is on a later row. */
    d.m = M / 2;
    d.a = (xgpu_matrix){buf, N, LD + N};
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "overlaps");
    /* A and C interleaved the other way: C in the gaps of A. */
    d.m = M;
    d.a = (xgpu_matrix){buf, 0, LD};
    d.c = (xgpu_matrix){buf, K, LD};
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    XT_OK(xgpu_queue_finish(xt.queue));
    XT_OK(xgpu_buffer_release(buf));
    XT_OK(xgpu_buffer_release(b));
}

static void bad_arguments_are_refused(void **state) {
    (void)state;
    xgpu_buffer *a, *b, *c;
    XT_OK(xgpu_buffer_create(xt.ctx, 64 * 64 * 4, &a));
    XT_OK(xgpu_buffer_create(xt.ctx, 64 * 64 * 4, &b));
    XT_OK(xgpu_buffer_create(xt.ctx, 16 * 16 * 4, &c));
    xgpu_gemm_desc d = {XGPU_F32, XGPU_ROW_MAJOR, XGPU_NO_TRANS, XGPU_NO_TRANS, 16,  16, 16, 1,
                        0,        {a, 0, 16},     {b, 0, 16},    {c, 0, 16},    NULL};
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    d.a.ld = 15;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "leading dimension must be at least 16, not 15");
    d.a.ld = 16;
    d.m = 17; /* C is 16 x 16 floats */
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_OUT_OF_RANGE, "matrix c needs");
    d.m = 16;
    d.dtype = XGPU_I32;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_UNSUPPORTED, "dtype i32");
    d.dtype = XGPU_F32;
    d.c = (xgpu_matrix){a, 0, 16};
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "overlaps");
    d.c = (xgpu_matrix){c, 0, 16};
    xgpu_gemm_params bad = {128, 128, 16, 3, 8, 1, 0};
    d.params = &bad;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "multiples");
    xgpu_gemm_params huge = {1024, 1024, 64, 8, 8, 1, 0}; /* 16384 work-items */
    d.params = &huge;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_UNSUPPORTED, "work-items");
    xgpu_gemm_params odd_vector = {64, 64, 16, 8, 4, 3, 0};
    d.params = &odd_vector;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "vector_width 3");
    /* uint32 tile sums used to wrap and pass as "0 bytes of local memory". */
    xgpu_gemm_params wrapping = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, 1, 0};
    d.params = &wrapping;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "each must be 1..1024");
    d.params = NULL;
    /* ld = 2^63 with m = 3: (rows - 1) * ld + cols wrapped, C got wrong values. */
    d.m = 3;
    d.c.ld = (size_t)1 << 63;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_SIZE, "does not fit 32 bits");
    d.c.ld = (size_t)1 << 31; /* fits, but 3 rows of it span more than 2^32 elements */
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_SIZE, "span more than 2^32");
    d.c.ld = 16;
    d.a.ld = (size_t)1 << 63;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_SIZE, "does not fit 32 bits");
    d.a.ld = 16;
    d.m = 16;
    /* XGPU_GEMM_PARAMS is read whole or refused, naming the variable. */
    const char *bad_env[] = {"-1,-1,-1,-1,-1",
                             "128,128",
                             "128,128,16,8,8,1,9",
                             "128,128,16,8,8x",
                             "",
                             "4294967296,1,1,1,1",
                             "tm=32,tn=32",
                             "tm=32,tn=32,tk=8,wm=4,wn=4,vw=1,contig=1,x=2"};
    for (size_t i = 0; i < sizeof bad_env / sizeof bad_env[0]; i++) {
        setenv("XGPU_GEMM_PARAMS", bad_env[i], 1);
        XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "XGPU_GEMM_PARAMS");
        xgpu_gemm_params got;
        XT_FAILS(xgpu_gemm_default_params(xt.device, XGPU_F32, &got), XGPU_ERROR_INVALID_ARGUMENT,
                 "is malformed");
    }
    /* Well formed, but not parameters the kernel can use: refused by
     * xgpu_gemm_default_params too, naming the variable. */
    const char *unusable[] = {"16,16,16,4,4,3", "16,16,16,3,4"};
    for (size_t i = 0; i < sizeof unusable / sizeof unusable[0]; i++) {
        setenv("XGPU_GEMM_PARAMS", unusable[i], 1);
        xgpu_gemm_params p;
        XT_FAILS(xgpu_gemm_default_params(xt.device, XGPU_F32, &p), XGPU_ERROR_INVALID_ARGUMENT,
                 "xgpu_gemm_default_params: XGPU_GEMM_PARAMS");
        XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "XGPU_GEMM_PARAMS");
    }
    setenv("XGPU_GEMM_PARAMS", "32,32,8,4,4", 1);
    xgpu_gemm_params got;
    XT_OK(xgpu_gemm_default_params(xt.device, XGPU_F32, &got));
    assert_int_equal(got.tile_m, 32);
    assert_int_equal(got.vector_width, 1);
    /* The spelling of the tuning database and xgpu_tune_lookup. */
    setenv("XGPU_GEMM_PARAMS", "tm=64,tn=32,tk=8,wm=4,wn=8,vw=1,contig=1", 1);
    XT_OK(xgpu_gemm_default_params(xt.device, XGPU_F32, &got));
    assert_int_equal(got.tile_m, 64);
    assert_int_equal(got.work_n, 8);
    assert_int_equal(got.contiguous, 1);
    unsetenv("XGPU_GEMM_PARAMS");
    d.b.buffer = NULL;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_HANDLE, "matrix b is NULL");
    XT_FAILS(xgpu_gemm(xt.queue, NULL, NULL), XGPU_ERROR_INVALID_ARGUMENT, "desc is NULL");
    XT_FAILS(xgpu_gemm(NULL, &d, NULL), XGPU_ERROR_INVALID_HANDLE, "queue is NULL");
    XT_OK(xgpu_buffer_release(a));
    XT_OK(xgpu_buffer_release(b));
    XT_OK(xgpu_buffer_release(c));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_sizes_every_layout),
        cmocka_unit_test(large_sizes_every_layout),
        cmocka_unit_test(tall_skinny),
        cmocka_unit_test(f64_and_f16),
        cmocka_unit_test(vector_loads),
        cmocka_unit_test(contiguous_work),
        cmocka_unit_test(user_params_and_k_zero),
        cmocka_unit_test(operand_in_c_row_gap),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return XT_RUN("gemm", tests);
}
