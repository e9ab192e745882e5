/* The HIP backend's own compile path (hiprtc from the ROCm runtime found
 * at run time), with no GPU: kernels in the xgpu dialect become code
 * objects for gfx906 (the Hygon DCU class) and gfx90a; an architecture the
 * release's hiprtc would crash on is refused with an error, and this
 * process survives. Skips (exit 77) without a HIP runtime. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "hip_internal.h"
#include "core_int.h"
#include "dialect_kernels.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static hip_runtime rt;
static hip_rtc rtc;

static void compile_for(const char *arch) {
    char *full = xgpu__compose_source(XGPU_DIALECT_HIP, dialect_test_kernels);
    assert_non_null(full);
    char *code = NULL, *log = NULL;
    size_t size = 0;
    xgpu_status st = hip__compile(&rtc, full, "-DSCALE=3.0f", arch, &code, &size, &log);
    free(full);
    if (st != XGPU_SUCCESS) {
        fail_msg("%s: %s\n%s", arch, xgpu_last_error()->message, log ? log : "");
    }
    assert_true(size > 64);
    assert_memory_equal(code, "\177ELF", 4);
    printf("compiled the dialect kernels for %s with hiprtc (%s): code object, %zu bytes\n", arch,
           rtc.path, size);
    free(code);
    free(log);
}

/* The dynamic local-memory block is aligned for double whatever fixed-size
 * shared data the kernel declares (hiprtc aligned it to 1 before). */
static void dynamic_local_block_is_aligned(void **state) {
    (void)state;
    char *full = xgpu__compose_source(XGPU_DIALECT_HIP, dialect_aligned_local_kernel);
    assert_non_null(full);
    char *code = NULL, *log = NULL;
    size_t size = 0;
    xgpu_status st = hip__compile(&rtc, full, "", "gfx90a", &code, &size, &log);
    free(full);
    if (st != XGPU_SUCCESS) {
        fail_msg("%s\n%s", xgpu_last_error()->message, log ? log : "");
    }
    free(code);
    free(log);
}

static bool has_candidate(const hip_candidate *c, size_t n, const char *file, hip_flavor f) {
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(c[i].file, file) && c[i].flavor == f) {
            return true;
        }
    }
    return false;
}

static size_t index_of(const hip_candidate *c, size_t n, const char *file) {
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(c[i].file, file)) {
            return i;
        }
    }
    return n;
}

/* ROCm 7's sonames (sometimes without the unversioned link) and Hygon
 * DTK's runtimes under $DTK_PATH are tried; a DTK the environment names
 * comes first (tests/hip/test_hip_dtk.c has the DTK layouts). */
static void runtime_names_cover_rocm7_and_dtk(void **state) {
    (void)state;
    setenv("ROCM_PATH", "/opt/rocm-7.0.0", 1);
    setenv("DTK_PATH", "/opt/dtk", 1);
    hip_candidate c[64];
    size_t n = hip__runtime_candidates(c, 64);
    assert_true(has_candidate(c, n, "libamdhip64.so.7", HIP_FLAVOR_ROCM));
    assert_true(has_candidate(c, n, "/opt/rocm-7.0.0/lib/libamdhip64.so.7", HIP_FLAVOR_ROCM));
    assert_true(has_candidate(c, n, "/opt/rocm/lib/libamdhip64.so.6", HIP_FLAVOR_ROCM));
    assert_true(has_candidate(c, n, "libgalaxyhip.so.5", HIP_FLAVOR_DTK));
    assert_true(has_candidate(c, n, "/opt/dtk/hip/lib/libgalaxyhip.so.5", HIP_FLAVOR_DTK));
    assert_true(has_candidate(c, n, "/opt/dtk/lib/libgalaxyhip.so", HIP_FLAVOR_DTK));
    assert_true(has_candidate(c, n, "/opt/dtk/.hyhal/lib/libamdhip64.so.5", HIP_FLAVOR_DTK));
    /* Newest first; the named DTK before ROCm, libgalaxyhip last. */
    assert_true(index_of(c, n, "libamdhip64.so.7") < index_of(c, n, "libamdhip64.so.6"));
    assert_true(index_of(c, n, "/opt/dtk/lib/libgalaxyhip.so") <
                index_of(c, n, "libamdhip64.so.7"));
    assert_true(index_of(c, n, "/opt/rocm/lib/libamdhip64.so") <
                index_of(c, n, "libgalaxyhip.so.5"));
    /* Never truncated into the next entry, never more than asked. */
    assert_int_equal(hip__runtime_candidates(c, 3), 3);
    unsetenv("DTK_PATH");
    unsetenv("ROCM_PATH");
    n = hip__runtime_candidates(c, 64);
    for (size_t i = 0; i < n; i++) {
        assert_null(strstr(c[i].file, "/opt/dtk"));
    }
}

