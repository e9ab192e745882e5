/* Memory-bound benchmarks: reductions, the stream kernels, host<->device
 * transfers, and kernel launch latency. Every result is verified. */
#include "gpubench.h"
#include "peers.h"
#include "raw_launch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

static bool fits(const gb_env *env, double bytes) {
    return !env->info.max_alloc_bytes || bytes <= (double)env->info.max_alloc_bytes;
}

static void shape_mib(char *out, size_t size, const char *what, double bytes) {
    if (bytes >= MIB) {
        snprintf(out, size, "%s%s%.0f MiB", what, *what ? " " : "", bytes / MIB);
    } else {
        snprintf(out, size, "%s%s%.0f KiB", what, *what ? " " : "", bytes / 1024.0);
    }
}

static void set_bandwidth(gb_env *env, gb_result *r, double bytes) {
    r->unit = "GB/s";
    r->rate = bytes / r->t.median * 1e-9;
    if (env->peak_gbs > 0) {
        r->pct_peak = 100.0 * r->rate / env->peak_gbs;
    }
}

/* ---- reduce ---- */
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
    shape_mib(shape, sizeof shape, "d2d copy", (double)bytes);
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
        set_bandwidth(env, r, 2.0 * (double)bytes);
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
        shape_mib(shape, sizeof shape, names[o], bytes);
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
        set_bandwidth(env, r, bytes);
        snprintf(r->note, sizeof r->note, "%.2fx the sum's time", r->t.median / sum_s);
        gb_note_params(env, r, ops[o] == XGPU_REDUCE_ARGMAX ? "argmax" : "minmax", XGPU_F32,
                       (size_t)bytes);
    }
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
            double bytes = mib[s] * MIB;
            if (!fits(env, bytes)) {
                continue;
            }
            size_t elem = xgpu_dtype_size(types[t]), n = (size_t)bytes / elem;
            reduce_case c = {types[t], NULL, NULL, n, (xgpu_reduce_op)0};
            unsigned char *h = malloc(n * elem);
            if (!h || xgpu_buffer_create(env->ctx, n * elem, &c.in) ||
                xgpu_buffer_create(env->ctx, 8, &c.out)) {
                free(h);
                xgpu_buffer_release(c.in);
                continue;
            }
            uint32_t seed = 5;
            double ref = 0, comp = 0, sum_abs = 0, lo = INFINITY, hi = -INFINITY;
            size_t max_at = 0;
            for (size_t i = 0; i < n; i++) {
                uint32_t r = gb_rand(&seed);
                double v;
                if (types[t] == XGPU_I32) {
                    int32_t x = (int32_t)(r % 2001) - 1000;
                    memcpy(h + i * elem, &x, 4);
                    v = x;
                } else {
                    v = (double)(r >> 8) / (1 << 24);
                    if (types[t] == XGPU_F32) {
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
                double y = v - comp, u = ref + y;
                comp = (u - ref) - y;
                ref = u;
                sum_abs += fabs(v);
            }
            xgpu_buffer_write(env->queue, c.in, 0, h, n * elem, true, NULL);
            char shape[64], what[96];
            shape_mib(shape, sizeof shape, "", bytes);
            snprintf(what, sizeof what, "reduce %s %s", xgpu_dtype_name(types[t]), shape);
            gb_progress(env, what);
            gb_result *r = gb_add(env, "reduce", "xgpu", xgpu_dtype_name(types[t]), shape, bytes);
            if (r && gb_time_device(env, run_reduce, &c, &r->t, &r->first_s) != 0) {
                snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
            } else if (r) {
                unsigned char res[8] = {0};
                xgpu_buffer_read(env->queue, c.out, 0, res, 8, true, NULL);
                double got;
                if (types[t] == XGPU_I32) {
                    int64_t g;
                    memcpy(&g, res, 8);
                    got = (double)g;
                } else if (types[t] == XGPU_F32) {
                    float g;
                    memcpy(&g, res, 4);
                    got = g;
                } else {
                    memcpy(&got, res, 8);
                }
                if (gb_inject("reduce")) {
                    got += 1.0 + fabs(got) * 0.01;
                }
                double eps = types[t] == XGPU_F32 ? 0x1p-24 : 0x1p-53;
                double tol = types[t] == XGPU_I32 ? 0 : (log2((double)n) + 4) * eps * sum_abs;
                r->max_rel_err = fabs(got - ref) / (fabs(ref) > 0 ? fabs(ref) : 1);
                r->verified = fabs(got - ref) <= tol;
                set_bandwidth(env, r, bytes);
            }
            /* The fp32 sum beside the copy of the same bytes. */
            double copy = types[t] == XGPU_F32 ? copy_row(env, c.in, h, n * elem) : 0;
            if (r && copy > 0 && r->verified) {
                snprintf(r->note, sizeof r->note, "%.2fx the device-to-device copy's %.1f GB/s",
                         r->rate / copy, copy);
            }
            if (r && r->verified) {
                gb_note_params(env, r, "sum", types[t], n * elem);
            }
            if (types[t] == XGPU_F32 && r && r->verified) {
                double sum_s = r->t.median;
                minmax_rows(env, &c, lo, hi, max_at, sum_s, bytes);
            }
            free(h);
            xgpu_buffer_release(c.in);
            xgpu_buffer_release(c.out);
        }
    }
}

