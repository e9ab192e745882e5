/* The rules of gpuinfo's checks of the stack, one function each, in the
 * table at the end: each reads the facts (traps.h) and adds the findings
 * it sees, each with its one-line fix. docs/gpuinfo.md lists them. */
#include "traps.h"

#include <stdlib.h>
#include <string.h>

static bool wsl(const tr_facts *f) {
    return f->dev_dxg && f->wsl[0];
}

static unsigned pci_count(const tr_facts *f, unsigned vendor, unsigned vendor2,
                          const char **first) {
    unsigned n = 0;
    for (unsigned i = 0; i < f->pci_count; i++) {
        if (f->pci[i].vendor == vendor || f->pci[i].vendor == vendor2) {
            if (!n++ && first) {
                *first = f->pci[i].bus_id;
            }
        }
    }
    return n;
}

/* ---- XGPU_SYSROOT ---- */

static void rule_sysroot(const tr_facts *f, tr_findings *out) {
    if (f->root_error[0]) {
        tr_finding *fi = tr_add(out, "sysroot_invalid", TR_ERROR,
                                "%s, so the machine was not checked", f->root_error);
        tr_fix(fi, "unset XGPU_SYSROOT (it is for tests), or name an existing absolute folder "
                   "without '..'");
    }
}

/* ---- CUDA_DEVICE_ORDER ---- */

static int by_text(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID;
 * nvidia-smi and NVML number them by PCI bus. Judged on the CUDA
 * backend's devices, when every GPU is visible (CUDA_VISIBLE_DEVICES
 * unset: a set one orders them as it lists them). */
static void rule_cuda_order(const tr_facts *f, tr_findings *out) {
    if ((f->cuda_order && *f->cuda_order) || f->cuda_visible) {
        return;
    }
    const tr_xdev *cuda[TR_MAX_XDEV];
    const char *now[TR_MAX_XDEV], *sorted[TR_MAX_XDEV];
    unsigned n = 0;
    for (unsigned i = 0; i < f->xdev_count; i++) {
        if (!strcmp(f->xdev[i].backend, "cuda") && f->xdev[i].bus_id[0]) {
            cuda[n] = &f->xdev[i];
            now[n] = sorted[n] = f->xdev[i].bus_id;
            n++;
        }
    }
    qsort(sorted, n, sizeof sorted[0], by_text);
    unsigned first = 0;
    while (first < n && !strcmp(now[first], sorted[first])) {
        first++;
    }
    if (n < 2 || first == n) {
        return;
    }
    tr_finding *fi =
        tr_add(out, "cuda_device_order", TR_WARNING,
               "CUDA_DEVICE_ORDER is unset, so CUDA numbers these %u GPUs fastest first while "
               "nvidia-smi and NVML number them by PCI bus: CUDA's device %u (cuda:%u) is %s, "
               "nvidia-smi's %u is %s",
               n, first, cuda[first]->index, now[first], first, sorted[first]);
    tr_fix(fi, "export CUDA_DEVICE_ORDER=PCI_BUS_ID");
    tr_detail(fi, "%-6s %-38s %s", "index", "CUDA now (FASTEST_FIRST)",
              "nvidia-smi, CUDA_DEVICE_ORDER=PCI_BUS_ID");
    for (unsigned i = 0; i < n; i++) {
        const char *name = "";
        for (unsigned k = 0; k < n; k++) {
            name = !strcmp(cuda[k]->bus_id, sorted[i]) ? cuda[k]->name : name;
        }
        tr_detail(fi, "%-6u %-12s %-25.25s %-12s %.25s", i, now[i], cuda[i]->name, sorted[i], name);
    }
}

/* ---- MIG ---- */

static void mig_details(tr_finding *fi, unsigned index, const ni_gpu *g) {
    tr_detail(fi, "GPU %u %s %s: MIG %s%s, %u of %u MIG device(s)", index,
              g->bus_id[0] ? g->bus_id : "-", g->uuid[0] ? g->uuid : "-",
              g->mig_current == 1 ? "on" : "off",
              g->mig_pending != g->mig_current
                  ? (g->mig_pending ? " (on at the next reset)" : " (off at the next reset)")
                  : "",
              g->mig_count, g->mig_max);
    for (unsigned m = 0; m < g->mig_count; m++) {
        tr_detail(fi, "  %s  %s", g->mig[m].uuid[0] ? g->mig[m].uuid : "-", g->mig[m].name);
    }
}

