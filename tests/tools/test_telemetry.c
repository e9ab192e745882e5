/* Telemetry against stand-ins for NVML and ROCm SMI (fake_nvml.c,
 * fake_rocm_smi.c, each built complete and lacking symbols), a made-up
 * /sys and /proc for the host CPU's clock, the sampler thread, the
 * summary's throttled verdict and its JSON, parsed with cJSON.
 *   test_telemetry                  the suite
 *   test_telemetry fraction         prints gt_clock_fraction() (ctest sets
 *                                   XGPU_THROTTLE_CLOCK_FRACTION)
 *   test_telemetry real-rocm-smi    the distribution's librocm_smi64 on a
 *                                   machine without an AMD GPU: a clean
 *                                   reason; exit 77 (skip) without it */
#define _GNU_SOURCE
#include "telemetry.h"
#include "fake_nvml_values.h"
#include "xt_tree.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static const char *const fake_vars[] = {
    "FAKE_NVML_INIT",          "FAKE_NVML_BUS",   "FAKE_NVML_UUID",      "FAKE_NVML_SM",
    "FAKE_NVML_SM_MAX",        "FAKE_NVML_MEM",   "FAKE_NVML_POWER_MW",  "FAKE_NVML_LIMIT_MW",
    "FAKE_NVML_TEMP",          "FAKE_NVML_UTIL",  "FAKE_NVML_MEM_USED",  "FAKE_NVML_REASONS",
    "FAKE_RSMI_INIT",          "FAKE_RSMI_MAJOR", "FAKE_RSMI_BUS",       "FAKE_RSMI_SCLK",
    "FAKE_RSMI_SCLK_MAX",      "FAKE_RSMI_MCLK",  "FAKE_RSMI_POWER_UW",  "FAKE_RSMI_CAP_UW",
    "FAKE_RSMI_TEMP_MC",       "FAKE_RSMI_BUSY",  "FAKE_RSMI_VRAM_USED", "XGPU_TELEMETRY_MATCH",
    "XGPU_TELEMETRY_HOST_ROOT"};

static void use_nvml(const char *variant) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/libnvidia-ml.so.1", FAKE_NVML_DIR, variant);
    setenv("XGPU_NVML_LIBRARY", path, 1);
}

/* A made-up host (XGPU_TELEMETRY_HOST_ROOT) for ROCm SMI's tests, made
 * by host_with_card and removed by reset. */
static char drm_root[PATH_MAX];

static void drm_file(const char *rel, const char *text) {
    char path[PATH_MAX];
    assert_int_equal(xt_tree_file(drm_root, rel, 0644), 0);
    assert_int_equal(xt_tree_path(drm_root, rel, path), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* A host whose /sys/class/drm has card0 of this PCI vendor ("0x1002"),
 * beside a connector and a render node that are no cards; NULL: no
 * /sys/class/drm at all. */
static void host_with_card(const char *vendor) {
    if (!drm_root[0]) {
        assert_int_equal(xt_tree_make("telemetry-drm", drm_root), 0);
    }
    setenv("XGPU_TELEMETRY_HOST_ROOT", drm_root, 1);
    if (vendor) {
        drm_file("sys/class/drm/card0-DP-1/device/vendor", "0x1002\n");
        drm_file("sys/class/drm/renderD128/device/vendor", "0x1002\n");
        drm_file("sys/class/drm/card0/device/vendor", vendor);
    }
}

/* The fake library, on a host with an AMD card. */
static void use_rsmi(const char *variant) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/librocm_smi64.so", FAKE_RSMI_DIR, variant);
    setenv("XGPU_ROCM_SMI_LIBRARY", path, 1);
    host_with_card("0x1002\n");
}

/* Every test starts with no fake value set and both libraries missing. */
static int reset(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof fake_vars / sizeof fake_vars[0]; i++) {
        unsetenv(fake_vars[i]);
    }
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("XGPU_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    if (drm_root[0]) {
        xt_tree_remove(drm_root);
        drm_root[0] = '\0';
    }
    return 0;
}

static void assert_near(double got, double want) {
    if (isnan(got) || fabs(got - want) > 1e-9 * fmax(1, fabs(want))) {
        fail_msg("got %.9g, want %.9g", got, want);
    }
}

static void assert_contains(const char *text, const char *part) {
    if (!strstr(text, part)) {
        fail_msg("'%s' does not contain '%s'", text, part);
    }
}

