/* XGPU_LOG's levels: only the documented words turn the log on. */
#include "core_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void levels(void **state) {
    (void)state;
    assert_int_equal(xgpu__log_level_parse("error"), XGPU_LOG_ERROR);
    assert_int_equal(xgpu__log_level_parse("warn"), XGPU_LOG_WARN);
    assert_int_equal(xgpu__log_level_parse("info"), XGPU_LOG_INFO);
    assert_int_equal(xgpu__log_level_parse("debug"), XGPU_LOG_DEBUG);
    assert_int_equal(xgpu__log_level_parse("1"), XGPU_LOG_DEBUG);
}

static void anything_else_is_silent(void **state) {
    (void)state;
    static const char *const off[] = {"",      "0",       "DEBUG", "debug ",
                                      " warn", "warning", "2",     "info\n"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        assert_int_equal(xgpu__log_level_parse(off[i]), -1);
    }
    assert_int_equal(xgpu__log_level_parse(NULL), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(levels),
        cmocka_unit_test(anything_else_is_silent),
    };
    return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
