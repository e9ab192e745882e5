/* Object lifetimes and handles, as xgpu.h states them: what may be released
 * while what is alive or queued, and that released, foreign and made-up
 * handles are refused without being read. Also the argument checks that
 * guard a launch from wrapped sizes and wrongly typed scalars. */
#include "harness.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
    "XGPU_KERNEL void scale(XGPU_GLOBAL const float *x, XGPU_GLOBAL float *y, float a,\n"
    "                       xgpu_u32 n, xgpu_u32 reps) {\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (i >= n) return;\n"
    "    float v = x[i];\n"
    "    for (xgpu_u32 r = 0; r < reps; r++) v = v * 0.5f + a;\n"
    "    y[i] = v;\n"
    "}\n"
    "XGPU_KERNEL void two_locals(XGPU_GLOBAL float *x, XGPU_LOCAL_ARG(float, s),\n"
    "                            XGPU_LOCAL_ARG(float, t)) {\n"
    "    XGPU_LOCAL_BIND(float, s);\n"
    "    XGPU_LOCAL_BIND(float, t);\n"
    "    s[0] = t[0] = x[0];\n"
    "    x[0] = s[0] + t[0];\n"
    "}\n"
    /* Declared through a macro: the core cannot read this signature. */
    "#define DECLARE_FILL(name) XGPU_KERNEL void name(XGPU_GLOBAL xgpu_u32 *out, xgpu_u32 v)\n"
    "DECLARE_FILL(fill) { out[xgpu_global_id(0)] = v; }\n";

enum { N = 4096 };

/* y = x * 0.5^reps + a * (1 + ... + 0.5^(reps-1)), in double. */
static double expect(float x, float a, unsigned reps) {
    double v = x;
    for (unsigned r = 0; r < reps; r++) {
        v = v * 0.5 + a;
    }
    return v;
}

static void launch_scale(xgpu_kernel *k, xgpu_buffer *x, xgpu_buffer *y, float a, unsigned reps) {
    xgpu_range r = xgpu_range_1d(N / 64, 64);
    xgpu_arg args[] = {xgpu_arg_buffer(x), xgpu_arg_buffer(y), xgpu_arg_f32(a), xgpu_arg_u32(N),
                       xgpu_arg_u32(reps)};
    XT_OK(xgpu_launch(xt.queue, k, &r, 5, args, NULL));
}

static void check_scale(xgpu_buffer *y, const float *x, float a, unsigned reps) {
    float *out = malloc(N * sizeof *out);
    assert_non_null(out);
    memset(out, 0xff, N * sizeof *out); /* poison */
    XT_OK(xgpu_buffer_read(xt.queue, y, 0, out, N * sizeof *out, true, NULL));
    for (int i = 0; i < N; i++) {
        double want = expect(x[i], a, reps);
        if (!(fabs(out[i] - want) <= 1e-4 * (1 + fabs(want)))) {
            fail_msg("y[%d] = %g, want %g", i, out[i], want);
        }
    }
    free(out);
}

/* The ordinary OpenCL habit: release the program right after creating its
 * kernels. A kernel keeps its program alive. */
static void kernel_keeps_its_program(void **state) {
    (void)state;
    float x[N];
    xt_random_f32(x, N, 7, -2.0f, 2.0f);
    xgpu_buffer *bx = NULL, *by = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof x, &bx));
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof x, &by));
    XT_OK(xgpu_buffer_write(xt.queue, bx, 0, x, sizeof x, true, NULL));
    xgpu_program *p = xt_build(source, NULL);
    xgpu_kernel *k = xt_kernel(p, "scale");
    XT_OK(xgpu_program_release(p));
    /* The program handle is gone; its kernel works. */
    XT_FAILS(xgpu_program_release(p), XGPU_ERROR_INVALID_HANDLE, "already released");
    xgpu_kernel *k2 = NULL;
    XT_FAILS(xgpu_kernel_create(p, "scale", &k2), XGPU_ERROR_INVALID_HANDLE, "program");
    launch_scale(k, bx, by, 0.25f, 3);
    check_scale(by, x, 0.25f, 3);
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_buffer_release(bx));
    XT_OK(xgpu_buffer_release(by));
}

/* Buffers, kernels and the queue may be released while queued work still
 * uses them; the work completes with the right result. */
