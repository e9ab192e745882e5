/* Programs (dialect source + prelude, built by the backend) and kernels. */
#include "core_int.h"
#include "kcache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *dialect_define(xgpu_dialect d) {
    switch (d) {
    case XGPU_DIALECT_OPENCL:
        return "#define XGPU_DIALECT_OPENCL 1\n";
    case XGPU_DIALECT_CUDA:
        return "#define XGPU_DIALECT_CUDA 1\n";
    case XGPU_DIALECT_HIP:
        return "#define XGPU_DIALECT_HIP 1\n";
    }
    return "";
}

/* Dialect define + prelude + fragment layer + "#line 1" + the user's
 * source, so compiler messages give the user's own line numbers. */
char *xgpu__compose_source(xgpu_dialect dialect, const char *source) {
    static const char line_reset[] = "\n#line 1\n";
    const char *def = dialect_define(dialect);
    size_t n = strlen(def) + strlen(xgpu__prelude) + strlen(xgpu__fragment) + sizeof line_reset +
               strlen(source) + 1;
    char *full = malloc(n);
    if (full) {
        snprintf(full, n, "%s%s%s%s%s", def, xgpu__prelude, xgpu__fragment, line_reset, source);
    }
    return full;
}

static char *dup_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

/* Re-raises the backend's build error with the first lines of the log. */
static xgpu_status build_failed(const xgpu__context *ctx, xgpu_status st, const char *log) {
    const xgpu_error_info *e = xgpu_last_error();
    char backend[32] = "", native[96] = "", msg[1024] = "";
    snprintf(backend, sizeof backend, "%s", e->backend ? e->backend : ctx->device->info.backend);
    snprintf(native, sizeof native, "%s", e->native_name ? e->native_name : "");
    snprintf(msg, sizeof msg, "%s", e->message);
    long long code = e->native_code;
    const xgpu_device_info *info = &ctx->device->info;
    return xgpu__error(backend, st, code, native[0] ? native : NULL,
                       "xgpu_program_build: build failed on %s:%u (%s): %s%s%.1500s", info->backend,
                       info->backend_index, info->name, msg, log && *log ? "\nbuild log:\n" : "",
                       log ? log : "");
}

/* The persistent kernel cache for one build: its folder and the key, when
 * the backend can store binaries and the cache is on. */
typedef struct cache_slot {
    bool on;
    int dir; /* the folder's descriptor, -1 when off */
    xgpu__kcache_key key;
} cache_slot;

/* Whether the build reads files besides its source: an #include (or a
 * test for one) in the source, a file named in the options. The key covers
 * the source text only, so such a build is never cached: an edited header
 * would otherwise go unseen. Errs on the side of not caching ('#include' in
 * a comment counts). */
static bool reads_other_files(const char *source, const char *options) {
    for (const char *p = source; (p = strchr(p, '#')) != NULL; p++) {
        const char *q = p + 1;
        while (*q == ' ' || *q == '\t') {
            q++;
        }
        if (!strncmp(q, "include", 7) || !strncmp(q, "import", 6)) {
            return true;
        }
    }
    return strstr(source, "__has_include") || strstr(options, "-include") ||
           strstr(options, "-imacros");
}

static void cache_prepare(cache_slot *c, const xgpu__context *ctx, const char *source,
                          const char *full, const char *options) {
    const xgpu_backend_ops *ops = ctx->ops;
    c->on = false;
    c->dir = -1;
    if (!ops->build_identity || !ops->program_binary || !ops->program_load_binary) {
        return;
    }
    if (reads_other_files(source, options)) {
        xgpu__log("cache", XGPU_LOG_DEBUG,
                  "not cached: the build reads files (#include) that the key does not cover");
        return;
    }
    char identity[512] = "";
    xgpu_status st = ops->build_identity(ctx->handle, identity, sizeof identity);
    xgpu__clear_error(); /* a backend may record why a compiler is missing */
    if (st != XGPU_SUCCESS) {
        return;
    }
    const xgpu_device_info *info = &ctx->device->info;
    const char *parts[] = {xgpu_version_string(), ops->name, full, options, info->name, info->arch,
                           info->driver_version,  identity};
    xgpu__kcache_key_make(&c->key, parts, sizeof parts / sizeof parts[0]);
    char path[XGPU__KCACHE_PATH_MAX];
    c->dir = xgpu__kcache_open(path, sizeof path, NULL, 0);
    c->on = c->dir >= 0;
}

/* The program from the cache's binary; false on a miss or when the backend
 * refuses the binary (then rebuilt from source and stored again). */
