/* -b reduce: xgpu_reduce's sum of f32, f64 and i32 beside a device-to-device
 * copy of the same bytes (its ceiling), min, max and argmax of the f32
 * input, and clpeak's global bandwidth on an OpenCL device. Every result is
 * checked against the host's. */
#include "measure.h"
#include "peers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct reduce_case {
    xgpu_dtype dtype;
    xgpu_buffer *in, *out;
    size_t n;
    xgpu_reduce_op op; /* 0: the sum */
} reduce_case;

static int run_reduce(gb_env *env, void *arg) {
    reduce_case *c = arg;
    xgpu_reduce_op op = c->op ? c->op : XGPU_REDUCE_SUM;
    return xgpu_reduce(env->queue, op, c->dtype, c->in, 0, c->n, c->out, 0, NULL) == XGPU_SUCCESS
               ? 0
               : -1;
}

/* The device-to-device copy of a reduction's input, the ceiling a sum is
 * read against: its bandwidth counts the bytes read and written. Returns
 * the row's GB/s, 0 when it did not run or did not verify. */
typedef struct copy_case {
    xgpu_buffer *src, *dst;
    size_t bytes;
} copy_case;

static int run_copy(gb_env *env, void *arg) {
    copy_case *c = arg;
    return xgpu_buffer_copy(env->queue, c->src, 0, c->dst, 0, c->bytes, NULL) == XGPU_SUCCESS ? 0
                                                                                              : -1;
}

static double copy_row(gb_env *env, xgpu_buffer *src, const unsigned char *host, size_t bytes) {
    char shape[64];
    gb_shape_mib(shape, sizeof shape, "d2d copy", (double)bytes);
    gb_result *r = gb_add(env, "reduce", "xgpu", "u8", shape, (double)bytes);
    copy_case c = {src, NULL, bytes};
    unsigned char *back = malloc(bytes);
    if (!r || !back || xgpu_buffer_create(env->ctx, bytes, &c.dst)) {
        if (r) {
            snprintf(r->note, sizeof r->note, "not run: %s",
                     back ? xgpu_last_error()->message : "out of host memory");
        }
        free(back);
        return 0;
    }
    gb_progress(env, shape);
    double gbs = 0;
    if (gb_time_device(env, run_copy, &c, &r->t, &r->first_s) != 0) {
        snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
    } else if (xgpu_buffer_read(env->queue, c.dst, 0, back, bytes, true, NULL) == XGPU_SUCCESS) {
        r->verified = memcmp(back, host, bytes) == 0;
        gb_set_bandwidth(env, r, 2.0 * (double)bytes);
        snprintf(r->note, sizeof r->note, "xgpu_buffer_copy; bytes read plus bytes written");
        gbs = r->verified ? r->rate : 0;
    }
    free(back);
    xgpu_buffer_release(c.dst);
    return gbs;
}

/* clpeak's global-memory bandwidth on the same OpenCL device, as the
 * reference the reductions are read against. */
static void clpeak_row(gb_env *env) {
    if (strcmp(env->info.backend, "opencl") != 0) {
        return;
    }
    gb_progress(env, "clpeak --global-bandwidth");
    double t0 = gb_now();
    char why[200] = "";
    double gbs = peer_clpeak_bandwidth(env->info.name, why, sizeof why);
    gb_result *r = gb_add(env, "reduce", "clpeak", "f32", "global bandwidth", 0);
    if (!r) {
        return;
    }
    r->unit = "GB/s";
    r->verified = true; /* clpeak's own figure: nothing of ours to check */
    if (gbs > 0) {
        r->rate = gbs; /* clpeak's figure; its own repetitions, not timed here */
        snprintf(r->note, sizeof r->note,
                 "clpeak --global-bandwidth, best float vector width (ran %.1f s)", gb_now() - t0);
    } else {
        r->rate = -1;
        snprintf(r->note, sizeof r->note, "%s", why);
    }
}

/* min, max and argmax of the fp32 input beside its sum: verified against
 * the host's, with the time as a multiple of the sum's. */
