/* A device's health facts: its sources opened (NVML or ROCm SMI when one
 * serves it, Linux's sysfs for the PCIe link otherwise), every fact read
 * once, and the watch thread that reads the link while data moves. */
#define _GNU_SOURCE
#include "health_internal.h"
#include "device_id.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GH_WATCH_NS 20000000L /* the link read every 20 ms under load */

struct gh_device {
    gh_facts facts;
    gh_source lib_source; /* the library open in lib: NVML, ROCm SMI or none */
    gh_lib lib;
    char lib_bus[32]; /* the bus id as the caller gave it, for the libraries */
    /* the watch: the highest link seen under load, under lock */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool thread_running, stop, locks_made;
    bool loaded;
    gh_num load_gen, load_width;
};

const char *gh_source_name(gh_source s) {
    switch (s) {
    case GH_SOURCE_NVML:
        return "nvml";
    case GH_SOURCE_ROCM_SMI:
        return "rocm_smi";
    case GH_SOURCE_SYSFS:
        return "sysfs";
    case GH_SOURCE_NONE:
        break;
    }
    return "none";
}

/* "dddd:bb:dd.f" or "bb:dd.f" (any case) as sysfs spells it,
 * "0000:17:00.0"; "" when it is neither. */
static void normalise_bus(const char *in, char *out, size_t size) {
    unsigned dom = 0, bus, dev, fn;
    char tail;
    out[0] = '\0';
    if (!in || !*in) {
        return;
    }
    if (sscanf(in, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4) {
        dom = 0;
        if (sscanf(in, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3) {
            return;
        }
    }
    if (dom <= 0xffff && bus <= 0xff && dev <= 0x1f && fn <= 7) {
        snprintf(out, size, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
    }
}

/* The current link from the source the facts' PCIe group came from. */
static void link_now(gh_device *d, gh_num *gen, gh_num *width) {
    switch (d->facts.pcie.source) {
    case GH_SOURCE_NVML:
        gh_nvml_link(&d->lib, gen, width);
        break;
    case GH_SOURCE_ROCM_SMI:
        gh_rsmi_link(&d->lib, gen, width);
        break;
    case GH_SOURCE_SYSFS:
        gh_sysfs_link(d->facts.pci_bus_id, gen, width);
        break;
    case GH_SOURCE_NONE:
        break;
    }
}

static void keep_max(gh_num *into, gh_num v) {
    if (v.known && (!into->known || v.value > into->value)) {
        *into = v;
    }
}

/* One reading under load, kept when higher. */
static void sample_load(gh_device *d) {
    gh_num gen = {0}, width = {0};
    link_now(d, &gen, &width);
    pthread_mutex_lock(&d->lock);
    keep_max(&d->load_gen, gen);
    keep_max(&d->load_width, width);
    d->loaded |= gen.known || width.known;
    pthread_mutex_unlock(&d->lock);
}

static void read_all(gh_device *d, gh_vendor vendor) {
    gh_facts *h = &d->facts;
    if (d->lib_source == GH_SOURCE_NVML) {
        gh_nvml_read(&d->lib, h);
        vendor = GH_VENDOR_NVIDIA;
    } else if (d->lib_source == GH_SOURCE_ROCM_SMI) {
        gh_rsmi_read(&d->lib, h);
        vendor = GH_VENDOR_AMD;
    }
    if (vendor == GH_VENDOR_UNKNOWN) {
        vendor = gh_sysfs_vendor(h->pci_bus_id);
    }
    h->vendor = vendor;
    if (h->pcie.source == GH_SOURCE_NONE && h->pci_bus_id[0]) {
        gh_pcie *p = &h->pcie;
        gh_sysfs_link(h->pci_bus_id, &p->current_gen, &p->current_width);
        gh_sysfs_max_link(h->pci_bus_id, &p->max_gen, &p->max_width);
        if (p->current_gen.known || p->current_width.known || p->max_gen.known ||
            p->max_width.known) {
            p->source = GH_SOURCE_SYSFS;
        }
    }
    gh_driver *drv = &h->driver;
    gh_kernel_module(vendor, drv->kernel_module, sizeof drv->kernel_module);
    if (vendor == GH_VENDOR_NVIDIA) {
        gh_libcuda_version(drv->libcuda, sizeof drv->libcuda);
    }
    if (drv->kernel_module[0] && (drv->library[0] || drv->libcuda[0])) {
        bool lib_ok = !drv->library[0] || !strcmp(drv->kernel_module, drv->library);
        bool cuda_ok = !drv->libcuda[0] || !strcmp(drv->kernel_module, drv->libcuda);
        drv->match = gh_flag_of(lib_ok && cuda_ok);
    }
    if (vendor == GH_VENDOR_NVIDIA) {
        gh_read_xid(&h->xid);
    }
    h->source = d->lib_source != GH_SOURCE_NONE ? d->lib_source : h->pcie.source;
}

gh_device *gh_open_ids(const char *bus_id, const char *uuid, const char *label, gh_vendor vendor) {
    gh_device *d = calloc(1, sizeof *d);
    if (!d) {
        return NULL;
    }
    pthread_condattr_t attr;
    bool ok = pthread_mutex_init(&d->lock, NULL) == 0;
    if (ok && pthread_condattr_init(&attr) == 0) {
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        d->locks_made = pthread_cond_init(&d->wake, &attr) == 0;
        pthread_condattr_destroy(&attr);
    }
    if (!d->locks_made) {
        if (ok) {
            pthread_mutex_destroy(&d->lock);
        }
        free(d);
        return NULL;
    }
    gh_facts *h = &d->facts;
    snprintf(h->device, sizeof h->device, "%s", label ? label : "device");
    normalise_bus(bus_id, h->pci_bus_id, sizeof h->pci_bus_id);
    snprintf(d->lib_bus, sizeof d->lib_bus, "%s", bus_id ? bus_id : "");
    bool findable = d->lib_bus[0] || (uuid && *uuid) || getenv("XGPU_TELEMETRY_MATCH");
    if (findable && gh_nvml_open(d->lib_bus[0] ? d->lib_bus : NULL, uuid, &d->lib) == 0) {
        d->lib_source = GH_SOURCE_NVML;
    } else if (findable && gh_rsmi_open(d->lib_bus[0] ? d->lib_bus : NULL, &d->lib) == 0) {
        d->lib_source = GH_SOURCE_ROCM_SMI;
    }
    read_all(d, vendor);
    return d;
}

gh_device *gh_open(const xgpu_device_info *info) {
    char label[64], hex[40], uuid[48] = "";
    devid_path(info, label, sizeof label);
    devid_uuid(info, hex, sizeof hex);
    if (*hex) {
        snprintf(uuid, sizeof uuid, "GPU-%s", hex); /* NVML's spelling */
    }
    gh_vendor vendor = GH_VENDOR_UNKNOWN;
    if (info->type == XGPU_DEVICE_TYPE_GPU || info->type == XGPU_DEVICE_TYPE_ACCELERATOR) {
        if (strstr(info->vendor, "NVIDIA")) {
            vendor = GH_VENDOR_NVIDIA;
        } else if (strstr(info->vendor, "AMD") || strstr(info->vendor, "Advanced Micro")) {
            vendor = GH_VENDOR_AMD;
        }
    }
    return gh_open_ids(info->has_pci_bus_id ? info->pci_bus_id : NULL, uuid[0] ? uuid : NULL, label,
                       vendor);
}

const gh_facts *gh_device_facts(const gh_device *d) {
    return &d->facts;
}

/* ---- the watch ---- */

static void *watch(void *arg) {
    gh_device *d = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&d->lock);
    while (gt_wait_tick(&d->wake, &d->lock, &next, GH_WATCH_NS, &d->stop)) {
        pthread_mutex_unlock(&d->lock);
        sample_load(d); /* the library call without the lock */
        pthread_mutex_lock(&d->lock);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

int gh_watch_start(gh_device *d) {
    if (!d || d->thread_running) {
        return -1;
    }
    if (d->facts.pcie.source == GH_SOURCE_NONE) {
        return 0; /* no link to watch */
    }
    sample_load(d);
    d->stop = false;
    d->thread_running = pthread_create(&d->thread, NULL, watch, d) == 0;
    return d->thread_running ? 0 : -1;
}

void gh_watch_stop(gh_device *d) {
    if (!d || d->facts.pcie.source == GH_SOURCE_NONE) {
        return;
    }
    if (d->thread_running) {
        pthread_mutex_lock(&d->lock);
        d->stop = true;
        pthread_cond_signal(&d->wake);
        pthread_mutex_unlock(&d->lock);
        pthread_join(d->thread, NULL);
        d->thread_running = false;
    }
    sample_load(d);
    /* The highest under load replaces the idle reading (links idle low). */
    gh_pcie *p = &d->facts.pcie;
    if (d->loaded) {
        p->under_load = true;
        p->current_gen = d->load_gen.known ? d->load_gen : p->current_gen;
        p->current_width = d->load_width.known ? d->load_width : p->current_width;
    }
}

void gh_close(gh_device *d) {
    if (!d) {
        return;
    }
    if (d->thread_running) {
        gh_watch_stop(d);
    }
    if (d->lib_source == GH_SOURCE_NVML) {
        gh_nvml_close(&d->lib);
    } else if (d->lib_source == GH_SOURCE_ROCM_SMI) {
        gh_rsmi_close(&d->lib);
    }
    pthread_cond_destroy(&d->wake);
    pthread_mutex_destroy(&d->lock);
    free(d);
}
