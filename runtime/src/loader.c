/* Plugin discovery, ABI negotiation and probing.
 *
 * Search order: XGPU_PLUGIN_PATH (absolute directories only; ignored for
 * setuid programs), the directory libxgpu was loaded from and its xgpu/
 * subdirectory, then the compiled-in install directory. Never the current
 * directory. The first plugin found for a name wins. */
#define _GNU_SOURCE
#include "internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef XGPU_INSTALL_PLUGIN_DIR
#define XGPU_INSTALL_PLUGIN_DIR "/usr/local/lib/xgpu"
#endif

#define PLUGIN_PREFIX "libxgpu-"
#define PLUGIN_SUFFIX ".so"

/* More devices than this from one backend is a broken plugin; it also keeps
 * the device total of every backend far from wrapping. */
#define XGPU__MAX_BACKEND_DEVICES 65536u

/* Backends xgpu ships, in device order. They are listed even when their
 * plugin is missing, so that "why is there no CUDA?" has an answer. */
static const char *const known_backends[] = {"cuda", "hip", "opencl"};
#define KNOWN_COUNT (sizeof known_backends / sizeof known_backends[0])

typedef struct candidate {
    char name[32];
    char path[512];
} candidate;

typedef struct candidate_list {
    candidate *items;
    size_t count;
    size_t cap;
    char searched[2048]; /* directories searched, for reasons */
} candidate_list;

static int backend_rank(const char *name) {
    for (size_t i = 0; i < KNOWN_COUNT; i++) {
        if (!strcmp(name, known_backends[i])) {
            return (int)i;
        }
    }
    return (int)KNOWN_COUNT;
}

/* Is `name` in the ','-separated list (NULL list = everything)? */
static bool name_in_list(const char *list, const char *name) {
    if (!list) {
        return true;
    }
    size_t n = strlen(name);
    const char *p = list;
    while (*p) {
        while (*p == ',' || *p == ' ') {
            p++;
        }
        const char *end = p;
        while (*end && *end != ',' && *end != ' ') {
            end++;
        }
        if ((size_t)(end - p) == n && !strncmp(p, name, n)) {
            return true;
        }
        p = end;
    }
    return false;
}

static candidate *find_candidate(candidate_list *list, const char *name) {
    for (size_t i = 0; i < list->count; i++) {
        if (!strcmp(list->items[i].name, name)) {
            return &list->items[i];
        }
    }
    return NULL;
}

static void add_candidate(candidate_list *list, const char *name, const char *path) {
    candidate *prev = find_candidate(list, name);
    if (prev) {
        xgpu__log("loader", XGPU_LOG_DEBUG, "skip %s: shadowed by %s", path, prev->path);
        return;
    }
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 8;
        candidate *items = realloc(list->items, cap * sizeof *items);
        if (!items) {
            xgpu__log("loader", XGPU_LOG_ERROR, "out of memory listing plugins");
            return;
        }
        list->items = items;
        list->cap = cap;
    }
    candidate *c = &list->items[list->count++];
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->path, sizeof c->path, "%s", path);
}

static void scan_dir(candidate_list *list, const char *dir, const char *filter) {
    if (!dir || !*dir) {
        return;
    }
    if (dir[0] != '/') {
        xgpu__log("loader", XGPU_LOG_DEBUG, "skip directory '%s': not an absolute path", dir);
        return;
    }
    size_t used = strlen(list->searched);
    snprintf(list->searched + used, sizeof list->searched - used, "%s%s", used ? ", " : "", dir);
    DIR *d = opendir(dir);
    if (!d) {
        xgpu__log("loader", XGPU_LOG_DEBUG, "skip directory %s: cannot open", dir);
        return;
    }
    xgpu__log("loader", XGPU_LOG_DEBUG, "searching %s", dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *f = e->d_name;
        size_t len = strlen(f);
        size_t pre = strlen(PLUGIN_PREFIX), suf = strlen(PLUGIN_SUFFIX);
        if (len <= pre + suf || strncmp(f, PLUGIN_PREFIX, pre) ||
            strcmp(f + len - suf, PLUGIN_SUFFIX)) {
            continue;
        }
        char name[32];
        size_t nlen = len - pre - suf;
        if (nlen >= sizeof name) {
            xgpu__log("loader", XGPU_LOG_DEBUG, "skip %s/%s: name too long", dir, f);
            continue;
        }
        memcpy(name, f + pre, nlen);
        name[nlen] = '\0';
        char path[512];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, f) >= sizeof path) {
            xgpu__log("loader", XGPU_LOG_DEBUG, "skip %s/%s: path too long", dir, f);
            continue;
        }
        if (!name_in_list(filter, name)) {
            xgpu__log("loader", XGPU_LOG_DEBUG, "skip %s: not in XGPU_BACKENDS", path);
            continue;
        }
        add_candidate(list, name, path);
    }
    closedir(d);
}

