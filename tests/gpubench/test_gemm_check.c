/* The GEMM benchmark's check (tools/gpubench/bench/gemm_host.c) on made-up
 * results: a correct result passes and a wrong element of the last batch
 * fails; the reference takes the operands as stored (bf16-rounded), so a
 * result computed from the unrounded values fails; tf32's input rounding
 * is in the tolerance only where the device rounds; C's rounding to bf16
 * is allowed for and no more; the poison fails. */
#include "gemm_host.h"

#include <xgpu.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

enum { M = 24, N = 40, K = 200, B = 3 };

/* The tf32 rounding of the multiply's inputs (10 stored bits, nearest). */
static float tf32(float v) {
    uint32_t x;
    memcpy(&x, &v, 4);
    x = (x + 0x1000u) & ~0x1fffu;
    memcpy(&v, &x, 4);
    return v;
}

/* C = A B for every batch from the float values `av`, `bv`, rounded to f32
 * (out GM_F32) or bf16 (GM_BF16); `round_inputs` applies tf32 first. */
static void product(const float *av, const float *bv, void *c, gm_elem out, bool round_inputs) {
    for (size_t b = 0; b < B; b++) {
        for (size_t i = 0; i < M; i++) {
            for (size_t j = 0; j < N; j++) {
                double s = 0;
                for (size_t k = 0; k < K; k++) {
                    float x = av[b * M * K + i * K + k], y = bv[b * K * N + k * N + j];
                    s += round_inputs ? (double)tf32(x) * tf32(y) : (double)x * y;
                }
                size_t at = b * M * N + i * N + j;
                if (out == GM_BF16) {
                    ((uint16_t *)c)[at] = xgpu_f32_to_bf16((float)s);
                } else {
                    ((float *)c)[at] = (float)s;
                }
            }
        }
    }
}

typedef struct operands {
    float a[B * M * K], b[B * K * N];        /* as floats */
    uint16_t a16[B * M * K], b16[B * K * N]; /* as bf16 */
    float c[B * M * N];
    uint16_t c16[B * M * N];
} operands;

static operands *make(void) {
    operands *o = calloc(1, sizeof *o);
    assert_non_null(o);
    gm_fill(o->a, GM_F32, B * M * K, 1);
    gm_fill(o->b, GM_F32, B * K * N, 2);
    return o;
}

static gm_check check_of(gm_elem in, gm_elem out, double u_in) {
    gm_check g = {in, out, M, N, K, B, gm_tolerance(u_in, gm_acc_unit("f32"), out, K)};
    return g;
}

static void f32_and_the_last_batch(void **state) {
    (void)state;
    operands *o = make();
    double err = 0;
    product(o->a, o->b, o->c, GM_F32, false);
    gm_check g = check_of(GM_F32, GM_F32, 0);
    assert_true(gm_verify(o->a, o->b, o->c, &g, &err));
    /* The last batch's last column wrong (an edge tile of one batch). */
    for (size_t i = 0; i < M; i++) {
        o->c[(B - 1) * M * N + i * N + N - 1] += 0.01f;
    }
    assert_false(gm_verify(o->a, o->b, o->c, &g, &err));
    /* The last batch never written (a kernel that ignores the batch):
     * the poison, a NaN. */
    product(o->a, o->b, o->c, GM_F32, false);
    uint32_t poison = GM_POISON;
    for (size_t i = 0; i < M * N; i++) {
        memcpy(&o->c[(B - 1) * M * N + i], &poison, 4);
    }
    assert_false(gm_verify(o->a, o->b, o->c, &g, &err));
    assert_true(isinf(err));
    free(o);
}

/* bf16 inputs: the reference is the product of the stored values. */
static void bf16_reference_is_from_the_rounded_inputs(void **state) {
    (void)state;
    operands *o = make();
    for (size_t i = 0; i < B * M * K; i++) {
        o->a16[i] = xgpu_f32_to_bf16(o->a[i]);
    }
    for (size_t i = 0; i < B * K * N; i++) {
        o->b16[i] = xgpu_f32_to_bf16(o->b[i]);
    }
    float *ar = malloc(sizeof o->a), *br = malloc(sizeof o->b);
    assert_true(ar && br);
    for (size_t i = 0; i < B * M * K; i++) {
        ar[i] = xgpu_bf16_to_f32(o->a16[i]);
    }
    for (size_t i = 0; i < B * K * N; i++) {
        br[i] = xgpu_bf16_to_f32(o->b16[i]);
    }
    double err = 0;
    gm_check g = check_of(GM_BF16, GM_F32, 0);
    product(ar, br, o->c, GM_F32, false); /* what a device computes */
    assert_true(gm_verify(o->a16, o->b16, o->c, &g, &err));
    product(o->a, o->b, o->c, GM_F32, false); /* from the values before rounding */
    assert_false(gm_verify(o->a16, o->b16, o->c, &g, &err));
    /* C in bf16: its one rounding is allowed for, and only with it. */
    product(ar, br, o->c16, GM_BF16, false);
    gm_check g16 = check_of(GM_BF16, GM_BF16, 0);
    assert_true(gm_verify(o->a16, o->b16, o->c16, &g16, &err));
    g16.tolerance = gm_tolerance(0, gm_acc_unit("f32"), GM_F32, K);
    assert_false(gm_verify(o->a16, o->b16, o->c16, &g16, &err));
    free(ar);
    free(br);
    free(o);
}

/* tf32: inputs rounded on the device; the tolerance allows for it with
 * u_in = 2^-11, and an f32 check (u_in = 0) does not. */
static void tf32_rounding_is_in_the_tolerance(void **state) {
    (void)state;
    operands *o = make();
    double err = 0;
    product(o->a, o->b, o->c, GM_F32, true);
    gm_check g = check_of(GM_F32, GM_F32, 0x1p-11);
    assert_true(gm_verify(o->a, o->b, o->c, &g, &err));
    g = check_of(GM_F32, GM_F32, 0);
    assert_false(gm_verify(o->a, o->b, o->c, &g, &err));
    free(o);
}

/* int8: exact, C in int32. */
static void int8_is_exact(void **state) {
    (void)state;
    int8_t a[M * K], b[K * N];
    int32_t c[M * N];
    gm_fill(a, GM_I8, M * K, 3);
    gm_fill(b, GM_I8, K * N, 4);
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < N; j++) {
            int32_t s = 0;
            for (size_t k = 0; k < K; k++) {
                s += a[i * K + k] * b[k * N + j];
            }
            c[i * N + j] = s;
        }
    }
    gm_check g = {GM_I8, GM_I32, M, N, K, 1, gm_tolerance(0, gm_acc_unit("i32"), GM_I32, K)};
    double err = 1;
    assert_true(gm_verify(a, b, c, &g, &err));
    assert_true(err == 0);
    c[(M - 1) * N + 1] += 1;
    assert_false(gm_verify(a, b, c, &g, &err));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f32_and_the_last_batch),
        cmocka_unit_test(bf16_reference_is_from_the_rounded_inputs),
        cmocka_unit_test(tf32_rounding_is_in_the_tolerance),
        cmocka_unit_test(int8_is_exact),
    };
    return cmocka_run_group_tests_name("gemm_check", tests, NULL, NULL);
}