/* ---- reasons ---- */

static void every_reason_bit_has_its_name(void **state) {
    (void)state;
    static const struct {
        uint64_t bit;
        const char *name;
    } want[] = {{0x1, "idle"},        {0x2, "app_clocks"},      {0x4, "sw_power_cap"},
                {0x8, "hw_slowdown"}, {0x10, "sync_boost"},     {0x20, "sw_thermal"},
                {0x40, "hw_thermal"}, {0x80, "hw_power_brake"}, {0x100, "display_clocks"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_non_null(gt_reason_name(want[i].bit));
        assert_string_equal(gt_reason_name(want[i].bit), want[i].name);
    }
    assert_null(gt_reason_name(0x200));
    assert_null(gt_reason_name(0x6)); /* two bits are no one reason */
    char text[128];
    gt_reasons_text(0x24, ",", text, sizeof text);
    assert_string_equal(text, "sw_power_cap,sw_thermal");
    gt_reasons_text(0, ",", text, sizeof text);
    assert_string_equal(text, "");
}

/* ---- NVML ---- */

static void nvml_every_value(void **state) {
    (void)state;
    use_nvml("full");
    fake_nvml_values();
    setenv("FAKE_NVML_REASONS", "0x1", 1);
    gt_device *d = gt_open_ids("0000:01:00.0", NULL, "cuda:0");
    assert_non_null(d);
    assert_int_equal(gt_device_source(d), GT_SOURCE_NVML);
    assert_string_equal(gt_device_reason(d), "");
    assert_near(gt_device_max_sm_mhz(d), 1980);
    gt_sample s;
    gt_sample_now(d, &s);
    assert_near(s.v[GT_SM_CLOCK_MHZ], 1410);
    assert_near(s.v[GT_MEM_CLOCK_MHZ], 2619);
    assert_near(s.v[GT_POWER_W], 250.5);
    assert_near(s.v[GT_POWER_LIMIT_W], 700);
    assert_near(s.v[GT_TEMP_C], 61);
    assert_near(s.v[GT_UTIL_PCT], 87);
    assert_near(s.v[GT_MEM_USED_MIB], 3072);
    assert_true(isnan(s.v[GT_CPU_MHZ]));
    assert_int_equal(s.reasons, GT_REASON_IDLE);
    gt_close(d);
}

static void nvml_found_by_uuid_or_index(void **state) {
    (void)state;
    use_nvml("full");
    setenv("FAKE_NVML_UUID", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", 1);
    gt_device *d = gt_open_ids("0000:99:00.0", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "x");
    assert_int_equal(gt_device_source(d), GT_SOURCE_NVML);
    gt_close(d);
    setenv("XGPU_TELEMETRY_MATCH", "index:0", 1);
    d = gt_open_ids(NULL, NULL, "opencl:0");
    assert_int_equal(gt_device_source(d), GT_SOURCE_NVML);
    gt_close(d);
}

static void nvml_other_device_is_not_served(void **state) {
    (void)state;
    use_nvml("full");
    gt_device *d = gt_open_ids("0000:42:00.0", NULL, "cuda:3");
    assert_int_not_equal(gt_device_source(d), GT_SOURCE_NVML);
    assert_contains(gt_device_reason(d), "no NVML or ROCm SMI serves cuda:3");
    assert_contains(gt_device_reason(d), "no device with PCI bus id 0000:42:00.0");
    assert_contains(gt_device_reason(d), "6 (Not Found)");
    gt_close(d);
}

static void nvml_lacking_optional_symbols_gives_null(void **state) {
    (void)state;
    use_nvml("partial");
    fake_nvml_values();
    setenv("FAKE_NVML_REASONS", "0x20", 1); /* through the older function name */
    gt_device *d = gt_open_ids("0000:01:00.0", NULL, "cuda:0");
    assert_int_equal(gt_device_source(d), GT_SOURCE_NVML);
    assert_int_equal(gt_start(d), 0);
    gt_summary sum;
    gt_stop(d, &sum);
    assert_false(sum.r[GT_POWER_W].known); /* no nvmlDeviceGetPowerUsage */
    assert_true(sum.r[GT_POWER_LIMIT_W].known);
    assert_int_equal(sum.reasons, GT_REASON_SW_THERMAL);
    gt_close(d);
    /* A value the library cannot give (unset in the fake) is unknown too. */
    use_nvml("full");
    unsetenv("FAKE_NVML_TEMP");
    d = gt_open_ids("0000:01:00.0", NULL, "cuda:0");
    gt_sample s;
    gt_sample_now(d, &s);
    assert_true(isnan(s.v[GT_TEMP_C]));
    assert_near(s.v[GT_UTIL_PCT], 87);
    gt_close(d);
}

static void nvml_lacking_init_is_a_reason(void **state) {
    (void)state;
    use_nvml("noinit");
    gt_device *d = gt_open_ids("0000:01:00.0", NULL, "cuda:0");
    assert_int_not_equal(gt_device_source(d), GT_SOURCE_NVML);
    assert_contains(gt_device_reason(d), "libnvidia-ml.so.1 lacks nvmlInit_v2");
    gt_close(d);
}

static void nvml_init_failure_names_the_code(void **state) {
    (void)state;
    use_nvml("full");
    setenv("FAKE_NVML_INIT", "9", 1);
    gt_device *d = gt_open_ids("0000:01:00.0", NULL, "cuda:0");
    assert_int_not_equal(gt_device_source(d), GT_SOURCE_NVML);
    assert_contains(gt_device_reason(d), "nvmlInit_v2 failed: 9 (Driver Not Loaded)");
    gt_close(d);
}

static void missing_library_is_named(void **state) {
    (void)state;
    gt_device *d = gt_open_ids("0000:01:00.0", NULL, "cuda:0");
    assert_contains(gt_device_reason(d), "XGPU_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1");
    assert_contains(gt_device_reason(d), "XGPU_ROCM_SMI_LIBRARY=/nonexistent/librocm_smi64.so");
    gt_close(d);
}

/* ---- ROCm SMI ---- */

static void set_rsmi_values(void) {
    setenv("FAKE_RSMI_SCLK", "1700", 1);
    setenv("FAKE_RSMI_SCLK_MAX", "2100", 1);
    setenv("FAKE_RSMI_MCLK", "1600", 1);
    setenv("FAKE_RSMI_POWER_UW", "300250000", 1);
    setenv("FAKE_RSMI_CAP_UW", "560000000", 1);
    setenv("FAKE_RSMI_TEMP_MC", "55500", 1);
    setenv("FAKE_RSMI_BUSY", "93", 1);
    setenv("FAKE_RSMI_VRAM_USED", "1073741824", 1);
}

static void rsmi_values(const char *major) {
    use_rsmi("full");
    set_rsmi_values();
    setenv("FAKE_RSMI_MAJOR", major, 1);
    gt_device *d = gt_open_ids("0000:03:00.0", NULL, "hip:0");
    assert_int_equal(gt_device_source(d), GT_SOURCE_ROCM_SMI);
    assert_near(gt_device_max_sm_mhz(d), 2100);
    gt_sample s;
    gt_sample_now(d, &s);
    assert_near(s.v[GT_SM_CLOCK_MHZ], 1700);
    assert_near(s.v[GT_MEM_CLOCK_MHZ], 1600);
    assert_near(s.v[GT_POWER_W], 300.25);
    assert_near(s.v[GT_POWER_LIMIT_W], 560);
    assert_near(s.v[GT_TEMP_C], 55.5);
    assert_near(s.v[GT_UTIL_PCT], 93);
    assert_near(s.v[GT_MEM_USED_MIB], 1024);
    assert_int_equal(s.reasons, 0);
    gt_close(d);
}

static void rsmi_every_value_rocm6_layout(void **state) {
    (void)state;
    rsmi_values("6");
}

static void rsmi_every_value_rocm5_layout(void **state) {
    (void)state;
    rsmi_values("5");
}

static void rsmi_other_bus_is_not_served(void **state) {
    (void)state;
    use_rsmi("full");
    gt_device *d = gt_open_ids("0000:04:00.0", NULL, "hip:1");
    assert_int_not_equal(gt_device_source(d), GT_SOURCE_ROCM_SMI);
    assert_contains(gt_device_reason(d), "no device with PCI bus id 0000:04:00.0 (1 found)");
    gt_close(d);
}

static void rsmi_lacking_optional_symbols(void **state) {
    (void)state;
    use_rsmi("partial");
    set_rsmi_values();
    gt_device *d = gt_open_ids("0000:03:00.0", NULL, "hip:0");
    assert_int_equal(gt_device_source(d), GT_SOURCE_ROCM_SMI);
    gt_sample s;
    gt_sample_now(d, &s);
    assert_near(s.v[GT_POWER_W], 300.25); /* rsmi_dev_current_socket_power_get */
    assert_true(isnan(s.v[GT_UTIL_PCT])); /* no rsmi_dev_busy_percent_get */
    gt_close(d);
}

static void rsmi_lacking_pci_id_is_a_reason(void **state) {
    (void)state;
    use_rsmi("nopci");
    gt_device *d = gt_open_ids("0000:03:00.0", NULL, "hip:0");
    assert_int_not_equal(gt_device_source(d), GT_SOURCE_ROCM_SMI);
    assert_contains(gt_device_reason(d), "librocm_smi64.so lacks rsmi_dev_pci_id_get");
    gt_close(d);
}

static void rsmi_init_failure_names_the_code(void **state) {
    (void)state;
    use_rsmi("full");
    setenv("FAKE_RSMI_INIT", "8", 1);
    gt_device *d = gt_open_ids("0000:03:00.0", NULL, "hip:0");
    assert_int_not_equal(gt_device_source(d), GT_SOURCE_ROCM_SMI);
    assert_contains(gt_device_reason(d), "rsmi_init failed: 8 (RSMI_STATUS_INIT_ERROR");
    gt_close(d);
}

/* Without an AMD or Hygon card in /sys/class/drm, rsmi_init (which
 * writes to standard error there) is not called: the fake's would have
 * served the device. A Hygon card is served. */
static void rsmi_not_started_without_amd_card(void **state) {
    (void)state;
    use_rsmi("full");
    host_with_card("0x10de\n");
    gt_device *d = gt_open_ids("0000:03:00.0", NULL, "hip:0");
    assert_int_not_equal(gt_device_source(d), GT_SOURCE_ROCM_SMI);
    assert_contains(gt_device_reason(d), "librocm_smi64.so: not started: no AMD or Hygon GPU");
    gt_close(d);
    host_with_card("0x1d94\n");
    d = gt_open_ids("0000:03:00.0", NULL, "hip:0");
    assert_int_equal(gt_device_source(d), GT_SOURCE_ROCM_SMI);
    gt_close(d);
}

static void rsmi_not_started_without_drm(void **state) {
    (void)state;
    use_rsmi("full");
    xt_tree_remove(drm_root);
    drm_root[0] = '\0';
    host_with_card(NULL);
    gt_device *d = gt_open_ids("0000:03:00.0", NULL, "hip:0");
    assert_int_not_equal(gt_device_source(d), GT_SOURCE_ROCM_SMI);
    assert_contains(gt_device_reason(d), "not started: /sys/class/drm does not exist");
    gt_close(d);
}

/* ---- the host CPU ---- */

static void host_clock_from_sysfs_then_cpuinfo_then_none(void **state) {
    (void)state;
    char root[PATH_MAX], path[PATH_MAX];
    assert_int_equal(xt_tree_make("telemetry-host", root), 0);
    setenv("XGPU_TELEMETRY_HOST_ROOT", root, 1);
    /* nothing at all */
    gt_device *d = gt_open_ids(NULL, NULL, "opencl:0");
    assert_int_equal(gt_device_source(d), GT_SOURCE_NONE);
    assert_contains(gt_device_reason(d), "opencl:0: it has no PCI bus id or UUID");
    gt_close(d);
    d = gt_open_host();
    assert_int_equal(gt_device_source(d), GT_SOURCE_NONE);
    gt_close(d);
    /* /proc/cpuinfo only */
    assert_int_equal(xt_tree_dir(root, "proc"), 0);
    assert_int_equal(xt_tree_path(root, "proc/cpuinfo", path), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("processor\t: 0\ncpu MHz\t\t: 1000.500\nprocessor\t: 1\ncpu MHz\t\t: 3000.500\n", f);
    fclose(f);
    d = gt_open_ids(NULL, NULL, "opencl:0");
    assert_int_equal(gt_device_source(d), GT_SOURCE_HOST);
    gt_sample s;
    gt_sample_now(d, &s);
    assert_near(s.v[GT_CPU_MHZ], 2000.5);
    assert_true(isnan(s.v[GT_SM_CLOCK_MHZ]));
    gt_close(d);
    /* cpufreq, which comes first */
    static const char *const cpus[] = {"cpu0", "cpu1", "cpufreq", "cpuidle"};
    static const char *const khz[] = {"1500000\n", "2600000\n", NULL, NULL};
    for (size_t i = 0; i < 4; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/%s/cpufreq", cpus[i]);
        assert_int_equal(xt_tree_dir(root, rel), 0);
        if (khz[i]) {
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/%s/cpufreq/scaling_cur_freq",
                     cpus[i]);
            assert_int_equal(xt_tree_path(root, rel, path), 0);
            f = fopen(path, "w");
            assert_non_null(f);
            fputs(khz[i], f);
            fclose(f);
        }
    }
    d = gt_open_host();
    assert_int_equal(gt_device_source(d), GT_SOURCE_HOST);
    assert_int_equal(gt_start(d), 0);
    gt_summary sum;
    gt_stop(d, &sum);
    assert_true(sum.r[GT_CPU_MHZ].known);
    assert_near(sum.r[GT_CPU_MHZ].median, 2050);
    assert_false(sum.r[GT_SM_CLOCK_MHZ].known);
    assert_false(sum.throttled);
    gt_close(d);
    xt_tree_remove(root);
}

/* ---- the sampler and the summary ---- */

static void sampler_keeps_start_stop_and_thread_samples(void **state) {
    (void)state;
    use_nvml("full");
    fake_nvml_values();
    setenv("FAKE_NVML_SM", "1900", 1);
    gt_device *d = gt_open_ids("0000:01:00.0", NULL, "cuda:0");
    assert_int_equal(gt_start(d), 0);
    gt_summary sum;
    gt_stop(d, &sum); /* at once: the samples of start and stop */
    assert_int_equal(sum.samples, 2);
    assert_false(sum.throttled); /* 1900 >= 0.75 * 1980 */
    assert_string_equal(sum.throttle_why, "");
    /* The library telemetry opened, to change the clock while the sampler
     * thread reads it. */
    void *lib = dlopen(getenv("XGPU_NVML_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(lib);
    void (*set_sm)(long) = NULL;
    void *sym = dlsym(lib, "fake_nvml_set_sm");
    assert_non_null(sym);
    memcpy(&set_sm, &sym, sizeof sym);
    set_sm(1410);
    assert_int_equal(gt_start(d), 0);
    struct timespec t = {0, 450000000L};
    nanosleep(&t, NULL);
    set_sm(1900); /* the stop sample sees this */
    gt_stop(d, &sum);
    set_sm(-1);
    dlclose(lib);
    /* start, stop and the thread's ~10 Hz in between, however loaded the
     * machine */
    assert_true(sum.samples >= 3 && sum.samples <= 12);
    assert_int_equal(sum.source, GT_SOURCE_NVML);
    assert_near(sum.r[GT_SM_CLOCK_MHZ].min, 1410);
    assert_near(sum.r[GT_SM_CLOCK_MHZ].max, 1900);
    assert_near(sum.r[GT_TEMP_C].median, 61);
    assert_near(sum.sm_clock_max_mhz, 1980);
    assert_true(sum.throttled); /* 1410 < 0.75 * 1980 */
    assert_string_equal(sum.throttle_why, "SM clock 1410 MHz < 0.75 of max 1980 MHz");
    gt_close(d);
}

static gt_sample sample(double sm, uint64_t reasons) {
    gt_sample s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < GT_VALUE_COUNT; i++) {
        s.v[i] = NAN;
    }
    s.v[GT_SM_CLOCK_MHZ] = sm;
    s.reasons = reasons;
    return s;
}

static void throttled_by_each_power_or_thermal_reason(void **state) {
    (void)state;
    for (uint64_t bit = 1; bit <= 0x100; bit <<= 1) {
        gt_sample s[2] = {sample(1900, 0), sample(1900, bit)};
        gt_summary sum;
        gt_summarise(s, 2, GT_SOURCE_NVML, 1980, 0.75, &sum);
        bool want = bit == 0x4 || bit == 0x8 || bit == 0x20 || bit == 0x40 || bit == 0x80;
        if (sum.throttled != want) {
            fail_msg("reason %s: throttled %d", gt_reason_name(bit), sum.throttled);
        }
        assert_int_equal(sum.reasons, bit);
        if (want) {
            assert_string_equal(sum.throttle_why, gt_reason_name(bit));
        } else {
            assert_string_equal(sum.throttle_why, "");
        }
    }
}

static void throttled_by_clock_fraction_but_not_when_idle(void **state) {
    (void)state;
    gt_sample s[3] = {sample(1900, 0), sample(1210, 0), sample(1950, 0)};
    gt_summary sum;
    gt_summarise(s, 3, GT_SOURCE_NVML, 1980, 0.75, &sum);
    assert_true(sum.throttled);
    assert_string_equal(sum.throttle_why, "SM clock 1210 MHz < 0.75 of max 1980 MHz");
    assert_near(sum.r[GT_SM_CLOCK_MHZ].median, 1900);
    /* a lower fraction lets it pass; an idle sample does not count */
    gt_summarise(s, 3, GT_SOURCE_NVML, 1980, 0.5, &sum);
    assert_false(sum.throttled);
    s[1].reasons = GT_REASON_IDLE;
    gt_summarise(s, 3, GT_SOURCE_NVML, 1980, 0.75, &sum);
    assert_false(sum.throttled);
    /* both at once */
    s[1].reasons = GT_REASON_SW_THERMAL | GT_REASON_HW_SLOWDOWN;
    gt_summarise(s, 3, GT_SOURCE_NVML, 1980, 0.75, &sum);
    assert_true(sum.throttled);
    assert_string_equal(sum.throttle_why,
                        "hw_slowdown, sw_thermal; SM clock 1210 MHz < 0.75 of max 1980 MHz");
    /* no max clock: no clock verdict */
    s[1].reasons = 0;
    gt_summarise(s, 3, GT_SOURCE_NVML, NAN, 0.75, &sum);
    assert_false(sum.throttled);
}

static const cJSON *key(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!v) {
        fail_msg("no key '%s'", k);
    }
    return v;
}

static void json_has_the_schema(void **state) {
    (void)state;
    gt_sample s[3] = {sample(1200, GT_REASON_SW_POWER_CAP), sample(1800, 0), sample(1500, 0)};
    s[0].v[GT_POWER_W] = 690.5;
    gt_summary sum;
    gt_summarise(s, 3, GT_SOURCE_NVML, 1980, 0.75, &sum);
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    gt_write_json(f, &sum);
    fclose(f);
    cJSON *o = cJSON_Parse(buf);
    if (!o) {
        fail_msg("not JSON: %s", buf);
    }
    assert_string_equal(key(o, "source")->valuestring, "nvml");
    assert_int_equal(key(o, "samples")->valueint, 3);
    const cJSON *sm = key(o, "sm_clock_mhz");
    assert_near(key(sm, "min")->valuedouble, 1200);
    assert_near(key(sm, "median")->valuedouble, 1500);
    assert_near(key(sm, "max")->valuedouble, 1800);
    assert_near(key(key(o, "power_w"), "max")->valuedouble, 690.5);
    static const char *const nulls[] = {"mem_clock_mhz", "power_limit_w", "temp_c",
                                        "util_pct",      "mem_used_mib",  "cpu_mhz"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++) {
        if (!cJSON_IsNull(key(o, nulls[i]))) {
            fail_msg("%s is not null", nulls[i]);
        }
    }
    assert_near(key(o, "sm_clock_max_mhz")->valuedouble, 1980);
    const cJSON *reasons = key(o, "reasons");
    assert_int_equal(cJSON_GetArraySize(reasons), 1);
    assert_string_equal(cJSON_GetArrayItem(reasons, 0)->valuestring, "sw_power_cap");
    assert_true(cJSON_IsTrue(key(o, "throttled")));
    assert_string_equal(key(o, "throttle_why")->valuestring,
                        "sw_power_cap; SM clock 1200 MHz < 0.75 of max 1980 MHz");
    cJSON_Delete(o);
    free(buf);
    /* nothing known */
    gt_summarise(NULL, 0, GT_SOURCE_NONE, NAN, 0.75, &sum);
    f = open_memstream(&buf, &size);
    gt_write_json(f, &sum);
    fclose(f);
    o = cJSON_Parse(buf);
    assert_non_null(o);
    assert_string_equal(key(o, "source")->valuestring, "none");
    assert_true(cJSON_IsNull(key(o, "sm_clock_max_mhz")));
    assert_true(cJSON_IsFalse(key(o, "throttled")));
    cJSON_Delete(o);
    free(buf);
}

/* gt_open_ids with standard error caught: what the libraries wrote to it
 * into `err` (at most size - 1 bytes). */
static gt_device *open_quiet(const char *bus_id, const char *label, char *err, size_t size) {
    char path[] = "/tmp/telemetry-stderr-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    if (fd < 0 || saved < 0) {
        return NULL;
    }
    fflush(stderr);
    dup2(fd, 2);
    gt_device *d = gt_open_ids(bus_id, NULL, label);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(fd, err, size - 1, 0);
    err[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return d;
}

/* The real librocm_smi64 on a machine with no AMD GPU: it loads, and says
 * cleanly why it serves no device. On this host as it is, rsmi_init is
 * not called and nothing reaches standard error; on a made-up host with
 * an AMD card, the library is started (it reads the real sysfs) and
 * fails or finds no such device. */
static int real_rocm_smi(void) {
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    unsetenv("XGPU_ROCM_SMI_LIBRARY");
    unsetenv("XGPU_TELEMETRY_HOST_ROOT");
    char err[4096];
    gt_device *d = open_quiet("0000:03:00.0", "hip:0", err, sizeof err);
    if (!d) {
        return 1;
    }
    const char *why = gt_device_reason(d);
    printf("%s: %s\n", gt_source_name(gt_device_source(d)), why);
    int rc = 1;
    if (strstr(why, "librocm_smi64.so not found")) {
        rc = 77; /* the library is not installed */
    } else if (gt_device_source(d) == GT_SOURCE_ROCM_SMI || !strstr(why, "librocm_smi64")) {
        rc = 1;
    } else if (strstr(why, "not started: ")) {
        rc = err[0] ? 1 : 0;
        if (err[0]) {
            printf("standard error was written: %s\n", err);
        }
    } else if (strstr(why, "rsmi_init failed: ") || strstr(why, "no device with PCI bus id")) {
        rc = 0; /* a host with an AMD card in sysfs, but not this one */
    }
    gt_close(d);
    if (rc != 0) {
        return rc;
    }
    /* Started anyway, on a made-up host that has a card. */
    host_with_card("0x1002\n");
    d = open_quiet("0000:03:00.0", "hip:0", err, sizeof err);
    why = d ? gt_device_reason(d) : "";
    printf("with a card in sysfs: %s: %s\n", d ? gt_source_name(gt_device_source(d)) : "-", why);
    rc = d && gt_device_source(d) != GT_SOURCE_ROCM_SMI &&
                 (strstr(why, "rsmi_init failed: ") || strstr(why, "no device with PCI bus id"))
             ? 0
             : 1;
    gt_close(d);
    reset(NULL);
    return rc;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "fraction")) {
        printf("fraction %.3f\n", gt_clock_fraction());
        printf("fraction %.3f\n", gt_clock_fraction()); /* said once, not twice */
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "real-rocm-smi")) {
        return real_rocm_smi();
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(every_reason_bit_has_its_name, reset),
        cmocka_unit_test_setup(nvml_every_value, reset),
        cmocka_unit_test_setup(nvml_found_by_uuid_or_index, reset),
        cmocka_unit_test_setup(nvml_other_device_is_not_served, reset),
        cmocka_unit_test_setup(nvml_lacking_optional_symbols_gives_null, reset),
        cmocka_unit_test_setup(nvml_lacking_init_is_a_reason, reset),
        cmocka_unit_test_setup(nvml_init_failure_names_the_code, reset),
        cmocka_unit_test_setup(missing_library_is_named, reset),
        cmocka_unit_test_setup(rsmi_every_value_rocm6_layout, reset),
        cmocka_unit_test_setup(rsmi_every_value_rocm5_layout, reset),
        cmocka_unit_test_setup(rsmi_other_bus_is_not_served, reset),
        cmocka_unit_test_setup(rsmi_lacking_optional_symbols, reset),
        cmocka_unit_test_setup(rsmi_lacking_pci_id_is_a_reason, reset),
        cmocka_unit_test_setup(rsmi_init_failure_names_the_code, reset),
        cmocka_unit_test_setup(rsmi_not_started_without_amd_card, reset),
        cmocka_unit_test_setup(rsmi_not_started_without_drm, reset),
        cmocka_unit_test_setup(host_clock_from_sysfs_then_cpuinfo_then_none, reset),
        cmocka_unit_test_setup(sampler_keeps_start_stop_and_thread_samples, reset),
        cmocka_unit_test_setup(throttled_by_each_power_or_thermal_reason, reset),
        cmocka_unit_test_setup(throttled_by_clock_fraction_but_not_when_idle, reset),
        cmocka_unit_test_setup(json_has_the_schema, reset),
    };
    return cmocka_run_group_tests(tests, NULL, reset);
}
