/* The library's state in each context: programs built on first use and
 * cached, and the parameters its calls chose; the helpers the routines
 * share. */
#include "lib_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIB_MAX_KERNELS 8

typedef struct xgpu__lib_entry {
    struct xgpu__lib_entry *next;
    const char *source; /* one of the embedded sources: compared by address */
    char options[512];
    xgpu_program *program;
    uint32_t kernel_count;
    char names[LIB_MAX_KERNELS][48];
    xgpu_kernel *kernels[LIB_MAX_KERNELS];
} xgpu__lib_entry;

/* What the library keeps in a context (xgpu__context_ext). */
typedef struct lib_state {
    pthread_mutex_t lock; /* lookups and builds of `cache` */
    xgpu__lib_entry *cache;
    xgpu__tune_memo_set memo;
} lib_state;

static void *state_make(void) {
    lib_state *s = calloc(1, sizeof *s);
    if (s) {
        pthread_mutex_init(&s->lock, NULL);
        xgpu__tune_memo_init(&s->memo);
    }
    return s;
}

/* Releases every cached program; the context is being released. */
static void state_release(xgpu_context *ctx, void *ext) {
    (void)ctx; /* out of the registry already: its counts are read no more */
    lib_state *s = ext;
    xgpu__lib_entry *e = s->cache;
    while (e) {
        xgpu__lib_entry *next = e->next;
        for (uint32_t i = 0; i < e->kernel_count; i++) {
            xgpu_kernel_release(e->kernels[i]);
        }
        xgpu_program_release(e->program);
        free(e);
        e = next;
    }
    xgpu__tune_memo_destroy(&s->memo);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static lib_state *state_of(xgpu_context *ctx) {
    lib_state *s = xgpu__context_ext(ctx, state_make, state_release);
    if (!s) {
        xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "library kernels: malloc failed");
    }
    return s;
}

xgpu_status xgpu__lib_choose(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                             xgpu__tune_class cls, xgpu__tune_choice *out) {
    lib_state *s = state_of(ctx);
    if (!s) {
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    xgpu__tune_choose(ctx, &s->memo, id, dtype, cls, out);
    return XGPU_SUCCESS;
}

/* Not GEMM's: XGPU_GEMM_PARAMS has a syntax of its own
 * (tunedb/gemm_params.c). */
static const char *env_params_name(xgpu__tune_kernel_id id) {
    return id == XGPU__TK_STREAM ? "XGPU_STREAM_PARAMS" : "XGPU_REDUCE_PARAMS";
}

xgpu_status xgpu__lib_env_params(const char *func, xgpu_context *ctx, xgpu__tune_kernel_id id,
                                 xgpu_dtype dtype, xgpu__tune_values *v, bool *set) {
    const char *name = env_params_name(id);
    const char *text = getenv(name);
    *set = text && *text;
    if (!*set) {
        return XGPU_SUCCESS;
    }
    char why[200];
    if (!xgpu__tune_parse(id, text, v, why, sizeof why)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: %s='%.80s' is malformed: %s", func,
                          name, text, why);
    }
    if (!xgpu__tune_valid(id, dtype, xgpu__context_info(ctx), v, why, sizeof why)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: %s='%.80s' cannot run on %s: %s", func,
                          name, text, xgpu__context_info(ctx)->name, why);
    }
    return XGPU_SUCCESS;
}

