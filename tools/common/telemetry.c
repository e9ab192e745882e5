/* A device's telemetry source and its sampler thread. */
#define _GNU_SOURCE
#include "telemetry_internal.h"
#include "device_id.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GT_INTERVAL_NS 100000000L /* 10 Hz */

struct gt_device {
    gt_source source;
    char label[64];
    char reason[1280];
    double max_sm;
    gt_lib lib;
    /* the sampler: samples[] is a ring of the last GT_MAX_SAMPLES */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool thread_running, stop;
    gt_sample *samples;
    size_t taken;
};

/* ---- the host CPU's clock ---- */

void gt_host_path(char *buf, size_t size, const char *path) {
    const char *root = getenv("XGPU_TELEMETRY_HOST_ROOT");
    snprintf(buf, size, "%s%s", root ? root : "", path);
}

double gt_host_cpu_mhz(void) {
    char dir_path[512];
    gt_host_path(dir_path, sizeof dir_path, "/sys/devices/system/cpu");
    DIR *dir = opendir(dir_path);
    double sum = 0;
    int n = 0;
    for (struct dirent *e = dir ? readdir(dir) : NULL; e; e = readdir(dir)) {
        unsigned cpu;
        char tail;
        if (sscanf(e->d_name, "cpu%u%c", &cpu, &tail) != 1) {
            continue;
        }
        char file[1024];
        snprintf(file, sizeof file, "%s/%s/cpufreq/scaling_cur_freq", dir_path, e->d_name);
        FILE *f = fopen(file, "r");
        double khz;
        if (f && fscanf(f, "%lf", &khz) == 1 && khz > 0) {
            sum += khz * 1e-3;
            n++;
        }
        if (f) {
            fclose(f);
        }
    }
    if (dir) {
        closedir(dir);
    }
    if (n) {
        return sum / n;
    }
    char cpuinfo[512], line[512];
    gt_host_path(cpuinfo, sizeof cpuinfo, "/proc/cpuinfo");
    FILE *f = fopen(cpuinfo, "r");
    while (f && fgets(line, sizeof line, f)) {
        double mhz;
        if (!strncmp(line, "cpu MHz", 7) &&
            sscanf(strchr(line, ':') ? strchr(line, ':') + 1 : "", "%lf", &mhz) == 1 && mhz > 0) {
            sum += mhz;
            n++;
        }
    }
    if (f) {
        fclose(f);
    }
    return n ? sum / n : NAN;
}

/* ---- opening ---- */

const char *gt_source_name(gt_source s) {
    switch (s) {
    case GT_SOURCE_NVML:
        return "nvml";
    case GT_SOURCE_ROCM_SMI:
        return "rocm_smi";
    case GT_SOURCE_HOST:
        return "host";
    case GT_SOURCE_NONE:
        break;
    }
    return "none";
}

static gt_device *alloc_device(const char *label) {
    gt_device *d = calloc(1, sizeof *d);
    if (!d) {
        return NULL;
    }
    if (pthread_mutex_init(&d->lock, NULL) != 0) {
        free(d);
        return NULL;
    }
    /* timed waits on the monotonic clock, as the samples are stamped */
    pthread_condattr_t attr;
    bool cond_ok = pthread_condattr_init(&attr) == 0;
    if (cond_ok) {
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        cond_ok = pthread_cond_init(&d->wake, &attr) == 0;
        pthread_condattr_destroy(&attr);
    }
    if (!cond_ok) {
        pthread_mutex_destroy(&d->lock);
        free(d);
        return NULL;
    }
    snprintf(d->label, sizeof d->label, "%s", label ? label : "device");
    d->max_sm = NAN;
    return d;
}

gt_device *gt_open_ids(const char *bus_id, const char *uuid, const char *label) {
    gt_device *d = alloc_device(label);
    if (!d) {
        return NULL;
    }
    bool findable = (bus_id && *bus_id) || (uuid && *uuid) || getenv("XGPU_TELEMETRY_MATCH");
    char nvml_why[512] = "", rsmi_why[512] = "";
    if (!findable) {
        snprintf(d->reason, sizeof d->reason,
                 "no NVML or ROCm SMI serves %s: it has no PCI bus id or UUID", d->label);
    } else if (gt_nvml_open(bus_id, uuid, &d->lib, &d->max_sm, nvml_why, sizeof nvml_why) == 0) {
        d->source = GT_SOURCE_NVML;
        return d;
    } else if (gt_rsmi_open(bus_id, &d->lib, &d->max_sm, rsmi_why, sizeof rsmi_why) == 0) {
        d->source = GT_SOURCE_ROCM_SMI;
        return d;
    } else {
        snprintf(d->reason, sizeof d->reason, "no NVML or ROCm SMI serves %s: %s; %s", d->label,
                 nvml_why, rsmi_why);
    }
    d->source = isnan(gt_host_cpu_mhz()) ? GT_SOURCE_NONE : GT_SOURCE_HOST;
    return d;
}

