/* Buffers: round trips at odd sizes and offsets, fills, device-to-device
 * copies, ordering of asynchronous operations, many live buffers, pinned
 * host memory. Every destination is poisoned before it is written. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define POISON 0xA5

static void round_trip_odd_sizes_and_offsets(void **state) {
    (void)state;
    static const size_t sizes[] = {1, 3, 4097, (1u << 20) + 13};
    static const size_t offsets[] = {0, 1, 7, 1001};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++) {
            size_t n = sizes[si], off = offsets[oi];
            xgpu_buffer *b = NULL;
            XT_OK(xgpu_buffer_create(xt.ctx, off + n + 5, &b));
            unsigned char *src = malloc(n), *dst = malloc(n + 2);
            assert_non_null(src);
            assert_non_null(dst);
            xt_random_bytes(src, n, (uint32_t)(si * 31 + oi + 1));
            memset(dst, POISON, n + 2);
            XT_OK(xgpu_buffer_write(xt.queue, b, off, src, n, true, NULL));
            XT_OK(xgpu_buffer_read(xt.queue, b, off, dst + 1, n, true, NULL));
            assert_memory_equal(src, dst + 1, n);
            /* Nothing written outside the range asked. */
            assert_int_equal(dst[0], POISON);
            assert_int_equal(dst[n + 1], POISON);
            free(src);
            free(dst);
            XT_OK(xgpu_buffer_release(b));
        }
    }
}

static void fill_every_pattern_size(void **state) {
    (void)state;
    const size_t size = 4096 + 256;
    xgpu_buffer *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, size, &b));
    unsigned char pattern[128], *host = malloc(size), *want = malloc(size);
    assert_non_null(host);
    assert_non_null(want);
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        xt_random_bytes(pattern, ps, (uint32_t)ps);
        xt_random_bytes(want, size, (uint32_t)ps + 99);
        XT_OK(xgpu_buffer_write(xt.queue, b, 0, want, size, true, NULL));
        const size_t off = 256, len = 2048; /* multiples of every pattern size */
        XT_OK(xgpu_buffer_fill(xt.queue, b, off, len, pattern, ps, NULL));
        for (size_t i = 0; i < len; i += ps) {
            memcpy(want + off + i, pattern, ps);
        }
        memset(host, POISON, size);
        XT_OK(xgpu_buffer_read(xt.queue, b, 0, host, size, true, NULL));
        assert_memory_equal(host, want, size);
    }
    free(host);
    free(want);
    XT_OK(xgpu_buffer_release(b));
}

static void device_to_device_copy_with_offsets(void **state) {
    (void)state;
    const size_t n = 100003;
    xgpu_buffer *a = NULL, *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, n, &a));
    XT_OK(xgpu_buffer_create(xt.ctx, n, &b));
    unsigned char *src = malloc(n), *out = malloc(n), *want = malloc(n);
    assert_non_null(src);
    assert_non_null(out);
    assert_non_null(want);
    xt_random_bytes(src, n, 5);
    xt_random_bytes(want, n, 6);
    XT_OK(xgpu_buffer_write(xt.queue, a, 0, src, n, true, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, b, 0, want, n, true, NULL));
    XT_OK(xgpu_buffer_copy(xt.queue, a, 17, b, 333, 50001, NULL));
    memcpy(want + 333, src + 17, 50001);
    /* Within one buffer, non-overlapping. */
    XT_OK(xgpu_buffer_copy(xt.queue, b, 0, b, n - 1000, 1000, NULL));
    memcpy(want + n - 1000, want, 1000);
    memset(out, POISON, n);
    XT_OK(xgpu_buffer_read(xt.queue, b, 0, out, n, true, NULL));
    assert_memory_equal(out, want, n);
    free(src);
    free(out);
    free(want);
    XT_OK(xgpu_buffer_release(a));
    XT_OK(xgpu_buffer_release(b));
}

