/* The null backend through the public API, with XGPU_BACKENDS=null as
 * CTest sets it: every object can be made, a launch runs end to end and
 * does nothing, and the core's checks still refuse bad launches (it is
 * what gpubench's core-overhead row times, so it must be the real path). */
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(launches_run_end_to_end_and_do_nothing),
    };
    return cmocka_run_group_tests_name("null backend", tests, NULL, NULL);
}