/* A MIG GPU is no CUDA device of its own: CUDA sees its MIG devices, and
 * one process only one of them. */
static void rule_mig(const tr_facts *f, tr_findings *out) {
    if (!f->nvml) {
        return;
    }
    unsigned on = 0, empty = 0, pending = 0, first_gpu = 0;
    const char *first_mig = NULL;
    for (unsigned i = 0; i < f->nvml->gpu_count; i++) {
        const ni_gpu *g = &f->nvml->gpus[i];
        if (g->mig_current == 1) {
            if (!on++) {
                first_gpu = i;
            }
            empty += g->mig_count == 0;
            if (!first_mig && g->mig_count && g->mig[0].uuid[0]) {
                first_mig = g->mig[0].uuid;
            }
        }
        pending += g->mig_current >= 0 && g->mig_pending != g->mig_current;
    }
    if (!on && !pending) {
        return;
    }
    const char *one = "a CUDA process sees a MIG device, never the whole GPU, and only one: the "
                      "first that CUDA_VISIBLE_DEVICES names (else the first there is)";
    tr_finding *fi;
    if (on) {
        fi = tr_add(out, "mig_enabled", empty || pending ? TR_WARNING : TR_INFO,
                    "MIG is on for %u of %u GPU(s): %s%s%s%s", on, f->nvml->gpu_count, one,
                    on > 1 || f->nvml->gpus[first_gpu].mig_count > 1
                        ? "; run one process per MIG device"
                        : "",
                    empty ? "; a MIG GPU without MIG devices is no CUDA device at all" : "",
                    pending ? "; a MIG mode change waits for a GPU reset" : "");
    } else {
        fi = tr_add(out, "mig_enabled", TR_WARNING,
                    "the MIG mode of %u GPU(s) changes at the next GPU reset: with MIG on, %s",
                    pending, one);
    }
    if (empty) {
        tr_fix(fi,
               "create MIG devices (sudo nvidia-smi mig -i %u -cgi <profile> -C; nvidia-smi mig "
               "-lgip lists the profiles), or turn MIG off (sudo nvidia-smi -i %u -mig 0)",
               first_gpu, first_gpu);
    } else if (pending) {
        tr_fix(fi, "reset the GPU (sudo nvidia-smi -r, with no process on it) or reboot");
    } else {
        tr_fix(fi,
               "run each process with CUDA_VISIBLE_DEVICES=%s (its MIG device; nvidia-smi -L "
               "lists them), or turn MIG off (sudo nvidia-smi -i %u -mig 0)",
               first_mig ? first_mig : "MIG-<uuid>", first_gpu);
    }
    for (unsigned i = 0; i < f->nvml->gpu_count; i++) {
        const ni_gpu *g = &f->nvml->gpus[i];
        if (g->mig_current == 1 || (g->mig_current >= 0 && g->mig_pending != g->mig_current)) {
            mig_details(fi, i, g);
        }
    }
}

/* ---- device nodes: containers started without the GPU ---- */

static bool asks_for_nvidia(const tr_facts *f) {
    const char *v = f->nvidia_visible;
    return f->container[0] && v && *v && strcmp(v, "void") && strcmp(v, "none");
}

