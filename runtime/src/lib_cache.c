/* Library programs, built on first use and cached per context, and the
 * helpers the library routines share. */
#include "internal.h"

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

size_t xgpu_dtype_size(xgpu_dtype dtype) {
    switch (dtype) {
    case XGPU_F32:
    case XGPU_I32:
        return 4;
    case XGPU_F64:
    case XGPU_I64:
    case XGPU_U64:
        return 8;
    case XGPU_F16:
        return 2;
    }
    return 0;
}

const char *xgpu_dtype_name(xgpu_dtype dtype) {
    switch (dtype) {
    case XGPU_F32:
        return "f32";
    case XGPU_F64:
        return "f64";
    case XGPU_F16:
        return "f16";
    case XGPU_I32:
        return "i32";
    case XGPU_I64:
        return "i64";
    case XGPU_U64:
        return "u64";
    }
    return "unknown";
}

/* Finds or creates the entry; called with lib_lock held. */
static xgpu_status entry_for(xgpu_context *ctx, const char *source, const char *options,
                             xgpu__lib_entry **out) {
    for (xgpu__lib_entry *e = ctx->lib_cache; e; e = e->next) {
        if (e->source == source && !strcmp(e->options, options)) {
            *out = e;
            return XGPU_SUCCESS;
        }
    }
    xgpu__lib_entry *e = calloc(1, sizeof *e);
    if (!e) {
        return xgpu__error(NULL, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                           "library kernels: malloc failed");
    }
    xgpu_status st = xgpu_program_build(ctx, source, options, &e->program);
    if (st != XGPU_SUCCESS) {
        free(e);
        return st; /* the build error and log are already recorded */
    }
    snprintf(e->options, sizeof e->options, "%s", options);
    e->source = source;
    e->next = ctx->lib_cache;
    ctx->lib_cache = e;
    ctx->lib_objects++;
    *out = e;
    return XGPU_SUCCESS;
}

xgpu_status xgpu__lib_kernel(xgpu_context *ctx, const char *source, const char *options,
                             const char *name, xgpu_kernel **kernel) {
    /* One lock for lookups and builds: two threads asking for the same
     * program build it once. */
    pthread_mutex_lock(&ctx->lib_lock);
    xgpu__lib_entry *e = NULL;
    xgpu_status st = entry_for(ctx, source, options, &e);
    for (uint32_t i = 0; st == XGPU_SUCCESS && i < e->kernel_count; i++) {
        if (!strcmp(e->names[i], name)) {
            *kernel = e->kernels[i];
            pthread_mutex_unlock(&ctx->lib_lock);
            return XGPU_SUCCESS;
        }
    }
    if (st == XGPU_SUCCESS && e->kernel_count == LIB_MAX_KERNELS) {
        st =
            xgpu__error(NULL, XGPU_ERROR_INTERNAL, 0, NULL, "library program has too many kernels");
    }
    if (st == XGPU_SUCCESS) {
        st = xgpu_kernel_create(e->program, name, &e->kernels[e->kernel_count]);
    }
    if (st == XGPU_SUCCESS) {
        snprintf(e->names[e->kernel_count], sizeof e->names[0], "%s", name);
        *kernel = e->kernels[e->kernel_count++];
        ctx->lib_objects++;
    }
    pthread_mutex_unlock(&ctx->lib_lock);
    return st;
}

void xgpu__lib_release_all(xgpu_context *ctx) {
    pthread_mutex_lock(&ctx->lib_lock);
    xgpu__lib_entry *e = ctx->lib_cache;
    while (e) {
        xgpu__lib_entry *next = e->next;
        for (uint32_t i = 0; i < e->kernel_count; i++) {
            xgpu_kernel_release(e->kernels[i]);
        }
        xgpu_program_release(e->program);
        free(e);
        e = next;
    }
    ctx->lib_cache = NULL;
    ctx->lib_objects = 0;
    pthread_mutex_unlock(&ctx->lib_lock);
}

xgpu_status xgpu__queue_scratch(xgpu_queue *queue, size_t size, xgpu_buffer **buffer) {
    if (queue->scratch && queue->scratch->size >= size) {
        *buffer = queue->scratch;
        return XGPU_SUCCESS;
    }
    /* The queue is in order: the old scratch's users have been enqueued
     * before anything that uses the new one, and backends defer the free
     * of a buffer in use. Wait anyway so no backend needs to. */
    if (queue->scratch) {
        xgpu_status st = xgpu_queue_finish(queue);
        if (st != XGPU_SUCCESS) {
            return st;
        }
        xgpu_buffer_release(queue->scratch);
        queue->scratch = NULL;
    }
    size_t grown = size < 4096 ? 4096 : size;
    xgpu_status st = xgpu_buffer_create(queue->context, grown, &queue->scratch);
    *buffer = queue->scratch;
    return st;
}

xgpu_status xgpu__lib_check_buffer(const char *func, const char *what, const xgpu_queue *queue,
                                   const xgpu_buffer *buffer, size_t offset, size_t bytes) {
    XGPU__CHECK_OR_RETURN(buffer, XGPU__MAGIC_BUFFER, func, what);
    if (buffer->context != queue->context) {
        return xgpu__error(NULL, XGPU_ERROR_INVALID_ARGUMENT, 0, NULL,
                           "%s: %s belongs to another context than the queue", func, what);
    }
    if (offset > buffer->size || bytes > buffer->size - offset) {
        /* Say the size the buffer would need: offset + bytes. */
        if (bytes > SIZE_MAX - offset) {
            return xgpu__error(NULL, XGPU_ERROR_OUT_OF_RANGE, 0, NULL,
                               "%s: %s: %zu bytes from byte %zu reach past the end of memory", func,
                               what, bytes, offset);
        }
        return xgpu__error(NULL, XGPU_ERROR_OUT_OF_RANGE, 0, NULL,
                           "%s: %s needs a buffer of %zu bytes (%zu bytes from byte %zu), but "
                           "the buffer has %zu",
                           func, what, offset + bytes, bytes, offset, buffer->size);
    }
    return XGPU_SUCCESS;
}
