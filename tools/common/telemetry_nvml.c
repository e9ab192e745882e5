/* NVML (libnvidia-ml.so.1), loaded at run time: the device found by PCI
 * bus id or UUID, and its clocks, power, temperature, utilisation, memory
 * and clock-event reasons. */
#include "telemetry_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* NVML's functions, by index into gt_lib.fn. */
enum {
    GT_FN_NVML_SHUTDOWN,
    GT_FN_NVML_ERROR_STRING,
    GT_FN_NVML_CLOCK,
    GT_FN_NVML_MAX_CLOCK,
    GT_FN_NVML_POWER,
    GT_FN_NVML_LIMIT,
    GT_FN_NVML_TEMP,
    GT_FN_NVML_UTIL,
    GT_FN_NVML_MEMORY,
    GT_FN_NVML_REASONS,
};

typedef int nvml_return;
typedef struct nvml_utilization {
    unsigned gpu, memory;
} nvml_utilization;
typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory;
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

static void nvml_error(const gt_lib *lib, nvml_return rc, char *buf, size_t size) {
    gt_fn f = lib->fn[GT_FN_NVML_ERROR_STRING];
    const char *text = f ? GT_CALL(const char *(*)(nvml_return), f)(rc) : NULL;
    snprintf(buf, size, "%d (%s)", rc, text ? text : "no nvmlErrorString");
}

int gt_nvml_open(const char *bus_id, const char *uuid, gt_lib *lib, double *max_sm, char *why,
                 size_t why_size) {
    static const char *const names[] = {"libnvidia-ml.so.1", NULL};
    memset(lib, 0, sizeof *lib);
    *max_sm = NAN;
    lib->dl =
        gt_open_library("XGPU_NVML_LIBRARY", names, lib->name, sizeof lib->name, why, why_size);
    if (!lib->dl) {
        return -1;
    }
    static const char *const optional[] = {"nvmlShutdown",
                                           "nvmlErrorString",
                                           "nvmlDeviceGetClockInfo",
                                           "nvmlDeviceGetMaxClockInfo",
                                           "nvmlDeviceGetPowerUsage",
                                           "nvmlDeviceGetEnforcedPowerLimit",
                                           "nvmlDeviceGetTemperature",
                                           "nvmlDeviceGetUtilizationRates",
                                           "nvmlDeviceGetMemoryInfo",
                                           "nvmlDeviceGetCurrentClocksEventReasons"};
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++) {
        lib->fn[i] = gt_sym(lib->dl, optional[i]);
    }
    if (!lib->fn[GT_FN_NVML_REASONS]) { /* its name before driver 535 */
        lib->fn[GT_FN_NVML_REASONS] = gt_sym(lib->dl, "nvmlDeviceGetCurrentClocksThrottleReasons");
    }
    gt_fn init = gt_sym(lib->dl, "nvmlInit_v2");
    gt_fn by_bus = gt_sym(lib->dl, "nvmlDeviceGetHandleByPciBusId_v2");
    gt_fn by_uuid = gt_sym(lib->dl, "nvmlDeviceGetHandleByUUID");
    gt_fn by_index = gt_sym(lib->dl, "nvmlDeviceGetHandleByIndex_v2");
    int index = gt_match_index();
    const char *lookup =
        index >= 0 ? "nvmlDeviceGetHandleByIndex_v2" : "nvmlDeviceGetHandleByPciBusId_v2";
    gt_fn lookup_fn = index >= 0 ? by_index : by_bus;
    if (!init || !lookup_fn) {
        snprintf(why, why_size, "%s lacks %s", lib->name, !init ? "nvmlInit_v2" : lookup);
        goto fail;
    }
    nvml_return rc = GT_CALL(nvml_return(*)(void), init)();
    char err[160];
    if (rc != 0) {
        nvml_error(lib, rc, err, sizeof err);
        snprintf(why, why_size, "%s: nvmlInit_v2 failed: %s", lib->name, err);
        goto fail;
    }
    typedef nvml_return (*by_text_fn)(const char *, void **);
    if (index >= 0) {
        rc = GT_CALL(nvml_return(*)(unsigned, void **), by_index)((unsigned)index,
                                                                  &lib->nvml_device);
    } else {
        rc = bus_id && *bus_id ? GT_CALL(by_text_fn, by_bus)(bus_id, &lib->nvml_device) : -1;
        if (rc != 0 && uuid && *uuid && by_uuid) {
            rc = GT_CALL(by_text_fn, by_uuid)(uuid, &lib->nvml_device);
        }
    }
    if (rc != 0) {
        nvml_error(lib, rc, err, sizeof err);
        if (index >= 0) {
            snprintf(why, why_size, "%s: no device %d: %s", lib->name, index, err);
        } else {
            snprintf(why, why_size, "%s: no device with PCI bus id %s%s%s: %s", lib->name,
                     bus_id ? bus_id : "-", uuid ? " or UUID " : "", uuid ? uuid : "", err);
        }
        gt_nvml_close(lib);
        return -1;
    }
    unsigned mhz = 0;
    gt_fn max_fn = lib->fn[GT_FN_NVML_MAX_CLOCK];
    if (max_fn &&
        GT_CALL(nvml_return(*)(void *, int, unsigned *), max_fn)(lib->nvml_device, NVML_CLOCK_SM,
                                                                 &mhz) == 0 &&
        mhz) {
        *max_sm = mhz;
    }
    return 0;
