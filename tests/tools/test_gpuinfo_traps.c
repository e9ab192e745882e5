/* gpuinfo's checks of the stack (tools/gpuinfo/traps.h) on made-up
 * machines: /sys, /proc, /dev, /etc, /run, /opt and /usr/lib/wsl trees in
 * a temporary folder (XGPU_SYSROOT; an empty regular file stands in for a
 * device node), the stand-in NVML (fake_nvml.c) with several GPUs, MIG and
 * a driver version, and xgpu's CUDA devices given to the rules directly.
 * One test per finding (each fails when its rule is taken out of
 * traps_rules.c's table), the clean cases, bad input; then gpuinfo itself
 * on the fake CUDA driver (tests/cuda/fake_device.c, copied to a versioned
 * file name) for --json's findings and the doctor's section. */
#define _GNU_SOURCE
#include "traps.h"
#include "fake_nvml_values.h"
#include "xt_file.h"
#include "xt_tree.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define NVML_FULL FAKE_NVML_DIR "/full/libnvidia-ml.so.1"

static const char *const cleared[] = {
    "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",    "ROCR_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
    "OCL_ICD_VENDORS",      "NVIDIA_VISIBLE_DEVICES", "FAKE_NVML_INIT",       "FAKE_NVML_COUNT",
    "FAKE_NVML_UUIDS",      "FAKE_NVML_BUSES",        "FAKE_NVML_UUID",       "FAKE_NVML_BUS",
    "FAKE_NVML_DRIVER",     "FAKE_NVML_MIG",          "FAKE_NVML_MIG_MAX",    "FAKE_NVML_MIG_UUIDS",
    "FAKE_CUDA_PCI_BUS",    "FAKE_CUDA_DEVICES"};

static char root[PATH_MAX];
static tr_report *rep;

/* ---- the made-up machine ---- */