static void release_while_work_is_queued(void **state) {
    (void)state;
    float x[N];
    xt_random_f32(x, N, 11, -1.0f, 1.0f);
    xgpu_program *p = xt_build(source, NULL);
    xgpu_kernel *k = xt_kernel(p, "scale");
    xgpu_buffer *bx = NULL, *by = NULL, *keep = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof x, &bx));
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof x, &by));
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof x, &keep));
    XT_OK(xgpu_buffer_write(xt.queue, bx, 0, x, sizeof x, false, NULL));
    launch_scale(k, bx, by, 1.5f, 2000); /* long enough to still be queued */
    XT_OK(xgpu_buffer_copy(xt.queue, by, 0, keep, 0, sizeof x, NULL));
    XT_OK(xgpu_buffer_release(bx));
    XT_OK(xgpu_buffer_release(by));
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_program_release(p));
    check_scale(keep, x, 1.5f, 2000);
    XT_OK(xgpu_buffer_release(keep));
}

/* An event outlives its queue: it still completes and still times. */
static void event_outlives_its_queue(void **state) {
    (void)state;
    xgpu_queue *q = NULL;
    XT_OK(xgpu_queue_create(xt.ctx, &q));
    xgpu_buffer *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, 1 << 20, &b));
    xgpu_event *start = NULL, *end = NULL;
    XT_OK(xgpu_queue_record_event(q, &start));
    uint32_t pattern = 0x3f800000u;
    XT_OK(xgpu_buffer_fill(q, b, 0, 1 << 20, &pattern, sizeof pattern, NULL));
    XT_OK(xgpu_queue_record_event(q, &end));
    XT_OK(xgpu_queue_release(q)); /* waits for the queue; events stay valid */
    XT_OK(xgpu_event_wait(end));
    double ms = -1;
    XT_OK(xgpu_event_elapsed_ms(start, end, &ms));
    assert_true(ms >= 0);
    XT_OK(xgpu_event_release(start));
    XT_OK(xgpu_event_release(end));
    XT_OK(xgpu_buffer_release(b));
    /* The context is not released while anything of it lives. */
}

/* Double release, use after release and pointers that were never handles
 * are refused by name, never read (ASan would report a read). */
static void stale_and_foreign_handles(void **state) {
    (void)state;
    xgpu_buffer *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, 64, &b));
    XT_OK(xgpu_buffer_release(b));
    XT_FAILS(xgpu_buffer_release(b), XGPU_ERROR_INVALID_HANDLE, "already released");
    char host[64];
    XT_FAILS(xgpu_buffer_read(xt.queue, b, 0, host, 64, true, NULL), XGPU_ERROR_INVALID_HANDLE,
             "already released");
    /* A new buffer right after: the stale handle must not reach it. */
    xgpu_buffer *fresh = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, 64, &fresh));
    XT_FAILS(xgpu_buffer_release(b), XGPU_ERROR_INVALID_HANDLE, NULL);
    XT_OK(xgpu_buffer_write(xt.queue, fresh, 0, host, 64, true, NULL));
    XT_OK(xgpu_buffer_release(fresh));
    /* Never handles: a heap block, a stack address, a small integer. */
    char *heap = calloc(1, 256);
    assert_non_null(heap);
    XT_FAILS(xgpu_buffer_release((xgpu_buffer *)heap), XGPU_ERROR_INVALID_HANDLE,
             "not a live xgpu handle");
    XT_FAILS(xgpu_queue_finish((xgpu_queue *)host), XGPU_ERROR_INVALID_HANDLE, NULL);
    XT_FAILS(xgpu_event_wait((xgpu_event *)(uintptr_t)0x1000), XGPU_ERROR_INVALID_HANDLE, NULL);
    XT_FAILS(xgpu_context_release((xgpu_context *)(uintptr_t)8), XGPU_ERROR_INVALID_HANDLE, NULL);
    xgpu_arg bad = xgpu_arg_buffer((xgpu_buffer *)heap);
    xgpu_program *p = xt_build(source, NULL);
    xgpu_kernel *k = xt_kernel(p, "scale");
    xgpu_range r = xgpu_range_1d(1, 1);
    xgpu_arg args[] = {bad, bad, xgpu_arg_f32(1), xgpu_arg_u32(1), xgpu_arg_u32(1)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 5, args, NULL), XGPU_ERROR_INVALID_HANDLE,
             "argument 0 (x)");
    free(heap);
    XT_OK(xgpu_kernel_release(k));
    XT_FAILS(xgpu_kernel_release(k), XGPU_ERROR_INVALID_HANDLE, "already released");
    XT_OK(xgpu_program_release(p));
}

