/* gpubench's telemetry end to end with the stand-in NVML (fake_nvml.c)
 * serving the machine's device (XGPU_TELEMETRY_MATCH=index:0): every timed
 * result carries the "telemetry" object with the fake's values, a thermal
 * reason marks the rows THROTTLED in the table and the JSON, the host row
 * has the host CPU's clock, and the table names each device's source;
 * the "health" member has the device's facts, its PCIe link read under
 * load by the transfer benchmark, and all null where nothing serves it. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>

#include "xt_file.h"

#include <limits.h>
#include <math.h>
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

#define JSON "gb-telemetry.json"

static char *run(const char *reasons, int *status) {
    setenv("XGPU_NVML_LIBRARY", FAKE_NVML_DIR "/full/libnvidia-ml.so.1", 1);
    setenv("XGPU_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    setenv("XGPU_TELEMETRY_MATCH", "index:0", 1);
    setenv("FAKE_NVML_SM", "1800", 1);
    setenv("FAKE_NVML_SM_MAX", "1980", 1);
    setenv("FAKE_NVML_TEMP", "70", 1);
    setenv("FAKE_NVML_POWER_MW", "123000", 1);
    setenv("FAKE_NVML_REASONS", reasons, 1);
    unlink(JSON);
    char *out = xt_run_command(
        GPUBENCH " -b gemm --dtype f32 --size 32 --reps 3 --json " JSON " 2>/dev/null", status);
    assert_non_null(out);
    return out;
}

static const cJSON *key(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!v) {
        fail_msg("no key '%s'", k);
    }
    return v;
}

/* Checks every result's telemetry; returns how many device rows there were. */
static int check_results(bool throttled) {
    char *text = xt_read_file(JSON, NULL);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    int device_rows = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, key(root, "results")) {
        const cJSON *t = key(r, "telemetry");
        if (key(r, "reps")->valueint == 0) {
            assert_true(cJSON_IsNull(t)); /* not run: nothing sampled */
            continue;
        }
        assert_true(key(t, "samples")->valueint >= 2);
        if (!strcmp(key(r, "device")->valuestring, "host")) {
            const char *src = key(t, "source")->valuestring;
            assert_true(!strcmp(src, "host") || !strcmp(src, "none"));
            assert_true(cJSON_IsNull(key(t, "sm_clock_mhz")));
            assert_true(cJSON_IsFalse(key(t, "throttled")));
            continue;
        }
        device_rows++;
        assert_string_equal(key(t, "source")->valuestring, "nvml");
        assert_true(key(key(t, "sm_clock_mhz"), "median")->valuedouble == 1800);
        assert_true(key(key(t, "temp_c"), "max")->valuedouble == 70);
        assert_true(key(key(t, "power_w"), "min")->valuedouble == 123);
        assert_true(key(t, "sm_clock_max_mhz")->valuedouble == 1980);
        assert_true(cJSON_IsNull(key(t, "mem_clock_mhz")));
        assert_int_equal(cJSON_IsTrue(key(t, "throttled")), throttled);
        if (throttled) {
            assert_string_equal(key(t, "throttle_why")->valuestring, "hw_thermal");
            assert_string_equal(cJSON_GetArrayItem(key(t, "reasons"), 0)->valuestring,
                                "hw_thermal");
        } else {
            assert_string_equal(key(t, "throttle_why")->valuestring, "");
            assert_int_equal(cJSON_GetArraySize(key(t, "reasons")), 0);
        }
    }
    cJSON_Delete(root);
    free(text);
    return device_rows;
}

static void not_throttled(void **state) {
    (void)state;
    int status = -1;
    char *out = run("0", &status);
    assert_int_equal(status, 0);
    assert_null(strstr(out, "THROTTLED"));
    assert_non_null(strstr(out, "opencl:0 telemetry: nvml\n"));
    assert_true(check_results(false) >= 1);
    free(out);
}

static void throttled_rows_are_marked(void **state) {
    (void)state;
    int status = -1;
    char *out = run("0x40", &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "; THROTTLED: hw_thermal\n"));
    int rows = check_results(true);
    int marked = 0;
    for (const char *p = out; (p = strstr(p, "THROTTLED")); p++) {
        marked++;
    }
    assert_int_equal(marked, rows);
    free(out);
}

/* ---- the "health" member ---- */

/* gpubench -b `bench` with the fake NVML serving the device when `nvml`
 * (its link idle at Gen1 x1 on the first reading, Gen5 x16 from then on)
 * and an empty host tree; health[0] of its JSON, in *root (deleted by the
 * caller). */
