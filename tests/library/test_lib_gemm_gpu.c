/* xgpu_gemm's GPU family (contiguous = XGPU_GEMM_GPU) on every device, a
 * CPU one too: the parameters force it. Every dtype, both layouts, every
 * transpose, sizes from 1 to a tile plus one at the edges, odd k,
 * non-square problems, aligned operands (vector loads) and unaligned ones
 * (the scalar path), alpha and beta with beta 0 over a NaN-poisoned C,
 * against a double-precision host reference (gemm_check.c).
 *
 * `test_lib_gemm_gpu tiny` runs one 130x129x17 problem per transpose with
 * 128x128 tiles, small enough for oclgrind (library.gemm_oclgrind). */
#define _POSIX_C_SOURCE 200809L
#include "gemm_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPU XGPU_GEMM_GPU

static const xgpu_gemm_params big = {128, 128, 16, 8, 8, 4, GPU};
static const xgpu_gemm_params wide = {128, 256, 8, 8, 16, 4, GPU};
static const xgpu_gemm_params small = {32, 32, 8, 4, 4, 4, GPU};
static const xgpu_gemm_params f64_params = {64, 64, 16, 4, 4, 2, GPU};

/* 32x32 tiles: every m from 1 to 33 (n and k following), each with the
 * next layout and transpose, so that each edge size meets each path. */
static void every_edge_size(void **state) {
    (void)state;
    test_params = &small;
    for (size_t m = 1; m <= 33; m++) {
        size_t n = 34 - m, k = (m * 7) % 19 + 1, c = m % 8;
        run_one(XGPU_F32, (xgpu_layout)(c / 4), (int)(c / 2) % 2, (int)c % 2, m, n, k,
                m % 3 ? 0 : 1, m % 5 ? 0 : 4, 1.0, m % 2 ? 0.0 : 0.75);
    }
    test_params = NULL;
}

/* 128x128 and 128x256 tiles over a tile plus one and minus one, odd k:
 * vector loads (no padding) and the scalar path (padding 1, offset 3). */
static void big_tiles_every_layout(void **state) {
    (void)state;
    test_params = &big;
    all_layouts_and_transposes(XGPU_F32, 129, 127, 17, 0, 0);
    all_layouts_and_transposes(XGPU_F32, 128, 132, 36, 0, 4);
    all_layouts_and_transposes(XGPU_F32, 127, 129, 33, 1, 3);
    test_params = &wide;
    all_layouts_and_transposes(XGPU_F32, 130, 257, 9, 0, 0);
    all_layouts_and_transposes(XGPU_F32, 1, 255, 8, 4, 8);
    test_params = NULL;
}

static void f64_and_f16(void **state) {
    (void)state;
    if (xt.info.fp64) {
        test_params = &f64_params;
        all_layouts_and_transposes(XGPU_F64, 65, 63, 17, 0, 0);
        all_layouts_and_transposes(XGPU_F64, 66, 130, 34, 0, 2); /* vector loads */
        all_layouts_and_transposes(XGPU_F64, 33, 7, 65, 1, 1);
    }
    test_params = &big;
    all_layouts_and_transposes(XGPU_F16, 129, 130, 17, 0, 0);
    all_layouts_and_transposes(XGPU_F16, 1, 7, 3, 1, 1);
    test_params = NULL;
}

/* alpha 0 (A and B not read), k 0 (C = beta * C), beta 1 and beta 0 over a
 * poisoned C, negative alpha, on one tile plus a remainder. */
static void alpha_beta(void **state) {
    (void)state;
    test_params = &big;
    static const double ab[][2] = {{0.0, 0.5}, {-2.0, 1.0}, {1.0, 0.0}, {0.5, -1.5}};
    for (size_t i = 0; i < sizeof ab / sizeof ab[0]; i++) {
        run_one(XGPU_F32, XGPU_ROW_MAJOR, (int)i % 2, (int)i / 2, 131, 133, 41, 0, 0, ab[i][0],
                ab[i][1]);
        run_one(XGPU_F32, XGPU_COL_MAJOR, (int)i / 2, (int)i % 2, 40, 3, 0, 1, 1, ab[i][0],
                ab[i][1]);
    }
    test_params = NULL;
}

/* The oclgrind run: one tile and a remainder each way, odd k. */
static void tiny(void **state) {
    (void)state;
    test_params = &big;
    for (int t = 0; t < 4; t++) {
        run_one(XGPU_F32, XGPU_ROW_MAJOR, t / 2, t % 2, 130, 129, 17, 0, 0, 1.0, t % 2 ? 0.0 : 0.5);
    }
    run_one(XGPU_F32, XGPU_ROW_MAJOR, 0, 0, 130, 129, 17, 1, 3, 1.0, 0.5); /* scalar loads */
    test_params = NULL;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "tiny")) {
        const struct CMUnitTest tests[] = {cmocka_unit_test(tiny)};
        return XT_RUN("gemm_gpu_tiny", tests);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_edge_size),
        cmocka_unit_test(big_tiles_every_layout),
        cmocka_unit_test(f64_and_f16),
        cmocka_unit_test(alpha_beta),
    };
    return XT_RUN("gemm_gpu", tests);
}
