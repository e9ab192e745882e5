/* Made-up machines for the tests of gpuinfo's checks of the stack
 * (tools/gpuinfo/traps.h): a tree under XGPU_SYSROOT in a temporary
 * folder (/sys, /proc, /dev, /etc, /run, /opt, /usr/lib/wsl; an empty
 * regular file stands in for a device node), the stand-in NVML
 * (fake_nvml.c), and the facts and findings of one run in tm_rep.
 * CMocka asserts: a helper that fails fails the test. */
#ifndef XGPU_TEST_TRAPS_MACHINE_H
#define XGPU_TEST_TRAPS_MACHINE_H

#include "fake_nvml_values.h"
#include "traps.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define NVML_FULL FAKE_NVML_DIR "/full/libnvidia-ml.so.1"
#define NVRM_LINE                                                                                  \
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  " FAKE_NVML_KERNEL                   \
    "  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Jul  8 17:39:19 UTC 2025\n"

/* The tree's root (XGPU_SYSROOT), and the run's facts and findings. */
extern char tm_root[PATH_MAX];
extern tr_report *tm_rep;

/* A file root/rel holding `text` (or n bytes of `data`), its folders made. */
void tm_put(const char *rel, const char *text);
void tm_put_bytes(const char *rel, const char *data, size_t n);
/* A device node: an empty file. */
void tm_node(const char *rel);
/* A PCI function with these vendor and class files ("0x10de\n"). */
void tm_pci_gpu(const char *bus, const char *vendor, const char *cls);
/* Two NVIDIA GPUs on buses 01 and 41 as a working machine has them: nodes,
 * module FAKE_NVML_KERNEL (NVML says the same), NVIDIA's ICD file. */
void tm_nvidia_machine(void);
/* Two AMD GPUs (ROCr's UUIDs in amdgpu's unique_id), ROCm with its nodes
 * and ICD file. */
void tm_amd_machine(void);
/* xgpu's next CUDA device (cuda:<n>) with this bus id and UUID (NULL: none). */
void tm_cuda_device(const char *bus, const char *uuid);

/* The facts of the tree, the environment and NVML into tm_rep (the test
 * may add xgpu's devices then); the rules on them; both. */
void tm_gather(void);
const tr_findings *tm_judge(void);
const tr_findings *tm_check(void);

void tm_print_findings(const tr_findings *fs);
/* The first finding with this id, NULL when none. */
const tr_finding *tm_find(const tr_findings *fs, const char *id);
/* The finding with this id and severity, which has a fix; fails the test
 * otherwise. */
const tr_finding *tm_expect(const tr_findings *fs, const char *id, tr_severity severity);
void tm_expect_none(const tr_findings *fs);
void tm_assert_contains(const char *text, const char *part);
bool tm_details_contain(const tr_finding *fi, const char *part);

/* Each test: a new tree, no visible-devices or fake NVML variable set,
 * NVML missing; removed afterwards. */
int tm_setup(void **state);
int tm_teardown(void **state);

#endif