static void put(const char *rel, const char *text) {
    char path[PATH_MAX];
    assert_int_equal(xt_tree_file(root, rel, 0644), 0);
    assert_int_equal(xt_tree_path(root, rel, path), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void put_bytes(const char *rel, const char *data, size_t n) {
    char path[PATH_MAX];
    assert_int_equal(xt_tree_file(root, rel, 0644), 0);
    assert_int_equal(xt_tree_path(root, rel, path), 0);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void node(const char *rel) {
    assert_int_equal(xt_tree_file(root, rel, 0666), 0);
}

static void pci_gpu(const char *bus, const char *vendor, const char *cls) {
    char rel[256];
    snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/vendor", bus);
    put(rel, vendor);
    snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/class", bus);
    put(rel, cls);
}

#define NVRM_LINE                                                                                  \
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  " FAKE_NVML_KERNEL                   \
    "  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Jul  8 17:39:19 UTC 2025\n"

/* Two NVIDIA GPUs as a working machine has them: nodes, module 580.65.06
 * (NVML says the same), NVIDIA's ICD file; and a CPU bridge that is no GPU. */
static void nvidia_machine(void) {
    pci_gpu("0000:01:00.0", "0x10de\n", "0x030200\n");
    pci_gpu("0000:41:00.0", "0x10de\n", "0x030200\n");
    pci_gpu("0000:00:00.0", "0x8086\n", "0x060000\n");
    pci_gpu("0000:01:00.1", "0x10de\n", "0x040300\n"); /* its audio function */
    node("dev/nvidia0");
    node("dev/nvidia1");
    node("dev/nvidiactl");
    node("dev/nvidia-uvm");
    put("proc/driver/nvidia/version",
        NVRM_LINE "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
    put("sys/module/nvidia/version", FAKE_NVML_KERNEL "\n");
    put("etc/OpenCL/vendors/nvidia.icd", "libnvidia-opencl.so.1\n");
    setenv("XGPU_NVML_LIBRARY", NVML_FULL, 1);
    fake_nvml_machine();
}

/* Two AMD GPUs (ROCr's UUIDs from amdgpu's unique_id), ROCm with nodes. */
static void amd_machine(void) {
    pci_gpu("0000:03:00.0", "0x1002\n", "0x038000\n");
    pci_gpu("0000:83:00.0", "0x1002\n", "0x120000\n");
    put("sys/bus/pci/devices/0000:03:00.0/unique_id", "4ee1f1bd8c2d0a4f\n");
    put("sys/bus/pci/devices/0000:83:00.0/unique_id", "9a0b1c2d3e4f5a6b\n");
    node("dev/kfd");
    node("dev/dri/renderD128");
    node("dev/dri/renderD129");
    assert_int_equal(xt_tree_dir(root, "opt/rocm/lib"), 0);
    put("etc/OpenCL/vendors/amdocl64_60200_66.icd", "libamdocl64.so\n");
}

static void cuda_device(const char *bus, const char *uuid) {
    tr_facts *f = &rep->facts;
    tr_xdev *x = &f->xdev[f->xdev_count];
    snprintf(x->backend, sizeof x->backend, "cuda");
    x->index = f->xdev_count++;
    snprintf(x->name, sizeof x->name, "Fake NVIDIA GPU %u", x->index);
    snprintf(x->bus_id, sizeof x->bus_id, "%s", bus);
    snprintf(x->uuid, sizeof x->uuid, "%s", uuid ? uuid : "");
}

/* The facts of the tree, the environment and NVML; the test may add
 * xgpu's devices before judge(). */
static void gather(void) {
    memset(rep, 0, sizeof *rep);
    if (tr_facts_init(&rep->facts) == 0) {
        tr_gather_env(&rep->facts);
        tr_gather_system(&rep->facts);
        ni_read(&rep->nvml);
        rep->facts.nvml = &rep->nvml;
    }
}

static const tr_findings *judge(void) {
    tr_check(&rep->facts, &rep->findings);
    return &rep->findings;
}

static const tr_findings *check(void) {
    gather();
    return judge();
}

static void print_findings(const tr_findings *fs) {
    for (unsigned i = 0; i < fs->count; i++) {
        print_message("  %s %s: %s\n    fix: %s\n", tr_severity_name(fs->items[i].severity),
                      fs->items[i].id, fs->items[i].message, fs->items[i].fix);
    }
}

static const tr_finding *find(const tr_findings *fs, const char *id) {
    for (unsigned i = 0; i < fs->count; i++) {
        if (!strcmp(fs->items[i].id, id)) {
            return &fs->items[i];
        }
    }
    return NULL;
}

static const tr_finding *expect(const tr_findings *fs, const char *id, tr_severity severity) {
    const tr_finding *fi = find(fs, id);
    if (!fi) {
        print_findings(fs);
        fail_msg("no finding %s among %u", id, fs->count);
    }
    if (fi->severity != severity) {
        fail_msg("%s is %s, not %s: %s", id, tr_severity_name(fi->severity),
                 tr_severity_name(severity), fi->message);
    }
    assert_true(fi->fix[0] != '\0');
    return fi;
}

static void expect_none(const tr_findings *fs) {
    if (fs->count) {
        print_findings(fs);
        fail_msg("%u finding(s) where none was expected", fs->count);
    }
}

static void assert_contains(const char *text, const char *part) {
    if (!strstr(text, part)) {
        fail_msg("'%s' does not contain '%s'", text, part);
    }
}

static bool details_contain(const tr_finding *fi, const char *part) {
    for (unsigned d = 0; d < fi->detail_count; d++) {
        if (strstr(fi->details[d], part)) {
            return true;
        }
    }
    return false;
}

static int setup(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++) {
        unsetenv(cleared[i]);
    }
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    if (xt_tree_make("gpuinfo-traps", root) != 0) {
        return -1;
    }
    setenv("XGPU_SYSROOT", root, 1);
    rep = calloc(1, sizeof *rep);
    return rep ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    free(rep);
    rep = NULL;
    unsetenv("XGPU_SYSROOT");
    return xt_tree_remove(root);
}

/* ---- clean machines ---- */

static void clean_nvidia_machine_has_no_finding(void **state) {
    (void)state;
    nvidia_machine();
    gather();
    cuda_device("0000:01:00.0", FAKE_NVML_GPU0);
    cuda_device("0000:41:00.0", FAKE_NVML_GPU1);
    expect_none(judge());
    assert_int_equal(rep->facts.pci_count, 2);
    assert_string_equal(rep->facts.nvidia_kmod, FAKE_NVML_KERNEL);
    assert_string_equal(rep->nvml.driver_version, FAKE_NVML_KERNEL);
    assert_int_equal(rep->nvml.gpu_count, 2);
    assert_string_equal(rep->nvml.gpus[1].uuid, FAKE_NVML_GPU1);
    /* Good values of every visible-devices variable. */
    static const char *const good[] = {"0",
                                       "1,0",
                                       " 0 , 1 ",
                                       "0,1,",
                                       "GPU-6f1e2d3c",
                                       FAKE_NVML_GPU1 "," FAKE_NVML_GPU0,
                                       "gpu-0A1B2C3D4E5F"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        setenv("CUDA_VISIBLE_DEVICES", good[i], 1);
        setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
        expect_none(check());
    }
}

static void clean_amd_machine_has_no_finding(void **state) {
    (void)state;
    amd_machine();
    expect_none(check());
    assert_string_equal(rep->facts.pci[0].unique_id, "4ee1f1bd8c2d0a4f");
    setenv("ROCR_VISIBLE_DEVICES", "GPU-9a0b1c2d3e4f5a6b,0", 1);
    setenv("HIP_VISIBLE_DEVICES", "1", 1);
    expect_none(check());
}

/* A CI container with pocl and no GPU: none of these findings, whatever
 * the visible-devices variables say (there is no GPU for them to hide). */
static void pocl_alone_gives_no_finding(void **state) {
    (void)state;
    put(".dockerenv", "");
    put("etc/OpenCL/vendors/pocl.icd", "libpocl.so.2\n");
    put("proc/version", "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)\n");
    pci_gpu("0000:00:02.0", "0x1234\n", "0x030000\n"); /* an emulated VGA */
    setenv("XGPU_BACKENDS", "opencl", 1);
    tr_report *r = tr_run();
    assert_non_null(r);
    expect_none(&r->findings);
    free(r);
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    setenv("HIP_VISIBLE_DEVICES", "7", 1);
    r = tr_run();
    assert_non_null(r);
    expect_none(&r->findings);
    free(r);
}

/* ---- visible devices ---- */

static void visible_index_beyond_the_gpus(void **state) {
    (void)state;
    nvidia_machine();
    setenv("CUDA_VISIBLE_DEVICES", "0,4,1", 1);
    const tr_finding *fi = expect(check(), "visible_devices_unmatched", TR_WARNING);
    assert_contains(fi->message, "CUDA_VISIBLE_DEVICES=\"0,4,1\": entry 2 (\"4\") is no GPU");
    assert_contains(fi->message, "2 NVIDIA GPU(s), indexes 0 to 1");
    assert_contains(fi->message, "CUDA uses only the 1 entry before it");
    assert_contains(fi->fix, "indexes 0 to 1 or UUIDs that nvidia-smi -L prints");
    assert_true(details_contain(fi, FAKE_NVML_GPU1));
    /* The first entry: nothing is left. */
    setenv("CUDA_VISIBLE_DEVICES", "2", 1);
    fi = expect(check(), "visible_devices_unmatched", TR_ERROR);
    assert_contains(fi->message, "CUDA sees no GPU");
    /* NVML's count is what the process may reach: a container given one
     * of the host's two GPUs. */
    setenv("FAKE_NVML_COUNT", "1", 1);
    setenv("CUDA_VISIBLE_DEVICES", "1", 1);
    fi = expect(check(), "visible_devices_unmatched", TR_ERROR);
    assert_contains(fi->message, "1 NVIDIA GPU(s), index 0");
    /* Without NVML, the PCI bus's count. */
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    expect_none(check());
    setenv("CUDA_VISIBLE_DEVICES", "0,1,2", 1);
    fi = expect(check(), "visible_devices_unmatched", TR_WARNING);
    assert_contains(fi->message, "entry 3 (\"2\")");
    assert_true(details_contain(fi, "0000:41:00.0 (PCI order)"));
}

static void visible_uuid_that_matches_nothing(void **state) {
    (void)state;
    nvidia_machine();
    setenv("CUDA_VISIBLE_DEVICES", "GPU-deadbeef-0000", 1);
    const tr_finding *fi = expect(check(), "visible_devices_unmatched", TR_ERROR);
    assert_contains(fi->message, "matches no GPU UUID of this machine's 2 NVIDIA GPU(s)");
    setenv("CUDA_VISIBLE_DEVICES", FAKE_NVML_GPU0 "," FAKE_NVML_MIG0, 1);
    fi = expect(check(), "visible_devices_unmatched", TR_WARNING);
    assert_contains(fi->message, "matches no MIG device UUID");
    /* With MIG on, its devices are known by UUID, in either spelling. */
    fake_nvml_mig();
    gather();
    rep->findings.count = 0;
    tr_check_visible(&rep->facts, &rep->findings);
    expect_none(&rep->findings);
    setenv("CUDA_VISIBLE_DEVICES", "MIG-GPU-6f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/1/0", 1);
    gather();
    tr_check_visible(&rep->facts, &rep->findings);
    expect_none(&rep->findings);
    /* Only xgpu's CUDA devices know UUIDs (no NVML): compared with them. */
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("CUDA_VISIBLE_DEVICES", "GPU-0a1b", 1);
    gather();
    cuda_device("0000:41:00.0", FAKE_NVML_GPU1);
    expect_none(judge());
    setenv("CUDA_VISIBLE_DEVICES", "GPU-0a1c", 1);
    gather();
    cuda_device("0000:41:00.0", FAKE_NVML_GPU1);
    expect(judge(), "visible_devices_unmatched", TR_ERROR);
    /* No UUID known at all: not judged. */
    gather();
    expect_none(judge());
}

static void visible_values_that_hide_every_gpu(void **state) {
    (void)state;
    nvidia_machine();
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const tr_finding *fi = expect(check(), "visible_devices_hide_all", TR_WARNING);
    assert_contains(fi->message, "CUDA_VISIBLE_DEVICES is set but empty");
    assert_contains(fi->message, "none of this machine's 2 NVIDIA GPU(s)");
    assert_contains(fi->fix, "unset CUDA_VISIBLE_DEVICES");
    setenv("CUDA_VISIBLE_DEVICES", "NoDevFiles", 1);
    fi = expect(check(), "visible_devices_hide_all", TR_WARNING);
    assert_contains(fi->message, "batch system");
    assert_contains(fi->fix, "--gres=gpu:1");
    setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
    fi = expect(check(), "visible_devices_hide_all", TR_INFO);
    assert_contains(fi->message, "negative index");
    assert_int_equal(rep->findings.count, 1);
}

static void visible_malformed_entries(void **state) {
    (void)state;
    nvidia_machine();
    static const struct {
        const char *value, *why;
    } cases[] = {
        {"0-1", "is neither an index (indexes 0 to 1) nor a UUID"},
        {"0,,1", "entry 2 (\"\") is empty"},
        {",0", "entry 1 (\"\") is empty"},
        {"0,-1", "is a negative index, which ends the list"},
        {"GPU-xyz", "is not a UUID"},
        {"GPU-", "is not a UUID"},
        {"cuda:0", "is neither an index"},
        {"99999999999999999999", "is no GPU"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("CUDA_VISIBLE_DEVICES", cases[i].value, 1);
        const tr_findings *fs = check();
        const tr_finding *fi = find(fs, "visible_devices_unmatched");
        if (!fi) {
            fail_msg("CUDA_VISIBLE_DEVICES=\"%s\": no finding", cases[i].value);
        }
        assert_contains(fi->message, cases[i].why);
    }
}

/* 10,000 commas, a megabyte of digits, control characters: one finding
 * with the value cut short, never a crash or a message past its buffer. */
static void visible_bad_input_is_said_clearly(void **state) {
    (void)state;
    nvidia_machine();
    size_t n = 10000;
    char *v = malloc(2 * n + 2);
    assert_non_null(v);
    memset(v, ',', n);
    v[n] = '\0';
    setenv("CUDA_VISIBLE_DEVICES", v, 1);
    const tr_finding *fi = expect(check(), "visible_devices_unmatched", TR_ERROR);
    assert_contains(fi->message, "entry 1 (\"\") is empty");
    assert_contains(fi->message, "... (10000 bytes)");
    /* "0,0,...,0": every entry a GPU. */
    for (size_t i = 0; i < n; i++) {
        v[2 * i] = '0';
        v[2 * i + 1] = ',';
    }
    v[2 * n - 1] = '\0';
    setenv("CUDA_VISIBLE_DEVICES", v, 1);
    expect_none(check());
    free(v);
    size_t big = (size_t)1 << 20;
    v = malloc(big + 1);
    assert_non_null(v);
    memset(v, '7', big);
    v[big] = '\0';
    setenv("CUDA_VISIBLE_DEVICES", v, 1);
    fi = expect(check(), "visible_devices_unmatched", TR_ERROR);
    assert_contains(fi->message, "7777...\") is no GPU");
    free(v);
    setenv("CUDA_VISIBLE_DEVICES", "0,\x1b[31m\"x\\", 1);
    fi = expect(check(), "visible_devices_unmatched", TR_WARNING);
    assert_null(strchr(fi->message, '\x1b'));
}

static void rocr_then_hip_visible_devices(void **state) {
    (void)state;
    amd_machine();
    setenv("ROCR_VISIBLE_DEVICES", "3", 1);
    const tr_finding *fi = expect(check(), "visible_devices_unmatched", TR_ERROR);
    assert_contains(fi->message, "ROCR_VISIBLE_DEVICES=\"3\"");
    assert_contains(fi->message, "2 AMD GPU(s)");
    assert_contains(fi->fix, "rocminfo");
    setenv("ROCR_VISIBLE_DEVICES", "GPU-ffff", 1);
    expect(check(), "visible_devices_unmatched", TR_ERROR);
    /* HIP numbers what ROCr left: one GPU, index 0. */
    setenv("ROCR_VISIBLE_DEVICES", "GPU-4ee1f1bd8c2d0a4f", 1);
    setenv("HIP_VISIBLE_DEVICES", "1", 1);
    fi = expect(check(), "visible_devices_unmatched", TR_ERROR);
    assert_contains(fi->message, "HIP_VISIBLE_DEVICES=\"1\"");
    assert_contains(fi->message, "ROCR_VISIBLE_DEVICES leaves 1 AMD GPU(s), index 0");
    /* HIP applies CUDA_VISIBLE_DEVICES on a machine with AMD GPUs only. */
    unsetenv("ROCR_VISIBLE_DEVICES");
    unsetenv("HIP_VISIBLE_DEVICES");
    setenv("CUDA_VISIBLE_DEVICES", "5", 1);
    fi = expect(check(), "visible_devices_unmatched", TR_ERROR);
    assert_contains(fi->message, "HIP sees no GPU");
}

/* ---- CUDA_DEVICE_ORDER ---- */

static void cuda_order_differs_from_pci_order(void **state) {
    (void)state;
    nvidia_machine();
    gather();
    cuda_device("0000:41:00.0", FAKE_NVML_GPU1); /* the faster one first */
    cuda_device("0000:01:00.0", FAKE_NVML_GPU0);
    const tr_finding *fi = expect(judge(), "cuda_device_order", TR_WARNING);
    assert_contains(fi->message, "CUDA's device 0 (cuda:0) is 0000:41:00.0");
    assert_contains(fi->message, "nvidia-smi's 0 is 0000:01:00.0");
    assert_string_equal(fi->fix, "export CUDA_DEVICE_ORDER=PCI_BUS_ID");
    assert_int_equal(fi->detail_count, 3);
    assert_contains(fi->details[0], "CUDA now (FASTEST_FIRST)");
    assert_contains(fi->details[1], "0000:41:00.0");
    assert_true(strstr(fi->details[1], "0000:41:00.0") < strstr(fi->details[1], "0000:01:00.0"));
    /* Set, or CUDA_VISIBLE_DEVICES choosing the order: no finding. */
    setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
    tr_gather_env(&rep->facts);
    assert_null(find(judge(), "cuda_device_order"));
    unsetenv("CUDA_DEVICE_ORDER");
    setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
    gather();
    cuda_device("0000:41:00.0", NULL);
    cuda_device("0000:01:00.0", NULL);
    assert_null(find(judge(), "cuda_device_order"));
}

/* ---- MIG ---- */

static void mig_devices_are_listed(void **state) {
    (void)state;
    nvidia_machine();
    fake_nvml_mig();
    const tr_finding *fi = expect(check(), "mig_enabled", TR_INFO);
    assert_contains(fi->message, "MIG is on for 1 of 2 GPU(s)");
    assert_contains(fi->message, "run one process per MIG device");
    assert_contains(fi->fix, "CUDA_VISIBLE_DEVICES=" FAKE_NVML_MIG0);
    assert_contains(fi->details[0], "GPU 0 00000000:01:00.0 " FAKE_NVML_GPU0 ": MIG on, 2 of 7");
    assert_contains(fi->details[1], FAKE_NVML_MIG0);
    assert_contains(fi->details[2], FAKE_NVML_MIG1);
    assert_contains(fi->details[2], "MIG 1g.10gb");
    /* On without MIG devices: CUDA has nothing on that GPU. */
    unsetenv("FAKE_NVML_MIG_UUIDS");
    fi = expect(check(), "mig_enabled", TR_WARNING);
    assert_contains(fi->message, "no CUDA device at all");
    assert_contains(fi->fix, "nvidia-smi mig -i 0 -cgi");
    /* Off, on at the next reset. */
    setenv("FAKE_NVML_MIG", "0,1", 1);
    fi = expect(check(), "mig_enabled", TR_WARNING);
    assert_contains(fi->details[0], "MIG off (on at the next reset)");
    assert_contains(fi->fix, "nvidia-smi -r");
    setenv("FAKE_NVML_MIG", "0,0", 1);
    assert_null(find(check(), "mig_enabled"));
}

/* ---- device nodes and containers ---- */

static void container_without_the_nvidia_gpu(void **state) {
    (void)state;
    pci_gpu("0000:01:00.0", "0x10de\n", "0x030200\n");
    put(".dockerenv", "");
    const tr_finding *fi = expect(check(), "container_without_gpu", TR_WARNING);
    assert_contains(fi->message, "container (/.dockerenv)");
    assert_contains(fi->message, "NVIDIA GPU 0000:01:00.0 is on the PCI bus");
    assert_contains(fi->fix, "docker run --gpus all");
    /* The image asks for a GPU: an error. */
    setenv("NVIDIA_VISIBLE_DEVICES", "all", 1);
    expect(check(), "container_without_gpu", TR_ERROR);
    /* With no GPU in /sys too, the image's variable alone, and a
     * container told by its cgroup. */
    assert_int_equal(xt_tree_remove(root), 0);
    assert_int_equal(mkdir(root, 0700), 0);
    put("proc/1/cgroup", "12:devices:/docker/3f4e5d\n0::/\n");
    fi = expect(check(), "container_without_gpu", TR_ERROR);
    assert_contains(fi->message, "/proc/1/cgroup: docker");
    assert_contains(fi->message, "NVIDIA_VISIBLE_DEVICES=all");
    setenv("NVIDIA_VISIBLE_DEVICES", "void", 1);
    expect_none(check());
}

static void container_without_the_amd_gpu(void **state) {
    (void)state;
    pci_gpu("0000:83:00.0", "0x1002\n", "0x120000\n");
    put("run/.containerenv", "engine=\"podman-4.3.1\"\n");
    const tr_finding *fi = expect(check(), "container_without_gpu", TR_WARNING);
    assert_contains(fi->message, "/dev/kfd and /dev/dri/renderD* are missing");
    assert_contains(fi->fix, "--device=/dev/kfd --device=/dev/dri");
    node("dev/kfd");
    fi = expect(check(), "container_without_gpu", TR_WARNING);
    assert_contains(fi->message, "but /dev/dri/renderD* is missing");
}

static void gpu_without_device_nodes(void **state) {
    (void)state;
    pci_gpu("0000:01:00.0", "0x10de\n", "0x030000\n");
    const tr_finding *fi = expect(check(), "gpu_without_device_nodes", TR_ERROR);
    assert_contains(fi->message, "kernel module is not loaded");
    assert_contains(fi->fix, "sudo modprobe nvidia");
    put("proc/driver/nvidia/version", NVRM_LINE);
    fi = expect(check(), "gpu_without_device_nodes", TR_ERROR);
    assert_contains(fi->fix, "nvidia-modprobe");
    node("dev/nvidiactl");
    assert_null(find(check(), "gpu_without_device_nodes"));
    /* An AMD GPU without amdgpu. */
    pci_gpu("0000:03:00.0", "0x1002\n", "0x030000\n");
    fi = expect(check(), "gpu_without_device_nodes", TR_WARNING);
    assert_contains(fi->message, "amdgpu kernel driver is not loaded");
}

/* ---- OpenCL ICD files ---- */

static void opencl_icd_file_missing(void **state) {
    (void)state;
    nvidia_machine();
    char path[PATH_MAX];
    assert_int_equal(xt_tree_path(root, "etc/OpenCL/vendors/nvidia.icd", path), 0);
    assert_int_equal(unlink(path), 0);
    put("etc/OpenCL/vendors/pocl.icd", "libpocl.so.2\n");
    const tr_finding *fi = expect(check(), "opencl_icd_missing", TR_WARNING);
    assert_contains(fi->message, "/etc/OpenCL/vendors holds no ICD file naming it");
    assert_contains(fi->fix,
                    "echo libnvidia-opencl.so.1 | sudo tee /etc/OpenCL/vendors/nvidia.icd");
    put(".dockerenv", "");
    fi = expect(check(), "opencl_icd_missing", TR_WARNING);
    assert_contains(fi->message, "the .icd file comes from the image");
    setenv("OCL_ICD_VENDORS", "/somewhere/else", 1);
    assert_null(find(check(), "opencl_icd_missing"));
    unsetenv("OCL_ICD_VENDORS");
    /* ROCm's. */
    assert_int_equal(xt_tree_remove(root), 0);
    assert_int_equal(mkdir(root, 0700), 0);
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    amd_machine();
    assert_int_equal(xt_tree_path(root, "etc/OpenCL/vendors/amdocl64_60200_66.icd", path), 0);
    assert_int_equal(unlink(path), 0);
    fi = expect(check(), "opencl_icd_missing", TR_WARNING);
    assert_contains(fi->fix, "rocm-opencl-runtime");
}

/* ---- WSL ---- */

static void wsl_reaches_the_gpu_through_dxg(void **state) {
    (void)state;
    node("dev/dxg");
    put("proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n");
    const tr_finding *fi = expect(check(), "wsl", TR_WARNING);
    assert_contains(fi->message, "without /usr/lib/wsl/lib/libcuda.so.1");
    assert_contains(fi->fix, "NVIDIA driver on Windows");
    put("usr/lib/wsl/lib/libcuda.so.1", "");
    fi = expect(check(), "wsl", TR_INFO);
    assert_contains(fi->message, "/proc/sys/kernel/osrelease");
    assert_true(details_contain(fi, "works: CUDA"));
    assert_true(details_contain(fi, "partly: NVML"));
    /* A Linux driver's libcuda shadows WSL's. */
    gather();
    snprintf(rep->facts.libcuda_file, sizeof rep->facts.libcuda_file,
             "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");
    fi = expect(judge(), "wsl", TR_WARNING);
    assert_contains(fi->message, "shadows the Windows one");
    assert_contains(fi->fix, "apt remove --purge");
    gather();
    snprintf(rep->facts.libcuda_file, sizeof rep->facts.libcuda_file,
             "%.400s/usr/lib/wsl/drivers/nv.inf_amd64/libcuda.so.1.1", root);
    expect(judge(), "wsl", TR_INFO);
    /* Neither the missing nodes nor a version check apply there. */
    pci_gpu("0000:01:00.0", "0x10de\n", "0x030200\n");
    put("sys/module/nvidia/version", "1.0\n");
    setenv("XGPU_NVML_LIBRARY", NVML_FULL, 1);
    setenv("FAKE_NVML_INIT", "18", 1);
    const tr_findings *fs = check();
    assert_int_equal(fs->count, 1);
    /* /proc/version's "Microsoft" without /dev/dxg is no WSL 2 GPU. */
    assert_int_equal(xt_tree_remove(root), 0);
    assert_int_equal(mkdir(root, 0700), 0);
    put("proc/version", "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)\n");
    unsetenv("FAKE_NVML_INIT");
    expect_none(check());
}

/* ---- the kernel module against the user-space driver ---- */

static void kernel_module_and_library_differ(void **state) {
    (void)state;
    nvidia_machine();
    setenv("FAKE_NVML_DRIVER", FAKE_NVML_NEWER, 1);
    const tr_finding *fi = expect(check(), "driver_version_mismatch", TR_ERROR);
    assert_contains(fi->message,
                    "kernel module is " FAKE_NVML_KERNEL " but NVML's driver is " FAKE_NVML_NEWER);
    assert_contains(fi->message, "Driver/library version mismatch");
    assert_contains(fi->fix, "reboot, or reload the nvidia modules");
    assert_true(details_contain(fi, "/proc/driver/nvidia/version"));
    /* NVML does not start: its code says it. */
    setenv("FAKE_NVML_INIT", "18", 1);
    fi = expect(check(), "driver_version_mismatch", TR_ERROR);
    assert_contains(fi->message, "nvmlInit_v2: 18");
    assert_contains(rep->nvml.error, "Driver/library version mismatch");
    unsetenv("FAKE_NVML_INIT");
    /* libcuda's file name against /sys/module/nvidia/version alone. */
    setenv("FAKE_NVML_DRIVER", FAKE_NVML_KERNEL, 1);
    char path[PATH_MAX];
    assert_int_equal(xt_tree_path(root, "proc/driver/nvidia/version", path), 0);
    assert_int_equal(unlink(path), 0);
    gather();
    assert_string_equal(rep->facts.nvidia_kmod_from, "/sys/module/nvidia/version");
    snprintf(rep->facts.libcuda_file, sizeof rep->facts.libcuda_file,
             "/usr/lib/x86_64-linux-gnu/libcuda.so." FAKE_NVML_NEWER);
    ni_file_version(rep->facts.libcuda_file, rep->facts.libcuda_version,
                    sizeof rep->facts.libcuda_version);
    fi = expect(judge(), "driver_version_mismatch", TR_ERROR);
    assert_contains(fi->message, "but libcuda is " FAKE_NVML_NEWER);
    /* The same versions: none. */
    snprintf(rep->facts.libcuda_version, sizeof rep->facts.libcuda_version, FAKE_NVML_KERNEL);
    assert_null(find(judge(), "driver_version_mismatch"));
}

static void driver_versions_from_file_names(void **state) {
    (void)state;
    static const struct {
        const char *file, *version;
    } cases[] = {
        {"/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06", "580.65.06"},
        {"/usr/lib64/libnvidia-ml.so.535.104.05", "535.104.05"},
        {"/opt/a.so.1/libcuda.so.575.57", "575.57"},
        {"libcuda.so.1", ""},
        {"/usr/lib/wsl/drivers/x/libcuda.so.1.1", ""},
        {"libcuda.so.580.65.06.1", ""},
        {"libcuda.so.580.", ""},
        {"libcuda.so", ""},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char v[32];
        ni_file_version(cases[i].file, v, sizeof v);
        if (strcmp(v, cases[i].version)) {
            fail_msg("%s: '%s', not '%s'", cases[i].file, v, cases[i].version);
        }
    }
}

/* Binary, huge, cut-short or odd /proc/driver/nvidia/version files: a
 * clear finding, the version from /sys/module when it has one. */
static void proc_version_bad_input(void **state) {
    (void)state;
    put("etc/OpenCL/vendors/nvidia.icd", "libnvidia-opencl.so.1\n");
    static const struct {
        const char *text;
        size_t size;
        const char *why;
    } cases[] = {
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  5\0\0\x7f"
         "ELF",
         53, "binary data"},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  ", 0, "no version number"},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel", 0, "no \"Kernel Module\""},
        {"", 0, "is empty"},
        {"GCC version: gcc 12\n", 0, "no \"NVRM version:\" line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = cases[i].size ? cases[i].size : strlen(cases[i].text);
        put_bytes("proc/driver/nvidia/version", cases[i].text, n);
        const tr_finding *fi = expect(check(), "nvidia_version_unreadable", TR_INFO);
        assert_contains(fi->message, cases[i].why);
        assert_string_equal(rep->facts.nvidia_kmod, "");
    }
    /* A megabyte whose first line is good: read. */
    size_t big = (size_t)1 << 20;
    char *text = malloc(big);
    assert_non_null(text);
    memset(text, 'x', big);
    memcpy(text, NVRM_LINE, strlen(NVRM_LINE));
    put_bytes("proc/driver/nvidia/version", text, big);
    expect_none(check());
    assert_string_equal(rep->facts.nvidia_kmod, FAKE_NVML_KERNEL);
    /* A megabyte of one line: too long. */
    memcpy(text, "NVRM version: ", 14);
    memset(text + 14, 'x', big - 14);
    put_bytes("proc/driver/nvidia/version", text, big);
    const tr_finding *fi = expect(check(), "nvidia_version_unreadable", TR_INFO);
    assert_contains(fi->message, "longer than the 4096 bytes read");
    free(text);
    /* /sys/module's version is used, and named. */
    put("sys/module/nvidia/version", "580.65.06\n");
    fi = expect(check(), "nvidia_version_unreadable", TR_INFO);
    assert_contains(fi->message, "(/sys/module/nvidia/version says 580.65.06)");
    assert_string_equal(rep->facts.nvidia_kmod, "580.65.06");
    /* A FIFO where the file should be: not read (and no hang), a folder
     * neither. */
    char path[PATH_MAX];
    assert_int_equal(xt_tree_path(root, "proc/driver/nvidia/version", path), 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_none(check());
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    expect_none(check());
}

/* ---- XGPU_SYSROOT ---- */

static void hostile_sysroot_is_refused_clearly(void **state) {
    (void)state;
    char file[PATH_MAX];
    assert_int_equal(xt_tree_path(root, "a-file", file), 0);
    put("a-file", "");
    char *longest = malloc(5001);
    assert_non_null(longest);
    longest[0] = '/';
    memset(longest + 1, 'a', 4999);
    longest[5000] = '\0';
    const struct {
        const char *value, *why;
    } cases[] = {
        {"relative/tree", "is not an absolute path"},
        {"/tmp/../etc", "holds a '..' component"},
        {"/tmp/..", "holds a '..' component"},
        {"/tmp/x\ny", "holds a control character"},
        {longest, "is 5000 bytes long, more than the 1024 taken"},
        {"/nonexistent/tree", "cannot be used: No such file or directory"},
        {file, "is not a folder"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("XGPU_SYSROOT", cases[i].value, 1);
        const tr_findings *fs = check();
        assert_int_equal(fs->count, 1);
        const tr_finding *fi = expect(fs, "sysroot_invalid", TR_ERROR);
        assert_contains(fi->message, cases[i].why);
        assert_contains(fi->message, "the machine was not checked");
        assert_true(strlen(fi->message) < 400);
        assert_null(strchr(fi->message, '\n'));
    }
    free(longest);
    /* "/tmp/..x" is a name, "/" and "" the machine itself. */
    setenv("XGPU_SYSROOT", "/", 1);
    gather();
    assert_string_equal(rep->facts.root, "");
    assert_string_equal(rep->facts.root_error, "");
}

static void reads_are_bounded(void **state) {
    (void)state;
    put("proc/small", "0123456789");
    tr_facts f;
    memset(&f, 0, sizeof f);
    snprintf(f.root, sizeof f.root, "%.1000s", root);
    char buf[8];
    bool cut = false;
    assert_int_equal(tr_read_text(&f, "/proc/small", buf, sizeof buf, &cut), 7);
    assert_string_equal(buf, "0123456");
    assert_true(cut);
    char big[64];
    assert_int_equal(tr_read_text(&f, "/proc/small", big, sizeof big, &cut), 10);
    assert_false(cut);
    assert_int_equal(tr_read_text(&f, "/proc/missing", big, sizeof big, &cut), -1);
    assert_int_equal(tr_read_text(&f, "/proc", big, sizeof big, &cut), -1);
    assert_string_equal(big, "");
    /* A path past PATH_MAX is no file. */
    char *path = malloc(PATH_MAX + 16);
    assert_non_null(path);
    memset(path, 'a', PATH_MAX + 15);
    path[0] = '/';
    path[PATH_MAX + 15] = '\0';
    assert_int_equal(tr_read_text(&f, path, big, sizeof big, NULL), -1);
    assert_false(tr_exists(&f, path));
    free(path);
}

/* ---- the JSON form ---- */

static void findings_as_json(void **state) {
    (void)state;
    nvidia_machine();
    setenv("CUDA_VISIBLE_DEVICES", "0,\"9\"\t", 1);
    fake_nvml_mig();
    const tr_findings *fs = check();
    assert_int_equal(fs->count, 2);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    fputs("{", f);
    tr_write_json(f, fs);
    fputs("}", f);
    assert_int_equal(fclose(f), 0);
    cJSON *doc = cJSON_Parse(text);
    if (!doc) {
        fail_msg("not JSON: %s", text);
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "findings");
    assert_int_equal(cJSON_GetArraySize(list), 2);
    const cJSON *first = cJSON_GetArrayItem(list, 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "id")->valuestring,
                        "visible_devices_unmatched");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "severity")->valuestring,
                        "warning");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "message")->valuestring,
                        fs->items[0].message);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "fix")->valuestring,
                        fs->items[0].fix);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(first, "details")),
                     fs->items[0].detail_count);
    cJSON_Delete(doc);
    free(text);
    /* None: an empty array. */
    tr_findings none;
    memset(&none, 0, sizeof none);
    f = open_memstream(&text, &size);
    tr_write_json(f, &none);
    fclose(f);
    assert_string_equal(text, "\"findings\": []");
    free(text);
}

