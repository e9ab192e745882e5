/* The health facts Linux gives without a vendor library (health.h):
 * sysfs's PCIe link and its speed strings, bad sysfs contents as unknown,
 * the kernel modules' version files, the kernel log's Xid lines, and the
 * JSON object: all null for a device nothing serves (pocl on a CPU),
 * valid and in the documented member order. The host tree is
 * health_machine.c's. */
#define _GNU_SOURCE
#include "health_machine.h"
#include "xt_tree.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define BUS "0000:17:00.0"

static void speed_strings(void **state) {
    (void)state;
    static const struct {
        const char *text;
        int gen;
    } cases[] = {
        {"2.5 GT/s PCIe", 1},
        {"5.0 GT/s PCIe", 2},
        {"8.0 GT/s PCIe", 3},
        {"16.0 GT/s PCIe", 4},
        {"32.0 GT/s PCIe", 5},
        {"64.0 GT/s PCIe", 6},
        {"5 GT/s", 2},
        {"2.5 GT/s\n", 1},
        {"", 0},
        {"garbage", 0},
        {"16.0", 0},
        {"12.0 GT/s PCIe", 0},
        {"Unknown", 0},
        {"nan GT/s", 0},
        {"inf GT/s", 0},
        {"-16.0 GT/s", 0},
        {"128.0 GT/s PCIe", 0},
        {"16.0 MT/s", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (gh_pcie_gen_from_speed(cases[i].text) != cases[i].gen) {
            fail_msg("'%s': gen %d, want %d", cases[i].text, gh_pcie_gen_from_speed(cases[i].text),
                     cases[i].gen);
        }
    }
    assert_int_equal(gh_pcie_gen_from_rate(8e9), 3);
    assert_int_equal(gh_pcie_gen_from_rate(0), 0);
}

/* No vendor library: the link from sysfs, the device's bus id in any
 * spelling; the kernel module's version without a library's. */
static void sysfs_link(void **state) {
    (void)state;
    hm_link(BUS, "16.0 GT/s PCIe\n", "8\n", "32.0 GT/s PCIe\n", "16\n");
    hm_put("sys/bus/pci/devices/" BUS "/vendor", "0x10de\n");
    hm_put("proc/driver/nvidia/version",
           "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  "
           "(dvs-builder@U16-I3-B03-4-3)  Thu Jan 23 22:50:37 UTC 2025\n");
    gh_device *d = gh_open_ids("0000:17:00.0", NULL, "opencl:1", GH_VENDOR_UNKNOWN);
    const gh_facts *h = gh_device_facts(d);
    assert_int_equal(h->source, GH_SOURCE_SYSFS);
    assert_int_equal(h->pcie.source, GH_SOURCE_SYSFS);
    assert_int_equal(h->vendor, GH_VENDOR_NVIDIA);
    hm_assert_num(h->pcie.current_gen, 4);
    hm_assert_num(h->pcie.current_width, 8);
    hm_assert_num(h->pcie.max_gen, 5);
    hm_assert_num(h->pcie.max_width, 16);
    assert_string_equal(h->driver.kernel_module, "570.86.15");
    assert_string_equal(h->driver.library, "");
    hm_assert_flag_unknown(h->driver.match);
    assert_int_equal(h->ecc.source, GH_SOURCE_NONE);
    hm_assert_unknown(h->temperature_c);
    gh_close(d);
    /* upper case, no domain: the same device */
    d = gh_open_ids("17:00.0", NULL, "opencl:1", GH_VENDOR_UNKNOWN);
    assert_string_equal(gh_device_facts(d)->pci_bus_id, BUS);
    hm_assert_num(gh_device_facts(d)->pcie.current_gen, 4);
    gh_close(d);
    /* a bus id that is not one: nothing read */
    d = gh_open_ids("17:00", NULL, "opencl:1", GH_VENDOR_UNKNOWN);
    assert_string_equal(gh_device_facts(d)->pci_bus_id, "");
    assert_int_equal(gh_device_facts(d)->source, GH_SOURCE_NONE);
    gh_close(d);
}

/* Contents sysfs should not hold, each unknown rather than a number. */
static void sysfs_bad_contents(void **state) {
    (void)state;
    static const struct {
        const char *speed, *width;
    } cases[] = {
        {"garbage\n", "garbage\n"},           {"", ""},           {"Unknown\n", "0\n"},
        {"16.0 GT/s PCIe", "64\n"},           {"\x01\x02", "-8"}, {"99999 GT/s", "16 lanes"},
        {"16.0", "999999999999999999999999"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hm_link(BUS, cases[i].speed, cases[i].width, cases[i].speed, cases[i].width);
        gh_device *d = gh_open_ids(BUS, NULL, "opencl:0", GH_VENDOR_UNKNOWN);
        const gh_facts *h = gh_device_facts(d);
        bool speed_ok = i == 3; /* "16.0 GT/s PCIe" is good, its width is not */
        if (speed_ok) {
            hm_assert_num(h->pcie.current_gen, 4);
        } else {
            hm_assert_unknown(h->pcie.current_gen);
            hm_assert_unknown(h->pcie.max_gen);
        }
        hm_assert_unknown(h->pcie.current_width);
        hm_assert_unknown(h->pcie.max_width);
        assert_int_equal(h->pcie.source, speed_ok ? GH_SOURCE_SYSFS : GH_SOURCE_NONE);
        gh_close(d);
    }
    /* a folder where a file should be */
    char path[PATH_MAX];
    assert_int_equal(xt_tree_path(hm_root, "sys/bus/pci/devices/" BUS "/current_link_speed", path),
                     0);
    assert_int_equal(remove(path), 0);
    hm_put("sys/bus/pci/devices/" BUS "/current_link_speed/x", "16.0 GT/s PCIe\n");
    gh_device *d = gh_open_ids(BUS, NULL, "opencl:0", GH_VENDOR_UNKNOWN);
    hm_assert_unknown(gh_device_facts(d)->pcie.current_gen);
    gh_close(d);
}

/* Version files: NVIDIA's NVRM line, /sys/module/<name>/version, and
 * contents that are not versions. */
static void kernel_module_versions(void **state) {
    (void)state;
    static const struct {
        const char *nvrm, *want;
    } nvrm[] = {
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 2024\n",
         "550.54.15"},
        {"garbage\n", ""},
        {"", ""},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module\n", ""},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.  x\n", ""},
    };
    for (size_t i = 0; i < sizeof nvrm / sizeof nvrm[0]; i++) {
        hm_put("proc/driver/nvidia/version", nvrm[i].nvrm);
        gh_device *d = gh_open_ids(BUS, NULL, "cuda:0", GH_VENDOR_NVIDIA);
        assert_string_equal(gh_device_facts(d)->driver.kernel_module, nvrm[i].want);
        gh_close(d);
    }
    /* no NVRM version: the module's own file */
    hm_put("proc/driver/nvidia/version", "garbage\n");
    hm_put("sys/module/nvidia/version", "535.183.01\n");
    gh_device *d = gh_open_ids(BUS, NULL, "cuda:0", GH_VENDOR_NVIDIA);
    assert_string_equal(gh_device_facts(d)->driver.kernel_module, "535.183.01");
    gh_close(d);
    static const struct {
        const char *text, *want;
    } amd[] = {{"6.7.0\n", "6.7.0"}, {"garbage\n", ""}, {"", ""}, {"6.7.0 extra\n", ""}};
    for (size_t i = 0; i < sizeof amd / sizeof amd[0]; i++) {
        hm_put("sys/module/amdgpu/version", amd[i].text);
        d = gh_open_ids(BUS, NULL, "hip:0", GH_VENDOR_AMD);
        assert_string_equal(gh_device_facts(d)->driver.kernel_module, amd[i].want);
        gh_close(d);
    }
}

