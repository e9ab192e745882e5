/* xgpu_gemm's mixed precision on every device: f16 and bf16 -> f32 and
 * -> themselves on the fragment kernel (also in MFMA's layout, under
 * XGPU_GEMM_PATH=fragments-mfma), f32 with XGPU_GEMM_ALLOW_TF32 (fp32
 * where the device has no tensor cores; emulated tf32 under
 * XGPU_GEMM_PATH=fragments), both layouts, every transpose, alpha and
 * beta (beta 0 over a NaN C, alpha 0 over NaN A and B), sizes 1 to a
 * tile plus one, and the paths xgpu_gemm_choose names.
 * `test_lib_gemm_mixed tiny` runs a few small cases (for oclgrind). */
#define _POSIX_C_SOURCE 200809L
#include "gemm_mixed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pair {
    xgpu_dtype in, out;
} pair;

static const pair pairs[] = {
    {XGPU_F16, XGPU_F16}, {XGPU_F16, XGPU_F32}, {XGPU_BF16, XGPU_BF16}, {XGPU_BF16, XGPU_F32}};

static mcase base(xgpu_dtype in, xgpu_dtype out, size_t m, size_t n, size_t k) {
    mcase c = {.in = in, .out = out, .layout = XGPU_ROW_MAJOR, .m = m, .n = n, .k = k};
    c.alpha = 1.25;
    c.beta = -0.5;
    return c;
}

/* What this device multiplies 16-bit types on. */
static const char *device_path(void) {
    if (!strcmp(xt.info.backend, "cuda") && !strncmp(xt.info.arch, "sm_", 3) &&
        atoi(xt.info.arch + 3) >= 80) {
        return "mma.sync";
    }
    return NULL; /* fragments, or mfma on some AMD GPUs */
}

static void every_layout(xgpu_dtype in, xgpu_dtype out, uint32_t flags, size_t m, size_t n,
                         size_t k, size_t pad, size_t offset) {
    for (int v = 0; v < 8; v++) {
        mcase c = base(in, out, m, n, k);
        c.flags = flags;
        c.layout = (xgpu_layout)(v / 4);
        c.ta = (xgpu_transpose)(v / 2 % 2);
        c.tb = (xgpu_transpose)(v % 2);
        c.beta = v % 3 == 1 ? 0.0 : -0.5; /* over a NaN C */
        c.pad = pad;
        c.offset = offset;
        mcase_run(&c, NULL);
    }
}

static void mixed_every_layout(void **state) {
    (void)state;
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        every_layout(pairs[p].in, pairs[p].out, 0, 17, 9, 33, 0, 0);
        every_layout(pairs[p].in, pairs[p].out, 0, 8, 16, 32, 3, 5); /* unaligned rows */
    }
}

/* 1 .. tile + 1 in m and n, and K steps of 1 .. tile_k + 1. */
static void mixed_edge_sizes(void **state) {
    (void)state;
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p += 3) {
        mcase c = base(pairs[p].in, pairs[p].out, 1, 1, 1);
        xgpu_gemm_choice ch;
        mcase_run(&c, &ch);
        size_t tm = ch.params.tile_m, tn = ch.params.tile_n, tk = ch.params.tile_k;
        const size_t ms[] = {1, 2, tm - 1, tm, tm + 1}, ns[] = {tn + 1, tn, 3, tn - 1, 1};
        const size_t ks[] = {tk + 1, 1, tk, tk - 1, 2 * tk + 3};
        for (size_t i = 0; i < 5; i++) {
            for (size_t j = 0; j < 5; j += 2) {
                c = base(pairs[p].in, pairs[p].out, ms[i], ns[(i + j) % 5], ks[(i + 2 * j) % 5]);
                c.ta = (xgpu_transpose)(i % 2);
                c.tb = (xgpu_transpose)(j % 4 == 2);
                c.beta = j == 2 ? 0.0 : 0.75;
                mcase_run(&c, NULL);
            }
        }
    }
}

/* alpha 0: C = beta C with NaN in A and B; both 0: C = 0 over NaN. */
static void alpha_and_beta(void **state) {
    (void)state;
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        mcase c = base(pairs[p].in, pairs[p].out, 19, 21, 23);
        c.alpha = 0.0;
        mcase_run(&c, NULL);
        c.beta = 0.0;
        mcase_run(&c, NULL);
        c = base(pairs[p].in, pairs[p].out, 19, 21, 23);
        c.alpha = -2.0;
        c.beta = 1.0;
        mcase_run(&c, NULL);
    }
}

/* The tf32 flag: fp32 arithmetic without tensor cores; under
 * XGPU_GEMM_PATH=fragments the inputs are rounded to tf32, which shows
 * against an fp32 reference at small k. */
