/* Bad input: every call answers with a status and a message naming the
 * problem, before anything reaches the device. Nothing crashes. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
    "XGPU_KERNEL void vadd(XGPU_GLOBAL const float *a, XGPU_GLOBAL const float *b,\n"
    "                      XGPU_GLOBAL float *c, xgpu_u32 n) {\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "XGPU_KERNEL void with_local(XGPU_GLOBAL float *a, XGPU_LOCAL_ARG(float, tmp)) {\n"
    "    XGPU_LOCAL_BIND(float, tmp);\n"
    "    tmp[xgpu_local_id(0)] = a[xgpu_global_id(0)];\n"
    "    xgpu_barrier();\n"
    "    a[xgpu_global_id(0)] = tmp[0];\n"
    "}\n";

static void null_handles(void **state) {
    (void)state;
    xgpu_context *ctx = NULL;
    xgpu_queue *q = NULL;
    xgpu_buffer *b = NULL;
    xgpu_program *p = NULL;
    xgpu_kernel *k = NULL;
    char host[16];
    XT_FAILS(xgpu_context_create(NULL, &ctx), XGPU_ERROR_INVALID_HANDLE, "device is NULL");
    XT_FAILS(xgpu_context_create(xt.device, NULL), XGPU_ERROR_INVALID_ARGUMENT, "context is NULL");
    XT_FAILS(xgpu_queue_create(NULL, &q), XGPU_ERROR_INVALID_HANDLE, "context is NULL");
    XT_FAILS(xgpu_buffer_create(NULL, 16, &b), XGPU_ERROR_INVALID_HANDLE, "context is NULL");
    XT_FAILS(xgpu_buffer_write(NULL, b, 0, host, 16, true, NULL), XGPU_ERROR_INVALID_HANDLE,
             "queue is NULL");
    XT_FAILS(xgpu_buffer_read(xt.queue, NULL, 0, host, 16, true, NULL), XGPU_ERROR_INVALID_HANDLE,
             "buffer is NULL");
    XT_FAILS(xgpu_buffer_copy(xt.queue, NULL, 0, NULL, 0, 1, NULL), XGPU_ERROR_INVALID_HANDLE,
             "src is NULL");
    XT_FAILS(xgpu_program_build(NULL, source, NULL, &p), XGPU_ERROR_INVALID_HANDLE,
             "context is NULL");
    XT_FAILS(xgpu_kernel_create(NULL, "vadd", &k), XGPU_ERROR_INVALID_HANDLE, "program is NULL");
    XT_FAILS(xgpu_launch(xt.queue, NULL, NULL, 0, NULL, NULL), XGPU_ERROR_INVALID_HANDLE,
             "kernel is NULL");
    XT_FAILS(xgpu_event_wait(NULL), XGPU_ERROR_INVALID_HANDLE, "event is NULL");
    XT_FAILS(xgpu_queue_finish(NULL), XGPU_ERROR_INVALID_HANDLE, "queue is NULL");
    XT_FAILS(xgpu_device_get_info(NULL, NULL, 0), XGPU_ERROR_INVALID_HANDLE, "device is NULL");
    XT_FAILS(xgpu_host_alloc(NULL, 16, (void **)&p), XGPU_ERROR_INVALID_HANDLE, NULL);
    /* Releasing NULL is a no-op, as free(NULL) is. */
    XT_OK(xgpu_buffer_release(NULL));
    XT_OK(xgpu_context_release(NULL));
}

static void handles_of_the_wrong_type(void **state) {
    (void)state;
    xgpu_buffer *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, 64, &b));
    char host[64];
    XT_FAILS(xgpu_buffer_write((xgpu_queue *)b, b, 0, host, 64, true, NULL),
             XGPU_ERROR_INVALID_HANDLE, "queue is a handle of another type");
    XT_FAILS(xgpu_queue_finish((xgpu_queue *)xt.ctx), XGPU_ERROR_INVALID_HANDLE, "of another type");
    XT_OK(xgpu_buffer_release(b));
}