static void scan_path_list(candidate_list *list, const char *paths, const char *filter) {
    if (!paths) {
        return;
    }
    char *copy = strdup(paths);
    if (!copy) {
        return;
    }
    char *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        scan_dir(list, dir, filter);
    }
    free(copy);
}

static void set_unavailable(xgpu__backend *b, xgpu_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_unavailable(xgpu__backend *b, xgpu_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->reason, sizeof b->reason, fmt, ap);
    va_end(ap);
    b->available = false;
    b->status = status;
    xgpu__log("loader", XGPU_LOG_DEBUG, "backend %s unavailable: %s", b->name, b->reason);
}

/* Required hooks of ABI version 1, checked by name. */
#define XGPU__REQUIRED_HOOKS_V1(X)                                                                 \
    X(probe)                                                                                       \
    X(device_count)                                                                                \
    X(device_info)                                                                                 \
    X(context_create)                                                                              \
    X(context_release)                                                                             \
    X(queue_create)                                                                                \
    X(queue_release)                                                                               \
    X(queue_finish)                                                                                \
    X(buffer_create)                                                                               \
    X(buffer_release)                                                                              \
    X(buffer_write)                                                                                \
    X(buffer_read)                                                                                 \
    X(buffer_copy)                                                                                 \
    X(program_build)                                                                               \
    X(program_release)                                                                             \
    X(kernel_create)                                                                               \
    X(kernel_release)                                                                              \
    X(launch)                                                                                      \
    X(queue_record_event)                                                                          \
    X(event_wait)                                                                                  \
    X(event_elapsed_ms)                                                                            \
    X(event_release)

static const char *missing_required_hook(const xgpu_backend_ops *ops) {
#define XGPU__CHECK_HOOK(hook)                                                                     \
    if (!ops->hook) {                                                                              \
        return #hook;                                                                              \
    }
    XGPU__REQUIRED_HOOKS_V1(XGPU__CHECK_HOOK)
#undef XGPU__CHECK_HOOK
    return NULL;
}

/* Smallest table a version-1 plugin may hand over: up to the last hook. */
#define OPS_V1_MIN_SIZE (offsetof(xgpu_backend_ops, event_release) + sizeof(void (*)(void)))

static void load_backend(xgpu__backend *b) {
    xgpu__log("loader", XGPU_LOG_DEBUG, "trying %s", b->path);
    dlerror();
    void *lib = dlopen(b->path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *err = dlerror();
        set_unavailable(b, XGPU_ERROR_BACKEND_UNAVAILABLE, "plugin %s failed to load: %s", b->path,
                        err ? err : "unknown dlopen error");
        return;
    }
    /* Plugins and the vendor libraries they load are never unloaded: some
     * vendor stacks crash at exit when unloaded, and sanitizers lose their
     * symbols. */
    xgpu_backend_entry_fn entry;
    void *sym = dlsym(lib, XGPU_BACKEND_ENTRY_NAME);
    memcpy(&entry, &sym, sizeof entry);
    if (!sym) {
        set_unavailable(b, XGPU_ERROR_BACKEND_UNAVAILABLE,
                        "plugin %s does not export %s: not an xgpu backend", b->path,
                        XGPU_BACKEND_ENTRY_NAME);
        return;
    }
    xgpu_negotiate_in in = {sizeof in, XGPU_BACKEND_ABI_VERSION, &xgpu__services};
    xgpu_negotiate_out out = {sizeof out, 0, NULL};
    xgpu__clear_error(); /* so a refusal's message is the plugin's own */
    xgpu_status st = entry(&in, &out);
    if (st != XGPU_SUCCESS) {
        set_unavailable(b, XGPU_ERROR_ABI_MISMATCH,
                        "plugin %s refused ABI negotiation (core speaks version %u): %s", b->path,
                        XGPU_BACKEND_ABI_VERSION,
                        xgpu_last_error()->status == st ? xgpu_last_error()->message
                                                        : xgpu_status_message(st));
        return;
    }
    if (out.abi_version == 0 || out.abi_version > XGPU_BACKEND_ABI_VERSION || !out.ops) {
        set_unavailable(b, XGPU_ERROR_ABI_MISMATCH,
                        "plugin %s answered ABI version %u, core speaks 1..%u", b->path,
                        out.abi_version, XGPU_BACKEND_ABI_VERSION);
        return;
    }
    if (out.ops->size < OPS_V1_MIN_SIZE || out.ops->abi_version != out.abi_version) {
        set_unavailable(b, XGPU_ERROR_ABI_MISMATCH,
                        "plugin %s has a malformed table (size %u, version %u)", b->path,
                        out.ops->size, out.ops->abi_version);
        return;
    }
    memset(&b->ops, 0, sizeof b->ops);
    memcpy(&b->ops, out.ops, out.ops->size < sizeof b->ops ? out.ops->size : sizeof b->ops);
    b->abi_version = out.abi_version;
    if (!b->ops.name || strcmp(b->ops.name, b->name)) {
        set_unavailable(b, XGPU_ERROR_ABI_MISMATCH, "plugin %s calls itself '%s', expected '%s'",
                        b->path, b->ops.name ? b->ops.name : "(null)", b->name);
        return;
    }
    const char *missing = missing_required_hook(&b->ops);
    if (missing) {
        set_unavailable(b, XGPU_ERROR_ABI_MISMATCH, "plugin %s lacks the required hook %s", b->path,
                        missing);
        return;
    }
    xgpu__ops_fill_defaults(&b->ops);

    char reason[sizeof b->reason] = "";
    xgpu__clear_error();
    st = b->ops.probe(&xgpu__services, &b->state, reason, sizeof reason);
    if (st != XGPU_SUCCESS) {
        set_unavailable(b, st, "%s", reason[0] ? reason : xgpu_status_message(st));
        return;
    }
    uint32_t devices = b->ops.device_count(b->state);
    if (devices > XGPU__MAX_BACKEND_DEVICES) {
        set_unavailable(b, XGPU_ERROR_BACKEND_UNAVAILABLE,
                        "plugin %s reports %u devices; more than %u is not credible", b->path,
                        devices, XGPU__MAX_BACKEND_DEVICES);
        return;
    }
    b->device_count = devices;
    b->available = true;
    b->status = XGPU_SUCCESS;
    xgpu__log("loader", XGPU_LOG_DEBUG, "backend %s: ABI %u, %u device(s)", b->name, b->abi_version,
              b->device_count);
}

