/* xgpu_gemm on every device: both layouts, both transposes of each
 * operand, the listed sizes (1, 7, 33, 1000, 1023, 1025, tall-skinny
 * 8192x64x8192), leading dimensions larger than the rows, offsets, beta 0
 * over a NaN-poisoned C; f32, f64 and f16 storage. Results are compared
 * with a double-precision host reference: every element for small
 * problems, and for large ones the last row and column (edge tiles) plus
 * random samples. */
#define _POSIX_C_SOURCE 200809L
#include "gemm_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void small_sizes_every_layout(void **state) {
    (void)state;
    static const size_t sizes[][3] = {{1, 1, 1},  {7, 7, 7},  {33, 33, 33},
                                      {7, 33, 1}, {33, 1, 7}, {5, 40, 37}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        all_layouts_and_transposes(XGPU_F32, sizes[s][0], sizes[s][1], sizes[s][2], s % 3,
                                   s % 2 ? 3 : 0);
    }
}

static void large_sizes_every_layout(void **state) {
    (void)state;
    static const size_t sizes[] = {1000, 1023, 1025};
    for (size_t s = 0; s < 3; s++) {
        all_layouts_and_transposes(XGPU_F32, sizes[s], sizes[s], sizes[s], s, s);
    }
}

static void tall_skinny(void **state) {
    (void)state;
    problem p = {XGPU_F32, XGPU_ROW_MAJOR, XGPU_NO_TRANS, XGPU_NO_TRANS, 8192, 64, 8192, 0, 0, 1.0,
                 0.0};
    run_problem(&p);
    problem q = {XGPU_F32, XGPU_COL_MAJOR, XGPU_TRANS, XGPU_NO_TRANS, 64, 8192, 8192, 1, 5, 0.5,
                 2.0};
    run_problem(&q);
}

static void f64_and_f16(void **state) {
    (void)state;
    if (xt.info.fp64) {
        all_layouts_and_transposes(XGPU_F64, 33, 7, 65, 1, 2);
        all_layouts_and_transposes(XGPU_F64, 129, 130, 131, 0, 0);
    }
    all_layouts_and_transposes(XGPU_F16, 33, 7, 65, 2, 1);
    all_layouts_and_transposes(XGPU_F16, 129, 130, 64, 0, 0);
}

/* Vector loads: on for operands aligned to the width (multiples of 4
 * everywhere), off for the others; both must give the same answers. */
static void vector_loads(void **state) {
    (void)state;
    static const xgpu_gemm_params f32x4 = {64, 64, 16, 8, 4, 4, 0};
    static const xgpu_gemm_params f64x2 = {64, 64, 16, 4, 4, 2, 0};
    test_params = &f32x4;
    all_layouts_and_transposes(XGPU_F32, 96, 132, 68, 0, 0); /* vector loads */
    all_layouts_and_transposes(XGPU_F32, 96, 132, 68, 4, 8); /* aligned padding, offsets */
    all_layouts_and_transposes(XGPU_F32, 33, 67, 35, 1, 3);  /* scalar fallback */
    all_layouts_and_transposes(XGPU_F32, 64, 64, 64, 0, 1);  /* misaligned offset */
    if (xt.info.fp64) {
        test_params = &f64x2;
        all_layouts_and_transposes(XGPU_F64, 66, 34, 130, 2, 4);
        all_layouts_and_transposes(XGPU_F64, 33, 7, 65, 1, 1);
    }
    test_params = NULL;
}

/* Contiguous work per item (the CPU shape): each work-item's rows and
 * columns adjacent, with and without vector loads, on edge tiles too. */
static void contiguous_work(void **state) {
    (void)state;
    static const xgpu_gemm_params f32 = {64, 64, 16, 8, 16, 1, 1};
    static const xgpu_gemm_params f32x4 = {32, 64, 16, 4, 16, 4, 1};
    static const xgpu_gemm_params f64 = {32, 32, 16, 4, 8, 2, 1};
    test_params = &f32;
    all_layouts_and_transposes(XGPU_F32, 96, 132, 68, 0, 0);
    all_layouts_and_transposes(XGPU_F32, 33, 67, 35, 1, 3);
    test_params = &f32x4;
    all_layouts_and_transposes(XGPU_F32, 96, 132, 68, 4, 8);
    all_layouts_and_transposes(XGPU_F32, 37, 70, 19, 0, 1);
    if (xt.info.fp64) {
        test_params = &f64;
        all_layouts_and_transposes(XGPU_F64, 66, 34, 130, 2, 4);
        all_layouts_and_transposes(XGPU_F64, 33, 7, 65, 1, 1);
    }
    test_params = NULL;
}

