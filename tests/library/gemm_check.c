/* The GEMM tests' problems and their check (gemm_check.h). */
#define _POSIX_C_SOURCE 200809L
#include "gemm_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const xgpu_gemm_params *test_params;

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
    xgpu_gemm_desc d = {.dtype = p->dtype,
                        .layout = p->layout,
                        .trans_a = p->ta,
                        .trans_b = p->tb,
                        .m = p->m,
                        .n = p->n,
                        .k = p->k,
                        .alpha = p->alpha,
                        .beta = p->beta,
                        .a = {da, p->offset, z->lda},
                        .b = {db, p->offset, z->ldb},
                        .c = {dc, p->offset, z->ldc},
                        .params = test_params};
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

void run_problem(const problem *p) {
    storage z = storage_of(p);
    matrices h;
    make_matrices(p, &z, &h);
    gemm_on_device(p, &z, &h);
    check_c(p, &z, &h);
    check_outside_c(p, &z, &h);
    free_matrices(&h);
}

void all_layouts_and_transposes(xgpu_dtype dt, size_t m, size_t n, size_t k, size_t pad,
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

void run_one(xgpu_dtype dt, xgpu_layout l, int ta, int tb, size_t m, size_t n, size_t k, size_t pad,
             size_t offset, double alpha, double beta) {
    problem p = {dt, l, (xgpu_transpose)ta, (xgpu_transpose)tb, m, n, k, pad, offset, alpha, beta};
    run_problem(&p);
}