/* ---- gpuinfo itself ---- */

#ifdef FAKE_CUDA_DEVICE
/* The fake CUDA driver copied to a name that carries a driver version,
 * as a real libcuda.so.1 resolves to libcuda.so.580.65.06. */
static void install_libcuda(const char *version) {
    size_t n = 0;
    char *image = xt_read_file(FAKE_CUDA_DEVICE, &n);
    assert_non_null(image);
    char rel[128], path[PATH_MAX];
    snprintf(rel, sizeof rel, "usr/lib/libcuda.so.%s", version);
    put_bytes(rel, image, n);
    free(image);
    assert_int_equal(xt_tree_path(root, rel, path), 0);
    setenv("XGPU_CUDA_DRIVER", path, 1);
    setenv("XGPU_BACKENDS", "cuda", 1);
    setenv("XGPU_NVRTC", "none", 1);
    setenv("XGPU_CACHE", "off", 1);
    setenv("XGPU_TUNE", "off", 1);
    setenv("FAKE_CUDA_DEVICES", "2", 1);
    setenv("FAKE_CUDA_PCI_BUS", "0x41,0x01", 1);
}

static void clear_libcuda(void) {
    static const char *const vars[] = {"XGPU_CUDA_DRIVER", "XGPU_BACKENDS", "XGPU_NVRTC",
                                       "XGPU_CACHE", "XGPU_TUNE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        unsetenv(vars[i]);
    }
}

