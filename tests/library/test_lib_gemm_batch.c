/* Strided-batched xgpu_gemm on every device, on the SIMT kernels and the
 * fragment kernel: odd strides, offsets and padding, A shared by every
 * batch (stride 0), interleaved C (attention's heads side by side)
 * accepted and computed, and what must be refused with a message that
 * names it: C shared between batches, C meeting another batch's A,
 * strides that overflow size_t or 32-bit indexing, the last batch past
 * its buffer, unsupported type pairs (naming the device), unknown flags. */
#define _POSIX_C_SOURCE 200809L
#include "gemm_mixed.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mcase batched(xgpu_dtype in, xgpu_dtype out, size_t batch) {
    mcase c = {.in = in, .out = out, .layout = XGPU_ROW_MAJOR, .m = 13, .n = 11, .k = 9};
    c.alpha = 0.75;
    c.beta = 0.5;
    c.batch = batch;
    c.gap_a = 5;
    c.gap_b = 3;
    c.gap_c = 7;
    c.offset = 3;
    c.pad = 1;
    return c;
}

static const xgpu_dtype types[][2] = {
    {XGPU_F32, XGPU_F32}, {XGPU_F16, XGPU_F16}, {XGPU_BF16, XGPU_F32}, {XGPU_F16, XGPU_F32}};

static void odd_strides_every_layout(void **state) {
    (void)state;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (int v = 0; v < 8; v++) {
            mcase c = batched(types[t][0], types[t][1], 3 + (size_t)v % 2);
            c.layout = (xgpu_layout)(v / 4);
            c.ta = (xgpu_transpose)(v / 2 % 2);
            c.tb = (xgpu_transpose)(v % 2);
            c.beta = v == 5 ? 0.0 : 0.5;
            mcase_run(&c, NULL);
        }
    }
    if (xt.info.fp64) {
        mcase c = batched(XGPU_F64, XGPU_F64, 3);
        mcase_run(&c, NULL);
    }
}

/* One A for every batch, and one GEMM per batch of a single row (m = 1),
 * many batches. */
static void shared_a_and_many_batches(void **state) {
    (void)state;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        mcase c = batched(types[t][0], types[t][1], 5);
        c.shared_a = true;
        c.tb = XGPU_TRANS;
        mcase_run(&c, NULL);
        c = batched(types[t][0], types[t][1], 67);
        c.m = 1;
        c.n = 3;
        c.k = 17;
        mcase_run(&c, NULL);
    }
}

/* Heads side by side: C of seq x dim per head in rows of heads * dim. */
static void interleaved_c(void **state) {
    (void)state;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (int layout = 0; layout < 2; layout++) {
            mcase c = batched(types[t][0], types[t][1], 4);
            c.interleaved_c = true;
            c.layout = (xgpu_layout)layout;
            c.pad = 0;
            c.beta = layout ? 0.0 : 0.5;
            mcase_run(&c, NULL);
        }
    }
}

static void refuses_shared_c(void **state) {
    (void)state;
    mcase c = batched(XGPU_F32, XGPU_F32, 5);
    c.interleaved_c = true;
    mbuffers bufs;
    xgpu_gemm_desc d = mcase_desc(&c, &bufs);
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    d.stride_c = 0;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "C of batch 0 and C of batch 1 share elements");
    d.stride_c = c.n - 1; /* each head one column short */
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "share elements");
    d.stride_c = c.n;
    d.c.ld = 4 * c.n; /* rows for four heads: the fifth wraps into the first's second row */
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "C of batch 0 and C of batch 4 share elements");
    xgpu_gemm_choice ch;
    XT_FAILS(xgpu_gemm_choose(xt.queue, &d, &ch), XGPU_ERROR_INVALID_ARGUMENT, "share elements");
    mcase_release(&bufs);
}

/* C in the same buffer as A: beside every batch's A, accepted; on
 * another batch's A, refused naming both batches. */