/* ---- stream ---- */
typedef struct stream_case {
    xgpu_stream_op op;
    xgpu_buffer *a, *b, *c, *out;
    size_t n;
} stream_case;

static int run_stream(gb_env *env, void *arg) {
    stream_case *s = arg;
    return xgpu_stream(env->queue, s->op, XGPU_F32, s->a, s->b, s->c, 0.4, s->n, s->out, NULL) ==
                   XGPU_SUCCESS
               ? 0
               : -1;
}

/* The host's copies of the three arrays, as the kernels should leave them,
 * and `res`, where what a kernel wrote is read back. */
typedef struct stream_host {
    float *a, *b, *c, *res;
} stream_host;

/* BabelStream's order; each kernel is idempotent given the previous ones,
 * so repetitions do not change the expected arrays. */
static const struct {
    xgpu_stream_op op;
    const char *name;
    int arrays;
} stream_ops[] = {{XGPU_STREAM_COPY, "copy", 2},
                  {XGPU_STREAM_MUL, "mul", 2},
                  {XGPU_STREAM_ADD, "add", 3},
                  {XGPU_STREAM_TRIAD, "triad", 3},
                  {XGPU_STREAM_DOT, "dot", 2}};
#define STREAM_SCALAR 0.4f

/* Host and device arrays of s->n floats: a and b pseudo-random in
 * [0.5, 1.5), c zero, written to the device. false when an allocation
 * fails (what was made is released by stream_release). */
static bool stream_setup(gb_env *env, stream_case *s, stream_host *h) {
    size_t n = s->n;
    h->a = malloc(n * 4), h->b = malloc(n * 4), h->c = malloc(n * 4), h->res = malloc(n * 4);
    if (!h->a || !h->b || !h->c || !h->res || xgpu_buffer_create(env->ctx, n * 4, &s->a) ||
        xgpu_buffer_create(env->ctx, n * 4, &s->b) || xgpu_buffer_create(env->ctx, n * 4, &s->c) ||
        xgpu_buffer_create(env->ctx, 8, &s->out)) {
        return false;
    }
    uint32_t seed = 9;
    for (size_t i = 0; i < n; i++) {
        h->a[i] = 0.5f + (float)(gb_rand(&seed) >> 8) / (float)(1 << 24);
        h->b[i] = 0.5f + (float)(gb_rand(&seed) >> 8) / (float)(1 << 24);
        h->c[i] = 0.0f;
    }
    xgpu_buffer_write(env->queue, s->a, 0, h->a, n * 4, true, NULL);
    xgpu_buffer_write(env->queue, s->b, 0, h->b, n * 4, true, NULL);
    xgpu_buffer_write(env->queue, s->c, 0, h->c, n * 4, true, NULL);
    return true;
}