static void nvidia_nodes(const tr_facts *f, tr_findings *out) {
    const char *bus = NULL;
    unsigned n = pci_count(f, TR_PCI_NVIDIA, TR_PCI_NVIDIA, &bus);
    if (f->dev_nvidia || f->dev_dxg || (!n && !asks_for_nvidia(f))) {
        return;
    }
    tr_finding *fi;
    if (f->container[0]) {
        char seen[160];
        if (n) {
            snprintf(seen, sizeof seen, "the host's NVIDIA GPU %s%s is on the PCI bus (/sys)", bus,
                     n > 1 ? " and others" : "");
        } else {
            snprintf(seen, sizeof seen, "its image asks for a GPU (NVIDIA_VISIBLE_DEVICES=%.40s)",
                     f->nvidia_visible);
        }
        fi = tr_add(out, "container_without_gpu", asks_for_nvidia(f) ? TR_ERROR : TR_WARNING,
                    "this is a container (%s) started without the NVIDIA GPU: %s, but there is no "
                    "/dev/nvidia* device node, so CUDA, NVML and NVIDIA's OpenCL see no GPU",
                    f->container, seen);
        tr_fix(fi, "start it with the GPU: docker run --gpus all (NVIDIA Container Toolkit), "
                   "podman run --device nvidia.com/gpu=all, or a nvidia.com/gpu resource limit "
                   "in Kubernetes");
    } else if (f->nvidia_module) {
        fi = tr_add(out, "gpu_without_device_nodes", TR_ERROR,
                    "NVIDIA GPU %s is on the PCI bus and the nvidia kernel module is loaded, but "
                    "its /dev/nvidia* device nodes were never made, so CUDA sees no GPU",
                    bus);
        tr_fix(fi, "sudo nvidia-modprobe -c 0 -u (or run nvidia-smi once as root): it makes "
                   "/dev/nvidiactl, /dev/nvidia0 and /dev/nvidia-uvm");
    } else {
        fi = tr_add(out, "gpu_without_device_nodes", TR_ERROR,
                    "NVIDIA GPU %s is on the PCI bus but there is no /dev/nvidia*: the NVIDIA "
                    "kernel module is not loaded, so CUDA sees no GPU",
                    bus);
        tr_fix(fi, "sudo modprobe nvidia; if that fails, (re)install the NVIDIA driver (with "
                   "Secure Boot, its module must be signed or its key enrolled)");
    }
    tr_detail(fi, "NVIDIA GPUs on the PCI bus: %u", n);
}

static void amd_nodes(const tr_facts *f, tr_findings *out) {
    const char *bus = NULL;
    unsigned n = pci_count(f, TR_PCI_AMD, TR_PCI_HYGON, &bus);
    if (!n || (f->dev_kfd && f->dev_render)) {
        return;
    }
    const char *missing = !f->dev_kfd && !f->dev_render ? "/dev/kfd and /dev/dri/renderD* are"
                          : !f->dev_kfd                 ? "/dev/kfd is"
                                                        : "/dev/dri/renderD* is";
    tr_finding *fi;
    if (f->container[0]) {
        fi = tr_add(out, "container_without_gpu", TR_WARNING,
                    "this is a container (%s) started without the AMD GPU: the host's GPU %s is "
                    "on the PCI bus (/sys), but %s missing, so ROCm (HIP) sees no GPU",
                    f->container, bus, missing);
        tr_fix(fi, "start it with the GPU: docker run --device=/dev/kfd --device=/dev/dri "
                   "--group-add video (podman takes the same --device options)");
    } else if (!f->dev_kfd) {
        fi = tr_add(out, "gpu_without_device_nodes", TR_WARNING,
                    "AMD GPU %s is on the PCI bus but %s missing: the amdgpu kernel driver is "
                    "not loaded (or does not run this GPU), so ROCm (HIP) sees no GPU",
                    bus, missing);
        tr_fix(fi, "sudo modprobe amdgpu; if that fails, install the amdgpu driver "
                   "(amdgpu-dkms from ROCm's repository) and check dmesg");
    } else {
        fi = tr_add(out, "gpu_without_device_nodes", TR_WARNING,
                    "AMD GPU %s: /dev/kfd exists but no /dev/dri/renderD*, and ROCm needs both",
                    bus);
        tr_fix(fi, "check dmesg for amdgpu errors; sudo modprobe amdgpu makes the render nodes");
    }
    tr_detail(fi, "AMD and Hygon GPUs on the PCI bus: %u", n);
}

static void rule_device_nodes(const tr_facts *f, tr_findings *out) {
    nvidia_nodes(f, out);
    amd_nodes(f, out);
}

/* ---- OpenCL ICD files ---- */