static void code_objects_for_gfx906_and_gfx90a(void **state) {
    (void)state;
    compile_for("gfx906");
    compile_for("gfx90a");
    compile_for("gfx90a:sramecc+:xnack-"); /* as gcnArchName reports it */
}

static void unsupported_arch_is_refused_not_a_crash(void **state) {
    (void)state;
    if (rt.version >= 50300000) {
        skip(); /* gfx940 is supported from ROCm 5.3 on */
    }
    char *full = xgpu__compose_source(XGPU_DIALECT_HIP, dialect_test_kernels);
    char *code = NULL, *log = NULL;
    size_t size = 0;
    assert_int_equal(hip__compile(&rtc, full, NULL, "gfx940", &code, &size, &log),
                     XGPU_ERROR_UNSUPPORTED);
    assert_non_null(strstr(xgpu_last_error()->message, "gfx940 is not an architecture"));
    assert_null(code);
    free(full);
    free(log);
}

static void allow_list_by_release(void **state) {
    (void)state;
    assert_true(hip__arch_supported(50200000, HIP_FLAVOR_ROCM, 0, "gfx90a:sramecc+:xnack-"));
    assert_false(hip__arch_supported(50200000, HIP_FLAVOR_ROCM, 0, "gfx940"));
    assert_true(hip__arch_supported(50700000, HIP_FLAVOR_ROCM, 0, "gfx942:sramecc+:xnack-"));
    assert_false(hip__arch_supported(60000000, HIP_FLAVOR_ROCM, 0, "gfx928"));
    /* DTK: by the DTK release, conservatively; an unknown one gets gfx906
     * only, and no AMD architecture comes from DTK's table. */
    assert_false(hip__arch_supported(50200000, HIP_FLAVOR_DTK, 0, "gfx928"));
    assert_true(hip__arch_supported(50200000, HIP_FLAVOR_DTK, 0, "gfx906"));
    assert_false(hip__arch_supported(50200000, HIP_FLAVOR_DTK, 2310, "gfx928"));
    assert_true(hip__arch_supported(50200000, HIP_FLAVOR_DTK, 2404, "gfx928"));
    assert_false(hip__arch_supported(50700000, HIP_FLAVOR_DTK, 2404, "gfx936"));
    assert_true(hip__arch_supported(50700000, HIP_FLAVOR_DTK, 2504, "gfx936:sramecc+:xnack-"));
    assert_true(hip__arch_supported(50700000, HIP_FLAVOR_DTK, 2604, "gfx936"));
    assert_false(hip__arch_supported(50700000, HIP_FLAVOR_DTK, 2604, "gfx90a"));
    assert_false(hip__arch_supported(60000000, HIP_FLAVOR_ROCM, 2604, "gfx936"));
    assert_false(hip__arch_supported(60000000, HIP_FLAVOR_ROCM, 0, "gfx9999"));
    assert_false(hip__arch_supported(60000000, HIP_FLAVOR_ROCM, 0, ""));
}

static void compile_error_names_the_line(void **state) {
    (void)state;
    static const char *broken = "XGPU_KERNEL void k(XGPU_GLOBAL float *x) {\n"
                                "    xgpu_u32 i = xgpu_global_id(0);\n"
                                "    x[i] = undefined_thing;\n"
                                "}\n";
    char *full = xgpu__compose_source(XGPU_DIALECT_HIP, broken);
    char *code = NULL, *log = NULL;
    size_t size = 0;
    assert_int_equal(hip__compile(&rtc, full, NULL, "gfx906", &code, &size, &log),
                     XGPU_ERROR_BUILD_FAILED);
    assert_non_null(log);
    if (!strstr(log, ":3:") || !strstr(log, "undefined_thing")) {
        fail_msg("log does not point at line 3:\n%s", log);
    }
    free(log);
    free(full);
}

int main(void) {
    hip__services = &xgpu__services;
    char reason[1024];
    int count = 0;
    xgpu_status st = hip__runtime_load(&rt, &count, reason, sizeof reason);
    if (st != XGPU_SUCCESS && !rt.lib) {
        printf("skipped: no HIP runtime: %s\n", reason);
        return 77;
    }
    if (hip__rtc_load(&rt, &rtc, reason, sizeof reason) != XGPU_SUCCESS) {
        printf("skipped: no hiprtc: %s\n", reason);
        return 77;
    }
    printf("HIP runtime %s (version %d), %d device(s); hiprtc from %s\n", rt.path, rt.version,
           count, rtc.path);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(code_objects_for_gfx906_and_gfx90a),
        cmocka_unit_test(unsupported_arch_is_refused_not_a_crash),
        cmocka_unit_test(allow_list_by_release),
        cmocka_unit_test(compile_error_names_the_line),
        cmocka_unit_test(dynamic_local_block_is_aligned),
        cmocka_unit_test(runtime_names_cover_rocm7_and_dtk),
    };
    return cmocka_run_group_tests_name("hip_compile", tests, NULL, NULL);
}