static void stream_release(stream_case *s, stream_host *h) {
    xgpu_buffer_release(s->a);
    xgpu_buffer_release(s->b);
    xgpu_buffer_release(s->c);
    xgpu_buffer_release(s->out);
    free(h->a);
    free(h->b);
    free(h->c);
    free(h->res);
}

/* The host's version of step k on its arrays; for dot, the sum. */
static double stream_host_step(size_t k, stream_host *h, size_t n) {
    double dot = 0;
    for (size_t i = 0; i < n; i++) {
        switch (k) {
        case 0:
            h->c[i] = h->a[i];
            break;
        case 1:
            h->b[i] = STREAM_SCALAR * h->c[i];
            break;
        case 2:
            h->c[i] = h->a[i] + h->b[i];
            break;
        case 3:
            h->a[i] = h->b[i] + STREAM_SCALAR * h->c[i];
            break;
        default:
            dot += (double)h->a[i] * h->b[i];
            break;
        }
    }
    return dot;
}

/* Step k's result against the host's: the array the kernel wrote, element
 * by element, or dot's sum. Sets r->verified and r->max_rel_err. */
static void stream_check(gb_env *env, gb_result *r, const stream_case *s, size_t k, stream_host *h,
                         double dot) {
    size_t n = s->n;
    r->verified = true;
    if (k < 4) {
        const float *want = k == 1 ? h->b : (k == 3 ? h->a : h->c);
        xgpu_buffer *wrote = k == 1 ? s->b : (k == 3 ? s->a : s->c);
        xgpu_buffer_read(env->queue, wrote, 0, h->res, n * 4, true, NULL);
        if (gb_inject("stream")) {
            h->res[n / 2] += 1.0f;
        }
        for (size_t i = 0; i < n; i++) {
            double err = fabs((double)h->res[i] - want[i]) / fabs((double)want[i]);
            if (!(err <= 4e-7)) {
                r->verified = false;
                r->max_rel_err = isnan(err) ? INFINITY : err;
                break;
            }
            r->max_rel_err = err > r->max_rel_err ? err : r->max_rel_err;
        }
    } else {
        float got = 0;
        xgpu_buffer_read(env->queue, s->out, 0, &got, 4, true, NULL);
        if (gb_inject("stream")) {
            got *= 1.01f;
        }
        r->max_rel_err = fabs(got - dot) / fabs(dot);
        r->verified = r->max_rel_err <= 1e-4;
    }
}

void gb_bench_stream(gb_env *env) {
    if (!gb_selected(env->opt->dtypes, "f32")) {
        return; /* the stream kernels run f32 only */
    }
    size_t n = env->opt->size ? (size_t)(env->opt->size * MIB / 4)
                              : (env->opt->full ? (size_t)1 << 26 : (size_t)1 << 24);
    double bytes = (double)n * 4;
    if (!fits(env, bytes)) {
        return;
    }
    stream_case s = {XGPU_STREAM_COPY, NULL, NULL, NULL, NULL, n};
    stream_host h = {NULL, NULL, NULL, NULL};
    if (!stream_setup(env, &s, &h)) {
        goto done;
    }
    for (size_t k = 0; k < sizeof stream_ops / sizeof stream_ops[0]; k++) {
        s.op = stream_ops[k].op;
        char shape[64], what[96];
        shape_mib(shape, sizeof shape, stream_ops[k].name, bytes);
        snprintf(what, sizeof what, "stream %s", shape);
        gb_progress(env, what);
        gb_result *r = gb_add(env, "stream", "xgpu", "f32", shape, bytes);
        if (!r || gb_time_device(env, run_stream, &s, &r->t, &r->first_s) != 0) {
            if (r) {
                snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
            }
            break; /* later kernels need this one's output */
        }
        set_bandwidth(env, r, bytes * stream_ops[k].arrays);
        double dot = stream_host_step(k, &h, n);
        stream_check(env, r, &s, k, &h, dot);
    }
done:
    stream_release(&s, &h);
}

