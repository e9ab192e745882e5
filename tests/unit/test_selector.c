/* Parsing device selectors, without a registry. xgpu_device_select's
 * resolution is tested against stub backends in tests/loader. */
#include "internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static void indexes_and_backends(void **state) {
    (void)state;
    xgpu__selector sel;
    char err[256] = "";
    assert_true(xgpu__selector_parse("0", &sel, err, sizeof err));
    assert_false(sel.by_backend);
    assert_int_equal(sel.index, 0);
    assert_true(xgpu__selector_parse("4294967295", &sel, err, sizeof err));
    assert_false(sel.by_backend);
    assert_int_equal(sel.index, UINT32_MAX);
    assert_true(xgpu__selector_parse("opencl", &sel, err, sizeof err));
    assert_true(sel.by_backend);
    assert_string_equal(sel.backend, "opencl");
    assert_int_equal(sel.index, 0);
    assert_true(xgpu__selector_parse("cuda:12", &sel, err, sizeof err));
    assert_string_equal(sel.backend, "cuda");
    assert_int_equal(sel.index, 12);
    /* The longest name a backend can have, 31 bytes. */
    assert_true(xgpu__selector_parse("abcdefghijklmnopqrstuvwxyz01234:1", &sel, err, sizeof err));
    assert_int_equal(strlen(sel.backend), 31);
    assert_string_equal(err, "");
}

/* All digits but too large for an index: said as such (it used to fall
 * through to "no backend named '4294967296'"). */
static void too_large_an_index_is_out_of_range(void **state) {
    (void)state;
    xgpu__selector sel;
    char err[256];
    assert_false(xgpu__selector_parse("4294967296", &sel, err, sizeof err));
    assert_string_equal(err, "device index 4294967296 is out of range");
    assert_false(sel.by_backend);
    assert_false(xgpu__selector_parse("99999999999999999999999", &sel, err, sizeof err));
}

static void bad_selectors_say_why(void **state) {
    (void)state;
    static const struct {
        const char *in, *msg;
    } cases[] = {
        {NULL, "selector is empty; use an index, a backend name or backend:index"},
        {"", "selector is empty; use an index, a backend name or backend:index"},
        {":1", "':1' is not a selector (index, backend or backend:index)"},
        {"abcdefghijklmnopqrstuvwxyz012345",
         "'abcdefghijklmnopqrstuvwxyz012345' is not a selector (index, backend or backend:index)"},
        {"opencl:", "'opencl:': '' is not a device index"},
        {"opencl:x", "'opencl:x': 'x' is not a device index"},
        {"opencl:-1", "'opencl:-1': '-1' is not a device index"},
        {"opencl: 1", "'opencl: 1': ' 1' is not a device index"},
        {"opencl:1:2", "'opencl:1:2': '1:2' is not a device index"},
        {"opencl:4294967296", "'opencl:4294967296': '4294967296' is not a device index"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xgpu__selector sel;
        char err[256];
        assert_false(xgpu__selector_parse(cases[i].in, &sel, err, sizeof err));
        assert_string_equal(err, cases[i].msg);
        assert_false(sel.by_backend);
        assert_string_equal(sel.backend, "");
    }
}

static void messages_fit_the_callers_buffer(void **state) {
    (void)state;
    xgpu__selector sel;
    char err[8];
    assert_false(xgpu__selector_parse("opencl:x", &sel, err, sizeof err));
    assert_string_equal(err, "'opencl");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(indexes_and_backends),
        cmocka_unit_test(too_large_an_index_is_out_of_range),
        cmocka_unit_test(bad_selectors_say_why),
        cmocka_unit_test(messages_fit_the_callers_buffer),
    };
    return cmocka_run_group_tests_name("selector", tests, NULL, NULL);
}
