/* kernels/gemm_mma.xgpu launched directly (the routing of xgpu_gemm is not
 * involved), on the fragments path every device runs (mma.sync's layout;
 * for f16 and bf16 also MFMA's, "fragments-mfma"): f16, bf16 and tf32
 * inputs, C in f32 or the input type, every transpose, edge sizes around
 * the tiles, batches with odd strides, alpha and beta with beta 0 over a
 * NaN-poisoned C, aligned operands (vector loads) and unaligned ones.
 * Checked against a double-precision reference of the rounded inputs;
 * elements outside C must keep their bits.
 *
 * `test_gemm_mma_kernel tiny` runs a few small problems for oclgrind
 * (library.gemm_mma_oclgrind). */
#define _POSIX_C_SOURCE 200809L
#include "core.h"
#include "gemm_mma_check.h"
#include "harness.h"
#include "tunedb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mma_case {
    xgpu_dtype in, out; /* in XGPU_F32: tf32 */
    xgpu_gemm_params p;
    xgpu_kernel *kernel;
    const char *path; /* NULL: "fragments" */
} mma_case;

static const char *path_of(const mma_case *c) {
    return c->path ? c->path : "fragments";
}

typedef struct shape {
    uint32_t m, n, k, ta, tb, batch;
    uint32_t pad, off, gap; /* extra per ld, elements before, between batches */
    float alpha, beta;
} shape;

static const xgpu_gemm_params small16 = {16, 8, 16, 16, 8, 1, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params small_tf32 = {16, 8, 8, 16, 8, 1, XGPU_GEMM_FRAGMENTS};
/* Two warps side by side, two fragments each way per warp. */
static const xgpu_gemm_params wide16 = {32, 64, 32, 32, 32, 8, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params wide_tf32 = {32, 64, 16, 32, 32, 4, XGPU_GEMM_FRAGMENTS};
/* MFMA's layout emulated ("fragments-mfma", 64 lanes): one 32 x 32
 * fragment, and four warps of one each with two fragment K a step. */
static const xgpu_gemm_params mfma_one = {32, 32, 8, 32, 32, 1, XGPU_GEMM_FRAGMENTS};
static const xgpu_gemm_params mfma_four = {64, 64, 16, 32, 32, 4, XGPU_GEMM_FRAGMENTS};

static size_t esize(xgpu_dtype t) {
    return t == XGPU_F32 ? 4 : 2;
}

float tf32_round(float v) {
    uint32_t x;
    memcpy(&x, &v, 4);
    if ((x & 0x7f800000u) != 0x7f800000u) {
        x = (x + 0x1000u) & 0xffffe000u;
    }
    memcpy(&v, &x, 4);
    return v;
}

/* Element i of a raw array as the kernel multiplies it. */
static double value(const void *raw, xgpu_dtype t, size_t i, bool tf32) {
    if (t == XGPU_F32) {
        float v = ((const float *)raw)[i];
        return tf32 ? tf32_round(v) : v;
    }
    uint16_t b = ((const uint16_t *)raw)[i];
    return t == XGPU_F16 ? xgpu_f16_to_f32(b) : xgpu_bf16_to_f32(b);
}

static void store(void *raw, xgpu_dtype t, size_t i, float v) {
    if (t == XGPU_F32) {
        ((float *)raw)[i] = v;
    } else {
        ((uint16_t *)raw)[i] = t == XGPU_F16 ? xgpu_f32_to_f16(v) : xgpu_f32_to_bf16(v);
    }
}

static void *random_matrix(xgpu_dtype t, size_t count, uint32_t seed) {
    void *raw = malloc(count * esize(t) + 1);
    assert_non_null(raw);
    for (size_t i = 0; i < count; i++) {
        store(raw, t, i, (float)((double)(xt_rand_u32(&seed) >> 8) / (1 << 24) * 2.0 - 1.0));
    }
    return raw;
}

xgpu_buffer *upload(const void *raw, size_t bytes) {
    xgpu_buffer *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, bytes ? bytes : 4, &b));
    if (bytes) {
        XT_OK(xgpu_buffer_write(xt.queue, b, 0, raw, bytes, true, NULL));
    }
    return b;
}

static bool aligned(uint32_t vw, uint32_t off, uint32_t ld, uint32_t stride, uint32_t row) {
    return vw > 1 && off % vw == 0 && ld % vw == 0 && stride % vw == 0 && row % vw == 0;
}

