/* The XGPU_* value parsers: a value is read whole or refused with a reason,
 * never half-read. */
#include "support.h"
#include "tunedb.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* XGPU_TUNE and XGPU_TUNE_BUDGET_S: the one reading the lookup, the
 * quick tune and xgpu_tune_setting_check share. */
static void tune_settings(void **state) {
    (void)state;
    static const struct {
        const char *v;
        bool ok;
        xgpu__tune_mode mode;
    } modes[] = {{NULL, true, XGPU__TUNE_ON},     {"", true, XGPU__TUNE_ON},
                 {"on", true, XGPU__TUNE_ON},     {"1", true, XGPU__TUNE_ON},
                 {"off", true, XGPU__TUNE_OFF},   {"0", true, XGPU__TUNE_OFF},
                 {"auto", true, XGPU__TUNE_AUTO}, {"autoo", false, XGPU__TUNE_ON},
                 {"Off", false, XGPU__TUNE_ON},   {"false", false, XGPU__TUNE_ON},
                 {"auto ", false, XGPU__TUNE_ON}, {"01", false, XGPU__TUNE_ON}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        xgpu__tune_mode mode = XGPU__TUNE_AUTO + 1;
        bool ok = xgpu__tune_mode_parse(modes[i].v, &mode);
        if (ok != modes[i].ok || mode != modes[i].mode) {
            fail_msg("XGPU_TUNE='%s': %s, mode %d", modes[i].v ? modes[i].v : "(unset)",
                     ok ? "taken" : "refused", (int)mode);
        }
        xgpu_status st = xgpu_tune_setting_check("XGPU_TUNE", modes[i].v);
        assert_int_equal(st, ok ? XGPU_SUCCESS : XGPU_ERROR_INVALID_ARGUMENT);
        if (!ok) {
            assert_non_null(strstr(xgpu_last_error()->message, "is not one of on, off, auto"));
            assert_non_null(strstr(xgpu_last_error()->message, modes[i].v));
        }
    }
    static const struct {
        const char *v;
        bool ok;
        double s;
    } budgets[] = {{NULL, true, 3},   {"", true, 3},     {"0.5", true, 0.5}, {"600", true, 600},
                   {"2e1", true, 20}, {"0", false, 3},   {"-1", false, 3},   {"600.5", false, 3},
                   {"10s", false, 3}, {"nan", false, 3}, {"inf", false, 3},  {" ", false, 3}};
    for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
        double s = -7;
        bool ok = xgpu__tune_budget_parse(budgets[i].v, &s);
        if (ok != budgets[i].ok || s != budgets[i].s) {
            fail_msg("XGPU_TUNE_BUDGET_S='%s': %s, %g s", budgets[i].v ? budgets[i].v : "(unset)",
                     ok ? "taken" : "refused", s);
        }
        xgpu_status st = xgpu_tune_setting_check("XGPU_TUNE_BUDGET_S", budgets[i].v);
        assert_int_equal(st, ok ? XGPU_SUCCESS : XGPU_ERROR_INVALID_ARGUMENT);
        if (!ok) {
            assert_non_null(strstr(xgpu_last_error()->message, "in (0, 600]; 3 is used"));
        }
    }
    assert_int_equal(xgpu_tune_setting_check(NULL, "on"), XGPU_ERROR_INVALID_ARGUMENT);
    assert_int_equal(xgpu_tune_setting_check("XGPU_TUNE_DB", "x"), XGPU_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(xgpu_last_error()->message, "is not a tuning variable"));
}

static void backend_lists(void **state) {
    (void)state;
    xgpu__backend_list l;
    char why[256];
    assert_true(xgpu__backend_list_parse("opencl", &l, why, sizeof why));
    assert_int_equal(l.count, 1);
    assert_string_equal(l.names[0], "opencl");
    assert_true(xgpu__backend_list_parse(" cuda, ,opencl hip ", &l, why, sizeof why));
    assert_int_equal(l.count, 3);
    assert_string_equal(l.names[2], "hip");
    assert_true(xgpu__backend_list_has(&l, "cuda"));
    assert_false(xgpu__backend_list_has(&l, "cud"));
    assert_true(xgpu__backend_list_has(NULL, "anything"));
    /* Refused, with a reason. */
    assert_false(xgpu__backend_list_parse("", &l, why, sizeof why));
    assert_non_null(strstr(why, "names no backend"));
    assert_false(xgpu__backend_list_parse(" , ,", &l, why, sizeof why));
    assert_false(xgpu__backend_list_parse("OpenCL", &l, why, sizeof why));
    assert_non_null(strstr(why, "'O' is not allowed"));
    assert_false(xgpu__backend_list_parse("cuda;opencl", &l, why, sizeof why));
    assert_false(xgpu__backend_list_parse("\x01", &l, why, sizeof why));
    assert_non_null(strstr(why, "byte 0x01"));
    assert_false(
        xgpu__backend_list_parse("a234567890123456789012345678901234", &l, why, sizeof why));
    assert_false(
        xgpu__backend_list_parse("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", &l, why, sizeof why));
    assert_false(xgpu__backend_list_parse(NULL, &l, NULL, 0));
}