static void refuses_c_on_a(void **state) {
    (void)state;
    size_t m = 4, n = 4, k = 4, batch = 3;
    xgpu_buffer *buf, *bb;
    XT_OK(xgpu_buffer_create(xt.ctx, 4096, &buf));
    XT_OK(xgpu_buffer_create(xt.ctx, 4096, &bb));
    /* A of batch i at 32 * i, C of batch i at 32 * i + 16: the gaps. */
    xgpu_gemm_desc d = {.dtype = XGPU_F32, .m = m, .n = n, .k = k, .alpha = 1.0, .beta = 0.0};
    d.a = (xgpu_matrix){buf, 0, k};
    d.b = (xgpu_matrix){bb, 0, n};
    d.c = (xgpu_matrix){buf, 16, n};
    d.batch = batch;
    d.stride_a = 32;
    d.stride_b = 16;
    d.stride_c = 32;
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    d.c.offset = 32; /* batch 0's C is batch 1's A */
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "C of batch 0 overlaps matrix a of batch 1");
    /* Rows of C between rows of A (ld 8: A's rows at 0..3, C's at 4..7). */
    d.batch = 1;
    d.a.ld = 8;
    d.c = (xgpu_matrix){buf, 4, 8};
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    d.c.offset = 3;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "C overlaps A or B");
    XT_OK(xgpu_queue_finish(xt.queue));
    XT_OK(xgpu_buffer_release(buf));
    XT_OK(xgpu_buffer_release(bb));
}

static void refuses_bad_strides(void **state) {
    (void)state;
    mcase c = batched(XGPU_BF16, XGPU_F32, 3);
    mbuffers bufs;
    xgpu_gemm_desc d = mcase_desc(&c, &bufs);
    XT_OK(xgpu_gemm(xt.queue, &d, NULL));
    xgpu_gemm_desc e = d;
    e.stride_a = SIZE_MAX / 2 + 1;
    XT_FAILS(xgpu_gemm(xt.queue, &e, NULL), XGPU_ERROR_INVALID_SIZE, "overflows size_t");
    e = d;
    e.stride_b = (size_t)1 << 31; /* batch 2 starts at 2^32 */
    XT_FAILS(xgpu_gemm(xt.queue, &e, NULL), XGPU_ERROR_INVALID_SIZE, "matrix b of batch 2 spans");
    e = d;
    e.stride_c += 1; /* the last batch's C one element past its buffer */
    XT_FAILS(xgpu_gemm(xt.queue, &e, NULL), XGPU_ERROR_OUT_OF_RANGE, "matrix c of batch 2 needs");
    e = d;
    e.batch = (size_t)UINT32_MAX + 1;
    XT_FAILS(xgpu_gemm(xt.queue, &e, NULL), XGPU_ERROR_INVALID_SIZE, "batch");
    e = d;
    e.batch = 1; /* one GEMM: the strides are ignored */
    e.stride_c = 0;
    e.stride_a = SIZE_MAX;
    XT_OK(xgpu_gemm(xt.queue, &e, NULL));
    XT_OK(xgpu_queue_finish(xt.queue));
    mcase_release(&bufs);
}

static void refuses_pairs_and_flags(void **state) {
    (void)state;
    mcase c = batched(XGPU_F32, XGPU_F32, 0);
    mbuffers bufs;
    xgpu_gemm_desc d = mcase_desc(&c, &bufs);
    const xgpu_dtype bad[][2] = {
        {XGPU_F32, XGPU_F16}, {XGPU_F32, XGPU_BF16}, {XGPU_F16, XGPU_BF16}, {XGPU_BF16, XGPU_F16},
        {XGPU_F16, XGPU_F64}, {XGPU_F64, XGPU_F32},  {XGPU_I32, XGPU_I32},  {XGPU_BF16, XGPU_F64}};
    char want[400];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d.dtype = bad[i][0];
        d.c_dtype = bad[i][1];
        snprintf(want, sizeof want, "dtype %s with c_dtype %s is not supported on %s",
                 xgpu_dtype_name(bad[i][0]), xgpu_dtype_name(bad[i][1]), xt.info.name);
        XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_UNSUPPORTED, want);
    }
    d.dtype = XGPU_F32;
    d.c_dtype = 0;
    d.flags = 2;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT, "unknown bits 0x2");
    d.flags = XGPU_GEMM_ALLOW_TF32;
    d.dtype = XGPU_F16;
    XT_FAILS(xgpu_gemm(xt.queue, &d, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "XGPU_GEMM_ALLOW_TF32 applies to f32 GEMMs, not f16");
    mcase_release(&bufs);
}

int main(void) {
    unsetenv("XGPU_GEMM_PATH");
    unsetenv("XGPU_GEMM_PARAMS");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(odd_strides_every_layout),
        cmocka_unit_test(shared_a_and_many_batches),
        cmocka_unit_test(interleaved_c),
        cmocka_unit_test(refuses_shared_c),
        cmocka_unit_test(refuses_c_on_a),
        cmocka_unit_test(refuses_bad_strides),
        cmocka_unit_test(refuses_pairs_and_flags),
    };
    return XT_RUN("gemm_batch", tests);
}
