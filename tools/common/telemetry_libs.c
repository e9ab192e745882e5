/* What loading NVML and ROCm SMI at run time shares (telemetry_nvml.c,
 * telemetry_rsmi.c): a symbol as a function, the library found, and the
 * tests' device override. The vendors' headers are not used: each file
 * declares the few types and functions it calls. */
#define _GNU_SOURCE
#include "telemetry_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function from the library, NULL when it lacks it; through memcpy, as
 * vendor_blas.c does, since C has no cast from void * to a function. */
gt_fn gt_sym(void *dl, const char *name) {
    void *p = dl ? dlsym(dl, name) : NULL;
    gt_fn f;
    memcpy(&f, &p, sizeof f);
    return f;
}

/* The library from the environment variable `env`, or the first of
 * `names` dlopen takes; NULL with why. */
void *gt_open_library(const char *env, const char *const *names, char *loaded, size_t size,
                      char *why, size_t why_size) {
    const char *forced = getenv(env);
    if (forced && *forced) {
        void *dl = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
        if (!dl) {
            const char *e = dlerror();
            snprintf(why, why_size, "%s=%s cannot be loaded: %s", env, forced, e ? e : "?");
            return NULL;
        }
        snprintf(loaded, size, "%s", forced);
        return dl;
    }
    for (size_t i = 0; names[i]; i++) {
        void *dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (dl) {
            snprintf(loaded, size, "%s", names[i]);
            return dl;
        }
    }
    snprintf(why, why_size, "%s not found", names[0]);
    return NULL;
}

/* XGPU_TELEMETRY_MATCH=index:N, for tests: the library's device N. */
int gt_match_index(void) {
    const char *m = getenv("XGPU_TELEMETRY_MATCH");
    unsigned n;
    char tail;
    if (m && sscanf(m, "index:%u%c", &n, &tail) == 1 && n < 1024) {
        return (int)n;
    }
    return -1;
}
