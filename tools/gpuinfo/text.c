/* Text output: one line per physical device, or every field (-v). */
#include "gpuinfo.h"
#include "device_id.h"
#include "fields.h"

#include <string.h>

static void paths(const pd_device *d, char *out, size_t size) {
    out[0] = '\0';
    size_t used = 0;
    for (uint32_t p = 0; p < d->path_count && used < size; p++) {
        char path[64];
        devid_path(&d->infos[p], path, sizeof path);
        int n = snprintf(out + used, size - used, "%s%s", p ? ", " : "", path);
        used += n > 0 ? (size_t)n : 0;
    }
}

static void format_bytes(char *out, size_t size, uint64_t b) {
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    unsigned u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    if (u == 0) {
        snprintf(out, size, "%llu bytes", (unsigned long long)b);
    } else {
        snprintf(out, size, "%.1f %s", v, units[u]);
    }
}

void gi_print_short(FILE *out, const pd_device *devs, uint32_t n, int show_backends) {
    for (uint32_t i = 0; i < n; i++) {
        const xgpu_device_info *info = &devs[i].infos[0];
        char mem[32], where[256];
        format_bytes(mem, sizeof mem, info->global_mem_bytes);
        paths(&devs[i], where, sizeof where);
        fprintf(out, "%u  %s  %s  %s  %u CU  %s  %s\n", devs[i].index,
                info->vendor[0] ? info->vendor : "-", info->name[0] ? info->name : "-",
                info->arch[0] ? info->arch : "-", info->compute_units, mem, where);
    }
    if (n == 0) {
        fprintf(out, "no compute device found\n");
    }
    if (show_backends) {
        uint32_t nb = 0;
        xgpu_backend_count(&nb);
        for (uint32_t b = 0; b < nb; b++) {
            xgpu_backend_info bi;
            if (xgpu_backend_get_info(b, &bi, sizeof bi) != XGPU_SUCCESS) {
                continue;
            }
            if (!bi.available) {
                fprintf(out, "%s: unavailable: %s\n", bi.name, bi.reason);
            } else if (bi.device_count == 0) {
                fprintf(out, "%s: available, but it has no devices\n", bi.name);
            }
        }
    }
}

static void print_value(FILE *out, const df_field *f, const df_value *v) {
    char buf[64];
    switch (v->kind) {
    case DF_NULL:
        fprintf(out, "unknown");
        break;
    case DF_ERROR:
        fprintf(out, "(error: %s)", v->text);
        break;
    case DF_STRING:
        fprintf(out, "%s", v->text);
        break;
    case DF_BOOL:
        fprintf(out, "%s", v->b ? "yes" : "no");
        break;
    case DF_UINT:
        if (f->unit == DF_UNIT_BYTES) {
            format_bytes(buf, sizeof buf, v->u);
            fprintf(out, "%s (%llu bytes)", buf, (unsigned long long)v->u);
        } else {
            fprintf(out, "%llu%s", (unsigned long long)v->u, f->unit == DF_UNIT_MHZ ? " MHz" : "");
        }
        break;
    case DF_FLOAT:
        fprintf(out, "%.1f %s", v->f,
                f->unit == DF_UNIT_GFLOPS ? "GFLOP/s" : (f->unit == DF_UNIT_GBS ? "GB/s" : ""));
        break;
    }
    if (v->provenance[0]) {
        fprintf(out, "  [%s]", v->provenance);
    }
    fputc('\n', out);
}

void gi_print_verbose(FILE *out, const pd_device *devs, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        char where[256];
        paths(&devs[i], where, sizeof where);
        fprintf(out, "Device %u: %s (%s)\n", devs[i].index, devs[i].infos[0].name, where);
        const char *group = "";
        for (size_t k = 0; k < df_field_count; k++) {
            const df_field *f = &df_fields[k];
            if (strcmp(group, f->group)) {
                group = f->group;
                fprintf(out, "  %s\n", group);
            }
            df_value v;
            memset(&v, 0, sizeof v);
            f->get(&devs[i], &v);
            fprintf(out, "    %-28s ", f->label);
            print_value(out, f, &v);
        }
        fputc('\n', out);
    }
    if (n == 0) {
        fprintf(out, "no compute device found\n\n");
    }
}

void gi_print_backends(FILE *out) {
    uint32_t nb = 0;
    xgpu_backend_count(&nb);
    fprintf(out, "Backends\n");
    for (uint32_t b = 0; b < nb; b++) {
        xgpu_backend_info bi;
        if (xgpu_backend_get_info(b, &bi, sizeof bi) != XGPU_SUCCESS) {
            continue;
        }
        if (bi.available) {
            fprintf(out, "  %-8s available, %u device(s), plugin %s (ABI %u)\n", bi.name,
                    bi.device_count, bi.plugin_path, bi.abi_version);
        } else {
            fprintf(out, "  %-8s unavailable (%s): %s\n", bi.name, xgpu_status_name(bi.status),
                    bi.reason);
        }
        for (uint32_t l = 0; l < bi.library_count; l++) {
            xgpu_library_info lib;
            if (xgpu_backend_get_library(b, l, &lib, sizeof lib) == XGPU_SUCCESS) {
                fprintf(out, "           %s -> %s: %s\n", lib.name,
                        lib.loaded ? lib.path : "not loaded", lib.detail);
            }
        }
    }
}