static void gemm_params(void **state) {
    (void)state;
    xgpu_gemm_params p;
    char why[256];
    assert_true(xgpu__gemm_params_parse("128,64,16,8,4", &p, why, sizeof why));
    assert_int_equal(p.tile_m, 128);
    assert_int_equal(p.work_n, 4);
    assert_int_equal(p.vector_width, 1);
    assert_true(xgpu__gemm_params_parse("1024,1024,1024,1,1,4", &p, why, sizeof why));
    assert_int_equal(p.vector_width, 4);
    assert_int_equal(p.contiguous, 0);
    assert_true(xgpu__gemm_params_parse("64,64,16,8,16,1,1", &p, why, sizeof why));
    assert_int_equal(p.contiguous, 1);
    assert_true(xgpu__gemm_params_parse("128,128,16,8,8,4,2", &p, why, sizeof why));
    assert_int_equal(p.contiguous, XGPU_GEMM_GPU);
    assert_true(xgpu__gemm_params_parse("64,64,16,64,32,8,3", &p, why, sizeof why));
    assert_int_equal(p.contiguous, XGPU_GEMM_FRAGMENTS);
    assert_true(xgpu__gemm_params_parse("48,64,256,6,64,1,4", &p, why, sizeof why));
    assert_int_equal(p.contiguous, XGPU_GEMM_REGISTERS);
    const char *bad[] = {"",
                         "1,2,3,4,5,6,5",
                         "1,2,3,4,5,6,1,1",
                         "1,2,3,4,5,6,01",
                         "-1,-1,-1,-1,-1",
                         "1,2,3,4",
                         "1,2,3,4,5,6,7",
                         "1,2,3,4,5,6,",
                         "1,2,3,4,5,",
                         "1,2,3,4,0",
                         "1,2,3,4,1025",
                         "1,2,3,4,5x",
                         " 1,2,3,4,5",
                         "1,,3,4,5",
                         "99999999999999999999,1,1,1,1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = (xgpu_gemm_params){7, 7, 7, 7, 7, 7, 7};
        if (xgpu__gemm_params_parse(bad[i], &p, why, sizeof why)) {
            fail_msg("'%s' was accepted", bad[i]);
        }
        assert_true(why[0] != '\0');
    }
    assert_false(xgpu__gemm_params_parse(NULL, &p, NULL, 0));
}

static void whole_numbers(void **state) {
    (void)state;
    char why[96];
    uint32_t v = 0;
    assert_true(xgpu__uint_parse("1", 1, 16, &v, why, sizeof why));
    assert_int_equal(v, 1);
    assert_true(xgpu__uint_parse("16", 1, 16, &v, why, sizeof why));
    assert_int_equal(v, 16);
    static const char *const bad[] = {"",   "0",  "17", "-1",  "+4",
                                      " 4", "4 ", "4x", "0x4", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 7;
        why[0] = '\0';
        if (xgpu__uint_parse(bad[i], 1, 16, &v, why, sizeof why)) {
            fail_msg("'%s' was accepted", bad[i]);
        }
        assert_int_equal(v, 7); /* never half-read */
        assert_non_null(strstr(why, "1 to 16"));
    }
    assert_false(xgpu__uint_parse(NULL, 1, 16, &v, NULL, 0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(backend_lists),
        cmocka_unit_test(tune_settings),
        cmocka_unit_test(gemm_params),
        cmocka_unit_test(whole_numbers),
    };
    return cmocka_run_group_tests_name("env_parse", tests, NULL, NULL);
}
