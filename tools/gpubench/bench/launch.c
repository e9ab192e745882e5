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
