/* A stand-in for NVML (libnvidia-ml.so.1) that telemetry loads in the
 * tests: one GPU whose values come from the environment, read at each
 * call so that one process can change them between samples.
 *   FAKE_NVML_INIT      nvmlInit_v2's return code (default 0)
 *   FAKE_NVML_BUS       the bus id it serves (default 0000:01:00.0)
 *   FAKE_NVML_UUID      its UUID (default GPU-00000000-1111-2222-3333-444444444444)
 *   FAKE_NVML_SM, _SM_MAX, _MEM (MHz), _POWER_MW, _LIMIT_MW, _TEMP (C),
 *   _UTIL (%), _MEM_USED (bytes), _REASONS (a mask, any base strtoull takes):
 *   a value that is unset makes its call fail with NVML_ERROR_NOT_SUPPORTED;
 *   fake_nvml_set_sm() overrides FAKE_NVML_SM while a sampler runs.
 * Built three times: complete; FAKE_NVML_PARTIAL, which lacks
 * nvmlDeviceGetPowerUsage and has the clock-event reasons only under their
 * older name (nvmlDeviceGetCurrentClocksThrottleReasons); FAKE_NVML_NO_INIT,
 * which lacks nvmlInit_v2. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

enum { OK = 0, NOT_SUPPORTED = 3, NOT_FOUND = 6, INVALID = 2 };

static int the_device; /* its handle is this object's address */

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
    *device = &the_device;
    return OK;
}

FAKE_API int nvmlDeviceGetHandleByUUID(const char *uuid, void **device) {
    if (strcmp(uuid, env_or("FAKE_NVML_UUID", "GPU-00000000-1111-2222-3333-444444444444")) != 0) {
        return NOT_FOUND;
    }
    *device = &the_device;
    return OK;
}

FAKE_API int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **device) {
    if (index != 0) {
        return INVALID;
    }
    *device = &the_device;
    return OK;
}

/* The SM clock while a sampler thread runs: set through this, not the
 * environment (setenv beside another thread's getenv is a race). */
static _Atomic long sm_override = -1;
FAKE_API void fake_nvml_set_sm(long mhz) {
    sm_override = mhz;
}

FAKE_API int nvmlDeviceGetClockInfo(void *device, int type, unsigned *mhz) {
    if (device != &the_device) {
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
    return device == &the_device && type == 1 ? uint_value("FAKE_NVML_SM_MAX", mhz) : INVALID;
}

#if !defined(FAKE_NVML_PARTIAL)
FAKE_API int nvmlDeviceGetPowerUsage(void *device, unsigned *mw) {
    return device == &the_device ? uint_value("FAKE_NVML_POWER_MW", mw) : INVALID;
}
#endif

FAKE_API int nvmlDeviceGetEnforcedPowerLimit(void *device, unsigned *mw) {
    return device == &the_device ? uint_value("FAKE_NVML_LIMIT_MW", mw) : INVALID;
}

FAKE_API int nvmlDeviceGetTemperature(void *device, int sensor, unsigned *c) {
    return device == &the_device && sensor == 0 ? uint_value("FAKE_NVML_TEMP", c) : INVALID;
}

typedef struct {
    unsigned gpu, memory;
} fake_utilization;

FAKE_API int nvmlDeviceGetUtilizationRates(void *device, fake_utilization *u) {
    u->memory = 1;
    return device == &the_device ? uint_value("FAKE_NVML_UTIL", &u->gpu) : INVALID;
}

typedef struct {
    unsigned long long total, free, used;
} fake_memory;

FAKE_API int nvmlDeviceGetMemoryInfo(void *device, fake_memory *m) {
    m->total = 1ull << 36;
    int rc = device == &the_device ? value("FAKE_NVML_MEM_USED", &m->used) : INVALID;
    m->free = m->total - m->used;
    return rc;
}

#if defined(FAKE_NVML_PARTIAL)
FAKE_API int nvmlDeviceGetCurrentClocksThrottleReasons(void *device, unsigned long long *mask) {
#else
FAKE_API int nvmlDeviceGetCurrentClocksEventReasons(void *device, unsigned long long *mask) {
#endif
    return device == &the_device ? value("FAKE_NVML_REASONS", mask) : INVALID;
}
