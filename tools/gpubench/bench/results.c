/* The rows of a run: each its own allocation, so that a row stays where
 * gb_add put it while the benchmark adds more (bench.h's gb_results). */
#define _POSIX_C_SOURCE 200809L
#include "measure.h"
#include "device_id.h"

#include <stdlib.h>
#include <string.h>

gb_result *gb_add(gb_env *env, const char *bench, const char *impl, const char *dtype,
                  const char *shape, double size) {
    gb_results *res = &env->results;
    if (res->count == res->cap) {
        size_t cap = res->cap ? res->cap * 2 : 32;
        gb_result **grown = realloc(res->rows, cap * sizeof *grown);
        if (!grown) {
            return NULL;
        }
        res->rows = grown;
        res->cap = cap;
    }
    gb_result *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    res->rows[res->count++] = r;
    snprintf(r->bench, sizeof r->bench, "%s", bench);
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    bool host = !strcmp(impl, "openblas");
    snprintf(r->device, sizeof r->device, "%s", host ? "host" : env->path);
    snprintf(r->device_name, sizeof r->device_name, "%s", host ? "host CPU" : env->info.name);
    snprintf(r->backend, sizeof r->backend, "%s", host ? "host" : env->info.backend);
    if (!host) {
        devid_uuid(&env->info, r->device_uuid, sizeof r->device_uuid);
        snprintf(r->device_arch, sizeof r->device_arch, "%s", env->info.arch);
    }
    snprintf(r->dtype, sizeof r->dtype, "%s", dtype);
    snprintf(r->shape, sizeof r->shape, "%s", shape);
    r->size = size;
    r->pct_peak = -1;
    r->peak_gflops = -1;
    r->rate = -1; /* until a measurement sets it */
    r->max_rel_err = 0;
    return r;
}

bool gb_results_move(gb_results *into, gb_results *from) {
    if (!from->count) {
        return true;
    }
    size_t need = into->count + from->count;
    if (need > into->cap) {
        gb_result **grown = realloc(into->rows, need * sizeof *grown);
        if (!grown) {
            return false;
        }
        into->rows = grown;
        into->cap = need;
    }
    memcpy(into->rows + into->count, from->rows, from->count * sizeof *from->rows);
    into->count = need;
    from->count = 0;
    return true;
}

void gb_results_free(gb_results *r) {
    for (size_t i = 0; i < r->count; i++) {
        free(r->rows[i]);
    }
    free(r->rows);
    r->rows = NULL;
    r->count = r->cap = 0;
}

/* How closely the tuning entry fits, in the words of the result's note. */
static const char *fit_words(int32_t fit) {
    switch (fit) {
    case XGPU_TUNE_FIT_DEVICE:
        return "this device";
    case XGPU_TUNE_FIT_ARCH:
        return "same arch";
    case XGPU_TUNE_FIT_VENDOR:
        return "same vendor";
    case XGPU_TUNE_FIT_TYPE:
        return "same device type";
    default:
        return "unknown fit";
    }
}

void gb_note_tune_before(const gb_env *env, gb_result *r, const char *kernel, xgpu_dtype dtype,
                         size_t size) {
    xgpu_tune_choice c;
    if (r && xgpu_tune_lookup(env->ctx, kernel, dtype, size, &c) == XGPU_SUCCESS) {
        /* The library's own test for a tune at first use. */
        r->exact_entry_missing = c.fit != XGPU_TUNE_FIT_DEVICE || c.stale;
    }
}

void gb_note_params(const gb_env *env, gb_result *r, const char *kernel, xgpu_dtype dtype,
                    size_t size) {
    xgpu_tune_choice c;
    if (!r || xgpu_tune_lookup(env->ctx, kernel, dtype, size, &c) != XGPU_SUCCESS) {
        return;
    }
    /* The choice's fields, never its text (xgpu_tune_choice.source). */
    char what[96];
    const char *tuned = c.origin == XGPU_TUNE_ORIGIN_AUTO ? "auto-tuned" : "tuned";
    if (c.origin == XGPU_TUNE_ORIGIN_ENV) {
        snprintf(what, sizeof what, "params from %s",
                 !strcmp(kernel, "gemm")     ? "XGPU_GEMM_PARAMS"
                 : !strcmp(kernel, "stream") ? "XGPU_STREAM_PARAMS"
                                             : "XGPU_REDUCE_PARAMS");
    } else if (c.origin != XGPU_TUNE_ORIGIN_DATABASE && c.origin != XGPU_TUNE_ORIGIN_AUTO) {
        snprintf(what, sizeof what, "built-in params%s",
                 c.origin == XGPU_TUNE_ORIGIN_OFF ? " (XGPU_TUNE=off)"
                 : c.fit == XGPU_TUNE_FIT_WARM_START
                     ? " (other drivers' entries: warm starts for a tune)"
                 : c.fit == XGPU_TUNE_FIT_OUTDATED
                     ? " (this device's entries are another xgpu's kernels: re-tune)"
                     : "");
    } else if (c.stale) {
        snprintf(what, sizeof what, "%s params (this device, stale: re-tune)", tuned);
    } else if (c.origin == XGPU_TUNE_ORIGIN_AUTO && c.fit == XGPU_TUNE_FIT_DEVICE &&
               r->exact_entry_missing) {
        /* The entry came from a tune inside this run's first call. */
        snprintf(what, sizeof what, "auto-tuned params (%s, tuned in this run)", fit_words(c.fit));
    } else {
        snprintf(what, sizeof what, "%s params (%s%s)", tuned, fit_words(c.fit),
                 c.shipped ? ", built-in entry" : "");
    }
    size_t used = strlen(r->note);
    snprintf(r->note + used, sizeof r->note - used, "%s%s", used ? "; " : "", what);
}