/* Scalars of the wrong class are refused naming the parameter and both
 * types; signed for unsigned of one size and raw bytes are accepted. */
static void scalar_argument_types(void **state) {
    (void)state;
    float x[N];
    xt_random_f32(x, N, 3, -1.0f, 1.0f);
    xgpu_buffer *bx = NULL, *by = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof x, &bx));
    XT_OK(xgpu_buffer_create(xt.ctx, sizeof x, &by));
    XT_OK(xgpu_buffer_write(xt.queue, bx, 0, x, sizeof x, true, NULL));
    xgpu_program *p = xt_build(source, NULL);
    xgpu_kernel *k = xt_kernel(p, "scale");
    xgpu_range r = xgpu_range_1d(N / 64, 64);
    /* 64.0f for xgpu_u32 n: was accepted, the kernel saw 0x42800000. */
    xgpu_arg f_for_u[] = {xgpu_arg_buffer(bx), xgpu_arg_buffer(by), xgpu_arg_f32(0.5f),
                          xgpu_arg_f32(64.0f), xgpu_arg_u32(1)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 5, f_for_u, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
             "argument 3 (xgpu_u32 n) is an integer parameter, but a floating-point argument");
    xgpu_arg u_for_f[] = {xgpu_arg_buffer(bx), xgpu_arg_buffer(by), xgpu_arg_u32(1),
                          xgpu_arg_u32(N), xgpu_arg_u32(1)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 5, u_for_f, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
             "argument 2 (float a) is a floating-point parameter, but an integer argument");
    /* i32 for u32 is accepted; raw bytes of the right size too. */
    float a = 0.75f;
    xgpu_arg ok[] = {xgpu_arg_buffer(bx), xgpu_arg_buffer(by), xgpu_arg_bytes(&a, sizeof a),
                     xgpu_arg_i32(N), xgpu_arg_u32(2)};
    XT_OK(xgpu_launch(xt.queue, k, &r, 5, ok, NULL));
    check_scale(by, x, 0.75f, 2);
    xgpu_arg raw_wrong_size[] = {xgpu_arg_buffer(bx), xgpu_arg_buffer(by), xgpu_arg_bytes(&a, 2),
                                 xgpu_arg_u32(N), xgpu_arg_u32(2)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 5, raw_wrong_size, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
             "takes 4 bytes, 2 given");
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_program_release(p));
    XT_OK(xgpu_buffer_release(bx));
    XT_OK(xgpu_buffer_release(by));
}

/* Local memory sizes that wrap when added were accepted, then the driver
 * aborted the process. */
static void local_memory_total_cannot_wrap(void **state) {
    (void)state;
    xgpu_program *p = xt_build(source, NULL);
    xgpu_kernel *k = xt_kernel(p, "two_locals");
    xgpu_buffer *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, 64, &b));
    xgpu_range r = xgpu_range_1d(1, 1);
    xgpu_arg args[] = {xgpu_arg_buffer(b), xgpu_arg_local(SIZE_MAX / 2 + 1),
                       xgpu_arg_local(SIZE_MAX / 2 + 1)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 3, args, NULL), XGPU_ERROR_INVALID_LAUNCH, NULL);
    xgpu_arg huge_one[] = {xgpu_arg_buffer(b), xgpu_arg_local(SIZE_MAX), xgpu_arg_local(16)};
    XT_FAILS(xgpu_launch(xt.queue, k, &r, 3, huge_one, NULL), XGPU_ERROR_INVALID_LAUNCH, NULL);
    XT_OK(xgpu_buffer_release(b));
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_program_release(p));
}

/* A kernel whose signature the core cannot read: the count comes from the
 * backend, or the launch is refused. Never the previous launch's args. */
