/* gpubench's GEMM in the training precisions on the test device (pocl
 * here): bf16, f16 and tf32 on the fragment kernel (XGPU_GEMM_PATH=
 * fragments, so that tf32 runs too), one GEMM and strided-batched, each
 * row verified against the host reference and naming its path, compute
 * precision, C's type and batch; a wrong element fails each of them. */
#define _POSIX_C_SOURCE 200809L
#include "xt_file.h"

#include <cjson/cJSON.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define JSON "gb-precisions.json"

/* gpubench -b gemm with `args` (after `env`); the parsed file (to delete). */
static cJSON *run(const char *env, const char *args, int want_status) {
    char cmd[1024];
    int status = 0;
    unlink(JSON);
    snprintf(cmd, sizeof cmd,
             "%s XGPU_GEMM_PATH=fragments %s -b gemm %s --reps 2 --json " JSON " 2>&1", env,
             GPUBENCH, args);
    char *out = xt_run_command(cmd, &status);
    assert_non_null(out);
    if (status != want_status) {
        fail_msg("%s: status %d, want %d\n%s", cmd, status, want_status, out);
    }
    free(out);
    char *text = xt_read_file(JSON, NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    return root;
}

static const char *str(const cJSON *r, const char *key) {
    const cJSON *v = cJSON_GetObjectItem(r, key);
    if (!cJSON_IsString(v)) {
        fail_msg("row lacks the string %s", key);
    }
    return v->valuestring;
}

/* Every xgpu row of `root`: verified (or not, `verified`), its members as
 * the precision says; returns how many there were. */
static int xgpu_rows(const cJSON *root, bool verified, int batch) {
    int n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results")) {
        if (strcmp(str(r, "impl"), "xgpu") != 0) {
            continue;
        }
        n++;
        const char *dt = str(r, "dtype");
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(r, "verified")), verified);
        assert_true(cJSON_IsNumber(cJSON_GetObjectItem(r, "median_s")));
        assert_string_equal(str(r, "path"), "fragments");
        assert_string_equal(str(r, "compute"), dt);
        assert_string_equal(str(r, "c_dtype"), "f32");
        assert_int_equal(cJSON_GetObjectItem(r, "batch")->valueint, batch);
        /* On SIMT lanes: read against the FP32 lanes' peak, or none. */
        assert_non_null(strstr(str(r, "peak_source"), "fp32 lanes"));
    }
    return n;
}

static void one_gemm_each(void **state) {
    (void)state;
    cJSON *root = run("", "--dtype bf16,f16,tf32 --size 72", 0);
    assert_int_equal(xgpu_rows(root, true, 1), 3);
    cJSON_Delete(root);
}

static void strided_batched(void **state) {
    (void)state;
    cJSON *root = run("", "--dtype bf16,f16,tf32 --size 40 --batch 3", 0);
    assert_int_equal(xgpu_rows(root, true, 3), 3);
    cJSON_Delete(root);
}

static void a_wrong_element_fails_each(void **state) {
    (void)state;
    cJSON *root = run("XGPU_GPUBENCH_INJECT=gemm", "--dtype bf16,f16,tf32 --size 1", 1);
    assert_int_equal(xgpu_rows(root, false, 1), 3);
    cJSON_Delete(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_gemm_each),
        cmocka_unit_test(strided_batched),
        cmocka_unit_test(a_wrong_element_fails_each),
    };
    return cmocka_run_group_tests_name("gemm_precisions", tests, NULL, NULL);
}