static void user_params_and_k_zero(void **state) {
    (void)state;
    /* Explicit parameters, small tiles: the same answers. */
    xgpu_gemm_params params = {32, 32, 8, 4, 4, 1, 0};
    const size_t n = 70;
    float *h = malloc(n * n * sizeof *h), *out = malloc(n * n * sizeof *out);
    assert_true(h && out);
    xt_random_f32(h, n * n, 5, -1, 1);
    xgpu_buffer *a, *c;
    XT_OK(xgpu_buffer_create(xt.ctx, n * n * 4, &a));
    XT_OK(xgpu_buffer_create(xt.ctx, n * n * 4, &c));
    XT_OK(xgpu_buffer_write(xt.queue, a, 0, h, n * n * 4, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, c, 0, h, n * n * 4, true, NULL));
    /* k == 0: C = beta * C, A and B not read. */
    xgpu_gemm_desc d = {.dtype = XGPU_F32,
                        .layout = XGPU_ROW_MAJOR,
                        .trans_a = XGPU_NO_TRANS,
                        .trans_b = XGPU_NO_TRANS,
                        .m = n,
                        .n = n,
                        .k = 0,
                        .alpha = 1.0,
                        .beta = 2.0,
                        .a = {a, 0, 1},
                        .b = {a, 0, n},
                        .c = {c, 0, n},
                        .params = &params};
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, c, 0, out, n * n * 4, true, NULL));
    for (size_t i = 0; i < n * n; i++) {
        assert_true(out[i] == 2.0f * h[i]);
    }
    /* alpha == 0: A and B are not read, so NaN in them cannot reach C (as
     * reference BLAS); it used to: 0 * NaN = NaN. */
    xgpu_buffer *nan_ab;
    XT_OK(xgpu_buffer_create(xt.ctx, n * n * 4, &nan_ab));
    uint32_t nan_bits = 0x7fc00000u;
    XT_OK(xgpu_buffer_fill(xt.queue, nan_ab, 0, n * n * 4, &nan_bits, 4, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, c, 0, h, n * n * 4, true, NULL));
    xgpu_gemm_desc z = {.dtype = XGPU_F32,
                        .layout = XGPU_ROW_MAJOR,
                        .trans_a = XGPU_NO_TRANS,
                        .trans_b = XGPU_NO_TRANS,
                        .m = n,
                        .n = n,
                        .k = n,
                        .alpha = 0.0,
                        .beta = 0.5,
                        .a = {nan_ab, 0, n},
                        .b = {nan_ab, 0, n},
                        .c = {c, 0, n},
                        .params = &params};
    XT_OK(xgpu_gemm(xt.queue, &z, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, c, 0, out, n * n * 4, true, NULL));
    for (size_t i = 0; i < n * n; i++) {
        if (out[i] != 0.5f * h[i]) {
            fail_msg("alpha = 0: c[%zu] = %g, want %g", i, out[i], 0.5f * h[i]);
        }
    }
    XT_OK(xgpu_buffer_release(nan_ab));
    /* m == 0: nothing happens, successfully. */
    d.m = 0;
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    free(h);
    free(out);
    XT_OK(xgpu_buffer_release(a));
    XT_OK(xgpu_buffer_release(c));
}

/* Overlap is judged on the elements touched: A may live in the gap between
 * C's rows (C's ld > n) in the same buffer, and is computed with; an A that
 * touches one element of C, on its first row or a later one, is refused. */