static const char *const fake_machine_ids[] = {"cuda_device_order", "mig_enabled",
                                               "driver_version_mismatch"};

/* Two GPUs that CUDA numbers against the bus order, MIG on GPU 0, and a
 * libcuda newer than the kernel module. */
static void json_lists_the_findings(void **state) {
    (void)state;
    nvidia_machine();
    fake_nvml_mig();
    install_libcuda(FAKE_NVML_NEWER);
    int status = -1;
    char *out = xt_run_command(GPUINFO " --json 2>/dev/null", &status);
    clear_libcuda();
    assert_non_null(out);
    assert_int_equal(status, 0);
    cJSON *doc = cJSON_Parse(out);
    if (!doc) {
        fail_msg("gpuinfo --json is not JSON: %s", out);
    }
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "devices")), 2);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "findings");
    if (cJSON_GetArraySize(list) != 3) {
        fail_msg("not three findings: %s", out);
    }
    for (int i = 0; i < 3; i++) {
        const cJSON *fi = cJSON_GetArrayItem(list, i);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(fi, "id")->valuestring,
                            fake_machine_ids[i]);
        assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(fi, "message")));
        assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(fi, "fix")));
        assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(fi, "details")));
    }
    const cJSON *mismatch = cJSON_GetArrayItem(list, 2);
    assert_contains(cJSON_GetObjectItemCaseSensitive(mismatch, "message")->valuestring,
                    "but libcuda is " FAKE_NVML_NEWER);
    cJSON_Delete(doc);
    free(out);
}

