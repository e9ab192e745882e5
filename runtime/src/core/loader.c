/* Plugin discovery, ABI negotiation and probing.
 *
 * Search order: XGPU_PLUGIN_PATH (absolute directories only; ignored for
 * setuid programs), the directory libxgpu was loaded from and its xgpu/
 * subdirectory, then the compiled-in install directory. Never the current
 * directory. The first plugin found for a name wins. */
#define _GNU_SOURCE
#include "core_int.h"

#include <dirent.h>
#include <errno.h>
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

/* Backends loaded only when XGPU_BACKENDS names them, ranked after all
 * others: the null backend does no work (it measures the core's own costs)
 * and must never be listed, chosen or benchmarked unless asked for. */
static const char *const opt_in_backends[] = {"null"};

static bool opt_in(const char *name) {
    for (size_t i = 0; i < sizeof opt_in_backends / sizeof opt_in_backends[0]; i++) {
        if (!strcmp(name, opt_in_backends[i])) {
            return true;
        }
    }
    return false;
}

typedef struct candidate {
    char name[32];
    char path[512];
} candidate;

typedef struct candidate_list {
    candidate *items;
    size_t count;
    size_t cap;
    char searched[2048]; /* directories searched, for reasons */
    bool oom;            /* a plugin could not be listed: the load is transient */
} candidate_list;

static int backend_rank(const char *name) {
    for (size_t i = 0; i < KNOWN_COUNT; i++) {
        if (!strcmp(name, known_backends[i])) {
            return (int)i;
        }
    }
    return (int)KNOWN_COUNT + opt_in(name);
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
            list->oom = true;
            return;
        }
        list->items = items;
        list->cap = cap;
    }
    candidate *c = &list->items[list->count++];
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->path, sizeof c->path, "%s", path);
}

static void scan_dir(candidate_list *list, const char *dir, const xgpu__backend_list *filter) {
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
        if (errno == ENOMEM) {
            list->oom = true;
        }
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
        if (!xgpu__backend_list_has(filter, name) || (!filter && opt_in(name))) {
            xgpu__log("loader", XGPU_LOG_DEBUG, "skip %s: not in XGPU_BACKENDS%s", path,
                      filter ? "" : " (loaded only when named there)");
            continue;
        }
        add_candidate(list, name, path);
    }
    closedir(d);
}