/* /dev/kmsg: Xid lines counted when it reads, said when it does not. */
static void xid_lines(void **state) {
    (void)state;
    gh_device *d = gh_open_ids(BUS, NULL, "cuda:0", GH_VENDOR_NVIDIA);
    hm_assert_flag(gh_device_facts(d)->xid.readable, false);
    assert_non_null(strstr(gh_device_facts(d)->xid.why, "/dev/kmsg: "));
    gh_close(d);
    /* a log longer than one read, with a line across reads */
    size_t size = 3 * 8192;
    char *log = malloc(size + 1);
    assert_non_null(log);
    memset(log, 'x', size);
    log[size] = '\0';
    memcpy(log + 100, "\nNVRM: Xid 79\n", 14);
    memcpy(log + 8192 - 4, "NVRM: Xid 48\n", 13);
    memcpy(log + size - 20, "NVRM: Xid 13\n", 13);
    hm_put("dev/kmsg", log);
    free(log);
    d = gh_open_ids(BUS, NULL, "cuda:0", GH_VENDOR_NVIDIA);
    hm_assert_flag(gh_device_facts(d)->xid.readable, true);
    hm_assert_num(gh_device_facts(d)->xid.count, 3);
    assert_string_equal(gh_device_facts(d)->xid.why, "");
    gh_close(d);
    /* not NVIDIA's: not read */
    d = gh_open_ids(BUS, NULL, "hip:0", GH_VENDOR_AMD);
    hm_assert_flag_unknown(gh_device_facts(d)->xid.readable);
    gh_close(d);
}

