/* GEMM: xgpu's kernels (f32, f64, f16 storage), the vendor BLAS on the
 * same buffers (SGEMM), and OpenBLAS on the host as the CPU baseline. Every
 * result is checked against a double-precision reference at sampled
 * elements, the last row and the last column. */
#include "measure.h"
#include "vendor_blas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(GB_HAVE_OPENBLAS)
#include <cblas.h>
#endif

typedef struct gemm_case {
    size_t m, n, k;
    xgpu_dtype dtype;
    xgpu_buffer *a, *b, *c;
    char impl[16];
    char reason[256];
} gemm_case;

static int run_xgpu(gb_env *env, void *arg) {
    gemm_case *g = arg;
    xgpu_gemm_desc d = {.dtype = g->dtype,
                        .layout = XGPU_ROW_MAJOR,
                        .trans_a = XGPU_NO_TRANS,
                        .trans_b = XGPU_NO_TRANS,
                        .m = g->m,
                        .n = g->n,
                        .k = g->k,
                        .alpha = 1.0,
                        .beta = 0.0,
                        .a = {g->a, 0, g->k},
                        .b = {g->b, 0, g->n},
                        .c = {g->c, 0, g->n},
                        .params = NULL};
    return xgpu_gemm(env->queue, &d, NULL) == XGPU_SUCCESS ? 0 : -1;
}

static int run_vendor(gb_env *env, void *arg) {
    gemm_case *g = arg;
    return vb_gemm(env->queue, &env->info, g->dtype, g->m, g->n, g->k, g->a, g->b, g->c, g->impl,
                   sizeof g->impl, g->reason, sizeof g->reason);
}

static uint16_t to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t exp = (int32_t)((x >> 23) & 0xff) - 112;
    uint32_t mant = x & 0x7fffff;
    if (exp <= 0) {
        return (uint16_t)sign;
    }
    uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fff;
    return (uint16_t)(h + (rest > 0x1000 || (rest == 0x1000 && (h & 1))));
}

static double from_half(uint16_t h) {
    int e = (h >> 10) & 0x1f;
    double v = e ? ldexp(1.0 + (h & 0x3ff) / 1024.0, e - 15) : ldexp((h & 0x3ff) / 1024.0, -14);
    return (h & 0x8000) ? -v : v;
}

static double get(const void *p, xgpu_dtype dt, size_t i) {
    return dt == XGPU_F64   ? ((const double *)p)[i]
           : dt == XGPU_F16 ? from_half(((const uint16_t *)p)[i])
                            : ((const float *)p)[i];
}

/* Sampled check of C = A B (row-major); returns the largest error
 * relative to sum |a b| and whether all were within tolerance. */
static bool check(const void *a, const void *b, const void *c, const gemm_case *g,
                  double *max_rel) {
    double eps = g->dtype == XGPU_F64 ? 0x1p-52 : 0x1p-23;
    double out_eps = g->dtype == XGPU_F16 ? 0x1p-11 : 0;
    uint32_t s = 77;
    bool ok = true;
    *max_rel = 0;
    for (int t = 0; t < 256; t++) {
        size_t i = t < 64 ? g->m - 1 : gb_rand(&s) % g->m;
        size_t j = t >= 64 && t < 128 ? g->n - 1 : gb_rand(&s) % g->n;
        double ref = 0, scale = 0;
        for (size_t k = 0; k < g->k; k++) {
            double p = get(a, g->dtype, i * g->k + k) * get(b, g->dtype, k * g->n + j);
            ref += p;
            scale += fabs(p);
        }
        double got = get(c, g->dtype, i * g->n + j);
        double rel = fabs(got - ref) / (scale > 0 ? scale : 1);
        if (!(rel <= 2.0 * (double)(g->k + 2) * eps + out_eps)) {
            ok = false;
            rel = isnan(rel) ? INFINITY : rel;
        }
        *max_rel = rel > *max_rel ? rel : *max_rel;
    }
    return ok;
}

static void fill(void *p, xgpu_dtype dt, size_t n, uint32_t seed) {
    uint32_t s = seed;
    for (size_t i = 0; i < n; i++) {
        float v = (float)(gb_rand(&s) >> 8) / (float)(1 << 24) - 0.5f;
        if (dt == XGPU_F64) {
            ((double *)p)[i] = v;
        } else if (dt == XGPU_F16) {
            ((uint16_t *)p)[i] = to_half(v);
        } else {
            ((float *)p)[i] = v;
        }
    }
}

