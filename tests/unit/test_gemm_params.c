/* GEMM's parameter families without a device: which family each device
 * type gets by default, the GPU family's rules in the parameter check
 * (register blocks of whole vectors, warp-shaped groups, registers, two K
 * steps of local memory), its build option, and the tuner's GPU
 * candidates; the register family's defaults on pocl and its rules. */
#define _GNU_SOURCE
#include "core_int.h"
#include "tunedb_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define GPU XGPU_GEMM_GPU

static xgpu_device_info device(xgpu_device_type type) {
    xgpu_device_info info = {.type = type,
                             .max_group_size = 1024,
                             .local_mem_bytes = 227 * 1024,
                             .local_mem_static_bytes = 48 * 1024,
                             .fp64 = true};
    return info;
}

static xgpu_status check(const xgpu_gemm_params *p, xgpu_dtype dtype) {
    xgpu_device_info info = device(XGPU_DEVICE_TYPE_GPU);
    return xgpu__gemm_check_params(p, &info, xgpu__gemm_local_elem(dtype), "test");
}

static void refused(const xgpu_gemm_params *p, xgpu_dtype dtype, xgpu_status want,
                    const char *fragment) {
    xgpu_status st = check(p, dtype);
    if (st != want || !strstr(xgpu_last_error()->message, fragment)) {
        fail_msg("%u,%u,%u,%u,%u,%u,%u %s: %s (%s), wanted '%s'", p->tile_m, p->tile_n, p->tile_k,
                 p->work_m, p->work_n, p->vector_width, p->contiguous, xgpu_dtype_name(dtype),
                 xgpu_status_name(st), st ? xgpu_last_error()->message : "accepted", fragment);
    }
    xgpu__clear_error();
}

/* GPUs of every backend (CUDA, HIP, OpenCL of type GPU) get the GPU
 * family; CPUs keep the CPU family. */
static void defaults_per_device_type(void **state) {
    (void)state;
    static const xgpu_dtype types[] = {XGPU_F32, XGPU_F64, XGPU_F16};
    for (size_t t = 0; t < 3; t++) {
        xgpu_gemm_params p;
        xgpu_device_info gpu = device(XGPU_DEVICE_TYPE_GPU);
        xgpu__gemm_builtin(&gpu, types[t], &p);
        assert_int_equal(p.contiguous, GPU);
        assert_int_equal(check(&p, types[t]), XGPU_SUCCESS);
        xgpu_device_info cpu = device(XGPU_DEVICE_TYPE_CPU);
        xgpu__gemm_builtin(&cpu, types[t], &p);
        assert_true(p.contiguous != GPU);
    }
    xgpu_gemm_params p;
    xgpu_device_info gpu = device(XGPU_DEVICE_TYPE_GPU);
    xgpu__gemm_builtin(&gpu, XGPU_F32, &p);
    char options[256];
    xgpu__gemm_options(XGPU_F32, &p, options, sizeof options);
    assert_non_null(strstr(options, "-DGEMM_GPU"));
    assert_null(strstr(options, "-DCONTIG"));
    /* A GPU too small for the default falls back to parameters it can run. */
    gpu.max_group_size = 64;
    xgpu__gemm_builtin(&gpu, XGPU_F32, &p);
    assert_true((p.tile_m / p.work_m) * (p.tile_n / p.work_n) <= 64);
}

