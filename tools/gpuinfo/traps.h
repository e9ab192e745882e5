/* gpuinfo's checks of the stack above the driver: traps of the machine
 * and its environment that make a GPU invisible or numbered differently
 * from what the user expects, each found as a finding (an id, a severity,
 * a message and the one-line fix) that --doctor prints and --json lists
 * under "findings" (docs/gpuinfo.md has the table).
 *
 * Two steps, so that a test can give the rules any machine: tr_gather_*
 * collect facts (the files of /proc, /sys, /dev, /etc and /run under
 * XGPU_SYSROOT, NVML's inventory, xgpu's devices and libraries, the
 * environment), then tr_check applies every rule to them. Files are read
 * through tr_read_text only: bounded, regular files only. */
#ifndef XGPU_GPUINFO_TRAPS_H
#define XGPU_GPUINFO_TRAPS_H

#include "nvml_inventory.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TR_ROOT_MAX 1024     /* the longest XGPU_SYSROOT taken */
#define TR_TEXT_MAX 4096     /* the most bytes read of a /proc or /sys file */
#define TR_MAX_PCI 64        /* GPUs kept from /sys/bus/pci/devices */
#define TR_MAX_XDEV 64       /* xgpu devices kept */
#define TR_MAX_FINDINGS 16   /* findings kept; more are counted in `dropped` */
#define TR_MAX_DETAILS 20    /* detail lines of one finding */
#define TR_PCI_NVIDIA 0x10de /* PCI vendor ids */
#define TR_PCI_AMD 0x1002
#define TR_PCI_HYGON 0x1d94

typedef enum tr_severity { TR_INFO, TR_WARNING, TR_ERROR } tr_severity;

typedef struct tr_finding {
    const char *id; /* "cuda_device_order": a static string of the table in docs/gpuinfo.md */
    tr_severity severity;
    char message[1024];
    char fix[512];                     /* one line: what to do */
    char details[TR_MAX_DETAILS][200]; /* extra lines (a table, a list), may be none */
    unsigned detail_count;
} tr_finding;

typedef struct tr_findings {
    unsigned count, dropped;
    tr_finding items[TR_MAX_FINDINGS];
} tr_findings;

/* A GPU function on the PCI bus (class 0x03xxxx display or 0x12xxxx
 * processing accelerator). */
typedef struct tr_pci {
    char bus_id[16]; /* "0000:01:00.0", lower case, as in /sys */
    unsigned vendor, class_code;
    char unique_id[40]; /* amdgpu's unique_id (ROCr's UUID without "GPU-"), "" when none */
} tr_pci;

/* A device path xgpu reaches, as the CUDA and HIP numberings need it. */
typedef struct tr_xdev {
    char backend[32];
    uint32_t index;
    char name[128];
    char bus_id[16]; /* "" when none */
    char uuid[48];   /* "GPU-xxxxxxxx-...", "" when none */
} tr_xdev;

typedef struct tr_facts {
    /* XGPU_SYSROOT (secure_getenv), "" for /; when it is unusable,
     * root_error says why and nothing else is gathered. */
    char root[TR_ROOT_MAX + 1];
    char root_error[320];
    /* /sys/bus/pci/devices, sorted by bus id */
    tr_pci pci[TR_MAX_PCI];
    unsigned pci_count;
    /* /dev */
    bool dev_nvidia;    /* /dev/nvidiactl or a /dev/nvidia<N> */
    bool dev_nvidia0;   /* /dev/nvidia0 itself */
    bool dev_kfd;       /* /dev/kfd */
    bool dev_render;    /* a /dev/dri/renderD<N> */
    bool dev_dxg;       /* /dev/dxg: WSL 2's GPU paravirtualisation */
    char container[64]; /* the hint of a container ("/.dockerenv"), "" when none */
    char wsl[64];       /* where WSL was seen ("/proc/version"), "" when not */
    bool wsl_libcuda;   /* /usr/lib/wsl/lib/libcuda.so.1 (or libcuda.so) exists */
    /* /etc/OpenCL/vendors: whether it exists and names each vendor's ICD */
    bool icd_dir, icd_nvidia, icd_amd;
    bool rocm_installed; /* /opt/rocm exists */
    /* the kernel modules */
    bool nvidia_module;   /* /proc/driver/nvidia or /sys/module/nvidia exists */
    char nvidia_kmod[32]; /* its version, "" when unknown */
    char nvidia_kmod_from[128];
    char nvidia_kmod_problem[256]; /* why /proc/driver/nvidia/version could not be read */
    char amdgpu_kmod[32];          /* /sys/module/amdgpu/version, "" when none */
    /* NVML (NULL when not gathered) */
    const ni_inventory *nvml;
    /* xgpu: its CUDA and HIP device paths, the CUDA driver's file */
    tr_xdev xdev[TR_MAX_XDEV];
    unsigned xdev_count;
    bool hip_available;
    char libcuda_file[512];   /* links resolved, "" when the CUDA backend loaded none */
    char libcuda_version[32]; /* from that file's name, "" when it has none */
    /* the environment (NULL: unset; pointers into environ, or a test's strings) */
    const char *cuda_visible, *hip_visible, *rocr_visible, *cuda_order, *ocl_icd_vendors,
        *nvidia_visible;
} tr_facts;