static void rule_icd(const tr_facts *f, tr_findings *out) {
    if (f->ocl_icd_vendors && *f->ocl_icd_vendors) {
        return; /* the ICD loader reads another folder: the user's choice */
    }
    const char *where = f->icd_dir ? "/etc/OpenCL/vendors holds no ICD file naming it"
                                   : "there is no /etc/OpenCL/vendors";
    const char *image = f->container[0] ? " (in a container, the NVIDIA Container Toolkit mounts "
                                          "the driver's libraries, but the .icd file comes "
                                          "from the image)"
                                        : "";
    if (!wsl(f) && (f->nvidia_module || f->dev_nvidia) && !f->icd_nvidia) {
        tr_finding *fi = tr_add(out, "opencl_icd_missing", TR_WARNING,
                                "the NVIDIA driver is loaded but %s (libnvidia-opencl.so.1): "
                                "OpenCL (xgpu's opencl backend, clinfo) sees no NVIDIA GPU%s",
                                where, image);
        tr_fix(fi, "echo libnvidia-opencl.so.1 | sudo tee /etc/OpenCL/vendors/nvidia.icd (in an "
                   "image: a RUN line of its Dockerfile)");
    }
    if (pci_count(f, TR_PCI_AMD, TR_PCI_AMD, NULL) && f->dev_kfd &&
        (f->rocm_installed || f->hip_available) && !f->icd_amd) {
        tr_finding *fi = tr_add(out, "opencl_icd_missing", TR_WARNING,
                                "ROCm runs this machine's AMD GPU but %s (libamdocl64.so): "
                                "OpenCL sees no AMD GPU",
                                where);
        tr_fix(fi, "install ROCm's OpenCL runtime (rocm-opencl-runtime writes "
                   "/etc/OpenCL/vendors/amdocl64*.icd), or echo libamdocl64.so | sudo tee "
                   "/etc/OpenCL/vendors/amdocl64.icd");
    }
}

/* ---- WSL ---- */

static void rule_wsl(const tr_facts *f, tr_findings *out) {
    if (!wsl(f) || f->dev_nvidia0) {
        return;
    }
    char wsl_lib[1100];
    snprintf(wsl_lib, sizeof wsl_lib, "%s/usr/lib/wsl/", f->root);
    tr_finding *fi;
    if (!f->wsl_libcuda) {
        fi = tr_add(out, "wsl", TR_WARNING,
                    "WSL 2 (%s, /dev/dxg) without /usr/lib/wsl/lib/libcuda.so.1: the Windows "
                    "NVIDIA driver does not reach this distribution, so CUDA sees no GPU",
                    f->wsl);
        tr_fix(fi, "install or update the NVIDIA driver on Windows (never in WSL), then wsl "
                   "--shutdown and start WSL again");
    } else if (f->libcuda_file[0] && strncmp(f->libcuda_file, wsl_lib, strlen(wsl_lib)) != 0) {
        fi = tr_add(
            out, "wsl", TR_WARNING,
            "WSL 2 (%s): CUDA loaded %s, not WSL's /usr/lib/wsl/lib/libcuda.so.1: a Linux "
            "NVIDIA driver installed in WSL shadows the Windows one and cannot reach the GPU",
            f->wsl, f->libcuda_file);
        tr_fix(fi, "remove the Linux NVIDIA driver from WSL (sudo apt remove --purge "
                   "'nvidia-driver-*' 'libnvidia-compute-*'), so that /usr/lib/wsl/lib's libcuda "
                   "is found");
    } else {
        fi = tr_add(out, "wsl", TR_INFO,
                    "WSL 2 (%s): the GPU is reached through /dev/dxg and the Windows driver, not "
                    "/dev/nvidia* and a kernel module",
                    f->wsl);
        tr_fix(fi, "nothing for CUDA: keep the NVIDIA driver on Windows up to date and install "
                   "no Linux NVIDIA driver in WSL");
    }
    tr_detail(fi, "works: CUDA, through /usr/lib/wsl/lib/libcuda.so.1; nvidia-smi");
    tr_detail(fi, "partly: NVML (some queries answer Not Supported: clock-event reasons, MIG, "
                  "per-process data)");
    tr_detail(fi, "not: /dev/nvidia* and the nvidia module (so no version check), NVIDIA's "
                  "OpenCL ICD, ROCm on most GPUs");
}

/* ---- the kernel module against the user-space driver ---- */

typedef struct version_of {
    const char *what, *version, *from;
} version_of;