gt_device *gt_open_host(void) {
    gt_device *d = alloc_device("host");
    if (d) {
        d->source = isnan(gt_host_cpu_mhz()) ? GT_SOURCE_NONE : GT_SOURCE_HOST;
    }
    return d;
}

gt_device *gt_open(const xgpu_device_info *info) {
    char label[64], hex[40], uuid[48] = "";
    devid_path(info, label, sizeof label);
    devid_uuid(info, hex, sizeof hex);
    if (*hex) {
        snprintf(uuid, sizeof uuid, "GPU-%s", hex); /* NVML's spelling */
    }
    return gt_open_ids(info->has_pci_bus_id ? info->pci_bus_id : NULL, uuid[0] ? uuid : NULL,
                       label);
}

gt_source gt_device_source(const gt_device *d) {
    return d->source;
}

const char *gt_device_reason(const gt_device *d) {
    return d->reason;
}

double gt_device_max_sm_mhz(const gt_device *d) {
    return d->max_sm;
}

void gt_close(gt_device *d) {
    if (!d) {
        return;
    }
    if (d->thread_running) {
        gt_summary ignored;
        gt_stop(d, &ignored);
    }
    if (d->source == GT_SOURCE_NVML) {
        gt_nvml_close(&d->lib);
    } else if (d->source == GT_SOURCE_ROCM_SMI) {
        gt_rsmi_close(&d->lib);
    }
    pthread_cond_destroy(&d->wake);
    pthread_mutex_destroy(&d->lock);
    free(d->samples);
    free(d);
}

/* ---- sampling ---- */

void gt_sample_now(gt_device *d, gt_sample *s) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    s->t = (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
    for (int i = 0; i < GT_VALUE_COUNT; i++) {
        s->v[i] = NAN;
    }
    s->reasons = 0;
    if (d->source == GT_SOURCE_NVML) {
        gt_nvml_read(&d->lib, s);
    } else if (d->source == GT_SOURCE_ROCM_SMI) {
        gt_rsmi_read(&d->lib, s);
    } else if (d->source == GT_SOURCE_HOST) {
        s->v[GT_CPU_MHZ] = gt_host_cpu_mhz();
    }
}

/* Adds a sample to the ring; the lock is held. */
static void keep(gt_device *d, const gt_sample *s) {
    d->samples[d->taken % GT_MAX_SAMPLES] = *s;
    d->taken++;
}

bool gt_wait_tick(pthread_cond_t *wake, pthread_mutex_t *lock, struct timespec *next,
                  long interval_ns, const bool *stop) {
    next->tv_nsec += interval_ns;
    if (next->tv_nsec >= 1000000000L) {
        next->tv_nsec -= 1000000000L;
        next->tv_sec++;
    }
    int rc = 0;
    while (!*stop && rc != ETIMEDOUT) {
        rc = pthread_cond_timedwait(wake, lock, next);
    }
    return !*stop;
}

static void *sampler(void *arg) {
    gt_device *d = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&d->lock);
    while (gt_wait_tick(&d->wake, &d->lock, &next, GT_INTERVAL_NS, &d->stop)) {
        pthread_mutex_unlock(&d->lock);
        gt_sample s;
        gt_sample_now(d, &s); /* the library call without the lock */
        pthread_mutex_lock(&d->lock);
        keep(d, &s);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

int gt_start(gt_device *d) {
    if (d->thread_running) {
        return -1; /* one sampler at a time */
    }
    if (!d->samples) {
        d->samples = malloc(GT_MAX_SAMPLES * sizeof *d->samples);
        if (!d->samples) {
            return -1;
        }
    }
    d->taken = 0;
    d->stop = false;
    gt_sample s;
    gt_sample_now(d, &s);
    keep(d, &s);
    d->thread_running = pthread_create(&d->thread, NULL, sampler, d) == 0;
    return d->thread_running ? 0 : -1;
}

void gt_stop(gt_device *d, gt_summary *out) {
    if (d->thread_running) {
        pthread_mutex_lock(&d->lock);
        d->stop = true;
        pthread_cond_signal(&d->wake);
        pthread_mutex_unlock(&d->lock);
        pthread_join(d->thread, NULL);
        d->thread_running = false;
    }
    if (!d->samples) {
        gt_summarise(NULL, 0, d->source, d->max_sm, gt_clock_fraction(), out);
        return;
    }
    gt_sample s;
    gt_sample_now(d, &s);
    keep(d, &s);
    size_t n = d->taken < GT_MAX_SAMPLES ? d->taken : GT_MAX_SAMPLES;
    /* oldest first is not needed: the summary sorts */
    gt_summarise(d->samples, n, d->source, d->max_sm, gt_clock_fraction(), out);
}
