/* The fragment GEMM's host side without a device: the path each device
 * gets, the built-in parameters passing their own check on every path and
 * device class, each rule of the check named in its error, and the build
 * options. */
#define _GNU_SOURCE
#include "core_int.h"
#include "tunedb_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define FRAG XGPU_GEMM_FRAGMENTS

static xgpu_device_info device(xgpu_device_type type, const char *backend, const char *arch) {
    xgpu_device_info info = {.type = type,
                             .max_group_size = 1024,
                             .local_mem_bytes = 227 * 1024,
                             .local_mem_static_bytes = 48 * 1024};
    snprintf(info.backend, sizeof info.backend, "%s", backend);
    snprintf(info.arch, sizeof info.arch, "%s", arch);
    return info;
}

static void paths(void **state) {
    (void)state;
    xgpu_device_info a100 = device(XGPU_DEVICE_TYPE_GPU, "cuda", "sm_80");
    xgpu_device_info t4 = device(XGPU_DEVICE_TYPE_GPU, "cuda", "sm_75");
    xgpu_device_info mi210 = device(XGPU_DEVICE_TYPE_GPU, "hip", "gfx90a:sramecc+:xnack-");
    xgpu_device_info mi100 = device(XGPU_DEVICE_TYPE_GPU, "hip", "gfx908");
    xgpu_device_info pocl = device(XGPU_DEVICE_TYPE_CPU, "opencl", "skylake-avx512");
    assert_string_equal(xgpu__gemm_mma_path(&a100, XGPU_BF16, false), "mma.sync");
    assert_string_equal(xgpu__gemm_mma_path(&a100, XGPU_F32, true), "mma.sync");
    assert_null(xgpu__gemm_mma_path(&a100, XGPU_F32, false));
    assert_null(xgpu__gemm_mma_path(&a100, XGPU_F64, true));
    assert_string_equal(xgpu__gemm_mma_path(&t4, XGPU_F16, false), "fragments");
    assert_null(xgpu__gemm_mma_path(&t4, XGPU_F32, true));
    assert_string_equal(xgpu__gemm_mma_path(&mi210, XGPU_BF16, false), "mfma");
    assert_string_equal(xgpu__gemm_mma_path(&mi100, XGPU_F16, false), "mfma");
    assert_string_equal(xgpu__gemm_mma_path(&mi100, XGPU_BF16, false), "fragments");
    assert_null(xgpu__gemm_mma_path(&mi210, XGPU_F32, true));
    assert_string_equal(xgpu__gemm_mma_path(&pocl, XGPU_F16, false), "fragments");
}

static void builtins_pass_their_check(void **state) {
    (void)state;
    static const xgpu_dtype ins[] = {XGPU_F16, XGPU_BF16, XGPU_F32};
    static const char *const ps[] = {"fragments", "mma.sync", "mfma", "fragments-mfma"};
    const xgpu_device_info infos[] = {device(XGPU_DEVICE_TYPE_GPU, "cuda", "sm_90"),
                                      device(XGPU_DEVICE_TYPE_CPU, "opencl", "")};
    for (size_t d = 0; d < 2; d++) {
        for (size_t t = 0; t < 3; t++) {
            for (size_t q = 0; q < 4; q++) {
                if (ins[t] == XGPU_F32 && q >= 2) {
                    continue;
                }
                xgpu_gemm_params p;
                xgpu__gemm_mma_builtin(&infos[d], ins[t], ps[q], &p);
                assert_int_equal(p.contiguous, FRAG);
                assert_int_equal(xgpu__gemm_mma_check_params(&p, &infos[d], ins[t], ps[q], "t"),
                                 XGPU_SUCCESS);
            }
        }
    }
    /* A device with small groups and little local memory: the one-warp set. */
    xgpu_device_info tiny = device(XGPU_DEVICE_TYPE_GPU, "opencl", "");
    tiny.max_group_size = 64;
    tiny.local_mem_static_bytes = 4096;
    xgpu_gemm_params p;
    xgpu__gemm_mma_builtin(&tiny, XGPU_F16, "fragments", &p);
    assert_int_equal(p.tile_m, 16);
    assert_int_equal(xgpu__gemm_mma_check_params(&p, &tiny, XGPU_F16, "fragments", "t"),
                     XGPU_SUCCESS);
}

static uint64_t max_group = 1024;

static void refused(xgpu_gemm_params p, xgpu_dtype in, const char *path, xgpu_status want,
                    const char *fragment) {
    xgpu_device_info info = device(XGPU_DEVICE_TYPE_GPU, "cuda", "sm_80");
    info.max_group_size = max_group;
    xgpu_status st = xgpu__gemm_mma_check_params(&p, &info, in, path, "test");
    if (st != want || !strstr(xgpu_last_error()->message, fragment)) {
        fail_msg("%u,%u,%u,%u,%u,%u,%u %s %s: %s (%s), wanted '%s'", p.tile_m, p.tile_n, p.tile_k,
                 p.work_m, p.work_n, p.vector_width, p.contiguous, xgpu_dtype_name(in),
                 path ? path : "(null)", xgpu_status_name(st),
                 st ? xgpu_last_error()->message : "accepted", fragment);
    }
}

