/* The rows of a physical device: one entry per field, used by gpuinfo's
 * text printer (-v) and the JSON document alike. A getter that cannot tell sets DF_NULL; one whose
 * query failed sets DF_ERROR with the message, shown in that cell only. */
#include "fields.h"
#include "device_id.h"
#include "peaks.h"

#include <stdio.h>
#include <string.h>

#define PRIMARY(d) (&(d)->infos[0])

static void set_string(df_value *v, const char *s) {
    if (!s || !*s) {
        v->kind = DF_NULL;
        return;
    }
    v->kind = DF_STRING;
    snprintf(v->text, sizeof v->text, "%s", s);
}

static void set_uint(df_value *v, uint64_t u) {
    v->kind = u ? DF_UINT : DF_NULL; /* 0 means "not reported" in xgpu_device_info */
    v->u = u;
}

static void set_bool(df_value *v, int b) {
    v->kind = DF_BOOL;
    v->b = b != 0;
}

#define STRING_FIELD(fn, member)                                                                   \
    static void fn(const pd_device *d, df_value *v) {                                              \
        set_string(v, PRIMARY(d)->member);                                                         \
    }
#define UINT_FIELD(fn, member)                                                                     \
    static void fn(const pd_device *d, df_value *v) {                                              \
        set_uint(v, PRIMARY(d)->member);                                                           \
    }
#define BOOL_FIELD(fn, member)                                                                     \
    static void fn(const pd_device *d, df_value *v) {                                              \
        set_bool(v, PRIMARY(d)->member);                                                           \
    }

STRING_FIELD(get_vendor, vendor)
STRING_FIELD(get_name, name)
STRING_FIELD(get_arch, arch)
STRING_FIELD(get_platform, platform)
STRING_FIELD(get_driver_version, driver_version)
STRING_FIELD(get_device_version, device_version)
STRING_FIELD(get_language_version, language_version)
UINT_FIELD(get_compute_units, compute_units)
UINT_FIELD(get_max_clock, max_clock_mhz)
UINT_FIELD(get_subgroup_size, subgroup_size)
UINT_FIELD(get_group_multiple, preferred_group_multiple)
UINT_FIELD(get_global_mem, global_mem_bytes)
UINT_FIELD(get_local_mem, local_mem_bytes)
UINT_FIELD(get_local_mem_per_cu, local_mem_per_cu_bytes)

/* Fixed-size local memory: the device's own limit where it has one. */
static void get_local_mem_static(const pd_device *d, df_value *v) {
    uint64_t s = PRIMARY(d)->local_mem_static_bytes;
    set_uint(v, s ? s : PRIMARY(d)->local_mem_bytes);
}
UINT_FIELD(get_constant_mem, constant_mem_bytes)
UINT_FIELD(get_max_alloc, max_alloc_bytes)
UINT_FIELD(get_l2, l2_cache_bytes)
UINT_FIELD(get_memory_clock, memory_clock_mhz)
UINT_FIELD(get_bus_width, memory_bus_width_bits)
UINT_FIELD(get_max_group_size, max_group_size)
UINT_FIELD(get_max_group_x, max_group_dims[0])
UINT_FIELD(get_max_group_y, max_group_dims[1])
UINT_FIELD(get_max_group_z, max_group_dims[2])
UINT_FIELD(get_max_groups_x, max_groups[0])
UINT_FIELD(get_max_groups_y, max_groups[1])
UINT_FIELD(get_max_groups_z, max_groups[2])
BOOL_FIELD(get_fp64, fp64)
BOOL_FIELD(get_fp16, fp16)
BOOL_FIELD(get_subgroups, subgroups)

static void get_type(const pd_device *d, df_value *v) {
    static const char *const names[] = {"other", "cpu", "gpu", "accelerator"};
    unsigned t = (unsigned)PRIMARY(d)->type;
    set_string(v, t < 4 ? names[t] : "other");
}

/* PCI and UUID: from any path that knows them (OpenCL on some drivers
 * lacks both while CUDA has them). */
static void get_pci(const pd_device *d, df_value *v) {
    v->kind = DF_NULL;
    for (uint32_t p = 0; p < d->path_count; p++) {
        if (d->infos[p].has_pci_bus_id) {
            set_string(v, d->infos[p].pci_bus_id);
            return;
        }
    }
}

static void get_uuid(const pd_device *d, df_value *v) {
    v->kind = DF_NULL;
    for (uint32_t p = 0; p < d->path_count; p++) {
        if (d->infos[p].has_uuid) {
            v->kind = DF_STRING;
            devid_uuid(&d->infos[p], v->text, sizeof v->text);
            return;
        }
    }
}

static void get_ecc(const pd_device *d, df_value *v) {
    int32_t e = PRIMARY(d)->ecc_enabled;
    if (e < 0) {
        v->kind = DF_NULL;
    } else {
        set_bool(v, e);
    }
}

