/* Without NVRTC, the CUDA backend runs xgpu's library kernels from the PTX
 * built into the plugin, and refuses any other source saying what to
 * install. Run against the fake device driver (fake_device.c), which
 * records every image the backend loads (FAKE_CUDA_RECORD), with
 * XGPU_NVRTC=none hiding NVRTC. */
#define _GNU_SOURCE
#include "embedded.h"
#include "xt_file.h"
#include "core_int.h"
#include "lib.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The CUDA plugin's table, compiled into this test too. */
extern const xgpu_embedded_table cu__embedded_table;

static xgpu_context *ctx;
static xgpu_queue *queue;

static int setup(void **state) {
    (void)state;
    xgpu_device *dev;
    if (xgpu_device_select("cuda:0", &dev) || xgpu_context_create(dev, &ctx) ||
        xgpu_queue_create(ctx, &queue)) {
        fprintf(stderr, "no fake CUDA device: %s\n", xgpu_last_error()->message);
        return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    xgpu_queue_release(queue);
    return xgpu_context_release(ctx) == XGPU_SUCCESS ? 0 : -1;
}

/* The images loaded since the record file was last emptied. */
static char *recorded(size_t *size) {
    return xt_read_file(getenv("FAKE_CUDA_RECORD"), size); /* NULL (size 0) before any record */
}

static void forget_records(void) {
    FILE *f = fopen(getenv("FAKE_CUDA_RECORD"), "wb");
    if (f) {
        fclose(f);
    }
}

/* The built-in PTX for `source` with `options`, as the plugin would find
 * it for a CUDA device. */
static const xgpu_embedded *expected(const char *source, const char *options) {
    char *full = xgpu__compose_source(XGPU_DIALECT_CUDA, source);
    const xgpu_embedded *e = xgpu__embedded_find(&cu__embedded_table, full, options);
    free(full);
    return e;
}

static void expect_loaded(const xgpu_embedded *e) {
    assert_non_null(e);
    size_t size = 0;
    char *rec = recorded(&size);
    char head[64];
    snprintf(head, sizeof head, "IMAGE %zu\n", e->size);
    if (size != strlen(head) + e->size + 1) {
        fail_msg("recorded %zu bytes, want \"%s\" and %zu bytes of %s %s", size, head, e->size,
                 e->name, e->options);
    }
    assert_memory_equal(rec, head, strlen(head));
    assert_memory_equal(rec + strlen(head), e->data, e->size);
    assert_non_null(strstr((const char *)e->data, ".entry"));
    free(rec);
}

static void library_routines_load_the_built_in_ptx(void **state) {
    (void)state;
    if (!cu__embedded_table.count) {
        skip(); /* no NVRTC where this was built: the table's about says so */
    }
    enum { N = 4096 };
    xgpu_buffer *x, *out;
    assert_int_equal(xgpu_buffer_create(ctx, N * 4, &x), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, 64, &out), XGPU_SUCCESS);

    forget_records();
    assert_int_equal(xgpu_reduce(queue, XGPU_REDUCE_SUM, XGPU_F32, x, 0, N, out, 0, NULL),
                     XGPU_SUCCESS);
    char opt[256];
    /* The built-in GPU values: what the embedded table holds. */
    const xgpu_device_info gpu = {.type = XGPU_DEVICE_TYPE_GPU};
    xgpu__tune_values v;
    xgpu__tune_builtin(XGPU__TK_SUM, XGPU_F32, XGPU__TC_SMALL, &gpu, &v);
    xgpu__reduce_options(XGPU_REDUCE_SUM, XGPU_F32, &v, opt, sizeof opt);
    expect_loaded(expected(xgpu__kernel_reduce, opt));

    forget_records();
    xgpu_buffer *y;
    assert_int_equal(xgpu_buffer_create(ctx, N * 4, &y), XGPU_SUCCESS);
    assert_int_equal(xgpu_stream(queue, XGPU_STREAM_TRIAD, XGPU_F32, x, x, y, 2.0, 16, NULL, NULL),
                     XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(y), XGPU_SUCCESS);
    xgpu__tune_builtin(XGPU__TK_STREAM, XGPU_F32, XGPU__TC_SMALL, &gpu, &v);
    xgpu__stream_options(XGPU_F32, &v, opt, sizeof opt);
    expect_loaded(expected(xgpu__kernel_stream, opt));

    forget_records();
    xgpu_gemm_desc g = {.dtype = XGPU_F32,
                        .layout = XGPU_ROW_MAJOR,
                        .trans_a = XGPU_NO_TRANS,
                        .trans_b = XGPU_NO_TRANS,
                        .m = 32,
                        .n = 32,
                        .k = 32,
                        .alpha = 1.0,
                        .beta = 0.0,
                        .a = {x, 0, 32},
                        .b = {x, 1024, 32},
                        .c = {x, 2048, 32},
                        .params = NULL};
    assert_int_equal(xgpu_gemm(queue, &g, NULL), XGPU_SUCCESS);
    xgpu_device *dev;
    assert_int_equal(xgpu_context_get_device(ctx, &dev), XGPU_SUCCESS);
    xgpu_gemm_params p;
    assert_int_equal(xgpu_gemm_default_params(dev, XGPU_F32, &p), XGPU_SUCCESS);
    xgpu__gemm_options(XGPU_F32, &p, opt, sizeof opt);
    expect_loaded(expected(xgpu__kernel_gemm, opt));

    assert_int_equal(xgpu_buffer_release(x), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(out), XGPU_SUCCESS);
}

static void other_kernels_need_nvrtc(void **state) {
    (void)state;
    xgpu_program *p = NULL;
    xgpu_status st = xgpu_program_build(
        ctx, "XGPU_KERNEL void k(XGPU_GLOBAL float *y) { y[0] = 1.0f; }\n", NULL, &p);
    assert_int_not_equal(st, XGPU_SUCCESS);
    assert_null(p);
    const char *msg = xgpu_last_error()->message;
    assert_non_null(strstr(msg, "XGPU_NVRTC=none"));
    assert_non_null(strstr(msg, "only xgpu's library kernels run"));
}

int main(void) {
    printf("built-in kernels: %zu, %s\n", cu__embedded_table.count, cu__embedded_table.about);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(library_routines_load_the_built_in_ptx),
        cmocka_unit_test(other_kernels_need_nvrtc),
    };
    return cmocka_run_group_tests_name("cuda_builtin_kernels", tests, setup, teardown);
}
