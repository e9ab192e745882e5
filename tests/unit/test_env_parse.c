/* The XGPU_* value parsers: a value is read whole or refused with a reason,
 * never half-read. */
#include "support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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
        cmocka_unit_test(gemm_params),
        cmocka_unit_test(whole_numbers),
    };
    return cmocka_run_group_tests_name("env_parse", tests, NULL, NULL);
}
