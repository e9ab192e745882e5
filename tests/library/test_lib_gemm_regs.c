/* xgpu_gemm's register family (contiguous = XGPU_GEMM_REGISTERS) on every
 * OpenCL device, forced by the parameters; elsewhere it must be refused,
 * naming the family. Both layouts and every transpose; m and n from 1 to
 * past a register block and a group's columns; k below, at and past a K
 * block (several blocks: C accumulates across them, beta applied once);
 * padded and offset operands; alpha 0, beta 0 over a NaN-poisoned C; f64;
 * f16 refused. Against a double-precision host reference (gemm_check.c).
 *
 * `test_lib_gemm_regs tiny` runs small problems with K blocks of 8 and two
 * work-items per group, for oclgrind (library.gemm_regs_oclgrind). */
#define _POSIX_C_SOURCE 200809L
#include "gemm_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REG XGPU_GEMM_REGISTERS

/* 6 x 64 blocks, 2 per work-item, one work-item per group, K blocks of 16. */
static const xgpu_gemm_params wide = {12, 64, 16, 6, 64, 1, REG};
/* 4 x 16 blocks, 3 per work-item, 2 work-items per group, K blocks of 8. */
static const xgpu_gemm_params narrow = {12, 32, 8, 4, 16, 1, REG};
/* The built-in AVX-512 shape. */
static const xgpu_gemm_params builtin = {96, 64, 512, 6, 64, 1, REG};
static const xgpu_gemm_params f64_params = {12, 32, 16, 6, 32, 1, REG};
static const xgpu_gemm_params f64_narrow = {10, 16, 8, 5, 8, 1, REG};

static bool opencl(void) {
    return !strcmp(xt.info.backend, "opencl");
}

/* m and n from 1 to 40 (k following, 1 to 37: one to five K blocks of 8),
 * each with the next layout and transpose, padding and offset now and then. */
static void every_edge_size(void **state) {
    (void)state;
    if (!opencl()) {
        skip();
    }
    test_params = &narrow;
    for (size_t m = 1; m <= 40; m++) {
        size_t n = 41 - m, k = (m * 7) % 37 + 1, c = m % 8;
        run_one(XGPU_F32, (xgpu_layout)(c / 4), (int)(c / 2) % 2, (int)c % 2, m, n, k,
                m % 3 ? 0 : 1, m % 5 ? 0 : 4, 1.0, m % 2 ? 0.0 : 0.75);
    }
    test_params = NULL;
}

/* Every layout and transpose past a block each way, k over several K
 * blocks with a remainder; the built-in shape across its 96-row and
 * 512-deep blocks. */
static void blocks_every_layout(void **state) {
    (void)state;
    if (!opencl()) {
        skip();
    }
    test_params = &wide;
    all_layouts_and_transposes(XGPU_F32, 13, 129, 33, 0, 0);
    all_layouts_and_transposes(XGPU_F32, 25, 63, 16, 1, 3);
    all_layouts_and_transposes(XGPU_F32, 1, 65, 1, 0, 5);
    test_params = &narrow;
    all_layouts_and_transposes(XGPU_F32, 37, 33, 17, 2, 0);
    test_params = &builtin;
    all_layouts_and_transposes(XGPU_F32, 97, 130, 600, 0, 0);
    all_layouts_and_transposes(XGPU_F32, 193, 64, 1030, 1, 1);
    test_params = NULL;
}

static void f64_blocks(void **state) {
    (void)state;
    if (!opencl() || !xt.info.fp64) {
        skip();
    }
    test_params = &f64_params;
    all_layouts_and_transposes(XGPU_F64, 13, 65, 33, 0, 0);
    all_layouts_and_transposes(XGPU_F64, 7, 31, 16, 1, 2);
    test_params = &f64_narrow;
    all_layouts_and_transposes(XGPU_F64, 21, 17, 9, 0, 1);
    test_params = NULL;
}

/* alpha 0 (A and B not read: k 0 reaches the kernel), k 0 proper, beta 1
 * and beta 0 over a poisoned C, negative alpha; K blocks of 16 over k 41. */
