/* What NVML (libnvidia-ml.so.1, loaded at run time like telemetry's, the
 * file XGPU_NVML_LIBRARY names when set) says of the whole machine, for
 * gpuinfo's checks of the stack: whether it loads and initialises (and
 * nvmlInit_v2's code when not: 18 is the "Driver/library version
 * mismatch"), the driver version, and each GPU's UUID, PCI bus id, name,
 * MIG mode and MIG devices. NVML counts every GPU of the machine:
 * CUDA_VISIBLE_DEVICES does not apply to it. */
#ifndef XGPU_TOOLS_NVML_INVENTORY_H
#define XGPU_TOOLS_NVML_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>

#define NI_MAX_GPUS 32
#define NI_MAX_MIG 8                 /* an A100 or H100 holds at most 7 MIG devices */
#define NI_ERROR_DRIVER_NOT_LOADED 9 /* NVML_ERROR_DRIVER_NOT_LOADED */
#define NI_ERROR_VERSION_MISMATCH 18 /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */

typedef struct ni_mig {
    char uuid[96]; /* "MIG-...", "" when NVML did not say */
    char name[96]; /* "NVIDIA A100-SXM4-40GB MIG 1g.5gb" */
} ni_mig;

typedef struct ni_gpu {
    char uuid[96];   /* "GPU-...", "" when unknown */
    char bus_id[32]; /* NVML's spelling, "00000000:01:00.0"; "" when unknown */
    char name[96];
    int mig_current, mig_pending; /* 1 on, 0 off, -1 unknown (no MIG on this GPU) */
    unsigned mig_max;             /* MIG devices it can hold; 0 when unknown */
    unsigned mig_count;           /* entries in mig[] */
    ni_mig mig[NI_MAX_MIG];
} ni_gpu;

typedef struct ni_inventory {
    bool loaded;             /* the library was opened */
    char library[512];       /* the name dlopen took */
    char file[512];          /* that file with links resolved ("" when unknown) */
    int init_rc;             /* nvmlInit_v2's return, 0 when it succeeded; -1 not called */
    char error[512];         /* why NVML is not usable; "" when it is */
    char driver_version[96]; /* nvmlSystemGetDriverVersion, "" when unknown */
    bool count_known;
    unsigned count;     /* nvmlDeviceGetCount_v2 */
    unsigned gpu_count; /* entries in gpus[]: count, at most NI_MAX_GPUS */
    ni_gpu gpus[NI_MAX_GPUS];
} ni_inventory;

/* Fills *inv (about 40 KiB: allocate it) from NVML, then shuts NVML down.
 * Never fails: what could not be learnt is empty or -1 and `error` says
 * why. Not thread-safe with another NVML user of the process starting or
 * stopping it at the same moment. */
void ni_read(ni_inventory *inv);

/* The NVIDIA driver version in a library's file name ("580.65.06" in
 * ".../libcuda.so.580.65.06", also libnvidia-ml): a major of three or more
 * digits, then one or two dotted parts. "" when the name has none (the
 * tests' fakes, libcuda.so.1, WSL's libcuda.so.1.1). */
void ni_file_version(const char *file, char *out, size_t size);

#endif