/* A probe thread leaves its signal state as it found it. Vendor stacks may
 * install an alternate signal stack on the thread that initialises them
 * (pocl's LLVM does, with malloc'd memory); the thread then exits with a
 * stack that its creator did not set up. ASan unmaps the alternate stack it
 * installed itself at thread exit and aborts ("unable to unmap") when it
 * finds the vendor's instead. Restoring the original stack before the
 * thread ends leaves the vendor's memory to the vendor (it keeps a pointer
 * to it) and the thread's own stack to whoever made it. */
static void *load_thread(void *backend) {
    stack_t original;
    bool saved = sigaltstack(NULL, &original) == 0;
    load_backend(backend);
    if (saved) {
        stack_t now;
        if (sigaltstack(NULL, &now) == 0 && now.ss_sp != original.ss_sp) {
            xgpu__log("loader", XGPU_LOG_DEBUG,
                      "backend %s changed the probe thread's signal stack; restored",
                      ((xgpu__backend *)backend)->name);
            if (original.ss_flags & SS_DISABLE) {
                original.ss_sp = NULL;
                original.ss_size = MINSIGSTKSZ;
            }
            sigaltstack(&original, NULL);
        }
    }
    return NULL;
}

/* Backends are independent: probe them concurrently, so that start-up
 * costs the slowest vendor stack rather than the sum of all of them. */
static void load_all(xgpu__backend *backends, uint32_t count) {
    pthread_t *threads = calloc(count ? count : 1, sizeof *threads);
    bool *started = calloc(count ? count : 1, sizeof *started);
    for (uint32_t i = 0; i < count; i++) {
        started[i] =
            threads && started && pthread_create(&threads[i], NULL, load_thread, &backends[i]) == 0;
        if (!started[i]) {
            load_backend(&backends[i]);
        }
    }
    for (uint32_t i = 0; i < count; i++) {
        if (started && started[i]) {
            pthread_join(threads[i], NULL);
        }
    }
    free(threads);
    free(started);
}

