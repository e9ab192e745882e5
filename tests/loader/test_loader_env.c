/* The loader through the public API, configured by the environment that
 * CTest sets: XGPU_PLUGIN_PATH=relative/dir:<stubs>,
 * XGPU_BACKENDS=stubok,stubprobe,nosuch. */
#include <xgpu.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static void only_the_named_backends_are_listed(void **state) {
    (void)state;
    uint32_t n = 0;
    assert_int_equal(xgpu_backend_count(&n), XGPU_SUCCESS);
    assert_int_equal(n, 3);
    const char *expect[] = {"nosuch", "stubok", "stubprobe"}; /* unknown names sort by name */
    for (uint32_t i = 0; i < n; i++) {
        xgpu_backend_info bi;
        assert_int_equal(xgpu_backend_get_info(i, &bi, sizeof bi), XGPU_SUCCESS);
        assert_string_equal(bi.name, expect[i]);
        assert_int_equal(bi.available, i == 1);
    }
    xgpu_backend_info bi;
    assert_int_equal(xgpu_backend_get_info(3, &bi, sizeof bi), XGPU_ERROR_OUT_OF_RANGE);
    assert_int_equal(xgpu_backend_get_info(0, NULL, sizeof bi), XGPU_ERROR_INVALID_ARGUMENT);
    assert_int_equal(xgpu_backend_get_info(0, &bi, sizeof bi + 1), XGPU_ERROR_INVALID_SIZE);
}

static void selectors_explain_failures(void **state) {
    (void)state;
    xgpu_device *dev = NULL;
    assert_int_equal(xgpu_device_select("stubok:0", &dev), XGPU_SUCCESS);
    xgpu_device_info info;
    assert_int_equal(xgpu_device_get_info(dev, &info, sizeof info), XGPU_SUCCESS);
    assert_string_equal(info.name, "stub device 0");

    assert_int_equal(xgpu_device_select("stubprobe", &dev), XGPU_ERROR_BACKEND_UNAVAILABLE);
    assert_non_null(strstr(xgpu_last_error()->message, "libstub.so.1 not found"));
    assert_null(dev);
    assert_int_equal(xgpu_device_select("stubok:1", &dev), XGPU_ERROR_NO_DEVICE);
    assert_int_equal(xgpu_device_select("opencl", &dev), XGPU_ERROR_BACKEND_UNAVAILABLE);
    assert_non_null(strstr(xgpu_last_error()->message, "XGPU_BACKENDS"));
    assert_int_equal(xgpu_device_select("stubok:x", &dev), XGPU_ERROR_INVALID_ARGUMENT);
    assert_int_equal(xgpu_device_select("", &dev), XGPU_ERROR_INVALID_ARGUMENT);
    assert_int_equal(xgpu_device_select(NULL, &dev), XGPU_ERROR_INVALID_ARGUMENT);
    assert_int_equal(xgpu_device_select("7", &dev), XGPU_ERROR_NO_DEVICE);
    assert_non_null(strstr(xgpu_last_error()->message, "no device 7 (1 found)"));
}

/* A list fails as a whole when one term names a backend that did not
 * load: its reason, not a shorter list. */
static void a_list_fails_on_its_unavailable_term(void **state) {
    (void)state;
    xgpu_device *devs[4] = {NULL};
    uint32_t n = 99;
    assert_int_equal(xgpu_device_match("stubok, 0", devs, 4, &n), XGPU_SUCCESS);
    assert_int_equal(n, 1);
    assert_non_null(devs[0]);
    assert_int_equal(xgpu_device_match("stubok,stubprobe", devs, 4, &n),
                     XGPU_ERROR_BACKEND_UNAVAILABLE);
    assert_int_equal(n, 0);
    assert_non_null(strstr(xgpu_last_error()->message, "libstub.so.1 not found"));
    assert_int_equal(xgpu_device_match("stubok,0000:01:00.0", devs, 4, &n), XGPU_ERROR_NO_DEVICE);
    assert_non_null(strstr(xgpu_last_error()->message, "no device has PCI bus id 0000:01:00.0"));
    assert_non_null(strstr(xgpu_last_error()->message, "stubprobe: "));
}

static void backend_errors_reach_the_caller(void **state) {
    (void)state;
    xgpu_device *dev = NULL;
    assert_int_equal(xgpu_device_get(0, &dev), XGPU_SUCCESS);
    xgpu_context *ctx = (xgpu_context *)0x1;
    assert_int_equal(xgpu_context_create(dev, &ctx), XGPU_ERROR_UNSUPPORTED);
    assert_null(ctx);
    assert_string_equal(xgpu_last_error()->backend, "stubok");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(only_the_named_backends_are_listed),
        cmocka_unit_test(selectors_explain_failures),
        cmocka_unit_test(a_list_fails_on_its_unavailable_term),
        cmocka_unit_test(backend_errors_reach_the_caller),
    };
    return cmocka_run_group_tests_name("loader_env", tests, NULL, NULL);
}