static void finish_row(gb_env *env, gb_result *r, const gemm_case *g, const void *ha,
                       const void *hb, void *hc, size_t celem) {
    xgpu_buffer_read(env->queue, g->c, 0, hc, g->m * g->n * celem, true, NULL);
    if (gb_inject("gemm")) {
        ((unsigned char *)hc)[celem * (g->n - 1)] ^= 0x40; /* a wrong element */
    }
    r->verified = check(ha, hb, hc, g, &r->max_rel_err);
    double flops = 2.0 * (double)g->m * (double)g->n * (double)g->k;
    r->unit = "GFLOP/s";
    r->rate = flops / r->t.median * 1e-9;
    if (env->peak_gflops > 0 && g->dtype != XGPU_F64) {
        r->pct_peak = 100.0 * r->rate / env->peak_gflops;
    }
}

static void one_case(gb_env *env, size_t m, size_t n, size_t k, xgpu_dtype dt, bool vendor) {
    const char *dts = xgpu_dtype_name(dt);
    size_t elem = xgpu_dtype_size(dt);
    char shape[64];
    snprintf(shape, sizeof shape, "%zux%zux%zu", m, n, k);
    size_t bytes = (m * k + k * n + m * n) * elem;
    if (env->info.max_alloc_bytes && bytes > env->info.max_alloc_bytes) {
        return;
    }
    void *ha = malloc(m * k * elem), *hb = malloc(k * n * elem), *hc = malloc(m * n * elem);
    gemm_case g = {m, n, k, dt, NULL, NULL, NULL, "", ""};
    if (!ha || !hb || !hc || xgpu_buffer_create(env->ctx, m * k * elem, &g.a) ||
        xgpu_buffer_create(env->ctx, k * n * elem, &g.b) ||
        xgpu_buffer_create(env->ctx, m * n * elem, &g.c)) {
        fprintf(stderr, "gpubench: gemm %s %s: %s\n", dts, shape, xgpu_last_error()->message);
        goto done;
    }
    fill(ha, dt, m * k, 11);
    fill(hb, dt, k * n, 12);
    xgpu_buffer_write(env->queue, g.a, 0, ha, m * k * elem, true, NULL);
    xgpu_buffer_write(env->queue, g.b, 0, hb, k * n * elem, true, NULL);

    char what[96];
    snprintf(what, sizeof what, "gemm xgpu %s %s", dts, shape);
    gb_progress(env, what);
    gb_result *r = gb_add(env, "gemm", "xgpu", dts, shape, (double)n);
    if (r && gb_time_device(env, run_xgpu, &g, &r->t, &r->first_s) == 0) {
        finish_row(env, r, &g, ha, hb, hc, elem);
        gb_note_params(env, r, "gemm", dt, m * n * k);
    } else if (r) {
        snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
        r->unit = "GFLOP/s";
    }
    if (vendor && (dt == XGPU_F32 || dt == XGPU_F64)) {
        gemm_case v = g;
        snprintf(what, sizeof what, "gemm vendor %s %s", dts, shape);
        gb_progress(env, what);
        /* A first call tells whether the library is there at all. */
        uint32_t poison = 0xffffffffu;
        xgpu_buffer_fill(env->queue, v.c, 0, m * n * elem, &poison, 4, NULL);
        if (run_vendor(env, &v) == 0) {
            gb_result *vr = gb_add(env, "gemm", v.impl, dts, shape, (double)n);
            if (vr && gb_time_device(env, run_vendor, &v, &vr->t, &vr->first_s) == 0) {
                finish_row(env, vr, &v, ha, hb, hc, elem);
                if (r && r->verified && vr->verified && vr->rate > 0) {
                    size_t used = strlen(r->note);
                    snprintf(r->note + used, sizeof r->note - used, "%s%.2fx %s", used ? "; " : "",
                             r->rate / vr->rate, v.impl);
                }
            }
        } else {
            gb_result *vr = gb_add(env, "gemm", v.impl, dts, shape, (double)n);
            if (vr) {
                vr->unit = "GFLOP/s";
                snprintf(vr->note, sizeof vr->note, "%s", v.reason);
                vr->verified = true; /* nothing ran, nothing to verify */
                vr->rate = -1;
            }
        }
    }
done:
    xgpu_buffer_release(g.a);
    xgpu_buffer_release(g.b);
    xgpu_buffer_release(g.c);
    free(ha);
    free(hb);
    free(hc);
}

