/* Device info from clGetDeviceInfo, including the vendor extensions that
 * give a PCI address (cl_khr_pci_bus_info, NVIDIA's and AMD's queries) and
 * a UUID (cl_khr_device_uuid). */
#include "cl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Vendor query constants, defined here so older headers suffice. */
#define XGPU_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define XGPU_CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#define XGPU_CL_DEVICE_WARP_SIZE_NV 0x4003
#define XGPU_CL_DEVICE_PCI_BUS_ID_NV 0x4008
#define XGPU_CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#define XGPU_CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A
#define XGPU_CL_DEVICE_TOPOLOGY_AMD 0x4037
#define XGPU_CL_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043
#define XGPU_CL_DEVICE_UUID_KHR 0x106A
#define XGPU_CL_DEVICE_PCI_BUS_INFO_KHR 0x410F
/* OpenCL 3.0: CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES and _FENCE_, with the
 * bits for acquire/release order and device scope. */
#define XGPU_CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES 0x1063
#define XGPU_CL_DEVICE_ATOMIC_FENCE_CAPABILITIES 0x1064
#define XGPU_CL_ATOMIC_ACQ_REL_DEVICE ((1u << 1) | (1u << 5))

static void get_string(cl_device_id dev, cl_device_info param, char *out, size_t size) {
    out[0] = '\0';
    if (clGetDeviceInfo(dev, param, size, out, NULL) != CL_SUCCESS) {
        out[0] = '\0';
    }
    out[size - 1] = '\0';
}

