/* gpuinfo's checks of the stack (tools/gpuinfo/traps.h), one test per
 * finding on made-up machines (traps_machine.h): each fails when its rule
 * is taken out of traps_rules.c's table. Clean NVIDIA and AMD machines and
 * a pocl-only container give none. xgpu's CUDA devices are given to the
 * rules directly; the fake NVML has two GPUs, MIG and a driver version. */
#define _GNU_SOURCE
#include "traps_machine.h"
#include "xt_tree.h"

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

/* ---- clean machines ---- */

static void clean_nvidia_machine_has_no_finding(void **state) {
    (void)state;
    tm_nvidia_machine();
    tm_gather();
    tm_cuda_device("0000:01:00.0", FAKE_NVML_GPU0);
    tm_cuda_device("0000:41:00.0", FAKE_NVML_GPU1);
    tm_expect_none(tm_judge());
    assert_int_equal(tm_rep->facts.pci_count, 2);
    assert_string_equal(tm_rep->facts.nvidia_kmod, FAKE_NVML_KERNEL);
    assert_string_equal(tm_rep->nvml.driver_version, FAKE_NVML_KERNEL);
    assert_int_equal(tm_rep->nvml.gpu_count, 2);
    assert_string_equal(tm_rep->nvml.gpus[1].uuid, FAKE_NVML_GPU1);
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
        tm_expect_none(tm_check());
    }
}

static void clean_amd_machine_has_no_finding(void **state) {
    (void)state;
    tm_amd_machine();
    tm_expect_none(tm_check());
    assert_string_equal(tm_rep->facts.pci[0].unique_id, "4ee1f1bd8c2d0a4f");
    setenv("ROCR_VISIBLE_DEVICES", "GPU-9a0b1c2d3e4f5a6b,0", 1);
    setenv("HIP_VISIBLE_DEVICES", "1", 1);
    tm_expect_none(tm_check());
}

/* A CI container with pocl and no GPU: none of these findings, whatever
 * the visible-devices variables say (there is no GPU for them to hide). */
static void pocl_alone_gives_no_finding(void **state) {
    (void)state;
    tm_put(".dockerenv", "");
    tm_put("etc/OpenCL/vendors/pocl.icd", "libpocl.so.2\n");
    tm_put("proc/version", "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)\n");
    tm_pci_gpu("0000:00:02.0", "0x1234\n", "0x030000\n"); /* an emulated VGA */
    setenv("XGPU_BACKENDS", "opencl", 1);
    tr_report *r = tr_run();
    assert_non_null(r);
    tm_expect_none(&r->findings);
    free(r);
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    setenv("HIP_VISIBLE_DEVICES", "7", 1);
    r = tr_run();
    assert_non_null(r);
    tm_expect_none(&r->findings);
    free(r);
}

/* ---- visible devices ---- */

static void visible_index_beyond_the_gpus(void **state) {
    (void)state;
    tm_nvidia_machine();
    setenv("CUDA_VISIBLE_DEVICES", "0,4,1", 1);
    const tr_finding *fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_WARNING);
    tm_assert_contains(fi->message, "CUDA_VISIBLE_DEVICES=\"0,4,1\": entry 2 (\"4\") is no GPU");
    tm_assert_contains(fi->message, "2 NVIDIA GPU(s), indexes 0 to 1");
    tm_assert_contains(fi->message, "CUDA uses only the 1 entry before it");
    tm_assert_contains(fi->fix, "indexes 0 to 1 or UUIDs that nvidia-smi -L prints");
    assert_true(tm_details_contain(fi, FAKE_NVML_GPU1));
    /* The first entry: nothing is left. */
    setenv("CUDA_VISIBLE_DEVICES", "2", 1);
    fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_ERROR);
    tm_assert_contains(fi->message, "CUDA sees no GPU");
    /* NVML's count is what the process may reach: a container given one
     * of the host's two GPUs. */
    setenv("FAKE_NVML_COUNT", "1", 1);
    setenv("CUDA_VISIBLE_DEVICES", "1", 1);
    fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_ERROR);
    tm_assert_contains(fi->message, "1 NVIDIA GPU(s), index 0");
    /* Without NVML, the PCI bus's count. */
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    tm_expect_none(tm_check());
    setenv("CUDA_VISIBLE_DEVICES", "0,1,2", 1);
    fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_WARNING);
    tm_assert_contains(fi->message, "entry 3 (\"2\")");
    assert_true(tm_details_contain(fi, "0000:41:00.0 (PCI order)"));
}