static bool cache_load(const cache_slot *c, const xgpu__context *ctx, const char *options,
                       void **handle, char **log) {
    size_t size = 0;
    void *data = c->on ? xgpu__kcache_read(c->dir, &c->key, &size) : NULL;
    if (!data) {
        return false;
    }
    xgpu_status st = ctx->ops->program_load_binary(ctx->handle, data, size, options, handle, log);
    free(data);
    if (st != XGPU_SUCCESS) {
        xgpu__log("cache", XGPU_LOG_DEBUG, "%s refused the cached binary %s (%s): rebuilding",
                  ctx->ops->name, c->key.hex, xgpu_last_error()->message);
        xgpu__clear_error();
        free(*log);
        *log = NULL;
        return false;
    }
    return true;
}

static void cache_store(const cache_slot *c, const xgpu__context *ctx, void *handle) {
    void *data = NULL;
    size_t size = 0;
    if (!c->on) {
        return;
    }
    if (ctx->ops->program_binary(handle, &data, &size) != XGPU_SUCCESS) {
        xgpu__log("cache", XGPU_LOG_DEBUG, "%s gave no binary: %s", ctx->ops->name,
                  xgpu_last_error()->message);
        xgpu__clear_error();
        return;
    }
    xgpu__kcache_write(c->dir, &c->key, data, size);
    free(data);
}

/* The context is pinned (counted live) by the caller. */
static xgpu_status program_build(const char *func, xgpu__context *context, const char *source,
                                 const char *options, xgpu_program **program) {
    if (!source || !*source) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: source is %s", func,
                          source ? "empty" : "NULL");
    }
    xgpu__program *p = calloc(1, sizeof *p);
    char *full = xgpu__compose_source(context->ops->dialect, source);
    char *copy = dup_string(source);
    if (!p || !full || !copy) {
        free(full);
        free(copy);
        free(p);
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: malloc failed", func);
    }
    p->source = copy;
    char *log = NULL;
    const char *opts = options ? options : "";
    /* The cache's steps may record failures (a missing compiler, a
     * refused binary) that are not the caller's: a build that succeeds
     * leaves xgpu_last_error() as it found it. */
    struct xgpu__error_state *saved = xgpu__error_save();
    cache_slot cache;
    cache_prepare(&cache, context, source, full, opts);
    xgpu_status st = XGPU_SUCCESS;
    p->from_cache = cache_load(&cache, context, opts, &p->handle, &log);
    if (!p->from_cache) {
        st = context->ops->program_build(context->handle, full, opts, &p->handle, &log);
        if (st == XGPU_SUCCESS) {
            cache_store(&cache, context, p->handle);
        }
    }
    if (cache.dir >= 0) {
        close(cache.dir);
    }
    free(full);
    if (st != XGPU_SUCCESS) {
        xgpu__error_discard(saved);
        xgpu__set_build_log(log ? log : "");
        st = build_failed(context, st, log);
        free(log);
        free(p->source);
        free(p);
        return st;
    }
    xgpu__error_restore(saved);
    p->log = log;
    p->context = context;
    atomic_init(&p->refs, 1);
    st = xgpu__handle_add(p, XGPU__MAGIC_PROGRAM, func, (void **)&p->self);
    if (st != XGPU_SUCCESS) {
        context->ops->program_release(p->handle);
        free(p->log);
        free(p->source);
        free(p);
        return st;
    }
    *program = p->self;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_program_build(xgpu_context *context, const char *source, const char *options,
                               xgpu_program **program) {
    if (!program) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: program is NULL", __func__);
    }
    *program = NULL;
    xgpu__context *c;
    XGPU__OK_OR_RETURN(xgpu__context_pin(context, __func__, &c));
    xgpu_status st = program_build(__func__, c, source, options, program);
    if (st != XGPU_SUCCESS) {
        xgpu__context_unpin(c);
    }
    return st;
}

/* Drops one reference; the last one frees the program. */
static void program_unref(xgpu__program *program) {
    if (atomic_fetch_sub(&program->refs, 1) != 1) {
        return;
    }
    program->context->ops->program_release(program->handle);
    xgpu__context_unpin(program->context);
    free(program->source);
    free(program->log);
    free(program);
}

xgpu_status xgpu_program_release(xgpu_program *program) {
    if (!program) {
        return XGPU_SUCCESS;
    }
    xgpu__program *p;
    XGPU__OK_OR_RETURN(xgpu__program_take(program, __func__, "program", &p));
    program_unref(p);
    return XGPU_SUCCESS;
}

xgpu_status xgpu_program_from_cache(const xgpu_program *program, bool *from_cache) {
    xgpu__program *p;
    XGPU__OK_OR_RETURN(xgpu__program_get(program, __func__, "program", &p));
    if (!from_cache) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: from_cache is NULL", __func__);
    }
    *from_cache = p->from_cache;
    return XGPU_SUCCESS;
}

const char *xgpu_program_build_log(const xgpu_program *program) {
    xgpu__program *p;
    if (xgpu__program_get(program, __func__, "program", &p) != XGPU_SUCCESS) {
        return "";
    }
    return p->log ? p->log : "";
}

