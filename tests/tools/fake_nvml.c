/* A stand-in for NVML (libnvidia-ml.so.1) that telemetry and gpuinfo's
 * checks load in the tests: GPUs (one by default) whose values come from
 * the environment, read at each call so that one process can change them
 * between samples. Telemetry's values are GPU 0's:
 *   FAKE_NVML_INIT      nvmlInit_v2's return code (default 0)
 *   FAKE_NVML_BUS       the bus id it serves (default 0000:01:00.0)
 *   FAKE_NVML_UUID      its UUID (default GPU-00000000-1111-2222-3333-444444444444)
 *   FAKE_NVML_SM, _SM_MAX, _MEM (MHz), _POWER_MW, _LIMIT_MW, _TEMP (C),
 *   _UTIL (%), _MEM_USED (bytes), _REASONS (a mask, any base strtoull takes):
 *   a value that is unset makes its call fail with NVML_ERROR_NOT_SUPPORTED;
 *   fake_nvml_set_sm() overrides FAKE_NVML_SM while a sampler runs.
 * The machine as gpuinfo's checks see it (fake_nvml_values.h has a set):
 *   FAKE_NVML_COUNT     nvmlDeviceGetCount_v2 (default 1, at most 8); GPU i
 *                       is found by index, GPU 0 also by FAKE_NVML_BUS/_UUID
 *   FAKE_NVML_UUIDS     the GPUs' UUIDs, comma-separated (default: GPU 0's
 *                       FAKE_NVML_UUID, then ...-44444444444<i>)
 *   FAKE_NVML_BUSES     their PCI bus ids, comma-separated (default: GPU 0's
 *                       FAKE_NVML_BUS, then bus i + 1)
 *   FAKE_NVML_DRIVER    nvmlSystemGetDriverVersion ("580.65.06")
 *   FAKE_NVML_MIG       GPU 0's MIG mode, "current,pending" (1 on, 0 off);
 *                       unset: NOT_SUPPORTED on every GPU, as one without MIG
 *   FAKE_NVML_MIG_MAX   nvmlDeviceGetMaxMigDeviceCount (default 7)
 *   FAKE_NVML_MIG_UUIDS GPU 0's MIG devices, comma-separated, in its first
 *                       slots (at most 8); the other slots are NOT_FOUND
 *   FAKE_NVML_INIT=18 is the driver/library version mismatch.
 * GPU 0's health facts (fake_nvml_health.c) have variables of their own.
 * Built three times: complete; FAKE_NVML_PARTIAL, which lacks
 * nvmlDeviceGetPowerUsage and has the clock-event reasons only under their
 * older name (nvmlDeviceGetCurrentClocksThrottleReasons) and the PCIe link,
 * remapped-row and NVLink functions; FAKE_NVML_NO_INIT,
 * which lacks nvmlInit_v2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

enum { OK = 0, NOT_SUPPORTED = 3, NOT_FOUND = 6, INVALID = 2 };

enum { MAX_GPUS = 8, MAX_MIG = 8, UUID_SIZE = 96 };
/* GPU i's handle is &gpus[i], MIG device j's of GPU 0 &migs[j]. */
static int gpus[MAX_GPUS], migs[MAX_MIG];

static const char *env_or(const char *name, const char *fallback) {
    const char *v = getenv(name);
    return v ? v : fallback;
}

/* An unsigned value from the environment; NOT_SUPPORTED when unset. */
static int value(const char *name, unsigned long long *out) {
    const char *v = getenv(name);
    if (!v || !*v) {
        return NOT_SUPPORTED;
    }
    *out = strtoull(v, NULL, 0);
    return OK;
}

static int uint_value(const char *name, unsigned *out) {
    unsigned long long v = 0;
    int rc = value(name, &v);
    *out = (unsigned)v;
    return rc;
}

#if !defined(FAKE_NVML_NO_INIT)
FAKE_API int nvmlInit_v2(void) {
    return atoi(env_or("FAKE_NVML_INIT", "0"));
}
#endif

FAKE_API int nvmlShutdown(void) {
    return OK;
}

FAKE_API const char *nvmlErrorString(int rc) {
    switch (rc) {
    case 9:
        return "Driver Not Loaded";
    case 18:
        return "Driver/library version mismatch";
    case NOT_FOUND:
        return "Not Found";
    case NOT_SUPPORTED:
        return "Not Supported";
    default:
        return "Unknown Error";
    }
}