/* The members of each object, in order. */
static void assert_members(const cJSON *o, const char *const *names, size_t n) {
    const cJSON *c = o->child;
    for (size_t i = 0; i < n; i++, c = c->next) {
        if (!c || strcmp(c->string, names[i])) {
            fail_msg("member %zu: '%s', want '%s'", i, c ? c->string : "(none)", names[i]);
        }
    }
    assert_null(c);
}

static const char *const top[] = {"device",        "pci_bus_id",    "source", "pcie", "ecc",
                                  "retired_pages", "remapped_rows", "nvlink", "mig",  "persistence",
                                  "temperature_c", "driver",        "xid"};
static const char *const pcie[] = {"source",  "under_load",    "current_gen",
                                   "max_gen", "current_width", "max_width"};
static const char *const ecc[] = {"source",
                                  "enabled",
                                  "volatile_corrected",
                                  "volatile_uncorrected",
                                  "aggregate_corrected",
                                  "aggregate_uncorrected"};
static const char *const retired[] = {"source",  "single_bit", "double_bit",
                                      "pending", "reserved",   "unreservable"};
static const char *const remapped[] = {"source", "correctable", "uncorrectable", "pending",
                                       "failed"};
static const char *const nvlink[] = {"source", "links", "up"};
static const char *const mig[] = {"source", "enabled", "pending"};
static const char *const persistence[] = {"source", "enabled"};
static const char *const driver[] = {"kernel_module", "library", "match", "libcuda"};
static const char *const xid[] = {"readable", "count", "why"};
#define MEMBERS(o, names) assert_members(o, names, sizeof names / sizeof names[0])

/* pocl on a CPU: no bus id, no UUID, no vendor. Its object has every
 * group, every fact null, every source "none". */