static void async_operations_run_in_order(void **state) {
    (void)state;
    const size_t n = 1u << 20;
    xgpu_buffer *a = NULL, *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, n, &a));
    XT_OK(xgpu_buffer_create(xt.ctx, n, &b));
    unsigned char *v1 = malloc(n), *v2 = malloc(n), *r1 = malloc(n), *r2 = malloc(n);
    assert_true(v1 && v2 && r1 && r2);
    xt_random_bytes(v1, n, 11);
    xt_random_bytes(v2, n, 12);
    memset(r1, POISON, n);
    memset(r2, POISON, n);
    const uint32_t fill = 0xdeadbeefu;
    /* write a, copy a->b, overwrite a, fill part of b, read both: each step
     * must see the previous one. */
    XT_OK(xgpu_buffer_write(xt.queue, a, 0, v1, n, false, NULL));
    XT_OK(xgpu_buffer_copy(xt.queue, a, 0, b, 0, n, NULL));
    XT_OK(xgpu_buffer_write(xt.queue, a, 0, v2, n, false, NULL));
    XT_OK(xgpu_buffer_fill(xt.queue, b, 0, 4096, &fill, sizeof fill, NULL));
    xgpu_event *done = NULL;
    XT_OK(xgpu_buffer_read(xt.queue, a, 0, r1, n, false, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, b, 0, r2, n, false, &done));
    assert_non_null(done);
    XT_OK(xgpu_event_wait(done));
    XT_OK(xgpu_queue_finish(xt.queue));
    assert_memory_equal(r1, v2, n);
    for (size_t i = 0; i < 4096; i += 4) {
        memcpy(v1 + i, &fill, 4);
    }
    assert_memory_equal(r2, v1, n);
    XT_OK(xgpu_event_release(done));
    free(v1);
    free(v2);
    free(r1);
    free(r2);
    XT_OK(xgpu_buffer_release(a));
    XT_OK(xgpu_buffer_release(b));
}

static void many_buffers_alive_at_once(void **state) {
    (void)state;
    enum { COUNT = 300 };
    xgpu_buffer *bufs[COUNT];
    for (int i = 0; i < COUNT; i++) {
        size_t size = 64 + (size_t)(i % 57) * 8; /* up to 512 */
        XT_OK(xgpu_buffer_create(xt.ctx, size, &bufs[i]));
        uint32_t words[128];
        for (size_t w = 0; w < size / 4; w++) {
            words[w] = (uint32_t)i * 7919u + (uint32_t)w;
        }
        XT_OK(xgpu_buffer_write(xt.queue, bufs[i], 0, words, size, true, NULL));
    }
    for (int i = COUNT - 1; i >= 0; i--) {
        size_t size = 0;
        XT_OK(xgpu_buffer_size(bufs[i], &size));
        assert_int_equal(size, 64 + (size_t)(i % 57) * 8);
        uint32_t words[128];
        memset(words, POISON, sizeof words);
        XT_OK(xgpu_buffer_read(xt.queue, bufs[i], 0, words, size, true, NULL));
        for (size_t w = 0; w < size / 4; w++) {
            assert_int_equal(words[w], (uint32_t)i * 7919u + (uint32_t)w);
        }
        XT_OK(xgpu_buffer_release(bufs[i]));
    }
}

static void pinned_host_memory_round_trip(void **state) {
    (void)state;
    const size_t n = (1u << 22) + 3;
    unsigned char *in = NULL, *out = NULL;
    XT_OK(xgpu_host_alloc(xt.ctx, n, (void **)&in));
    XT_OK(xgpu_host_alloc(xt.ctx, n, (void **)&out));
    assert_non_null(in);
    assert_non_null(out);
    xt_random_bytes(in, n, 77);
    memset(out, POISON, n);
    xgpu_buffer *b = NULL;
    XT_OK(xgpu_buffer_create(xt.ctx, n, &b));
    XT_OK(xgpu_buffer_write(xt.queue, b, 0, in, n, false, NULL));
    XT_OK(xgpu_buffer_read(xt.queue, b, 0, out, n, false, NULL));
    XT_OK(xgpu_queue_finish(xt.queue));
    assert_memory_equal(in, out, n);
    XT_OK(xgpu_buffer_release(b));
    /* Releasing the context with pinned memory alive is refused. */
    XT_FAILS(xgpu_context_release(xt.ctx), XGPU_ERROR_BUSY, "pinned host memory");
    XT_OK(xgpu_host_free(xt.ctx, in));
    XT_OK(xgpu_host_free(xt.ctx, out));
    XT_FAILS(xgpu_host_free(xt.ctx, out), XGPU_ERROR_INVALID_ARGUMENT, "not allocated");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_odd_sizes_and_offsets),
        cmocka_unit_test(fill_every_pattern_size),
        cmocka_unit_test(device_to_device_copy_with_offsets),
        cmocka_unit_test(async_operations_run_in_order),
        cmocka_unit_test(many_buffers_alive_at_once),
        cmocka_unit_test(pinned_host_memory_round_trip),
    };
    return XT_RUN("buffers", tests);
}
