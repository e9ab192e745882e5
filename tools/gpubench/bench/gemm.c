/* GEMM: xgpu's kernels (f32, f64, tf32, and f16 and bf16 with C in f32),
 * one GEMM or strided-batched, the vendor BLAS on the same buffers (and
 * its int8 GEMM), and OpenBLAS on the host as the CPU baseline. Every
 * result is checked against a double-precision reference from the stored
 * operands at sampled elements (gemm_host.c); each row names the path,
 * the multiply's precision and the peak it is read against. */
#include "gemm_host.h"
#include "measure.h"
#include "peaks.h"
#include "vendor_blas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One --dtype of the GEMM benchmark. */
typedef struct gemm_spec {
    const char *name;
    xgpu_dtype in, out; /* xgpu's A and B, and C; 0: the vendor's alone (int8) */
    uint32_t flags;
    gm_elem host_in, host_out;
    vb_type vendor;
} gemm_spec;

/* xgpu_gemm_params.contiguous in words (docs/tuning.md). */
static const char *family_name(uint32_t contiguous) {
    switch (contiguous) {
    case 0:
    case 1:
        return "CPU";
    case XGPU_GEMM_GPU:
        return "GPU";
    case XGPU_GEMM_FRAGMENTS:
        return "fragment";
    case XGPU_GEMM_REGISTERS:
        return "register";
    default:
        return "unknown";
    }
}

static const gemm_spec specs[] = {
    {"f32", XGPU_F32, XGPU_F32, 0, GM_F32, GM_F32, VB_F32},
    {"f64", XGPU_F64, XGPU_F64, 0, GM_F64, GM_F64, VB_F64},
    {"f16", XGPU_F16, XGPU_F32, 0, GM_F16, GM_F32, VB_F16},
    {"bf16", XGPU_BF16, XGPU_F32, 0, GM_BF16, GM_F32, VB_BF16},
    {"tf32", XGPU_F32, XGPU_F32, XGPU_GEMM_ALLOW_TF32, GM_F32, GM_F32, VB_TF32},
    {"int8", 0, 0, 0, GM_I8, GM_I32, VB_I8},
};
enum { SPEC_F32, SPEC_F64, SPEC_F16, SPEC_BF16, SPEC_TF32, SPEC_INT8 };

typedef struct gemm_case {
    const gemm_spec *s;
    size_t m, n, k, batch; /* batch >= 1 */
    xgpu_dtype out;        /* xgpu's C */
    xgpu_buffer *a, *b, *c;
    void *ha, *hb, *hc;
    char shape[64];
    vb_gemm_info vinfo;
} gemm_case;

static xgpu_gemm_desc make_desc(const gemm_case *g) {
    xgpu_gemm_desc d = {.dtype = g->s->in,
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
                        .params = NULL,
                        .c_dtype = g->out,
                        .flags = g->s->flags};
    if (g->batch > 1) {
        d.batch = g->batch;
        d.stride_a = g->m * g->k;
        d.stride_b = g->k * g->n;
        d.stride_c = g->m * g->n;
    }
    return d;
}

static int run_xgpu(gb_env *env, void *arg) {
    gemm_case *g = arg;
    xgpu_gemm_desc d = make_desc(g);
    return xgpu_gemm(env->queue, &d, NULL) == XGPU_SUCCESS ? 0 : -1;
}

static vb_gemm_desc vendor_desc(const gemm_case *g) {
    vb_gemm_desc d = {g->s->vendor, g->m, g->n, g->k, g->batch, g->a, g->b, g->c};
    return d;
}

static int run_vendor(gb_env *env, void *arg) {
    gemm_case *g = arg;
    vb_gemm_desc d = vendor_desc(g);
    return vb_gemm_run(env->queue, &env->info, &d, &g->vinfo);
}

static gm_elem elem_of(const char *dtype) {
    return !strcmp(dtype, "f64")    ? GM_F64
           : !strcmp(dtype, "f16")  ? GM_F16
           : !strcmp(dtype, "bf16") ? GM_BF16
           : !strcmp(dtype, "i32")  ? GM_I32
                                    : GM_F32;
}

/* The peak the row is read against: the matrix units' for a multiply on
 * them, the FP32 lanes' otherwise; none for f64. */
