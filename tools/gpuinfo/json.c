/* JSON output, schema "xgpu.gpuinfo/1": numbers as numbers, units in key
 * names, unknown as null, strings escaped (invalid UTF-8 becomes U+FFFD). */
#include "gpuinfo.h"

#include <math.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s, 0 when it is not one. */
static size_t utf8_length(const unsigned char *s) {
    size_t n;
    unsigned min;
    if (s[0] < 0x80) {
        return 1;
    } else if ((s[0] & 0xe0) == 0xc0) {
        n = 2, min = 0x80;
    } else if ((s[0] & 0xf0) == 0xe0) {
        n = 3, min = 0x800;
    } else if ((s[0] & 0xf8) == 0xf0) {
        n = 4, min = 0x10000;
    } else {
        return 0;
    }
    unsigned cp = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        return 0;
    }
    return n;
}

void gi_json_string(FILE *out, const char *s) {
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p++);
        } else if (*p < 0x20) {
            fprintf(out, "\\u%04x", *p++);
        } else {
            size_t n = utf8_length(p);
            if (n == 0) {
                fputs("\\ufffd", out);
                p++;
            } else {
                fwrite(p, 1, n, out);
                p += n;
            }
        }
    }
    fputc('"', out);
}

static void json_value(FILE *out, const gi_value *v) {
    switch (v->kind) {
    case GI_STRING:
        gi_json_string(out, v->text);
        break;
    case GI_UINT:
        fprintf(out, "%llu", (unsigned long long)v->u);
        break;
    case GI_FLOAT:
        if (isfinite(v->f)) {
            fprintf(out, "%.3f", v->f);
        } else {
            fputs("null", out);
        }
        break;
    case GI_BOOL:
        fputs(v->b ? "true" : "false", out);
        break;
    case GI_NULL:
    case GI_ERROR:
        fputs("null", out);
        break;
    }
}

static void json_device(FILE *out, const gi_device *d) {
    fprintf(out, "    {\n      \"index\": %u,\n      \"backend\": ", d->index);
    gi_json_string(out, d->infos[0].backend);
    fputs(",\n      \"paths\": [", out);
    for (uint32_t p = 0; p < d->path_count; p++) {
        char path[64];
        gi_path(&d->infos[p], path, sizeof path);
        fputs(p ? ", " : "", out);
        gi_json_string(out, path);
    }
    fputs("]", out);
    for (size_t k = 0; k < gi_field_count; k++) {
        gi_value v;
        memset(&v, 0, sizeof v);
        gi_fields[k].get(d, &v);
        fprintf(out, ",\n      \"%s\": ", gi_fields[k].key);
        json_value(out, &v);
        /* A derived number carries its provenance; a failed query its error. */
        if (v.provenance[0]) {
            fprintf(out, ",\n      \"%s_provenance\": ", gi_fields[k].key);
            gi_json_string(out, v.provenance);
        }
        if (v.kind == GI_ERROR) {
            fprintf(out, ",\n      \"%s_error\": ", gi_fields[k].key);
            gi_json_string(out, v.text);
        }
    }
    fputs("\n    }", out);
}

static void json_backend(FILE *out, uint32_t b, const xgpu_backend_info *bi) {
    fputs("    {\n      \"name\": ", out);
    gi_json_string(out, bi->name);
    fprintf(out,
            ",\n      \"available\": %s,\n      \"status\": ", bi->available ? "true" : "false");
    gi_json_string(out, xgpu_status_name(bi->status));
    fputs(",\n      \"reason\": ", out);
    if (bi->available) {
        fputs("null", out);
    } else {
        gi_json_string(out, bi->reason);
    }
    fputs(",\n      \"plugin\": ", out);
    if (bi->plugin_path[0]) {
        gi_json_string(out, bi->plugin_path);
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
        gi_json_string(out, lib.name);
        fputs(", \"path\": ", out);
        if (lib.path[0]) {
            gi_json_string(out, lib.path);
        } else {
            fputs("null", out);
        }
        fprintf(out, ", \"loaded\": %s, \"detail\": ", lib.loaded ? "true" : "false");
        gi_json_string(out, lib.detail);
        fputs("}", out);
    }
    fputs(bi->library_count ? "\n      ]\n    }" : "]\n    }", out);
}

void gi_print_json(FILE *out, const gi_device *devs, uint32_t n) {
    fputs("{\n  \"schema\": \"xgpu.gpuinfo/1\",\n  \"xgpu_version\": ", out);
    gi_json_string(out, xgpu_version_string());
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
    fputs(written ? "\n  ]\n}\n" : "]\n}\n", out);
}
