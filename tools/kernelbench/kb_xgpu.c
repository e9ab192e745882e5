/* kernelbench: the xgpu side. */
#define _POSIX_C_SOURCE 200809L
#include "kb.h"
#include "peers.h"
#include "vendor_blas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KB_OK(call)                                                                                \
    do {                                                                                           \
        if ((call) != XGPU_SUCCESS) {                                                              \
            fprintf(stderr, "kernelbench: %s: %s\n", #call, xgpu_last_error()->message);           \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

int kb_open(kb_env *env, xgpu_device *device) {
    memset(env, 0, sizeof *env);
    env->device = device;
    KB_OK(xgpu_device_get_info(env->device, &env->info, sizeof env->info));
    KB_OK(xgpu_context_create(env->device, &env->ctx));
    KB_OK(xgpu_queue_create(env->ctx, &env->queue));
    return 0;
fail:
    kb_close(env);
    return -1;
}

void kb_close(kb_env *env) {
    xgpu_queue_release(env->queue);
    xgpu_context_release(env->ctx);
}

/* Device time of one library call, between two recorded events. */
static int timed(kb_env *env, xgpu_status (*run)(kb_env *, void *), void *arg, double *seconds) {
    xgpu_event *start = NULL, *end = NULL;
    double ms = 0;
    int rc = -1;
    KB_OK(xgpu_queue_record_event(env->queue, &start));
    KB_OK(run(env, arg));
    KB_OK(xgpu_queue_record_event(env->queue, &end));
    KB_OK(xgpu_event_elapsed_ms(start, end, &ms));
    *seconds = ms * 1e-3;
    rc = 0;
fail:
    xgpu_event_release(start);
    xgpu_event_release(end);
    return rc;
}

static xgpu_status run_gemm(kb_env *env, void *desc) {
    return xgpu_gemm(env->queue, desc, NULL);
}

static void print_row(const char *bench, const char *impl, double median, double rate,
                      const char *unit, const char *check) {
    printf("%-28s %-10s %10.3f ms %7.1f %s  %s\n", bench, impl, median * 1e3, rate, unit, check);
}

/* The vendor SGEMM reps times after a warm-up (CLBlast compiles then),
 * each timed between events on the same queue. */
static int vendor_sgemm(kb_env *env, size_t n, xgpu_buffer *a, xgpu_buffer *b, xgpu_buffer *c,
                        int reps, double *times, char *impl, size_t impl_size, char *reason,
                        size_t reason_size) {
    for (int r = -1; r < reps; r++) {
        xgpu_event *before = NULL, *after = NULL;
        double ms = 0;
        int rc = xgpu_queue_record_event(env->queue, &before) == XGPU_SUCCESS
                     ? vb_sgemm(env->queue, env->info.backend, n, n, n, a, b, c, impl, impl_size,
                                reason, reason_size)
                     : -1;
        if (rc == 0 && xgpu_queue_record_event(env->queue, &after) == XGPU_SUCCESS) {
            xgpu_event_elapsed_ms(before, after, &ms);
        }
        xgpu_event_release(before);
        xgpu_event_release(after);
        if (rc) {
            return -1;
        }
        if (r >= 0) {
            times[r] = ms * 1e-3;
        }
    }
    return 0;
}

int kb_gemm(kb_env *env, const kb_options *o, size_t n) {
    size_t bytes = n * n * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    double *times = calloc((size_t)o->reps, sizeof *times);
    xgpu_buffer *da = NULL, *db = NULL, *dc = NULL;
    int ok = 0;
    char bench[64], check[96];
    snprintf(bench, sizeof bench, "sgemm %zux%zux%zu", n, n, n);
    if (!a || !b || !c || !times) {
        fprintf(stderr, "kernelbench: out of host memory\n");
        goto fail;
    }
    uint32_t s = 7;
    for (size_t i = 0; i < n * n; i++) {
        s = s * 1664525u + 1013904223u;
        a[i] = (float)(s >> 8) / (1 << 24) - 0.5f;
        s = s * 1664525u + 1013904223u;
        b[i] = (float)(s >> 8) / (1 << 24) - 0.5f;
    }
    KB_OK(xgpu_buffer_create(env->ctx, bytes, &da));
    KB_OK(xgpu_buffer_create(env->ctx, bytes, &db));
    KB_OK(xgpu_buffer_create(env->ctx, bytes, &dc));
    KB_OK(xgpu_buffer_write(env->queue, da, 0, a, bytes, true, NULL));
    KB_OK(xgpu_buffer_write(env->queue, db, 0, b, bytes, true, NULL));
    xgpu_gemm_desc d = {XGPU_F32, XGPU_ROW_MAJOR, XGPU_NO_TRANS, XGPU_NO_TRANS, n,   n, n, 1.0,
                        0.0,      {da, 0, n},     {db, 0, n},    {dc, 0, n},    NULL};
    double warm = 0;
    if (timed(env, run_gemm, &d, &warm) != 0) { /* builds the kernel */
        goto fail;
    }
    for (int r = 0; r < o->reps; r++) {
        if (timed(env, run_gemm, &d, &times[r]) != 0) {
            goto fail;
        }
    }
    memset(c, 0xff, bytes);
    KB_OK(xgpu_buffer_read(env->queue, dc, 0, c, bytes, true, NULL));
    double rel = 0;
    ok = kb_check_gemm(a, b, c, n, &rel);
    double med = kb_median(times, o->reps);
    snprintf(check, sizeof check, "%s (max rel err %.1e)", ok ? "verified" : "FAILED", rel);
    print_row(bench, "xgpu", med, 2.0 * n * n * n / med * 1e-9, "GFLOP/s", check);

    char reason[256] = "", impl[32] = "vendor";
    uint32_t poison = 0xffffffffu;
    KB_OK(xgpu_buffer_fill(env->queue, dc, 0, bytes, &poison, 4, NULL));
    if (vendor_sgemm(env, n, da, db, dc, o->reps, times, impl, sizeof impl, reason,
                     sizeof reason) == 0) {
        KB_OK(xgpu_buffer_read(env->queue, dc, 0, c, bytes, true, NULL));
        int cok = kb_check_gemm(a, b, c, n, &rel);
        double cmed = kb_median(times, o->reps);
        snprintf(check, sizeof check, "%s (max rel err %.1e); xgpu is %.2fx %s",
                 cok ? "verified" : "FAILED", rel, cmed / med, impl);
        print_row(bench, impl, cmed, 2.0 * n * n * n / cmed * 1e-9, "GFLOP/s", check);
        ok &= cok;
    } else {
        printf("%-28s %-10s %s\n", bench, impl, reason);
    }
fail:
    xgpu_buffer_release(da);
    xgpu_buffer_release(db);
    xgpu_buffer_release(dc);
    free(a);
    free(b);
    free(c);
    free(times);
    return ok;
}

typedef struct reduce_arg {
    xgpu_buffer *in, *out;
    size_t n;
} reduce_arg;

static xgpu_status run_reduce(kb_env *env, void *p) {
    reduce_arg *r = p;
    return xgpu_reduce(env->queue, XGPU_REDUCE_SUM, XGPU_F32, r->in, 0, r->n, r->out, 0, NULL);
}

int kb_reduce(kb_env *env, const kb_options *o) {
    size_t n = o->reduce_mib * 1024 * 1024 / sizeof(float);
    float *x = malloc(n * sizeof *x);
    double *times = calloc((size_t)o->reps, sizeof *times);
    reduce_arg r = {NULL, NULL, n};
    int ok = 0;
    char bench[64], check[256];
    snprintf(bench, sizeof bench, "sum f32 %zu MiB", o->reduce_mib);
    if (!x || !times) {
        goto fail;
    }
    uint32_t s = 3;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = (float)(s >> 8) / (1 << 24);
    }
    KB_OK(xgpu_buffer_create(env->ctx, n * sizeof *x, &r.in));
    KB_OK(xgpu_buffer_create(env->ctx, 8, &r.out));
    KB_OK(xgpu_buffer_write(env->queue, r.in, 0, x, n * sizeof *x, true, NULL));
    double warm;
    if (timed(env, run_reduce, &r, &warm) != 0) {
        goto fail;
    }
    for (int i = 0; i < o->reps; i++) {
        if (timed(env, run_reduce, &r, &times[i]) != 0) {
            goto fail;
        }
    }
    float got = NAN;
    KB_OK(xgpu_buffer_read(env->queue, r.out, 0, &got, 4, true, NULL));
    double ref = 0, comp = 0;
    for (size_t i = 0; i < n; i++) {
        double y = x[i] - comp, t = ref + y;
        comp = (t - ref) - y;
        ref = t;
    }
    double rel = fabs(got - ref) / ref;
    ok = rel <= 1e-5;
    double med = kb_median(times, o->reps);
    double gbs = n * sizeof *x / med * 1e-9;
    char why[160] = "not an OpenCL device";
    double peak = strcmp(env->info.backend, "opencl")
                      ? 0
                      : peer_clpeak_bandwidth(env->info.name, why, sizeof why);
    if (peak > 0) {
        snprintf(check, sizeof check, "%s (rel err %.1e); %.0f%% of clpeak's %.1f GB/s",
                 ok ? "verified" : "FAILED", rel, 100.0 * gbs / peak, peak);
    } else {
        snprintf(check, sizeof check, "%s (rel err %.1e); no clpeak figure: %s",
                 ok ? "verified" : "FAILED", rel, why);
    }
    print_row(bench, "xgpu", med, gbs, "GB/s   ", check);
fail:
    xgpu_buffer_release(r.in);
    xgpu_buffer_release(r.out);
    free(x);
    free(times);
    return ok;
}