static void gpu_family_rules(void **state) {
    (void)state;
    static const xgpu_gemm_params ok = {128, 128, 16, 8, 8, 4, GPU};
    assert_int_equal(check(&ok, XGPU_F32), XGPU_SUCCESS);
    static const xgpu_gemm_params small = {32, 32, 8, 4, 4, 4, GPU};
    assert_int_equal(check(&small, XGPU_F32), XGPU_SUCCESS);
    /* work_m and work_n in whole 16-byte vectors: 4 floats, 2 doubles. */
    static const xgpu_gemm_params odd_work = {96, 128, 16, 6, 8, 1, GPU};
    refused(&odd_work, XGPU_F32, XGPU_ERROR_INVALID_ARGUMENT, "multiples of 4");
    static const xgpu_gemm_params f64_two = {32, 32, 16, 2, 2, 2, GPU};
    assert_int_equal(check(&f64_two, XGPU_F64), XGPU_SUCCESS);
    refused(&f64_two, XGPU_F32, XGPU_ERROR_INVALID_ARGUMENT, "multiples of 4");
    /* The CPU family takes the same shape. */
    static const xgpu_gemm_params odd_cpu = {96, 128, 16, 6, 8, 1, 0};
    assert_int_equal(check(&odd_cpu, XGPU_F32), XGPU_SUCCESS);
    /* Warp tiles of 4 x 8 work-items: groups of 6 x 16 and 16 x 12 do not
     * split into them (the CPU family runs them). */
    static const xgpu_gemm_params ragged = {24, 64, 12, 4, 4, 1, GPU};
    refused(&ragged, XGPU_F32, XGPU_ERROR_INVALID_ARGUMENT, "6 x 16");
    static const xgpu_gemm_params ragged_n = {64, 48, 12, 4, 4, 1, GPU};
    refused(&ragged_n, XGPU_F32, XGPU_ERROR_INVALID_ARGUMENT, "16 x 12");
    static const xgpu_gemm_params ragged_cpu = {64, 48, 12, 4, 4, 1, 0};
    assert_int_equal(check(&ragged_cpu, XGPU_F32), XGPU_SUCCESS);
    /* 256 results a work-item: more registers than a thread has. */
    static const xgpu_gemm_params regs = {128, 256, 16, 16, 16, 4, GPU};
    refused(&regs, XGPU_F32, XGPU_ERROR_UNSUPPORTED, "registers");
    /* 512 work-items of 8x8: more than a group's register file. */
    static const xgpu_gemm_params group = {128, 256, 16, 8, 8, 1, GPU};
    refused(&group, XGPU_F32, XGPU_ERROR_UNSUPPORTED, "registers");
    /* Two K steps of 32 x (128 + 128) floats: 64 KiB, over the 48 KiB of
     * fixed-size local memory; one step (the CPU family) fits. */
    static const xgpu_gemm_params local = {128, 128, 32, 8, 8, 4, GPU};
    refused(&local, XGPU_F32, XGPU_ERROR_UNSUPPORTED, "65536 bytes of local memory");
    static const xgpu_gemm_params local_cpu = {128, 128, 32, 8, 8, 4, 0};
    assert_int_equal(check(&local_cpu, XGPU_F32), XGPU_SUCCESS);
    /* 128x256x16 f32 is exactly 48 KiB. */
    static const xgpu_gemm_params full = {128, 256, 16, 8, 16, 4, GPU};
    assert_int_equal(check(&full, XGPU_F32), XGPU_SUCCESS);
    static const xgpu_gemm_params three = {128, 128, 16, 8, 8, 4, 3};
    refused(&three, XGPU_F32, XGPU_ERROR_INVALID_ARGUMENT, "contiguous 3");
}

/* pocl's CPU device as xgpu sees it: OpenCL, 2 MiB of local memory,
 * `lanes` floats per native vector. */
static xgpu_device_info pocl(uint32_t lanes) {
    xgpu_device_info info = device(XGPU_DEVICE_TYPE_CPU);
    snprintf(info.backend, sizeof info.backend, "opencl");
    snprintf(info.platform, sizeof info.platform, "Portable Computing Language");
    info.max_group_size = 4096;
    info.local_mem_bytes = 2u << 20;
    info.local_mem_static_bytes = 0;
    info.native_vector_width_f32 = lanes;
    return info;
}

static xgpu_status check_on(const xgpu_gemm_params *p, const xgpu_device_info *info,
                            xgpu_dtype dtype) {
    return xgpu__gemm_check_params(p, info, xgpu__gemm_local_elem(dtype), "test");
}

/* The register family is pocl's default for f32 and f64, shaped by the
 * vector width (6 x 64 and 6 x 32 with AVX-512's 16 floats, 6 x 16 and
 * 6 x 8 with AVX2's 8); f16, narrower vectors, runtimes that vectorise
 * across work-items and devices with too little local memory keep the
 * other families; off OpenCL it is refused. */