fail:
    lib->dl = NULL; /* loaded for good: see gt_nvml_close */
    return -1;
}

void gt_nvml_read(const gt_lib *lib, gt_sample *s) {
    typedef nvml_return (*uint_fn)(void *, unsigned *);
    typedef nvml_return (*typed_fn)(void *, int, unsigned *);
    void *dev = lib->nvml_device;
    const gt_fn *fn = lib->fn;
    unsigned u = 0;
    if (fn[GT_FN_NVML_CLOCK] &&
        GT_CALL(typed_fn, fn[GT_FN_NVML_CLOCK])(dev, NVML_CLOCK_SM, &u) == 0) {
        s->v[GT_SM_CLOCK_MHZ] = u;
    }
    if (fn[GT_FN_NVML_CLOCK] &&
        GT_CALL(typed_fn, fn[GT_FN_NVML_CLOCK])(dev, NVML_CLOCK_MEM, &u) == 0) {
        s->v[GT_MEM_CLOCK_MHZ] = u;
    }
    if (fn[GT_FN_NVML_POWER] && GT_CALL(uint_fn, fn[GT_FN_NVML_POWER])(dev, &u) == 0) {
        s->v[GT_POWER_W] = u * 1e-3; /* milliwatts */
    }
    if (fn[GT_FN_NVML_LIMIT] && GT_CALL(uint_fn, fn[GT_FN_NVML_LIMIT])(dev, &u) == 0) {
        s->v[GT_POWER_LIMIT_W] = u * 1e-3;
    }
    if (fn[GT_FN_NVML_TEMP] &&
        GT_CALL(typed_fn, fn[GT_FN_NVML_TEMP])(dev, NVML_TEMPERATURE_GPU, &u) == 0) {
        s->v[GT_TEMP_C] = u;
    }
    nvml_utilization util;
    if (fn[GT_FN_NVML_UTIL] &&
        GT_CALL(nvml_return(*)(void *, nvml_utilization *), fn[GT_FN_NVML_UTIL])(dev, &util) == 0) {
        s->v[GT_UTIL_PCT] = util.gpu;
    }
    nvml_memory mem;
    if (fn[GT_FN_NVML_MEMORY] &&
        GT_CALL(nvml_return(*)(void *, nvml_memory *), fn[GT_FN_NVML_MEMORY])(dev, &mem) == 0) {
        s->v[GT_MEM_USED_MIB] = (double)mem.used / (1024.0 * 1024.0);
    }
    unsigned long long reasons = 0;
    if (fn[GT_FN_NVML_REASONS] && GT_CALL(nvml_return(*)(void *, unsigned long long *),
                                          fn[GT_FN_NVML_REASONS])(dev, &reasons) == 0) {
        s->reasons = reasons;
    }
}

void gt_nvml_close(gt_lib *lib) {
    if (lib->dl) {
        if (lib->fn[GT_FN_NVML_SHUTDOWN]) {
            GT_CALL(nvml_return(*)(void), lib->fn[GT_FN_NVML_SHUTDOWN])();
        }
        /* Never dlclose'd: a vendor library's threads and exit handlers
         * may outlive it. dlopen counts, so opening it again is cheap. */
    }
    memset(lib, 0, sizeof *lib);
}