static void doctor_prints_each_finding_and_its_fix(void **state) {
    (void)state;
    nvidia_machine();
    fake_nvml_mig();
    install_libcuda(FAKE_NVML_NEWER);
    int status = -1;
    char *out = xt_run_command(GPUINFO " --doctor 2>&1", &status);
    clear_libcuda();
    assert_non_null(out);
    assert_int_equal(status, 1); /* the fake's kernels compute nothing */
    static const char *const lines[] = {
        "stack: visible devices, CUDA device order, MIG, containers, WSL, driver versions\n",
        "  -     PCI bus: 2 NVIDIA, 0 AMD or Hygon GPU(s): 0000:01:00.0, 0000:41:00.0\n",
        "  -     kernel modules: nvidia " FAKE_NVML_KERNEL " (/proc/driver/nvidia/version)\n",
        "  WARN  cuda_device_order: CUDA_DEVICE_ORDER is unset",
        "          0      0000:41:00.0",
        "        fix: export CUDA_DEVICE_ORDER=PCI_BUS_ID\n",
        "  info  mig_enabled: MIG is on for 1 of 2 GPU(s)",
        "  FAIL  driver_version_mismatch: the NVIDIA kernel module is " FAKE_NVML_KERNEL,
        "        fix: reboot, or reload the nvidia modules",
        "kernel cache\n",
    };
    const char *at = out;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const char *next = strstr(at, lines[i]);
        if (!next) {
            fail_msg("the doctor lacks, in order, '%s':\n%s", lines[i], out);
        }
        at = next;
    }
    free(out);
}
#endif

