/* Device telemetry for the tools: clocks, power, temperature, utilisation,
 * memory used and throttle reasons from NVML (libnvidia-ml.so.1) or ROCm
 * SMI (librocm_smi64.so), both loaded at run time; the host CPU's
 * frequency where neither serves the device. A sampler thread records a
 * device at about 10 Hz during a timed case and summarises it. */
#ifndef XGPU_TELEMETRY_H
#define XGPU_TELEMETRY_H

#include <xgpu.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum gt_source {
    GT_SOURCE_NONE,     /* nothing at all: not even the host CPU's clock */
    GT_SOURCE_HOST,     /* no vendor library serves the device: host CPU clock only */
    GT_SOURCE_NVML,     /* NVIDIA's management library */
    GT_SOURCE_ROCM_SMI, /* AMD's ROCm SMI */
} gt_source;

/* The values of one sample, each NAN when unknown. */
typedef enum gt_value {
    GT_SM_CLOCK_MHZ,
    GT_MEM_CLOCK_MHZ,
    GT_POWER_W,
    GT_POWER_LIMIT_W,
    GT_TEMP_C,
    GT_UTIL_PCT,
    GT_MEM_USED_MIB,
    GT_CPU_MHZ,
    GT_VALUE_COUNT
} gt_value;

/* Clock-event (throttle) reasons: NVML's bit values, which ROCm SMI
 * samples do not report. */
#define GT_REASON_IDLE 0x1ull
#define GT_REASON_APP_CLOCKS 0x2ull
#define GT_REASON_SW_POWER_CAP 0x4ull
#define GT_REASON_HW_SLOWDOWN 0x8ull
#define GT_REASON_SYNC_BOOST 0x10ull
#define GT_REASON_SW_THERMAL 0x20ull
#define GT_REASON_HW_THERMAL 0x40ull
#define GT_REASON_HW_POWER_BRAKE 0x80ull
#define GT_REASON_DISPLAY_CLOCKS 0x100ull
/* The reasons that mark a case throttled: power and thermal ones. */
#define GT_REASONS_THROTTLE                                                                        \
    (GT_REASON_SW_POWER_CAP | GT_REASON_HW_SLOWDOWN | GT_REASON_SW_THERMAL |                       \
     GT_REASON_HW_THERMAL | GT_REASON_HW_POWER_BRAKE)

#define GT_MAX_SAMPLES 4096 /* a sampler keeps the last this many */
#define GT_DEFAULT_CLOCK_FRACTION 0.75

typedef struct gt_sample {
    double t; /* seconds, monotonic clock */
    double v[GT_VALUE_COUNT];
    uint64_t reasons;
} gt_sample;

typedef struct gt_range {
    bool known;
    double min, median, max;
} gt_range;

/* What a case saw: the "telemetry" object of gpubench's results. */
typedef struct gt_summary {
    gt_source source;
    int samples;
    gt_range r[GT_VALUE_COUNT];
    double sm_clock_max_mhz; /* NAN when unknown */
    uint64_t reasons;        /* every reason seen */
    bool throttled;
    char throttle_why[256]; /* "" when not throttled */
} gt_summary;

typedef struct gt_device gt_device; /* one device's telemetry source */

/* Opens the telemetry source of a device: NVML or ROCm SMI when either
 * library finds the device by its PCI bus id (or, for NVML, its UUID),
 * else the host CPU's clock, else nothing. Never fails: the source says
 * what was found and gt_device_reason why no vendor library serves it.
 * NULL only when memory runs out. The libraries are named by
 * XGPU_NVML_LIBRARY and XGPU_ROCM_SMI_LIBRARY when set.
 * XGPU_TELEMETRY_MATCH=index:N (for tests) takes the library's device N
 * whatever the bus id. Close with gt_close. */
gt_device *gt_open(const xgpu_device_info *info);
/* The same from a bus id ("0000:01:00.0", NULL or "" for none), a UUID
 * string (NVML's "GPU-..." form, NULL for none) and a label for messages
 * ("cuda:0"). */
gt_device *gt_open_ids(const char *pci_bus_id, const char *uuid, const char *label);
/* The host CPU's clock alone (source host, or none), for work on the host. */
gt_device *gt_open_host(void);
/* Stops a running sampler, shuts the library down; NULL is ignored. */
void gt_close(gt_device *d);

gt_source gt_device_source(const gt_device *d);
/* Why no vendor library serves the device ("" when one does), e.g.
 * "libnvidia-ml.so.1: nvmlInit_v2 failed: 9 (Driver Not Loaded)". Valid
 * until gt_close. */
const char *gt_device_reason(const gt_device *d);
/* The device's maximum SM clock in MHz, NAN when unknown. */
double gt_device_max_sm_mhz(const gt_device *d);
const char *gt_source_name(gt_source s); /* "nvml", "rocm_smi", "host", "none" */

/* One sample now, on the calling thread. */
void gt_sample_now(gt_device *d, gt_sample *s);

/* Samples the device on a thread of its own at about 10 Hz, one sample
 * taken before returning, until gt_stop, which takes one more, joins the
 * thread and summarises every sample kept. 0, or -1 when the thread cannot
 * be started (the summary then has the two samples of start and stop) or
 * the device's sampler is already running (nothing changes). Start and
 * stop on one thread. */
int gt_start(gt_device *d);
void gt_stop(gt_device *d, gt_summary *out);

/* Summarises n samples: min/median/max of each value, the union of the
 * reasons, and whether the case was throttled: a power or thermal reason
 * fired, or the lowest SM clock of a sample that was not idle fell below
 * `fraction` of max_sm_mhz. */
void gt_summarise(const gt_sample *s, size_t n, gt_source source, double max_sm_mhz,
                  double fraction, gt_summary *out);
/* XGPU_THROTTLE_CLOCK_FRACTION, in (0, 1]; GT_DEFAULT_CLOCK_FRACTION when
 * unset or bad (a bad value is said once on stderr). */
double gt_clock_fraction(void);

/* A reason bit's name ("sw_thermal"), NULL for a bit without one. */
const char *gt_reason_name(uint64_t bit);
/* The reasons as names joined by `sep` into buf; "" when none. */
void gt_reasons_text(uint64_t reasons, const char *sep, char *buf, size_t size);

/* The summary as gpubench's "telemetry" JSON object, unknown values null. */
void gt_write_json(FILE *f, const gt_summary *s);

#endif
