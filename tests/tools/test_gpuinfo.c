/* gpuinfo end to end on this machine: every output mode, JSON parsed with
 * cJSON and checked against what the OpenCL API itself reports, exit
 * statuses, and no crash without backends. */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <cjson/cJSON.h>

#include "xt_file.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

/* Runs gpuinfo with `args` and the environment prefix `env`; returns its
 * output (malloc'ed) and exit status. */
static char *run(const char *env, const char *args, int *status) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s %s 2>/dev/null", env ? env : "", GPUINFO, args);
    char *out = xt_run_command(cmd, status);
    assert_non_null(out);
    return out;
}

/* Runs gpuinfo; its exit status must be `want` and its output hold `text`. */
static void expect(const char *env, const char *args, int want, const char *text) {
    int status = 0;
    char *out = run(env, args, &status);
    if (status != want || !strstr(out, text)) {
        fail_msg("%s gpuinfo %s: status %d (want %d), output without '%s':\n%s", env ? env : "",
                 args, status, want, text, out);
    }
    free(out);
}

static cJSON *field(const cJSON *obj, const char *key) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!f) {
        fail_msg("JSON key '%s' is missing", key);
    }
    return (cJSON *)f;
}

static void json_matches_the_opencl_api(void **state) {
    (void)state;
    int status = 0;
    char *out = run(NULL, "--json", &status);
    assert_int_equal(status, 0);
    cJSON *root = cJSON_Parse(out);
    if (!root) {
        fail_msg("gpuinfo --json is not valid JSON near: %.60s", cJSON_GetErrorPtr());
    }
    assert_string_equal(field(root, "schema")->valuestring, "xgpu.gpuinfo/1");

    /* The first OpenCL device as the OpenCL API reports it. */
    cl_platform_id plat;
    cl_device_id d;
    assert_int_equal(clGetPlatformIDs(1, &plat, NULL), CL_SUCCESS);
    assert_int_equal(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &d, NULL), CL_SUCCESS);
    char name[256];
    cl_uint cus = 0, clock = 0;
    cl_ulong global = 0, local = 0;
    size_t group = 0;
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof clock, &clock, NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof group, &group, NULL);

    const cJSON *dev = NULL, *devices = field(root, "devices");
    cJSON_ArrayForEach(dev, devices) {
        const cJSON *path = NULL;
        cJSON_ArrayForEach(path, field(dev, "paths")) {
            if (!strcmp(path->valuestring, "opencl:0")) {
                goto found;
            }
        }
    }
    fail_msg("no device has the path opencl:0");
found:
    assert_string_equal(field(dev, "name")->valuestring, name);
    assert_true(cJSON_IsNumber(field(dev, "compute_units")));
    assert_int_equal((cl_uint)field(dev, "compute_units")->valuedouble, cus);
    assert_int_equal((cl_uint)field(dev, "max_clock_mhz")->valuedouble, clock);
    assert_true(field(dev, "global_mem_bytes")->valuedouble == (double)global);
    assert_true(field(dev, "local_mem_bytes")->valuedouble == (double)local);
    assert_int_equal((size_t)field(dev, "max_group_size")->valuedouble, group);
    /* Every key the schema promises is present; unknown ones are null. */
    static const char *const keys[] = {"index",
                                       "backend",
                                       "paths",
                                       "vendor",
                                       "name",
                                       "arch",
                                       "compute_units",
                                       "max_clock_mhz",
                                       "global_mem_bytes",
                                       "local_mem_bytes",
                                       "max_group_size",
                                       "pci_bus_id",
                                       "uuid",
                                       "driver_version",
                                       "fp64",
                                       "fp16",
                                       "peak_fp32_gflops",
                                       "peak_mem_bandwidth_gbs"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        field(dev, keys[k]);
    }
    assert_true(cJSON_IsBool(field(dev, "fp64")));
    /* pocl reports no memory clock: the peak is unknown, and says why. */
    assert_true(cJSON_IsNull(field(dev, "peak_mem_bandwidth_gbs")));
    assert_true(cJSON_IsString(field(dev, "peak_mem_bandwidth_gbs_provenance")));

    int cuda_listed = 0;
    const cJSON *b = NULL;
    cJSON_ArrayForEach(b, field(root, "backends")) {
        field(b, "libraries");
        if (!strcmp(field(b, "name")->valuestring, "cuda")) {
            cuda_listed = 1;
            assert_true(cJSON_IsFalse(field(b, "available")));
            assert_true(strlen(field(b, "reason")->valuestring) > 10);
        }
        if (!strcmp(field(b, "name")->valuestring, "opencl")) {
            assert_true(cJSON_IsTrue(field(b, "available")));
            assert_true(cJSON_IsNull(field(b, "reason")));
            assert_true(cJSON_GetArraySize(field(b, "libraries")) >= 1);
        }
    }
    assert_true(cuda_listed);
    cJSON_Delete(root);
    free(out);
}

