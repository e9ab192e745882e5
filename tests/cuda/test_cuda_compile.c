/* The CUDA backend's own compile path (NVRTC, loaded at run time), with no
 * GPU and no driver: kernels in the xgpu dialect become CUBIN for sm_75,
 * sm_80 and sm_90, PTX when the device is newer than NVRTC knows, and a
 * clear error when it is older than NVRTC supports. Skips (exit 77) when
 * NVRTC is not installed. */
#include "cuda_internal.h"
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

static cu_nvrtc nvrtc;

static int setup(void **state) {
    (void)state;
    cu__services = &xgpu__services;
    return 0;
}

static void compile_one(const char *source, const char *options, int sm, cu_binary *bin) {
    char *full = xgpu__compose_source(XGPU_DIALECT_CUDA, source);
    assert_non_null(full);
    char *log = NULL;
    xgpu_status st = cu__compile(&nvrtc, full, options, sm, bin, &log);
    free(full);
    if (st != XGPU_SUCCESS) {
        fail_msg("sm_%d: %s\n%s", sm, xgpu_last_error()->message, log ? log : "");
    }
    free(log);
}

static void cubin_for_sm_75_80_90(void **state) {
    (void)state;
    static const int sms[] = {75, 80, 90};
    for (size_t i = 0; i < sizeof sms / sizeof sms[0]; i++) {
        cu_binary bin;
        compile_one(dialect_test_kernels, "-DSCALE=3.0f", sms[i], &bin);
        assert_false(bin.ptx);
        assert_int_equal(bin.target, sms[i]);
        assert_true(bin.size > 64);
        assert_memory_equal(bin.data, "\177ELF", 4);
        printf("compiled the dialect kernels for sm_%d with NVRTC %d.%d: CUBIN, %zu bytes\n",
               sms[i], nvrtc.major, nvrtc.minor, bin.size);
        free(bin.data);
    }
}

static void ptx_for_a_device_newer_than_nvrtc(void **state) {
    (void)state;
    assert_true(nvrtc.arch_count > 0);
    int newest = nvrtc.archs[nvrtc.arch_count - 1];
    cu_binary bin;
    compile_one(dialect_test_kernels, "-DSCALE=1.0f", newest + 1, &bin);
    assert_true(bin.ptx);
    assert_int_equal(bin.target, newest);
    char target[32];
    snprintf(target, sizeof target, ".target sm_%d", newest);
    assert_non_null(strstr(bin.data, target));
    assert_non_null(strstr(bin.data, ".entry vector_add")); /* extern "C": unmangled */
    printf("device sm_%d: PTX for compute_%d, %zu bytes\n", newest + 1, newest, bin.size);
    free(bin.data);
}

static void device_older_than_nvrtc_supports(void **state) {
    (void)state;
    int oldest = nvrtc.archs[0];
    char *full = xgpu__compose_source(XGPU_DIALECT_CUDA, dialect_test_kernels);
    cu_binary bin;
    char *log = NULL;
    assert_int_equal(cu__compile(&nvrtc, full, "-DSCALE=1.0f", oldest - 5, &bin, &log),
                     XGPU_ERROR_UNSUPPORTED);
    char want[64];
    snprintf(want, sizeof want, "cannot target this sm_%d device", oldest - 5);
    assert_non_null(strstr(xgpu_last_error()->message, want));
    assert_null(bin.data);
    free(log);
    free(full);
}

static void compile_error_names_the_line(void **state) {
    (void)state;
    static const char *broken = "XGPU_KERNEL void k(XGPU_GLOBAL float *x) {\n"
                                "    xgpu_u32 i = xgpu_global_id(0);\n"
                                "    x[i] = undefined_thing;\n"
                                "}\n";
    char *full = xgpu__compose_source(XGPU_DIALECT_CUDA, broken);
    cu_binary bin;
    char *log = NULL;
    assert_int_equal(cu__compile(&nvrtc, full, NULL, 80, &bin, &log), XGPU_ERROR_BUILD_FAILED);
    assert_string_equal(xgpu_last_error()->native_name, "NVRTC_ERROR_COMPILATION");
    assert_non_null(log);
    if (!strstr(log, "(3)") || !strstr(log, "undefined_thing")) {
        fail_msg("log does not point at line 3:\n%s", log);
    }
    free(log);
    free(full);
    assert_int_equal(
        cu__compile(&nvrtc, full = xgpu__compose_source(XGPU_DIALECT_CUDA, dialect_test_kernels),
                    "--no-such-option", 80, &bin, &log),
        XGPU_ERROR_BUILD_FAILED);
    free(log);
    free(full);
}

/* The dynamic local-memory block is aligned for double and vector types
 * whatever fixed-size shared data the kernel declares. */
