/* The OpenCL backend's reading of pocl program binaries: whole ones are
 * cached, ones that lack files of pocl's own kernel cache (a concurrent
 * compile removed program.bc while pocl serialized it) are not. */
#include "cl_pocl_binary.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static unsigned char *put(unsigned char *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) {
        *p++ = (unsigned char)(v >> (8 * i));
    }
    return p;
}

/* A version 9 binary with one root entry holding `file` of `content`
 * bytes (no entry at all when content is -1), and one kernel's bytes
 * after it; its size. */
static size_t make(unsigned char *out, uint32_t version, uint64_t flags, long content) {
    unsigned char *p = out;
    memcpy(p, "poclbin", 8);
    p += 8;
    p = put(p, 0x1234, 8);  /* device id */
    p = put(p, version, 4); /* version */
    p = put(p, 1, 4);       /* kernels */
    p = put(p, flags, 8);   /* flags */
    p = put(p, 1, 4);       /* root entries */
    memset(p, 'h', 41);     /* build hash */
    p += 41;
    if (flags & 2) {
        p = put(p, 64, 8); /* program-scope variables */
    }
    static const char name[] = "/program.bc";
    uint64_t entry = content < 0 ? 0 : 4 + (sizeof name - 1) + 4 + (uint64_t)content;
    p = put(p, entry, 8);
    if (content >= 0) {
        p = put(p, sizeof name - 1, 4);
        memcpy(p, name, sizeof name - 1);
        p += sizeof name - 1;
        p = put(p, (uint64_t)content, 4);
        memset(p, 'B', (size_t)content);
        p += content;
    }
    memset(p, 'K', 32); /* the kernel's part, not read */
    p += 32;
    return (size_t)(p - out);
}

static void whole_binaries_are_cached(void **state) {
    (void)state;
    static unsigned char b[4096];
    assert_false(ocl__pocl_binary_partial(b, make(b, 9, 0, 500)));
    assert_false(ocl__pocl_binary_partial(b, make(b, 11, 2, 500)));
    assert_false(ocl__pocl_binary_partial(b, make(b, 11, 1 | (3ull << 32), 1)));
}

static void binaries_without_program_bc_are_not(void **state) {
    (void)state;
    static unsigned char b[4096];
    /* program.bc was gone when pocl serialized: an empty root entry. */
    assert_true(ocl__pocl_binary_partial(b, make(b, 9, 0, -1)));
    /* ... or read as no bytes. */
    assert_true(ocl__pocl_binary_partial(b, make(b, 9, 0, 0)));
    assert_true(ocl__pocl_binary_partial(b, make(b, 11, 2, 0)));
    /* Cut short anywhere in the header or the entry. */
    size_t n = make(b, 9, 0, 500);
    const size_t cuts[] = {8, 20, 40, 80, 100, 300};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        assert_true(cuts[i] < n);
        assert_true(ocl__pocl_binary_partial(b, cuts[i]));
    }
}

static void other_binaries_are_left_alone(void **state) {
    (void)state;
    static unsigned char b[4096];
    assert_false(ocl__pocl_binary_partial(b, make(b, 8, 0, -1))); /* a format it does not know */
    assert_false(ocl__pocl_binary_partial(b, make(b, 12, 0, -1)));
    static const unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0};
    assert_false(ocl__pocl_binary_partial(elf, sizeof elf));
    assert_false(ocl__pocl_binary_partial("poc", 3));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_binaries_are_cached),
        cmocka_unit_test(binaries_without_program_bc_are_not),
        cmocka_unit_test(other_binaries_are_left_alone),
    };
    return cmocka_run_group_tests_name("pocl binaries", tests, NULL, NULL);
}