static void visible_uuid_that_matches_nothing(void **state) {
    (void)state;
    tm_nvidia_machine();
    setenv("CUDA_VISIBLE_DEVICES", "GPU-deadbeef-0000", 1);
    const tr_finding *fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_ERROR);
    tm_assert_contains(fi->message, "matches no GPU UUID of this machine's 2 NVIDIA GPU(s)");
    setenv("CUDA_VISIBLE_DEVICES", FAKE_NVML_GPU0 "," FAKE_NVML_MIG0, 1);
    fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_WARNING);
    tm_assert_contains(fi->message, "matches no MIG device UUID");
    /* With MIG on, its devices are known by UUID, in either spelling. */
    fake_nvml_mig();
    tm_gather();
    tm_rep->findings.count = 0;
    tr_check_visible(&tm_rep->facts, &tm_rep->findings);
    tm_expect_none(&tm_rep->findings);
    setenv("CUDA_VISIBLE_DEVICES", "MIG-GPU-6f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/1/0", 1);
    tm_gather();
    tr_check_visible(&tm_rep->facts, &tm_rep->findings);
    tm_expect_none(&tm_rep->findings);
    /* Only xgpu's CUDA devices know UUIDs (no NVML): compared with them. */
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("CUDA_VISIBLE_DEVICES", "GPU-0a1b", 1);
    tm_gather();
    tm_cuda_device("0000:41:00.0", FAKE_NVML_GPU1);
    tm_expect_none(tm_judge());
    setenv("CUDA_VISIBLE_DEVICES", "GPU-0a1c", 1);
    tm_gather();
    tm_cuda_device("0000:41:00.0", FAKE_NVML_GPU1);
    tm_expect(tm_judge(), "visible_devices_unmatched", TR_ERROR);
    /* No UUID known at all: not judged. */
    tm_gather();
    tm_expect_none(tm_judge());
}

static void visible_values_that_hide_every_gpu(void **state) {
    (void)state;
    tm_nvidia_machine();
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const tr_finding *fi = tm_expect(tm_check(), "visible_devices_hide_all", TR_WARNING);
    tm_assert_contains(fi->message, "CUDA_VISIBLE_DEVICES is set but empty");
    tm_assert_contains(fi->message, "none of this machine's 2 NVIDIA GPU(s)");
    tm_assert_contains(fi->fix, "unset CUDA_VISIBLE_DEVICES");
    setenv("CUDA_VISIBLE_DEVICES", "NoDevFiles", 1);
    fi = tm_expect(tm_check(), "visible_devices_hide_all", TR_WARNING);
    tm_assert_contains(fi->message, "batch system");
    tm_assert_contains(fi->fix, "--gres=gpu:1");
    setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
    fi = tm_expect(tm_check(), "visible_devices_hide_all", TR_INFO);
    tm_assert_contains(fi->message, "negative index");
    assert_int_equal(tm_rep->findings.count, 1);
}

static void visible_malformed_entries(void **state) {
    (void)state;
    tm_nvidia_machine();
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
        const tr_findings *fs = tm_check();
        const tr_finding *fi = tm_find(fs, "visible_devices_unmatched");
        if (!fi) {
            fail_msg("CUDA_VISIBLE_DEVICES=\"%s\": no finding", cases[i].value);
        }
        tm_assert_contains(fi->message, cases[i].why);
    }
}

