/* OpenCL backend: ABI entry, probe and the hook table. Every platform and
 * device the Khronos ICD loader reaches becomes an xgpu device. */
#define _GNU_SOURCE
#include "cl_internal.h"

#include <dlfcn.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const xgpu_core_services *ocl__services;

/* Records the ICD loader this plugin was linked against, and the platforms
 * it found, for gpuinfo --doctor. */
static void record_loader(cl_uint nplat, const cl_platform_id *plats) {
    Dl_info info;
    char path[512] = "";
    void *sym = dlsym(RTLD_DEFAULT, "clGetPlatformIDs");
    if (sym && dladdr(sym, &info) && info.dli_fname) {
        snprintf(path, sizeof path, "%s", info.dli_fname);
    }
    char detail[512] = "";
    size_t used = (size_t)snprintf(detail, sizeof detail, "ICD loader, %u platform(s)", nplat);
    for (cl_uint p = 0; p < nplat && used < sizeof detail; p++) {
        char name[128] = "", version[128] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
        clGetPlatformInfo(plats[p], CL_PLATFORM_VERSION, sizeof version, version, NULL);
        name[sizeof name - 1] = version[sizeof version - 1] = '\0';
        int n = snprintf(detail + used, sizeof detail - used, "%s %s (%s)", p ? ";" : ":", name,
                         version);
        used += n > 0 ? (size_t)n : 0;
    }
    ocl__services->library(OCL_BACKEND_NAME, "libOpenCL.so.1", path, true, detail);
}

/* Every platform's ID (malloc'ed, *count of them); NULL with the reason
 * and *status when there is none or the loader fails. */
static cl_platform_id *list_platforms(cl_uint *count, xgpu_status *status, char *reason,
                                      size_t reason_size) {
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && nplat == 0)) {
        record_loader(0, NULL);
        snprintf(reason, reason_size,
                 "the OpenCL ICD loader found no platform: no driver is registered in "
                 "/etc/OpenCL/vendors (or OCL_ICD_VENDORS); install a vendor's OpenCL "
                 "driver, or pocl-opencl-icd for the CPU");
        *status = XGPU_ERROR_NO_DEVICE;
        return NULL;
    }
    if (err != CL_SUCCESS) {
        snprintf(reason, reason_size, "clGetPlatformIDs failed: %s (%d)", ocl__error_name(err),
                 (int)err);
        *status = XGPU_ERROR_BACKEND_UNAVAILABLE;
        return NULL;
    }
    cl_platform_id *plats = calloc(nplat, sizeof *plats);
    if (!plats) {
        snprintf(reason, reason_size, "out of host memory listing %u OpenCL platform(s)", nplat);
        *status = XGPU_ERROR_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    err = clGetPlatformIDs(nplat, plats, NULL);
    if (err != CL_SUCCESS) {
        free(plats);
        snprintf(reason, reason_size, "clGetPlatformIDs failed the second time: %s (%d)",
                 ocl__error_name(err), (int)err);
        *status = err == CL_OUT_OF_HOST_MEMORY ? XGPU_ERROR_OUT_OF_HOST_MEMORY
                                               : XGPU_ERROR_BACKEND_UNAVAILABLE;
        return NULL;
    }
    record_loader(nplat, plats);
    *count = nplat;
    return plats;
}

/* Appends platform `p`'s devices to the state; false when out of memory.
 * A platform that fails to list its devices adds none. */
static bool add_platform_devices(const xgpu_core_services *services, ocl_state *st,
                                 cl_platform_id plat, cl_uint p) {
    cl_uint ndev = 0;
    cl_int err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 0, NULL, &ndev);
    if (err != CL_SUCCESS || ndev == 0) {
        services->log(OCL_BACKEND_NAME, XGPU_LOG_DEBUG, "platform %u: no devices (%s)", p,
                      ocl__error_name(err));
        return true;
    }
    cl_device_id *devs = realloc(st->devices, (st->count + ndev) * sizeof *devs);
    if (devs) {
        st->devices = devs;
    }
    cl_platform_id *owners = realloc(st->platforms, (st->count + ndev) * sizeof *owners);
    if (owners) {
        st->platforms = owners;
    }
    if (!devs || !owners) {
        return false;
    }
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, ndev, st->devices + st->count, NULL) !=
        CL_SUCCESS) {
        return true;
    }
    for (cl_uint d = 0; d < ndev; d++) {
        st->platforms[st->count + d] = plat;
    }
    st->count += ndev;
    return true;
}