static void minmax_rows(gb_env *env, const reduce_case *sum, double lo, double hi, size_t at,
                        double sum_s, double bytes) {
    static const xgpu_reduce_op ops[] = {XGPU_REDUCE_MIN, XGPU_REDUCE_MAX, XGPU_REDUCE_ARGMAX};
    static const char *const names[] = {"min", "max", "argmax"};
    for (int o = 0; o < 3; o++) {
        reduce_case c = *sum;
        c.op = ops[o];
        char shape[64], what[96];
        gb_shape_mib(shape, sizeof shape, names[o], bytes);
        snprintf(what, sizeof what, "reduce f32 %s", shape);
        gb_progress(env, what);
        gb_result *r = gb_add(env, "reduce", "xgpu", "f32", shape, bytes);
        if (!r) {
            return;
        }
        if (gb_time_device(env, run_reduce, &c, &r->t, &r->first_s) != 0) {
            snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
            continue;
        }
        unsigned char res[8] = {0};
        xgpu_buffer_read(env->queue, c.out, 0, res, 8, true, NULL);
        if (ops[o] == XGPU_REDUCE_ARGMAX) {
            uint64_t got;
            memcpy(&got, res, 8);
            r->verified = got == at;
        } else {
            float got;
            memcpy(&got, res, 4);
            r->verified = got == (float)(ops[o] == XGPU_REDUCE_MIN ? lo : hi);
        }
        gb_set_bandwidth(env, r, bytes);
        snprintf(r->note, sizeof r->note, "%.2fx the sum's time", r->t.median / sum_s);
        gb_note_params(env, r, ops[o] == XGPU_REDUCE_ARGMAX ? "argmax" : "minmax", XGPU_F32,
                       (size_t)bytes);
    }
}

/* The host's view of a reduction's input: its compensated sum, the sum of
 * magnitudes (the tolerance's scale), and the extremes. */
typedef struct reduce_ref {
    double sum, sum_abs, lo, hi;
    size_t max_at; /* the first index of the largest value */
} reduce_ref;

/* n pseudo-random elements of dt into h (i32 in [-1000, 1000], floats in
 * [0, 1)), and what the host makes of them. */
static void fill_input(xgpu_dtype dt, unsigned char *h, size_t n, reduce_ref *ref) {
    size_t elem = xgpu_dtype_size(dt);
    uint32_t seed = 5;
    double sum = 0, comp = 0, sum_abs = 0, lo = INFINITY, hi = -INFINITY;
    size_t max_at = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = gb_rand(&seed);
        double v;
        if (dt == XGPU_I32) {
            int32_t x = (int32_t)(r % 2001) - 1000;
            memcpy(h + i * elem, &x, 4);
            v = x;
        } else {
            v = (double)(r >> 8) / (1 << 24);
            if (dt == XGPU_F32) {
                float f = (float)v;
                memcpy(h + i * elem, &f, 4);
                v = f;
            } else {
                memcpy(h + i * elem, &v, 8);
            }
        }
        if (v > hi) {
            hi = v;
            max_at = i;
        }
        lo = v < lo ? v : lo;
        double y = v - comp, u = sum + y;
        comp = (u - sum) - y;
        sum = u;
        sum_abs += fabs(v);
    }
    *ref = (reduce_ref){sum, sum_abs, lo, hi, max_at};
}

/* The sum the device wrote, as a double (i64 for i32 input). */
static double read_sum(gb_env *env, const reduce_case *c) {
    unsigned char res[8] = {0};
    xgpu_buffer_read(env->queue, c->out, 0, res, 8, true, NULL);
    double got;
    if (c->dtype == XGPU_I32) {
        int64_t g;
        memcpy(&g, res, 8);
        got = (double)g;
    } else if (c->dtype == XGPU_F32) {
        float g;
        memcpy(&g, res, 4);
        got = g;
    } else {
        memcpy(&got, res, 8);
    }
    return got;
}