/* ---- transfer ---- */
typedef struct transfer_case {
    bool to_device;
    void *host;
    xgpu_buffer *buf;
    size_t bytes;
} transfer_case;

static int run_transfer(gb_env *env, void *arg) {
    transfer_case *t = arg;
    xgpu_status st = t->to_device
                         ? xgpu_buffer_write(env->queue, t->buf, 0, t->host, t->bytes, true, NULL)
                         : xgpu_buffer_read(env->queue, t->buf, 0, t->host, t->bytes, true, NULL);
    return st == XGPU_SUCCESS ? 0 : -1;
}

void gb_bench_transfer(gb_env *env) {
    static const double quick[] = {4096, MIB, 64 * MIB};
    static const double full[] = {4096, 65536, MIB, 16 * MIB, 256 * MIB, 1024 * MIB};
    const double *sizes = env->opt->full ? full : quick;
    size_t count = env->opt->full ? 6 : 3;
    for (int pinned = 0; pinned < 2; pinned++) {
        for (size_t s = 0; s < count; s++) {
            size_t bytes = (size_t)sizes[s];
            if (!fits(env, (double)bytes)) {
                continue;
            }
            void *host = NULL;
            unsigned char *check = malloc(bytes);
            xgpu_buffer *buf = NULL;
            bool ok = check && xgpu_buffer_create(env->ctx, bytes, &buf) == XGPU_SUCCESS;
            if (ok) {
                ok = pinned ? xgpu_host_alloc(env->ctx, bytes, &host) == XGPU_SUCCESS
                            : (host = malloc(bytes)) != NULL;
            }
            for (int dir = 0; ok && dir < 2; dir++) {
                uint32_t seed = (uint32_t)s + 1;
                for (size_t i = 0; i < bytes; i++) {
                    ((unsigned char *)host)[i] = (unsigned char)(gb_rand(&seed) >> 24);
                }
                memcpy(check, host, bytes);
                transfer_case t = {dir == 0, host, buf, bytes};
                char shape[64], what[96];
                shape_mib(shape, sizeof shape,
                          dir == 0 ? (pinned ? "h2d pinned" : "h2d pageable")
                                   : (pinned ? "d2h pinned" : "d2h pageable"),
                          (double)bytes);
                snprintf(what, sizeof what, "transfer %s", shape);
                gb_progress(env, what);
                gb_result *r = gb_add(env, "transfer", "xgpu", "u8", shape, (double)bytes);
                if (!r || gb_time_device(env, run_transfer, &t, &r->t, &r->first_s) != 0) {
                    if (r) {
                        snprintf(r->note, sizeof r->note, "%s", xgpu_last_error()->message);
                    }
                    continue;
                }
                set_bandwidth(env, r, (double)bytes);
                r->pct_peak = -1; /* the bus, not device memory */
                /* Round trip: what went to the device comes back. */
                if (dir == 0) {
                    memset(host, 0, bytes);
                    xgpu_buffer_read(env->queue, buf, 0, host, bytes, true, NULL);
                }
                if (gb_inject("transfer")) {
                    ((unsigned char *)host)[bytes / 2] ^= 1;
                }
                r->verified = memcmp(host, check, bytes) == 0;
            }
            if (pinned && host) {
                xgpu_host_free(env->ctx, host);
            } else {
                free(host);
            }
            free(check);
            xgpu_buffer_release(buf);
        }
    }
}

/* ---- launch ---- */
enum { LAUNCHES = 200 };
static const char *const launch_source =
    "XGPU_KERNEL void gpubench_count(XGPU_GLOBAL xgpu_u32 *counter) {\n"
    "    if (xgpu_global_id(0) == 0) counter[0] += 1u;\n"
    "}\n";

/* A row of host-timed launch costs: the median of `n` samples and the
 * spread. */