static void build(mma_case *c) {
    char opt[256];
    xgpu__gemm_mma_options(c->in, c->out, path_of(c), &c->p, opt, sizeof opt);
    XT_OK(xgpu__gemm_mma_check_params(&c->p, &xt.info, c->in, path_of(c), "test"));
    xgpu_program *prog = xt_build(xgpu__kernel_gemm_mma, opt);
    c->kernel = xt_kernel(prog, "xgpu_gemm_mma");
    XT_OK(xgpu_program_release(prog));
}

/* Runs one problem and checks every element of the C buffer. */
static void run(const mma_case *c, const shape *s) {
    const uint32_t m = s->m, n = s->n, k = s->k, batch = s->batch ? s->batch : 1;
    const uint32_t ra = s->ta ? k : m, ca = s->ta ? m : k, rb = s->tb ? n : k, cb = s->tb ? k : n;
    const uint32_t lda = ca + s->pad, ldb = cb + s->pad, ldc = n + s->pad;
    const uint32_t sa = ra * lda + s->gap, sb = rb * ldb + s->gap, sc = m * ldc + s->gap;
    const size_t na = s->off + (size_t)sa * batch, nb = s->off + (size_t)sb * batch;
    const size_t nc = s->off + (size_t)sc * batch;
    void *a = random_matrix(c->in, na, 11 + m), *b = random_matrix(c->in, nb, 23 + n);
    void *cv = random_matrix(c->out, nc, 37 + k), *got = malloc(nc * esize(c->out) + 1);
    assert_non_null(got);
    if (s->beta == 0.0f) { /* must not be read */
        for (size_t i = 0; i < nc; i++) {
            store(cv, c->out, i, NAN);
        }
    }
    xgpu_buffer *A = upload(a, na * esize(c->in)), *B = upload(b, nb * esize(c->in));
    xgpu_buffer *C = upload(cv, nc * esize(c->out));
    const uint32_t vw = c->p.vector_width;
    const bool va = aligned(vw, s->off, lda, sa, ca), vb = aligned(vw, s->off, ldb, sb, cb);
    xgpu_arg args[] = {xgpu_arg_u32(m),        xgpu_arg_u32(n),    xgpu_arg_u32(k),
                       xgpu_arg_f32(s->alpha), xgpu_arg_buffer(A), xgpu_arg_u32(s->off),
                       xgpu_arg_u32(lda),      xgpu_arg_u32(sa),   xgpu_arg_buffer(B),
                       xgpu_arg_u32(s->off),   xgpu_arg_u32(ldb),  xgpu_arg_u32(sb),
                       xgpu_arg_f32(s->beta),  xgpu_arg_buffer(C), xgpu_arg_u32(s->off),
                       xgpu_arg_u32(ldc),      xgpu_arg_u32(sc),   xgpu_arg_u32(s->ta),
                       xgpu_arg_u32(s->tb),    xgpu_arg_u32(va),   xgpu_arg_u32(vb)};
    const xgpu_gemm_params *p = &c->p;
    const size_t lanes = xgpu__gemm_mma_lanes(path_of(c));
    const size_t threads = (size_t)(p->tile_m / p->work_m) * (p->tile_n / p->work_n) * lanes;
    xgpu_range r = xgpu_range_3d((n + p->tile_n - 1) / p->tile_n, (m + p->tile_m - 1) / p->tile_m,
                                 batch, threads, 1, 1);
    XT_OK(xgpu_launch(xt.queue, c->kernel, &r, sizeof args / sizeof args[0], args, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, C, 0, got, nc * esize(c->out), true, NULL));

    /* fp32 sums of exact products; the output type's one rounding. */
    const bool tf32 = c->in == XGPU_F32;
    const double out_eps = c->out == XGPU_F16 ? 0x1p-11 : (c->out == XGPU_BF16 ? 0x1p-8 : 0.0);
    char *inside = calloc(nc, 1);
    assert_non_null(inside);
    int bad = 0;
    for (uint32_t t = 0; t < batch; t++) {
        for (uint32_t i = 0; i < m; i++) {
            for (uint32_t j = 0; j < n; j++) {
                double sum = 0, mag = 0;
                for (uint32_t l = 0; l < k; l++) {
                    size_t ia = s->off + (size_t)t * sa +
                                (s->ta ? (size_t)l * lda + i : (size_t)i * lda + l);
                    size_t ib = s->off + (size_t)t * sb +
                                (s->tb ? (size_t)j * ldb + l : (size_t)l * ldb + j);
                    double prod = value(a, c->in, ia, tf32) * value(b, c->in, ib, tf32);
                    sum += prod;
                    mag += fabs(prod);
                }
                size_t ic = s->off + (size_t)t * sc + (size_t)i * ldc + j;
                inside[ic] = 1;
                double ref = s->alpha * sum, tol = fabs(s->alpha) * mag * (k + 2) * 0x1p-23;
                if (s->beta != 0.0f) {
                    double old = value(cv, c->out, ic, false);
                    ref += s->beta * old;
                    tol += fabs(s->beta * old) * 0x1p-23;
                }
                tol += fabs(ref) * out_eps + (out_eps > 0 ? 0x1p-24 : 1e-30);
                double v = value(got, c->out, ic, false);
                if (!(fabs(v - ref) <= tol) && bad++ < 5) {
                    print_error("  C[%u](%u,%u) = %.9g, want %.9g (tol %.3g)\n", t, i, j, v, ref,
                                tol);
                }
            }
        }
    }
    for (size_t i = 0; i < nc; i++) { /* everything else keeps its bits */
        if (!inside[i] &&
            memcmp((char *)got + i * esize(c->out), (char *)cv + i * esize(c->out),
                   esize(c->out)) &&
            bad++ < 5) {
            print_error("  element %zu outside C was written\n", i);
        }
    }
    XT_OK(xgpu_buffer_release(A));
    XT_OK(xgpu_buffer_release(B));
    XT_OK(xgpu_buffer_release(C));
    free(a);
    free(b);
    free(cv);
    free(got);
    free(inside);
    if (bad) {
        fail_msg(
            "%s %s -> %s, params %u,%u,%u,%u,%u,%u: %ux%ux%u ta %u tb %u batch %u pad %u off %u "
            "alpha %g beta %g: %d wrong",
            path_of(c), tf32 ? "tf32" : xgpu_dtype_name(c->in), xgpu_dtype_name(c->out), p->tile_m,
            p->tile_n, p->tile_k, p->work_m, p->work_n, p->vector_width, m, n, k, s->ta, s->tb,
            batch, s->pad, s->off, (double)s->alpha, (double)s->beta, bad);
    }
}

