/* The health facts (health.h) from the fake NVML and ROCm SMI
 * (fake_nvml.c, fake_nvml_health.c, fake_rocm_smi.c): every fact of a
 * healthy and of a degraded GPU, missing functions and unset values as
 * unknown (never 0), the fall-back to sysfs for the link, the kernel
 * module's version against the library's, and the link read under load
 * by the watch thread. The host tree is health_machine.c's. */
#define _GNU_SOURCE
#include "health_machine.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#define NVRM                                                                                       \
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:36 UTC 2024\n"
#define NVML_BUS "0000:01:00.0" /* the fake's default */
#define RSMI_BUS "0000:03:00.0"

static gh_device *open_nvidia(void) {
    gh_device *d = gh_open_ids(NVML_BUS, NULL, "cuda:0", GH_VENDOR_NVIDIA);
    assert_non_null(d);
    return d;
}

/* A Gen5 x16 card with 18 NVLinks up, ECC on, 12 old corrected errors. */
static void healthy_values(void) {
    setenv("FAKE_NVML_PCIE_GEN", "5", 1);
    setenv("FAKE_NVML_PCIE_WIDTH", "16", 1);
    setenv("FAKE_NVML_PCIE_MAX", "5,16", 1);
    setenv("FAKE_NVML_ECC", "1,1", 1);
    setenv("FAKE_NVML_ECC_ERRORS", "0,0,12,0", 1);
    setenv("FAKE_NVML_RETIRED", "0,0,0", 1);
    setenv("FAKE_NVML_REMAPPED", "0,0,0,0", 1);
    setenv("FAKE_NVML_NVLINK", "111111111111111111", 1);
    setenv("FAKE_NVML_MIG", "0,0", 1);
    setenv("FAKE_NVML_PERSISTENCE", "1", 1);
    setenv("FAKE_NVML_TEMP", "34", 1);
    setenv("FAKE_NVML_DRIVER", "550.54.15", 1);
}

static void nvml_healthy(void **state) {
    (void)state;
    hm_use_nvml("full");
    healthy_values();
    hm_put("proc/driver/nvidia/version", NVRM "GCC version:  gcc version 12.2.0\n");
    hm_put("dev/kmsg", "6,1,2,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n"
                       "4,2,3,-;NVRM: Xid (PCI:0000:01:00): 79, pid=1, GPU has fallen off\n"
                       "4,3,4,-;NVRM: Xid (PCI:0000:01:00): 48, pid=1, DBE\n");
    hm_reset_nvml_sequences();
    gh_device *d = open_nvidia();
    const gh_facts *h = gh_device_facts(d);
    assert_string_equal(h->device, "cuda:0");
    assert_string_equal(h->pci_bus_id, NVML_BUS);
    assert_int_equal(h->source, GH_SOURCE_NVML);
    assert_int_equal(h->pcie.source, GH_SOURCE_NVML);
    assert_false(h->pcie.under_load);
    hm_assert_num(h->pcie.current_gen, 5);
    hm_assert_num(h->pcie.max_gen, 5);
    hm_assert_num(h->pcie.current_width, 16);
    hm_assert_num(h->pcie.max_width, 16);
    assert_int_equal(h->ecc.source, GH_SOURCE_NVML);
    hm_assert_flag(h->ecc.enabled, true);
    hm_assert_num(h->ecc.volatile_corrected, 0);
    hm_assert_num(h->ecc.volatile_uncorrected, 0);
    hm_assert_num(h->ecc.aggregate_corrected, 12);
    hm_assert_num(h->ecc.aggregate_uncorrected, 0);
    assert_int_equal(h->retired.source, GH_SOURCE_NVML);
    hm_assert_num(h->retired.single_bit, 0);
    hm_assert_num(h->retired.double_bit, 0);
    hm_assert_flag(h->retired.pending, false);
    hm_assert_num(h->retired.reserved, 0);
    hm_assert_unknown(h->retired.unreservable);
    assert_int_equal(h->remapped.source, GH_SOURCE_NVML);
    hm_assert_num(h->remapped.correctable, 0);
    hm_assert_num(h->remapped.uncorrectable, 0);
    hm_assert_flag(h->remapped.pending, false);
    hm_assert_flag(h->remapped.failed, false);
    hm_assert_num(h->nvlink.links, 18);
    hm_assert_num(h->nvlink.up, 18);
    hm_assert_flag(h->mig.enabled, false);
    hm_assert_flag(h->mig.pending, false);
    hm_assert_flag(h->persistence.enabled, true);
    hm_assert_num(h->temperature_c, 34);
    assert_string_equal(h->driver.kernel_module, "550.54.15");
    assert_string_equal(h->driver.library, "550.54.15");
    hm_assert_flag(h->driver.match, true);
    hm_assert_flag(h->xid.readable, true);
    hm_assert_num(h->xid.count, 2);
    gh_close(d);
}