static void json_of_a_device_nothing_serves(void **state) {
    (void)state;
    hm_use_nvml("full"); /* there, but nothing finds the device in it */
    gh_device *d = gh_open_ids(NULL, NULL, "opencl:0", GH_VENDOR_UNKNOWN);
    cJSON *o = hm_json(gh_device_facts(d));
    MEMBERS(o, top);
    assert_string_equal(hm_key(o, "device")->valuestring, "opencl:0");
    assert_true(cJSON_IsNull(hm_key(o, "pci_bus_id")));
    assert_string_equal(hm_key(o, "source")->valuestring, "none");
    assert_true(cJSON_IsNull(hm_key(o, "temperature_c")));
    struct {
        const char *name;
        const char *const *members;
        size_t n;
    } groups[] = {{"pcie", pcie, 6},
                  {"ecc", ecc, 6},
                  {"retired_pages", retired, 6},
                  {"remapped_rows", remapped, 5},
                  {"nvlink", nvlink, 3},
                  {"mig", mig, 3},
                  {"persistence", persistence, 2},
                  {"driver", driver, 4},
                  {"xid", xid, 3}};
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        const cJSON *grp = hm_key(o, groups[g].name);
        assert_true(cJSON_IsObject(grp));
        assert_members(grp, groups[g].members, groups[g].n);
        const cJSON *c;
        cJSON_ArrayForEach(c, grp) {
            if (!strcmp(c->string, "source")) {
                assert_string_equal(c->valuestring, "none");
            } else if (!strcmp(c->string, "under_load")) {
                assert_true(cJSON_IsFalse(c));
            } else if (!cJSON_IsNull(c)) {
                fail_msg("%s.%s is not null", groups[g].name, c->string);
            }
        }
    }
    cJSON_Delete(o);
    gh_close(d);
}

/* Known facts as JSON numbers, flags and strings, escaped. */
static void json_of_known_facts(void **state) {
    (void)state;
    gh_facts h;
    memset(&h, 0, sizeof h);
    snprintf(h.device, sizeof h.device, "cuda:\"0\"");
    snprintf(h.pci_bus_id, sizeof h.pci_bus_id, "0000:17:00.0");
    h.source = GH_SOURCE_NVML;
    h.pcie.source = GH_SOURCE_NVML;
    h.pcie.under_load = true;
    h.pcie.current_gen = (gh_num){true, 5};
    h.pcie.max_width = (gh_num){true, 16};
    h.ecc.enabled = (gh_flag){true, false};
    h.ecc.aggregate_corrected = (gh_num){true, 18446744073709551615ull};
    h.temperature_c = (gh_num){true, 0}; /* a known 0 is written, not null */
    snprintf(h.driver.library, sizeof h.driver.library, "550.54.15");
    h.driver.match = (gh_flag){true, false};
    h.xid.readable = (gh_flag){true, false};
    snprintf(h.xid.why, sizeof h.xid.why, "/dev/kmsg: Permission denied");
    cJSON *o = hm_json(&h);
    assert_string_equal(hm_key(o, "device")->valuestring, "cuda:\"0\"");
    assert_string_equal(hm_key(o, "source")->valuestring, "nvml");
    const cJSON *p = hm_key(o, "pcie");
    assert_true(cJSON_IsTrue(hm_key(p, "under_load")));
    assert_int_equal(hm_key(p, "current_gen")->valueint, 5);
    assert_true(cJSON_IsNull(hm_key(p, "max_gen")));
    assert_int_equal(hm_key(p, "max_width")->valueint, 16);
    assert_true(cJSON_IsFalse(hm_key(hm_key(o, "ecc"), "enabled")));
    assert_true(hm_key(hm_key(o, "ecc"), "aggregate_corrected")->valuedouble > 1.8e19);
    assert_true(cJSON_IsNumber(hm_key(o, "temperature_c")));
    assert_int_equal(hm_key(o, "temperature_c")->valueint, 0);
    const cJSON *drv = hm_key(o, "driver");
    assert_true(cJSON_IsNull(hm_key(drv, "kernel_module")));
    assert_string_equal(hm_key(drv, "library")->valuestring, "550.54.15");
    assert_true(cJSON_IsFalse(hm_key(drv, "match")));
    const cJSON *x = hm_key(o, "xid");
    assert_true(cJSON_IsFalse(hm_key(x, "readable")));
    assert_true(cJSON_IsNull(hm_key(x, "count")));
    assert_string_equal(hm_key(x, "why")->valuestring, "/dev/kmsg: Permission denied");
    cJSON_Delete(o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(speed_strings),
        cmocka_unit_test_setup_teardown(sysfs_link, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(sysfs_bad_contents, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(kernel_module_versions, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(xid_lines, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(json_of_a_device_nothing_serves, hm_setup, hm_teardown),
        cmocka_unit_test(json_of_known_facts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
