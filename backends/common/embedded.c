/* Finding the built-in code of a library kernel: the same key at build
 * time (the embed tools) and at run time (the plugins). */
#include "embedded.h"
#include "support.h"
#include "xgpu_backend.h"

#include <stdio.h>

#include <string.h>

void xgpu__embedded_key(const char *source, const char *options, char key[65]) {
    xgpu__sha256_state s;
    unsigned char h[XGPU__SHA256_SIZE];
    xgpu__sha256_init(&s);
    xgpu__sha256_update(&s, source, strlen(source) + 1); /* with its NUL */
    xgpu__sha256_update(&s, options, strlen(options));
    xgpu__sha256_final(&s, h);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < XGPU__SHA256_SIZE; i++) {
        key[2 * i] = hex[h[i] >> 4];
        key[2 * i + 1] = hex[h[i] & 15];
    }
    key[64] = '\0';
}

const xgpu_embedded *xgpu__embedded_find(const xgpu_embedded_table *table, const char *source,
                                         const char *options) {
    if (!table->count) {
        return NULL;
    }
    char key[65];
    xgpu__embedded_key(source, options ? options : "", key);
    for (size_t i = 0; i < table->count; i++) {
        if (!strcmp(table->entries[i].key, key)) {
            return &table->entries[i];
        }
    }
    return NULL;
}

void xgpu__embedded_report(const struct xgpu_core_services *services, const char *backend,
                           const char *plugin, const char *compiler,
                           const xgpu_embedded_table *table) {
    if (!table->count) {
        return;
    }
    char detail[256];
    snprintf(detail, sizeof detail,
             "%zu library kernels as %s: xgpu_gemm, xgpu_reduce and xgpu_stream run without %s",
             table->count, table->about, compiler);
    services->library(backend, "built-in kernels", plugin, true, detail);
}