/* Each rule once, on a set that passes but for it. */
static void every_rule_named(void **state) {
    (void)state;
    const xgpu_gemm_params ok = {128, 128, 32, 64, 32, 8, FRAG};
    const xgpu_status inval = XGPU_ERROR_INVALID_ARGUMENT, unsup = XGPU_ERROR_UNSUPPORTED;
    refused(ok, XGPU_F64, "mma.sync", inval, "f16, bf16 or tf32");
    refused(ok, XGPU_F16, "wmma", inval, "no path 'wmma'");
    refused(ok, XGPU_F32, "mfma", inval, "no path 'mfma' for tf32");
    refused(ok, XGPU_F32, "fragments-mfma", inval, "no path 'fragments-mfma' for tf32");
    refused((xgpu_gemm_params){128, 128, 32, 64, 32, 8, XGPU_GEMM_GPU}, XGPU_F16, "mma.sync", inval,
            "contiguous 2");
    refused((xgpu_gemm_params){128, 128, 0, 64, 32, 8, FRAG}, XGPU_F16, "mma.sync", inval,
            "each must be 1..");
    refused((xgpu_gemm_params){128, 128, 32, 40, 32, 8, FRAG}, XGPU_F16, "mma.sync", inval,
            "16 x 8 fragments");
    refused((xgpu_gemm_params){128, 128, 32, 64, 16, 8, FRAG}, XGPU_F16, "mfma", inval,
            "32 x 32 fragments");
    refused((xgpu_gemm_params){128, 128, 32, 64, 16, 8, FRAG}, XGPU_F16, "fragments-mfma", inval,
            "32 x 32 fragments");
    refused((xgpu_gemm_params){128, 128, 24, 64, 32, 8, FRAG}, XGPU_F16, "mma.sync", inval,
            "tile_k a multiple of 16");
    refused((xgpu_gemm_params){128, 128, 20, 64, 32, 4, FRAG}, XGPU_F32, "mma.sync", inval,
            "tile_k a multiple of 8");
    refused((xgpu_gemm_params){128, 128, 32, 64, 32, 3, FRAG}, XGPU_F16, "mma.sync", inval,
            "vector_width 3");
    refused((xgpu_gemm_params){128, 128, 16, 64, 32, 8, FRAG}, XGPU_F32, "mma.sync", inval,
            "vector_width 8");
    refused((xgpu_gemm_params){32, 16, 16, 16, 8, 8, FRAG}, XGPU_F16, "mma.sync", inval,
            "must divide both tiles");
    refused((xgpu_gemm_params){128, 128, 32, 128, 64, 8, FRAG}, XGPU_F16, "mma.sync", unsup,
            "registers per work-item");
    max_group = 128;
    refused(ok, XGPU_F16, "mma.sync", unsup, "need 256 work-items");
    max_group = 1024;
    refused((xgpu_gemm_params){128, 256, 32, 64, 64, 8, FRAG}, XGPU_F16, "mma.sync", unsup,
            "bytes of local memory");
}

static void options(void **state) {
    (void)state;
    const xgpu_gemm_params p = {128, 128, 32, 64, 32, 8, FRAG};
    char buf[256];
    xgpu__gemm_mma_options(XGPU_BF16, XGPU_BF16, "mma.sync", &p, buf, sizeof buf);
    assert_string_equal(buf, "-DMMA_IN_BF16 -DMMA_OUT_IN -DMMA_PATH_MMASYNC -DTSM=128 -DTSN=128 "
                             "-DTSK=32 -DWTM=64 -DWTN=32 -DVW=8");
    xgpu__gemm_mma_options(XGPU_F32, XGPU_F32, "fragments", &p, buf, sizeof buf);
    assert_non_null(strstr(buf, "-DMMA_IN_TF32 -DMMA_OUT_F32 -DMMA_PATH_FRAGMENTS"));
    xgpu__gemm_mma_options(XGPU_F16, XGPU_F32, "mfma", &p, buf, sizeof buf);
    assert_non_null(strstr(buf, "-DMMA_IN_F16 -DMMA_OUT_F32 -DMMA_PATH_MFMA "));
    xgpu__gemm_mma_options(XGPU_BF16, XGPU_F32, "fragments-mfma", &p, buf, sizeof buf);
    assert_non_null(strstr(buf, "-DMMA_IN_BF16 -DMMA_OUT_F32 -DMMA_PATH_MFMA_FRAGMENTS "));
    /* A warp: 64 work-items in MFMA's layout, emulated or not. */
    assert_int_equal(xgpu__gemm_mma_lanes("mfma"), 64);
    assert_int_equal(xgpu__gemm_mma_lanes("fragments-mfma"), 64);
    assert_int_equal(xgpu__gemm_mma_lanes("fragments"), 32);
    assert_int_equal(xgpu__gemm_mma_lanes("mma.sync"), 32);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths),
        cmocka_unit_test(builtins_pass_their_check),
        cmocka_unit_test(every_rule_named),
        cmocka_unit_test(options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