static void free_state(ocl_state *st) {
    if (st) {
        free(st->devices);
        free(st->platforms);
        free(st);
    }
}

static xgpu_status ocl_probe(const xgpu_core_services *services, void **state, char *reason,
                             size_t reason_size) {
    ocl__services = services;
    *state = NULL;
    cl_uint nplat = 0;
    xgpu_status status = XGPU_SUCCESS;
    cl_platform_id *plats = list_platforms(&nplat, &status, reason, reason_size);
    if (!plats) {
        return status;
    }
    ocl_state *st = calloc(1, sizeof *st);
    if (!st) {
        free(plats);
        snprintf(reason, reason_size, "out of host memory listing %u OpenCL platform(s)", nplat);
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (cl_uint p = 0; p < nplat; p++) {
        if (!add_platform_devices(services, st, plats[p], p)) {
            free(plats);
            free_state(st);
            snprintf(reason, reason_size, "out of host memory listing OpenCL devices");
            return XGPU_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    free(plats);
    if (st->count == 0) {
        snprintf(reason, reason_size,
                 "%u OpenCL platform(s) found, but none has a device; check the vendor "
                 "driver's installation",
                 nplat);
        free_state(st);
        return XGPU_ERROR_NO_DEVICE;
    }
    *state = st;
    return XGPU_SUCCESS;
}

static void ocl_shutdown(void *state) {
    free_state(state);
}

static uint32_t ocl_device_count(void *state) {
    return ((ocl_state *)state)->count;
}

static xgpu_status ocl_get_device_info(void *state, uint32_t index, xgpu_device_info *info) {
    ocl_state *st = state;
    return ocl__device_info(st->devices[index], st->platforms[index], info);
}

static const xgpu_backend_ops ocl_ops = {
    .size = sizeof(xgpu_backend_ops),
    .abi_version = 1,
    .name = OCL_BACKEND_NAME,
    .dialect = XGPU_DIALECT_OPENCL,
    .probe = ocl_probe,
    .shutdown = ocl_shutdown,
    .device_count = ocl_device_count,
    .device_info = ocl_get_device_info,
    .context_create = ocl__context_create,
    .context_release = ocl__context_release,
    .queue_create = ocl__queue_create,
    .queue_release = ocl__queue_release,
    .queue_finish = ocl__queue_finish,
    .buffer_create = ocl__buffer_create,
    .buffer_release = ocl__buffer_release,
    .buffer_write = ocl__buffer_write,
    .buffer_read = ocl__buffer_read,
    .buffer_copy = ocl__buffer_copy,
    .buffer_fill = ocl__buffer_fill,
    .host_alloc = ocl__host_alloc,
    .host_free = ocl__host_free,
    .buffer_native = ocl__buffer_native,
    .queue_native = ocl__queue_native,
    .program_build = ocl__program_build,
    .program_release = ocl__program_release,
    .kernel_create = ocl__kernel_create,
    .kernel_release = ocl__kernel_release,
    .kernel_native = ocl__kernel_native,
    .build_identity = ocl__build_identity,
    .program_binary = ocl__program_binary,
    .program_load_binary = ocl__program_load_binary,
    .launch = ocl__launch,
    .queue_record_event = ocl__queue_record_event,
    .event_wait = ocl__event_wait,
    .event_elapsed_ms = ocl__event_elapsed_ms,
    .event_release = ocl__event_release,
    .queue_wait_event = ocl__queue_wait_event,
};

XGPU_BACKEND_EXPORT(ocl_ops)