/* Gen3 x8 on a Gen5 x16 card, remaps pending, 2 of 18 NVLinks down, MIG
 * on, persistence off, ECC errors, a library newer than the module. */
static void nvml_degraded(void **state) {
    (void)state;
    hm_use_nvml("full");
    healthy_values();
    setenv("FAKE_NVML_PCIE_GEN", "3", 1);
    setenv("FAKE_NVML_PCIE_WIDTH", "8", 1);
    setenv("FAKE_NVML_ECC", "1,0", 1);
    setenv("FAKE_NVML_ECC_ERRORS", "3,1,40,2", 1);
    setenv("FAKE_NVML_RETIRED", "2,1,1", 1);
    setenv("FAKE_NVML_REMAPPED", "4,2,1,0", 1);
    setenv("FAKE_NVML_NVLINK", "111111111111111100", 1);
    setenv("FAKE_NVML_MIG", "1,1", 1);
    setenv("FAKE_NVML_PERSISTENCE", "0", 1);
    setenv("FAKE_NVML_TEMP", "91", 1);
    setenv("FAKE_NVML_DRIVER", "550.90.07", 1);
    hm_put("proc/driver/nvidia/version", NVRM);
    hm_reset_nvml_sequences();
    gh_device *d = open_nvidia();
    const gh_facts *h = gh_device_facts(d);
    hm_assert_num(h->pcie.current_gen, 3);
    hm_assert_num(h->pcie.current_width, 8);
    hm_assert_num(h->pcie.max_gen, 5);
    hm_assert_num(h->pcie.max_width, 16);
    hm_assert_num(h->ecc.volatile_corrected, 3);
    hm_assert_num(h->ecc.volatile_uncorrected, 1);
    hm_assert_num(h->ecc.aggregate_corrected, 40);
    hm_assert_num(h->ecc.aggregate_uncorrected, 2);
    hm_assert_num(h->retired.single_bit, 2);
    hm_assert_num(h->retired.double_bit, 1);
    hm_assert_num(h->retired.reserved, 3);
    hm_assert_flag(h->retired.pending, true);
    hm_assert_num(h->remapped.correctable, 4);
    hm_assert_num(h->remapped.uncorrectable, 2);
    hm_assert_flag(h->remapped.pending, true);
    hm_assert_flag(h->remapped.failed, false);
    hm_assert_num(h->nvlink.links, 18);
    hm_assert_num(h->nvlink.up, 16);
    hm_assert_flag(h->mig.enabled, true);
    hm_assert_flag(h->persistence.enabled, false);
    hm_assert_num(h->temperature_c, 91);
    hm_assert_flag(h->driver.match, false);
    assert_string_equal(h->driver.library, "550.90.07");
    /* no /dev/kmsg in the tree: said, not counted */
    hm_assert_flag(h->xid.readable, false);
    hm_assert_unknown(h->xid.count);
    assert_non_null(strstr(h->xid.why, "/dev/kmsg: No such file"));
    gh_close(d);
}