static void tf32_flag(void **state) {
    (void)state;
    xgpu_gemm_choice ch;
    mcase c = base(XGPU_F32, XGPU_F32, 16, 16, 4);
    c.flags = XGPU_GEMM_ALLOW_TF32;
    mcase_run(&c, &ch);
    bool tensor = device_path() != NULL;
    assert_string_equal(ch.path, tensor ? "mma.sync" : "simt");
    assert_string_equal(ch.compute, tensor ? "tf32" : "f32");
    every_layout(XGPU_F32, XGPU_F32, XGPU_GEMM_ALLOW_TF32, 13, 17, 19, 1, 2);
    assert_int_equal(setenv("XGPU_GEMM_PATH", "fragments", 1), 0);
    mcase_run(&c, &ch);
    assert_string_equal(ch.path, "fragments");
    assert_string_equal(ch.compute, "tf32");
    if (mcase_f32_excess <= 1.0) {
        fail_msg("the tf32 GEMM matches fp32 to within fp32's tolerance: no tf32 rounding");
    }
    every_layout(XGPU_F32, XGPU_F32, XGPU_GEMM_ALLOW_TF32, 13, 17, 19, 1, 2);
    /* Without the flag f32 stays on the SIMT kernels. */
    c.flags = 0;
    mcase_run(&c, &ch);
    assert_string_equal(ch.path, "simt");
    assert_true(mcase_f32_excess <= 1.0);
    unsetenv("XGPU_GEMM_PATH");
}

/* XGPU_GEMM_PATH=fragments-mfma: MFMA's layout on 64 SIMT lanes runs
 * f16 and bf16 through xgpu_gemm (both layouts, every transpose, a batch),
 * and refuses tf32. */
static void mfma_layout(void **state) {
    (void)state;
    assert_int_equal(setenv("XGPU_GEMM_PATH", "fragments-mfma", 1), 0);
    xgpu_gemm_choice ch;
    mcase c = base(XGPU_BF16, XGPU_F32, 33, 31, 17);
    mcase_run(&c, &ch);
    assert_string_equal(ch.path, "fragments-mfma");
    assert_string_equal(ch.compute, "bf16");
    every_layout(XGPU_BF16, XGPU_F32, 0, 33, 35, 17, 1, 2);
    every_layout(XGPU_F16, XGPU_F16, 0, 40, 31, 9, 0, 0);
    c = base(XGPU_F16, XGPU_F32, 37, 45, 40);
    c.batch = 3;
    c.gap_a = c.gap_b = c.gap_c = 5;
    mcase_run(&c, NULL);
    mbuffers bufs;
    c = base(XGPU_F32, XGPU_F32, 4, 4, 4);
    c.flags = XGPU_GEMM_ALLOW_TF32;
    xgpu_gemm_desc d = mcase_desc(&c, &bufs);
    XT_FAILS(xgpu_gemm_choose(xt.queue, &d, &ch), XGPU_ERROR_UNSUPPORTED,
             "XGPU_GEMM_PATH=fragments-mfma multiplies f16 and bf16, not tf32");
    mcase_release(&bufs);
    unsetenv("XGPU_GEMM_PATH");
}

static void choose_names(void **state) {
    (void)state;
    mbuffers bufs;
    mcase c = base(XGPU_F32, XGPU_F32, 4, 4, 4); /* buffers for the widest type */
    xgpu_gemm_desc d = mcase_desc(&c, &bufs);
    d.dtype = XGPU_BF16;
    xgpu_gemm_choice ch;
    const char *unit = device_path();
    XT_OK(xgpu_gemm_choose(xt.queue, &d, &ch));
    if (!strcmp(xt.info.backend, "opencl")) {
        assert_string_equal(ch.path, "fragments");
    } else if (unit) {
        assert_string_equal(ch.path, unit);
    }
    assert_string_equal(ch.compute, "bf16");
    assert_int_equal(ch.params.contiguous, XGPU_GEMM_FRAGMENTS);
    assert_true(ch.source[0] != '\0');
    d.dtype = XGPU_F32;
    d.c_dtype = 0;
    XT_OK(xgpu_gemm_choose(xt.queue, &d, &ch));
    assert_string_equal(ch.path, "simt");
    assert_string_equal(ch.compute, "f32");
    assert_true(ch.params.contiguous != XGPU_GEMM_FRAGMENTS);
    /* XGPU_GEMM_PATH=simt: f16 -> f16 on 0.6.0's SIMT kernel; bf16 has
     * none. An unknown value is an error naming the variable. */
    assert_int_equal(setenv("XGPU_GEMM_PATH", "simt", 1), 0);
    d.dtype = XGPU_F16;
    XT_OK(xgpu_gemm_choose(xt.queue, &d, &ch));
    assert_string_equal(ch.path, "simt");
    assert_string_equal(ch.compute, "f16");
    d.dtype = XGPU_BF16;
    XT_FAILS(xgpu_gemm_choose(xt.queue, &d, &ch), XGPU_ERROR_UNSUPPORTED, "XGPU_GEMM_PATH=simt");
    assert_int_equal(setenv("XGPU_GEMM_PATH", "tensor", 1), 0);
    XT_FAILS(xgpu_gemm_choose(xt.queue, &d, &ch), XGPU_ERROR_INVALID_ARGUMENT,
             "XGPU_GEMM_PATH='tensor' is not auto, fragments, fragments-mfma or simt");
    assert_int_equal(setenv("XGPU_GEMM_PATH", "auto", 1), 0);
    XT_OK(xgpu_gemm_choose(xt.queue, &d, &ch));
    unsetenv("XGPU_GEMM_PATH");
    mcase_release(&bufs);
}

