/* The core's fill for patterns a backend does not fill itself: one chunk
 * written from the host, then doubled by device copies, so host memory
 * stays bounded whatever the fill's size. Checked with a fake backend
 * whose "device" is host memory. */
#include "core_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static unsigned char *device; /* the fake buffer */
static size_t writes, copies, largest_write;

static xgpu_status fake_write(void *q, void *b, size_t off, const void *src, size_t n, bool bl,
                              void **e) {
    (void)q, (void)b, (void)bl, (void)e;
    memcpy(device + off, src, n);
    writes++;
    largest_write = n > largest_write ? n : largest_write;
    return XGPU_SUCCESS;
}

static xgpu_status fake_copy(void *q, void *s, size_t so, void *d, size_t dof, size_t n, void **e) {
    (void)q, (void)s, (void)d, (void)e;
    assert_true(so + n <= dof || dof + n <= so); /* the hook's contract: no overlap */
    memcpy(device + dof, device + so, n);
    copies++;
    return XGPU_SUCCESS;
}

static void fill_and_check(size_t offset, size_t size, size_t pattern_size) {
    const xgpu_backend_ops ops = {.buffer_write = fake_write, .buffer_copy = fake_copy};
    size_t total = offset + size + 64;
    device = malloc(total);
    assert_non_null(device);
    memset(device, 0xa5, total); /* poison */
    unsigned char pattern[128];
    for (size_t i = 0; i < sizeof pattern; i++) {
        pattern[i] = (unsigned char)(i * 7 + 3);
    }
    writes = copies = largest_write = 0;
    assert_int_equal(
        xgpu__fill_by_copies(&ops, NULL, NULL, offset, size, pattern, pattern_size, NULL),
        XGPU_SUCCESS);
    for (size_t i = 0; i < size; i++) {
        if (device[offset + i] != pattern[i % pattern_size]) {
            fail_msg("byte %zu of a %zu-byte fill with a %zu-byte pattern is wrong", i, size,
                     pattern_size);
        }
    }
    for (size_t i = 0; i < offset; i++) {
        assert_int_equal(device[i], 0xa5);
    }
    for (size_t i = offset + size; i < total; i++) {
        assert_int_equal(device[i], 0xa5);
    }
    assert_int_equal(writes, 1);
    assert_true(largest_write <= XGPU__FILL_CHUNK);
    free(device);
}

static void wide_patterns_fill_exactly(void **state) {
    (void)state;
    fill_and_check(0, 128, 128);
    fill_and_check(16, 48, 16);
    fill_and_check(256, XGPU__FILL_CHUNK, 64);
    fill_and_check(128, 3 * XGPU__FILL_CHUNK + 128, 128); /* not a power of two of chunks */
    fill_and_check(32, (size_t)40 << 20, 32);             /* 40 MiB */
}

/* A 40 MiB fill uses one 64 KiB chunk and ten copies, not 40 MiB of host
 * memory (the backends' wide fills used to allocate the whole size). */
static void host_memory_is_bounded(void **state) {
    (void)state;
    fill_and_check(0, (size_t)40 << 20, 16);
    assert_int_equal(largest_write, XGPU__FILL_CHUNK);
    assert_int_equal(copies, 10); /* 64 KiB * 2^10 > 40 MiB > 64 KiB * 2^9 */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wide_patterns_fill_exactly),
        cmocka_unit_test(host_memory_is_bounded),
    };
    return cmocka_run_group_tests_name("fill", tests, NULL, NULL);
}
