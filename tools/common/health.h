/* A device's health facts for gpubench's result files: its PCIe link
 * (current and maximum generation and width), ECC mode and error counts,
 * retired pages, remapped rows, NVLinks, MIG and persistence modes, its
 * temperature, the kernel module's version against the user-space
 * library's, and whether the kernel's Xid messages can be read. Read from
 * NVML or ROCm SMI (loaded at run time as telemetry.h's, the same
 * XGPU_NVML_LIBRARY, XGPU_ROCM_SMI_LIBRARY and XGPU_TELEMETRY_MATCH)
 * when one serves the device, the PCIe link otherwise from Linux's
 * /sys/bus/pci/devices/<bdf>/. Files of the host (/sys, /proc and
 * /dev/kmsg) are read under XGPU_TELEMETRY_HOST_ROOT when it is set (for
 * tests), each bounded and never blocking. Every fact has a known state:
 * an unknown one is never a 0. No verdict is drawn here. */
#ifndef XGPU_TOOLS_HEALTH_H
#define XGPU_TOOLS_HEALTH_H

#include <xgpu.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Where a group of facts came from. */
typedef enum gh_source {
    GH_SOURCE_NONE, /* nothing known */
    GH_SOURCE_NVML,
    GH_SOURCE_ROCM_SMI,
    GH_SOURCE_SYSFS, /* Linux's /sys */
} gh_source;

typedef enum gh_vendor {
    GH_VENDOR_UNKNOWN,
    GH_VENDOR_NVIDIA,
    GH_VENDOR_AMD,
} gh_vendor;

typedef struct gh_num {
    bool known;
    uint64_t value;
} gh_num;

typedef struct gh_flag {
    bool known;
    bool value;
} gh_flag;

typedef struct gh_pcie {
    gh_source source;
    bool under_load; /* current_* were read while data moved (gh_watch_*) */
    gh_num current_gen, max_gen, current_width, max_width;
} gh_pcie;

typedef struct gh_ecc {
    gh_source source;
    gh_flag enabled;
    gh_num volatile_corrected, volatile_uncorrected;   /* since the driver loaded */
    gh_num aggregate_corrected, aggregate_uncorrected; /* the device's lifetime */
} gh_ecc;

/* NVIDIA's retired pages by cause; AMD's reserved pages by status. */
typedef struct gh_retired {
    gh_source source;
    gh_num single_bit, double_bit; /* NVML */
    gh_flag pending;               /* a retirement waits for the next reset */
    gh_num reserved, unreservable; /* ROCm SMI; NVML: reserved = both causes */
} gh_retired;

typedef struct gh_remapped {
    gh_source source;
    gh_num correctable, uncorrectable;
    gh_flag pending, failed;
} gh_remapped;

typedef struct gh_nvlink {
    gh_source source;
    gh_num links, up; /* links that exist, and those active */
} gh_nvlink;

typedef struct gh_mig {
    gh_source source;
    gh_flag enabled, pending;
} gh_mig;

typedef struct gh_persistence {
    gh_source source;
    gh_flag enabled;
} gh_persistence;

/* Versions, "" when unknown: the kernel module's (/proc/driver/nvidia/version,
 * /sys/module/amdgpu/version) and the user-space libraries'
 * (nvmlSystemGetDriverVersion, ROCm SMI's driver version; libcuda.so.1's
 * file name, which tells even when NVML cannot start for the mismatch). */
typedef struct gh_driver {
    char kernel_module[96];
    char library[96];
    gh_flag match;    /* known when the module's and another are: false when one differs */
    char libcuda[96]; /* NVIDIA: the version in the loaded libcuda.so.1's file name */
} gh_driver;

typedef struct gh_xid {
    gh_flag readable; /* unknown for a device that is not NVIDIA's */
    gh_num count;     /* NVRM Xid lines, when readable */
    char why[256];    /* why not readable; "" otherwise */
} gh_xid;

#define GH_MAX_NVLINKS 18 /* NVML_NVLINK_MAX_LINKS */

/* One device's facts: gpubench's "health" object. */
typedef struct gh_facts {
    char device[48];     /* "cuda:0" */
    char pci_bus_id[32]; /* "0000:17:00.0", "" unknown */
    gh_source source;    /* the vendor library, else sysfs, else none */
    gh_vendor vendor;
    gh_pcie pcie;
    gh_ecc ecc;
    gh_retired retired;
    gh_remapped remapped;
    gh_nvlink nvlink;
    gh_mig mig;
    gh_persistence persistence;
    gh_num temperature_c;
    gh_driver driver;
    gh_xid xid;
} gh_facts;

typedef struct gh_device gh_device;

/* Opens the device's sources and reads every fact once. Never fails for
 * want of a source: what could not be read is unknown. NULL only when
 * memory runs out. Close with gh_close. */
gh_device *gh_open(const xgpu_device_info *info);
/* The same from a bus id ("0000:17:00.0", NULL or "" for none), NVML's
 * UUID ("GPU-...", NULL for none), the device's path ("cuda:0") and its
 * vendor as far as the caller knows. */
gh_device *gh_open_ids(const char *pci_bus_id, const char *uuid, const char *label,
                       gh_vendor vendor);
/* Stops a running watch, closes the library; NULL is ignored. */
void gh_close(gh_device *d);
const gh_facts *gh_device_facts(const gh_device *d);

/* The PCIe link read while data moves: gh_watch_start samples the current
 * generation and width on a thread of its own (every 20 ms, one reading
 * at once) until gh_watch_stop, which takes one more; the highest seen
 * under load replace the idle reading and mark it under_load. 0, or -1
 * when the thread could not start (the readings at start and stop are
 * still taken). Start and stop on one thread. */
int gh_watch_start(gh_device *d);
void gh_watch_stop(gh_device *d);

/* The "health" object of gpubench's results; unknown facts null, every
 * group an object. */
void gh_write_json(FILE *f, const gh_facts *h);
const char *gh_source_name(gh_source s); /* "nvml", "rocm_smi", "sysfs", "none" */

/* A PCIe speed as sysfs writes it ("16.0 GT/s PCIe") as a generation
 * (1 for 2.5 GT/s ... 6 for 64 GT/s); 0 when it is none of those. */
int gh_pcie_gen_from_speed(const char *text);
/* A transfer rate in transfers per second as a generation; 0 for none. */
int gh_pcie_gen_from_rate(double per_second);

#endif