static void json_of_a_pocl_machine_has_no_finding(void **state) {
    (void)state;
    put("etc/OpenCL/vendors/pocl.icd", "libpocl.so.2\n");
    put(".dockerenv", "");
    int status = -1;
    char *out = xt_run_command("XGPU_BACKENDS=opencl " GPUINFO " --json 2>/dev/null", &status);
    assert_non_null(out);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "\n  \"findings\": []\n}\n"));
    free(out);
    out = xt_run_command("XGPU_BACKENDS=opencl XGPU_SYSROOT=relative " GPUINFO " --json", &status);
    assert_non_null(out);
    assert_int_equal(status, 0);
    cJSON *doc = cJSON_Parse(out);
    assert_non_null(doc);
    const cJSON *fi = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "findings"), 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(fi, "id")->valuestring, "sysroot_invalid");
    cJSON_Delete(doc);
    free(out);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(clean_nvidia_machine_has_no_finding),
        T(clean_amd_machine_has_no_finding),
        T(pocl_alone_gives_no_finding),
        T(visible_index_beyond_the_gpus),
        T(visible_uuid_that_matches_nothing),
        T(visible_values_that_hide_every_gpu),
        T(visible_malformed_entries),
        T(visible_bad_input_is_said_clearly),
        T(rocr_then_hip_visible_devices),
        T(cuda_order_differs_from_pci_order),
        T(mig_devices_are_listed),
        T(container_without_the_nvidia_gpu),
        T(container_without_the_amd_gpu),
        T(gpu_without_device_nodes),
        T(opencl_icd_file_missing),
        T(wsl_reaches_the_gpu_through_dxg),
        T(kernel_module_and_library_differ),
        T(driver_versions_from_file_names),
        T(proc_version_bad_input),
        T(hostile_sysroot_is_refused_clearly),
        T(reads_are_bounded),
        T(findings_as_json),
#ifdef FAKE_CUDA_DEVICE
        T(json_lists_the_findings),
        T(doctor_prints_each_finding_and_its_fix),
#endif
        T(json_of_a_pocl_machine_has_no_finding),
    };
#undef T
    return cmocka_run_group_tests_name("gpuinfo_traps", tests, NULL, NULL);
}
