/* NVML's view of the machine (nvml_inventory.h): opened with telemetry's
 * loader (telemetry_libs.c), each call found by name and skipped when the
 * library lacks it, as an older driver's does. */
#define _GNU_SOURCE /* dladdr */
#include "nvml_inventory.h"
#include "telemetry_internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_return;
typedef void *nvml_device;

/* nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it. */
typedef struct nvml_pci_info {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} nvml_pci_info;

typedef nvml_return (*text_fn)(nvml_device, char *, unsigned);

/* The functions the inventory calls; NULL where the library lacks one. */
typedef struct ni_calls {
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    const char *(*error_string)(nvml_return);
    nvml_return (*driver_version)(char *, unsigned);
    nvml_return (*count)(unsigned *);
    nvml_return (*by_index)(unsigned, nvml_device *);
    text_fn uuid, name;
    nvml_return (*pci)(nvml_device, nvml_pci_info *);
    nvml_return (*mig_mode)(nvml_device, unsigned *, unsigned *);
    nvml_return (*mig_max)(nvml_device, unsigned *);
    nvml_return (*mig_by_index)(nvml_device, unsigned, nvml_device *);
} ni_calls;

static void bind(void *dl, ni_calls *c) {
    c->init = GT_CALL(nvml_return(*)(void), gt_sym(dl, "nvmlInit_v2"));
    c->shutdown = GT_CALL(nvml_return(*)(void), gt_sym(dl, "nvmlShutdown"));
    c->error_string = GT_CALL(const char *(*)(nvml_return), gt_sym(dl, "nvmlErrorString"));
    c->driver_version =
        GT_CALL(nvml_return(*)(char *, unsigned), gt_sym(dl, "nvmlSystemGetDriverVersion"));
    c->count = GT_CALL(nvml_return(*)(unsigned *), gt_sym(dl, "nvmlDeviceGetCount_v2"));
    c->by_index = GT_CALL(nvml_return(*)(unsigned, nvml_device *),
                          gt_sym(dl, "nvmlDeviceGetHandleByIndex_v2"));
    c->uuid = GT_CALL(text_fn, gt_sym(dl, "nvmlDeviceGetUUID"));
    c->name = GT_CALL(text_fn, gt_sym(dl, "nvmlDeviceGetName"));
    c->pci = GT_CALL(nvml_return(*)(nvml_device, nvml_pci_info *),
                     gt_sym(dl, "nvmlDeviceGetPciInfo_v3"));
    c->mig_mode = GT_CALL(nvml_return(*)(nvml_device, unsigned *, unsigned *),
                          gt_sym(dl, "nvmlDeviceGetMigMode"));
    c->mig_max = GT_CALL(nvml_return(*)(nvml_device, unsigned *),
                         gt_sym(dl, "nvmlDeviceGetMaxMigDeviceCount"));
    c->mig_by_index = GT_CALL(nvml_return(*)(nvml_device, unsigned, nvml_device *),
                              gt_sym(dl, "nvmlDeviceGetMigDeviceHandleByIndex"));
}

/* A text query into buf, "" when it fails or is missing; the text is cut
 * at the buffer's end whatever the library wrote. */
static void text_of(text_fn fn, nvml_device dev, char *buf, size_t size) {
    buf[0] = '\0';
    if (fn && fn(dev, buf, (unsigned)size) != 0) {
        buf[0] = '\0';
    }
    buf[size - 1] = '\0';
}

/* The file the library was loaded from, links resolved: its name carries
 * the driver version. */
static void loaded_file(void *dl, char *out, size_t size) {
    void *sym = dl ? dlsym(dl, "nvmlInit_v2") : NULL;
    Dl_info info;
    char real[PATH_MAX];
    out[0] = '\0';
    if (sym && dladdr(sym, &info) && info.dli_fname) {
        snprintf(out, size, "%.*s", (int)size - 1,
                 realpath(info.dli_fname, real) ? real : info.dli_fname);
    }
}