static void reg_family_defaults_and_rules(void **state) {
    (void)state;
    xgpu_gemm_params p;
    char options[256];
    xgpu_device_info wide = pocl(16), avx2 = pocl(8), sse = pocl(4);
    xgpu__gemm_builtin(&wide, XGPU_F32, &p);
    assert_int_equal(p.contiguous, XGPU_GEMM_REGISTERS);
    assert_int_equal(p.work_m, 6);
    assert_int_equal(p.work_n, 64);
    assert_int_equal(check_on(&p, &wide, XGPU_F32), XGPU_SUCCESS);
    xgpu__gemm_options(XGPU_F32, &p, options, sizeof options);
    assert_non_null(strstr(options, "-DGEMM_REG"));
    assert_null(strstr(options, "-DCONTIG"));
    xgpu__gemm_builtin(&wide, XGPU_F64, &p);
    assert_int_equal(p.contiguous, XGPU_GEMM_REGISTERS);
    assert_int_equal(p.work_n, 32);
    xgpu__gemm_builtin(&avx2, XGPU_F32, &p);
    assert_int_equal(p.work_n, 16);
    xgpu__gemm_builtin(&avx2, XGPU_F64, &p);
    assert_int_equal(p.work_n, 8);
    assert_int_equal(check_on(&p, &avx2, XGPU_F64), XGPU_SUCCESS);
    xgpu__gemm_builtin(&wide, XGPU_F16, &p);
    assert_int_equal(p.contiguous, 1);
    xgpu__gemm_builtin(&sse, XGPU_F32, &p);
    assert_int_equal(p.contiguous, 1);
    xgpu_device_info intel = pocl(16);
    snprintf(intel.platform, sizeof intel.platform, "Intel(R) OpenCL");
    xgpu__gemm_builtin(&intel, XGPU_F32, &p);
    assert_int_equal(p.contiguous, GPU);
    /* 256 x 64 floats of B is 64 KiB: a device with 32 KiB gets the CPU
     * family. */
    xgpu_device_info small = pocl(16);
    small.local_mem_bytes = 32 * 1024;
    xgpu__gemm_builtin(&small, XGPU_F32, &p);
    assert_true(p.contiguous != XGPU_GEMM_REGISTERS);
    assert_int_equal(check_on(&p, &small, XGPU_F32), XGPU_SUCCESS);

    static const xgpu_gemm_params reg = {48, 64, 256, 6, 64, 1, XGPU_GEMM_REGISTERS};
    assert_int_equal(check_on(&reg, &small, XGPU_F32), XGPU_ERROR_UNSUPPORTED);
    assert_non_null(strstr(xgpu_last_error()->message, "65536 bytes of local memory"));
    xgpu__clear_error();
    /* GPU-shaped devices of other backends: the family is OpenCL C. */
    refused(&reg, XGPU_F32, XGPU_ERROR_UNSUPPORTED, "OpenCL C");
    static const xgpu_gemm_params odd_n = {48, 48, 256, 6, 24, 1, XGPU_GEMM_REGISTERS};
    assert_int_equal(check_on(&odd_n, &wide, XGPU_F32), XGPU_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(xgpu_last_error()->message, "work_n 24 is not a multiple of 16"));
    assert_int_equal(check_on(&odd_n, &wide, XGPU_F64), XGPU_SUCCESS); /* 3 double8 */
    static const xgpu_gemm_params odd_n64 = {48, 48, 256, 6, 12, 1, XGPU_GEMM_REGISTERS};
    assert_int_equal(check_on(&odd_n64, &wide, XGPU_F64), XGPU_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(xgpu_last_error()->message, "work_n 12 is not a multiple of 8"));
    static const xgpu_gemm_params vw2 = {48, 64, 256, 6, 64, 2, XGPU_GEMM_REGISTERS};
    assert_int_equal(check_on(&vw2, &wide, XGPU_F32), XGPU_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(xgpu_last_error()->message, "vector_width 2 is not 1"));
    /* 1024 columns of 64: a group of 16 work-items, over a limit of 8. */
    static const xgpu_gemm_params group = {48, 1024, 8, 6, 64, 1, XGPU_GEMM_REGISTERS};
    xgpu_device_info few = pocl(16);
    few.max_group_size = 8;
    assert_int_equal(check_on(&group, &few, XGPU_F32), XGPU_ERROR_UNSUPPORTED);
    assert_non_null(strstr(xgpu_last_error()->message, "need 16 work-items"));
    xgpu__clear_error();
    static const xgpu_gemm_params five = {48, 64, 256, 6, 64, 1, 5};
    assert_int_equal(check_on(&five, &wide, XGPU_F32), XGPU_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(xgpu_last_error()->message, "contiguous 5"));
    xgpu__clear_error();

    /* The tuner starts from the built-in, then the family's shapes, all
     * valid; a GPU's list has none of them. */
    xgpu__tune_values list[256];
    size_t n = xgpu__tune_candidates(XGPU__TK_GEMM, XGPU_F32, &wide, list, 256);
    assert_true(n > 12);
    assert_int_equal(list[0].v[6], XGPU_GEMM_REGISTERS);
    size_t regs = 0;
    for (size_t i = 0; i < n; i++) {
        xgpu_gemm_params c = xgpu__tune_to_gemm(&list[i]);
        assert_int_equal(check_on(&c, &wide, XGPU_F32), XGPU_SUCCESS);
        regs += c.contiguous == XGPU_GEMM_REGISTERS;
    }
    assert_true(regs >= 8);
    xgpu_device_info gpu = device(XGPU_DEVICE_TYPE_GPU);
    snprintf(gpu.backend, sizeof gpu.backend, "opencl");
    n = xgpu__tune_candidates(XGPU__TK_GEMM, XGPU_F32, &gpu, list, 256);
    for (size_t i = 0; i < n; i++) {
        assert_true(list[i].v[6] != XGPU_GEMM_REGISTERS);
    }
}