/* Explicit parameters pick the family: SIMT ones run f16 -> f16 on the
 * SIMT kernel, and bf16 has no SIMT kernel; fragment ones do not run f32
 * without the tf32 flag. */
static void explicit_params(void **state) {
    (void)state;
    xgpu_gemm_params simt, frag;
    XT_OK(xgpu_gemm_default_params(xt.device, XGPU_F32, &simt));
    XT_OK(xgpu_gemm_default_params(xt.device, XGPU_BF16, &frag));
    assert_int_equal(frag.contiguous, XGPU_GEMM_FRAGMENTS);
    xgpu_gemm_choice ch;
    mcase c = base(XGPU_F16, XGPU_F16, 33, 31, 29);
    if (simt.contiguous == XGPU_GEMM_REGISTERS) {
        /* pocl's f32 default: a family without f16, refused by name;
         * the CPU family's small shape runs f16 instead. */
        mbuffers rb;
        c.params = &simt;
        xgpu_gemm_desc d = mcase_desc(&c, &rb);
        XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_UNSUPPORTED, "register family");
        mcase_release(&rb);
        simt = (xgpu_gemm_params){32, 32, 8, 4, 4, 1, 0};
    }
    c.params = &simt;
    mcase_run(&c, &ch);
    assert_string_equal(ch.path, "simt");
    assert_string_equal(ch.source, "desc->params");
    c.in = c.out = XGPU_BF16;
    c.params = &frag;
    mcase_run(&c, &ch);
    assert_string_equal(ch.source, "desc->params");
    /* The same through XGPU_GEMM_PARAMS, in the database's spelling. */
    char env[160];
    snprintf(env, sizeof env, "tm=%u,tn=%u,tk=%u,wm=%u,wn=%u,vw=%u,contig=%u", frag.tile_m,
             frag.tile_n, frag.tile_k, frag.work_m, frag.work_n, frag.vector_width,
             frag.contiguous);
    assert_int_equal(setenv("XGPU_GEMM_PARAMS", env, 1), 0);
    c.params = NULL;
    c.out = XGPU_F32;
    mcase_run(&c, &ch);
    assert_string_equal(ch.source, "XGPU_GEMM_PARAMS");
    assert_int_equal(ch.params.tile_m, frag.tile_m);
    unsetenv("XGPU_GEMM_PARAMS");
    mbuffers bufs;
    c.in = c.out = XGPU_F32; /* buffers for the widest type */
    c.params = &simt;
    xgpu_gemm_desc d = mcase_desc(&c, &bufs);
    d.dtype = XGPU_BF16;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_UNSUPPORTED, "fragment kernel only");
    d.dtype = XGPU_F32;
    d.c_dtype = 0;
    d.params = &frag;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "fragment family");
    mcase_release(&bufs);
}

static void tiny(void **state) {
    (void)state;
    mcase c = base(XGPU_F16, XGPU_F16, 17, 18, 19);
    mcase_run(&c, NULL);
    c = base(XGPU_BF16, XGPU_F32, 9, 17, 33);
    c.ta = c.tb = XGPU_TRANS;
    c.beta = 0.0;
    c.batch = 2;
    c.gap_a = c.gap_b = c.gap_c = 3;
    mcase_run(&c, NULL);
    assert_int_equal(setenv("XGPU_GEMM_PATH", "fragments", 1), 0);
    c = base(XGPU_F32, XGPU_F32, 17, 9, 12);
    c.flags = XGPU_GEMM_ALLOW_TF32;
    c.layout = XGPU_COL_MAJOR;
    mcase_run(&c, NULL);
    unsetenv("XGPU_GEMM_PATH");
}

int main(int argc, char **argv) {
    unsetenv("XGPU_GEMM_PATH");
    unsetenv("XGPU_GEMM_PARAMS");
    if (argc > 1 && !strcmp(argv[1], "tiny")) {
        const struct CMUnitTest tests[] = {cmocka_unit_test(tiny)};
        return XT_RUN("gemm_mixed_tiny", tests);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(choose_names),       cmocka_unit_test(mfma_layout),
        cmocka_unit_test(mixed_every_layout), cmocka_unit_test(alpha_and_beta),
        cmocka_unit_test(mixed_edge_sizes),   cmocka_unit_test(tf32_flag),
        cmocka_unit_test(explicit_params),
    };
    return XT_RUN("gemm_mixed", tests);
}