static void zero_and_overflowing_sizes(void **state) {
    (void)state;
    xgpu_buffer *b = NULL;
    XT_FAILS(xgpu_buffer_create(xt.ctx, 0, &b), XGPU_ERROR_INVALID_SIZE, "size is 0");
    assert_null(b);
    XT_OK(xgpu_buffer_create(xt.ctx, 100, &b));
    char host[200];
    memset(host, 1, sizeof host);
    XT_FAILS(xgpu_buffer_write(xt.queue, b, 0, host, 0, true, NULL), XGPU_ERROR_INVALID_SIZE,
             "size is 0");
    XT_FAILS(xgpu_buffer_write(xt.queue, b, 0, host, 101, true, NULL), XGPU_ERROR_OUT_OF_RANGE,
             "100-byte buffer");
    XT_FAILS(xgpu_buffer_read(xt.queue, b, 99, host, 2, true, NULL), XGPU_ERROR_OUT_OF_RANGE,
             "[99, 99 + 2)");
    /* offset + size wraps around: still caught. */
    XT_FAILS(xgpu_buffer_write(xt.queue, b, SIZE_MAX, host, 2, true, NULL), XGPU_ERROR_OUT_OF_RANGE,
             NULL);
    XT_FAILS(xgpu_buffer_read(xt.queue, b, 2, host, SIZE_MAX, true, NULL), XGPU_ERROR_OUT_OF_RANGE,
             NULL);
    XT_FAILS(xgpu_buffer_write(xt.queue, b, 0, NULL, 10, true, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "host pointer is NULL");
    XT_FAILS(xgpu_buffer_copy(xt.queue, b, 50, b, 0, 51, NULL), XGPU_ERROR_OUT_OF_RANGE, "src");
    XT_FAILS(xgpu_buffer_copy(xt.queue, b, 0, b, 10, 20, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "overlap");
    const uint32_t pat = 7;
    XT_FAILS(xgpu_buffer_fill(xt.queue, b, 0, 12, &pat, 3, NULL), XGPU_ERROR_INVALID_SIZE,
             "pattern_size 3");
    XT_FAILS(xgpu_buffer_fill(xt.queue, b, 2, 12, &pat, 4, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "multiples");
    XT_FAILS(xgpu_buffer_fill(xt.queue, b, 0, 104, &pat, 4, NULL), XGPU_ERROR_OUT_OF_RANGE, NULL);
    XT_FAILS(xgpu_host_alloc(xt.ctx, 0, (void **)&host), XGPU_ERROR_INVALID_SIZE, "size is 0");
    XT_OK(xgpu_buffer_release(b));
}

static void allocation_larger_than_the_device(void **state) {
    (void)state;
    xgpu_buffer *b = NULL;
    size_t huge = (size_t)xt.info.global_mem_bytes * 2;
    XT_FAILS(xgpu_buffer_create(xt.ctx, huge, &b), XGPU_ERROR_OUT_OF_DEVICE_MEMORY, "asked");
    char bytes[64];
    snprintf(bytes, sizeof bytes, "(%zu bytes)", huge);
    XT_FAILS(xgpu_buffer_create(xt.ctx, huge, &b), XGPU_ERROR_OUT_OF_DEVICE_MEMORY, bytes);
    XT_FAILS(xgpu_buffer_create(xt.ctx, SIZE_MAX, &b), XGPU_ERROR_OUT_OF_DEVICE_MEMORY, NULL);
    if (xt.info.max_alloc_bytes && xt.info.max_alloc_bytes < xt.info.global_mem_bytes) {
        XT_FAILS(xgpu_buffer_create(xt.ctx, (size_t)xt.info.max_alloc_bytes + 1, &b),
                 XGPU_ERROR_OUT_OF_DEVICE_MEMORY, "largest single allocation");
    }
    assert_null(b);
}

static void source_that_does_not_compile(void **state) {
    (void)state;
    static const char *broken = "XGPU_KERNEL void k(XGPU_GLOBAL float *x) {\n"
                                "    xgpu_u32 i = xgpu_global_id(0);\n"
                                "    x[i] = undefined_thing;\n"
                                "}\n";
    xgpu_program *p = NULL;
    XT_FAILS(xgpu_program_build(xt.ctx, broken, NULL, &p), XGPU_ERROR_BUILD_FAILED, "build failed");
    assert_null(p);
    const char *log = xgpu_last_build_log();
    /* OpenCL compilers write "<file>:3:12: error", NVRTC "<file>(3): error". */
    if (!strstr(log, "undefined_thing") || (!strstr(log, ":3:") && !strstr(log, "(3)"))) {
        fail_msg("build log does not point at line 3's undefined_thing:\n%s", log);
    }
    if (!strcmp(xt.info.backend, "opencl")) {
        assert_string_equal(xgpu_last_error()->native_name, "CL_BUILD_PROGRAM_FAILURE");
        assert_string_equal(xgpu_last_error()->backend, "opencl");
    }
    XT_FAILS(xgpu_program_build(xt.ctx, "", NULL, &p), XGPU_ERROR_INVALID_ARGUMENT, "empty");
    XT_FAILS(xgpu_program_build(xt.ctx, NULL, NULL, &p), XGPU_ERROR_INVALID_ARGUMENT, "NULL");
}

static void kernels_and_arguments(void **state) {
    (void)state;
    xgpu_program *p = xt_build(source, NULL);
    xgpu_program *p2 = NULL;
    xgpu_kernel *k = NULL, *kl = NULL;
    XT_FAILS(xgpu_kernel_create(p, "no_such_kernel", &k), XGPU_ERROR_KERNEL_NOT_FOUND,
             "no_such_kernel");
    XT_FAILS(xgpu_kernel_create(p, "", &k), XGPU_ERROR_INVALID_ARGUMENT, "empty");
    k = xt_kernel(p, "vadd");
    kl = xt_kernel(p, "with_local");
    xgpu_buffer *a = NULL, *other = NULL;
    xgpu_context *ctx2 = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, 256, &a));
    XT_OK(xgpu_context_create(xt.device, &ctx2));
    XT_OK(xgpu_buffer_create(ctx2, 256, &other));
    xgpu_range r = xgpu_range_1d(1, 64);

    xgpu_arg good[] = {xgpu_arg_buffer(a), xgpu_arg_buffer(a), xgpu_arg_buffer(a),
                       xgpu_arg_u32(64)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 3, good, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
             "takes 4 argument(s) (a, b, c, n), 3 given");
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 5, good, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
             "5 given");
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, NULL, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "args is NULL");

    xgpu_arg wrong_kind[] = {xgpu_arg_buffer(a), xgpu_arg_u32(1), xgpu_arg_buffer(a),
                             xgpu_arg_u32(64)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, wrong_kind, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
             "argument 1 (float b) is a buffer parameter, but a scalar argument was given");
    xgpu_arg wrong_size[] = {xgpu_arg_buffer(a), xgpu_arg_buffer(a), xgpu_arg_buffer(a),
                             xgpu_arg_f64(64)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, wrong_size, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
             "takes 4 bytes, 8 given");
    xgpu_arg zeroed[4];
    memcpy(zeroed, good, sizeof zeroed);
    memset(&zeroed[2], 0, sizeof zeroed[2]);
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, zeroed, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
             "not a valid xgpu_arg_kind");
    xgpu_arg null_buffer[] = {xgpu_arg_buffer(NULL), xgpu_arg_buffer(a), xgpu_arg_buffer(a),
                              xgpu_arg_u32(64)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, null_buffer, NULL), XGPU_ERROR_INVALID_HANDLE,
             "argument 0 (a)");
    xgpu_arg foreign[] = {xgpu_arg_buffer(a), xgpu_arg_buffer(other), xgpu_arg_buffer(a),
                          xgpu_arg_u32(64)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, foreign, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
             "another context");

    /* Local memory: kind, zero size, more than the device has. */
    xgpu_arg local_ok[] = {xgpu_arg_buffer(a), xgpu_arg_local(64 * 4)};
    XT_OK(xgpu_launch(xt.queue, kl, &r, 2, local_ok, NULL));
    XT_OK(xgpu_queue_finish(xt.queue));
    xgpu_arg local_zero[] = {xgpu_arg_buffer(a), xgpu_arg_local(0)};
    XT_FAILS(xgpu_launch(xt.queue, kl, &r, 2, local_zero, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
             "local memory size is 0");
    xgpu_arg local_huge[] = {xgpu_arg_buffer(a),
                             xgpu_arg_local((size_t)xt.info.local_mem_bytes + 4)};
    XT_FAILS(xgpu_launch(xt.queue, kl, &r, 2, local_huge, NULL), XGPU_ERROR_INVALID_LAUNCH,
             "local memory");
    xgpu_arg local_as_buffer[] = {xgpu_arg_local(64), xgpu_arg_local(64)};
    XT_FAILS(xgpu_launch(xt.queue, kl, &r, 2, local_as_buffer, NULL),
             XGPU_ERROR_INVALID_KERNEL_ARGS, "buffer parameter");

    /* Kernel of one context, queue of another. */
    xgpu_queue *q2 = NULL;
    XT_OK(xgpu_queue_create(ctx2, &q2));
    XT_FAILS(xgpu_launch(q2, k, &r, 4, good, NULL), XGPU_ERROR_INVALID_ARGUMENT, "another context");
    XT_FAILS(xgpu_buffer_write(q2, a, 0, "x", 1, true, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "another context");
    XT_FAILS(xgpu_context_release(ctx2), XGPU_ERROR_BUSY, "still alive");
    XT_OK(xgpu_queue_release(q2));
    XT_OK(xgpu_buffer_release(other));
    XT_OK(xgpu_context_release(ctx2));
    (void)p2;
    XT_OK(xgpu_buffer_release(a));
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_kernel_release(kl));
    XT_OK(xgpu_program_release(p));
}