static void default_output_is_one_line_per_device_then_reasons(void **state) {
    (void)state;
    int status = 0;
    char *out = run(NULL, "", &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "opencl:0"));
    assert_non_null(strstr(out, "\ncuda: unavailable: "));
    assert_int_equal(out[0], '0'); /* first line: device 0 */
    free(out);
}

static void verbose_output_has_every_group(void **state) {
    (void)state;
    int status = 0;
    char *out = run(NULL, "-v", &status);
    assert_int_equal(status, 0);
    static const char *const groups[] = {"\n  identity\n", "\n  compute\n",  "\n  memory\n",
                                         "\n  limits\n",   "\n  versions\n", "\nBackends\n"};
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        if (!strstr(out, groups[g])) {
            fail_msg("-v lacks group %s", groups[g] + 1);
        }
    }
    free(out);
}

static void doctor_names_the_missing_driver_and_passes_pocl(void **state) {
    (void)state;
    int status = 0;
    char *out = run(NULL, "--doctor", &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "PASS  opencl:0"));
    assert_non_null(strstr(out, "libcuda.so.1"));
    assert_non_null(strstr(out, "install the NVIDIA driver"));
    assert_non_null(strstr(out, "/etc/OpenCL/vendors/"));
    /* The variables that lead the CUDA backend to NVRTC. */
    assert_non_null(strstr(out, "CUDA_PATH"));
    assert_non_null(strstr(out, "VIRTUAL_ENV"));
    assert_non_null(strstr(out, "CONDA_PREFIX"));
    if (getenv("XGPU_TEST_EXPECT_HIP_NO_DEVICE")) {
        /* ROCm is installed and there is no AMD GPU. */
        assert_non_null(strstr(out, "hipErrorNoDevice"));
        assert_non_null(strstr(out, "/dev/kfd"));
    }
    free(out);
    /* A value XGPU_TUNE does not know is said, one it knows is not. */
    expect("XGPU_TUNE=false", "--doctor", 0,
           "XGPU_TUNE=\"false\"\n  warn  XGPU_TUNE='false' is not one of on, off, auto (or 1, 0); "
           "the tuning database is used\n");
    expect("XGPU_TUNE_BUDGET_S=0", "--doctor", 0,
           "warn  XGPU_TUNE_BUDGET_S='0' is not a number of seconds in (0, 600]; 3 is used\n");
    expect("XGPU_TUNE=off", "--doctor", 0, "XGPU_TUNE=\"off\"\n");
}

static void no_backend_at_all_is_not_a_crash(void **state) {
    (void)state;
    int status = 0;
    char *out = run("XGPU_BACKENDS=nonsense", "--json", &status);
    assert_int_equal(status, 1);
    cJSON *root = cJSON_Parse(out);
    assert_non_null(root);
    assert_int_equal(cJSON_GetArraySize(field(root, "devices")), 0);
    cJSON_Delete(root);
    free(out);
    expect("XGPU_BACKENDS=nonsense", "--doctor", 1, "no device to test");
    expect("XGPU_BACKENDS=nonsense", "", 1, "no compute device found");
}

static void selectors_and_usage_errors(void **state) {
    (void)state;
    int status = 0;
    char *out = run(NULL, "-d opencl:0", &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "opencl:0"));
    free(out);
    out = run(NULL, "-d cuda:5", &status);
    assert_int_equal(status, 1);
    free(out);
    out = run(NULL, "--no-such-flag", &status);
    assert_int_equal(status, 2);
    free(out);
    out = run(NULL, "-d", &status);
    assert_int_equal(status, 2);
    free(out);
    out = run(NULL, "--help", &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "Exit status"));
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_matches_the_opencl_api),
        cmocka_unit_test(default_output_is_one_line_per_device_then_reasons),
        cmocka_unit_test(verbose_output_has_every_group),
        cmocka_unit_test(doctor_names_the_missing_driver_and_passes_pocl),
        cmocka_unit_test(no_backend_at_all_is_not_a_crash),
        cmocka_unit_test(selectors_and_usage_errors),
    };
    return cmocka_run_group_tests_name("gpuinfo", tests, NULL, NULL);
}