static void rocr_then_hip_visible_devices(void **state) {
    (void)state;
    tm_amd_machine();
    setenv("ROCR_VISIBLE_DEVICES", "3", 1);
    const tr_finding *fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_ERROR);
    tm_assert_contains(fi->message, "ROCR_VISIBLE_DEVICES=\"3\"");
    tm_assert_contains(fi->message, "2 AMD GPU(s)");
    tm_assert_contains(fi->fix, "rocminfo");
    setenv("ROCR_VISIBLE_DEVICES", "GPU-ffff", 1);
    tm_expect(tm_check(), "visible_devices_unmatched", TR_ERROR);
    /* HIP numbers what ROCr left: one GPU, index 0. */
    setenv("ROCR_VISIBLE_DEVICES", "GPU-4ee1f1bd8c2d0a4f", 1);
    setenv("HIP_VISIBLE_DEVICES", "1", 1);
    fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_ERROR);
    tm_assert_contains(fi->message, "HIP_VISIBLE_DEVICES=\"1\"");
    tm_assert_contains(fi->message, "ROCR_VISIBLE_DEVICES leaves 1 AMD GPU(s), index 0");
    /* HIP applies CUDA_VISIBLE_DEVICES on a machine with AMD GPUs only. */
    unsetenv("ROCR_VISIBLE_DEVICES");
    unsetenv("HIP_VISIBLE_DEVICES");
    setenv("CUDA_VISIBLE_DEVICES", "5", 1);
    fi = tm_expect(tm_check(), "visible_devices_unmatched", TR_ERROR);
    tm_assert_contains(fi->message, "HIP sees no GPU");
}

/* ---- CUDA_DEVICE_ORDER ---- */

static void cuda_order_differs_from_pci_order(void **state) {
    (void)state;
    tm_nvidia_machine();
    tm_gather();
    tm_cuda_device("0000:41:00.0", FAKE_NVML_GPU1); /* the faster one first */
    tm_cuda_device("0000:01:00.0", FAKE_NVML_GPU0);
    const tr_finding *fi = tm_expect(tm_judge(), "cuda_device_order", TR_WARNING);
    tm_assert_contains(fi->message, "CUDA's device 0 (cuda:0) is 0000:41:00.0");
    tm_assert_contains(fi->message, "nvidia-smi's 0 is 0000:01:00.0");
    assert_string_equal(fi->fix, "export CUDA_DEVICE_ORDER=PCI_BUS_ID");
    assert_int_equal(fi->detail_count, 3);
    tm_assert_contains(fi->details[0], "CUDA now (FASTEST_FIRST)");
    tm_assert_contains(fi->details[1], "0000:41:00.0");
    assert_true(strstr(fi->details[1], "0000:41:00.0") < strstr(fi->details[1], "0000:01:00.0"));
    /* Set, or CUDA_VISIBLE_DEVICES choosing the order: no finding. */
    setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
    tr_gather_env(&tm_rep->facts);
    assert_null(tm_find(tm_judge(), "cuda_device_order"));
    unsetenv("CUDA_DEVICE_ORDER");
    setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
    tm_gather();
    tm_cuda_device("0000:41:00.0", NULL);
    tm_cuda_device("0000:01:00.0", NULL);
    assert_null(tm_find(tm_judge(), "cuda_device_order"));
}

/* ---- MIG ---- */