/* The fake with nothing set: every call NOT_SUPPORTED. Unknown, not 0;
 * NVLink's answer for every link is "no such link", which is 0 links. */
static void nvml_unset_values_are_unknown(void **state) {
    (void)state;
    hm_use_nvml("full");
    gh_device *d = open_nvidia();
    const gh_facts *h = gh_device_facts(d);
    assert_int_equal(h->source, GH_SOURCE_NVML);
    assert_int_equal(h->pcie.source, GH_SOURCE_NONE); /* and sysfs has nothing */
    hm_assert_unknown(h->pcie.current_gen);
    hm_assert_unknown(h->pcie.max_width);
    assert_int_equal(h->ecc.source, GH_SOURCE_NONE);
    hm_assert_flag_unknown(h->ecc.enabled);
    hm_assert_unknown(h->ecc.aggregate_corrected);
    assert_int_equal(h->retired.source, GH_SOURCE_NONE);
    hm_assert_unknown(h->retired.single_bit);
    hm_assert_flag_unknown(h->retired.pending);
    assert_int_equal(h->remapped.source, GH_SOURCE_NONE);
    hm_assert_unknown(h->remapped.uncorrectable);
    hm_assert_num(h->nvlink.links, 0);
    hm_assert_flag_unknown(h->mig.enabled);
    hm_assert_flag_unknown(h->persistence.enabled);
    hm_assert_unknown(h->temperature_c);
    assert_string_equal(h->driver.library, "");
    assert_string_equal(h->driver.kernel_module, "");
    hm_assert_flag_unknown(h->driver.match);
    gh_close(d);
}

/* An NVML without the link, remapped-row and NVLink functions: those are
 * unknown (the link from sysfs instead), the rest still NVML's. */
static void nvml_missing_functions(void **state) {
    (void)state;
    hm_use_nvml("partial");
    healthy_values();
    hm_link(NVML_BUS, "8.0 GT/s PCIe\n", "8\n", "32.0 GT/s PCIe\n", "16\n");
    gh_device *d = open_nvidia();
    const gh_facts *h = gh_device_facts(d);
    assert_int_equal(h->source, GH_SOURCE_NVML);
    assert_int_equal(h->pcie.source, GH_SOURCE_SYSFS);
    hm_assert_num(h->pcie.current_gen, 3);
    hm_assert_num(h->pcie.current_width, 8);
    hm_assert_num(h->pcie.max_gen, 5);
    hm_assert_num(h->pcie.max_width, 16);
    assert_int_equal(h->remapped.source, GH_SOURCE_NONE);
    hm_assert_unknown(h->remapped.correctable);
    hm_assert_flag_unknown(h->remapped.failed);
    assert_int_equal(h->nvlink.source, GH_SOURCE_NONE);
    hm_assert_unknown(h->nvlink.links);
    hm_assert_unknown(h->nvlink.up);
    hm_assert_flag(h->ecc.enabled, true);
    hm_assert_num(h->temperature_c, 34);
    gh_close(d);
}

/* An NVML that does not initialise: ROCm SMI, then sysfs alone. */
static void nvml_without_init(void **state) {
    (void)state;
    hm_use_nvml("noinit");
    healthy_values();
    hm_link(NVML_BUS, "16.0 GT/s PCIe\n", "16\n", "16.0 GT/s PCIe\n", "16\n");
    gh_device *d = open_nvidia();
    const gh_facts *h = gh_device_facts(d);
    assert_int_equal(h->source, GH_SOURCE_SYSFS);
    hm_assert_num(h->pcie.current_gen, 4);
    hm_assert_unknown(h->temperature_c);
    hm_assert_unknown(h->ecc.aggregate_corrected);
    gh_close(d);
}