xgpu_status xgpu__lib_peek(xgpu_context *ctx, xgpu__tune_kernel_id id, xgpu_dtype dtype,
                           xgpu__tune_class cls, xgpu__tune_choice *out) {
    lib_state *s = state_of(ctx);
    if (!s) {
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    xgpu__tune_peek(ctx, &s->memo, id, dtype, cls, out);
    return XGPU_SUCCESS;
}

void xgpu__lib_choice_source(const xgpu__tune_choice *c, char *out, size_t size) {
    if (c->level == XGPU__TL_NONE) {
        snprintf(out, size, "%s%s", c->source,
                 c->outdated    ? " (this device's entries are another xgpu's: re-tune)"
                 : c->warm_only ? " (other drivers' entries: warm starts)"
                                : "");
    } else if (c->stale) {
        snprintf(out, size,
                 "tuned (this device, stale: another driver, compiler or xgpu, %s database)",
                 c->shipped ? "built-in" : "user");
    } else {
        snprintf(out, size, "%s (%.24s, %s database)", c->auto_tuned ? "auto-tuned" : "tuned",
                 xgpu__tune_level_name(c->level), c->shipped ? "built-in" : "user");
    }
}

/* Finds or creates the entry; called with the state's lock held. */
static xgpu_status entry_for(xgpu_context *ctx, lib_state *s, const char *source,
                             const char *options, xgpu__lib_entry **out) {
    for (xgpu__lib_entry *e = s->cache; e; e = e->next) {
        if (e->source == source && !strcmp(e->options, options)) {
            *out = e;
            return XGPU_SUCCESS;
        }
    }
    xgpu__lib_entry *e = calloc(1, sizeof *e);
    if (!e) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "library kernels: malloc failed");
    }
    xgpu_status st = xgpu_program_build(ctx, source, options, &e->program);
    if (st != XGPU_SUCCESS) {
        free(e);
        return st; /* the build error and log are already recorded */
    }
    snprintf(e->options, sizeof e->options, "%s", options);
    e->source = source;
    e->next = s->cache;
    s->cache = e;
    xgpu__context_ext_hold(ctx, 1);
    *out = e;
    return XGPU_SUCCESS;
}

xgpu_status xgpu__lib_kernel(xgpu_context *ctx, const char *source, const char *options,
                             const char *name, xgpu_kernel **kernel) {
    /* One lock for lookups and builds: two threads asking for the same
     * program build it once. */
    lib_state *s = state_of(ctx);
    if (!s) {
        return XGPU_ERROR_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_lock(&s->lock);
    xgpu__lib_entry *e = NULL;
    xgpu_status st = entry_for(ctx, s, source, options, &e);
    for (uint32_t i = 0; st == XGPU_SUCCESS && i < e->kernel_count; i++) {
        if (!strcmp(e->names[i], name)) {
            *kernel = e->kernels[i];
            pthread_mutex_unlock(&s->lock);
            return XGPU_SUCCESS;
        }
    }
    if (st == XGPU_SUCCESS && e->kernel_count == LIB_MAX_KERNELS) {
        st = xgpu__fail(XGPU_ERROR_INTERNAL, "library program has too many kernels");
    }
    if (st == XGPU_SUCCESS) {
        st = xgpu_kernel_create(e->program, name, &e->kernels[e->kernel_count]);
    }
    if (st == XGPU_SUCCESS) {
        snprintf(e->names[e->kernel_count], sizeof e->names[0], "%s", name);
        *kernel = e->kernels[e->kernel_count++];
        xgpu__context_ext_hold(ctx, 1);
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

xgpu_status xgpu__lib_check_buffer(const char *func, const char *what, const xgpu_queue *queue,
                                   const xgpu_buffer *buffer, size_t offset, size_t bytes) {
    XGPU__CHECK_OR_RETURN(buffer, XGPU__MAGIC_BUFFER, func, what);
    if (xgpu__buffer_context(buffer) != xgpu__queue_context(queue)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: %s belongs to another context than the queue", func, what);
    }
    if (offset > xgpu__buffer_size(buffer) || bytes > xgpu__buffer_size(buffer) - offset) {
        /* Say the size the buffer would need: offset + bytes. */
        if (bytes > SIZE_MAX - offset) {
            return xgpu__fail(XGPU_ERROR_OUT_OF_RANGE,
                              "%s: %s: %zu bytes from byte %zu reach past the end of memory", func,
                              what, bytes, offset);
        }
        return xgpu__fail(XGPU_ERROR_OUT_OF_RANGE,
                          "%s: %s needs a buffer of %zu bytes (%zu bytes from byte %zu), but "
                          "the buffer has %zu",
                          func, what, offset + bytes, bytes, offset, xgpu__buffer_size(buffer));
    }
    return XGPU_SUCCESS;
}
