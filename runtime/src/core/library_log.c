/* The vendor libraries each backend tried to load, for gpuinfo --doctor.
 * Process-wide, append-only, guarded by one mutex: backends record at probe
 * time and later (NVRTC at the first build) from any thread. */
#include "core_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct library_entry {
    char backend[32];
    xgpu_library_info info;
} library_entry;

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static library_entry *entries;
static size_t entry_count, entry_cap;

void xgpu__library_record(const char *backend, const char *name, const char *path, bool loaded,
                          const char *detail) {
    pthread_mutex_lock(&log_lock);
    if (entry_count == entry_cap) {
        size_t cap = entry_cap ? entry_cap * 2 : 16;
        library_entry *grown = realloc(entries, cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&log_lock);
            return;
        }
        entries = grown;
        entry_cap = cap;
    }
    library_entry *e = &entries[entry_count++];
    memset(e, 0, sizeof *e);
    snprintf(e->backend, sizeof e->backend, "%s", backend ? backend : "");
    snprintf(e->info.name, sizeof e->info.name, "%s", name ? name : "");
    snprintf(e->info.path, sizeof e->info.path, "%s", path ? path : "");
    e->info.loaded = loaded;
    snprintf(e->info.detail, sizeof e->info.detail, "%s", detail ? detail : "");
    pthread_mutex_unlock(&log_lock);
    xgpu__log(backend, XGPU_LOG_DEBUG, "library %s: %s%s%s%s", name ? name : "?",
              loaded ? "loaded " : "not loaded", loaded && path ? path : "",
              detail && *detail ? ": " : "", detail ? detail : "");
}

uint32_t xgpu__library_count(const char *backend) {
    uint32_t n = 0;
    pthread_mutex_lock(&log_lock);
    for (size_t i = 0; i < entry_count; i++) {
        n += !strcmp(entries[i].backend, backend);
    }
    pthread_mutex_unlock(&log_lock);
    return n;
}

bool xgpu__library_get(const char *backend, uint32_t index, xgpu_library_info *out) {
    bool found = false;
    pthread_mutex_lock(&log_lock);
    for (size_t i = 0; i < entry_count && !found; i++) {
        if (!strcmp(entries[i].backend, backend) && index-- == 0) {
            *out = entries[i].info;
            found = true;
        }
    }
    pthread_mutex_unlock(&log_lock);
    return found;
}