xgpu_status xgpu_kernel_create(xgpu_program *program, const char *name, xgpu_kernel **kernel) {
    if (!kernel) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: kernel is NULL", __func__);
    }
    *kernel = NULL;
    xgpu__program *p;
    XGPU__OK_OR_RETURN(xgpu__program_get(program, __func__, "program", &p));
    if (!name || !*name) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: name is %s", __func__,
                          name ? "empty" : "NULL");
    }
    xgpu__kernel *k = calloc(1, sizeof *k);
    if (!k) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: malloc failed", __func__);
    }
    const xgpu_backend_ops *ops = p->context->ops;
    k->props.arg_count = XGPU_ARG_COUNT_UNKNOWN;
    xgpu_status st = ops->kernel_create(p->handle, name, &k->handle, &k->props);
    if (st != XGPU_SUCCESS) {
        free(k);
        return st;
    }
    bool oom = false;
    if (!xgpu__kernel_sig_parse(p->source, name, &k->sig, &oom)) {
        if (oom) {
            ops->kernel_release(k->handle);
            free(k);
            return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: malloc failed (kernel signature)",
                              __func__);
        }
        xgpu__log(NULL, XGPU_LOG_DEBUG,
                  "kernel %s: signature not found in the source; the backend %s its parameters",
                  name, k->props.arg_count == XGPU_ARG_COUNT_UNKNOWN ? "cannot count" : "counts");
    }
    snprintf(k->name, sizeof k->name, "%s", name);
    k->program = p;
    st = xgpu__handle_add(k, XGPU__MAGIC_KERNEL, __func__, (void **)&k->self);
    if (st != XGPU_SUCCESS) {
        ops->kernel_release(k->handle);
        xgpu__kernel_sig_free(&k->sig);
        free(k);
        return st;
    }
    atomic_fetch_add(&p->refs, 1);
    atomic_fetch_add(&p->context->live, 1);
    *kernel = k->self;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_kernel_release(xgpu_kernel *kernel) {
    if (!kernel) {
        return XGPU_SUCCESS;
    }
    xgpu__kernel *k;
    XGPU__OK_OR_RETURN(xgpu__kernel_take(kernel, __func__, "kernel", &k));
    xgpu__context *ctx = k->program->context;
    ctx->ops->kernel_release(k->handle);
    xgpu__context_unpin(ctx);
    xgpu__kernel_sig_free(&k->sig);
    program_unref(k->program);
    free(k);
    return XGPU_SUCCESS;
}

xgpu_status xgpu_kernel_arg_count(const xgpu_kernel *kernel, uint32_t *count) {
    xgpu__kernel *k;
    XGPU__OK_OR_RETURN(xgpu__kernel_get(kernel, __func__, "kernel", &k));
    if (!count) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: count is NULL", __func__);
    }
    if (k->sig.known) {
        *count = k->sig.count;
    } else if (k->props.arg_count != XGPU_ARG_COUNT_UNKNOWN) {
        *count = k->props.arg_count;
    } else {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: the signature of kernel '%s' could not be read from its source, "
                          "and the backend cannot count its parameters",
                          __func__, k->name);
    }
    return XGPU_SUCCESS;
}

xgpu_status xgpu_kernel_preferred_group_multiple(const xgpu_kernel *kernel, size_t *multiple) {
    xgpu__kernel *k;
    XGPU__OK_OR_RETURN(xgpu__kernel_get(kernel, __func__, "kernel", &k));
    if (!multiple) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: multiple is NULL", __func__);
    }
    uint64_t m = k->props.preferred_group_multiple;
    if (!m) {
        m = k->program->context->device->info.preferred_group_multiple;
    }
    *multiple = m ? (size_t)m : 1;
    return XGPU_SUCCESS;
}

xgpu_status xgpu_kernel_native(const xgpu_kernel *kernel, void **native) {
    xgpu__kernel *k;
    XGPU__OK_OR_RETURN(xgpu__kernel_get(kernel, __func__, "kernel", &k));
    if (!native) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: native is NULL", __func__);
    }
    return k->program->context->ops->kernel_native(k->handle, native);
}

size_t xgpu__kernel_group_limit(const xgpu__kernel *kernel) {
    uint64_t dev_max = kernel->program->context->device->info.max_group_size;
    uint64_t k_max = kernel->props.max_group_size;
    return (size_t)(k_max && (k_max < dev_max || !dev_max) ? k_max : dev_max);
}

xgpu_status xgpu_kernel_max_group_size(const xgpu_kernel *kernel, size_t *size) {
    xgpu__kernel *k;
    XGPU__OK_OR_RETURN(xgpu__kernel_get(kernel, __func__, "kernel", &k));
    if (!size) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: size is NULL", __func__);
    }
    *size = xgpu__kernel_group_limit(k);
    return XGPU_SUCCESS;
}