static void launch_geometry(void **state) {
    (void)state;
    xgpu_program *p = xt_build(source, NULL);
    xgpu_kernel *k = xt_kernel(p, "vadd");
    xgpu_buffer *a = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, 256, &a));
    xgpu_arg args[] = {xgpu_arg_buffer(a), xgpu_arg_buffer(a), xgpu_arg_buffer(a),
                       xgpu_arg_u32(64)};
    size_t max = 0, multiple = 0;
    XT_OK(xgpu_kernel_max_group_size(k, &max));
    assert_true(max >= 1);
    XT_OK(xgpu_kernel_preferred_group_multiple(k, &multiple));
    assert_true(multiple >= 1 && multiple <= max);
    XT_FAILS(xgpu_kernel_preferred_group_multiple(k, NULL), XGPU_ERROR_INVALID_ARGUMENT, NULL);
    xgpu_range r = xgpu_range_1d(1, 0);
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, args, NULL), XGPU_ERROR_INVALID_LAUNCH,
             "group_size[0] is 0");
    r = xgpu_range_1d(0, 64);
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, args, NULL), XGPU_ERROR_INVALID_LAUNCH,
             "groups[0] is 0");
    r = xgpu_range_1d(1, max + 1);
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, args, NULL), XGPU_ERROR_INVALID_LAUNCH, "exceeds");
    r = xgpu_range_1d(SIZE_MAX / 2, 64);
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, args, NULL), XGPU_ERROR_INVALID_LAUNCH,
             "work-item ids are 32-bit");
    r = xgpu_range_1d(SIZE_MAX / 64, 64); /* was accepted; pocl asserted */
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 4, args, NULL), XGPU_ERROR_INVALID_LAUNCH,
             "more than 2^32 work-items");
    /* 2^31 groups in each of three dimensions: was accepted and did nothing. */
    xgpu_range big3 = {3, {(size_t)1 << 31, (size_t)1 << 31, (size_t)1 << 31}, {1, 1, 1}};
    if (!xt.info.max_groups[0] || xt.info.max_groups[0] >= ((uint64_t)1 << 31)) {
        XT_FAILS(xgpu_launch(xt.queue, k, &big3, 4, args, NULL), XGPU_ERROR_INVALID_LAUNCH, NULL);
    }
    xgpu_range r0 = {0, {1, 1, 1}, {1, 1, 1}};
    XT_FAILS(xgpu_launch(xt.queue, k, &r0, 4, args, NULL), XGPU_ERROR_INVALID_LAUNCH, "dims is 0");
    xgpu_range r4 = {4, {1, 1, 1}, {1, 1, 1}};
    XT_FAILS(xgpu_launch(xt.queue, k, &r4, 4, args, NULL), XGPU_ERROR_INVALID_LAUNCH, "dims is 4");
    if (xt.info.max_group_dims[2] && xt.info.max_group_dims[2] < SIZE_MAX) {
        xgpu_range r3 = {3, {1, 1, 1}, {1, 1, (size_t)xt.info.max_group_dims[2] + 1}};
        XT_FAILS(xgpu_launch(xt.queue, k, &r3, 4, args, NULL), XGPU_ERROR_INVALID_LAUNCH,
                 "group_size[2]");
    }
    XT_FAILS(xgpu_launch(xt.queue, k, NULL, 4, args, NULL), XGPU_ERROR_INVALID_ARGUMENT,
             "range is NULL");
    XT_OK(xgpu_buffer_release(a));
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_program_release(p));
}

