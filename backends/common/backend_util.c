#define _GNU_SOURCE /* dladdr */
#include "backend_util.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int xgpu__util_split_options(char *options, const char **argv, int max) {
    int n = 0;
    char *p = options;
    while (*p) {
        while (isspace((unsigned char)*p)) {
            *p++ = '\0';
        }
        if (!*p) {
            break;
        }
        if (n == max) {
            return -1;
        }
        argv[n++] = p;
        while (*p && !isspace((unsigned char)*p)) {
            p++;
        }
    }
    return n;
}

size_t xgpu__util_local_layout(const xgpu_backend_arg *args, size_t count, unsigned int *offsets) {
    size_t shared = 0;
    for (size_t i = 0; i < count; i++) {
        if (args[i].kind == XGPU_ARG_LOCAL) {
            shared = (shared + 15) & ~(size_t)15;
            offsets[i] = (unsigned int)shared;
            shared += args[i].size;
        }
    }
    return shared;
}

void xgpu__util_bind_symbol(void *lib, const char *symbol, void *fn_slot, size_t slot_size) {
    void *sym = dlsym(lib, symbol);
    memcpy(fn_slot, &sym, slot_size);
}

void xgpu__util_loaded_path(void *lib, const char *symbol, char *out, size_t size) {
    Dl_info info;
    void *sym = dlsym(lib, symbol);
    if (sym && dladdr(sym, &info) && info.dli_fname) {
        snprintf(out, size, "%.*s", (int)size - 1, info.dli_fname);
    }
}

xgpu_status xgpu__util_vendor_fail(const xgpu_core_services *services, const char *backend,
                                   xgpu_status status, long long code, const char *name,
                                   const char *text, const char *call, const char *detail) {
    return services->error(backend, status, code, name, "%s failed: %s%s%s%s%s", call, name,
                           text ? " (" : "", text ? text : "", text ? ")" : "",
                           detail ? detail : "");
}

xgpu_status xgpu__util_lazy_get(xgpu__util_lazy *lazy, const xgpu_core_services *services,
                                const char *backend,
                                xgpu_status (*load)(void *arg, char *reason, size_t size),
                                void *arg) {
    pthread_mutex_lock(&lazy->lock);
    if (!lazy->tried) {
        lazy->status = load(arg, lazy->reason, sizeof lazy->reason);
        lazy->tried = true;
    }
    pthread_mutex_unlock(&lazy->lock);
    if (lazy->status != XGPU_SUCCESS) {
        return services->error(backend, lazy->status, 0, NULL, "%s", lazy->reason);
    }
    return XGPU_SUCCESS;
}