/* The tuner tries the GPU family's 128x128 and 128x256 tiles, K steps of
 * 8 and 16 and groups of 128 and 256 on a GPU, every candidate valid; a
 * CPU tries its own family first. */
static void tuner_candidates(void **state) {
    (void)state;
    xgpu_device_info gpu = device(XGPU_DEVICE_TYPE_GPU);
    xgpu__tune_values list[256];
    size_t n = xgpu__tune_candidates(XGPU__TK_GEMM, XGPU_F32, &gpu, list, 256);
    assert_true(n > 0);
    assert_int_equal(list[0].v[6], GPU); /* the built-in first */
    bool seen[2][2][2] = {{{false}}};    /* tile_n 128/256, tile_k 8/16, 128/256 items */
    for (size_t i = 0; i < n; i++) {
        xgpu_gemm_params p = xgpu__tune_to_gemm(&list[i]);
        assert_int_equal(check(&p, XGPU_F32), XGPU_SUCCESS);
        uint32_t items = (p.tile_m / p.work_m) * (p.tile_n / p.work_n);
        if (p.contiguous == GPU && p.tile_m == 128 && (p.tile_n == 128 || p.tile_n == 256) &&
            (p.tile_k == 8 || p.tile_k == 16) && (items == 128 || items == 256)) {
            seen[p.tile_n == 256][p.tile_k == 16][items == 256] = true;
        }
    }
    assert_true(seen[0][0][0] && seen[0][0][1] && seen[0][1][0] && seen[0][1][1]);
    assert_true(seen[1][0][1] && seen[1][1][1]);
    xgpu_device_info cpu = device(XGPU_DEVICE_TYPE_CPU);
    n = xgpu__tune_candidates(XGPU__TK_GEMM, XGPU_F32, &cpu, list, 256);
    assert_true(n > 0 && list[0].v[6] != GPU);
    n = xgpu__tune_candidates(XGPU__TK_GEMM, XGPU_F64, &gpu, list, 256);
    assert_int_equal(list[0].v[6], GPU);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_per_device_type),
        cmocka_unit_test(gpu_family_rules),
        cmocka_unit_test(tuner_candidates),
        cmocka_unit_test(reg_family_defaults_and_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