static gb_result *launch_row(gb_env *env, const char *impl, const char *what, const double *series,
                             int n, double first, bool ok) {
    gb_result *r = gb_add(env, "launch", impl, "-", what, 0);
    if (!r) {
        return NULL;
    }
    double sorted[LAUNCHES];
    memcpy(sorted, series, (size_t)n * sizeof *series);
    for (int i = 1; i < n; i++) { /* insertion sort: n is small */
        double v = sorted[i];
        int j = i - 1;
        while (j >= 0 && sorted[j] > v) {
            sorted[j + 1] = sorted[j];
            j--;
        }
        sorted[j + 1] = v;
    }
    double mean = 0, sq = 0;
    for (int i = 0; i < n; i++) {
        mean += sorted[i] / n;
    }
    for (int i = 0; i < n; i++) {
        sq += (sorted[i] - mean) * (sorted[i] - mean);
    }
    /* Host timing: these are the host's costs. */
    r->t = (gb_stats){0.5 * (sorted[n / 2 - 1] + sorted[n / 2]), sorted[0], sorted[n - 1],
                      sqrt(sq / (n - 1)), n};
    r->unit = "us";
    r->rate = r->t.median * 1e6;
    r->first_s = first;
    r->verified = ok;
    return r;
}

/* The null device does no work: only the core's cost per launch is timed,
 * in batches, since one launch is near the clock's own cost. Every launch
 * must succeed. */
static void null_device_row(gb_env *env, xgpu_kernel *k, const xgpu_range *range,
                            const xgpu_arg *args, double first) {
    double per[LAUNCHES];
    int failed = gb_core_series(env, k, range, args, per, LAUNCHES);
    bool ok = failed == 0 && !gb_inject("launch");
    gb_result *r = launch_row(env, "xgpu", GB_CORE_SHAPE, per, LAUNCHES, first, ok);
    if (r) {
        snprintf(r->note, sizeof r->note,
                 "xgpu_launch on a backend that does no work; %d batches of %d launches, %d "
                 "failed",
                 LAUNCHES, GB_CORE_BATCH, failed);
    }
}

/* Beside the raw launch: the core's share of xgpu's enqueue, from the null
 * backend in a child run (launch_core.c). When it cannot be measured the
 * reason goes to the xgpu enqueue row's note instead, as for the raw
 * launch. */
static void core_row(gb_env *env, gb_result *x, double raw_median, const char *raw_call) {
    gb_stats t;
    bool verified = false;
    char why[512];
    if (gb_core_from_child(&t, &verified, why, sizeof why) != 0) {
        size_t used = strlen(x->note);
        snprintf(x->note + used, sizeof x->note - used, "; core overhead not measured: %s", why);
        return;
    }
    double xgpu_median = x->t.median;
    gb_result *c = gb_add(env, "launch", "xgpu", "-", GB_CORE_SHAPE, 0);
    if (!c) {
        return;
    }
    c->t = t;
    c->unit = "us";
    c->rate = t.median * 1e6;
    c->verified = verified;
    char base[96];
    if (raw_median > 0) {
        snprintf(base, sizeof base, "the raw %s", raw_call);
    } else {
        snprintf(base, sizeof base, "xgpu's enqueue");
    }
    snprintf(c->note, sizeof c->note,
             "core overhead %.3f us = %.3fx %s; xgpu_launch on the null backend "
             "(XGPU_BACKENDS=null, no work) in a child run, %d batches of %d launches",
             t.median * 1e6, t.median / (raw_median > 0 ? raw_median : xgpu_median), base, t.reps,
             GB_CORE_BATCH);
}

