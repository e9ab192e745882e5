/* Telemetry internals shared by telemetry.c (the device and its sampler),
 * telemetry_nvml.c and telemetry_rsmi.c (the vendor libraries, loaded at
 * run time) and telemetry_libs.c (what loading them shares); the health
 * files (health_internal.h) open the same libraries through it. */
#ifndef XGPU_TELEMETRY_INTERNAL_H
#define XGPU_TELEMETRY_INTERNAL_H

#include "telemetry.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

typedef void (*gt_fn)(void); /* any function of a vendor library */
/* A call of `fn` goes through the function's own type. */
#define GT_CALL(type, fn) ((type)(fn))

/* The vendor library serving one device: its handle, the device's handle
 * or index in it, and the functions it was found to have (a NULL optional
 * function makes its value unknown). */
typedef struct gt_lib {
    void *dl;
    char name[512]; /* the file dlopen took, for messages */
    void *nvml_device;
    uint32_t rsmi_index;
    unsigned rsmi_major; /* ROCm SMI's version: rsmi_frequencies_t changed in 6 */
    gt_fn fn[24];        /* by the GT_FN_* indexes of telemetry_nvml.c or _rsmi.c */
} gt_lib;

/* telemetry_libs.c */
/* A function of the library, NULL when it lacks it (through memcpy, as
 * vendor_blas.c does, since C has no cast from void * to a function). */
gt_fn gt_sym(void *dl, const char *name);
/* The library the environment variable `env` names, or the first of the
 * NULL-ended `names` that dlopen takes, its name in `loaded`; NULL with
 * why. */
void *gt_open_library(const char *env, const char *const *names, char *loaded, size_t size,
                      char *why, size_t why_size);
/* XGPU_TELEMETRY_MATCH=index:N, for tests: N, the library's device to
 * take whatever the bus id; -1 without it. */
int gt_match_index(void);

/* telemetry_nvml.c, telemetry_rsmi.c */
/* Opens NVML or ROCm SMI for the device with this bus id or UUID (either
 * may be NULL) into *lib: 0, or -1 with why in `why` (the library's name
 * and the symbol or status at fault; "" when the library is not there). */
int gt_nvml_open(const char *bus_id, const char *uuid, gt_lib *lib, double *max_sm, char *why,
                 size_t why_size);
int gt_rsmi_open(const char *bus_id, gt_lib *lib, double *max_sm, char *why, size_t why_size);
/* Reads what the library has into s (v[] NAN beforehand). */
void gt_nvml_read(const gt_lib *lib, gt_sample *s);
void gt_rsmi_read(const gt_lib *lib, gt_sample *s);
void gt_nvml_close(gt_lib *lib);
void gt_rsmi_close(gt_lib *lib);

/* telemetry.c */
/* The host path `path` ("/sys/...", "/proc/...", "/dev/...") into buf,
 * under XGPU_TELEMETRY_HOST_ROOT when it is set (for tests). */
void gt_host_path(char *buf, size_t size, const char *path);
/* The host CPU's mean current clock in MHz, NAN when Linux does not say. */
double gt_host_cpu_mhz(void);

/* A sampling thread's wait, `lock` held: advances `next` by interval_ns
 * and waits on `wake` until then or until *stop. Returns whether to go
 * on (false once *stop is set). Shared by the telemetry sampler and the
 * health watch. */
bool gt_wait_tick(pthread_cond_t *wake, pthread_mutex_t *lock, struct timespec *next,
                  long interval_ns, const bool *stop);

#endif
