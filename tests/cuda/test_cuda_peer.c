/* Copies between devices on the fake CUDA driver with two devices: the
 * direct path (cuMemcpyPeerAsync after cuCtxEnablePeerAccess) when the
 * driver says the devices are peers, the copy staged through the host when
 * it says not, a copy between CUDA and OpenCL (pocl) devices, and every
 * bad argument named. Contents are random and checked after poisoning. */
#define _POSIX_C_SOURCE 200809L
#include <xgpu.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Over two of the 4 MiB chunks a staged copy uses, and a remainder. */
enum { SIZE = (9 << 20) + 12288, OFF_SRC = 4096, OFF_DST = 8192, BYTES = SIZE - OFF_DST };

typedef struct side {
    xgpu_device *dev;
    xgpu_context *ctx;
    xgpu_queue *queue;
    xgpu_buffer *buf;
} side;

static void open_side(side *s, const char *path) {
    assert_int_equal(xgpu_device_select(path, &s->dev), XGPU_SUCCESS);
    assert_int_equal(xgpu_context_create(s->dev, &s->ctx), XGPU_SUCCESS);
    assert_int_equal(xgpu_queue_create(s->ctx, &s->queue), XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_create(s->ctx, SIZE, &s->buf), XGPU_SUCCESS);
}

static void close_side(side *s) {
    xgpu_buffer_release(s->buf);
    xgpu_queue_release(s->queue);
    xgpu_context_release(s->ctx);
}

static size_t peer_lines(void) {
    FILE *f = fopen(getenv("FAKE_CUDA_RECORD"), "r");
    size_t n = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        n += !strncmp(line, "PEER ", 5);
    }
    if (f) {
        fclose(f);
    }
    return n;
}

/* Random source, poisoned destination, one copy, then the destination
 * read back: the copied range equals the source, the rest stays poisoned. */
static void copy_and_check(side *from, side *to, xgpu_peer_path want) {
    static uint8_t src[SIZE], got[SIZE];
    uint32_t x = 0x2545f491u;
    for (size_t i = 0; i < SIZE; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        src[i] = (uint8_t)x;
    }
    uint8_t poison = 0xA5;
    assert_int_equal(xgpu_buffer_write(from->queue, from->buf, 0, src, SIZE, true, NULL),
                     XGPU_SUCCESS);
    assert_int_equal(xgpu_buffer_fill(to->queue, to->buf, 0, SIZE, &poison, 1, NULL), XGPU_SUCCESS);
    xgpu_peer_path path = want == XGPU_PEER_DIRECT ? XGPU_PEER_STAGED : XGPU_PEER_DIRECT;
    assert_int_equal(xgpu_buffer_copy_peer(from->queue, from->buf, OFF_SRC, to->queue, to->buf,
                                           OFF_DST, BYTES, &path),
                     XGPU_SUCCESS);
    assert_int_equal(path, want);
    assert_int_equal(xgpu_buffer_read(to->queue, to->buf, 0, got, SIZE, true, NULL), XGPU_SUCCESS);
    assert_memory_equal(got + OFF_DST, src + OFF_SRC, BYTES);
    for (size_t i = 0; i < OFF_DST; i++) {
        assert_int_equal(got[i], poison);
    }
}

static void peers_copy_directly(void **state) {
    (void)state;
    side a, b;
    open_side(&a, "cuda:0");
    open_side(&b, "cuda:1");
    xgpu_peer_path path = XGPU_PEER_STAGED;
    assert_int_equal(xgpu_device_peer_path(a.dev, b.dev, &path), XGPU_SUCCESS);
    assert_int_equal(path, XGPU_PEER_DIRECT);
    size_t before = peer_lines();
    copy_and_check(&a, &b, XGPU_PEER_DIRECT);
    copy_and_check(&a, &b, XGPU_PEER_DIRECT); /* access already enabled */
    copy_and_check(&b, &a, XGPU_PEER_DIRECT);
    assert_int_equal(peer_lines(), before + 3);
    close_side(&a);
    close_side(&b);
}

static void without_peer_access_the_copy_is_staged(void **state) {
    (void)state;
    setenv("FAKE_CUDA_PEER", "0", 1);
    side a, b;
    open_side(&a, "cuda:0");
    open_side(&b, "cuda:1");
    xgpu_peer_path path = XGPU_PEER_DIRECT;
    assert_int_equal(xgpu_device_peer_path(a.dev, b.dev, &path), XGPU_SUCCESS);
    assert_int_equal(path, XGPU_PEER_STAGED);
    size_t before = peer_lines();
    copy_and_check(&a, &b, XGPU_PEER_STAGED);
    assert_int_equal(peer_lines(), before);
    close_side(&a);
    close_side(&b);
    unsetenv("FAKE_CUDA_PEER");
}

