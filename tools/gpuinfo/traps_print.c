/* The checks of the stack as the doctor prints them (what was seen, then
 * each finding, its details and its fix) and as gpuinfo --json lists them
 * ("findings": id, severity, message, fix, details). */
#include "traps.h"
#include "json_write.h"

#include <string.h>

static const char *tag(tr_severity s) {
    return s == TR_ERROR ? "FAIL" : s == TR_WARNING ? "WARN" : "info";
}

/* One line per kind of fact the rules read, so that a finding (or its
 * absence) can be checked against what was seen. */
static void print_seen(FILE *out, const tr_facts *f, const ni_inventory *nvml) {
    unsigned nvidia = 0, amd = 0;
    for (unsigned i = 0; i < f->pci_count; i++) {
        nvidia += f->pci[i].vendor == TR_PCI_NVIDIA;
        amd += f->pci[i].vendor != TR_PCI_NVIDIA;
    }
    if (f->root[0]) {
        fprintf(out,
                "  -     XGPU_SYSROOT=%s: /proc, /sys, /dev, /etc, /run, /opt are read there\n",
                f->root);
    }
    fprintf(out, "  -     PCI bus: %u NVIDIA, %u AMD or Hygon GPU(s)", nvidia, amd);
    for (unsigned i = 0; i < f->pci_count && i < 8; i++) {
        fprintf(out, "%s %s", i ? "," : ":", f->pci[i].bus_id);
    }
    fprintf(out, "%s\n", f->pci_count > 8 ? ", ..." : "");
    fprintf(out, "  -     device nodes:%s%s%s%s%s\n", f->dev_nvidia ? " /dev/nvidia*" : "",
            f->dev_kfd ? " /dev/kfd" : "", f->dev_render ? " /dev/dri/renderD*" : "",
            f->dev_dxg ? " /dev/dxg" : "",
            f->dev_nvidia || f->dev_kfd || f->dev_render || f->dev_dxg ? "" : " none of a GPU");
    if (nvml->init_rc == 0) {
        fprintf(out, "  -     NVML: %s: driver %s, %u GPU(s)\n",
                nvml->file[0] ? nvml->file : nvml->library,
                nvml->driver_version[0] ? nvml->driver_version : "unknown", nvml->count);
    } else {
        fprintf(out, "  -     NVML: %s\n", nvml->error[0] ? nvml->error : "not loaded");
    }
    if (f->nvidia_kmod[0] || f->amdgpu_kmod[0]) {
        fprintf(out, "  -     kernel modules:");
        if (f->nvidia_kmod[0]) {
            fprintf(out, " nvidia %s (%s)", f->nvidia_kmod, f->nvidia_kmod_from);
        }
        if (f->amdgpu_kmod[0]) {
            fprintf(out, " amdgpu %s (/sys/module/amdgpu/version)", f->amdgpu_kmod);
        }
        fputc('\n', out);
    }
    if (f->libcuda_file[0]) {
        fprintf(out, "  -     CUDA driver library: %s\n", f->libcuda_file);
    }
    if (f->container[0]) {
        fprintf(out, "  -     container: %s\n", f->container);
    }
    if (f->wsl[0]) {
        fprintf(out, "  -     WSL: %s\n", f->wsl);
    }
}

void tr_print_doctor(FILE *out, const tr_report *r) {
    const tr_findings *fs = &r->findings;
    fprintf(out, "stack: visible devices, CUDA device order, MIG, containers, WSL, driver "
                 "versions\n");
    if (!r->facts.root_error[0]) {
        print_seen(out, &r->facts, &r->nvml);
    }
    for (unsigned i = 0; i < fs->count; i++) {
        const tr_finding *fi = &fs->items[i];
        fprintf(out, "  %-5s %s: %s\n", tag(fi->severity), fi->id, fi->message);
        for (unsigned d = 0; d < fi->detail_count; d++) {
            fprintf(out, "          %s\n", fi->details[d]);
        }
        fprintf(out, "        fix: %s\n", fi->fix);
    }
    if (fs->dropped) {
        fprintf(out, "  info  %u more finding(s) not shown\n", fs->dropped);
    }
    if (!fs->count) {
        fprintf(out, "  ok    no trap found\n");
    }
}

void tr_write_json(FILE *out, const tr_findings *fs) {
    fputs("\"findings\": [", out);
    for (unsigned i = 0; i < fs->count; i++) {
        const tr_finding *fi = &fs->items[i];
        fputs(i ? ",\n    {\"id\": " : "\n    {\"id\": ", out);
        jw_string(out, fi->id);
        fputs(", \"severity\": ", out);
        jw_string(out, tr_severity_name(fi->severity));
        fputs(",\n     \"message\": ", out);
        jw_string(out, fi->message);
        fputs(",\n     \"fix\": ", out);
        jw_string(out, fi->fix);
        fputs(",\n     \"details\": [", out);
        for (unsigned d = 0; d < fi->detail_count; d++) {
            fputs(d ? ", " : "", out);
            jw_string(out, fi->details[d]);
        }
        fputs("]}", out);
    }
    fputs(fs->count ? "\n  ]" : "]", out);
}
