/* Health internals shared by health.c (the device, its watch thread and
 * what each source fills), health_nvml.c and health_rsmi.c (the vendor
 * libraries, opened through telemetry's loaders) and health_host.c (the
 * files of Linux: sysfs, the kernel modules' versions, /dev/kmsg). */
#ifndef XGPU_TOOLS_HEALTH_INTERNAL_H
#define XGPU_TOOLS_HEALTH_INTERNAL_H

#include "health.h"
#include "telemetry_internal.h"

#include <stddef.h>

/* A vendor library opened for one device (telemetry's gt_lib: its handle
 * and the device's) and the health functions found in it, by the GH_FN_*
 * indexes of health_nvml.c or health_rsmi.c; NULL when it lacks one. */
typedef struct gh_lib {
    gt_lib base;
    gt_fn fn[24];
} gh_lib;

/* A fact known to be `v`. */
static inline gh_num gh_known(uint64_t v) {
    gh_num n = {true, v};
    return n;
}
static inline gh_flag gh_flag_of(bool v) {
    gh_flag f = {true, v};
    return f;
}

/* health_nvml.c, health_rsmi.c */
/* Opens the library for the device with this bus id or UUID: 0, or -1. */
int gh_nvml_open(const char *bus_id, const char *uuid, gh_lib *lib);
int gh_rsmi_open(const char *bus_id, gh_lib *lib);
/* Every fact the library has into h, each group it fills marked with its
 * source. */
void gh_nvml_read(const gh_lib *lib, gh_facts *h);
void gh_rsmi_read(const gh_lib *lib, gh_facts *h);
/* The current link's generation and width; either may stay unknown. */
void gh_nvml_link(const gh_lib *lib, gh_num *gen, gh_num *width);
void gh_rsmi_link(const gh_lib *lib, gh_num *gen, gh_num *width);
void gh_nvml_close(gh_lib *lib);
/* The driver version in the name of the file libcuda.so.1 resolves to
 * ("550.54.15" in libcuda.so.550.54.15) when this process has loaded it
 * (the CUDA backend does); "" otherwise, or when the name has none. */
void gh_libcuda_version(char *out, size_t size);
void gh_rsmi_close(gh_lib *lib);

/* health_host.c */
/* The host file `path` ("/sys/...") under XGPU_TELEMETRY_HOST_ROOT into
 * buf, NUL-terminated, at most size - 1 bytes, never blocking: the bytes
 * read, or -1 with errno set (a folder, a FIFO or a device: EINVAL). */
long gh_read_host_file(const char *path, char *buf, size_t size);
/* The link in /sys/bus/pci/devices/<bus_id>/: current_* only, or the
 * maximum too; each value that is missing or does not parse stays
 * unknown. */
void gh_sysfs_link(const char *bus_id, gh_num *gen, gh_num *width);
void gh_sysfs_max_link(const char *bus_id, gh_num *gen, gh_num *width);
/* The PCI vendor in sysfs (0x10de, 0x1002), GH_VENDOR_UNKNOWN otherwise. */
gh_vendor gh_sysfs_vendor(const char *bus_id);
/* The vendor's kernel module version ("" when it cannot be read). */
void gh_kernel_module(gh_vendor vendor, char *out, size_t size);
/* Whether the kernel's log can be read, and its NVRM Xid lines counted. */
void gh_read_xid(gh_xid *x);

#endif