static void set_peak(const gb_env *env, gb_result *r, bool matrix_units, const char *compute) {
    peak_figure p;
    if (!strcmp(compute, "f64")) {
        snprintf(r->peak_source, sizeof r->peak_source, "none: no fp64 peak is derived");
        return;
    }
    if (matrix_units) {
        peak_matrix(&env->info, compute, &p);
    } else {
        peak_fp32(&env->info, &p);
    }
    snprintf(r->peak_source, sizeof r->peak_source, "%s: %.250s",
             matrix_units ? "matrix units" : "fp32 lanes", p.provenance);
    r->peak_gflops = p.known ? p.value : -1;
}

/* Reads C back, checks it with the tolerance of the inputs' rounding
 * on the device (u_in) and the accumulation (acc), and sets the rate. */
static void finish_row(gb_env *env, gb_result *r, const gemm_case *g, gm_elem out, double u_in,
                       const char *acc) {
    size_t celem = gm_size(out);
    xgpu_buffer_read(env->queue, g->c, 0, g->hc, g->batch * g->m * g->n * celem, true, NULL);
    if (gb_inject("gemm")) {
        ((unsigned char *)g->hc)[celem * (g->n - 1) + celem - 1] ^= 0x40; /* a wrong element */
    }
    gm_check c = {g->s->host_in,
                  out,
                  g->m,
                  g->n,
                  g->k,
                  g->batch,
                  gm_tolerance(u_in, gm_acc_unit(acc), out, g->k)};
    r->verified = gm_verify(g->ha, g->hb, g->hc, &c, &r->max_rel_err);
    double flops = 2.0 * (double)g->m * (double)g->n * (double)g->k * (double)g->batch;
    r->unit = "GFLOP/s";
    r->rate = flops / r->t.median * 1e-9;
    if (r->peak_gflops > 0) {
        r->pct_peak = 100.0 * r->rate / r->peak_gflops;
    }
}

static void append_note(gb_result *r, const char *fmt, const char *a, const char *b) {
    size_t used = strlen(r->note);
    snprintf(r->note + used, sizeof r->note - used, "%s", used ? "; " : "");
    used = strlen(r->note);
    snprintf(r->note + used, sizeof r->note - used, fmt, a, b);
}

static void poison(gb_env *env, const gemm_case *g, size_t celem) {
    uint32_t p = GM_POISON;
    xgpu_buffer_fill(env->queue, g->c, 0, g->batch * g->m * g->n * celem, &p, 4, NULL);
}

/* xgpu's row before it runs: the path xgpu_gemm_choose takes and the peak
 * it is read against. *runs: whether there is anything to time. */
static gb_result *xgpu_row(gb_env *env, gemm_case *g, xgpu_gemm_choice *ch, bool *runs) {
    const gemm_spec *s = g->s;
    *runs = false;
    gb_result *r = gb_add(env, "gemm", "xgpu", s->name, g->shape, (double)g->n);
    if (!r) {
        return NULL;
    }
    r->unit = "GFLOP/s";
    r->batch = g->batch;
    snprintf(r->c_dtype, sizeof r->c_dtype, "%s", xgpu_dtype_name(g->out));
    xgpu_gemm_desc d = make_desc(g);
    memset(ch, 0, sizeof *ch);
    r->kernel = "gemm";
    gb_note_tune_before(env, r, r->kernel, s->in, g->m * g->n * g->k);
    xgpu_status st = xgpu_gemm_choose(env->queue, &d, ch); /* an XGPU_TUNE=auto tune runs here */
    if (st == XGPU_ERROR_UNSUPPORTED) {
        /* The library or this device lacks the precision: said, not failed. */
        snprintf(r->note, sizeof r->note, "not run: %s", xgpu_last_error()->message);
        r->verified = true;
        return r;
    }
    const char *compute = ch->compute ? ch->compute : s->name;
    snprintf(r->path, sizeof r->path, "%s", ch->path ? ch->path : "");
    snprintf(r->compute, sizeof r->compute, "%s", compute);
    bool matrix = ch->path && (!strcmp(ch->path, "mma.sync") || !strcmp(ch->path, "mfma"));
    set_peak(env, r, matrix, compute);
    if (st != XGPU_SUCCESS) {
        snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
        return r;
    }
    *runs = true;
    return r;
}

