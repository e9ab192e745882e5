/* The library kernels built into the HIP plugin: one code object bundle
 * for every variant the routines build on a GPU, found by the key of the
 * source the core composes for HIP, holding a code object for each
 * architecture the build promises that variant (every one; MFMA variants
 * gfx908/gfx90a only). (Loading them needs an AMD GPU, which
 * CI does not have.) Skipped when the build had no hipcc. */
#include "embedded.h"
#include "core_int.h"
#include "lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const xgpu_embedded_table hip__embedded_table;

static bool holds(const xgpu_embedded *e, const char *what) {
    size_t n = strlen(what);
    for (size_t i = 0; i + n <= e->size; i++) {
        if (!memcmp(e->data + i, what, n)) {
            return true;
        }
    }
    return false;
}

int main(void) {
    const xgpu_embedded_table *t = &hip__embedded_table;
    printf("built-in kernels: %zu, %s\n", t->count, t->about);
    if (!t->count) {
        return 77;
    }
    static xgpu__lib_variant v[XGPU__LIB_VARIANTS_MAX];
    size_t n = xgpu__lib_variants(false, v, XGPU__LIB_VARIANTS_MAX);
    if (n > XGPU__LIB_VARIANTS_MAX) {
        printf("FAIL: %zu GPU library variants, room for %d\n", n, XGPU__LIB_VARIANTS_MAX);
        return 1;
    }
    static const char *const archs[] = {"gfx906", "gfx908", "gfx90a", "gfx1030"};
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        if (!xgpu__lib_variant_builds_for(&v[i], "hip", archs[0]) &&
            !xgpu__lib_variant_builds_for(&v[i], "hip", archs[2])) {
            continue; /* another backend's (mma.sync) */
        }
        char *full = xgpu__compose_source(XGPU_DIALECT_HIP, v[i].source);
        const xgpu_embedded *e = full ? xgpu__embedded_find(t, full, v[i].options) : NULL;
        free(full);
        if (!e) {
            printf("FAIL %s %s: not built in\n", v[i].name, v[i].options);
            failures++;
            continue;
        }
        bool ok = e->size > 24 && !memcmp(e->data, "__CLANG_OFFLOAD_BUNDLE__", 24);
        for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
            char id[64];
            snprintf(id, sizeof id, "amdgcn-amd-amdhsa--%s", archs[a]);
            /* Exactly the architectures the variant builds for (MFMA:
             * gfx908/gfx90a only). */
            ok = ok && holds(e, id) == xgpu__lib_variant_builds_for(&v[i], "hip", archs[a]);
        }
        printf("%s %s %s: %zu bytes\n", ok ? "ok  " : "FAIL", v[i].name, v[i].options, e->size);
        failures += !ok;
    }
    /* Another source is not found. */
    if (xgpu__embedded_find(t, "XGPU_KERNEL void k(void) {}\n", "")) {
        printf("FAIL: a user kernel was found in the table\n");
        failures++;
    }
    return failures ? 1 : 0;
}