static cl_uint get_uint(cl_device_id dev, cl_device_info param) {
    cl_uint v = 0;
    return clGetDeviceInfo(dev, param, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

static cl_ulong get_ulong(cl_device_id dev, cl_device_info param) {
    cl_ulong v = 0;
    return clGetDeviceInfo(dev, param, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

static size_t get_size(cl_device_id dev, cl_device_info param) {
    size_t v = 0;
    return clGetDeviceInfo(dev, param, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

static void fill_pci(cl_device_id dev, const char *exts, xgpu_device_info *info) {
    unsigned domain = 0, bus = 0, device = 0, function = 0;
    bool found = false;
    if (ocl__has_extension(exts, "cl_khr_pci_bus_info")) {
        cl_uint v[4];
        if (clGetDeviceInfo(dev, XGPU_CL_DEVICE_PCI_BUS_INFO_KHR, sizeof v, v, NULL) ==
            CL_SUCCESS) {
            domain = v[0], bus = v[1], device = v[2], function = v[3];
            found = true;
        }
    }
    if (!found && ocl__has_extension(exts, "cl_nv_device_attribute_query")) {
        cl_uint b = 0, slot = 0, dom = 0;
        if (clGetDeviceInfo(dev, XGPU_CL_DEVICE_PCI_BUS_ID_NV, sizeof b, &b, NULL) == CL_SUCCESS &&
            clGetDeviceInfo(dev, XGPU_CL_DEVICE_PCI_SLOT_ID_NV, sizeof slot, &slot, NULL) ==
                CL_SUCCESS) {
            /* Older drivers lack the domain query: domain 0 then. */
            clGetDeviceInfo(dev, XGPU_CL_DEVICE_PCI_DOMAIN_ID_NV, sizeof dom, &dom, NULL);
            domain = dom, bus = b, device = slot >> 3, function = slot & 7;
            found = true;
        }
    }
    if (!found && ocl__has_extension(exts, "cl_amd_device_attribute_query")) {
        /* cl_device_topology_amd: a type word, then PCIe bus/device/function
         * as signed chars at bytes 21..23. */
        unsigned char raw[24];
        cl_uint type = 0;
        if (clGetDeviceInfo(dev, XGPU_CL_DEVICE_TOPOLOGY_AMD, sizeof raw, raw, NULL) ==
            CL_SUCCESS) {
            memcpy(&type, raw, sizeof type);
            if (type == 1) { /* CL_DEVICE_TOPOLOGY_TYPE_PCIE_AMD */
                bus = raw[21], device = raw[22], function = raw[23];
                found = true;
            }
        }
    }
    if (found) {
        info->has_pci_bus_id = true;
        snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%04x:%02x:%02x.%x", domain & 0xffff,
                 bus & 0xff, device & 0x1f, function & 0x7);
    }
}

/* An architecture name: sm_XY on NVIDIA, gfxNNN on AMD (its device name),
 * the LLVM CPU name pocl reports in its device version ("HSTR: ...-skylake"). */
static void fill_arch(cl_device_id dev, const char *exts, xgpu_device_info *info) {
    if (ocl__has_extension(exts, "cl_nv_device_attribute_query")) {
        cl_uint major = get_uint(dev, XGPU_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV);
        cl_uint minor = get_uint(dev, XGPU_CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV);
        if (major) {
            snprintf(info->arch, sizeof info->arch, "sm_%u%u", major, minor);
            return;
        }
    }
    if (!strncmp(info->name, "gfx", 3)) {
        snprintf(info->arch, sizeof info->arch, "%.*s", (int)sizeof info->arch - 1, info->name);
        return;
    }
    const char *hstr = strstr(info->device_version, "HSTR:");
    const char *gnu = hstr ? strstr(hstr, "-gnu-") : NULL;
    if (gnu) {
        snprintf(info->arch, sizeof info->arch, "%s", gnu + 5);
        char *space = strchr(info->arch, ' ');
        if (space) {
            *space = '\0';
        }
    }
}

/* Release/acquire atomics and fences at device scope: mandatory in
 * OpenCL C 2.x; optional in 3.0, where the device's capabilities say (its
 * CL_DEVICE_OPENCL_C_VERSION may still read 1.2). The OpenCL C version
 * and the capabilities decide, never the vendor. */
static bool device_scope_atomics(cl_device_id dev, const xgpu_device_info *info) {
    if (!strncmp(info->language_version, "OpenCL C 2.", 11)) {
        return true;
    }
    if (strncmp(info->device_version, "OpenCL 3.", 9)) {
        return false;
    }
    cl_bitfield mem = 0, fence = 0;
    if (clGetDeviceInfo(dev, XGPU_CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, sizeof mem, &mem, NULL) !=
            CL_SUCCESS ||
        clGetDeviceInfo(dev, XGPU_CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, sizeof fence, &fence,
                        NULL) != CL_SUCCESS) {
        return false;
    }
    return (mem & XGPU_CL_ATOMIC_ACQ_REL_DEVICE) == XGPU_CL_ATOMIC_ACQ_REL_DEVICE &&
           (fence & XGPU_CL_ATOMIC_ACQ_REL_DEVICE) == XGPU_CL_ATOMIC_ACQ_REL_DEVICE;
}

xgpu_status ocl__device_info(cl_device_id dev, cl_platform_id platform, xgpu_device_info *info) {
    get_string(dev, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    get_string(dev, CL_DEVICE_NAME, info->name, sizeof info->name);
    get_string(dev, CL_DEVICE_VERSION, info->device_version, sizeof info->device_version);
    get_string(dev, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    get_string(dev, CL_DEVICE_OPENCL_C_VERSION, info->language_version,
               sizeof info->language_version);
    if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform, info->platform,
                          NULL) != CL_SUCCESS) {
        info->platform[0] = '\0';
    }
    info->platform[sizeof info->platform - 1] = '\0';

    cl_device_type type = 0;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    info->type = (type & CL_DEVICE_TYPE_GPU)           ? XGPU_DEVICE_TYPE_GPU
                 : (type & CL_DEVICE_TYPE_CPU)         ? XGPU_DEVICE_TYPE_CPU
                 : (type & CL_DEVICE_TYPE_ACCELERATOR) ? XGPU_DEVICE_TYPE_ACCELERATOR
                                                       : XGPU_DEVICE_TYPE_OTHER;
    info->compute_units = get_uint(dev, CL_DEVICE_MAX_COMPUTE_UNITS);
    info->max_clock_mhz = get_uint(dev, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    info->global_mem_bytes = get_ulong(dev, CL_DEVICE_GLOBAL_MEM_SIZE);
    info->local_mem_bytes = get_ulong(dev, CL_DEVICE_LOCAL_MEM_SIZE);
    info->constant_mem_bytes = get_ulong(dev, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
    info->max_alloc_bytes = get_ulong(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    info->l2_cache_bytes = get_ulong(dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    info->max_group_size = get_size(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    info->native_vector_width_f32 = get_uint(dev, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT);
    size_t dims[3] = {0, 0, 0};
    if (get_uint(dev, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS) >= 3 &&
        clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof dims, dims, NULL) ==
            CL_SUCCESS) {
        for (int d = 0; d < 3; d++) {
            info->max_group_dims[d] = dims[d];
        }
    }

    size_t ext_size = 0;
    char *exts = NULL;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size) == CL_SUCCESS) {
        exts = calloc(ext_size + 1, 1);
    }
    if (!exts || clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, ext_size, exts, NULL) != CL_SUCCESS) {
        free(exts);
        exts = calloc(1, 1);
        if (!exts) {
            return ocl__services->error(OCL_BACKEND_NAME, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                        "device info: malloc failed");
        }
    }
    info->fp64 = ocl__has_extension(exts, "cl_khr_fp64");
    info->fp16 = ocl__has_extension(exts, "cl_khr_fp16");
    /* The rule the build applies too (cl_extensions.c): what device info
     * reports is what a kernel gets as XGPU_HAS_SUBGROUPS. */
    info->subgroups = ocl__subgroups_usable(exts);
    if (ocl__has_extension(exts, "cl_nv_device_attribute_query")) {
        info->preferred_group_multiple = get_uint(dev, XGPU_CL_DEVICE_WARP_SIZE_NV);
    } else if (ocl__has_extension(exts, "cl_amd_device_attribute_query")) {
        info->preferred_group_multiple = get_uint(dev, XGPU_CL_DEVICE_WAVEFRONT_WIDTH_AMD);
    }
    info->subgroup_size = info->subgroups ? info->preferred_group_multiple : 0;
    fill_pci(dev, exts, info);
    if (ocl__has_extension(exts, "cl_khr_device_uuid") &&
        clGetDeviceInfo(dev, XGPU_CL_DEVICE_UUID_KHR, sizeof info->uuid, info->uuid, NULL) ==
            CL_SUCCESS) {
        info->has_uuid = true;
    }
    info->items_unvectorised_hint = ocl__has_extension(exts, "cl_intel_vec_len_hint");
    fill_arch(dev, exts, info);
    free(exts);
    info->device_scope_atomics = device_scope_atomics(dev, info);
    return XGPU_SUCCESS;
}

bool ocl__device_subgroups(cl_device_id dev) {
    size_t size = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS) {
        return false;
    }
    char *exts = calloc(size + 1, 1);
    bool usable = exts &&
                  clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, size, exts, NULL) == CL_SUCCESS &&
                  ocl__subgroups_usable(exts);
    free(exts);
    return usable;
}

bool ocl__device_cpu_only(cl_device_id dev) {
    cl_device_type type = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS) {
        return false;
    }
    return ocl__cpu_only(type);
}

_Static_assert(OCL__TYPE_DEFAULT == CL_DEVICE_TYPE_DEFAULT && OCL__TYPE_CPU == CL_DEVICE_TYPE_CPU &&
                   OCL__TYPE_GPU == CL_DEVICE_TYPE_GPU &&
                   OCL__TYPE_ACCELERATOR == CL_DEVICE_TYPE_ACCELERATOR,
               "cl_extensions.h's device type bits are OpenCL's");
