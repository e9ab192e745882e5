/* gpuinfo internals: physical devices, the field table and the printers. */
#ifndef XGPU_GPUINFO_H
#define XGPU_GPUINFO_H

#include <xgpu.h>

#include <stdio.h>

#define GI_MAX_PATHS 8

/* One physical device and every backend path that reaches it. The first
 * path (backend order: cuda, hip, opencl) is the primary one whose info is
 * shown. */
typedef struct gi_device {
    uint32_t index; /* xgpu's global index of the first path, as -d takes it */
    uint32_t path_count;
    xgpu_device *devices[GI_MAX_PATHS];
    xgpu_device_info infos[GI_MAX_PATHS];
} gi_device;

/* merge.c */
/* Groups `n` device infos into physical devices: two infos are one device
 * when both have a UUID and the UUIDs are equal, or else both have a PCI
 * bus id and the ids are equal. Writes the physical index of each info to
 * group[i] and returns the number of physical devices. */
uint32_t gi_merge(const xgpu_device_info *infos, uint32_t n, uint32_t *group);
/* All devices xgpu reaches, merged; *out is malloc'ed. */
int gi_collect(gi_device **out, uint32_t *count);
/* "cuda:0" */
void gi_path(const xgpu_device_info *info, char *out, size_t size);
/* The UUID as gpuinfo prints it, 32 hex digits dashed 8-4-4-4-12; "" when
 * the device has none. */
void gi_uuid(const xgpu_device_info *info, char *out, size_t size);
/* Keeps, in order, the physical devices any of whose paths is one of
 * chosen[nchosen] (from xgpu_device_match): a selector that names one path
 * of a GPU selects the GPU. Returns how many were kept at the front. */
uint32_t gi_select(gi_device *devs, uint32_t n, xgpu_device *const *chosen, uint32_t nchosen);

/* fields.c: the rows gpuinfo prints, in text and JSON. */
typedef enum gi_kind { GI_NULL, GI_STRING, GI_UINT, GI_FLOAT, GI_BOOL, GI_ERROR } gi_kind;
typedef enum gi_unit {
    GI_UNIT_NONE,
    GI_UNIT_BYTES,
    GI_UNIT_MHZ,
    GI_UNIT_GFLOPS,
    GI_UNIT_GBS
} gi_unit;

typedef struct gi_value {
    gi_kind kind;
    char text[512]; /* GI_STRING, or the error for GI_ERROR */
    uint64_t u;
    double f;
    int b;
    char provenance[256]; /* how a derived number was obtained */
} gi_value;

typedef struct gi_field {
    const char *group; /* "identity", "compute", "memory", "limits", "versions" */
    const char *key;   /* JSON key, with the unit in its name */
    const char *label; /* text label */
    gi_unit unit;
    void (*get)(const gi_device *d, gi_value *v);
} gi_field;

extern const gi_field gi_fields[];
extern const size_t gi_field_count;

/* peaks.c: theoretical peaks, only where they can be derived. */
void gi_peak_fp32(const xgpu_device_info *info, gi_value *v);
void gi_peak_bandwidth(const xgpu_device_info *info, gi_value *v);

/* text.c */
void gi_print_short(FILE *out, const gi_device *devs, uint32_t n, int show_backends);
void gi_print_verbose(FILE *out, const gi_device *devs, uint32_t n);
void gi_print_backends(FILE *out);

/* json.c */
void gi_print_json(FILE *out, const gi_device *devs, uint32_t n);
void gi_json_string(FILE *out, const char *s);

/* doctor.c: returns the number of devices whose smoke test passed. */
uint32_t gi_doctor(FILE *out, const gi_device *devs, uint32_t n);

/* watch.c, in the gpuinfo program (it needs the telemetry library):
 * gpuinfo --watch with its options in argv; the exit status. */
int gi_watch(int argc, char **argv);

#endif