static void rsmi_values(void) {
    setenv("FAKE_RSMI_PCIE_RATES", "2500,8000,16000,32000", 1);
    setenv("FAKE_RSMI_PCIE_LANES", "16", 1);
    setenv("FAKE_RSMI_PCIE_CURRENT", "2", 1);
    setenv("FAKE_RSMI_ECC_MASK", "0x7", 1);
    setenv("FAKE_RSMI_ECC_UMC", "5,1", 1);
    setenv("FAKE_RSMI_ECC_SDMA", "2,0", 1);
    setenv("FAKE_RSMI_ECC_GFX", "0,3", 1);
    setenv("FAKE_RSMI_PAGES", "3,1,2", 1);
    setenv("FAKE_RSMI_TEMP_MC", "45500", 1);
    setenv("FAKE_RSMI_DRIVER", "6.7.0", 1);
}

/* ROCm SMI's facts, in both layouts of rsmi_pcie_bandwidth_t. */
static void rsmi_facts(void **state) {
    (void)state;
    hm_use_rsmi("full");
    rsmi_values();
    hm_put("sys/module/amdgpu/version", "6.7.0\n");
    for (int major = 5; major <= 6; major++) {
        setenv("FAKE_RSMI_MAJOR", major == 5 ? "5" : "6", 1);
        gh_device *d = gh_open_ids(RSMI_BUS, NULL, "hip:0", GH_VENDOR_UNKNOWN);
        assert_non_null(d);
        const gh_facts *h = gh_device_facts(d);
        assert_int_equal(h->source, GH_SOURCE_ROCM_SMI);
        assert_int_equal(h->vendor, GH_VENDOR_AMD);
        assert_int_equal(h->pcie.source, GH_SOURCE_ROCM_SMI);
        hm_assert_num(h->pcie.current_gen, 4);
        hm_assert_num(h->pcie.current_width, 16);
        hm_assert_num(h->pcie.max_gen, 5);
        hm_assert_num(h->pcie.max_width, 16);
        hm_assert_flag(h->ecc.enabled, true);
        hm_assert_num(h->ecc.volatile_corrected, 7);
        hm_assert_num(h->ecc.volatile_uncorrected, 4);
        hm_assert_unknown(h->ecc.aggregate_corrected);
        assert_int_equal(h->retired.source, GH_SOURCE_ROCM_SMI);
        hm_assert_num(h->retired.reserved, 3);
        hm_assert_num(h->retired.unreservable, 2);
        hm_assert_flag(h->retired.pending, true);
        hm_assert_unknown(h->retired.single_bit);
        assert_int_equal(h->remapped.source, GH_SOURCE_NONE);
        assert_int_equal(h->nvlink.source, GH_SOURCE_NONE);
        hm_assert_unknown(h->nvlink.links);
        hm_assert_flag_unknown(h->mig.enabled);
        hm_assert_flag_unknown(h->persistence.enabled);
        hm_assert_num(h->temperature_c, 46);
        assert_string_equal(h->driver.kernel_module, "6.7.0");
        hm_assert_flag(h->driver.match, true);
        hm_assert_flag_unknown(h->xid.readable); /* Xids are NVIDIA's */
        gh_close(d);
    }
    /* a driver that is not the module's */
    setenv("FAKE_RSMI_DRIVER", "6.8.5", 1);
    gh_device *d = gh_open_ids(RSMI_BUS, NULL, "hip:0", GH_VENDOR_AMD);
    hm_assert_flag(gh_device_facts(d)->driver.match, false);
    gh_close(d);
}

/* Without the bandwidth and reserved-page functions: the link from
 * sysfs, the pages unknown. */