void gb_bench_launch(gb_env *env) {
    xgpu_program *p = NULL;
    xgpu_kernel *k = NULL;
    xgpu_buffer *counter = NULL;
    const uint32_t zero = 0;
    double t0 = gb_now();
    if (xgpu_program_build(env->ctx, launch_source, NULL, &p) ||
        xgpu_kernel_create(p, "gpubench_count", &k) || xgpu_buffer_create(env->ctx, 4, &counter) ||
        xgpu_buffer_write(env->queue, counter, 0, &zero, 4, true, NULL)) {
        fprintf(stderr, "gpubench: launch: %s\n", xgpu_last_error()->message);
        goto done;
    }
    xgpu_range range = xgpu_range_1d(1, 1);
    xgpu_arg args[] = {xgpu_arg_buffer(counter)};
    /* Warm-up: the first launch may compile for the group size. */
    xgpu_launch(env->queue, k, &range, 1, args, NULL);
    xgpu_queue_finish(env->queue);
    double first = gb_now() - t0;
    if (!strcmp(env->info.backend, "null")) {
        null_device_row(env, k, &range, args, first);
        goto done;
    }
    /* The backend's own launch on the same kernel, queue and buffer, timed
     * in the same loop, one xgpu launch and one raw launch in turn, so that
     * the ratio is not skewed by the host's state drifting. */
    raw_launch raw;
    char why[256] = "";
    bool have_raw =
        raw_launch_open(&raw, env->info.backend, k, env->queue, counter, why, sizeof why) == 0;
    int raw_error = 0;
    uint32_t expected = 1; /* the warm-up */
    if (have_raw) {        /* the raw warm-up, which must work before it is timed */
        raw_error = raw_launch_enqueue(&raw);
        expected += raw_error == 0;
        raw_error = raw_error ? raw_error : raw_launch_finish(&raw);
        if (raw_error) {
            snprintf(why, sizeof why, "failed: %s returned %d", raw.call, raw_error);
            have_raw = false;
        }
    }
    double enqueue[LAUNCHES], round[LAUNCHES], raw_enqueue[LAUNCHES], raw_round[LAUNCHES];
    gb_progress(env, "launch");
    for (int i = 0; i < LAUNCHES; i++) {
        double a = gb_now();
        xgpu_launch(env->queue, k, &range, 1, args, NULL);
        double b = gb_now();
        xgpu_queue_finish(env->queue);
        double c = gb_now();
        enqueue[i] = b - a;
        round[i] = c - a;
        expected++;
        if (have_raw) {
            a = gb_now();
            int e1 = raw_launch_enqueue(&raw);
            b = gb_now();
            int e2 = raw_launch_finish(&raw);
            c = gb_now();
            raw_enqueue[i] = b - a;
            raw_round[i] = c - a;
            expected++;
            if ((e1 || e2) && !raw_error) {
                raw_error = e1 ? e1 : e2;
            }
        }
    }
    uint32_t count = 0;
    xgpu_buffer_read(env->queue, counter, 0, &count, 4, true, NULL);
    if (gb_inject("launch")) {
        count--;
    }
    bool ok = count == expected && !raw_error;
    char counted[96];
    snprintf(counted, sizeof counted, "counter %u after %u launches", count, expected);
    const char *names[2] = {"enqueue", "round trip"};
    double *series[2] = {enqueue, round}, *raw_series[2] = {raw_enqueue, raw_round};
    for (int s = 0; s < 2; s++) {
        gb_result *x = launch_row(env, "xgpu", names[s], series[s], LAUNCHES, first, ok);
        gb_result *r =
            have_raw ? launch_row(env, "raw", names[s], raw_series[s], LAUNCHES, 0, ok) : NULL;
        if (r) {
            snprintf(r->note, sizeof r->note, "%s%s%s; %s", raw.call, s ? " + " : "",
                     s ? raw.finish_call : "", counted);
        }
        if (x && r && r->t.median > 0) {
            snprintf(x->note, sizeof x->note, "%.2fx the raw %s; %s", x->t.median / r->t.median,
                     raw.call, counted);
        } else if (x) {
            snprintf(x->note, sizeof x->note, "%s; raw launch %s", counted, why);
        }
        if (raw_error && r) {
            snprintf(r->note, sizeof r->note, "%s returned %d", raw.call, raw_error);
        }
        if (s == 0 && x) {
            core_row(env, x, r ? r->t.median : 0, raw.call);
        }
    }
done:
    xgpu_kernel_release(k);
    xgpu_program_release(p);
    xgpu_buffer_release(counter);
}
