/* The field table as JSON, schema "xgpu.gpuinfo/1": numbers as numbers,
 * units in key names, unknown as null, strings escaped (json_write.h). */
#include "fields.h"
#include "device_id.h"
#include "json_write.h"

#include <math.h>
#include <string.h>

static void json_value(FILE *out, const df_value *v) {
    switch (v->kind) {
    case DF_STRING:
        jw_string(out, v->text);
        break;
    case DF_UINT:
        fprintf(out, "%llu", (unsigned long long)v->u);
        break;
    case DF_FLOAT:
        if (isfinite(v->f)) {
            fprintf(out, "%.3f", v->f);
        } else {
            fputs("null", out);
        }
        break;
    case DF_BOOL:
        fputs(v->b ? "true" : "false", out);
        break;
    case DF_NULL:
    case DF_ERROR:
        fputs("null", out);
        break;
    }
}

static void json_device(FILE *out, const pd_device *d) {
    fprintf(out, "    {\n      \"index\": %u,\n      \"backend\": ", d->index);
    jw_string(out, d->infos[0].backend);
    fputs(",\n      \"paths\": [", out);
    for (uint32_t p = 0; p < d->path_count; p++) {
        char path[64];
        devid_path(&d->infos[p], path, sizeof path);
        fputs(p ? ", " : "", out);
        jw_string(out, path);
    }
    fputs("]", out);
    for (size_t k = 0; k < df_field_count; k++) {
        df_value v;
        memset(&v, 0, sizeof v);
        df_fields[k].get(d, &v);
        fprintf(out, ",\n      \"%s\": ", df_fields[k].key);
        json_value(out, &v);
        /* A derived number carries its provenance; a failed query its error. */
        if (v.provenance[0]) {
            fprintf(out, ",\n      \"%s_provenance\": ", df_fields[k].key);
            jw_string(out, v.provenance);
        }
        if (v.kind == DF_ERROR) {
            fprintf(out, ",\n      \"%s_error\": ", df_fields[k].key);
            jw_string(out, v.text);
        }
    }
    fputs("\n    }", out);
}

static void json_backend(FILE *out, uint32_t b, const xgpu_backend_info *bi) {
    fputs("    {\n      \"name\": ", out);
    jw_string(out, bi->name);
    fprintf(out,
            ",\n      \"available\": %s,\n      \"status\": ", bi->available ? "true" : "false");
    jw_string(out, xgpu_status_name(bi->status));
    fputs(",\n      \"reason\": ", out);
    if (bi->available) {
        fputs("null", out);
    } else {
        jw_string(out, bi->reason);
    }
    fputs(",\n      \"plugin\": ", out);
    if (bi->plugin_path[0]) {
        jw_string(out, bi->plugin_path);
    } else {
        fputs("null", out);
    }
    if (bi->abi_version) {
        fprintf(out, ",\n      \"abi_version\": %u", bi->abi_version);
    } else {
        fputs(",\n      \"abi_version\": null", out);
    }
    fprintf(out, ",\n      \"device_count\": %u,\n      \"libraries\": [", bi->device_count);
    for (uint32_t l = 0; l < bi->library_count; l++) {
        xgpu_library_info lib;
        if (xgpu_backend_get_library(b, l, &lib, sizeof lib) != XGPU_SUCCESS) {
            continue;
        }
        fputs(l ? ",\n        {\"name\": " : "\n        {\"name\": ", out);
        jw_string(out, lib.name);
        fputs(", \"path\": ", out);
        if (lib.path[0]) {
            jw_string(out, lib.path);
        } else {
            fputs("null", out);
        }
        fprintf(out, ", \"loaded\": %s, \"detail\": ", lib.loaded ? "true" : "false");
        jw_string(out, lib.detail);
        fputs("}", out);
    }
    fputs(bi->library_count ? "\n      ]\n    }" : "]\n    }", out);
}

void df_print_json(FILE *out, const pd_device *devs, uint32_t n) {
    df_print_json_more(out, devs, n, NULL, NULL);
}

void df_print_json_more(FILE *out, const pd_device *devs, uint32_t n, df_json_more_fn more,
                        void *arg) {
    fputs("{\n  \"schema\": \"xgpu.gpuinfo/1\",\n  \"xgpu_version\": ", out);
    jw_string(out, xgpu_version_string());
    fputs(",\n  \"devices\": [", out);
    for (uint32_t i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", out);
        json_device(out, &devs[i]);
    }
    fputs(n ? "\n  ],\n  \"backends\": [" : "],\n  \"backends\": [", out);
    uint32_t nb = 0;
    xgpu_backend_count(&nb);
    uint32_t written = 0;
    for (uint32_t b = 0; b < nb; b++) {
        xgpu_backend_info bi;
        if (xgpu_backend_get_info(b, &bi, sizeof bi) != XGPU_SUCCESS) {
            continue;
        }
        fputs(written++ ? ",\n" : "\n", out);
        json_backend(out, b, &bi);
    }
    fputs(written ? "\n  ]" : "]", out);
    if (more) {
        more(out, arg);
    }
    fputs("\n}\n", out);
}