/* After the timing: a run into poisoned C, checked, and the row's notes. */
static void xgpu_finish(gb_env *env, gemm_case *g, gb_result *r, const xgpu_gemm_choice *ch) {
    const gemm_spec *s = g->s;
    poison(env, g, gm_size(elem_of(r->c_dtype)));
    if (run_xgpu(env, g) != 0) {
        snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
        return;
    }
    finish_row(env, r, g, elem_of(r->c_dtype), !strcmp(r->compute, "tf32") ? 0x1p-11 : 0,
               !strcmp(r->compute, "f64") ? "f64" : "f32");
    if (s->in != XGPU_F32 && s->in != XGPU_F64) {
        append_note(r, "A, B %s, C %s", s->name, r->c_dtype);
    }
    if (ch->path) {
        char family[64];
        snprintf(family, sizeof family, "%s, %s family", r->compute,
                 family_name(ch->params.contiguous));
        append_note(r, "path %s, compute %s", ch->path, family);
    }
    gb_note_params(env, r, r->kernel, s->in, g->m * g->n * g->k);
}

/* The vendor library's row: a first call tells whether the library is
 * there at all (C poisoned in the widest C any library writes for this
 * precision). *runs: whether there is anything to time. */
static gb_result *vendor_row(gb_env *env, gemm_case *g, bool *runs) {
    const gemm_spec *s = g->s;
    *runs = false;
    poison(env, g, gm_size(s->host_out));
    int rc = run_vendor(env, g);
    const vb_gemm_info *v = &g->vinfo;
    gb_result *vr = gb_add(env, "gemm", v->impl, s->name, g->shape, (double)g->n);
    if (!vr) {
        return NULL;
    }
    vr->unit = "GFLOP/s";
    vr->batch = g->batch;
    snprintf(vr->c_dtype, sizeof vr->c_dtype, "%s", v->c_dtype);
    snprintf(vr->path, sizeof vr->path, "%s", v->call);
    snprintf(vr->compute, sizeof vr->compute, "%s", s->name);
    if (rc != 0) {
        snprintf(vr->note, sizeof vr->note, "%s", v->reason);
        vr->verified = true; /* nothing ran, nothing to verify */
        return vr;
    }
    bool matrix = strcmp(v->impl, "clblast") && s->vendor != VB_F32 && s->vendor != VB_F64;
    set_peak(env, vr, matrix, s->name);
    *runs = true;
    return vr;
}

static void vendor_finish(gb_env *env, gemm_case *g, gb_result *vr, gb_result *xr) {
    const gemm_spec *s = g->s;
    const vb_gemm_info *v = &g->vinfo;
    poison(env, g, gm_size(s->host_out));
    if (run_vendor(env, g) != 0) {
        snprintf(vr->note, sizeof vr->note, "%s", v->reason);
        return;
    }
    finish_row(env, vr, g, elem_of(v->c_dtype), s->vendor == VB_TF32 ? 0x1p-11 : 0, v->acc);
    append_note(vr, "%s, C %s", v->call, v->c_dtype);
    if (xr && xr->verified && xr->rate > 0 && vr->verified && vr->rate > 0) {
        char ratio[32];
        snprintf(ratio, sizeof ratio, "%.2fx", xr->rate / vr->rate);
        append_note(xr, "%s %s", ratio, v->impl);
    }
}

/* xgpu and the vendor library on the same operands, timed in the same
 * rounds (gb_time_rounds), so that clocks that fall as the device warms
 * fall for both; each then runs once more into poisoned C to be checked. */
static void time_pair(gb_env *env, gemm_case *g) {
    char what[96];
    snprintf(what, sizeof what, "gemm %s %s: xgpu, vendor", g->s->name, g->shape);
    gb_progress(env, what);
    xgpu_gemm_choice ch;
    bool xruns = false, vruns = false;
    gb_result *xr = g->s->in ? xgpu_row(env, g, &ch, &xruns) : NULL;
    gb_result *vr = vendor_row(env, g, &vruns);
    gb_timed timed[2];
    gb_result *rows[2];
    size_t n = 0;
    if (xr && xruns) {
        rows[n] = xr;
        timed[n++] = (gb_timed){.fn = run_xgpu, .arg = g, .st = &xr->t, .first_s = &xr->first_s};
    }
    if (vr && vruns) {
        rows[n] = vr;
        timed[n++] = (gb_timed){.fn = run_vendor, .arg = g, .st = &vr->t, .first_s = &vr->first_s};
    }
    gb_time_rounds(env, timed, n);
    for (size_t i = 0; i < n; i++) {
        gb_result *r = rows[i];
        bool vendor = r == vr;
        if (timed[i].rc) {
            if (!vendor && timed[i].status == XGPU_ERROR_UNSUPPORTED) {
                snprintf(r->note, sizeof r->note, "not run: %s", timed[i].why);
                r->verified = true;
            } else {
                snprintf(r->note, sizeof r->note, "%s", vendor ? g->vinfo.reason : timed[i].why);
            }
        } else if (vendor) {
            vendor_finish(env, g, vr, xr);
        } else {
            xgpu_finish(env, g, xr, &ch);
        }
    }
}

