/* The mixed-precision and batched GEMM cases and their check
 * (gemm_mixed.h). */
#define _POSIX_C_SOURCE 200809L
#include "gemm_mixed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double mcase_f32_excess;

/* Where each matrix lies: stored shapes (rows x cols), leading
 * dimensions, batch strides and the elements each buffer holds. */
typedef struct geom {
    bool row;
    size_t batch;
    size_t ar, ac, br, bc;
    size_t lda, ldb, ldc, sa, sb, sc, na, nb, nc;
} geom;

static geom geom_of(const mcase *c) {
    geom g;
    g.row = c->layout == XGPU_ROW_MAJOR;
    g.batch = c->batch ? c->batch : 1;
    g.ar = c->ta == XGPU_TRANS ? c->k : c->m, g.ac = c->ta == XGPU_TRANS ? c->m : c->k;
    g.br = c->tb == XGPU_TRANS ? c->n : c->k, g.bc = c->tb == XGPU_TRANS ? c->k : c->n;
    size_t la = g.row ? g.ar : g.ac, lb = g.row ? g.br : g.bc, lc = g.row ? c->m : c->n;
    g.lda = (g.row ? g.ac : g.ar) + c->pad;
    g.ldb = (g.row ? g.bc : g.br) + c->pad;
    size_t line_c = g.row ? c->n : c->m;
    g.ldc = (c->interleaved_c ? g.batch * line_c : line_c) + c->pad;
    g.sa = c->shared_a ? 0 : la * g.lda + c->gap_a;
    g.sb = lb * g.ldb + c->gap_b;
    g.sc = c->interleaved_c ? line_c : lc * g.ldc + c->gap_c;
    g.na = c->offset + (g.batch - 1) * g.sa + la * g.lda;
    g.nb = c->offset + (g.batch - 1) * g.sb + lb * g.ldb;
    g.nc = c->offset + (c->interleaved_c ? 0 : (g.batch - 1) * g.sc) + lc * g.ldc;
    return g;
}

static size_t at(const geom *g, size_t ld, size_t stride, size_t off, size_t b, size_t r,
                 size_t col) {
    return off + b * stride + (g->row ? r * ld + col : col * ld + r);
}

