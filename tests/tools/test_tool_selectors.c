/* One selector grammar in every tool: gpuinfo and gpubench take the same
 * -d selectors, act on the devices xgpu_device_match returns for them, and
 * fail alike on the same bad ones (2 when a selector does not parse, 1
 * when a term matches nothing, the term named either way). */
#define _POSIX_C_SOURCE 200809L
#include "xt_file.h"

#include <xgpu.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

/* Each tool, cut to its fastest run; "%s" is the selector. */
static const struct {
    const char *name, *cmd;
} tools[] = {
    {"gpuinfo", GPUINFO " -d '%s'"},
    {"gpubench", GPUBENCH " -b launch --time 0.05 -d '%s'"},
};

static char *run(const char *fmt, const char *selector, int *status) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, selector);
    strncat(cmd, " 2>&1", sizeof cmd - strlen(cmd) - 1);
    char *out = xt_run_command(cmd, status);
    assert_non_null(out);
    return out;
}

/* Every tool accepts `selector` and reaches each device the API matches:
 * each one's path ("opencl:0") is in the tool's output. */
static void every_tool_reaches(const char *selector) {
    uint32_t n = 0;
    assert_int_equal(xgpu_device_match(selector, NULL, 0, &n), XGPU_SUCCESS);
    xgpu_device **devs = calloc(n, sizeof *devs);
    assert_non_null(devs);
    assert_int_equal(xgpu_device_match(selector, devs, n, &n), XGPU_SUCCESS);
    for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++) {
        int status = -1;
        char *out = run(tools[t].cmd, selector, &status);
        if (status != 0) {
            fail_msg("%s -d '%s' exited %d:\n%s", tools[t].name, selector, status, out);
        }
        for (uint32_t i = 0; i < n; i++) {
            xgpu_device_info info;
            assert_int_equal(xgpu_device_get_info(devs[i], &info, sizeof info), XGPU_SUCCESS);
            char path[64];
            snprintf(path, sizeof path, "%s:%u", info.backend, info.backend_index);
            if (!strstr(out, path)) {
                fail_msg("%s -d '%s' did not reach %s:\n%s", tools[t].name, selector, path, out);
            }
        }
        free(out);
    }
    free(devs);
}

static void every_term_kind_and_lists(void **state) {
    (void)state;
    xgpu_device *d0;
    xgpu_device_info info;
    assert_int_equal(xgpu_device_get(0, &d0), XGPU_SUCCESS);
    assert_int_equal(xgpu_device_get_info(d0, &info, sizeof info), XGPU_SUCCESS);
    char sel[128];
    every_tool_reaches("0");
    every_tool_reaches(info.backend); /* the whole backend, in every tool */
    snprintf(sel, sizeof sel, "%s:%u", info.backend, info.backend_index);
    every_tool_reaches(sel);
    snprintf(sel, sizeof sel, "%s, 0", info.backend); /* device 0 once */
    every_tool_reaches(sel);
    snprintf(sel, sizeof sel, "0,%s:0,0", info.backend);
    every_tool_reaches(sel);
    if (info.has_pci_bus_id) {
        every_tool_reaches(info.pci_bus_id);
    }
    if (info.has_uuid) {
        const uint8_t *u = info.uuid;
        snprintf(sel, sizeof sel,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                 u[14], u[15]);
        every_tool_reaches(sel);
    }
    if (!info.has_pci_bus_id || !info.has_uuid) {
        printf("tool selectors: device 0 (%s:%u) reports %s PCI bus id and %s UUID; not tested "
               "by those here\n",
               info.backend, info.backend_index, info.has_pci_bus_id ? "a" : "no",
               info.has_uuid ? "a" : "no");
    }
}

static void bad_selectors_fail_alike(void **state) {
    (void)state;
    static const struct {
        const char *selector;
        int status;
        const char *said;
    } cases[] = {
        {"opencl:x", 2, "'opencl:x': 'x' is not a device index"},
        {"0,,1", 2, "term 2 is empty"},
        {"0,1:00.0", 2, "'1:00.0' is not a PCI bus id"},
        {"GPU-12", 2, "'GPU-12' is not a UUID"},
        {"0,4000000000", 1, "no device 4000000000"},
        {"nosuchbackend", 1, "no backend named 'nosuchbackend'"},
        {"ffff:ff:1f.7", 1, "no device has PCI bus id ffff:ff:1f.7"},
        {"GPU-00000000-0000-0000-0000-000000000000", 1, "no device has UUID"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++) {
            int status = -1;
            char *out = run(tools[t].cmd, cases[c].selector, &status);
            if (status != cases[c].status || !strstr(out, cases[c].said)) {
                fail_msg("%s -d '%s': exit %d (want %d), output without '%s':\n%s", tools[t].name,
                         cases[c].selector, status, cases[c].status, cases[c].said, out);
            }
            free(out);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_term_kind_and_lists),
        cmocka_unit_test(bad_selectors_fail_alike),
    };
    return cmocka_run_group_tests_name("tool_selectors", tests, NULL, NULL);
}