static void one_case(gb_env *env, size_t m, size_t n, size_t k, size_t batch, const gemm_spec *s) {
    gemm_case g = {.s = s, .m = m, .n = n, .k = k, .batch = batch ? batch : 1, .out = s->out};
    size_t in = gm_size(s->host_in), out = gm_size(s->host_out);
    size_t na = g.batch * m * k, nb = g.batch * k * n, nc = g.batch * m * n;
    if (g.batch > 1) {
        snprintf(g.shape, sizeof g.shape, "%zux%zux%zu x%zu", m, n, k, g.batch);
    } else {
        snprintf(g.shape, sizeof g.shape, "%zux%zux%zu", m, n, k);
    }
    size_t most = env->info.max_alloc_bytes;
    if (most && (na * in > most || nb * in > most || nc * out > most)) {
        return;
    }
    g.ha = malloc(na * in), g.hb = malloc(nb * in), g.hc = malloc(nc * out);
    if (!g.ha || !g.hb || !g.hc || xgpu_buffer_create(env->ctx, na * in, &g.a) ||
        xgpu_buffer_create(env->ctx, nb * in, &g.b) ||
        xgpu_buffer_create(env->ctx, nc * out, &g.c)) {
        fprintf(stderr, "gpubench: gemm %s %s: %s\n", s->name, g.shape,
                g.ha && g.hb && g.hc ? xgpu_last_error()->message : "out of host memory");
        goto done;
    }
    gm_fill(g.ha, s->host_in, na, 11);
    gm_fill(g.hb, s->host_in, nb, 12);
    xgpu_buffer_write(env->queue, g.a, 0, g.ha, na * in, true, NULL);
    xgpu_buffer_write(env->queue, g.b, 0, g.hb, nb * in, true, NULL);
    time_pair(env, &g);
done:
    xgpu_buffer_release(g.a);
    xgpu_buffer_release(g.b);
    xgpu_buffer_release(g.c);
    free(g.ha);
    free(g.hb);
    free(g.hc);
}

void gb_bench_gemm(gb_env *env) {
    const gb_options *o = env->opt;
    size_t quick[] = {256, 1024};
    size_t full[] = {128, 256, 512, 1024, 2048, 4096, 8192, 16384};
    const size_t *sizes = o->full ? full : quick;
    size_t count = o->full ? sizeof full / sizeof full[0] : 2;
    size_t batch = o->batch;
    size_t one[1] = {o->size ? o->size : GB_BATCH_DEFAULT_N};
    if (o->size || batch > 1) {
        sizes = one;
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
        one_case(env, sizes[i], sizes[i], sizes[i], batch, &specs[SPEC_F32]);
        slowest = 0;
        for (size_t r = before; r < env->results.count; r++) {
            double median = env->results.rows[r]->t.median;
            slowest = median > slowest ? median : slowest;
        }
    }
    size_t n = o->size ? o->size : batch > 1 ? GB_BATCH_DEFAULT_N : 1024;
    if (env->info.fp64 && gb_selected(o->dtypes, "f64")) {
        size_t n64 = o->size || batch > 1 ? n : 512;
        one_case(env, n64, n64, n64, batch, &specs[SPEC_F64]);
    }
    static const int mixed[] = {SPEC_TF32, SPEC_F16, SPEC_BF16, SPEC_INT8};
    for (size_t i = 0; i < sizeof mixed / sizeof mixed[0]; i++) {
        if (gb_selected(o->dtypes, specs[mixed[i]].name)) {
            one_case(env, n, n, n, batch, &specs[mixed[i]]);
        }
    }
    if (o->full && batch <= 1 && gb_selected(o->dtypes, "f32")) {
        one_case(env, 8192, 64, 8192, 1, &specs[SPEC_F32]); /* tall-skinny */
    }
}