void gb_bench_gemm(gb_env *env) {
    const gb_options *o = env->opt;
    size_t quick[] = {256, 1024};
    size_t full[] = {128, 256, 512, 1024, 2048, 4096, 8192, 16384};
    const size_t *sizes = o->full ? full : quick;
    size_t count = o->full ? sizeof full / sizeof full[0] : 2;
    if (o->size) {
        sizes = &o->size;
        count = 1;
    }
    double slowest = 0; /* the slowest run of the previous size */
    for (size_t i = 0; i < count; i++) {
        /* The sweep stops where the next size (8x the work) would take
         * more than 10 s a run on this device: a CPU device would
         * otherwise spend hours on the largest sizes that fit its memory. */
        if ((o->full && slowest * 8 > 10.0) || !gb_selected(o->dtypes, "f32")) {
            break;
        }
        size_t before = env->results.count;
        one_case(env, sizes[i], sizes[i], sizes[i], XGPU_F32, true);
        slowest = 0;
        for (size_t r = before; r < env->results.count; r++) {
            double median = env->results.rows[r]->t.median;
            slowest = median > slowest ? median : slowest;
        }
    }
    if (env->info.fp64 && gb_selected(o->dtypes, "f64")) {
        one_case(env, o->size ? o->size : 512, o->size ? o->size : 512, o->size ? o->size : 512,
                 XGPU_F64, true);
    }
    if (gb_selected(o->dtypes, "f16")) {
        one_case(env, o->size ? o->size : 1024, o->size ? o->size : 1024, o->size ? o->size : 1024,
                 XGPU_F16, false);
    }
    if (o->full && gb_selected(o->dtypes, "f32")) {
        one_case(env, 8192, 64, 8192, XGPU_F32, true); /* tall-skinny */
    }
}

/* ---- OpenBLAS on the host ---- */
#if defined(GB_HAVE_OPENBLAS)
typedef struct host_gemm {
    size_t n;
    float *a, *b, *c;
} host_gemm;

static int run_openblas(void *arg) {
    host_gemm *h = arg;
    int n = (int)h->n;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, h->a, n, h->b, n, 0.0f,
                h->c, n);
    return 0;
}
#endif

void gb_bench_openblas(gb_env *env) {
#if defined(GB_HAVE_OPENBLAS)
    const gb_options *o = env->opt;
    size_t quick[] = {256, 1024}, full[] = {256, 1024, 2048, 4096};
    const size_t *sizes = o->full ? full : quick;
    size_t count = o->full ? 4 : 2;
    if (o->size) {
        sizes = &o->size;
        count = 1;
    }
    for (size_t i = 0; i < count; i++) {
        size_t n = sizes[i];
        host_gemm h = {n, malloc(n * n * 4), malloc(n * n * 4), malloc(n * n * 4)};
        if (!h.a || !h.b || !h.c) {
            free(h.a), free(h.b), free(h.c);
            continue;
        }
        fill(h.a, XGPU_F32, n * n, 11);
        fill(h.b, XGPU_F32, n * n, 12);
        char shape[64], what[96];
        snprintf(shape, sizeof shape, "%zux%zux%zu", n, n, n);
        snprintf(what, sizeof what, "gemm openblas f32 %s", shape);
        gb_progress(env, what);
        gb_result *r = gb_add(env, "gemm", "openblas", "f32", shape, (double)n);
        if (r && gb_time_host(env, run_openblas, &h, &r->t, &r->first_s) == 0) {
            gemm_case g = {n, n, n, XGPU_F32, NULL, NULL, NULL, "", ""};
            if (gb_inject("gemm")) {
                h.c[n - 1] += 1.0f;
            }
            r->verified = check(h.a, h.b, h.c, &g, &r->max_rel_err);
            r->unit = "GFLOP/s";
            r->rate = 2.0 * (double)n * n * n / r->t.median * 1e-9;
            snprintf(r->note, sizeof r->note, "OpenBLAS core %s, %d threads (%s)",
                     openblas_get_corename(), openblas_get_num_threads(), openblas_get_config());
        }
        free(h.a);
        free(h.b);
        free(h.c);
    }
#else
    gb_result *r = gb_add(env, "gemm", "openblas", "f32", "-", 0);
    if (r) {
        r->unit = "GFLOP/s";
        r->rate = -1;
        r->verified = true;
        snprintf(r->note, sizeof r->note, "not run: built without OpenBLAS (libopenblas-dev)");
    }
#endif
}
