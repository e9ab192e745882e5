/* xgpu_device_match against the real registry: every device is reached by
 * each spelling the grammar gives it (index, backend, backend:index, PCI
 * bus id, UUID), lists come back in device order without duplicates, and
 * bad terms fail with the right status. Written for any machine: parts a
 * device cannot show (pocl reports no PCI bus id or UUID) are skipped with
 * a message. */
#include <xgpu.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static uint32_t ndev;

static int setup(void **state) {
    (void)state;
    if (xgpu_device_count(&ndev) != XGPU_SUCCESS || ndev == 0) {
        fprintf(stderr, "selectors: no device: %s\n", xgpu_last_error()->message);
        return -1;
    }
    return 0;
}

/* Matches `sel`, which must succeed, into devs[ndev]; returns the count. */
static uint32_t match(const char *sel, xgpu_device **devs) {
    uint32_t n = 0;
    xgpu_status st = xgpu_device_match(sel, devs, ndev, &n);
    if (st != XGPU_SUCCESS) {
        fail_msg("xgpu_device_match(\"%s\"): %s", sel, xgpu_last_error()->message);
    }
    assert_in_range(n, 1, ndev);
    for (uint32_t i = 1; i < n; i++) {
        assert_true(devs[i - 1] != devs[i]);
    }
    return n;
}

static bool contains(xgpu_device **devs, uint32_t n, const xgpu_device *d) {
    for (uint32_t i = 0; i < n; i++) {
        if (devs[i] == d) {
            return true;
        }
    }
    return false;
}

static void every_device_by_index_backend_and_path(void **state) {
    (void)state;
    xgpu_device **devs = calloc(ndev, sizeof *devs);
    assert_non_null(devs);
    for (uint32_t i = 0; i < ndev; i++) {
        xgpu_device *dev;
        xgpu_device_info info;
        assert_int_equal(xgpu_device_get(i, &dev), XGPU_SUCCESS);
        assert_int_equal(xgpu_device_get_info(dev, &info, sizeof info), XGPU_SUCCESS);
        char sel[64];
        snprintf(sel, sizeof sel, "%u", i);
        assert_int_equal(match(sel, devs), 1);
        assert_ptr_equal(devs[0], dev);
        snprintf(sel, sizeof sel, "%s:%u", info.backend, info.backend_index);
        assert_int_equal(match(sel, devs), 1);
        assert_ptr_equal(devs[0], dev);
        /* A backend: all of its devices; select takes the first of them. */
        uint32_t n = match(info.backend, devs);
        assert_true(contains(devs, n, dev));
        for (uint32_t k = 0; k < n; k++) {
            xgpu_device_info other;
            assert_int_equal(xgpu_device_get_info(devs[k], &other, sizeof other), XGPU_SUCCESS);
            assert_string_equal(other.backend, info.backend);
            assert_int_equal(other.backend_index, k);
        }
        xgpu_device *first = NULL;
        assert_int_equal(xgpu_device_select(info.backend, &first), XGPU_SUCCESS);
        assert_ptr_equal(first, devs[0]);
    }
    free(devs);
}

/* By PCI bus id and UUID: every device that reports one is found by it,
 * and all that are found share it (one GPU seen through two backends). */
static void every_device_by_pci_bus_id_and_uuid(void **state) {
    (void)state;
    xgpu_device **devs = calloc(ndev, sizeof *devs);
    assert_non_null(devs);
    uint32_t with_pci = 0, with_uuid = 0;
    for (uint32_t i = 0; i < ndev; i++) {
        xgpu_device *dev;
        xgpu_device_info info;
        assert_int_equal(xgpu_device_get(i, &dev), XGPU_SUCCESS);
        assert_int_equal(xgpu_device_get_info(dev, &info, sizeof info), XGPU_SUCCESS);
        if (info.has_pci_bus_id) {
            with_pci++;
            uint32_t n = match(info.pci_bus_id, devs);
            assert_true(contains(devs, n, dev));
            for (uint32_t k = 0; k < n; k++) {
                xgpu_device_info other;
                assert_int_equal(xgpu_device_get_info(devs[k], &other, sizeof other), XGPU_SUCCESS);
                assert_true(other.has_pci_bus_id);
            }
        }
        if (info.has_uuid) {
            with_uuid++;
            const uint8_t *u = info.uuid;
            char dashed[64], bare[64];
            snprintf(dashed, sizeof dashed,
                     "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                     u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
                     u[12], u[13], u[14], u[15]);
            snprintf(bare, sizeof bare,
                     "%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X", u[0], u[1],
                     u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                     u[14], u[15]);
            uint32_t n = match(dashed, devs);
            assert_true(contains(devs, n, dev));
            assert_int_equal(match(bare, devs), n);
            for (uint32_t k = 0; k < n; k++) {
                xgpu_device_info other;
                assert_int_equal(xgpu_device_get_info(devs[k], &other, sizeof other), XGPU_SUCCESS);
                assert_memory_equal(other.uuid, info.uuid, sizeof info.uuid);
            }
        }
    }
    if (!with_pci || !with_uuid) {
        printf("selectors: %u of %u device(s) report a PCI bus id, %u a UUID; matching by "
               "what no device reports is skipped here (tests/unit covers the parser)\n",
               with_pci, ndev, with_uuid);
    }
    free(devs);
}

