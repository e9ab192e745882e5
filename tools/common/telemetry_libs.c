/* NVML and ROCm SMI, loaded at run time as the vendor BLAS is
 * (vendor_blas.c): the few types and functions telemetry uses are
 * declared here, not taken from the vendors' headers. */
#define _GNU_SOURCE
#include "telemetry_internal.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- the functions, by index into gt_lib.fn ---- */
enum {
    /* NVML */
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
    /* ROCm SMI */
    GT_FN_RSMI_SHUTDOWN = 0,
    GT_FN_RSMI_STATUS_STRING,
    GT_FN_RSMI_CLOCK,
    GT_FN_RSMI_POWER_AVE,
    GT_FN_RSMI_SOCKET_POWER,
    GT_FN_RSMI_CAP,
    GT_FN_RSMI_TEMP,
    GT_FN_RSMI_BUSY,
    GT_FN_RSMI_MEMORY,
};

/* A function from the library, NULL when it lacks it; through memcpy, as
 * vendor_blas.c does, since C has no cast from void * to a function. */
static gt_fn sym(void *dl, const char *name) {
    void *p = dl ? dlsym(dl, name) : NULL;
    gt_fn f;
    memcpy(&f, &p, sizeof f);
    return f;
}

/* Calls go through the function's own type. */
#define GT_CALL(type, fn) ((type)(fn))

/* The library from the environment variable `env`, or the first of
 * `names` dlopen takes; NULL with why. */
static void *open_library(const char *env, const char *const *names, char *loaded, size_t size,
                          char *why, size_t why_size) {
    const char *forced = getenv(env);
    if (forced && *forced) {
        void *dl = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
        if (!dl) {
            const char *e = dlerror();
            snprintf(why, why_size, "%s=%s cannot be loaded: %s", env, forced, e ? e : "?");
            return NULL;
        }
        snprintf(loaded, size, "%s", forced);
        return dl;
    }
    for (size_t i = 0; names[i]; i++) {
        void *dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (dl) {
            snprintf(loaded, size, "%s", names[i]);
            return dl;
        }
    }
    snprintf(why, why_size, "%s not found", names[0]);
    return NULL;
}

/* "dddd:bb:dd.f" or "bb:dd.f" into numbers; false when it is neither. */
static bool parse_bus_id(const char *s, unsigned long *dom, unsigned *bus, unsigned *dev,
                         unsigned *fn) {
    char tail;
    if (sscanf(s, "%lx:%x:%x.%x%c", dom, bus, dev, fn, &tail) == 4) {
        return true;
    }
    *dom = 0;
    return sscanf(s, "%x:%x.%x%c", bus, dev, fn, &tail) == 3;
}

/* XGPU_TELEMETRY_MATCH=index:N, for tests: the library's device N. */
static int match_index(void) {
    const char *m = getenv("XGPU_TELEMETRY_MATCH");
    unsigned n;
    char tail;
    if (m && sscanf(m, "index:%u%c", &n, &tail) == 1 && n < 1024) {
        return (int)n;
    }
    return -1;
}

/* ---- NVML ---- */
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
    lib->dl = open_library("XGPU_NVML_LIBRARY", names, lib->name, sizeof lib->name, why, why_size);
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
        lib->fn[i] = sym(lib->dl, optional[i]);
    }
    if (!lib->fn[GT_FN_NVML_REASONS]) { /* its name before driver 535 */
        lib->fn[GT_FN_NVML_REASONS] = sym(lib->dl, "nvmlDeviceGetCurrentClocksThrottleReasons");
    }
    gt_fn init = sym(lib->dl, "nvmlInit_v2");
    gt_fn by_bus = sym(lib->dl, "nvmlDeviceGetHandleByPciBusId_v2");
    gt_fn by_uuid = sym(lib->dl, "nvmlDeviceGetHandleByUUID");
    gt_fn by_index = sym(lib->dl, "nvmlDeviceGetHandleByIndex_v2");
    int index = match_index();
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

/* ---- ROCm SMI ---- */
typedef int rsmi_status;
/* rsmi_frequencies_t up to ROCm 5 and from ROCm 6 (a deep-sleep flag
 * first, one more frequency). */
typedef struct rsmi_freq5 {
    uint32_t num_supported, current;
    uint64_t frequency[32];
} rsmi_freq5;
typedef struct rsmi_freq6 {
    bool has_deep_sleep;
    uint32_t num_supported, current;
    uint64_t frequency[33];
} rsmi_freq6;
typedef struct rsmi_version {
    uint32_t major, minor, patch;
    const char *build;
} rsmi_version;
enum { RSMI_CLK_TYPE_SYS = 0, RSMI_CLK_TYPE_MEM = 4, RSMI_TEMP_TYPE_EDGE = 0 };
enum { RSMI_TEMP_CURRENT = 0, RSMI_MEM_TYPE_VRAM = 0 };