/* ---- gathering (traps_sys.c, traps.c) ---- */

/* Clears *f and takes XGPU_SYSROOT: 0, or -1 with root_error set (a
 * relative or over-long path, a control character, "..", not a folder). */
int tr_facts_init(tr_facts *f);
/* Everything under the root: PCI GPUs, device nodes, container and WSL
 * hints, ICD files, kernel module versions. */
void tr_gather_system(tr_facts *f);
/* CUDA_VISIBLE_DEVICES and the others, from the environment. */
void tr_gather_env(tr_facts *f);
/* xgpu's CUDA and HIP devices and the CUDA driver library it loaded. */
void tr_gather_xgpu(tr_facts *f);

/* root + path ("/proc/version") into out; -1 when it does not fit. */
int tr_path(const tr_facts *f, const char *path, char *out, size_t size);
/* Whether root + path exists (a regular file stands in for a node). */
bool tr_exists(const tr_facts *f, const char *path);
/* Up to size - 1 bytes of the regular file root + path, NUL-ended, into
 * buf: the length, or -1 when it is missing, not a regular file or
 * unreadable. *truncated (may be NULL) says the file had more; a NUL
 * byte in what was read is kept, so strlen(buf) < the length tells binary
 * data. */
long tr_read_text(const tr_facts *f, const char *path, char *buf, size_t size, bool *truncated);

/* ---- the rules (traps.c, traps_visible.c) ---- */

/* One rule of the table in traps_rules.c. */
typedef struct tr_rule {
    const char *name; /* as docs/gpuinfo.md's table names it */
    void (*check)(const tr_facts *f, tr_findings *out);
} tr_rule;
extern const tr_rule tr_rules[];
extern const size_t tr_rule_count;

/* Clears *out and applies every rule to f (only the one saying so when
 * XGPU_SYSROOT was unusable). */
void tr_check(const tr_facts *f, tr_findings *out);
/* The visible-devices rules alone (traps_visible.c). */
void tr_check_visible(const tr_facts *f, tr_findings *out);

/* A new finding in *out with its message (NULL when TR_MAX_FINDINGS are
 * there already: counted in `dropped`), then its fix and detail lines;
 * tr_fix and tr_detail take NULL and do nothing. */
tr_finding *tr_add(tr_findings *out, const char *id, tr_severity severity, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tr_fix(tr_finding *fi, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tr_detail(tr_finding *fi, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `value` as a message shows it: at most `max` bytes, control bytes as
 * '?', "..." and the length when cut. */
void tr_quote(const char *value, size_t max, char *out, size_t size);

/* How many GPUs of a family the machine has (PCI, NVML, xgpu: the most any
 * says). */
unsigned tr_nvidia_gpus(const tr_facts *f);
unsigned tr_amd_gpus(const tr_facts *f);

/* ---- the whole run and its output (traps.c, traps_print.c) ---- */

/* Everything one run learnt: the facts, NVML's inventory they point to,
 * and the findings. */
typedef struct tr_report {
    tr_facts facts;
    ni_inventory nvml;
    tr_findings findings;
} tr_report;

/* Gathers everything (NVML and xgpu's backends included) and checks it:
 * a calloc'ed report (free it), NULL when memory runs out. */
tr_report *tr_run(void);
const char *tr_severity_name(tr_severity s); /* "info", "warning", "error" */
/* The doctor's section: what was seen, then each finding with its
 * details and fix; "none" when there is none. */
void tr_print_doctor(FILE *out, const tr_report *r);
/* The member `"findings": [...]` of gpuinfo's JSON document, indented for
 * its top level, without a comma before or after. */
void tr_write_json(FILE *out, const tr_findings *fs);

#endif
