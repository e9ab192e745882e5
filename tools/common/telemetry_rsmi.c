/* ROCm SMI (librocm_smi64.so), loaded at run time: the device found by
 * PCI bus id, and its clocks, power, temperature, busy percentage and
 * memory used. */
#include "telemetry_internal.h"

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ROCm SMI's optional functions, by index into gt_lib.fn. */
enum {
    GT_FN_RSMI_SHUTDOWN,
    GT_FN_RSMI_STATUS_STRING,
    GT_FN_RSMI_CLOCK,
    GT_FN_RSMI_POWER_AVE,
    GT_FN_RSMI_SOCKET_POWER,
    GT_FN_RSMI_CAP,
    GT_FN_RSMI_TEMP,
    GT_FN_RSMI_BUSY,
    GT_FN_RSMI_MEMORY,
};

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

/* The functions that must be there, in this order in rsmi_required. */
enum { RSMI_INIT, RSMI_NUM_DEVICES, RSMI_PCI_ID, RSMI_REQUIRED };
static const char *const rsmi_required[RSMI_REQUIRED] = {"rsmi_init", "rsmi_num_monitor_devices",
                                                         "rsmi_dev_pci_id_get"};

/* The optional functions into lib->fn and the required ones into req[];
 * false with why when one of those is missing. */
static bool rsmi_bind(gt_lib *lib, gt_fn *req, char *why, size_t why_size) {
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
        lib->fn[i] = gt_sym(lib->dl, optional[i]);
    }
    for (size_t i = 0; i < RSMI_REQUIRED; i++) {
        req[i] = gt_sym(lib->dl, rsmi_required[i]);
        if (!req[i]) {
            snprintf(why, why_size, "%s lacks %s", lib->name, rsmi_required[i]);
            return false;
        }
    }
    return true;
}

/* The device with this PCI bus id (or XGPU_TELEMETRY_MATCH's index) into
 * lib->rsmi_index; 0, or -1 with why. */
static int rsmi_find(gt_lib *lib, const gt_fn *req, const char *bus_id, char *why,
                     size_t why_size) {
    uint32_t n = 0;
    rsmi_status rc = GT_CALL(rsmi_status(*)(uint32_t *), req[RSMI_NUM_DEVICES])(&n);
    int index = gt_match_index();
    unsigned long dom = 0;
    unsigned bus = 0, dev = 0, fn = 0;
    bool have_bus = bus_id && parse_bus_id(bus_id, &dom, &bus, &dev, &fn);
    bool found = false;
    for (uint32_t i = 0; rc == 0 && i < n && !found; i++) {
        uint64_t bdf = 0;
        if (index >= 0) {
            found = i == (uint32_t)index;
        } else if (have_bus &&
                   GT_CALL(rsmi_status(*)(uint32_t, uint64_t *), req[RSMI_PCI_ID])(i, &bdf) == 0) {
            /* BDFID: domain << 32 | bus << 8 | device << 3 | function */
            found = (bdf >> 32) == dom && ((bdf >> 8) & 0xff) == bus &&
                    ((bdf >> 3) & 0x1f) == dev && (bdf & 0x7) == fn;
        }
        lib->rsmi_index = i;
    }
    if (found) {
        return 0;
    }
    char err[160];
    if (rc != 0) {
        rsmi_error(lib, rc, err, sizeof err);
        snprintf(why, why_size, "%s: rsmi_num_monitor_devices failed: %s", lib->name, err);
    } else if (index >= 0) {
        snprintf(why, why_size, "%s: no device %d (%" PRIu32 " found)", lib->name, index, n);
    } else {
        snprintf(why, why_size, "%s: no device with PCI bus id %s (%" PRIu32 " found)", lib->name,
                 bus_id ? bus_id : "-", n);
    }
    return -1;
}

/* ROCm SMI finds its GPUs under /sys/class/drm. Without an AMD or Hygon
 * card there, rsmi_init writes its own complaints to standard error
 * ("Failed to open drm root directory", "Exception caught: rsmi_init")
 * and fails, into the output of every program that asks: so sysfs is
 * asked first. True when some cardN's PCI vendor is AMD's (0x1002) or
 * Hygon's (0x1d94); false with why. */
static bool drm_has_amd_card(const char *library, char *why, size_t why_size) {
    char dir_path[512];
    gt_host_path(dir_path, sizeof dir_path, "/sys/class/drm");
    DIR *dir = opendir(dir_path);
    if (!dir) {
        snprintf(why, why_size, "%s: not started: /sys/class/drm does not exist (no GPU driver)",
                 library);
        return false;
    }
    bool found = false;
    for (struct dirent *e = readdir(dir); e && !found; e = readdir(dir)) {
        unsigned card;
        char tail;
        if (sscanf(e->d_name, "card%u%c", &card, &tail) != 1) {
            continue; /* renderD128, card0-DP-1, ... */
        }
        char file[1024];
        snprintf(file, sizeof file, "%s/%s/device/vendor", dir_path, e->d_name);
        FILE *f = fopen(file, "r");
        unsigned vendor = 0;
        if (f && fscanf(f, "%x", &vendor) == 1) {
            found = vendor == 0x1002 || vendor == 0x1d94;
        }
        if (f) {
            fclose(f);
        }
    }
    closedir(dir);
    if (!found) {
        snprintf(why, why_size, "%s: not started: no AMD or Hygon GPU in /sys/class/drm", library);
    }
    return found;
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
        gt_open_library("XGPU_ROCM_SMI_LIBRARY", names, lib->name, sizeof lib->name, why, why_size);
    if (!lib->dl) {
        return -1;
    }
    gt_fn req[RSMI_REQUIRED];
    if (!rsmi_bind(lib, req, why, why_size)) {
        lib->dl = NULL; /* loaded for good: see gt_rsmi_close */
        return -1;
    }
    if (!drm_has_amd_card(lib->name, why, why_size)) {
        lib->dl = NULL;
        return -1;
    }
    char err[160];
    rsmi_status rc = GT_CALL(rsmi_status(*)(uint64_t), req[RSMI_INIT])(0);
    if (rc != 0) {
        rsmi_error(lib, rc, err, sizeof err);
        snprintf(why, why_size, "%s: rsmi_init failed: %s", lib->name, err);
        lib->dl = NULL;
        return -1;
    }
    rsmi_version ver = {5, 0, 0, NULL}; /* without rsmi_version_get: the old layout */
    gt_fn ver_fn = gt_sym(lib->dl, "rsmi_version_get");
    if (ver_fn) {
        GT_CALL(rsmi_status(*)(rsmi_version *), ver_fn)(&ver);
    }
    lib->rsmi_major = ver.major;
    if (rsmi_find(lib, req, bus_id, why, why_size) != 0) {
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
        /* Never dlclose'd, as NVML (telemetry_nvml.c). */
    }
    memset(lib, 0, sizeof *lib);
}