static const cJSON *run_health(const char *bench, bool nvml, cJSON **root) {
    char tree[PATH_MAX];
    snprintf(tree, sizeof tree, "%s/gb-health-XXXXXX", HEALTH_TREE_DIR);
    assert_non_null(mkdtemp(tree));
    setenv("XGPU_TELEMETRY_HOST_ROOT", tree, 1);
    setenv("XGPU_NVML_LIBRARY", FAKE_NVML_DIR "/full/libnvidia-ml.so.1", 1);
    setenv("XGPU_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    if (nvml) {
        setenv("XGPU_TELEMETRY_MATCH", "index:0", 1);
    } else {
        unsetenv("XGPU_TELEMETRY_MATCH");
    }
    setenv("FAKE_NVML_PCIE_GEN", "1,5", 1);
    setenv("FAKE_NVML_PCIE_WIDTH", "1,16", 1);
    setenv("FAKE_NVML_PCIE_MAX", "5,16", 1);
    setenv("FAKE_NVML_PERSISTENCE", "0", 1);
    unlink(JSON);
    char cmd[512];
    snprintf(cmd, sizeof cmd, GPUBENCH " -b %s --size 1 --reps 3 --json " JSON " 2>/dev/null",
             bench);
    int status = -1;
    free(xt_run_command(cmd, &status));
    assert_int_equal(status, 0);
    assert_int_equal(rmdir(tree), 0);
    char *text = xt_read_file(JSON, NULL);
    assert_non_null(text);
    *root = cJSON_Parse(text);
    free(text);
    assert_non_null(*root);
    const cJSON *health = key(*root, "health");
    assert_int_equal(cJSON_GetArraySize(health), 1); /* the one device run */
    const cJSON *h = cJSON_GetArrayItem(health, 0);
    assert_string_equal(key(h, "device")->valuestring, "opencl:0");
    return h;
}

/* The transfer benchmark reads the link while it copies: Gen5 x16. */
static void health_link_read_under_load(void **state) {
    (void)state;
    cJSON *root;
    const cJSON *h = run_health("transfer", true, &root);
    assert_string_equal(key(h, "source")->valuestring, "nvml");
    const cJSON *pcie = key(h, "pcie");
    assert_string_equal(key(pcie, "source")->valuestring, "nvml");
    assert_true(cJSON_IsTrue(key(pcie, "under_load")));
    assert_int_equal(key(pcie, "current_gen")->valueint, 5);
    assert_int_equal(key(pcie, "current_width")->valueint, 16);
    assert_int_equal(key(pcie, "max_gen")->valueint, 5);
    assert_true(cJSON_IsFalse(key(key(h, "persistence"), "enabled")));
    cJSON_Delete(root);
}

/* Without the transfer benchmark the link is only read idle: Gen1 x1. */
static void health_link_idle_without_transfer(void **state) {
    (void)state;
    cJSON *root;
    const cJSON *pcie = key(run_health("launch", true, &root), "pcie");
    assert_true(cJSON_IsFalse(key(pcie, "under_load")));
    assert_int_equal(key(pcie, "current_gen")->valueint, 1);
    assert_int_equal(key(pcie, "current_width")->valueint, 1);
    cJSON_Delete(root);
}

/* pocl with nothing serving it: the object is there, every fact null. */
static void health_of_a_device_nothing_serves(void **state) {
    (void)state;
    cJSON *root;
    const cJSON *h = run_health("launch", false, &root);
    assert_string_equal(key(h, "source")->valuestring, "none");
    assert_true(cJSON_IsNull(key(h, "pci_bus_id")));
    assert_true(cJSON_IsNull(key(h, "temperature_c")));
    const cJSON *pcie = key(h, "pcie");
    assert_string_equal(key(pcie, "source")->valuestring, "none");
    assert_true(cJSON_IsNull(key(pcie, "current_gen")));
    assert_true(cJSON_IsNull(key(key(h, "ecc"), "enabled")));
    assert_true(cJSON_IsNull(key(key(h, "driver"), "match")));
    assert_true(cJSON_IsNull(key(key(h, "xid"), "readable")));
    cJSON_Delete(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(not_throttled),
        cmocka_unit_test(throttled_rows_are_marked),
        cmocka_unit_test(health_link_read_under_load),
        cmocka_unit_test(health_link_idle_without_transfer),
        cmocka_unit_test(health_of_a_device_nothing_serves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