static void rsmi_missing_functions(void **state) {
    (void)state;
    hm_use_rsmi("partial");
    rsmi_values();
    hm_link(RSMI_BUS, "16.0 GT/s PCIe\n", "16\n", "16.0 GT/s PCIe\n", "16\n");
    gh_device *d = gh_open_ids(RSMI_BUS, NULL, "hip:0", GH_VENDOR_AMD);
    const gh_facts *h = gh_device_facts(d);
    assert_int_equal(h->source, GH_SOURCE_ROCM_SMI);
    assert_int_equal(h->pcie.source, GH_SOURCE_SYSFS);
    hm_assert_num(h->pcie.current_gen, 4);
    assert_int_equal(h->retired.source, GH_SOURCE_NONE);
    hm_assert_unknown(h->retired.reserved);
    hm_assert_flag_unknown(h->retired.pending);
    hm_assert_num(h->ecc.volatile_corrected, 7);
    gh_close(d);
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Idle at Gen1 x1 on the first reading, Gen5 x16 after: the watch keeps
 * the highest seen under load and says so; without a watch the idle
 * reading stays, not under load. */
static void watch_reads_the_link_under_load(void **state) {
    (void)state;
    hm_use_nvml("full");
    healthy_values();
    setenv("FAKE_NVML_PCIE_GEN", "1,5", 1);
    setenv("FAKE_NVML_PCIE_WIDTH", "1,16", 1);
    hm_reset_nvml_sequences();
    gh_device *d = open_nvidia();
    const gh_facts *h = gh_device_facts(d);
    hm_assert_num(h->pcie.current_gen, 1);
    hm_assert_num(h->pcie.current_width, 1);
    assert_false(h->pcie.under_load);
    assert_int_equal(gh_watch_start(d), 0);
    assert_int_equal(gh_watch_start(d), -1); /* one at a time */
    sleep_ms(60);
    gh_watch_stop(d);
    assert_true(h->pcie.under_load);
    hm_assert_num(h->pcie.current_gen, 5);
    hm_assert_num(h->pcie.current_width, 16);
    hm_assert_num(h->pcie.max_gen, 5);
    gh_close(d);
    /* sysfs serves the watch too */
    hm_use_nvml("partial");
    hm_link(NVML_BUS, "2.5 GT/s PCIe\n", "16\n", "16.0 GT/s PCIe\n", "16\n");
    d = open_nvidia();
    h = gh_device_facts(d);
    hm_assert_num(h->pcie.current_gen, 1);
    assert_int_equal(gh_watch_start(d), 0);
    hm_link(NVML_BUS, "16.0 GT/s PCIe\n", NULL, NULL, NULL);
    sleep_ms(60);
    gh_watch_stop(d);
    assert_true(h->pcie.under_load);
    hm_assert_num(h->pcie.current_gen, 4);
    gh_close(d);
    /* nothing to watch: no error, not under load */
    d = gh_open_ids(NULL, NULL, "opencl:0", GH_VENDOR_UNKNOWN);
    assert_int_equal(gh_watch_start(d), 0);
    gh_watch_stop(d);
    assert_false(gh_device_facts(d)->pcie.under_load);
    gh_close(d);
}

/* The libcuda.so.1 this process loaded names driver 550.54.15 in its
 * file: checked against the kernel module even without NVML (which does
 * not start when they differ). */
static void libcuda_file_version(void **state) {
    (void)state;
    hm_put("proc/driver/nvidia/version", NVRM);
    gh_device *d = open_nvidia();
    assert_string_equal(gh_device_facts(d)->driver.libcuda, ""); /* not loaded yet */
    hm_assert_flag_unknown(gh_device_facts(d)->driver.match);
    gh_close(d);
    void *cuda = dlopen(FAKE_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(cuda);
    d = open_nvidia();
    const gh_facts *h = gh_device_facts(d);
    assert_string_equal(h->driver.libcuda, "550.54.15");
    assert_string_equal(h->driver.library, "");
    hm_assert_flag(h->driver.match, true);
    gh_close(d);
    hm_put("proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                                         "550.40.07  Wed Jan 10 2024\n");
    d = open_nvidia();
    hm_assert_flag(gh_device_facts(d)->driver.match, false);
    gh_close(d);
    dlclose(cuda);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(nvml_healthy, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(nvml_degraded, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(nvml_unset_values_are_unknown, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(nvml_missing_functions, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(nvml_without_init, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(rsmi_facts, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(rsmi_missing_functions, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(watch_reads_the_link_under_load, hm_setup, hm_teardown),
        cmocka_unit_test_setup_teardown(libcuda_file_version, hm_setup, hm_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
