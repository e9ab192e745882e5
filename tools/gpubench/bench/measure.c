/* Methodology: warm-up first (program builds and first-launch costs kept
 * out and reported separately), repetitions calibrated to a time budget,
 * device events for timing, median/min/max/stddev; and the helpers the
 * memory-bound benchmarks share. */
#define _POSIX_C_SOURCE 200809L
#include "measure.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double gb_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

uint32_t gb_rand(uint32_t *s) {
    uint32_t x = *s ? *s : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

bool gb_inject(const char *bench) {
    const char *v = getenv("XGPU_GPUBENCH_INJECT");
    return v && !strcmp(v, bench);
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarise(double *t, int n, gb_stats *st) {
    qsort(t, (size_t)n, sizeof *t, compare_double);
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++) {
        sum += t[i];
    }
    double mean = sum / n;
    for (int i = 0; i < n; i++) {
        sq += (t[i] - mean) * (t[i] - mean);
    }
    st->median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    st->min = t[0];
    st->max = t[n - 1];
    st->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
    st->reps = n;
}

static int reps_for(const gb_options *o, double one) {
    if (o->reps > 0) {
        return o->reps;
    }
    int reps = one > 0 ? (int)(o->time_budget / one) : 100;
    return reps < 3 ? 3 : (reps > 100 ? 100 : reps);
}

static int device_once(gb_env *env, gb_enqueue_fn fn, void *arg, double *seconds) {
    xgpu_event *a = NULL, *b = NULL;
    double ms = 0;
    int rc = -1;
    if (xgpu_queue_record_event(env->queue, &a) == XGPU_SUCCESS && fn(env, arg) == 0 &&
        xgpu_queue_record_event(env->queue, &b) == XGPU_SUCCESS &&
        xgpu_event_elapsed_ms(a, b, &ms) == XGPU_SUCCESS) {
        *seconds = ms * 1e-3;
        rc = 0;
    }
    xgpu_event_release(a);
    xgpu_event_release(b);
    return rc;
}

static void case_failed(gb_timed *c) {
    c->rc = -1;
    c->status = xgpu_last_error()->status;
    snprintf(c->why, sizeof c->why, "%s", xgpu_last_error()->message);
    fprintf(stderr, "gpubench: %s\n", c->why);
}

/* Case c's warm-up on an idle queue (earlier work on it, fills, writes or
 * another case's first call, stays out of *c->first_s), then one run
 * timed into *one. */
static int warm_up(gb_env *env, gb_timed *c, double *one) {
    if (xgpu_queue_finish(env->queue) != XGPU_SUCCESS) {
        return -1;
    }
    double t0 = gb_now();
    if (c->fn(env, c->arg) != 0 || xgpu_queue_finish(env->queue) != XGPU_SUCCESS) {
        return -1;
    }
    *c->first_s = gb_now() - t0;
    return device_once(env, c->fn, c->arg, one);
}

int gb_time_rounds(gb_env *env, gb_timed *cases, size_t n) {
    int failed = 0;
    size_t live = 0;
    double round_s = 0;
    for (size_t i = 0; i < n; i++) {
        gb_timed *c = &cases[i];
        c->rc = 0;
        c->status = XGPU_SUCCESS;
        c->why[0] = '\0';
        double one = 0;
        if (warm_up(env, c, &one) != 0) {
            case_failed(c);
            failed++;
            continue;
        }
        round_s += one;
        live++;
    }
    if (!live) {
        return failed;
    }
    /* As many rounds as one case of a round's mean time would get. */
    int rounds = reps_for(env->opt, round_s / (double)live);
    bool fits = (size_t)rounds <= SIZE_MAX / sizeof(double) / n;
    double *t = fits ? calloc(n * (size_t)rounds, sizeof *t) : NULL;
    const gb_stats **sts = calloc(n, sizeof *sts);
    if (!t || !sts) {
        for (size_t i = 0; i < n; i++) {
            if (!cases[i].rc) {
                cases[i].rc = -1;
                cases[i].status = XGPU_ERROR_OUT_OF_HOST_MEMORY;
                snprintf(cases[i].why, sizeof cases[i].why,
                         "out of host memory for %d repetitions' times", rounds);
                fprintf(stderr, "gpubench: %s\n", cases[i].why);
                failed++;
            }
        }
        free(t);
        free(sts);
        return failed;
    }
    gb_telemetry_begin(env->telemetry);
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++) {
            if (!cases[i].rc &&
                device_once(env, cases[i].fn, cases[i].arg, &t[i * (size_t)rounds + (size_t)r])) {
                case_failed(&cases[i]);
                failed++;
            }
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].rc) {
            sts[k++] = cases[i].st;
        }
    }
    gb_telemetry_end(env, env->telemetry, sts, k);
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].rc) {
            summarise(&t[i * (size_t)rounds], rounds, cases[i].st);
        }
    }
    free(t);
    free(sts);
    return failed;
}

int gb_time_device(gb_env *env, gb_enqueue_fn fn, void *arg, gb_stats *st, double *first_s) {
    gb_timed c = {.fn = fn, .arg = arg, .st = st, .first_s = first_s};
    return gb_time_rounds(env, &c, 1) ? -1 : 0;
}

int gb_time_host(const gb_env *env, gb_host_fn fn, void *arg, gb_stats *st, double *first_s) {
    double t0 = gb_now();
    if (fn(arg) != 0) {
        return -1;
    }
    *first_s = gb_now() - t0;
    int reps = reps_for(env->opt, *first_s);
    double *t = calloc((size_t)reps, sizeof *t);
    if (!t) {
        return -1;
    }
    gt_device *host = gt_open_host(); /* the host CPU's clock */
    gb_telemetry_begin(host);
    for (int r = 0; r < reps; r++) {
        double s = gb_now();
        fn(arg);
        t[r] = gb_now() - s;
    }
    const gb_stats *sts[] = {st};
    gb_telemetry_end(env, host, sts, 1);
    gt_close(host);
    summarise(t, reps, st);
    free(t);
    return 0;
}

void gb_progress(const gb_env *env, const char *what) {
    if (env->progress) {
        fprintf(stderr, "\r\033[K%s %s", env->path, what);
        fflush(stderr);
    }
}

bool gb_fits(const gb_env *env, double bytes) {
    return !env->info.max_alloc_bytes || bytes <= (double)env->info.max_alloc_bytes;
}

void gb_shape_mib(char *out, size_t size, const char *what, double bytes) {
    if (bytes >= GB_MIB) {
        snprintf(out, size, "%s%s%.0f MiB", what, *what ? " " : "", bytes / GB_MIB);
    } else {
        snprintf(out, size, "%s%s%.0f KiB", what, *what ? " " : "", bytes / 1024.0);
    }
}

void gb_set_bandwidth(const gb_env *env, gb_result *r, double bytes) {
    r->unit = "GB/s";
    r->rate = bytes / r->t.median * 1e-9;
    if (env->peak_gbs > 0) {
        r->pct_peak = 100.0 * r->rate / env->peak_gbs;
    }
}