static uint32_t bits_of(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

static float float_of(uint32_t x) {
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* tf32 as cvt.rna.tf32.f32 rounds: to nearest, ties away from zero. */
static double tf32(double v) {
    return float_of((bits_of((float)v) + 0x1000u) & ~0x1fffu);
}

/* Stores v rounded to dt; returns the stored value. f32 values are never
 * ties at tf32's precision, so that either tie rule gives the reference's
 * value. */
static double store(xgpu_dtype dt, void *raw, size_t i, double v) {
    switch (dt) {
    case XGPU_F64:
        ((double *)raw)[i] = v;
        return v;
    case XGPU_F16:
        ((uint16_t *)raw)[i] = xgpu_f32_to_f16((float)v);
        return xgpu_f16_to_f32(((uint16_t *)raw)[i]);
    case XGPU_BF16:
        ((uint16_t *)raw)[i] = xgpu_f32_to_bf16((float)v);
        return xgpu_bf16_to_f32(((uint16_t *)raw)[i]);
    default: {
        uint32_t x = bits_of((float)v);
        if ((x & 0x1fffu) == 0x1000u) {
            x ^= 1u;
        }
        ((float *)raw)[i] = float_of(x);
        return float_of(x);
    }
    }
}

static double load(xgpu_dtype dt, const void *raw, size_t i) {
    switch (dt) {
    case XGPU_F64:
        return ((const double *)raw)[i];
    case XGPU_F16:
        return xgpu_f16_to_f32(((const uint16_t *)raw)[i]);
    case XGPU_BF16:
        return xgpu_bf16_to_f32(((const uint16_t *)raw)[i]);
    default:
        return ((const float *)raw)[i];
    }
}

/* |v| in [1/16, 1), either sign: never zero. */
static double value(uint32_t *s) {
    double v = 0.0625 + 0.9375 * (double)(xt_rand_u32(s) >> 8) / (1 << 24);
    return xt_rand_u32(s) & 1u ? -v : v;
}

typedef struct host {
    double *ha, *hb, *hc;
    unsigned char *ra, *rb, *rc, *out;
    bool *in_c;
} host;

static void make_host(const mcase *c, const geom *g, xgpu_dtype out, host *h) {
    size_t ei = xgpu_dtype_size(c->in), eo = xgpu_dtype_size(out);
    h->ha = malloc(g->na * sizeof(double)), h->hb = malloc(g->nb * sizeof(double));
    h->hc = malloc(g->nc * sizeof(double));
    h->ra = malloc(g->na * ei), h->rb = malloc(g->nb * ei), h->rc = malloc(g->nc * eo);
    h->out = malloc(g->nc * eo), h->in_c = calloc(g->nc, sizeof(bool));
    assert_true(h->ha && h->hb && h->hc && h->ra && h->rb && h->rc && h->out && h->in_c);
    uint32_t seed = (uint32_t)(c->m * 131 + c->n * 17 + c->k * 7 + c->ta * 3 + c->tb + 1);
    for (size_t i = 0; i < g->na; i++) {
        h->ha[i] = store(c->in, h->ra, i, value(&seed));
    }
    for (size_t i = 0; i < g->nb; i++) {
        h->hb[i] = store(c->in, h->rb, i, value(&seed));
    }
    for (size_t i = 0; i < g->nc; i++) {
        h->hc[i] = store(out, h->rc, i, value(&seed));
    }
    for (size_t b = 0; b < g->batch; b++) {
        for (size_t i = 0; i < c->m; i++) {
            for (size_t j = 0; j < c->n; j++) {
                size_t e = at(g, g->ldc, g->sc, c->offset, b, i, j);
                h->in_c[e] = true;
                if (c->beta == 0.0) { /* C must not be read: NaN in every type */
                    memset(h->rc + e * eo, 0xff, eo);
                }
            }
        }
    }
    if (c->alpha == 0.0) { /* A and B must not be read */
        memset(h->ra, 0xff, g->na * ei);
        memset(h->rb, 0xff, g->nb * ei);
    }
}

static void free_host(host *h) {
    free(h->ha), free(h->hb), free(h->hc);
    free(h->ra), free(h->rb), free(h->rc), free(h->out), free(h->in_c);
}

xgpu_gemm_desc mcase_desc(const mcase *c, mbuffers *bufs) {
    geom g = geom_of(c);
    xgpu_dtype out = c->out ? c->out : c->in;
    size_t ei = xgpu_dtype_size(c->in), eo = xgpu_dtype_size(out);
    XT_OK(xgpu_buffer_create(xt.ctx, g.na * ei, &bufs->a));
    XT_OK(xgpu_buffer_create(xt.ctx, g.nb * ei, &bufs->b));
    XT_OK(xgpu_buffer_create(xt.ctx, g.nc * eo, &bufs->c));
    xgpu_gemm_desc d = {.dtype = c->in,
                        .layout = c->layout,
                        .trans_a = c->ta,
                        .trans_b = c->tb,
                        .m = c->m,
                        .n = c->n,
                        .k = c->k,
                        .alpha = c->alpha,
                        .beta = c->beta,
                        .a = {bufs->a, c->offset, g.lda},
                        .b = {bufs->b, c->offset, g.ldb},
                        .c = {bufs->c, c->offset, g.ldc},
                        .params = c->params,
                        .c_dtype = c->out,
                        .flags = c->flags,
                        .batch = c->batch,
                        .stride_a = g.sa,
                        .stride_b = g.sb,
                        .stride_c = g.sc};
    return d;
}

void mcase_release(mbuffers *bufs) {
    XT_OK(xgpu_buffer_release(bufs->a));
    XT_OK(xgpu_buffer_release(bufs->b));
    XT_OK(xgpu_buffer_release(bufs->c));
}

static void describe(const mcase *c, const xgpu_gemm_choice *ch, char *out, size_t size) {
    snprintf(out, size,
             "%s->%s flags %u %s %c%c %zux%zux%zu alpha %g beta %g batch %zu pad %zu off %zu "
             "(%s, %s)",
             xgpu_dtype_name(c->in), xgpu_dtype_name(c->out ? c->out : c->in), c->flags,
             c->layout == XGPU_ROW_MAJOR ? "row" : "col", c->ta ? 'T' : 'N', c->tb ? 'T' : 'N',
             c->m, c->n, c->k, c->alpha, c->beta, c->batch, c->pad, c->offset, ch->path,
             ch->compute);
}

/* Every element of every batch's C against the reference; the rest of
 * C's buffer unchanged. */
static void check(const mcase *c, const geom *g, xgpu_dtype out, const host *h,
                  const xgpu_gemm_choice *ch) {
    bool t32 = !strcmp(ch->compute, "tf32");
    double out_eps = out == XGPU_F16 ? 0x1p-11 : (out == XGPU_BF16 ? 0x1p-8 : 0.0);
    double tiny = out == XGPU_F16 ? 0x1p-24 : 1e-300; /* f16's subnormal step */
    double acc_eps = c->in == XGPU_F64 ? 0x1p-52 : 0x1p-23;
    size_t eo = xgpu_dtype_size(out);
    char what[200];
    describe(c, ch, what, sizeof what);
    mcase_f32_excess = 0;
    for (size_t b = 0; b < g->batch; b++) {
        for (size_t i = 0; i < c->m; i++) {
            for (size_t j = 0; j < c->n; j++) {
                double ref = 0, ref32 = 0, scale = 0;
                for (size_t k = 0; k < c->k; k++) {
                    size_t ia = c->ta ? at(g, g->lda, g->sa, c->offset, b, k, i)
                                      : at(g, g->lda, g->sa, c->offset, b, i, k);
                    size_t ib = c->tb ? at(g, g->ldb, g->sb, c->offset, b, j, k)
                                      : at(g, g->ldb, g->sb, c->offset, b, k, j);
                    double x = h->ha[ia], y = h->hb[ib];
                    ref32 += x * y;
                    ref += t32 ? tf32(x) * tf32(y) : x * y;
                    scale += fabs(x * y);
                }
                size_t e = at(g, g->ldc, g->sc, c->offset, b, i, j);
                ref = c->alpha * ref, ref32 = c->alpha * ref32, scale *= fabs(c->alpha);
                if (c->beta != 0.0) {
                    ref += c->beta * h->hc[e], ref32 += c->beta * h->hc[e];
                    scale += fabs(c->beta * h->hc[e]);
                }
                double got = load(out, h->out, e);
                double tol = (2.0 * (double)c->k * acc_eps + out_eps) * scale + tiny;
                if (!(fabs(got - ref) <= tol)) {
                    fail_msg("%s: C[%zu][%zu] of batch %zu is %.9g, the reference %.9g (tol %.3g)",
                             what, i, j, b, got, ref, tol);
                }
                double excess = fabs(got - ref32) / tol;
                mcase_f32_excess = excess > mcase_f32_excess ? excess : mcase_f32_excess;
            }
        }
    }
    for (size_t e = 0; e < g->nc; e++) {
        if (!h->in_c[e] && memcmp(h->out + e * eo, h->rc + e * eo, eo)) {
            fail_msg("%s: element %zu of C's buffer, outside every C, was written", what, e);
        }
    }
}

void mcase_run(const mcase *c, xgpu_gemm_choice *choice) {
    geom g = geom_of(c);
    xgpu_dtype out = c->out ? c->out : c->in;
    host h;
    make_host(c, &g, out, &h);
    mbuffers bufs;
    xgpu_gemm_desc d = mcase_desc(c, &bufs);
    size_t ei = xgpu_dtype_size(c->in), eo = xgpu_dtype_size(out);
    XT_OK(xgpu_buffer_write(xt.queue, bufs.a, 0, h.ra, g.na * ei, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, bufs.b, 0, h.rb, g.nb * ei, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, bufs.c, 0, h.rc, g.nc * eo, true, NULL));
    xgpu_gemm_choice ch;
    XT_OK(xgpu_gemm_choose(xt.queue, &d, &ch));
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, bufs.c, 0, h.out, g.nc * eo, true, NULL));
    mcase_release(&bufs);
    check(c, &g, out, &h, &ch);
    free_host(&h);
    if (choice) {
        *choice = ch;
    }
}