static void rsmi_error(const gt_lib *lib, rsmi_status rc, char *buf, size_t size) {
    const char *text = NULL;
    gt_fn f = lib->fn[GT_FN_RSMI_STATUS_STRING];
    if (!f || GT_CALL(rsmi_status(*)(rsmi_status, const char **), f)(rc, &text) != 0) {
        text = NULL;
    }
    snprintf(buf, size, "%d (%s)", rc, text ? text : "no rsmi_status_string");
}

/* The current frequency and the highest supported one, in MHz. */
static bool rsmi_clock(const gt_lib *lib, int type, double *now, double *max) {
    union {
        rsmi_freq5 v5;
        rsmi_freq6 v6;
    } f;
    memset(&f, 0, sizeof f);
    gt_fn fn = lib->fn[GT_FN_RSMI_CLOCK];
    if (!fn || GT_CALL(rsmi_status(*)(uint32_t, int, void *), fn)(lib->rsmi_index, type, &f) != 0) {
        return false;
    }
    bool six = lib->rsmi_major >= 6;
    uint32_t n = six ? f.v6.num_supported : f.v5.num_supported;
    uint32_t cur = six ? f.v6.current : f.v5.current;
    const uint64_t *hz = six ? f.v6.frequency : f.v5.frequency;
    if (n == 0 || n > (six ? 33u : 32u) || cur >= n) {
        return false;
    }
    *now = (double)hz[cur] * 1e-6;
    *max = 0;
    for (uint32_t i = 0; i < n; i++) {
        *max = fmax(*max, (double)hz[i] * 1e-6);
    }
    return true;
}

int gt_rsmi_open(const char *bus_id, gt_lib *lib, double *max_sm, char *why, size_t why_size) {
    static const char *const names[] = {"librocm_smi64.so",
                                        "librocm_smi64.so.1",
                                        "librocm_smi64.so.5",
                                        "librocm_smi64.so.7",
                                        "/opt/rocm/lib/librocm_smi64.so",
                                        NULL};
    memset(lib, 0, sizeof *lib);
    *max_sm = NAN;
    lib->dl =
        open_library("XGPU_ROCM_SMI_LIBRARY", names, lib->name, sizeof lib->name, why, why_size);
    if (!lib->dl) {
        return -1;
    }
    static const char *const optional[] = {"rsmi_shut_down",
                                           "rsmi_status_string",
                                           "rsmi_dev_gpu_clk_freq_get",
                                           "rsmi_dev_power_ave_get",
                                           "rsmi_dev_current_socket_power_get",
                                           "rsmi_dev_power_cap_get",
                                           "rsmi_dev_temp_metric_get",
                                           "rsmi_dev_busy_percent_get",
                                           "rsmi_dev_memory_usage_get"};
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++) {
        lib->fn[i] = sym(lib->dl, optional[i]);
    }
    static const char *const required[] = {"rsmi_init", "rsmi_num_monitor_devices",
                                           "rsmi_dev_pci_id_get"};
    gt_fn req[3];
    for (size_t i = 0; i < 3; i++) {
        req[i] = sym(lib->dl, required[i]);
        if (!req[i]) {
            snprintf(why, why_size, "%s lacks %s", lib->name, required[i]);
            lib->dl = NULL;
            return -1;
        }
    }
    char err[160];
    rsmi_status rc = GT_CALL(rsmi_status(*)(uint64_t), req[0])(0);
    if (rc != 0) {
        rsmi_error(lib, rc, err, sizeof err);
        snprintf(why, why_size, "%s: rsmi_init failed: %s", lib->name, err);
        lib->dl = NULL;
        return -1;
    }
    rsmi_version ver = {5, 0, 0, NULL}; /* without rsmi_version_get: the old layout */
    gt_fn ver_fn = sym(lib->dl, "rsmi_version_get");
    if (ver_fn) {
        GT_CALL(rsmi_status(*)(rsmi_version *), ver_fn)(&ver);
    }
    lib->rsmi_major = ver.major;
    uint32_t n = 0;
    rc = GT_CALL(rsmi_status(*)(uint32_t *), req[1])(&n);
    int index = match_index();
    unsigned long dom = 0;
    unsigned bus = 0, dev = 0, fn = 0;
    bool have_bus = bus_id && parse_bus_id(bus_id, &dom, &bus, &dev, &fn);
    bool found = false;
    for (uint32_t i = 0; rc == 0 && i < n && !found; i++) {
        uint64_t bdf = 0;
        if (index >= 0) {
            found = i == (uint32_t)index;
        } else if (have_bus &&
                   GT_CALL(rsmi_status(*)(uint32_t, uint64_t *), req[2])(i, &bdf) == 0) {
            /* BDFID: domain << 32 | bus << 8 | device << 3 | function */
            found = (bdf >> 32) == dom && ((bdf >> 8) & 0xff) == bus &&
                    ((bdf >> 3) & 0x1f) == dev && (bdf & 0x7) == fn;
        }
        lib->rsmi_index = i;
    }
    if (!found) {
        if (rc != 0) {
            rsmi_error(lib, rc, err, sizeof err);
            snprintf(why, why_size, "%s: rsmi_num_monitor_devices failed: %s", lib->name, err);
        } else if (index >= 0) {
            snprintf(why, why_size, "%s: no device %d (%" PRIu32 " found)", lib->name, index, n);
        } else {
            snprintf(why, why_size, "%s: no device with PCI bus id %s (%" PRIu32 " found)",
                     lib->name, bus_id ? bus_id : "-", n);
        }
        gt_rsmi_close(lib);
        return -1;
    }
    double now, max;
    if (rsmi_clock(lib, RSMI_CLK_TYPE_SYS, &now, &max)) {
        *max_sm = max;
    }
    return 0;
}

