/* The matrix units' dense peaks (tools/common/peaks_matrix.c) give back
 * the vendors' datasheet figures at the units and clock they were quoted
 * for, and say why where they are unknown. */
#include "peaks.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static xgpu_device_info device(const char *arch, uint32_t units, uint32_t mhz) {
    xgpu_device_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.arch, sizeof info.arch, "%s", arch);
    info.compute_units = units;
    info.max_clock_mhz = mhz;
    return info;
}

/* The peak in TFLOPS, within 0.5% of `want`. */
static void tflops(const char *arch, uint32_t units, uint32_t mhz, const char *precision,
                   double want) {
    xgpu_device_info info = device(arch, units, mhz);
    peak_figure p;
    peak_matrix(&info, precision, &p);
    if (!p.known || fabs(p.value / 1000.0 - want) > 0.005 * want) {
        fail_msg("%s %s: %s %.1f TFLOPS, the datasheet says %.1f (%s)", arch, precision,
                 p.known ? "known" : "unknown", p.value / 1000.0, want, p.provenance);
    }
    assert_non_null(strstr(p.provenance, arch));
}

static void unknown(const char *arch, uint32_t units, uint32_t mhz, const char *precision,
                    const char *says) {
    xgpu_device_info info = device(arch, units, mhz);
    peak_figure p;
    peak_matrix(&info, precision, &p);
    assert_false(p.known);
    assert_true(p.value == 0);
    if (!strstr(p.provenance, says)) {
        fail_msg("%s %s: \"%s\" lacks \"%s\"", arch, precision, p.provenance, says);
    }
}

static void datasheet_figures(void **state) {
    (void)state;
    tflops("sm_80", 108, 1410, "f16", 312); /* A100 SXM4 */
    tflops("sm_80", 108, 1410, "bf16", 312);
    tflops("sm_80", 108, 1410, "tf32", 156);
    tflops("sm_80", 108, 1410, "int8", 624);
    tflops("sm_86", 84, 1740, "f16", 149.7); /* A40 */
    tflops("sm_86", 84, 1740, "tf32", 74.8);
    tflops("sm_89", 142, 2520, "bf16", 366.4); /* L40S: 362 at its 2490 MHz */
    tflops("sm_89", 142, 2520, "fp8", 732.9);
    tflops("sm_90", 132, 1830, "bf16", 989.4); /* H100 SXM5 */
    tflops("sm_90", 132, 1830, "tf32", 494.7);
    tflops("sm_90", 132, 1830, "int8", 1979);
    tflops("gfx90a", 220, 1700, "f16", 383);                    /* MI250X */
    tflops("gfx90a:sramecc+:xnack-", 110, 1700, "bf16", 191.5); /* one GCD */
    tflops("gfx942", 304, 2100, "f16", 1307.4);                 /* MI300X */
    tflops("gfx942", 304, 2100, "tf32", 653.7);
}

static void unknown_says_why(void **state) {
    (void)state;
    unknown("sm_75", 40, 1590, "f16", "no dense f16 matrix-unit figure for sm_75");
    unknown("gfx90a", 110, 1700, "tf32", "no dense tf32");
    unknown("sm_80", 108, 1410, "fp8", "no dense fp8");
    unknown("gfx90ab", 110, 1700, "f16", "gfx90ab"); /* a prefix is not the arch */
    unknown("sm_90", 0, 1830, "bf16", "no unit count or clock");
    unknown("", 1, 1, "bf16", "this device");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(datasheet_figures),
        cmocka_unit_test(unknown_says_why),
    };
    return cmocka_run_group_tests_name("peaks", tests, NULL, NULL);
}
