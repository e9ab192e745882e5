/* Telemetry around gpubench's timed cases: one source per device, a
 * sampler around each case's timed repetitions (around all the rounds of
 * cases timed together), the summary on each case's result. */
#define _POSIX_C_SOURCE 200809L
#include "measure.h"

#include <string.h>

void gb_telemetry_open(gb_env *env) {
    env->telemetry = gt_open(&env->info);
    if (!env->telemetry) {
        fprintf(stderr, "gpubench: %s: no telemetry: out of memory\n", env->path);
    }
}

void gb_telemetry_close(gb_env *env) {
    gt_close(env->telemetry);
    env->telemetry = NULL;
}

void gb_telemetry_begin(gt_device *d) {
    if (d) {
        gt_start(d); /* without its thread it still samples at start and stop */
    }
}

void gb_telemetry_end(const gb_env *env, gt_device *d, const gb_stats *const *sts, size_t n) {
    if (!d) {
        return;
    }
    gt_summary s;
    gt_stop(d, &s);
    size_t found = 0;
    for (size_t i = env->results.count; i-- > 0 && found < n;) {
        gb_result *r = env->results.rows[i];
        for (size_t k = 0; k < n; k++) {
            if (&r->t == sts[k]) {
                r->has_telemetry = true;
                r->telemetry = s;
                snprintf(r->telemetry_why, sizeof r->telemetry_why, "%s", gt_device_reason(d));
                found++;
            }
        }
    }
}
