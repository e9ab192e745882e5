/* The OpenCL backend's rules for what kernels get, on made-up extension
 * strings and device types: what xgpu_device_info.subgroups reports
 * (ocl__subgroups_usable) is what the prelude defines as
 * XGPU_HAS_SUBGROUPS for a build with the backend's option, whatever
 * extension macros the OpenCL C compiler adds; XGPU_PREFETCH is a prefetch
 * with the CPU-only option and nothing without it. The prelude is run
 * through the host's C preprocessor (XGPU_TEST_CC). */
#define _GNU_SOURCE
#include "cl_extensions.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The last line of `expr` expanded by the prelude with `defines` (-D...),
 * into out. */
static void prelude_expand(const char *defines, const char *expr, char *out, size_t size) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "printf '#include \"xgpu_prelude.h\"\\n%s\\n' | %s -E -P -I%s "
             "-DXGPU_DIALECT_OPENCL=1 %s - 2>/dev/null",
             expr, XGPU_TEST_CC, XGPU_TEST_KERNELS, defines);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[512];
    out[0] = '\0';
    while (fgets(line, sizeof line, p)) {
        if (line[0] != '\n') {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, size, "%s", line);
        }
    }
    assert_int_equal(pclose(p), 0);
}

/* XGPU_HAS_SUBGROUPS as the prelude defines it with `defines`. */
static int prelude_flag(const char *defines) {
    char last[512];
    prelude_expand(defines, "XGPU_HAS_SUBGROUPS", last, sizeof last);
    return atoi(last);
}

/* The -D options an OpenCL C compiler would add for the extensions (each
 * a macro), then the backend's own option. */
static void defines_for(const char *exts, char *out, size_t size) {
    out[0] = '\0';
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", exts);
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        size_t used = strlen(out);
        snprintf(out + used, size - used, " -D%s=1", w);
    }
    size_t used = strlen(out);
    snprintf(out + used, size - used, "%s", ocl__subgroups_option(ocl__subgroups_usable(exts)));
}

static void device_info_and_prelude_agree(void **state) {
    (void)state;
    static const struct {
        const char *exts;
        bool want;
    } cases[] = {
        {"", false},
        {"cl_khr_fp64 cl_khr_icd", false},
        {"cl_khr_fp64 cl_khr_subgroups", true},
        {"cl_intel_subgroups cl_khr_fp16", true}, /* Intel's CPU and GPU runtimes */
        {"cl_intel_subgroups_short", false},      /* a longer name is another one */
        {"xcl_khr_subgroups cl_khr_subgroupsx", false},
        {"cl_khr_subgroup_extended_types", false}, /* needs cl_khr_subgroups itself */
        /* OpenCL 3.0's feature macro: defined by a compiler only under
         * -cl-std=CL3.0, which xgpu does not pass. */
        {"__opencl_c_subgroups", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool usable = ocl__subgroups_usable(cases[i].exts);
        if (usable != cases[i].want) {
            fail_msg("'%s': subgroups %d, want %d", cases[i].exts, usable, cases[i].want);
        }
        char defines[2048];
        defines_for(cases[i].exts, defines, sizeof defines);
        int flag = prelude_flag(defines);
        if (flag != (usable ? 1 : 0)) {
            fail_msg("'%s': device info says %d, the prelude's XGPU_HAS_SUBGROUPS is %d",
                     cases[i].exts, usable, flag);
        }
    }
}

static void whole_words(void **state) {
    (void)state;
    assert_true(ocl__has_extension("a b c", "b"));
    assert_true(ocl__has_extension("cl_khr_fp64", "cl_khr_fp64"));
    assert_false(ocl__has_extension("cl_khr_fp64x", "cl_khr_fp64"));
    assert_false(ocl__has_extension("", "cl_khr_fp64"));
    assert_false(ocl__has_extension(NULL, "cl_khr_fp64"));
    assert_string_equal(ocl__subgroups_option(false), "");
    assert_string_equal(ocl__subgroups_option(true), " -DXGPU__CL_SUBGROUPS=1");
}

/* XGPU_PREFETCH(p): the builtin with the backend's option for a CPU-only
 * device, nothing without it (oclgrind's build; the GPU dialects have
 * their own prelude sections). The host compiler, like the OpenCL C ones,
 * has __has_builtin(__builtin_prefetch). */
static void prefetch_only_for_cpu_devices(void **state) {
    (void)state;
    assert_string_equal(ocl__prefetch_option(true), " -DXGPU__CL_PREFETCH=1");
    assert_string_equal(ocl__prefetch_option(false), "");
    char out[512];
    prelude_expand(ocl__prefetch_option(true), "XGPU_PREFETCH(q + 16)", out, sizeof out);
    assert_string_equal(out, "__builtin_prefetch(q + 16)");
    prelude_expand(ocl__prefetch_option(false), "XGPU_PREFETCH(q + 16)", out, sizeof out);
    assert_string_equal(out, "((void)0)");
}

/* Which device types get the prefetch: pocl's CPU devices (the first one
 * also DEFAULT), not GPUs, accelerators, or oclgrind's every-type device. */
static void cpu_only_device_types(void **state) {
    (void)state;
    assert_true(ocl__cpu_only(OCL__TYPE_CPU));
    assert_true(ocl__cpu_only(OCL__TYPE_CPU | OCL__TYPE_DEFAULT));
    assert_false(ocl__cpu_only(OCL__TYPE_CPU | OCL__TYPE_GPU | OCL__TYPE_ACCELERATOR));
    assert_false(ocl__cpu_only(OCL__TYPE_CPU | OCL__TYPE_GPU));
    assert_false(ocl__cpu_only(OCL__TYPE_GPU));
    assert_false(ocl__cpu_only(OCL__TYPE_GPU | OCL__TYPE_DEFAULT));
    assert_false(ocl__cpu_only(OCL__TYPE_ACCELERATOR));
    assert_false(ocl__cpu_only(OCL__TYPE_DEFAULT));
    assert_false(ocl__cpu_only(0));
    /* CL_DEVICE_TYPE_CUSTOM (16) beside CPU is not CPU alone. */
    assert_false(ocl__cpu_only(OCL__TYPE_CPU | 16));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_info_and_prelude_agree),
        cmocka_unit_test(prefetch_only_for_cpu_devices),
        cmocka_unit_test(cpu_only_device_types),
        cmocka_unit_test(whole_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