static void events_and_info(void **state) {
    (void)state;
    xgpu_event *e = NULL;
    XT_OK(xgpu_queue_record_event(xt.queue, &e));
    XT_FAILS(xgpu_event_elapsed_ms(e, e, NULL), XGPU_ERROR_INVALID_ARGUMENT, "ms is NULL");
    XT_FAILS(xgpu_event_elapsed_ms(e, NULL, NULL), XGPU_ERROR_INVALID_HANDLE, "end is NULL");
    XT_FAILS(xgpu_queue_record_event(xt.queue, NULL), XGPU_ERROR_INVALID_ARGUMENT, NULL);
    XT_OK(xgpu_event_release(e));
    xgpu_device_info info;
    XT_FAILS(xgpu_device_get_info(xt.device, &info, 0), XGPU_ERROR_INVALID_SIZE, NULL);
    XT_FAILS(xgpu_device_get_info(xt.device, &info, sizeof info + 8), XGPU_ERROR_INVALID_SIZE,
             NULL);
    uint64_t free_bytes = 0;
    xgpu_status st = xgpu_device_free_memory(xt.device, &free_bytes);
    if (st == XGPU_SUCCESS) {
        assert_true(free_bytes > 0 && free_bytes <= xt.info.global_mem_bytes);
    } else {
        XT_FAILS(st, XGPU_ERROR_UNSUPPORTED, "cannot report free memory");
    }
    XT_FAILS(xgpu_device_free_memory(xt.device, NULL), XGPU_ERROR_INVALID_ARGUMENT, NULL);
    /* An older, smaller struct is filled as far as it goes. */
    XT_OK(xgpu_device_get_info(xt.device, &info, offsetof(xgpu_device_info, name)));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_handles),
        cmocka_unit_test(handles_of_the_wrong_type),
        cmocka_unit_test(zero_and_overflowing_sizes),
        cmocka_unit_test(allocation_larger_than_the_device),
        cmocka_unit_test(source_that_does_not_compile),
        cmocka_unit_test(kernels_and_arguments),
        cmocka_unit_test(launch_geometry),
        cmocka_unit_test(events_and_info),
    };
    return XT_RUN("bad_input", tests);
}