static int compare_backends(const void *a, const void *b) {
    const xgpu__backend *x = a, *y = b;
    int rx = backend_rank(x->name), ry = backend_rank(y->name);
    if (rx != ry) {
        return rx < ry ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

static void add_missing(xgpu__registry *reg, size_t *cap, const char *name,
                        const candidate_list *list) {
    for (uint32_t i = 0; i < reg->backend_count; i++) {
        if (!strcmp(reg->backends[i].name, name)) {
            return;
        }
    }
    if (reg->backend_count == *cap) {
        return;
    }
    xgpu__backend *b = &reg->backends[reg->backend_count++];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    set_unavailable(b, XGPU_ERROR_BACKEND_UNAVAILABLE,
                    "no plugin " PLUGIN_PREFIX "%s" PLUGIN_SUFFIX " found (searched: %s); %s", name,
                    list->searched[0] ? list->searched : "no directory",
                    backend_rank(name) < (int)KNOWN_COUNT ? "this build of xgpu may not include it"
                                                          : "no such backend is known");
}

void xgpu__registry_load(const xgpu__loader_config *cfg, xgpu__registry *reg) {
    memset(reg, 0, sizeof *reg);
    candidate_list list = {0};
    scan_path_list(&list, cfg->plugin_path, cfg->backends);
    if (cfg->self_dir) {
        scan_dir(&list, cfg->self_dir, cfg->backends);
        char sub[600];
        snprintf(sub, sizeof sub, "%s/xgpu", cfg->self_dir);
        scan_dir(&list, sub, cfg->backends);
    }
    scan_dir(&list, cfg->install_dir, cfg->backends);

    /* Room for every plugin found, every known backend, every name asked. */
    size_t cap = list.count + KNOWN_COUNT + (cfg->backends ? strlen(cfg->backends) : 0);
    reg->backends = calloc(cap, sizeof *reg->backends);
    if (!reg->backends) {
        free(list.items);
        return;
    }
    for (size_t i = 0; i < list.count; i++) {
        xgpu__backend *b = &reg->backends[reg->backend_count++];
        snprintf(b->name, sizeof b->name, "%s", list.items[i].name);
        snprintf(b->path, sizeof b->path, "%s", list.items[i].path);
    }
    /* Sort before probing so device order is stable whatever readdir says. */
    qsort(reg->backends, reg->backend_count, sizeof *reg->backends, compare_backends);
    load_all(reg->backends, reg->backend_count);
    for (size_t i = 0; i < KNOWN_COUNT; i++) {
        if (name_in_list(cfg->backends, known_backends[i])) {
            add_missing(reg, &cap, known_backends[i], &list);
        }
    }
    if (cfg->backends) {
        char *copy = strdup(cfg->backends);
        char *save = NULL;
        for (char *n = copy ? strtok_r(copy, ", ", &save) : NULL; n;
             n = strtok_r(NULL, ", ", &save)) {
            if (strlen(n) < sizeof reg->backends[0].name) {
                add_missing(reg, &cap, n, &list);
            }
        }
        free(copy);
    }
    free(list.items);
    qsort(reg->backends, reg->backend_count, sizeof *reg->backends, compare_backends);

    uint32_t total = 0;
    for (uint32_t i = 0; i < reg->backend_count; i++) {
        total += reg->backends[i].available ? reg->backends[i].device_count : 0;
    }
    reg->devices = total ? calloc(total, sizeof *reg->devices) : NULL;
    if (total && !reg->devices) {
        return;
    }
    for (uint32_t i = 0; i < reg->backend_count; i++) {
        xgpu__backend *b = &reg->backends[i];
        for (uint32_t d = 0; b->available && d < b->device_count; d++) {
            xgpu_device *dev = &reg->devices[reg->device_count];
            dev->magic = XGPU__MAGIC_DEVICE;
            dev->backend = b;
            dev->index = d;
            dev->global_index = reg->device_count;
            dev->info.ecc_enabled = -1;
            if (b->ops.device_info(b->state, d, &dev->info) != XGPU_SUCCESS) {
                xgpu__log("loader", XGPU_LOG_WARN, "%s:%u: device info failed: %s", b->name, d,
                          xgpu_last_error()->message);
            }
            snprintf(dev->info.backend, sizeof dev->info.backend, "%s", b->name);
            dev->info.backend_index = d;
            reg->device_count++;
        }
    }
}

void xgpu__registry_free(xgpu__registry *reg) {
    free(reg->backends);
    free(reg->devices);
    memset(reg, 0, sizeof *reg);
}

static xgpu__registry global_registry;
static pthread_once_t global_once = PTHREAD_ONCE_INIT;

static void global_load(void) {
    char self_dir[512] = "";
    Dl_info info;
    /* Any object of this library locates it; a function pointer may not be
     * converted to void * in ISO C. */
    if (dladdr(&global_registry, &info) && info.dli_fname) {
        snprintf(self_dir, sizeof self_dir, "%s", info.dli_fname);
        char *slash = strrchr(self_dir, '/');
        if (slash) {
            *slash = '\0';
        } else {
            self_dir[0] = '\0';
        }
    }
    xgpu__loader_config cfg = {
        .plugin_path = secure_getenv("XGPU_PLUGIN_PATH"),
        .backends = getenv("XGPU_BACKENDS"),
        .self_dir = self_dir[0] ? self_dir : NULL,
        .install_dir = XGPU_INSTALL_PLUGIN_DIR,
    };
    if (cfg.backends && !*cfg.backends) {
        cfg.backends = NULL;
    }
    xgpu__registry_load(&cfg, &global_registry);
}

const xgpu__registry *xgpu__registry_get(void) {
    pthread_once(&global_once, global_load);
    return &global_registry;
}