/* Asked of the driver now, not cached: may fail, and says so in its cell. */
static void get_free_mem(const pd_device *d, df_value *v) {
    uint64_t free_bytes = 0;
    xgpu_status st = xgpu_device_free_memory(d->devices[0], &free_bytes);
    if (st == XGPU_ERROR_UNSUPPORTED) {
        v->kind = DF_NULL;
    } else if (st != XGPU_SUCCESS) {
        v->kind = DF_ERROR;
        snprintf(v->text, sizeof v->text, "%s", xgpu_last_error()->message);
    } else {
        v->kind = DF_UINT;
        v->u = free_bytes;
    }
}

/* A derived peak: its figure when known, its provenance either way. */
static void set_peak(df_value *v, const peak_figure *p) {
    v->kind = p->known ? DF_FLOAT : DF_NULL;
    v->f = p->value;
    snprintf(v->provenance, sizeof v->provenance, "%s", p->provenance);
}

static void get_peak_fp32(const pd_device *d, df_value *v) {
    peak_figure p;
    peak_fp32(PRIMARY(d), &p);
    set_peak(v, &p);
}

static void get_peak_bandwidth(const pd_device *d, df_value *v) {
    peak_figure p;
    peak_bandwidth(PRIMARY(d), &p);
    set_peak(v, &p);
}

const df_field df_fields[] = {
    {"identity", "vendor", "Vendor", DF_UNIT_NONE, get_vendor},
    {"identity", "name", "Name", DF_UNIT_NONE, get_name},
    {"identity", "arch", "Architecture", DF_UNIT_NONE, get_arch},
    {"identity", "type", "Type", DF_UNIT_NONE, get_type},
    {"identity", "platform", "OpenCL platform", DF_UNIT_NONE, get_platform},
    {"identity", "pci_bus_id", "PCI bus id", DF_UNIT_NONE, get_pci},
    {"identity", "uuid", "UUID", DF_UNIT_NONE, get_uuid},
    {"compute", "compute_units", "Compute units", DF_UNIT_NONE, get_compute_units},
    {"compute", "max_clock_mhz", "Max clock", DF_UNIT_MHZ, get_max_clock},
    {"compute", "subgroup_size", "Subgroup size", DF_UNIT_NONE, get_subgroup_size},
    {"compute", "preferred_group_multiple", "Preferred group multiple", DF_UNIT_NONE,
     get_group_multiple},
    {"compute", "fp64", "fp64", DF_UNIT_NONE, get_fp64},
    {"compute", "fp16", "fp16", DF_UNIT_NONE, get_fp16},
    {"compute", "subgroups", "Subgroups", DF_UNIT_NONE, get_subgroups},
    {"compute", "peak_fp32_gflops", "Peak fp32", DF_UNIT_GFLOPS, get_peak_fp32},
    {"memory", "global_mem_bytes", "Global memory", DF_UNIT_BYTES, get_global_mem},
    {"memory", "free_mem_bytes", "Free memory now", DF_UNIT_BYTES, get_free_mem},
    {"memory", "max_alloc_bytes", "Largest allocation", DF_UNIT_BYTES, get_max_alloc},
    {"memory", "local_mem_bytes", "Local memory per group", DF_UNIT_BYTES, get_local_mem},
    {"memory", "local_mem_static_bytes", "Fixed local mem per group", DF_UNIT_BYTES,
     get_local_mem_static},
    {"memory", "local_mem_per_cu_bytes", "Local memory per CU", DF_UNIT_BYTES,
     get_local_mem_per_cu},
    {"memory", "constant_mem_bytes", "Constant memory", DF_UNIT_BYTES, get_constant_mem},
    {"memory", "l2_cache_bytes", "L2 / global cache", DF_UNIT_BYTES, get_l2},
    {"memory", "memory_clock_mhz", "Memory clock", DF_UNIT_MHZ, get_memory_clock},
    {"memory", "memory_bus_width_bits", "Memory bus width (bits)", DF_UNIT_NONE, get_bus_width},
    {"memory", "ecc_enabled", "ECC enabled", DF_UNIT_NONE, get_ecc},
    {"memory", "peak_mem_bandwidth_gbs", "Peak memory bandwidth", DF_UNIT_GBS, get_peak_bandwidth},
    {"limits", "max_group_size", "Max group size", DF_UNIT_NONE, get_max_group_size},
    {"limits", "max_group_size_x", "Max group size x", DF_UNIT_NONE, get_max_group_x},
    {"limits", "max_group_size_y", "Max group size y", DF_UNIT_NONE, get_max_group_y},
    {"limits", "max_group_size_z", "Max group size z", DF_UNIT_NONE, get_max_group_z},
    {"limits", "max_groups_x", "Max groups x", DF_UNIT_NONE, get_max_groups_x},
    {"limits", "max_groups_y", "Max groups y", DF_UNIT_NONE, get_max_groups_y},
    {"limits", "max_groups_z", "Max groups z", DF_UNIT_NONE, get_max_groups_z},
    {"versions", "driver_version", "Driver version", DF_UNIT_NONE, get_driver_version},
    {"versions", "device_version", "Device version", DF_UNIT_NONE, get_device_version},
    {"versions", "language_version", "Kernel language", DF_UNIT_NONE, get_language_version},
};

const size_t df_field_count = sizeof df_fields / sizeof df_fields[0];
