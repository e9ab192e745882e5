/* -b launch: the cost of one kernel launch on the host, xgpu_launch beside
 * the vendor's own launch of the same kernel (raw_launch.h) in one loop,
 * and the core's share from the null backend (launch_core.c). A counter
 * kernel proves every launch ran. */
#include "measure.h"
#include "raw_launch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* One device's launch series: the counter kernel and its argument, the
 * backend's raw launch beside it when it has one that works, and the
 * host-timed samples of both. */
typedef struct launch_series {
    xgpu_kernel *k;
    xgpu_range range;
    xgpu_arg args[1];
    raw_launch raw;
    bool have_raw;
    int raw_error;     /* the first error of a raw launch, 0 for none */
    char why[256];     /* why there is no raw launch */
    uint32_t expected; /* launches the counter must have counted */
    double enqueue[LAUNCHES], round[LAUNCHES], raw_enqueue[LAUNCHES], raw_round[LAUNCHES];
} launch_series;

/* The backend's own launch on the same kernel, queue and buffer, warmed up
 * once: it must work before it is timed. */
static void open_raw(gb_env *env, launch_series *ls, xgpu_buffer *counter) {
    ls->have_raw = raw_launch_open(&ls->raw, env->info.backend, ls->k, env->queue, counter, ls->why,
                                   sizeof ls->why) == 0;
    ls->raw_error = 0;
    if (ls->have_raw) {
        ls->raw_error = raw_launch_enqueue(&ls->raw);
        ls->expected += ls->raw_error == 0;
        ls->raw_error = ls->raw_error ? ls->raw_error : raw_launch_finish(&ls->raw);
        if (ls->raw_error) {
            snprintf(ls->why, sizeof ls->why, "failed: %s returned %d", ls->raw.call,
                     ls->raw_error);
            ls->have_raw = false;
        }
    }
}

/* LAUNCHES samples, one xgpu launch and one raw launch in turn, so that
 * the ratio is not skewed by the host's state drifting. */
static void time_launches(gb_env *env, launch_series *ls) {
    for (int i = 0; i < LAUNCHES; i++) {
        double a = gb_now();
        xgpu_launch(env->queue, ls->k, &ls->range, 1, ls->args, NULL);
        double b = gb_now();
        xgpu_queue_finish(env->queue);
        double c = gb_now();
        ls->enqueue[i] = b - a;
        ls->round[i] = c - a;
        ls->expected++;
        if (ls->have_raw) {
            a = gb_now();
            int e1 = raw_launch_enqueue(&ls->raw);
            b = gb_now();
            int e2 = raw_launch_finish(&ls->raw);
            c = gb_now();
            ls->raw_enqueue[i] = b - a;
            ls->raw_round[i] = c - a;
            ls->expected++;
            if ((e1 || e2) && !ls->raw_error) {
                ls->raw_error = e1 ? e1 : e2;
            }
        }
    }
}

/* The enqueue and round-trip rows of xgpu and of the raw launch, each
 * xgpu row read against its raw one, and the core's overhead beside the
 * enqueue. */
static void series_rows(gb_env *env, const launch_series *ls, double first, bool ok,
                        const char *counted) {
    const char *names[2] = {"enqueue", "round trip"};
    const double *series[2] = {ls->enqueue, ls->round};
    const double *raw_series[2] = {ls->raw_enqueue, ls->raw_round};
    const raw_launch *raw = &ls->raw;
    for (int s = 0; s < 2; s++) {
        gb_result *x = launch_row(env, "xgpu", names[s], series[s], LAUNCHES, first, ok);
        gb_result *r =
            ls->have_raw ? launch_row(env, "raw", names[s], raw_series[s], LAUNCHES, 0, ok) : NULL;
        if (r) {
            snprintf(r->note, sizeof r->note, "%s%s%s; %s", raw->call, s ? " + " : "",
                     s ? raw->finish_call : "", counted);
        }
        if (x && r && r->t.median > 0) {
            snprintf(x->note, sizeof x->note, "%.2fx the raw %s; %s", x->t.median / r->t.median,
                     raw->call, counted);
        } else if (x) {
            snprintf(x->note, sizeof x->note, "%s; raw launch %s", counted, ls->why);
        }
        if (ls->raw_error && r) {
            snprintf(r->note, sizeof r->note, "%s returned %d", raw->call, ls->raw_error);
        }
        if (s == 0 && x) {
            core_row(env, x, r ? r->t.median : 0, raw->call);
        }
    }
}

void gb_bench_launch(gb_env *env) {
    xgpu_program *p = NULL;
    xgpu_buffer *counter = NULL;
    launch_series ls = {.k = NULL};
    const uint32_t zero = 0;
    double t0 = gb_now();
    if (xgpu_program_build(env->ctx, launch_source, NULL, &p) ||
        xgpu_kernel_create(p, "gpubench_count", &ls.k) ||
        xgpu_buffer_create(env->ctx, 4, &counter) ||
        xgpu_buffer_write(env->queue, counter, 0, &zero, 4, true, NULL)) {
        fprintf(stderr, "gpubench: launch: %s\n", xgpu_last_error()->message);
        goto done;
    }
    ls.range = xgpu_range_1d(1, 1);
    ls.args[0] = xgpu_arg_buffer(counter);
    /* Warm-up: the first launch may compile for the group size. */
    xgpu_launch(env->queue, ls.k, &ls.range, 1, ls.args, NULL);
    xgpu_queue_finish(env->queue);
    double first = gb_now() - t0;
    if (!strcmp(env->info.backend, "null")) {
        null_device_row(env, ls.k, &ls.range, ls.args, first);
        goto done;
    }
    ls.expected = 1; /* the warm-up */
    open_raw(env, &ls, counter);
    gb_progress(env, "launch");
    time_launches(env, &ls);
    uint32_t count = 0;
    xgpu_buffer_read(env->queue, counter, 0, &count, 4, true, NULL);
    if (gb_inject("launch")) {
        count--;
    }
    bool ok = count == ls.expected && !ls.raw_error;
    char counted[96];
    snprintf(counted, sizeof counted, "counter %u after %u launches", count, ls.expected);
    series_rows(env, &ls, first, ok, counted);
done:
    xgpu_kernel_release(ls.k);
    xgpu_program_release(p);
    xgpu_buffer_release(counter);
}