/* Lists: device order whatever the order of the terms, each device once,
 * and a count that may exceed the capacity. */
static void lists_are_ordered_and_deduplicated(void **state) {
    (void)state;
    xgpu_device **devs = calloc(ndev, sizeof *devs);
    assert_non_null(devs);
    xgpu_device *d0, *last;
    xgpu_device_info info0;
    assert_int_equal(xgpu_device_get(0, &d0), XGPU_SUCCESS);
    assert_int_equal(xgpu_device_get(ndev - 1, &last), XGPU_SUCCESS);
    assert_int_equal(xgpu_device_get_info(d0, &info0, sizeof info0), XGPU_SUCCESS);

    uint32_t in_backend = match(info0.backend, devs);
    char sel[128];
    snprintf(sel, sizeof sel, "%s,0", info0.backend); /* "opencl,0": device 0 once */
    assert_int_equal(match(sel, devs), in_backend);
    assert_ptr_equal(devs[0], d0);
    snprintf(sel, sizeof sel, " %u ,\t0, %s:0 ,0", ndev - 1, info0.backend);
    uint32_t n = match(sel, devs);
    assert_int_equal(n, ndev > 1 ? 2 : 1);
    assert_ptr_equal(devs[0], d0);
    assert_ptr_equal(devs[n - 1], last);

    /* capacity 0 sizes the array; a smaller one holds the first devices. */
    uint32_t count = 0;
    assert_int_equal(xgpu_device_match(sel, NULL, 0, &count), XGPU_SUCCESS);
    assert_int_equal(count, n);
    xgpu_device *one = NULL;
    assert_int_equal(xgpu_device_match(sel, &one, 1, &count), XGPU_SUCCESS);
    assert_int_equal(count, n);
    assert_ptr_equal(one, d0);
    xgpu_device *sel_dev = NULL;
    assert_int_equal(xgpu_device_select(sel, &sel_dev), XGPU_SUCCESS);
    assert_ptr_equal(sel_dev, d0);
    free(devs);
}

static void bad_terms_fail_with_a_reason(void **state) {
    (void)state;
    static const struct {
        const char *sel;
        xgpu_status status;
        const char *said;
    } cases[] = {
        {"opencl:x", XGPU_ERROR_INVALID_ARGUMENT, "'opencl:x': 'x' is not a device index"},
        {"0,,1", XGPU_ERROR_INVALID_ARGUMENT, "term 2 is empty"},
        {"0,1:00.0", XGPU_ERROR_INVALID_ARGUMENT, "'1:00.0' is not a PCI bus id"},
        {"", XGPU_ERROR_INVALID_ARGUMENT, "selector is empty"},
        {"0,4000000000", XGPU_ERROR_NO_DEVICE, "no device 4000000000"},
        {"0,nosuchbackend", XGPU_ERROR_BACKEND_UNAVAILABLE, "no backend named 'nosuchbackend'"},
        {"ffff:ff:1f.7", XGPU_ERROR_NO_DEVICE, "no device has PCI bus id ffff:ff:1f.7"},
        {"GPU-00000000-0000-0000-0000-000000000000", XGPU_ERROR_NO_DEVICE,
         "no device has UUID GPU-00000000-0000-0000-0000-000000000000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xgpu_device *dev = (xgpu_device *)0x1;
        uint32_t n = 99;
        assert_int_equal(xgpu_device_match(cases[i].sel, &dev, 1, &n), cases[i].status);
        assert_int_equal(n, 0);
        const char *msg = xgpu_last_error()->message;
        if (!strstr(msg, cases[i].said) || strncmp(msg, "xgpu_device_match: ", 19)) {
            fail_msg("'%s': the message '%s' does not say '%s'", cases[i].sel, msg, cases[i].said);
        }
        assert_int_equal(xgpu_device_select(cases[i].sel, &dev), cases[i].status);
        assert_null(dev);
    }
    uint32_t n = 0;
    xgpu_device *dev = NULL;
    assert_int_equal(xgpu_device_match("0", NULL, 1, &n), XGPU_ERROR_INVALID_ARGUMENT);
    assert_int_equal(xgpu_device_match("0", &dev, 1, NULL), XGPU_ERROR_INVALID_ARGUMENT);
    assert_int_equal(xgpu_device_select("0", NULL), XGPU_ERROR_INVALID_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_device_by_index_backend_and_path),
        cmocka_unit_test(every_device_by_pci_bus_id_and_uuid),
        cmocka_unit_test(lists_are_ordered_and_deduplicated),
        cmocka_unit_test(bad_terms_fail_with_a_reason),
    };
    return cmocka_run_group_tests_name("selectors", tests, setup, NULL);
}