static void dynamic_local_block_is_aligned(void **state) {
    (void)state;
    cu_binary bin;
    compile_one(dialect_aligned_local_kernel, "", 80, &bin);
    free(bin.data);
}

/* Faults that poison the context are "device lost", not a generic error. */
static void faults_are_device_lost(void **state) {
    (void)state;
    const CUresult lost[] = {700, 710, 714, 715, 716, 717, 718, 719, 999};
    for (size_t i = 0; i < sizeof lost / sizeof lost[0]; i++) {
        assert_int_equal(cu__status_of(lost[i]), XGPU_ERROR_DEVICE_LOST);
    }
    assert_int_equal(cu__status_of(CUDA_ERROR_OUT_OF_MEMORY), XGPU_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_int_equal(cu__status_of(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES), XGPU_ERROR_INVALID_LAUNCH);
    assert_int_equal(cu__status_of(CUDA_ERROR_INVALID_VALUE), XGPU_ERROR_BACKEND);
}

/* 16 KiB fixed plus 40 KiB at launch needs the opt-in: the default is
 * 48 KiB in all, not 48 KiB of dynamic memory. */
static void dynamic_shared_default_counts_fixed_memory(void **state) {
    (void)state;
    assert_int_equal(cu__default_dynamic_limit(0), 48 * 1024);
    assert_int_equal(cu__default_dynamic_limit(16 * 1024), 32 * 1024);
    assert_true(40 * 1024 > cu__default_dynamic_limit(16 * 1024));
    assert_int_equal(cu__default_dynamic_limit(48 * 1024), 0);
    assert_int_equal(cu__default_dynamic_limit(60 * 1024), 0);
}

/* A CUDA 12 driver gets NVRTC 12 before 13: PTX from a newer major version
 * does not load on it. */
static void nvrtc_matching_the_driver_first(void **state) {
    (void)state;
    const char *order[8];
    size_t n = cu__nvrtc_order(12, order, 8);
    assert_int_equal(n, 6);
    assert_string_equal(order[0], "libnvrtc.so.12");
    assert_string_equal(order[1], "libnvrtc.so.11.2");
    assert_string_equal(order[4], "libnvrtc.so");
    assert_string_equal(order[5], "libnvrtc.so.13");
    n = cu__nvrtc_order(13, order, 8);
    assert_string_equal(order[0], "libnvrtc.so.13");
    n = cu__nvrtc_order(0, order, 8); /* unknown driver: newest first */
    assert_int_equal(n, 6);
    assert_string_equal(order[0], "libnvrtc.so.13");
    assert_string_equal(order[5], "libnvrtc.so");
}

static void target_choice(void **state) {
    (void)state;
    static const int archs[] = {75, 80, 86, 89, 90, 100, 120};
    int target = 0;
    bool ptx = true;
    assert_true(cu__choose_target(86, archs, 7, &target, &ptx));
    assert_int_equal(target, 86);
    assert_false(ptx);
    assert_true(cu__choose_target(87, archs, 7, &target, &ptx)); /* Orin: not in the list */
    assert_int_equal(target, 86);
    assert_true(ptx);
    assert_true(cu__choose_target(130, archs, 7, &target, &ptx));
    assert_int_equal(target, 120);
    assert_true(ptx);
    assert_false(cu__choose_target(70, archs, 7, &target, &ptx));
    assert_true(cu__choose_target(70, archs, 0, &target, &ptx)); /* no list: ask for sm itself */
    assert_int_equal(target, 70);
    assert_false(ptx);
}

int main(void) {
    cu__services = &xgpu__services;
    char reason[1024];
    if (cu__nvrtc_load(&nvrtc, 0, reason, sizeof reason) != XGPU_SUCCESS) {
        printf("skipped: no NVRTC: %s\n", reason);
        return 77;
    }
    printf("NVRTC %d.%d from %s, archs sm_%d..sm_%d\n", nvrtc.major, nvrtc.minor, nvrtc.path,
           nvrtc.arch_count ? nvrtc.archs[0] : 0,
           nvrtc.arch_count ? nvrtc.archs[nvrtc.arch_count - 1] : 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cubin_for_sm_75_80_90),
        cmocka_unit_test(ptx_for_a_device_newer_than_nvrtc),
        cmocka_unit_test(device_older_than_nvrtc_supports),
        cmocka_unit_test(compile_error_names_the_line),
        cmocka_unit_test(target_choice),
        cmocka_unit_test(dynamic_local_block_is_aligned),
        cmocka_unit_test(faults_are_device_lost),
        cmocka_unit_test(dynamic_shared_default_counts_fixed_memory),
        cmocka_unit_test(nvrtc_matching_the_driver_first),
    };
    return cmocka_run_group_tests_name("cuda_compile", tests, setup, NULL);
}