static void read_mig(const ni_calls *c, nvml_device dev, ni_gpu *g) {
    unsigned current = 0, pending = 0;
    g->mig_current = g->mig_pending = -1;
    if (!c->mig_mode || c->mig_mode(dev, &current, &pending) != 0) {
        return; /* NOT_SUPPORTED: a GPU without MIG */
    }
    g->mig_current = current == 1;
    g->mig_pending = pending == 1;
    if (!g->mig_current || !c->mig_max || c->mig_max(dev, &g->mig_max) != 0) {
        return;
    }
    /* The slots hold MIG devices or nothing (NOT_FOUND): every one tried. */
    for (unsigned i = 0; i < g->mig_max && i < 64 && g->mig_count < NI_MAX_MIG; i++) {
        nvml_device mig = NULL;
        if (!c->mig_by_index || c->mig_by_index(dev, i, &mig) != 0) {
            continue;
        }
        ni_mig *m = &g->mig[g->mig_count++];
        text_of(c->uuid, mig, m->uuid, sizeof m->uuid);
        text_of(c->name, mig, m->name, sizeof m->name);
    }
}

static void read_gpus(const ni_calls *c, ni_inventory *inv) {
    if (!c->count || c->count(&inv->count) != 0) {
        return;
    }
    inv->count_known = true;
    for (unsigned i = 0; i < inv->count && inv->gpu_count < NI_MAX_GPUS; i++) {
        nvml_device dev = NULL;
        ni_gpu *g = &inv->gpus[inv->gpu_count++];
        g->mig_current = g->mig_pending = -1;
        if (!c->by_index || c->by_index(i, &dev) != 0) {
            continue; /* listed, with nothing known */
        }
        text_of(c->uuid, dev, g->uuid, sizeof g->uuid);
        text_of(c->name, dev, g->name, sizeof g->name);
        nvml_pci_info pci;
        memset(&pci, 0, sizeof pci);
        if (c->pci && c->pci(dev, &pci) == 0) {
            pci.bus_id[sizeof pci.bus_id - 1] = '\0';
            snprintf(g->bus_id, sizeof g->bus_id, "%s", pci.bus_id);
        }
        read_mig(c, dev, g);
    }
}

void ni_read(ni_inventory *inv) {
    static const char *const names[] = {"libnvidia-ml.so.1", NULL};
    memset(inv, 0, sizeof *inv);
    inv->init_rc = -1;
    void *dl = gt_open_library("XGPU_NVML_LIBRARY", names, inv->library, sizeof inv->library,
                               inv->error, sizeof inv->error);
    if (!dl) {
        return;
    }
    inv->loaded = true;
    loaded_file(dl, inv->file, sizeof inv->file);
    ni_calls c;
    bind(dl, &c);
    if (!c.init) {
        snprintf(inv->error, sizeof inv->error, "%.400s lacks nvmlInit_v2", inv->library);
        return;
    }
    inv->init_rc = c.init();
    if (inv->init_rc != 0) {
        const char *text = c.error_string ? c.error_string(inv->init_rc) : NULL;
        snprintf(inv->error, sizeof inv->error, "%.400s: nvmlInit_v2 failed: %d (%.60s)",
                 inv->library, inv->init_rc, text ? text : "no nvmlErrorString");
        return;
    }
    if (c.driver_version &&
        c.driver_version(inv->driver_version, sizeof inv->driver_version) != 0) {
        inv->driver_version[0] = '\0';
    }
    inv->driver_version[sizeof inv->driver_version - 1] = '\0';
    read_gpus(&c, inv);
    if (c.shutdown) {
        c.shutdown();
    }
    /* Never dlclose'd, as telemetry's NVML: its threads may outlive it. */
}

void ni_file_version(const char *file, char *out, size_t size) {
    snprintf(out, size, "%s", "");
    const char *so = NULL;
    for (const char *p = strstr(file, ".so."); p; p = strstr(p + 1, ".so.")) {
        so = p; /* the last one: a folder may hold ".so." too */
    }
    if (!so) {
        return;
    }
    const char *v = so + 4, *p = v;
    int digits = 0, dots = 0;
    while (isdigit((unsigned char)*p)) {
        p++, digits++;
    }
    if (digits < 3 || *p != '.') {
        return;
    }
    while (*p == '.' && isdigit((unsigned char)p[1]) && dots < 2) {
        p++, dots++;
        while (isdigit((unsigned char)*p)) {
            p++;
        }
    }
    if (*p == '\0' && dots >= 1) {
        snprintf(out, size, "%.*s", (int)(p - v), v);
    }
}