/* Peers whose driver refuses to enable access (too many peers): the copy
 * is staged, and says so. */
static void refused_peer_access_stages_the_copy(void **state) {
    (void)state;
    setenv("FAKE_CUDA_PEER_REFUSE", "1", 1);
    side a, b;
    open_side(&a, "cuda:0");
    open_side(&b, "cuda:1");
    size_t before = peer_lines();
    copy_and_check(&b, &a, XGPU_PEER_STAGED);
    assert_int_equal(peer_lines(), before);
    close_side(&a);
    close_side(&b);
    unsetenv("FAKE_CUDA_PEER_REFUSE");
}

/* Two backends: always staged, both ways. */
static void cuda_and_opencl_copy_through_the_host(void **state) {
    (void)state;
    xgpu_device *ocl = NULL;
    if (xgpu_device_select("opencl:0", &ocl) != XGPU_SUCCESS) {
        skip();
    }
    side a, b;
    open_side(&a, "cuda:1");
    open_side(&b, "opencl:0");
    xgpu_peer_path path = XGPU_PEER_DIRECT;
    assert_int_equal(xgpu_device_peer_path(a.dev, b.dev, &path), XGPU_SUCCESS);
    assert_int_equal(path, XGPU_PEER_STAGED);
    copy_and_check(&a, &b, XGPU_PEER_STAGED);
    copy_and_check(&b, &a, XGPU_PEER_STAGED);
    close_side(&a);
    close_side(&b);
}

static void expect_error(xgpu_status got, xgpu_status want, const char *words) {
    assert_int_equal(got, want);
    const char *msg = xgpu_last_error()->message;
    if (!strstr(msg, words)) {
        fail_msg("expected \"%s\" in \"%s\"", words, msg);
    }
}

static void bad_arguments_are_named(void **state) {
    (void)state;
    side a, b;
    open_side(&a, "cuda:0");
    open_side(&b, "cuda:1");
    xgpu_peer_path path;
    expect_error(xgpu_device_peer_path(a.dev, b.dev, NULL), XGPU_ERROR_INVALID_ARGUMENT,
                 "path is NULL");
    expect_error(xgpu_device_peer_path(NULL, b.dev, &path), XGPU_ERROR_INVALID_HANDLE, "src");
    expect_error(xgpu_buffer_copy_peer(NULL, a.buf, 0, b.queue, b.buf, 0, 16, &path),
                 XGPU_ERROR_INVALID_HANDLE, "src_queue");
    expect_error(xgpu_buffer_copy_peer(a.queue, a.buf, 0, b.queue, NULL, 0, 16, &path),
                 XGPU_ERROR_INVALID_HANDLE, "dst");
    expect_error(xgpu_buffer_copy_peer(b.queue, a.buf, 0, b.queue, b.buf, 0, 16, &path),
                 XGPU_ERROR_INVALID_ARGUMENT, "src belongs to another context than src_queue");
    expect_error(xgpu_buffer_copy_peer(a.queue, a.buf, 0, a.queue, b.buf, 0, 16, &path),
                 XGPU_ERROR_INVALID_ARGUMENT, "dst belongs to another context than dst_queue");
    expect_error(xgpu_buffer_copy_peer(a.queue, a.buf, 0, b.queue, b.buf, 0, 0, &path),
                 XGPU_ERROR_INVALID_SIZE, "size is 0");
    expect_error(xgpu_buffer_copy_peer(a.queue, a.buf, 16, b.queue, b.buf, 0, SIZE, &path),
                 XGPU_ERROR_OUT_OF_RANGE, "src range");
    expect_error(xgpu_buffer_copy_peer(a.queue, a.buf, 0, b.queue, b.buf, SIZE, 1, &path),
                 XGPU_ERROR_OUT_OF_RANGE, "dst range");
    expect_error(xgpu_buffer_copy_peer(a.queue, a.buf, 0, a.queue, a.buf, 8, 16, &path),
                 XGPU_ERROR_INVALID_ARGUMENT, "overlap");
    close_side(&a);
    close_side(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(peers_copy_directly),
        cmocka_unit_test(without_peer_access_the_copy_is_staged),
        cmocka_unit_test(refused_peer_access_stages_the_copy),
        cmocka_unit_test(cuda_and_opencl_copy_through_the_host),
        cmocka_unit_test(bad_arguments_are_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
