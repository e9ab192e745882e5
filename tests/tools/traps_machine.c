/* Made-up machines for the traps tests (traps_machine.h). */
#define _GNU_SOURCE
#include "traps_machine.h"
#include "xt_tree.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *const cleared[] = {
    "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",    "ROCR_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
    "OCL_ICD_VENDORS",      "NVIDIA_VISIBLE_DEVICES", "FAKE_NVML_INIT",       "FAKE_NVML_COUNT",
    "FAKE_NVML_UUIDS",      "FAKE_NVML_BUSES",        "FAKE_NVML_UUID",       "FAKE_NVML_BUS",
    "FAKE_NVML_DRIVER",     "FAKE_NVML_MIG",          "FAKE_NVML_MIG_MAX",    "FAKE_NVML_MIG_UUIDS",
    "FAKE_CUDA_PCI_BUS",    "FAKE_CUDA_DEVICES"};

char tm_root[PATH_MAX];
tr_report *tm_rep;

/* ---- the made-up machine ---- */

void tm_put(const char *rel, const char *text) {
    char path[PATH_MAX];
    assert_int_equal(xt_tree_file(tm_root, rel, 0644), 0);
    assert_int_equal(xt_tree_path(tm_root, rel, path), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

void tm_put_bytes(const char *rel, const char *data, size_t n) {
    char path[PATH_MAX];
    assert_int_equal(xt_tree_file(tm_root, rel, 0644), 0);
    assert_int_equal(xt_tree_path(tm_root, rel, path), 0);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

void tm_node(const char *rel) {
    assert_int_equal(xt_tree_file(tm_root, rel, 0666), 0);
}

void tm_pci_gpu(const char *bus, const char *vendor, const char *cls) {
    char rel[256];
    snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/vendor", bus);
    tm_put(rel, vendor);
    snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/class", bus);
    tm_put(rel, cls);
}

/* Two NVIDIA GPUs as a working machine has them: nodes, module 580.65.06
 * (NVML says the same), NVIDIA's ICD file; and a CPU bridge that is no GPU. */
void tm_nvidia_machine(void) {
    tm_pci_gpu("0000:01:00.0", "0x10de\n", "0x030200\n");
    tm_pci_gpu("0000:41:00.0", "0x10de\n", "0x030200\n");
    tm_pci_gpu("0000:00:00.0", "0x8086\n", "0x060000\n");
    tm_pci_gpu("0000:01:00.1", "0x10de\n", "0x040300\n"); /* its audio function */
    tm_node("dev/nvidia0");
    tm_node("dev/nvidia1");
    tm_node("dev/nvidiactl");
    tm_node("dev/nvidia-uvm");
    tm_put("proc/driver/nvidia/version",
           NVRM_LINE "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
    tm_put("sys/module/nvidia/version", FAKE_NVML_KERNEL "\n");
    tm_put("etc/OpenCL/vendors/nvidia.icd", "libnvidia-opencl.so.1\n");
    setenv("XGPU_NVML_LIBRARY", NVML_FULL, 1);
    fake_nvml_machine();
}

/* Two AMD GPUs (ROCr's UUIDs from amdgpu's unique_id), ROCm with nodes. */
void tm_amd_machine(void) {
    tm_pci_gpu("0000:03:00.0", "0x1002\n", "0x038000\n");
    tm_pci_gpu("0000:83:00.0", "0x1002\n", "0x120000\n");
    tm_put("sys/bus/pci/devices/0000:03:00.0/unique_id", "4ee1f1bd8c2d0a4f\n");
    tm_put("sys/bus/pci/devices/0000:83:00.0/unique_id", "9a0b1c2d3e4f5a6b\n");
    tm_node("dev/kfd");
    tm_node("dev/dri/renderD128");
    tm_node("dev/dri/renderD129");
    assert_int_equal(xt_tree_dir(tm_root, "opt/rocm/lib"), 0);
    tm_put("etc/OpenCL/vendors/amdocl64_60200_66.icd", "libamdocl64.so\n");
}

void tm_cuda_device(const char *bus, const char *uuid) {
    tr_facts *f = &tm_rep->facts;
    tr_xdev *x = &f->xdev[f->xdev_count];
    snprintf(x->backend, sizeof x->backend, "cuda");
    x->index = f->xdev_count++;
    snprintf(x->name, sizeof x->name, "Fake NVIDIA GPU %u", x->index);
    snprintf(x->bus_id, sizeof x->bus_id, "%s", bus);
    snprintf(x->uuid, sizeof x->uuid, "%s", uuid ? uuid : "");
}

/* The facts of the tree, the environment and NVML; the test may add
 * xgpu's devices before tm_judge(). */
void tm_gather(void) {
    memset(tm_rep, 0, sizeof *tm_rep);
    if (tr_facts_init(&tm_rep->facts) == 0) {
        tr_gather_env(&tm_rep->facts);
        tr_gather_system(&tm_rep->facts);
        ni_read(&tm_rep->nvml);
        tm_rep->facts.nvml = &tm_rep->nvml;
    }
}

const tr_findings *tm_judge(void) {
    tr_check(&tm_rep->facts, &tm_rep->findings);
    return &tm_rep->findings;
}

const tr_findings *tm_check(void) {
    tm_gather();
    return tm_judge();
}

void tm_print_findings(const tr_findings *fs) {
    for (unsigned i = 0; i < fs->count; i++) {
        print_message("  %s %s: %s\n    fix: %s\n", tr_severity_name(fs->items[i].severity),
                      fs->items[i].id, fs->items[i].message, fs->items[i].fix);
    }
}

const tr_finding *tm_find(const tr_findings *fs, const char *id) {
    for (unsigned i = 0; i < fs->count; i++) {
        if (!strcmp(fs->items[i].id, id)) {
            return &fs->items[i];
        }
    }
    return NULL;
}

const tr_finding *tm_expect(const tr_findings *fs, const char *id, tr_severity severity) {
    const tr_finding *fi = tm_find(fs, id);
    if (!fi) {
        tm_print_findings(fs);
        fail_msg("no finding %s among %u", id, fs->count);
    }
    if (fi->severity != severity) {
        fail_msg("%s is %s, not %s: %s", id, tr_severity_name(fi->severity),
                 tr_severity_name(severity), fi->message);
    }
    assert_true(fi->fix[0] != '\0');
    return fi;
}

void tm_expect_none(const tr_findings *fs) {
    if (fs->count) {
        tm_print_findings(fs);
        fail_msg("%u finding(s) where none was expected", fs->count);
    }
}

void tm_assert_contains(const char *text, const char *part) {
    if (!strstr(text, part)) {
        fail_msg("'%s' does not contain '%s'", text, part);
    }
}

bool tm_details_contain(const tr_finding *fi, const char *part) {
    for (unsigned d = 0; d < fi->detail_count; d++) {
        if (strstr(fi->details[d], part)) {
            return true;
        }
    }
    return false;
}

int tm_setup(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++) {
        unsetenv(cleared[i]);
    }
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    if (xt_tree_make("gpuinfo-traps", tm_root) != 0) {
        return -1;
    }
    setenv("XGPU_SYSROOT", tm_root, 1);
    tm_rep = calloc(1, sizeof *tm_rep);
    return tm_rep ? 0 : -1;
}

int tm_teardown(void **state) {
    (void)state;
    free(tm_rep);
    tm_rep = NULL;
    unsetenv("XGPU_SYSROOT");
    return xt_tree_remove(tm_root);
}
