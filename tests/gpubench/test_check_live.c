/* gpubench check live on the test device (pocl here): the short set runs
 * end to end, the saved result file is gpubench's and is judged the same
 * offline, and a CPU device with no PCI id and no reference is UNKNOWN
 * with those reasons, exit status 1. */
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

#include <cmocka.h>

static cJSON *read_json(const char *path) {
    size_t len = 0;
    char *text = xt_read_file(path, &len);
    assert_non_null(text);
    cJSON *v = cJSON_ParseWithLength(text, len);
    free(text);
    assert_non_null(v);
    return v;
}

static void live_check_on_the_test_device(void **state) {
    (void)state;
    const char *dev = getenv("XGPU_TEST_DEVICES") ? getenv("XGPU_TEST_DEVICES") : "opencl:0";
    char cmd[1024];
    remove("live-run.json");
    snprintf(cmd, sizeof cmd,
             "%s check -d %s --time 0.02 --save live-run.json --json live-verdict.json 2>&1",
             GPUBENCH, dev);
    int status = -1;
    char *out = xt_run_command(cmd, &status);
    assert_non_null(out);
    if (status != 1 || !strstr(out, "UNKNOWN")) {
        fail_msg("status %d, output:\n%s", status, out);
    }
    free(out);
    cJSON *v = read_json("live-verdict.json");
    cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(v, "devices"), 0);
    assert_non_null(d);
    assert_string_equal(cJSON_GetObjectItem(d, "verdict")->valuestring, "UNKNOWN");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(d, "model")));
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(d, "reasons"));
    assert_non_null(strstr(text, "reference.none"));
    assert_non_null(strstr(text, "no PCI id"));
    free(text);
    /* The figures the rules need were measured, each with a value. */
    const char *need[] = {"bandwidth", "gemm", "gemm.xgpu", "transfer", "launch"};
    cJSON *figs = cJSON_GetObjectItem(d, "figures");
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++) {
        bool found = false;
        cJSON *g;
        cJSON_ArrayForEach(g, figs) {
            if (!strcmp(cJSON_GetObjectItem(g, "name")->valuestring, need[k])) {
                found = cJSON_IsNumber(cJSON_GetObjectItem(g, "value"));
            }
        }
        if (!found) {
            fail_msg("no measured figure %s", need[k]);
        }
    }
    cJSON_Delete(v);
    /* The saved run is a gpubench result file whose rows all verified. */
    v = read_json("live-run.json");
    assert_string_equal(cJSON_GetObjectItem(v, "schema")->valuestring, "xgpu.gpubench/1");
    cJSON *r;
    int rows = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(v, "results")) {
        rows++;
        if (!cJSON_IsTrue(cJSON_GetObjectItem(r, "verified"))) {
            fail_msg("row %d did not verify: %s", rows,
                     cJSON_GetObjectItem(r, "note")->valuestring);
        }
    }
    assert_true(rows >= 5);
    /* One health object per device, read under load by the transfers. */
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(v, "health")), 1);
    cJSON_Delete(v);
    /* Judged again offline: the same verdict. */
    snprintf(cmd, sizeof cmd, "%s check live-run.json >/dev/null 2>&1", GPUBENCH);
    out = xt_run_command(cmd, &status);
    free(out);
    assert_int_equal(status, 1);
}

/* The same device with a fake NVML serving it: a link that trains to
 * Gen3 x8 under load on a Gen5 x16 card, persistence off and a row remap
 * pending. Those rules need no reference: DEGRADED, each reason named. */
static void live_check_with_a_degraded_link(void **state) {
    (void)state;
#ifdef FAKE_NVML
    const char *dev = getenv("XGPU_TEST_DEVICES") ? getenv("XGPU_TEST_DEVICES") : "opencl:0";
    setenv("XGPU_NVML_LIBRARY", FAKE_NVML, 1);
    setenv("XGPU_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    setenv("XGPU_TELEMETRY_MATCH", "index:0", 1);
    setenv("FAKE_NVML_PCIE_GEN", "1,3", 1);
    setenv("FAKE_NVML_PCIE_WIDTH", "1,8", 1);
    setenv("FAKE_NVML_PCIE_MAX", "5,16", 1);
    setenv("FAKE_NVML_PERSISTENCE", "0", 1);
    setenv("FAKE_NVML_REMAPPED", "0,0,1,0", 1);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s check -d %s --time 0.02 --json live-degraded.json 2>&1", GPUBENCH,
             dev);
    int status = -1;
    char *out = xt_run_command(cmd, &status);
    assert_non_null(out);
    if (status != 1 || !strstr(out, "DEGRADED")) {
        fail_msg("status %d, output:\n%s", status, out);
    }
    free(out);
    cJSON *v = read_json("live-degraded.json");
    cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(v, "devices"), 0);
    assert_string_equal(cJSON_GetObjectItem(d, "verdict")->valuestring, "DEGRADED");
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(d, "reasons"));
    const char *rules[] = {"pcie.link", "persistence.off", "remap.pending", "reference.none"};
    for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++) {
        if (!strstr(text, rules[k])) {
            fail_msg("no %s in %s", rules[k], text);
        }
    }
    assert_non_null(strstr(text, "Gen3 x8 under load"));
    free(text);
    cJSON_Delete(v);
    unsetenv("XGPU_NVML_LIBRARY");
    unsetenv("XGPU_TELEMETRY_MATCH");
#else
    skip();
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(live_check_on_the_test_device),
                                       cmocka_unit_test(live_check_with_a_degraded_link)};
    return cmocka_run_group_tests_name("gpubench check live", tests, NULL, NULL);
}