static void unreadable_signature(void **state) {
    (void)state;
    xgpu_program *p = xt_build(source, NULL);
    xgpu_kernel *k = xt_kernel(p, "fill");
    xgpu_buffer *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, 64 * sizeof(uint32_t), &b));
    xgpu_range r = xgpu_range_1d(1, 64);
    uint32_t count = 0;
    xgpu_status st = xgpu_kernel_arg_count(k, &count);
    xgpu_arg one[] = {xgpu_arg_buffer(b)};
    if (st == XGPU_SUCCESS) {
        assert_int_equal(count, 2);
        XT_FAILS(xgpu_launch(xt.queue, k, &r, 1, one, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
                 "takes 2 argument(s), 1 given");
        XT_FAILS(xgpu_launch(xt.queue, k, &r, 0, NULL, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
                 "takes 2 argument(s), 0 given");
        /* A scalar where the kernel takes a buffer: OpenCL reports each
         * parameter's kind, so it is refused (it crashed inside pocl). */
        if (!strcmp(xt.info.backend, "opencl")) {
            xgpu_arg wrong_kind[] = {xgpu_arg_u64(0x1234567), xgpu_arg_u32(1)};
            XT_FAILS(xgpu_launch(xt.queue, k, &r, 2, wrong_kind, NULL),
                     XGPU_ERROR_INVALID_KERNEL_ARGS,
                     "argument 0 is a buffer parameter, but a scalar argument");
        }
        xgpu_arg two[] = {xgpu_arg_buffer(b), xgpu_arg_u32(0xabcdu)};
        XT_OK(xgpu_launch(xt.queue, k, &r, 2, two, NULL));
        uint32_t out[64];
        memset(out, 0, sizeof out);
        XT_OK(xgpu_buffer_read(xt.queue, b, 0, out, sizeof out, true, NULL));
        for (int i = 0; i < 64; i++) {
            assert_int_equal(out[i], 0xabcdu);
        }
    } else {
        XT_FAILS(st, XGPU_ERROR_UNSUPPORTED, "cannot count");
        XT_FAILS(xgpu_launch(xt.queue, k, &r, 1, one, NULL), XGPU_ERROR_INVALID_KERNEL_ARGS,
                 "could not be read from the source");
    }
    XT_OK(xgpu_buffer_release(b));
    XT_OK(xgpu_kernel_release(k));
    XT_OK(xgpu_program_release(p));
}

/* A context release that answers BUSY changes nothing: threads using the
 * context meanwhile never see it released (they did while the check took
 * the handle out of the registry and put it back). */
static atomic_int release_done;

static void *release_repeatedly(void *arg) {
    int *busy = arg;
    for (int i = 0; i < 20000; i++) {
        *busy += xgpu_context_release(xt.ctx) == XGPU_ERROR_BUSY;
    }
    atomic_store(&release_done, 1);
    return NULL;
}

static void busy_release_changes_nothing(void **state) {
    (void)state;
    atomic_store(&release_done, 0);
    int busy = 0;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, release_repeatedly, &busy), 0);
    int uses = 0, refused = 0;
    while (!atomic_load(&release_done)) {
        xgpu_device *dev = NULL;
        refused += xgpu_context_get_device(xt.ctx, &dev) != XGPU_SUCCESS;
        xgpu_buffer *b = NULL;
        if (xgpu_buffer_create(xt.ctx, 64, &b) == XGPU_SUCCESS) {
            refused += xgpu_buffer_release(b) != XGPU_SUCCESS;
        } else {
            refused++;
        }
        uses++;
    }
    pthread_join(t, NULL);
    assert_int_equal(busy, 20000); /* the harness's queue keeps it busy */
    if (refused) {
        fail_msg("%d of %d calls on a busy context were refused while another thread tried "
                 "to release it: %s",
                 refused, uses, xgpu_last_error()->message);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_keeps_its_program),
        cmocka_unit_test(release_while_work_is_queued),
        cmocka_unit_test(event_outlives_its_queue),
        cmocka_unit_test(stale_and_foreign_handles),
        cmocka_unit_test(scalar_argument_types),
        cmocka_unit_test(local_memory_total_cannot_wrap),
        cmocka_unit_test(unreadable_signature),
        cmocka_unit_test(busy_release_changes_nothing),
    };
    return XT_RUN("lifetimes", tests);
}