FAKE_API int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **device) {
    if (!bus || !device) {
        return INVALID;
    }
    if (strcmp(bus, env_or("FAKE_NVML_BUS", "0000:01:00.0")) != 0) {
        return NOT_FOUND;
    }
    *device = &gpus[0];
    return OK;
}

FAKE_API int nvmlDeviceGetHandleByUUID(const char *uuid, void **device) {
    if (strcmp(uuid, env_or("FAKE_NVML_UUID", "GPU-00000000-1111-2222-3333-444444444444")) != 0) {
        return NOT_FOUND;
    }
    *device = &gpus[0];
    return OK;
}

static unsigned gpu_count(void) {
    unsigned n = (unsigned)atoi(env_or("FAKE_NVML_COUNT", "1"));
    return n > MAX_GPUS ? MAX_GPUS : n;
}

FAKE_API int nvmlDeviceGetCount_v2(unsigned *count) {
    *count = gpu_count();
    return OK;
}

FAKE_API int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **device) {
    if (index >= gpu_count()) {
        return INVALID;
    }
    *device = &gpus[index];
    return OK;
}

/* Item `i` of the comma-separated list in variable `name` into out;
 * 0 when there is no such item. */
static int list_item(const char *name, unsigned i, char *out, size_t size) {
    const char *p = getenv(name);
    for (unsigned k = 0; p && k < i; k++) {
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    if (!p || !*p) {
        return 0;
    }
    size_t n = strcspn(p, ",");
    snprintf(out, size, "%.*s", (int)n, p);
    return 1;
}

/* The text `s` into the caller's buffer of `length`, as NVML does. */
static int give_text(const char *s, char *buf, unsigned length) {
    if (strlen(s) + 1 > length) {
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
    memcpy(buf, s, strlen(s) + 1);
    return OK;
}

static long gpu_index(const void *device) {
    const int *d = device;
    return d >= gpus && d < gpus + MAX_GPUS ? d - gpus : -1;
}

/* For fake_nvml_health.c: whether `device` is GPU 0's handle. */
int fake_nvml_is_gpu0(const void *device) {
    return gpu_index(device) == 0;
}

static long mig_index(const void *device) {
    const int *d = device;
    return d >= migs && d < migs + MAX_MIG ? d - migs : -1;
}

FAKE_API int nvmlDeviceGetUUID(void *device, char *uuid, unsigned length) {
    long g = gpu_index(device), m = mig_index(device);
    char text[UUID_SIZE];
    if (m >= 0) {
        return list_item("FAKE_NVML_MIG_UUIDS", (unsigned)m, text, sizeof text)
                   ? give_text(text, uuid, length)
                   : INVALID;
    }
    if (g < 0 || g >= (long)gpu_count()) {
        return INVALID;
    }
    if (!list_item("FAKE_NVML_UUIDS", (unsigned)g, text, sizeof text)) {
        if (g == 0) {
            snprintf(text, sizeof text, "%s",
                     env_or("FAKE_NVML_UUID", "GPU-00000000-1111-2222-3333-444444444444"));
        } else {
            snprintf(text, sizeof text, "GPU-00000000-1111-2222-3333-44444444444%ld", g);
        }
    }
    return give_text(text, uuid, length);
}

FAKE_API int nvmlDeviceGetName(void *device, char *name, unsigned length) {
    if (mig_index(device) >= 0) {
        return give_text("Fake NVIDIA GPU MIG 1g.10gb", name, length);
    }
    return gpu_index(device) >= 0 ? give_text("Fake NVIDIA GPU", name, length) : INVALID;
}

typedef struct {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} fake_pci_info;

/* GPU i on item i of FAKE_NVML_BUSES, else GPU 0 on FAKE_NVML_BUS and GPU i
 * on bus i + 1; in NVML's 8-digit domain. */
FAKE_API int nvmlDeviceGetPciInfo_v3(void *device, fake_pci_info *pci) {
    long g = gpu_index(device);
    if (g < 0) {
        return INVALID;
    }
    memset(pci, 0, sizeof *pci);
    char bus[16];
    if (list_item("FAKE_NVML_BUSES", (unsigned)g, bus, sizeof bus)) {
        /* as listed */
    } else if (g == 0) {
        snprintf(bus, sizeof bus, "%.12s", env_or("FAKE_NVML_BUS", "0000:01:00.0"));
    } else {
        snprintf(bus, sizeof bus, "0000:%02x:00.0", (unsigned)(g + 1) & 0xff);
    }
    snprintf(pci->bus_id, sizeof pci->bus_id, "0000%.12s", bus);
    snprintf(pci->bus_id_legacy, sizeof pci->bus_id_legacy, "%.12s", bus);
    return OK;
}

FAKE_API int nvmlSystemGetDriverVersion(char *version, unsigned length) {
    const char *v = getenv("FAKE_NVML_DRIVER");
    return v ? give_text(v, version, length) : NOT_SUPPORTED;
}

FAKE_API int nvmlDeviceGetMigMode(void *device, unsigned *current, unsigned *pending) {
    const char *mode = getenv("FAKE_NVML_MIG");
    if (gpu_index(device) != 0 || !mode) {
        return gpu_index(device) >= 0 ? NOT_SUPPORTED : INVALID;
    }
    *current = (unsigned)atoi(mode);
    const char *comma = strchr(mode, ',');
    *pending = comma ? (unsigned)atoi(comma + 1) : *current;
    return OK;
}

FAKE_API int nvmlDeviceGetMaxMigDeviceCount(void *device, unsigned *count) {
    if (gpu_index(device) != 0 || !getenv("FAKE_NVML_MIG")) {
        return NOT_SUPPORTED;
    }
    *count = (unsigned)atoi(env_or("FAKE_NVML_MIG_MAX", "7"));
    return OK;
}

FAKE_API int nvmlDeviceGetMigDeviceHandleByIndex(void *device, unsigned index, void **mig) {
    char uuid[UUID_SIZE];
    if (gpu_index(device) != 0 || !getenv("FAKE_NVML_MIG")) {
        return NOT_SUPPORTED;
    }
    if (index >= MAX_MIG || !list_item("FAKE_NVML_MIG_UUIDS", index, uuid, sizeof uuid)) {
        return NOT_FOUND;
    }
    *mig = &migs[index];
    return OK;
}

/* The SM clock while a sampler thread runs: set through this, not the
 * environment (setenv beside another thread's getenv is a race). */
static _Atomic long sm_override = -1;
FAKE_API void fake_nvml_set_sm(long mhz) {
    sm_override = mhz;
}

FAKE_API int nvmlDeviceGetClockInfo(void *device, int type, unsigned *mhz) {
    if (device != &gpus[0]) {
        return INVALID;
    }
    long forced = sm_override;
    if (type == 1 && forced >= 0) {
        *mhz = (unsigned)forced;
        return OK;
    }
    return type == 1 ? uint_value("FAKE_NVML_SM", mhz)
                     : (type == 2 ? uint_value("FAKE_NVML_MEM", mhz) : INVALID);
}

FAKE_API int nvmlDeviceGetMaxClockInfo(void *device, int type, unsigned *mhz) {
    return device == &gpus[0] && type == 1 ? uint_value("FAKE_NVML_SM_MAX", mhz) : INVALID;
}

#if !defined(FAKE_NVML_PARTIAL)
FAKE_API int nvmlDeviceGetPowerUsage(void *device, unsigned *mw) {
    return device == &gpus[0] ? uint_value("FAKE_NVML_POWER_MW", mw) : INVALID;
}
#endif

FAKE_API int nvmlDeviceGetEnforcedPowerLimit(void *device, unsigned *mw) {
    return device == &gpus[0] ? uint_value("FAKE_NVML_LIMIT_MW", mw) : INVALID;
}

FAKE_API int nvmlDeviceGetTemperature(void *device, int sensor, unsigned *c) {
    return device == &gpus[0] && sensor == 0 ? uint_value("FAKE_NVML_TEMP", c) : INVALID;
}

typedef struct {
    unsigned gpu, memory;
} fake_utilization;

FAKE_API int nvmlDeviceGetUtilizationRates(void *device, fake_utilization *u) {
    u->memory = 1;
    return device == &gpus[0] ? uint_value("FAKE_NVML_UTIL", &u->gpu) : INVALID;
}

typedef struct {
    unsigned long long total, free, used;
} fake_memory;

FAKE_API int nvmlDeviceGetMemoryInfo(void *device, fake_memory *m) {
    m->total = 1ull << 36;
    int rc = device == &gpus[0] ? value("FAKE_NVML_MEM_USED", &m->used) : INVALID;
    m->free = m->total - m->used;
    return rc;
}

#if defined(FAKE_NVML_PARTIAL)
FAKE_API int nvmlDeviceGetCurrentClocksThrottleReasons(void *device, unsigned long long *mask) {
#else
FAKE_API int nvmlDeviceGetCurrentClocksEventReasons(void *device, unsigned long long *mask) {
#endif
    return device == &gpus[0] ? value("FAKE_NVML_REASONS", mask) : INVALID;
}