static const xgpu_dtype ins[] = {XGPU_F16, XGPU_BF16, XGPU_F32};

/* The cases of one input type: C in f32 and (16-bit inputs) in the
 * input type, on the one-fragment tile and the two-warp one; on a device
 * with matrix units (mma.sync, MFMA) also its path with its built-in
 * parameters; for 16-bit inputs MFMA's layout emulated, C in f32 on both
 * its tiles and in the input type on one. */
static size_t cases_of(xgpu_dtype in, mma_case *out) {
    size_t n = 0;
    const bool tf32 = in == XGPU_F32;
    const char *unit = xgpu__gemm_mma_path(&xt.info, in, true);
    for (int o = 0; o < (tf32 ? 1 : 2); o++) {
        for (int w = 0; w < 2; w++) {
            out[n++] = (mma_case){in, o ? in : XGPU_F32,
                                  w ? (tf32 ? wide_tf32 : wide16) : (tf32 ? small_tf32 : small16),
                                  NULL, NULL};
        }
        if (unit && strcmp(unit, "fragments")) {
            out[n] = (mma_case){in, o ? in : XGPU_F32, {0}, NULL, unit};
            xgpu__gemm_mma_builtin(&xt.info, in, unit, &out[n++].p);
        }
    }
    if (!tf32) {
        out[n++] = (mma_case){in, XGPU_F32, mfma_one, NULL, "fragments-mfma"};
        out[n++] = (mma_case){in, XGPU_F32, mfma_four, NULL, "fragments-mfma"};
        out[n++] = (mma_case){in, in, mfma_one, NULL, "fragments-mfma"};
    }
    return n;
}

/* Around the tile: each of m, n and k at 1, a tile - 1, + 1; every
 * transpose; aligned (vector loads) and padded (scalar) operands. */
static void edges_every_transpose(const mma_case *c) {
    const uint32_t tm = c->p.tile_m, tn = c->p.tile_n, tk = c->p.tile_k;
    const shape list[] = {
        {tm + 1, tn - 1, tk + 1, 0, 0, 1, 0, 0, 0, 1.25f, -0.5f},
        {1, 1, 1, 0, 0, 1, 0, 0, 0, 1.0f, 0.0f},
        {tm - 1, tn + 1, 2 * tk - 1, 0, 0, 1, 1, 3, 0, -0.75f, 1.0f},
        {2 * tm, 2 * tn, 3 * tk, 0, 0, 1, 0, 0, 0, 1.0f, 0.0f},
        {tm, tn + 8, tk, 0, 0, 1, 8, 8, 0, 0.5f, 0.25f},
    };
    for (uint32_t tr = 0; tr < 4; tr++) {
        for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
            shape s = list[i];
            s.ta = tr / 2;
            s.tb = tr % 2;
            run(c, &s);
        }
    }
}