static void operand_in_c_row_gap(void **state) {
    (void)state;
    enum { M = 16, N = 16, K = 16, LD = 2 * N, TOTAL = M * LD };
    float host[TOTAL], bh[K * N], got[TOTAL];
    uint32_t seed = 5;
    for (size_t i = 0; i < TOTAL; i++) {
        host[i] = (float)(xt_rand_u32(&seed) % 17) - 8.0f; /* small integers: exact sums */
    }
    for (size_t i = 0; i < K * N; i++) {
        bh[i] = (float)(xt_rand_u32(&seed) % 9) - 4.0f;
    }
    xgpu_buffer *buf, *b;
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof host, &buf));
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof bh, &b));
    XT_OK(xgpu_buffer_write(xt.queue, buf, 0, host, sizeof host, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, b, 0, bh, sizeof bh, true, NULL));
    /* C in columns 0..N-1 of each LD-wide row, A in columns N..2N-1. */
    xgpu_gemm_desc d = {
        .dtype = XGPU_F32,
        .layout = XGPU_ROW_MAJOR,
        .trans_a = XGPU_NO_TRANS,
        .trans_b = XGPU_NO_TRANS,
        .m = M,
        .n = N,
        .k = K,
        .alpha = 1.0,
        .beta = 1.0,
        .a = {buf, N, LD},
        .b = {b, 0, N},
        .c = {buf, 0, LD},
    };
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, buf, 0, got, sizeof got, true, NULL));
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < N; j++) {
            float want = host[i * LD + j];
            for (size_t p = 0; p < K; p++) {
                want += host[i * LD + N + p] * bh[p * N + j];
            }
            if (got[i * LD + j] != want) {
                fail_msg("C[%zu][%zu] = %g, expected %g", i, j, got[i * LD + j], want);
            }
            assert_true(got[i * LD + N + j] == host[i * LD + N + j]); /* A untouched */
        }
    }
    /* One column to the left: A's first element is C[0][N-1]. */
    d.a = (xgpu_matrix){buf, N - 1, LD};
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "overlaps");
    /* Row 0 in C's gap, row 1 at C[2][0]: the overlap is on a later row. */
    d.m = M / 2;
    d.a = (xgpu_matrix){buf, N, LD + N};
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "overlaps");
    /* A and C interleaved the other way: C in the gaps of A. */
    d.m = M;
    d.a = (xgpu_matrix){buf, 0, LD};
    d.c = (xgpu_matrix){buf, K, LD};
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    XT_OK(xgpu_queue_finish(xt.queue));
    XT_OK(xgpu_buffer_release(buf));
    XT_OK(xgpu_buffer_release(b));
}