static void scan_path_list(candidate_list *list, const char *paths,
                           const xgpu__backend_list *filter) {
    if (!paths) {
        return;
    }
    char *copy = strdup(paths);
    if (!copy) {
        list->oom = true;
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

/* The required hooks as data: name and place in the table. */
static const struct {
    const char *name;
    size_t offset;
} required_hooks[] = {
#define XGPU__HOOK_ENTRY(hook) {#hook, offsetof(xgpu_backend_ops, hook)},
    XGPU__REQUIRED_HOOKS_V1(XGPU__HOOK_ENTRY)
#undef XGPU__HOOK_ENTRY
};

static const char *missing_required_hook(const xgpu_backend_ops *ops) {
    for (size_t i = 0; i < sizeof required_hooks / sizeof required_hooks[0]; i++) {
        void (*hook)(void); /* all function pointers have one size here */
        memcpy(&hook, (const char *)ops + required_hooks[i].offset, sizeof hook);
        if (!hook) {
            return required_hooks[i].name;
        }
    }
    return NULL;
}

/* Smallest table a version-1 plugin may hand over: up to the last hook. */
#define OPS_V1_MIN_SIZE (offsetof(xgpu_backend_ops, event_release) + sizeof(void (*)(void)))

/* dlopen and the entry point; false (b unavailable) when either fails.
 * Plugins and the vendor libraries they load are never unloaded: some
 * vendor stacks crash at exit when unloaded, and sanitizers lose their
 * symbols. */
static bool open_plugin(xgpu__backend *b, xgpu_backend_entry_fn *entry) {
    xgpu__log("loader", XGPU_LOG_DEBUG, "trying %s", b->path);
    dlerror();
    void *lib = dlopen(b->path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *err = dlerror();
        set_unavailable(b, XGPU_ERROR_BACKEND_UNAVAILABLE, "plugin %s failed to load: %s", b->path,
                        err ? err : "unknown dlopen error");
        return false;
    }
    void *sym = dlsym(lib, XGPU_BACKEND_ENTRY_NAME);
    memcpy(entry, &sym, sizeof *entry);
    if (!sym) {
        set_unavailable(b, XGPU_ERROR_BACKEND_UNAVAILABLE,
                        "plugin %s does not export %s: not an xgpu backend", b->path,
                        XGPU_BACKEND_ENTRY_NAME);
        return false;
    }
    return true;
}

/* The core offers its newest ABI version, the plugin answers the version
 * both speak and its table; false (b unavailable) on a refusal or an
 * answer the core cannot use. */
static bool negotiate(xgpu__backend *b, xgpu_backend_entry_fn entry, xgpu_negotiate_out *out) {
    xgpu_negotiate_in in = {sizeof in, XGPU_BACKEND_ABI_VERSION, &xgpu__services};
    *out = (xgpu_negotiate_out){sizeof *out, 0, NULL};
    xgpu__clear_error(); /* so a refusal's message is the plugin's own */
    xgpu_status st = entry(&in, out);
    if (st != XGPU_SUCCESS) {
        set_unavailable(b, XGPU_ERROR_ABI_MISMATCH,
                        "plugin %s refused ABI negotiation (core speaks version %u): %s", b->path,
                        XGPU_BACKEND_ABI_VERSION,
                        xgpu_last_error()->status == st ? xgpu_last_error()->message
                                                        : xgpu_status_message(st));
        return false;
    }
    if (out->abi_version == 0 || out->abi_version > XGPU_BACKEND_ABI_VERSION || !out->ops) {
        set_unavailable(b, XGPU_ERROR_ABI_MISMATCH,
                        "plugin %s answered ABI version %u, core speaks 1..%u", b->path,
                        out->abi_version, XGPU_BACKEND_ABI_VERSION);
        return false;
    }
    if (out->ops->size < OPS_V1_MIN_SIZE || out->ops->abi_version != out->abi_version) {
        set_unavailable(b, XGPU_ERROR_ABI_MISMATCH,
                        "plugin %s has a malformed table (size %u, version %u)", b->path,
                        out->ops->size, out->ops->abi_version);
        return false;
    }
    return true;
}

/* Copies the plugin's table and checks its name and required hooks, then
 * fills the optional ones with the core's defaults; false (b unavailable)
 * when the table does not do. */
static bool take_table(xgpu__backend *b, const xgpu_negotiate_out *out) {
    /* Only what the plugin's table holds: hooks appended after it was built
     * stay NULL and get the core's defaults. A size that ends inside a hook
     * drops that hook rather than copy half a pointer. */
    size_t copy = out->ops->size < sizeof b->ops ? out->ops->size : sizeof b->ops;
    copy -= (copy - OPS_V1_MIN_SIZE) % sizeof(void (*)(void));
    memset(&b->ops, 0, sizeof b->ops);
    memcpy(&b->ops, out->ops, copy);
    b->abi_version = out->abi_version;
    if (!b->ops.name || strcmp(b->ops.name, b->name)) {
        set_unavailable(b, XGPU_ERROR_ABI_MISMATCH, "plugin %s calls itself '%s', expected '%s'",
                        b->path, b->ops.name ? b->ops.name : "(null)", b->name);
        return false;
    }
    const char *missing = missing_required_hook(&b->ops);
    if (missing) {
        set_unavailable(b, XGPU_ERROR_ABI_MISMATCH, "plugin %s lacks the required hook %s", b->path,
                        missing);
        return false;
    }
    xgpu__ops_fill_defaults(&b->ops);
    return true;
}

/* The plugin's probe and its device count. */
static void probe(xgpu__backend *b) {
    char reason[sizeof b->reason] = "";
    xgpu__clear_error();
    xgpu_status st = b->ops.probe(&xgpu__services, &b->state, reason, sizeof reason);
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

static void load_backend(xgpu__backend *b) {
    xgpu_backend_entry_fn entry;
    xgpu_negotiate_out out;
    if (open_plugin(b, &entry) && negotiate(b, entry, &out) && take_table(b, &out)) {
        probe(b);
    }
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
 * costs the slowest vendor stack rather than the sum of all of them. A
 * backend whose thread cannot be started is probed on the calling thread. */
static void load_all(xgpu__backend *backends, uint32_t count) {
    pthread_t *threads = calloc(count ? count : 1, sizeof *threads);
    bool *started = calloc(count ? count : 1, sizeof *started);
    for (uint32_t i = 0; i < count; i++) {
        bool on_thread =
            threads && started && pthread_create(&threads[i], NULL, load_thread, &backends[i]) == 0;
        if (started) {
            started[i] = on_thread;
        }
        if (!on_thread) {
            load_backend(&backends[i]);
        }
    }
    for (uint32_t i = 0; started && threads && i < count; i++) {
        if (started[i]) {
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

static xgpu__backend *add_missing(xgpu__registry *reg, size_t cap, const char *name) {
    for (uint32_t i = 0; i < reg->backend_count; i++) {
        if (!strcmp(reg->backends[i].name, name)) {
            return NULL;
        }
    }
    if (reg->backend_count == cap) {
        return NULL;
    }
    xgpu__backend *b = &reg->backends[reg->backend_count++];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    return b;
}

static void add_no_plugin(xgpu__registry *reg, size_t cap, const char *name,
                          const candidate_list *list) {
    xgpu__backend *b = add_missing(reg, cap, name);
    if (b) {
        set_unavailable(b, XGPU_ERROR_BACKEND_UNAVAILABLE,
                        "no plugin " PLUGIN_PREFIX "%s" PLUGIN_SUFFIX " found (searched: %s); %s",
                        name, list->searched[0] ? list->searched : "no directory",
                        backend_rank(name) < (int)KNOWN_COUNT
                            ? "this build of xgpu may not include it"
                            : "no such backend is known");
    }
}

/* XGPU_BACKENDS could not be read: nothing is loaded, and every known
 * backend says why. */
static xgpu_status refuse_backend_list(const char *value, const char *why, xgpu__registry *reg) {
    reg->backends = calloc(KNOWN_COUNT, sizeof *reg->backends);
    if (!reg->backends) {
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (size_t i = 0; i < KNOWN_COUNT; i++) {
        xgpu__backend *b = add_missing(reg, KNOWN_COUNT, known_backends[i]);
        set_unavailable(b, XGPU_ERROR_INVALID_ARGUMENT,
                        "not loaded: XGPU_BACKENDS='%.100s' is not a list of backend names: %s "
                        "(example: XGPU_BACKENDS=opencl,cuda; unset it to load every backend)",
                        value, why);
    }
    return XGPU_SUCCESS;
}

/* The plugin files of every searched folder, first file per name. */
static void scan_all(const xgpu__loader_config *cfg, const xgpu__backend_list *filter,
                     candidate_list *list) {
    scan_path_list(list, cfg->plugin_path, filter);
    if (cfg->self_dir) {
        scan_dir(list, cfg->self_dir, filter);
        char sub[600];
        snprintf(sub, sizeof sub, "%s/xgpu", cfg->self_dir);
        scan_dir(list, sub, filter);
    }
    scan_dir(list, cfg->install_dir, filter);
}

/* Loads and probes every plugin found, then adds the backends asked for or
 * known that have none, each with its reason. */
static xgpu_status load_found(xgpu__registry *reg, candidate_list *list,
                              const xgpu__backend_list *filter) {
    /* Room for every plugin found, every known backend, every name asked. */
    size_t cap = list->count + KNOWN_COUNT + (filter ? filter->count : 0);
    reg->backends = list->oom ? NULL : calloc(cap, sizeof *reg->backends);
    if (!reg->backends) {
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (size_t i = 0; i < list->count; i++) {
        xgpu__backend *b = &reg->backends[reg->backend_count++];
        snprintf(b->name, sizeof b->name, "%s", list->items[i].name);
        snprintf(b->path, sizeof b->path, "%s", list->items[i].path);
    }
    /* Sort before probing so device order is stable whatever readdir says. */
    qsort(reg->backends, reg->backend_count, sizeof *reg->backends, compare_backends);
    load_all(reg->backends, reg->backend_count);
    for (size_t i = 0; i < KNOWN_COUNT; i++) {
        if (xgpu__backend_list_has(filter, known_backends[i])) {
            add_no_plugin(reg, cap, known_backends[i], list);
        }
    }
    for (size_t i = 0; filter && i < filter->count; i++) {
        add_no_plugin(reg, cap, filter->names[i], list);
    }
    qsort(reg->backends, reg->backend_count, sizeof *reg->backends, compare_backends);
    return XGPU_SUCCESS;
}

/* Global device indices, in backend order, each device's info filled once
 * and its handle entered in the registry. */
static xgpu_status add_devices(xgpu__registry *reg) {
    /* Each backend has at most XGPU__MAX_BACKEND_DEVICES: no overflow. */
    size_t total = 0;
    for (uint32_t i = 0; i < reg->backend_count; i++) {
        total += reg->backends[i].available ? reg->backends[i].device_count : 0;
        if (reg->backends[i].status == XGPU_ERROR_OUT_OF_HOST_MEMORY) {
            return XGPU_ERROR_OUT_OF_HOST_MEMORY; /* transient: the caller loads again */
        }
    }
    reg->devices = total ? calloc(total, sizeof *reg->devices) : NULL;
    if (total && !reg->devices) {
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i < reg->backend_count; i++) {
        xgpu__backend *b = &reg->backends[i];
        for (uint32_t d = 0; b->available && d < b->device_count; d++) {
            xgpu__device *dev = &reg->devices[reg->device_count];
            dev->backend = b;
            dev->index = d;
            dev->global_index = reg->device_count;
            dev->info.ecc_enabled = -1;
            xgpu_status info_st = b->ops.device_info(b->state, d, &dev->info);
            if (info_st != XGPU_SUCCESS) {
                xgpu__log("loader", XGPU_LOG_WARN, "%s:%u: device info failed: %s", b->name, d,
                          xgpu_last_error()->message);
                if (info_st == XGPU_ERROR_OUT_OF_HOST_MEMORY) {
                    return XGPU_ERROR_OUT_OF_HOST_MEMORY;
                }
            }
            snprintf(dev->info.backend, sizeof dev->info.backend, "%s", b->name);
            dev->info.backend_index = d;
            if (xgpu__handle_add(dev, XGPU__MAGIC_DEVICE, "device discovery",
                                 (void **)&dev->self) != XGPU_SUCCESS) {
                return XGPU_ERROR_OUT_OF_HOST_MEMORY;
            }
            reg->device_count++;
        }
    }
    return XGPU_SUCCESS;
}

xgpu_status xgpu__registry_load(const xgpu__loader_config *cfg, xgpu__registry *reg) {
    memset(reg, 0, sizeof *reg);
    xgpu__backend_list filter_list;
    const xgpu__backend_list *filter = NULL;
    if (cfg->backends) {
        char why[256];
        if (!xgpu__backend_list_parse(cfg->backends, &filter_list, why, sizeof why)) {
            xgpu_status st = refuse_backend_list(cfg->backends, why, reg);
            return st == XGPU_SUCCESS ? st : (xgpu__registry_free(reg), st);
        }
        filter = &filter_list;
    }
    candidate_list list = {0};
    scan_all(cfg, filter, &list);
    xgpu_status st = load_found(reg, &list, filter);
    free(list.items);
    return st == XGPU_SUCCESS ? add_devices(reg) : st;
}

void xgpu__registry_free(xgpu__registry *reg) {
    for (uint32_t i = 0; i < reg->device_count; i++) {
        xgpu__handle_remove(reg->devices[i].self, XGPU__MAGIC_DEVICE);
    }
    for (uint32_t i = 0; i < reg->backend_count; i++) {
        if (reg->backends[i].available && reg->backends[i].ops.shutdown) {
            reg->backends[i].ops.shutdown(reg->backends[i].state);
        }
    }
    free(reg->backends);
    free(reg->devices);
    memset(reg, 0, sizeof *reg);
}

/* The process-wide registry. Loaded on first use; a load that ran out of
 * memory is undone and tried again by the next call, so a transient
 * failure never sticks to the process. */
static xgpu__registry global_registry;
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool global_loaded;

static xgpu_status global_load(void) {
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
    xgpu_status st = xgpu__registry_load(&cfg, &global_registry);
    if (st != XGPU_SUCCESS) {
        xgpu__registry_free(&global_registry);
    }
    return st;
}

xgpu_status xgpu__registry_get(const xgpu__registry **out, const char *func) {
    xgpu_status st = XGPU_SUCCESS;
    if (!atomic_load_explicit(&global_loaded, memory_order_acquire)) {
        pthread_mutex_lock(&global_lock);
        if (!atomic_load_explicit(&global_loaded, memory_order_relaxed)) {
            st = global_load();
            if (st == XGPU_SUCCESS) {
                atomic_store_explicit(&global_loaded, true, memory_order_release);
            }
        }
        pthread_mutex_unlock(&global_lock);
    }
    if (st != XGPU_SUCCESS) {
        *out = NULL;
        return xgpu__fail(st,
                          "%s: device discovery ran out of host memory; nothing was kept, "
                          "the next call tries again",
                          func);
    }
    *out = &global_registry;
    return XGPU_SUCCESS;
}
