/* Events: completion, device timing between two events, and ordering
 * across queues. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static const char *source = "XGPU_KERNEL void spin(XGPU_GLOBAL float *x, xgpu_u32 iters) {\n"
                            "    xgpu_u32 i = xgpu_global_id(0);\n"
                            "    float v = x[i];\n"
                            "    for (xgpu_u32 k = 0; k < iters; k++) v = v * 0.999f + 0.001f;\n"
                            "    x[i] = v;\n"
                            "}\n"
                            "XGPU_KERNEL void lcg(XGPU_GLOBAL xgpu_u32 *x, xgpu_u32 iters) {\n"
                            "    xgpu_u32 i = xgpu_global_id(0);\n"
                            "    xgpu_u32 v = x[i];\n"
                            "    for (xgpu_u32 k = 0; k < iters; k++) v = v * 1664525u + "
                            "1013904223u;\n"
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

/* Queue A runs a long kernel rewriting x and records an event; queue B
 * waits for it, then copies x: the copy must see the kernel's values, never
 * x's old ones (pocl runs two queues' commands concurrently). */
static void second_queue_waits_for_an_event_of_the_first(void **state) {
    (void)state;
    xgpu_program *p = xt_build(source, NULL);
    xgpu_kernel *k = xt_kernel(p, "lcg");
    const size_t n = 4096;
    const uint32_t iters = 50000;
    uint32_t *host = malloc(n * 4), *got = malloc(n * 4);
    assert_non_null(host);
    assert_non_null(got);
    xgpu_queue *qb = NULL;
    XT_OK(xgpu_queue_create(xt.ctx, &qb));
    xgpu_buffer *x = NULL, *copy = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, n * 4, &x));
    XT_OK(xgpu_buffer_create(xt.ctx, n * 4, &copy));
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < n; i++) {
            host[i] = (uint32_t)(i * 2654435761u + (uint32_t)round);
        }
        const uint32_t poison = 0xdeadbeefu;
        XT_OK(xgpu_buffer_write(xt.queue, x, 0, host, n * 4, true, NULL));
        XT_OK(xgpu_buffer_fill(qb, copy, 0, n * 4, &poison, 4, NULL));
        XT_OK(xgpu_queue_finish(qb));
        xgpu_range r = xgpu_range_1d(n / 64, 64);
        xgpu_arg args[] = {xgpu_arg_buffer(x), xgpu_arg_u32(iters)};
        xgpu_event *done = NULL;
        XT_OK(xgpu_launch(xt.queue, k, &r, 2, args, NULL));
        XT_OK(xgpu_queue_record_event(xt.queue, &done));
        XT_OK(xgpu_queue_wait_event(qb, done));
        XT_OK(xgpu_event_release(done)); /* allowed at once: the wait holds on */
        XT_OK(xgpu_buffer_copy(qb, x, 0, copy, 0, n * 4, NULL));
        XT_OK(xgpu_buffer_read(qb, copy, 0, got, n * 4, true, NULL));
        for (size_t i = 0; i < n; i++) {
            uint32_t v = host[i];
            for (uint32_t it = 0; it < iters; it++) {
                v = v * 1664525u + 1013904223u;
            }
            if (got[i] != v) {
                fail_msg("round %d: copy[%zu] = 0x%08x, the kernel wrote 0x%08x (x held 0x%08x)",
                         round, i, got[i], v, host[i]);
            }
        }
        XT_OK(xgpu_queue_finish(xt.queue));
    }
    XT_OK(xgpu_queue_release(qb));
    XT_OK(xgpu_buffer_release(x));
    XT_OK(xgpu_buffer_release(copy));
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_program_release(p));
    free(host);
    free(got);
}

static void queue_wait_event_refuses_foreign_and_bad_handles(void **state) {
    (void)state;
    xgpu_context *other = NULL;
    xgpu_queue *oq = NULL;
    xgpu_event *foreign = NULL, *own = NULL;
    XT_OK(xgpu_context_create(xt.device, &other));
    XT_OK(xgpu_queue_create(other, &oq));
    XT_OK(xgpu_queue_record_event(oq, &foreign));
    XT_FAILS(xgpu_queue_wait_event(xt.queue, foreign), XGPU_ERROR_INVALID_ARGUMENT,
             "another context");
    XT_FAILS(xgpu_queue_wait_event(xt.queue, NULL), XGPU_ERROR_INVALID_HANDLE, NULL);
    XT_OK(xgpu_queue_record_event(xt.queue, &own));
    XT_FAILS(xgpu_queue_wait_event(NULL, own), XGPU_ERROR_INVALID_HANDLE, NULL);
    /* A queue waiting for its own event: already ordered, must not hang. */
    XT_OK(xgpu_queue_wait_event(xt.queue, own));
    XT_OK(xgpu_queue_finish(xt.queue));
    XT_OK(xgpu_event_release(own));
    XT_OK(xgpu_event_release(foreign));
    XT_OK(xgpu_queue_release(oq));
    XT_OK(xgpu_context_release(other));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timing_grows_with_work),
        cmocka_unit_test(events_of_every_operation_complete),
        cmocka_unit_test(second_queue_waits_for_an_event_of_the_first),
        cmocka_unit_test(queue_wait_event_refuses_foreign_and_bad_handles),
    };
    return XT_RUN("events", tests);
}