static void mig_devices_are_listed(void **state) {
    (void)state;
    tm_nvidia_machine();
    fake_nvml_mig();
    const tr_finding *fi = tm_expect(tm_check(), "mig_enabled", TR_INFO);
    tm_assert_contains(fi->message, "MIG is on for 1 of 2 GPU(s)");
    tm_assert_contains(fi->message, "run one process per MIG device");
    tm_assert_contains(fi->fix, "CUDA_VISIBLE_DEVICES=" FAKE_NVML_MIG0);
    tm_assert_contains(fi->details[0], "GPU 0 00000000:01:00.0 " FAKE_NVML_GPU0 ": MIG on, 2 of 7");
    tm_assert_contains(fi->details[1], FAKE_NVML_MIG0);
    tm_assert_contains(fi->details[2], FAKE_NVML_MIG1);
    tm_assert_contains(fi->details[2], "MIG 1g.10gb");
    /* On without MIG devices: CUDA has nothing on that GPU. */
    unsetenv("FAKE_NVML_MIG_UUIDS");
    fi = tm_expect(tm_check(), "mig_enabled", TR_WARNING);
    tm_assert_contains(fi->message, "no CUDA device at all");
    tm_assert_contains(fi->fix, "nvidia-smi mig -i 0 -cgi");
    /* Off, on at the next reset. */
    setenv("FAKE_NVML_MIG", "0,1", 1);
    fi = tm_expect(tm_check(), "mig_enabled", TR_WARNING);
    tm_assert_contains(fi->details[0], "MIG off (on at the next reset)");
    tm_assert_contains(fi->fix, "nvidia-smi -r");
    setenv("FAKE_NVML_MIG", "0,0", 1);
    assert_null(tm_find(tm_check(), "mig_enabled"));
}

/* ---- device nodes and containers ---- */

static void container_without_the_nvidia_gpu(void **state) {
    (void)state;
    tm_pci_gpu("0000:01:00.0", "0x10de\n", "0x030200\n");
    tm_put(".dockerenv", "");
    const tr_finding *fi = tm_expect(tm_check(), "container_without_gpu", TR_WARNING);
    tm_assert_contains(fi->message, "container (/.dockerenv)");
    tm_assert_contains(fi->message, "NVIDIA GPU 0000:01:00.0 is on the PCI bus");
    tm_assert_contains(fi->fix, "docker run --gpus all");
    /* The image asks for a GPU: an error. */
    setenv("NVIDIA_VISIBLE_DEVICES", "all", 1);
    tm_expect(tm_check(), "container_without_gpu", TR_ERROR);
    /* With no GPU in /sys too, the image's variable alone, and a
     * container told by its cgroup. */
    assert_int_equal(xt_tree_remove(tm_root), 0);
    assert_int_equal(mkdir(tm_root, 0700), 0);
    tm_put("proc/1/cgroup", "12:devices:/docker/3f4e5d\n0::/\n");
    fi = tm_expect(tm_check(), "container_without_gpu", TR_ERROR);
    tm_assert_contains(fi->message, "/proc/1/cgroup: docker");
    tm_assert_contains(fi->message, "NVIDIA_VISIBLE_DEVICES=all");
    setenv("NVIDIA_VISIBLE_DEVICES", "void", 1);
    tm_expect_none(tm_check());
}

static void container_without_the_amd_gpu(void **state) {
    (void)state;
    tm_pci_gpu("0000:83:00.0", "0x1002\n", "0x120000\n");
    tm_put("run/.containerenv", "engine=\"podman-4.3.1\"\n");
    const tr_finding *fi = tm_expect(tm_check(), "container_without_gpu", TR_WARNING);
    tm_assert_contains(fi->message, "/dev/kfd and /dev/dri/renderD* are missing");
    tm_assert_contains(fi->fix, "--device=/dev/kfd --device=/dev/dri");
    tm_node("dev/kfd");
    fi = tm_expect(tm_check(), "container_without_gpu", TR_WARNING);
    tm_assert_contains(fi->message, "but /dev/dri/renderD* is missing");
}

static void gpu_without_device_nodes(void **state) {
    (void)state;
    tm_pci_gpu("0000:01:00.0", "0x10de\n", "0x030000\n");
    const tr_finding *fi = tm_expect(tm_check(), "gpu_without_device_nodes", TR_ERROR);
    tm_assert_contains(fi->message, "kernel module is not loaded");
    tm_assert_contains(fi->fix, "sudo modprobe nvidia");
    tm_put("proc/driver/nvidia/version", NVRM_LINE);
    fi = tm_expect(tm_check(), "gpu_without_device_nodes", TR_ERROR);
    tm_assert_contains(fi->fix, "nvidia-modprobe");
    tm_node("dev/nvidiactl");
    assert_null(tm_find(tm_check(), "gpu_without_device_nodes"));
    /* An AMD GPU without amdgpu. */
    tm_pci_gpu("0000:03:00.0", "0x1002\n", "0x030000\n");
    fi = tm_expect(tm_check(), "gpu_without_device_nodes", TR_WARNING);
    tm_assert_contains(fi->message, "amdgpu kernel driver is not loaded");
}