static void rule_driver_version(const tr_facts *f, tr_findings *out) {
    if (wsl(f)) {
        return;
    }
    char nvml_file_version[32] = "";
    if (f->nvml) {
        ni_file_version(f->nvml->file, nvml_file_version, sizeof nvml_file_version);
    }
    const version_of user[] = {
        {"NVML's driver", f->nvml ? f->nvml->driver_version : "", "nvmlSystemGetDriverVersion"},
        {"libnvidia-ml", nvml_file_version, f->nvml ? f->nvml->file : ""},
        {"libcuda", f->libcuda_version, f->libcuda_file},
    };
    bool nvml_says = f->nvml && f->nvml->init_rc == NI_ERROR_VERSION_MISMATCH;
    const version_of *other = NULL;
    for (size_t i = 0; i < sizeof user / sizeof user[0]; i++) {
        if (f->nvidia_kmod[0] && user[i].version[0] && strcmp(user[i].version, f->nvidia_kmod)) {
            other = other ? other : &user[i];
        }
    }
    if (!other && !nvml_says) {
        return;
    }
    tr_finding *fi;
    if (other) {
        fi = tr_add(out, "driver_version_mismatch", TR_ERROR,
                    "the NVIDIA kernel module is %s but %s is %s: NVML fails (\"Failed to "
                    "initialize NVML: Driver/library version mismatch\") and CUDA "
                    "(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH), usually after a driver upgrade the "
                    "running kernel has not loaded",
                    f->nvidia_kmod, other->what, other->version);
    } else {
        fi = tr_add(out, "driver_version_mismatch", TR_ERROR,
                    "NVML says \"Driver/library version mismatch\" (nvmlInit_v2: %d): the loaded "
                    "NVIDIA kernel module%s%s is not the version of %s, usually after a driver "
                    "upgrade the running kernel has not loaded",
                    f->nvml->init_rc, f->nvidia_kmod[0] ? " " : "", f->nvidia_kmod,
                    f->nvml->file[0] ? f->nvml->file : f->nvml->library);
    }
    tr_fix(fi, "reboot, or reload the nvidia modules (sudo rmmod nvidia_uvm nvidia_drm "
               "nvidia_modeset nvidia && sudo modprobe nvidia)");
    if (f->nvidia_kmod[0]) {
        tr_detail(fi, "%-15s %-12s %s", "kernel module", f->nvidia_kmod, f->nvidia_kmod_from);
    }
    for (size_t i = 0; i < sizeof user / sizeof user[0]; i++) {
        if (user[i].version[0]) {
            tr_detail(fi, "%-15s %-12s %s", user[i].what, user[i].version, user[i].from);
        }
    }
}

static void rule_kernel_version_file(const tr_facts *f, tr_findings *out) {
    if (!f->nvidia_kmod_problem[0]) {
        return;
    }
    char also[200] = "";
    if (f->nvidia_kmod[0]) {
        snprintf(also, sizeof also, " (%s says %s)", f->nvidia_kmod_from, f->nvidia_kmod);
    }
    tr_finding *fi = tr_add(out, "nvidia_version_unreadable", TR_INFO,
                            "%s, so the kernel module's version is not read from it%s",
                            f->nvidia_kmod_problem, also);
    tr_fix(fi, "cat /proc/driver/nvidia/version should show one \"NVRM version:\" line; if not, "
               "reinstall the NVIDIA driver");
}

/* ---- the table ---- */

const tr_rule tr_rules[] = {
    {"visible devices", tr_check_visible},
    {"CUDA device order", rule_cuda_order},
    {"MIG", rule_mig},
    {"device nodes", rule_device_nodes},
    {"OpenCL ICD files", rule_icd},
    {"WSL", rule_wsl},
    {"driver versions", rule_driver_version},
    {"kernel module version file", rule_kernel_version_file},
};
const size_t tr_rule_count = sizeof tr_rules / sizeof tr_rules[0];

void tr_check(const tr_facts *f, tr_findings *out) {
    memset(out, 0, sizeof *out);
    if (f->root_error[0]) {
        rule_sysroot(f, out);
        return;
    }
    for (size_t i = 0; i < tr_rule_count; i++) {
        tr_rules[i].check(f, out);
    }
}