/* Every m from 1 to a tile + 1, n and k following, each with the next
 * transpose. */
static void every_edge_size(const mma_case *c) {
    for (uint32_t m = 1; m <= c->p.tile_m + 1; m++) {
        shape s = {
            m,    c->p.tile_m + 2 - m, (m * 7) % 19 + 1, m % 2, (m / 2) % 2, 1, m % 3 == 0, 0, 0,
            1.0f, m % 2 ? 0.0f : 0.75f};
        run(c, &s);
    }
}

/* Batches of 3 with odd gaps between them (so no stride is aligned but in
 * the first), alpha 0 with k 0 (C = beta * C; A and B not read). */
static void batches_and_k0(const mma_case *c) {
    const shape list[] = {
        {37, 45, 40, 0, 1, 3, 0, 0, 8, 1.5f, 0.0f}, {37, 45, 40, 1, 0, 3, 0, 0, 3, 1.0f, -1.0f},
        {20, 9, 33, 1, 1, 3, 1, 5, 7, -0.5f, 2.0f}, {19, 13, 0, 0, 0, 3, 0, 0, 1, 0.0f, 0.5f},
        {19, 13, 0, 1, 1, 1, 0, 2, 0, 0.0f, 0.0f},
    };
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        run(c, &list[i]);
    }
}

/* One warp tile a group, C in f32. */
static bool one_warp(const mma_case *c) {
    return c->p.tile_m == c->p.work_m && c->p.tile_n == c->p.work_n && c->out == XGPU_F32;
}

/* Each kernel built once: the edges, the batches and, on the one-warp
 * tiles, every edge size. */
static void one_type(xgpu_dtype in) {
    mma_case cs[12];
    size_t count = cases_of(in, cs);
    for (size_t ci = 0; ci < count; ci++) {
        mma_case *c = &cs[ci];
        build(c);
        edges_every_transpose(c);
        batches_and_k0(c);
        if (one_warp(c)) {
            every_edge_size(c);
        }
        XT_OK(xgpu_kernel_release(c->kernel));
    }
}

static void f16(void **state) {
    (void)state;
    one_type(XGPU_F16);
}

static void bf16(void **state) {
    (void)state;
    one_type(XGPU_BF16);
}

static void tf32(void **state) {
    (void)state;
    one_type(XGPU_F32);
}

/* For oclgrind: each input type on both tiles, one edge problem per
 * transpose, one batch. */
static void tiny(void **state) {
    (void)state;
    for (size_t t = 0; t < 3; t++) {
        mma_case cs[12];
        size_t count = cases_of(ins[t], cs);
        for (size_t ci = 0; ci < count; ci += 1) {
            mma_case *c = &cs[ci];
            bool mfma = c->path && !strcmp(c->path, "fragments-mfma");
            if ((ci == 1 && t != 0) || (mfma && c->p.tile_m != c->p.work_m)) {
                continue; /* the two-warp tile once; MFMA's layout on one warp */
            }
            build(c);
            for (uint32_t tr = 0; tr < 4; tr++) {
                shape s = {c->p.tile_m + 1,
                           c->p.tile_n + 1,
                           c->p.tile_k + 1,
                           tr / 2,
                           tr % 2,
                           tr == 3 ? 2 : 1,
                           tr == 1,
                           0,
                           1,
                           1.0f,
                           tr % 2 ? 0.0f : 0.5f};
                run(c, &s);
            }
            XT_OK(xgpu_kernel_release(c->kernel));
        }
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "tiny")) {
        const struct CMUnitTest tests[] = {cmocka_unit_test(conversions),
                                           cmocka_unit_test(one_fragment), cmocka_unit_test(tiny)};
        return XT_RUN("gemm_mma_kernel_tiny", tests);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conversions), cmocka_unit_test(one_fragment), cmocka_unit_test(f16),
        cmocka_unit_test(bf16),        cmocka_unit_test(tf32),
    };
    return XT_RUN("gemm_mma_kernel", tests);
}