static void alpha_beta(void **state) {
    (void)state;
    if (!opencl()) {
        skip();
    }
    test_params = &wide;
    static const double ab[][2] = {{0.0, 0.5}, {-2.0, 1.0}, {1.0, 0.0}, {0.5, -1.5}, {0.0, 0.0}};
    for (size_t i = 0; i < sizeof ab / sizeof ab[0]; i++) {
        run_one(XGPU_F32, XGPU_ROW_MAJOR, (int)i % 2, (int)(i / 2) % 2, 31, 70, 41, 0, 0, ab[i][0],
                ab[i][1]);
        run_one(XGPU_F32, XGPU_COL_MAJOR, (int)(i / 2) % 2, (int)i % 2, 40, 3, 0, 1, 1, ab[i][0],
                ab[i][1]);
    }
    test_params = NULL;
}

/* What the family refuses, each with a message naming the rule: f16, a
 * work_n that is not whole vectors, vector_width other than 1, an
 * oversized register block; every one of them on a non-OpenCL device. */
static void refusals(void **state) {
    (void)state;
    xgpu_buffer *buf;
    XT_OK(xgpu_buffer_create(xt.ctx, 64 * 64 * sizeof(float), &buf));
    xgpu_gemm_desc d = {.dtype = XGPU_F32,
                        .m = 8,
                        .n = 8,
                        .k = 8,
                        .alpha = 1.0,
                        .a = {buf, 0, 8},
                        .b = {buf, 64, 8},
                        .c = {buf, 128, 8}};
    static const xgpu_gemm_params odd_n = {12, 24, 8, 6, 24, 1, REG};
    static const xgpu_gemm_params vw4 = {12, 64, 8, 6, 64, 4, REG};
    static const xgpu_gemm_params huge = {64, 1024, 8, 32, 1024, 1, REG};
    if (!opencl()) {
        d.params = &wide;
        XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_UNSUPPORTED, "register family");
        XT_OK(xgpu_buffer_release(buf));
        return;
    }
    d.params = &odd_n;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "work_n 24 is not a multiple of 16");
    d.params = &vw4;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "vector_width 4 is not 1");
    d.params = &huge;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "work_m x work_n = 32768 is over 1024");
    d.dtype = XGPU_F16;
    d.params = &narrow;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_UNSUPPORTED, "not f16 -> f16");
    if (xt.info.fp64) {
        d.dtype = XGPU_F64;
        d.params = &narrow; /* 16 columns: two double8 vectors, accepted */
        XT_OK(xgpu_gemm(xt.queue, &d, NULL));
        XT_OK(xgpu_queue_finish(xt.queue));
    }
    XT_OK(xgpu_buffer_release(buf));
}

/* The oclgrind run: every transpose over several K blocks and an edge in
 * m and n, beta 0 and not, a padded and offset case. */
static void tiny(void **state) {
    (void)state;
    if (!opencl()) {
        skip();
    }
    test_params = &narrow;
    for (int t = 0; t < 4; t++) {
        run_one(XGPU_F32, XGPU_ROW_MAJOR, t / 2, t % 2, 13, 35, 17, 0, 0, 1.0, t % 2 ? 0.0 : 0.5);
    }
    run_one(XGPU_F32, XGPU_COL_MAJOR, 1, 0, 5, 17, 9, 1, 3, -1.0, 0.5);
    run_one(XGPU_F32, XGPU_ROW_MAJOR, 0, 1, 7, 9, 0, 1, 1, 1.0, 0.5); /* k 0 */
    if (xt.info.fp64) {
        test_params = &f64_narrow;
        run_one(XGPU_F64, XGPU_ROW_MAJOR, 1, 1, 11, 19, 10, 0, 1, 1.0, 0.0);
    }
    test_params = NULL;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "tiny")) {
        const struct CMUnitTest tests[] = {cmocka_unit_test(tiny)};
        return XT_RUN("gemm_regs_tiny", tests);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_edge_size), cmocka_unit_test(blocks_every_layout),
        cmocka_unit_test(f64_blocks),      cmocka_unit_test(alpha_beta),
        cmocka_unit_test(refusals),
    };
    return XT_RUN("gemm_regs", tests);
}
