/* The null backend through the public API, with XGPU_BACKENDS=null as
 * CTest sets it: every object can be made, a launch runs end to end and
 * does nothing, and the core's checks still refuse bad launches (it is
 * what gpubench's core-overhead row times, so it must be the real path).
 * With no vendor allocating in between, it is also where a stale handle
 * would meet a new object at its old address. */
#include <xgpu.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static const char *const source =
    "XGPU_KERNEL void scale(XGPU_GLOBAL float *x, xgpu_u32 n, float a) {\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (i < n) x[i] *= a;\n"
    "}\n";

static void launches_run_end_to_end_and_do_nothing(void **state) {
    (void)state;
    xgpu_device *dev = NULL;
    assert_int_equal(xgpu_device_select("null", &dev), XGPU_SUCCESS);
    xgpu_device_info info;
    assert_int_equal(xgpu_device_get_info(dev, &info, sizeof info), XGPU_SUCCESS);
    assert_string_equal(info.backend, "null");
    xgpu_context *ctx = NULL;
    xgpu_queue *q = NULL;
    xgpu_buffer *buf = NULL;
    xgpu_program *p = NULL;
    xgpu_kernel *k = NULL;
    assert_int_equal(xgpu_context_create(dev, &ctx), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_create(ctx, &q), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(ctx, 64, &buf), XGPU_SUCCESS);
    float host[16] = {1, 2, 3};
    assert_int_equal(xgpu_buffer_write(q, buf, 0, host, sizeof host, true, NULL), XGPU_SUCCESS);
    assert_int_equal(xgpu_program_build(ctx, source, NULL, &p), XGPU_SUCCESS);
    assert_int_equal(xgpu_kernel_create(p, "scale", &k), XGPU_SUCCESS);

    xgpu_range range = xgpu_range_1d(1, 16);
    xgpu_arg args[] = {xgpu_arg_buffer(buf), xgpu_arg_u32(16), xgpu_arg_f32(2.0f)};
    xgpu_event *ev = NULL;
    assert_int_equal(xgpu_launch(q, k, &range, 3, args, &ev), XGPU_SUCCESS);
    assert_non_null(ev);
    assert_int_equal(xgpu_event_wait(ev), XGPU_SUCCESS);
    assert_int_equal(xgpu_event_release(ev), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_finish(q), XGPU_SUCCESS);

    /* The checks run as on any device. */
    assert_int_equal(xgpu_launch(q, k, &range, 2, args, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS);
    xgpu_arg swapped[] = {xgpu_arg_u32(16), xgpu_arg_buffer(buf), xgpu_arg_f32(2.0f)};
    assert_int_equal(xgpu_launch(q, k, &range, 3, swapped, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS);
    xgpu_range too_big = xgpu_range_1d(1, 4096);
    assert_int_equal(xgpu_launch(q, k, &too_big, 3, args, NULL), XGPU_ERROR_INVALID_LAUNCH);

    /* Nothing was stored: a read gives zeros. */
    memset(host, 0xff, sizeof host);
    assert_int_equal(xgpu_buffer_read(q, buf, 0, host, sizeof host, true, NULL), XGPU_SUCCESS);
    for (size_t i = 0; i < 16; i++) {
        assert_true(host[i] == 0.0f);
    }

    assert_int_equal(xgpu_kernel_release(k), XGPU_SUCCESS);
    assert_int_equal(xgpu_program_release(p), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(buf), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_release(q), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_release(ctx), XGPU_SUCCESS);
}

/* A released handle never names a new object, however many come and go
 * after it. Here, with no vendor allocations in between, the registry's
 * old ring of 256 releases let the 257th buffer be made at the stale
 * handle's address and answer to it. */
static void a_stale_handle_never_names_a_new_object(void **state) {
    (void)state;
    enum { ROUNDS = 1000 };
    xgpu_device *dev = NULL;
    xgpu_context *ctx = NULL;
    assert_int_equal(xgpu_device_select("null", &dev), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_create(dev, &ctx), XGPU_SUCCESS);
    /* Buffers made and released first: malloc's per-thread cache is full
     * by then, and the stale buffer's memory goes where the next
     * allocation of its size looks first once it is freed. */
    for (int i = 0; i < ROUNDS; i++) {
        xgpu_buffer *b = NULL;
        assert_int_equal(xgpu_buffer_create(ctx, 128, &b), XGPU_SUCCESS);
        assert_int_equal(xgpu_buffer_release(b), XGPU_SUCCESS);
    }
    xgpu_buffer *stale = NULL;
    assert_int_equal(xgpu_buffer_create(ctx, 64, &stale), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_release(stale), XGPU_SUCCESS);
    static xgpu_buffer *kept[ROUNDS];
    for (int i = 0; i < 2 * ROUNDS; i++) {
        xgpu_buffer *b = NULL;
        size_t size = 0;
        assert_int_equal(xgpu_buffer_create(ctx, 128, &b), XGPU_SUCCESS);
        if (b == stale || xgpu_buffer_size(stale, &size) != XGPU_ERROR_INVALID_HANDLE) {
            fail_msg("buffer %d answers to the stale handle", i);
        }
        assert_non_null(strstr(xgpu_last_error()->message, "already released"));
        assert_int_equal(xgpu_buffer_size(b, &size), XGPU_SUCCESS);
        assert_int_equal(size, 128);
        if (i < ROUNDS) {
            assert_int_equal(xgpu_buffer_release(b), XGPU_SUCCESS);
        } else {
            kept[i - ROUNDS] = b;
        }
    }
    assert_int_equal(xgpu_buffer_release(stale), XGPU_ERROR_INVALID_HANDLE);
    for (int i = 0; i < ROUNDS; i++) {
        assert_int_equal(xgpu_buffer_release(kept[i]), XGPU_SUCCESS);
    }
    assert_int_equal(xgpu_context_release(ctx), XGPU_SUCCESS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(launches_run_end_to_end_and_do_nothing),
        cmocka_unit_test(a_stale_handle_never_names_a_new_object),
    };
    return cmocka_run_group_tests_name("null backend", tests, NULL, NULL);
}