/* The sum's row: timed, and checked against the host's sum within the
 * error bound of a tree of log2(n) levels. NULL when no row could be
 * added. */
static gb_result *sum_row(gb_env *env, reduce_case *c, const reduce_ref *ref, double bytes) {
    const char *dts = xgpu_dtype_name(c->dtype);
    char shape[64], what[96];
    gb_shape_mib(shape, sizeof shape, "", bytes);
    snprintf(what, sizeof what, "reduce %s %s", dts, shape);
    gb_progress(env, what);
    gb_result *r = gb_add(env, "reduce", "xgpu", dts, shape, bytes);
    if (r && gb_time_device(env, run_reduce, c, &r->t, &r->first_s) != 0) {
        snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
    } else if (r) {
        double got = read_sum(env, c);
        if (gb_inject("reduce")) {
            got += 1.0 + fabs(got) * 0.01;
        }
        double eps = c->dtype == XGPU_F32 ? 0x1p-24 : 0x1p-53;
        double tol = c->dtype == XGPU_I32 ? 0 : (log2((double)c->n) + 4) * eps * ref->sum_abs;
        r->max_rel_err = fabs(got - ref->sum) / (fabs(ref->sum) > 0 ? fabs(ref->sum) : 1);
        r->verified = fabs(got - ref->sum) <= tol;
        gb_set_bandwidth(env, r, bytes);
    }
    return r;
}

/* One dtype at one size: the sum, and for f32 the copy of the same bytes
 * and min, max and argmax beside it. */
static void one_size(gb_env *env, xgpu_dtype dt, double bytes) {
    size_t elem = xgpu_dtype_size(dt), n = (size_t)bytes / elem;
    reduce_case c = {dt, NULL, NULL, n, (xgpu_reduce_op)0};
    unsigned char *h = malloc(n * elem);
    if (!h || xgpu_buffer_create(env->ctx, n * elem, &c.in) ||
        xgpu_buffer_create(env->ctx, 8, &c.out)) {
        free(h);
        xgpu_buffer_release(c.in);
        return;
    }
    reduce_ref ref;
    fill_input(dt, h, n, &ref);
    xgpu_buffer_write(env->queue, c.in, 0, h, n * elem, true, NULL);
    gb_result *r = sum_row(env, &c, &ref, bytes);
    /* The fp32 sum beside the copy of the same bytes. */
    double copy = dt == XGPU_F32 ? copy_row(env, c.in, h, n * elem) : 0;
    if (r && copy > 0 && r->verified) {
        snprintf(r->note, sizeof r->note, "%.2fx the device-to-device copy's %.1f GB/s",
                 r->rate / copy, copy);
    }
    if (r && r->verified) {
        gb_note_params(env, r, "sum", dt, n * elem);
    }
    if (dt == XGPU_F32 && r && r->verified) {
        double sum_s = r->t.median;
        minmax_rows(env, &c, ref.lo, ref.hi, ref.max_at, sum_s, bytes);
    }
    free(h);
    xgpu_buffer_release(c.in);
    xgpu_buffer_release(c.out);
}

void gb_bench_reduce(gb_env *env) {
    static const double quick[] = {1, 64, 256}, full[] = {1, 4, 16, 64, 256, 1024};
    const double *mib = env->opt->full ? full : quick;
    size_t count = env->opt->full ? 6 : 3;
    double one = (double)env->opt->size;
    if (env->opt->size) {
        mib = &one;
        count = 1;
    }
    static const xgpu_dtype types[] = {XGPU_F32, XGPU_F64, XGPU_I32};
    clpeak_row(env);
    for (size_t t = 0; t < 3; t++) {
        if ((types[t] == XGPU_F64 && !env->info.fp64) ||
            !gb_selected(env->opt->dtypes, xgpu_dtype_name(types[t]))) {
            continue;
        }
        for (size_t s = 0; s < count; s++) {
            double bytes = mib[s] * GB_MIB;
            if (gb_fits(env, bytes)) {
                one_size(env, types[t], bytes);
            }
        }
    }
}