void gt_rsmi_read(const gt_lib *lib, gt_sample *s) {
    typedef rsmi_status (*u64_fn)(uint32_t, uint64_t *);
    typedef rsmi_status (*sensor_fn)(uint32_t, uint32_t, uint64_t *);
    const gt_fn *fn = lib->fn;
    uint32_t i = lib->rsmi_index;
    double now, max;
    if (rsmi_clock(lib, RSMI_CLK_TYPE_SYS, &now, &max)) {
        s->v[GT_SM_CLOCK_MHZ] = now;
    }
    if (rsmi_clock(lib, RSMI_CLK_TYPE_MEM, &now, &max)) {
        s->v[GT_MEM_CLOCK_MHZ] = now;
    }
    uint64_t u = 0; /* microwatts */
    if ((fn[GT_FN_RSMI_POWER_AVE] && GT_CALL(sensor_fn, fn[GT_FN_RSMI_POWER_AVE])(i, 0, &u) == 0) ||
        (fn[GT_FN_RSMI_SOCKET_POWER] && GT_CALL(u64_fn, fn[GT_FN_RSMI_SOCKET_POWER])(i, &u) == 0)) {
        s->v[GT_POWER_W] = (double)u * 1e-6;
    }
    if (fn[GT_FN_RSMI_CAP] && GT_CALL(sensor_fn, fn[GT_FN_RSMI_CAP])(i, 0, &u) == 0) {
        s->v[GT_POWER_LIMIT_W] = (double)u * 1e-6;
    }
    int64_t milli = 0;
    if (fn[GT_FN_RSMI_TEMP] &&
        GT_CALL(rsmi_status(*)(uint32_t, uint32_t, int, int64_t *),
                fn[GT_FN_RSMI_TEMP])(i, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, &milli) == 0) {
        s->v[GT_TEMP_C] = (double)milli * 1e-3;
    }
    uint32_t busy = 0;
    if (fn[GT_FN_RSMI_BUSY] &&
        GT_CALL(rsmi_status(*)(uint32_t, uint32_t *), fn[GT_FN_RSMI_BUSY])(i, &busy) == 0) {
        s->v[GT_UTIL_PCT] = busy;
    }
    if (fn[GT_FN_RSMI_MEMORY] && GT_CALL(rsmi_status(*)(uint32_t, int, uint64_t *),
                                         fn[GT_FN_RSMI_MEMORY])(i, RSMI_MEM_TYPE_VRAM, &u) == 0) {
        s->v[GT_MEM_USED_MIB] = (double)u / (1024.0 * 1024.0);
    }
}

void gt_rsmi_close(gt_lib *lib) {
    if (lib->dl) {
        if (lib->fn[GT_FN_RSMI_SHUTDOWN]) {
            GT_CALL(rsmi_status(*)(void), lib->fn[GT_FN_RSMI_SHUTDOWN])();
        }
        /* Never dlclose'd, as NVML above. */
    }
    memset(lib, 0, sizeof *lib);
}
