/* The checks of the stack (traps.h): findings and their text, what the
 * environment and xgpu say, and the whole run. The rules are in
 * traps_rules.c and traps_visible.c, the machine's files in traps_sys.c,
 * the output in traps_print.c. */
#define _GNU_SOURCE
#include "traps.h"
#include "device_id.h"

#include <xgpu.h>

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- findings ---- */

tr_finding *tr_add(tr_findings *out, const char *id, tr_severity severity, const char *fmt, ...) {
    if (out->count == TR_MAX_FINDINGS) {
        out->dropped++;
        return NULL;
    }
    tr_finding *fi = &out->items[out->count++];
    memset(fi, 0, sizeof *fi);
    fi->id = id;
    fi->severity = severity;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fi->message, sizeof fi->message, fmt, ap);
    va_end(ap);
    return fi;
}

void tr_fix(tr_finding *fi, const char *fmt, ...) {
    if (!fi) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fi->fix, sizeof fi->fix, fmt, ap);
    va_end(ap);
}

void tr_detail(tr_finding *fi, const char *fmt, ...) {
    if (!fi || fi->detail_count == TR_MAX_DETAILS) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fi->details[fi->detail_count++], sizeof fi->details[0], fmt, ap);
    va_end(ap);
}

void tr_quote(const char *value, size_t max, char *out, size_t size) {
    size_t len = strlen(value), k = 0;
    for (size_t i = 0; i < len && i < max && k + 1 < size; i++) {
        unsigned char c = (unsigned char)value[i];
        out[k++] = c < 0x20 || c == 0x7f || c == '"' || c == '\\' ? '?' : (char)c;
    }
    out[k] = '\0';
    if (len > max) {
        char tail[48];
        snprintf(tail, sizeof tail, "... (%zu bytes)", len);
        snprintf(out + k, size - k, "%s", tail);
    }
}

const char *tr_severity_name(tr_severity s) {
    return s == TR_ERROR ? "error" : s == TR_WARNING ? "warning" : "info";
}

/* ---- how many GPUs ---- */

static unsigned backend_devices(const tr_facts *f, const char *backend) {
    unsigned n = 0;
    for (unsigned i = 0; i < f->xdev_count; i++) {
        n += !strcmp(f->xdev[i].backend, backend);
    }
    return n;
}

static unsigned pci_devices(const tr_facts *f, unsigned vendor, unsigned vendor2) {
    unsigned n = 0;
    for (unsigned i = 0; i < f->pci_count; i++) {
        n += f->pci[i].vendor == vendor || f->pci[i].vendor == vendor2;
    }
    return n;
}

/* NVML's count where it answers: it sees what this process may reach (a
 * container given one GPU of eight shows one; /sys shows the host's
 * eight). Else the PCI bus's, or xgpu's when larger. */
unsigned tr_nvidia_gpus(const tr_facts *f) {
    if (f->nvml && f->nvml->count_known) {
        return f->nvml->count;
    }
    unsigned pci = pci_devices(f, TR_PCI_NVIDIA, TR_PCI_NVIDIA), cuda = backend_devices(f, "cuda");
    return pci > cuda ? pci : cuda;
}

unsigned tr_amd_gpus(const tr_facts *f) {
    unsigned pci = pci_devices(f, TR_PCI_AMD, TR_PCI_HYGON), hip = backend_devices(f, "hip");
    return pci > hip ? pci : hip;
}

/* ---- the environment and xgpu ---- */

void tr_gather_env(tr_facts *f) {
    f->cuda_visible = getenv("CUDA_VISIBLE_DEVICES");
    f->hip_visible = getenv("HIP_VISIBLE_DEVICES");
    f->rocr_visible = getenv("ROCR_VISIBLE_DEVICES");
    f->cuda_order = getenv("CUDA_DEVICE_ORDER");
    f->ocl_icd_vendors = getenv("OCL_ICD_VENDORS");
    f->nvidia_visible = getenv("NVIDIA_VISIBLE_DEVICES");
}

/* The CUDA backend's driver library: the first library it tried whose
 * name is libcuda's (the driver comes before NVRTC). */
static void gather_libcuda(tr_facts *f, uint32_t backend, const xgpu_backend_info *bi) {
    for (uint32_t l = 0; l < bi->library_count; l++) {
        xgpu_library_info lib;
        if (xgpu_backend_get_library(backend, l, &lib, sizeof lib) != XGPU_SUCCESS ||
            !strstr(lib.name, "libcuda")) {
            continue;
        }
        if (lib.loaded && lib.path[0]) {
            char real[PATH_MAX];
            snprintf(f->libcuda_file, sizeof f->libcuda_file, "%.*s",
                     (int)sizeof f->libcuda_file - 1, realpath(lib.path, real) ? real : lib.path);
            ni_file_version(f->libcuda_file, f->libcuda_version, sizeof f->libcuda_version);
        }
        return;
    }
}

void tr_gather_xgpu(tr_facts *f) {
    uint32_t nb = 0, nd = 0;
    xgpu_backend_count(&nb);
    for (uint32_t b = 0; b < nb; b++) {
        xgpu_backend_info bi;
        if (xgpu_backend_get_info(b, &bi, sizeof bi) != XGPU_SUCCESS) {
            continue;
        }
        if (!strcmp(bi.name, "cuda")) {
            gather_libcuda(f, b, &bi);
        }
        f->hip_available = f->hip_available || (!strcmp(bi.name, "hip") && bi.available);
    }
    if (xgpu_device_count(&nd) != XGPU_SUCCESS) {
        return;
    }
    for (uint32_t i = 0; i < nd && f->xdev_count < TR_MAX_XDEV; i++) {
        xgpu_device *dev;
        xgpu_device_info info;
        if (xgpu_device_get(i, &dev) != XGPU_SUCCESS ||
            xgpu_device_get_info(dev, &info, sizeof info) != XGPU_SUCCESS ||
            (strcmp(info.backend, "cuda") && strcmp(info.backend, "hip"))) {
            continue;
        }
        tr_xdev *x = &f->xdev[f->xdev_count++];
        snprintf(x->backend, sizeof x->backend, "%s", info.backend);
        x->index = info.backend_index;
        snprintf(x->name, sizeof x->name, "%.*s", (int)sizeof x->name - 1, info.name);
        snprintf(x->bus_id, sizeof x->bus_id, "%s", info.has_pci_bus_id ? info.pci_bus_id : "");
        char uuid[40];
        devid_uuid(&info, uuid, sizeof uuid);
        snprintf(x->uuid, sizeof x->uuid, "%s%s", uuid[0] ? "GPU-" : "", uuid);
    }
}

/* ---- the whole run ---- */

tr_report *tr_run(void) {
    tr_report *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    if (tr_facts_init(&r->facts) == 0) {
        tr_gather_env(&r->facts);
        tr_gather_system(&r->facts);
        ni_read(&r->nvml);
        r->facts.nvml = &r->nvml;
        tr_gather_xgpu(&r->facts);
    }
    tr_check(&r->facts, &r->findings);
    return r;
}
