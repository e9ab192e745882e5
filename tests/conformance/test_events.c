/* Events: completion, and device timing between two events. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static const char *source = "XGPU_KERNEL void spin(XGPU_GLOBAL float *x, xgpu_u32 iters) {\n"
                            "    xgpu_u32 i = xgpu_global_id(0);\n"
                            "    float v = x[i];\n"
                            "    for (xgpu_u32 k = 0; k < iters; k++) v = v * 0.999f + 0.001f;\n"
                            "    x[i] = v;\n"
                            "}\n";

static void timing_grows_with_work(void **state) {
    (void)state;
    xgpu_program *p = xt_build(source, NULL);
    xgpu_kernel *k = xt_kernel(p, "spin");
    const size_t n = 4096;
    xgpu_buffer *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, n * 4, &b));
    float *host = malloc(n * 4);
    assert_non_null(host);
    xt_random_f32(host, n, 4, 0.5f, 1.5f);
    XT_OK(xgpu_buffer_write(xt.queue, b, 0, host, n * 4, true, NULL));
    xgpu_range r = xgpu_range_1d(n / 64, 64);
    /* Warm-up: some drivers (pocl) compile a kernel for its group size at
     * the first launch, which must not land in the timed one. */
    xgpu_arg warm[] = {xgpu_arg_buffer(b), xgpu_arg_u32(1)};
    XT_OK(xgpu_launch(xt.queue, k, &r, 2, warm, NULL));
    XT_OK(xgpu_queue_finish(xt.queue));
    double ms[2];
    const uint32_t iters[2] = {10, 20000};
    for (int t = 0; t < 2; t++) {
        xgpu_event *start = NULL, *end = NULL;
        xgpu_arg args[] = {xgpu_arg_buffer(b), xgpu_arg_u32(iters[t])};
        XT_OK(xgpu_queue_record_event(xt.queue, &start));
        XT_OK(xgpu_launch(xt.queue, k, &r, 2, args, NULL));
        XT_OK(xgpu_queue_record_event(xt.queue, &end));
        XT_OK(xgpu_event_wait(end));
        XT_OK(xgpu_event_elapsed_ms(start, end, &ms[t]));
        assert_true(ms[t] >= 0.0);
        /* Reversed order gives the negative interval. */
        double back = 0;
        XT_OK(xgpu_event_elapsed_ms(end, start, &back));
        assert_true(back <= 0.0);
        XT_OK(xgpu_event_release(start));
        XT_OK(xgpu_event_release(end));
    }
    /* 2000x the work: a timer that measures anything at all sees more. */
    if (!(ms[1] > ms[0])) {
        fail_msg("10 iterations took %.4f ms, 20000 took %.4f ms", ms[0], ms[1]);
    }
    free(host);
    XT_OK(xgpu_buffer_release(b));
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_program_release(p));
}

static void events_of_every_operation_complete(void **state) {
    (void)state;
    const size_t n = 1 << 16;
    xgpu_buffer *a = NULL, *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, n, &a));
    XT_OK(xgpu_buffer_create(xt.ctx, n, &b));
    unsigned char *h = malloc(n), *r = malloc(n);
    assert_non_null(h);
    assert_non_null(r);
    xt_random_bytes(h, n, 14);
    memset(r, 0xA5, n);
    xgpu_event *ev[4] = {NULL, NULL, NULL, NULL};
    const uint8_t byte = 0x3c;
    XT_OK(xgpu_buffer_write(xt.queue, a, 0, h, n, false, &ev[0]));
    XT_OK(xgpu_buffer_copy(xt.queue, a, 0, b, 0, n, &ev[1]));
    XT_OK(xgpu_buffer_fill(xt.queue, a, 0, 16, &byte, 1, &ev[2]));
    XT_OK(xgpu_buffer_read(xt.queue, b, 0, r, n, false, &ev[3]));
    for (int i = 3; i >= 0; i--) {
        assert_non_null(ev[i]);
        XT_OK(xgpu_event_wait(ev[i]));
    }
    assert_memory_equal(h, r, n);
    double ms = -1;
    XT_OK(xgpu_event_elapsed_ms(ev[0], ev[3], &ms));
    assert_true(ms >= 0.0);
    for (int i = 0; i < 4; i++) {
        XT_OK(xgpu_event_release(ev[i]));
    }
    free(h);
    free(r);
    XT_OK(xgpu_buffer_release(a));
    XT_OK(xgpu_buffer_release(b));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timing_grows_with_work),
        cmocka_unit_test(events_of_every_operation_complete),
    };
    return XT_RUN("events", tests);
}