static void bad_arguments_are_refused(void **state) {
    (void)state;
    xgpu_buffer *a, *b, *c;
    XT_OK(xgpu_buffer_create(xt.ctx, 64 * 64 * 4, &a));
    XT_OK(xgpu_buffer_create(xt.ctx, 64 * 64 * 4, &b));
    XT_OK(xgpu_buffer_create(xt.ctx, 16 * 16 * 4, &c));
    xgpu_gemm_desc d = {.dtype = XGPU_F32,
                        .layout = XGPU_ROW_MAJOR,
                        .trans_a = XGPU_NO_TRANS,
                        .trans_b = XGPU_NO_TRANS,
                        .m = 16,
                        .n = 16,
                        .k = 16,
                        .alpha = 1,
                        .beta = 0,
                        .a = {a, 0, 16},
                        .b = {b, 0, 16},
                        .c = {c, 0, 16},
                        .params = NULL};
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    d.a.ld = 15;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "leading dimension must be at least 16, not 15");
    d.a.ld = 16;
    d.m = 17; /* C is 16 x 16 floats */
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_OUT_OF_RANGE, "matrix c needs");
    d.m = 16;
    d.dtype = XGPU_I32;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_UNSUPPORTED, "dtype i32");
    d.dtype = XGPU_F32;
    d.c = (xgpu_matrix){a, 0, 16};
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "overlaps");
    d.c = (xgpu_matrix){c, 0, 16};
    xgpu_gemm_params bad = {128, 128, 16, 3, 8, 1, 0};
    d.params = &bad;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "multiples");
    xgpu_gemm_params huge = {1024, 1024, 64, 8, 8, 1, 0}; /* 16384 work-items */
    d.params = &huge;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_UNSUPPORTED, "work-items");
    xgpu_gemm_params odd_vector = {64, 64, 16, 8, 4, 3, 0};
    d.params = &odd_vector;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "vector_width 3");
    /* uint32 tile sums used to wrap and pass as "0 bytes of local memory". */
    xgpu_gemm_params wrapping = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, 1, 0};
    d.params = &wrapping;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "each must be 1..1024");
    d.params = NULL;
    /* ld = 2^63 with m = 3: (rows - 1) * ld + cols wrapped, C got wrong values. */
    d.m = 3;
    d.c.ld = (size_t)1 << 63;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_SIZE, "does not fit 32 bits");
    d.c.ld = (size_t)1 << 31; /* fits, but 3 rows of it span more than 2^32 elements */
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_SIZE, "span more than 2^32");
    d.c.ld = 16;
    d.a.ld = (size_t)1 << 63;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_SIZE, "does not fit 32 bits");
    d.a.ld = 16;
    d.m = 16;
    /* XGPU_GEMM_PARAMS is read whole or refused, naming the variable. */
    const char *bad_env[] = {"-1,-1,-1,-1,-1",
                             "128,128",
                             "128,128,16,8,8,1,9",
                             "128,128,16,8,8x",
                             " ",
                             "4294967296,1,1,1,1",
                             "tm=32,tn=32",
                             "tm=32,tn=32,tk=8,wm=4,wn=4,vw=1,contig=1,x=2"};
    for (size_t i = 0; i < sizeof bad_env / sizeof bad_env[0]; i++) {
        setenv("XGPU_GEMM_PARAMS", bad_env[i], 1);
        XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "XGPU_GEMM_PARAMS");
        xgpu_gemm_params got;
        XT_FAILS(xgpu_gemm_default_params(xt.device, XGPU_F32, &got), XGPU_ERROR_INVALID_ARGUMENT,
                 "is malformed");
    }
    /* Well formed, but not parameters the kernel can use: refused by
     * xgpu_gemm_default_params too, naming the variable. */
    const char *unusable[] = {"16,16,16,4,4,3", "16,16,16,3,4"};
    for (size_t i = 0; i < sizeof unusable / sizeof unusable[0]; i++) {
        setenv("XGPU_GEMM_PARAMS", unusable[i], 1);
        xgpu_gemm_params p;
        XT_FAILS(xgpu_gemm_default_params(xt.device, XGPU_F32, &p), XGPU_ERROR_INVALID_ARGUMENT,
                 "xgpu_gemm_default_params: XGPU_GEMM_PARAMS");
        XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "XGPU_GEMM_PARAMS");
    }
    setenv("XGPU_GEMM_PARAMS", "32,32,8,4,4", 1);
    xgpu_gemm_params got;
    XT_OK(xgpu_gemm_default_params(xt.device, XGPU_F32, &got));
    assert_int_equal(got.tile_m, 32);
    assert_int_equal(got.vector_width, 1);
    /* The spelling of the tuning database and xgpu_tune_lookup. */
    setenv("XGPU_GEMM_PARAMS", "tm=64,tn=32,tk=8,wm=4,wn=8,vw=1,contig=1", 1);
    XT_OK(xgpu_gemm_default_params(xt.device, XGPU_F32, &got));
    assert_int_equal(got.tile_m, 64);
    assert_int_equal(got.work_n, 8);
    assert_int_equal(got.contiguous, 1);
    /* Empty is the same as unset. */
    unsetenv("XGPU_GEMM_PARAMS");
    xgpu_gemm_params unset;
    memset(&unset, 0, sizeof unset);
    memset(&got, 0, sizeof got);
    XT_OK(xgpu_gemm_default_params(xt.device, XGPU_F32, &unset));
    setenv("XGPU_GEMM_PARAMS", "", 1);
    XT_OK(xgpu_gemm_default_params(xt.device, XGPU_F32, &got));
    assert_memory_equal(&got, &unset, sizeof got);
    unsetenv("XGPU_GEMM_PARAMS");
    d.b.buffer = NULL;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_HANDLE, "matrix b is NULL");
    XT_FAILS(xgpu_gemm(xt.queue, NULL, NULL), XGPU_ERROR_INVALID_ARGUMENT, "desc is NULL");
    XT_FAILS(xgpu_gemm(NULL, &d, NULL), XGPU_ERROR_INVALID_HANDLE, "queue is NULL");
    XT_OK(xgpu_buffer_release(a));
    XT_OK(xgpu_buffer_release(b));
    XT_OK(xgpu_buffer_release(c));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_sizes_every_layout),
        cmocka_unit_test(large_sizes_every_layout),
        cmocka_unit_test(tall_skinny),
        cmocka_unit_test(f64_and_f16),
        cmocka_unit_test(vector_loads),
        cmocka_unit_test(contiguous_work),
        cmocka_unit_test(user_params_and_k_zero),
        cmocka_unit_test(operand_in_c_row_gap),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return XT_RUN("gemm", tests);
}
