/* XGPU_TUNE=auto: the first use of a kernel, dtype and shape class on a
 * device without an exact tuning entry runs a quick search (a budget of
 * XGPU_TUNE_BUDGET_S seconds, 3 by default) on its own queue, and stores
 * the winner in the user's database, where gpubench tune would; the
 * lookup then uses it, and later processes read it. Anything that fails
 * leaves the lookup's choice as it was, with a debug line: never an error
 * to the caller. The lookup (tunedb, a layer below) calls it through the
 * hook this file registers when the library is loaded. */
#define _GNU_SOURCE
#include "problem.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Problems of at most this many bytes per buffer: the input and the host
 * reference of the large classes stay quick to make. */
#define AUTO_MAX_BYTES (64u << 20)
#define TRIED_MAX 64

/* One tune at a time in a process (they would measure each other), and
 * one try per device, kernel, dtype and class (a failed one is not
 * repeated for every new context). */
static pthread_mutex_t auto_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tried {
    char backend[32], device[256];
    xgpu__tune_kernel_id id;
    xgpu_dtype dtype;
    xgpu__tune_class cls;
} tried[TRIED_MAX];
static size_t ntried;

/* XGPU_TUNE_BUDGET_S: seconds per kernel, dtype and class, in (0, 600]. */
static double budget_s(void) {
    const char *v = getenv("XGPU_TUNE_BUDGET_S");
    double s;
    if (!xgpu__tune_budget_parse(v, &s)) {
        xgpu__log("tune", XGPU_LOG_WARN, "XGPU_TUNE_BUDGET_S='%.40s' %s", v,
                  xgpu__tune_setting_refusal("XGPU_TUNE_BUDGET_S"));
    }
    return s;
}

/* Whether this process tried already; marks it tried when not. */
static bool seen(const xgpu__tune_key *key, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                 xgpu__tune_class cls) {
    for (size_t i = 0; i < ntried; i++) {
        const struct tried *t = &tried[i];
        if (t->id == id && t->dtype == dtype && t->cls == cls &&
            !strcmp(t->backend, key->backend) && !strcmp(t->device, key->device)) {
            return true;
        }
    }
    if (ntried == TRIED_MAX) {
        return true; /* a process with that many first uses tunes no more */
    }
    struct tried *t = &tried[ntried++];
    snprintf(t->backend, sizeof t->backend, "%s", key->backend);
    snprintf(t->device, sizeof t->device, "%s", key->device);
    t->id = id;
    t->dtype = dtype;
    t->cls = cls;
    return false;
}

/* Whether the database at `path` has an exact entry (another process may
 * have tuned meanwhile). */
static bool has_exact(const char *path, const xgpu__tune_key *key, xgpu__tune_kernel_id id,
                      xgpu_dtype dtype, xgpu__tune_class cls) {
    xgpu__tune_db db;
    char why[400] = "";
    xgpu__tune_db_load(path, false, &db, why, sizeof why);
    xgpu__tune_level level = XGPU__TL_EXACT;
    long i = xgpu__tune_db_match(&db, key, xgpu__tune_kernel_get(id)->name, xgpu_dtype_name(dtype),
                                 xgpu__tune_class_name(cls), &level, NULL, NULL);
    xgpu__tune_db_free(&db);
    return i >= 0 && level == XGPU__TL_EXACT;
}

/* The search itself; false with the reason. */
static bool run(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu_dtype dtype, xgpu__tune_class cls,
                const char *path, char *why, size_t why_size) {
    xgpu_queue *queue = NULL;
    xgpu_status st = xgpu_queue_create(ctx, &queue);
    xgpu_tune_options opt = {.seconds = budget_s(), .max_size = AUTO_MAX_BYTES};
    xgpu_tune_summary sum = {0};
    if (st == XGPU_SUCCESS) {
        st = xgpu__tune_class_search(queue, id, dtype, cls, path, &opt, true, &sum);
    }
    if (st != XGPU_SUCCESS) {
        snprintf(why, why_size, "%s", xgpu_last_error()->message);
    } else if (!sum.best[cls][0]) {
        snprintf(why, why_size, "%s",
                 sum.size[cls] ? "no candidate verified" : "the class's problem does not fit");
    }
    if (queue) {
        xgpu_queue_release(queue);
    }
    xgpu__tune_forget();
    return st == XGPU_SUCCESS && sum.best[cls][0];
}

static bool auto_tune(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                      xgpu__tune_class cls) {
    const char *kname = xgpu__tune_kernel_get(id)->name;
    const char *dname = xgpu_dtype_name(dtype), *cname = xgpu__tune_class_name(cls);
    struct xgpu__error_state *saved = xgpu__error_save();
    /* f16 GEMM is looked up, never tuned. */
    if (xgpu__tune_check_dtype("XGPU_TUNE=auto", id, dtype, xgpu__context_info(ctx)) !=
        XGPU_SUCCESS) {
        xgpu__error_restore(saved);
        return false;
    }
    char path[XGPU__KCACHE_PATH_MAX], why[400] = "";
    if (!xgpu__tune_db_path(path, sizeof path, why, sizeof why)) {
        xgpu__log("tune", XGPU_LOG_DEBUG, "XGPU_TUNE=auto: %s %s %s not tuned: %s", kname, dname,
                  cname, why);
        xgpu__error_restore(saved);
        return false;
    }
    xgpu__tune_key key;
    xgpu__tune_key_of(ctx, id, &key);
    pthread_mutex_lock(&auto_lock);
    bool stored = false;
    if (has_exact(path, &key, id, dtype, cls)) {
        stored = true;
    } else if (!seen(&key, id, dtype, cls)) {
        xgpu__log("tune", XGPU_LOG_INFO, "XGPU_TUNE=auto: tuning %s %s %s on %s (%g s) into %s",
                  kname, dname, cname, key.device, budget_s(), path);
        stored = run(ctx, id, dtype, cls, path, why, sizeof why);
        if (!stored) {
            xgpu__log("tune", XGPU_LOG_DEBUG,
                      "XGPU_TUNE=auto: %s %s %s not tuned: %s; the lookup's choice runs", kname,
                      dname, cname, why);
        }
    }
    pthread_mutex_unlock(&auto_lock);
    xgpu__error_restore(saved);
    return stored;
}

/* Registered when the library is loaded, before any context exists. */
__attribute__((constructor)) static void register_auto(void) {
    xgpu__tune_set_auto(auto_tune);
}
