/* Stale handles never name a new object: a released handle stays refused
 * as released however many objects of its type come and go after it, and
 * the live ones made meanwhile are accepted. (The registry used to keep
 * the addresses of the last 256 releases out of malloc's hands; after 256
 * more releases an object could be made at a stale handle's address and
 * answer to it.) */
#include "harness.h"

#include <stdio.h>
#include <string.h>

enum { ROUNDS = 2000 }; /* several times what the old scheme held back */

static const char *const source = "XGPU_KERNEL void nop(XGPU_GLOBAL float *x) { x[0] = 1.0f; }\n";

/* Fails unless `st` refuses a stale handle as released. */
static void expect_released(xgpu_status st, const char *what, int round) {
    if (st != XGPU_ERROR_INVALID_HANDLE) {
        fail_msg("round %d: the stale %s handle was accepted (%s)", round, what,
                 xgpu_status_name(st));
    }
    if (!strstr(xgpu_last_error()->message, "already released")) {
        fail_msg("round %d: stale %s: \"%s\"", round, what, xgpu_last_error()->message);
    }
}

/* Released, then ROUNDS buffers made and released, then ROUNDS made and
 * kept: under the old scheme its memory went back to malloc after 256
 * releases, and one of the kept buffers could be made at its address. */
static void stale_buffer_after_thousands_of_buffers(void **state) {
    (void)state;
    xgpu_buffer *stale = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, 64, &stale));
    XT_OK(xgpu_buffer_release(stale));
    static xgpu_buffer *kept[ROUNDS];
    for (int i = 0; i < 2 * ROUNDS; i++) {
        xgpu_buffer *b = NULL;
        XT_OK(xgpu_buffer_create(xt.ctx, 128, &b));
        assert_ptr_not_equal(b, stale);
        size_t size = 0;
        expect_released(xgpu_buffer_size(stale, &size), "buffer", i);
        XT_OK(xgpu_buffer_size(b, &size));
        assert_int_equal(size, 128);
        if (i < ROUNDS) {
            XT_OK(xgpu_buffer_release(b));
        } else {
            kept[i - ROUNDS] = b;
        }
    }
    XT_FAILS(xgpu_buffer_release(stale), XGPU_ERROR_INVALID_HANDLE, "already released");
    for (int i = 0; i < ROUNDS; i++) {
        XT_OK(xgpu_buffer_release(kept[i]));
    }
}

static void stale_kernel_and_event_after_thousands(void **state) {
    (void)state;
    xgpu_program *p = xt_build(source, NULL);
    xgpu_kernel *stale_kernel = xt_kernel(p, "nop");
    XT_OK(xgpu_kernel_release(stale_kernel));
    xgpu_event *stale_event = NULL;
    XT_OK(xgpu_queue_record_event(xt.queue, &stale_event));
    XT_OK(xgpu_event_release(stale_event));
    for (int i = 0; i < ROUNDS; i++) {
        xgpu_kernel *k = xt_kernel(p, "nop");
        xgpu_event *e = NULL;
        XT_OK(xgpu_queue_record_event(xt.queue, &e));
        uint32_t count = 0;
        expect_released(xgpu_kernel_arg_count(stale_kernel, &count), "kernel", i);
        expect_released(xgpu_event_wait(stale_event), "event", i);
        XT_OK(xgpu_kernel_arg_count(k, &count));
        assert_int_equal(count, 1);
        XT_OK(xgpu_event_wait(e));
        XT_OK(xgpu_event_release(e));
        XT_OK(xgpu_kernel_release(k));
    }
    XT_OK(xgpu_program_release(p));
}

/* Objects of several types made and released in turn: a stale handle of
 * one type is still refused as released, not as another type's. */
static void stale_handle_among_other_types(void **state) {
    (void)state;
    xgpu_queue *stale = NULL;
    XT_OK(xgpu_queue_create(xt.ctx, &stale));
    XT_OK(xgpu_queue_release(stale));
    for (int i = 0; i < ROUNDS / 4; i++) {
        xgpu_buffer *b = NULL;
        xgpu_queue *q = NULL;
        XT_OK(xgpu_buffer_create(xt.ctx, 16, &b));
        XT_OK(xgpu_queue_create(xt.ctx, &q));
        expect_released(xgpu_queue_finish(stale), "queue", i);
        XT_OK(xgpu_queue_finish(q));
        XT_OK(xgpu_queue_release(q));
        XT_OK(xgpu_buffer_release(b));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stale_buffer_after_thousands_of_buffers),
        cmocka_unit_test(stale_kernel_and_event_after_thousands),
        cmocka_unit_test(stale_handle_among_other_types),
    };
    return XT_RUN("handles", tests);
}