/* ---- OpenCL ICD files ---- */

static void opencl_icd_file_missing(void **state) {
    (void)state;
    tm_nvidia_machine();
    char path[PATH_MAX];
    assert_int_equal(xt_tree_path(tm_root, "etc/OpenCL/vendors/nvidia.icd", path), 0);
    assert_int_equal(unlink(path), 0);
    tm_put("etc/OpenCL/vendors/pocl.icd", "libpocl.so.2\n");
    const tr_finding *fi = tm_expect(tm_check(), "opencl_icd_missing", TR_WARNING);
    tm_assert_contains(fi->message, "/etc/OpenCL/vendors holds no ICD file naming it");
    tm_assert_contains(fi->fix,
                       "echo libnvidia-opencl.so.1 | sudo tee /etc/OpenCL/vendors/nvidia.icd");
    tm_put(".dockerenv", "");
    fi = tm_expect(tm_check(), "opencl_icd_missing", TR_WARNING);
    tm_assert_contains(fi->message, "the .icd file comes from the image");
    setenv("OCL_ICD_VENDORS", "/somewhere/else", 1);
    assert_null(tm_find(tm_check(), "opencl_icd_missing"));
    unsetenv("OCL_ICD_VENDORS");
    /* ROCm's. */
    assert_int_equal(xt_tree_remove(tm_root), 0);
    assert_int_equal(mkdir(tm_root, 0700), 0);
    setenv("XGPU_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    tm_amd_machine();
    assert_int_equal(xt_tree_path(tm_root, "etc/OpenCL/vendors/amdocl64_60200_66.icd", path), 0);
    assert_int_equal(unlink(path), 0);
    fi = tm_expect(tm_check(), "opencl_icd_missing", TR_WARNING);
    tm_assert_contains(fi->fix, "rocm-opencl-runtime");
}

/* ---- WSL ---- */

static void wsl_reaches_the_gpu_through_dxg(void **state) {
    (void)state;
    tm_node("dev/dxg");
    tm_put("proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n");
    const tr_finding *fi = tm_expect(tm_check(), "wsl", TR_WARNING);
    tm_assert_contains(fi->message, "without /usr/lib/wsl/lib/libcuda.so.1");
    tm_assert_contains(fi->fix, "NVIDIA driver on Windows");
    tm_put("usr/lib/wsl/lib/libcuda.so.1", "");
    fi = tm_expect(tm_check(), "wsl", TR_INFO);
    tm_assert_contains(fi->message, "/proc/sys/kernel/osrelease");
    assert_true(tm_details_contain(fi, "works: CUDA"));
    assert_true(tm_details_contain(fi, "partly: NVML"));
    /* A Linux driver's libcuda shadows WSL's. */
    tm_gather();
    snprintf(tm_rep->facts.libcuda_file, sizeof tm_rep->facts.libcuda_file,
             "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");
    fi = tm_expect(tm_judge(), "wsl", TR_WARNING);
    tm_assert_contains(fi->message, "shadows the Windows one");
    tm_assert_contains(fi->fix, "apt remove --purge");
    tm_gather();
    snprintf(tm_rep->facts.libcuda_file, sizeof tm_rep->facts.libcuda_file,
             "%.400s/usr/lib/wsl/drivers/nv.inf_amd64/libcuda.so.1.1", tm_root);
    tm_expect(tm_judge(), "wsl", TR_INFO);
    /* Neither the missing nodes nor a version tm_check apply there. */
    tm_pci_gpu("0000:01:00.0", "0x10de\n", "0x030200\n");
    tm_put("sys/module/nvidia/version", "1.0\n");
    setenv("XGPU_NVML_LIBRARY", NVML_FULL, 1);
    setenv("FAKE_NVML_INIT", "18", 1);
    const tr_findings *fs = tm_check();
    assert_int_equal(fs->count, 1);
    /* /proc/version's "Microsoft" without /dev/dxg is no WSL 2 GPU. */
    assert_int_equal(xt_tree_remove(tm_root), 0);
    assert_int_equal(mkdir(tm_root, 0700), 0);
    tm_put("proc/version", "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)\n");
    unsetenv("FAKE_NVML_INIT");
    tm_expect_none(tm_check());
}

/* ---- the kernel module against the user-space driver ---- */

static void kernel_module_and_library_differ(void **state) {
    (void)state;
    tm_nvidia_machine();
    setenv("FAKE_NVML_DRIVER", FAKE_NVML_NEWER, 1);
    const tr_finding *fi = tm_expect(tm_check(), "driver_version_mismatch", TR_ERROR);
    tm_assert_contains(fi->message, "kernel module is " FAKE_NVML_KERNEL
                                    " but NVML's driver is " FAKE_NVML_NEWER);
    tm_assert_contains(fi->message, "Driver/library version mismatch");
    tm_assert_contains(fi->fix, "reboot, or reload the nvidia modules");
    assert_true(tm_details_contain(fi, "/proc/driver/nvidia/version"));
    /* NVML does not start: its code says it. */
    setenv("FAKE_NVML_INIT", "18", 1);
    fi = tm_expect(tm_check(), "driver_version_mismatch", TR_ERROR);
    tm_assert_contains(fi->message, "nvmlInit_v2: 18");
    tm_assert_contains(tm_rep->nvml.error, "Driver/library version mismatch");
    unsetenv("FAKE_NVML_INIT");
    /* libcuda's file name against /sys/module/nvidia/version alone. */
    setenv("FAKE_NVML_DRIVER", FAKE_NVML_KERNEL, 1);
    char path[PATH_MAX];
    assert_int_equal(xt_tree_path(tm_root, "proc/driver/nvidia/version", path), 0);
    assert_int_equal(unlink(path), 0);
    tm_gather();
    assert_string_equal(tm_rep->facts.nvidia_kmod_from, "/sys/module/nvidia/version");
    snprintf(tm_rep->facts.libcuda_file, sizeof tm_rep->facts.libcuda_file,
             "/usr/lib/x86_64-linux-gnu/libcuda.so." FAKE_NVML_NEWER);
    ni_file_version(tm_rep->facts.libcuda_file, tm_rep->facts.libcuda_version,
                    sizeof tm_rep->facts.libcuda_version);
    fi = tm_expect(tm_judge(), "driver_version_mismatch", TR_ERROR);
    tm_assert_contains(fi->message, "but libcuda is " FAKE_NVML_NEWER);
    /* The same versions: none. */
    snprintf(tm_rep->facts.libcuda_version, sizeof tm_rep->facts.libcuda_version, FAKE_NVML_KERNEL);
    assert_null(tm_find(tm_judge(), "driver_version_mismatch"));
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, tm_setup, tm_teardown)
    const struct CMUnitTest tests[] = {
        T(clean_nvidia_machine_has_no_finding),
        T(clean_amd_machine_has_no_finding),
        T(pocl_alone_gives_no_finding),
        T(visible_index_beyond_the_gpus),
        T(visible_uuid_that_matches_nothing),
        T(visible_values_that_hide_every_gpu),
        T(visible_malformed_entries),
        T(rocr_then_hip_visible_devices),
        T(cuda_order_differs_from_pci_order),
        T(mig_devices_are_listed),
        T(container_without_the_nvidia_gpu),
        T(container_without_the_amd_gpu),
        T(gpu_without_device_nodes),
        T(opencl_icd_file_missing),
        T(wsl_reaches_the_gpu_through_dxg),
        T(kernel_module_and_library_differ),
    };
#undef T
    return cmocka_run_group_tests_name("gpuinfo_traps", tests, NULL, NULL);
}
