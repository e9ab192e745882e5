/* The backend hooks for runtime-style vendor APIs, over xgpu_rt_vendor
 * (see rt_backend.h). Every hook makes its context current on the calling
 * thread first: the core calls hooks from any thread. */
#include "rt_backend.h"
#include "backend_util.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const xgpu_core_services *xgpu__rt_services;

/* The required entries as data: name and place in the table. */
static const struct {
    const char *name;
    size_t offset;
} required_entries[] = {
#define XGPU__RT_ENTRY(entry) {#entry, offsetof(xgpu_rt_vendor, entry)},
    XGPU_RT_VENDOR_REQUIRED(XGPU__RT_ENTRY)
#undef XGPU__RT_ENTRY
};

xgpu_status xgpu__rt_init(const xgpu_core_services *services, const xgpu_rt_vendor *vendor,
                          char *reason, size_t reason_size) {
    xgpu__rt_services = services;
    if (!vendor->backend) {
        snprintf(reason, reason_size,
                 "the plugin's vendor table (xgpu_rt_vendor) has no backend "
                 "name: the plugin was built wrong");
        return XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    for (size_t i = 0; i < sizeof required_entries / sizeof required_entries[0]; i++) {
        void (*entry)(void); /* all function pointers have one size here */
        memcpy(&entry, (const char *)vendor + required_entries[i].offset, sizeof entry);
        if (!entry) {
            snprintf(reason, reason_size,
                     "the %s plugin's vendor table (xgpu_rt_vendor) lacks the required entry %s: "
                     "the plugin was built wrong",
                     vendor->backend, required_entries[i].name);
            return XGPU_ERROR_BACKEND_UNAVAILABLE;
        }
    }
    return XGPU_SUCCESS;
}

typedef struct rt_queue {
    xgpu_rt_ctx *ctx;
    void *stream;
} rt_queue;

typedef struct rt_buffer {
    xgpu_rt_ctx *ctx;
    uint64_t ptr;
} rt_buffer;

typedef struct rt_event {
    xgpu_rt_ctx *ctx;
    void *event;
} rt_event;

xgpu_status xgpu__rt_make_current(const xgpu_rt_ctx *ctx) {
    return ctx->vendor->make_current(ctx->api, ctx->device_ctx);
}

xgpu_status xgpu__rt_oom(const xgpu_rt_ctx *ctx, const char *what) {
    return xgpu__rt_services->error(ctx->vendor->backend, XGPU_ERROR_OUT_OF_HOST_MEMORY, 0, NULL,
                                    "%s: malloc failed", what);
}

/* ---- queues ---- */

xgpu_status xgpu__rt_queue_create(void *context, void **queue) {
    xgpu_rt_ctx *c = context;
    xgpu_status st = xgpu__rt_make_current(c);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    rt_queue *q = calloc(1, sizeof *q);
    if (!q) {
        return xgpu__rt_oom(c, "queue");
    }
    q->ctx = c;
    st = c->vendor->stream_create(c->api, &q->stream);
    if (st != XGPU_SUCCESS) {
        free(q);
        return st;
    }
    *queue = q;
    return XGPU_SUCCESS;
}

void xgpu__rt_queue_release(void *queue) {
    rt_queue *q = queue;
    if (xgpu__rt_make_current(q->ctx) == XGPU_SUCCESS) {
        q->ctx->vendor->stream_destroy(q->ctx->api, q->stream);
    }
    free(q);
}

xgpu_status xgpu__rt_queue_finish(void *queue) {
    rt_queue *q = queue;
    xgpu_status st = xgpu__rt_make_current(q->ctx);
    return st != XGPU_SUCCESS ? st : q->ctx->vendor->stream_sync(q->ctx->api, q->stream);
}

xgpu_status xgpu__rt_queue_native(void *queue, void **native) {
    *native = ((rt_queue *)queue)->stream;
    return XGPU_SUCCESS;
}

xgpu_status xgpu__rt_kernel_native(void *kernel, void **native) {
    *native = ((xgpu_rt_kernel *)kernel)->function; /* CUfunction, hipFunction_t */
    return XGPU_SUCCESS;
}

/* ---- events ---- */

static xgpu_status event_create(xgpu_rt_ctx *c, rt_event **out) {
    rt_event *e = calloc(1, sizeof *e);
    if (!e) {
        return xgpu__rt_oom(c, "event");
    }
    e->ctx = c;
    xgpu_status st = c->vendor->event_create(c->api, &e->event);
    if (st != XGPU_SUCCESS) {
        free(e);
        return st;
    }
    *out = e;
    return XGPU_SUCCESS;
}

/* After an operation is enqueued: records an event when `event` is not
 * NULL, then synchronises the stream when `blocking`. */
static xgpu_status finish_op(rt_queue *q, bool blocking, void **event) {
    const xgpu_rt_vendor *v = q->ctx->vendor;
    if (event) {
        rt_event *e = NULL;
        xgpu_status st = event_create(q->ctx, &e);
        if (st != XGPU_SUCCESS) {
            return st;
        }
        st = v->event_record(q->ctx->api, e->event, q->stream);
        if (st != XGPU_SUCCESS) {
            v->event_destroy(q->ctx->api, e->event);
            free(e);
            return st;
        }
        *event = e;
    }
    return blocking ? v->stream_sync(q->ctx->api, q->stream) : XGPU_SUCCESS;
}

xgpu_status xgpu__rt_queue_record_event(void *queue, void **event) {
    rt_queue *q = queue;
    xgpu_status st = xgpu__rt_make_current(q->ctx);
    return st != XGPU_SUCCESS ? st : finish_op(q, false, event);
}

xgpu_status xgpu__rt_event_wait(void *event) {
    rt_event *e = event;
    xgpu_status st = xgpu__rt_make_current(e->ctx);
    return st != XGPU_SUCCESS ? st : e->ctx->vendor->event_sync(e->ctx->api, e->event);
}

xgpu_status xgpu__rt_queue_wait_event(void *queue, void *event) {
    rt_queue *q = queue;
    rt_event *e = event;
    xgpu_status st = xgpu__rt_make_current(q->ctx);
    return st != XGPU_SUCCESS ? st
                              : q->ctx->vendor->stream_wait_event(q->ctx->api, q->stream, e->event);
}

xgpu_status xgpu__rt_event_elapsed_ms(void *start, void *end, double *ms) {
    rt_event *a = start, *b = end;
    xgpu_status st = xgpu__rt_make_current(a->ctx);
    float t = 0;
    if (st == XGPU_SUCCESS) {
        st = a->ctx->vendor->event_elapsed(a->ctx->api, a->event, b->event, &t);
    }
    if (st == XGPU_SUCCESS) {
        *ms = t;
    }
    return st;
}

void xgpu__rt_event_release(void *event) {
    rt_event *e = event;
    if (xgpu__rt_make_current(e->ctx) == XGPU_SUCCESS) {
        e->ctx->vendor->event_destroy(e->ctx->api, e->event);
    }
    free(e);
}

/* ---- memory ---- */

xgpu_status xgpu__rt_buffer_create(void *context, size_t size, void **buffer) {
    xgpu_rt_ctx *c = context;
    xgpu_status st = xgpu__rt_make_current(c);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    rt_buffer *b = calloc(1, sizeof *b);
    if (!b) {
        return xgpu__rt_oom(c, "buffer");
    }
    b->ctx = c;
    st = c->vendor->mem_alloc(c->api, size, &b->ptr);
    if (st != XGPU_SUCCESS) {
        free(b);
        return st;
    }
    *buffer = b;
    return XGPU_SUCCESS;
}

void xgpu__rt_buffer_release(void *buffer) {
    rt_buffer *b = buffer;
    if (xgpu__rt_make_current(b->ctx) == XGPU_SUCCESS) {
        b->ctx->vendor->mem_free(b->ctx->api, b->ptr);
    }
    free(b);
}

xgpu_status xgpu__rt_buffer_native(void *buffer, void **native) {
    *native = (void *)(uintptr_t)((rt_buffer *)buffer)->ptr; /* CUdeviceptr, hipDeviceptr_t */
    return XGPU_SUCCESS;
}

xgpu_status xgpu__rt_buffer_write(void *queue, void *buffer, size_t offset, const void *src,
                                  size_t size, bool blocking, void **event) {
    rt_queue *q = queue;
    rt_buffer *b = buffer;
    xgpu_status st = xgpu__rt_make_current(q->ctx);
    if (st == XGPU_SUCCESS) {
        st = q->ctx->vendor->copy_htod(q->ctx->api, b->ptr + offset, src, size, q->stream);
    }
    return st != XGPU_SUCCESS ? st : finish_op(q, blocking, event);
}

xgpu_status xgpu__rt_buffer_read(void *queue, void *buffer, size_t offset, void *dst, size_t size,
                                 bool blocking, void **event) {
    rt_queue *q = queue;
    rt_buffer *b = buffer;
    xgpu_status st = xgpu__rt_make_current(q->ctx);
    if (st == XGPU_SUCCESS) {
        st = q->ctx->vendor->copy_dtoh(q->ctx->api, dst, b->ptr + offset, size, q->stream);
    }
    return st != XGPU_SUCCESS ? st : finish_op(q, blocking, event);
}

xgpu_status xgpu__rt_buffer_copy(void *queue, void *src, size_t src_offset, void *dst,
                                 size_t dst_offset, size_t size, void **event) {
    rt_queue *q = queue;
    xgpu_status st = xgpu__rt_make_current(q->ctx);
    if (st == XGPU_SUCCESS) {
        st = q->ctx->vendor->copy_dtod(q->ctx->api, ((rt_buffer *)dst)->ptr + dst_offset,
                                       ((rt_buffer *)src)->ptr + src_offset, size, q->stream);
    }
    return st != XGPU_SUCCESS ? st : finish_op(q, false, event);
}

/* A pattern that is one 4-byte word repeated fills as 32-bit words. */
static bool repeats_word(const unsigned char *p, size_t size) {
    for (size_t i = 4; i < size; i++) {
        if (p[i] != p[i % 4]) {
            return false;
        }
    }
    return true;
}

xgpu_status xgpu__rt_buffer_copy_peer(void *src_queue, void *src_buffer, size_t src_offset,
                                      void *dst_queue, void *dst_buffer, size_t dst_offset,
                                      size_t size) {
    const rt_queue *sq = src_queue, *dq = dst_queue;
    const rt_buffer *sb = src_buffer, *db = dst_buffer;
    const xgpu_rt_vendor *v = dq->ctx->vendor;
    if (!v->copy_peer) {
        return XGPU_ERROR_UNSUPPORTED; /* the core stages the copy */
    }
    xgpu_status st = xgpu__rt_make_current(dq->ctx);
    if (st == XGPU_SUCCESS) {
        st = v->copy_peer(dq->ctx->api, db->ptr + dst_offset, dq->ctx->device_ctx,
                          sb->ptr + src_offset, sq->ctx->device_ctx, size, dq->stream);
    }
    return st != XGPU_SUCCESS ? st : v->stream_sync(dq->ctx->api, dq->stream);
}

xgpu_status xgpu__rt_device_peer(const xgpu_rt_vendor *vendor, const void *api, int src, int dst,
                                 bool *direct) {
    int can = 0;
    xgpu_status st =
        vendor->can_access_peer ? vendor->can_access_peer(api, dst, src, &can) : XGPU_SUCCESS;
    *direct = st == XGPU_SUCCESS && can != 0;
    return st;
}

xgpu_status xgpu__rt_buffer_fill(void *queue, void *buffer, size_t offset, size_t size,
                                 const void *pattern, size_t pattern_size, void **event) {
    rt_queue *q = queue;
    rt_buffer *b = buffer;
    unsigned width;
    uint32_t value = 0;
    if (pattern_size == 1 || pattern_size == 2) {
        width = (unsigned)pattern_size;
        memcpy(&value, pattern, pattern_size); /* little-endian hosts */
    } else if (repeats_word(pattern, pattern_size)) {
        width = 4;
        memcpy(&value, pattern, 4);
    } else {
        /* Wider patterns: the core's fill (one chunk, then device copies). */
        return XGPU_ERROR_UNSUPPORTED;
    }
    xgpu_status st = xgpu__rt_make_current(q->ctx);
    if (st == XGPU_SUCCESS) {
        st = q->ctx->vendor->memset(q->ctx->api, b->ptr + offset, value, width, size / width,
                                    q->stream);
    }
    return st != XGPU_SUCCESS ? st : finish_op(q, false, event);
}

xgpu_status xgpu__rt_host_alloc(void *context, size_t size, void **handle, void **ptr) {
    xgpu_rt_ctx *c = context;
    xgpu_status st = xgpu__rt_make_current(c);
    void *p = NULL;
    if (st == XGPU_SUCCESS) {
        st = c->vendor->host_alloc(c->api, size, &p);
    }
    if (st == XGPU_SUCCESS) {
        *handle = p;
        *ptr = p;
    }
    return st;
}

void xgpu__rt_host_free(void *context, void *handle) {
    xgpu_rt_ctx *c = context;
    if (xgpu__rt_make_current(c) == XGPU_SUCCESS) {
        c->vendor->host_free(c->api, handle);
    }
}

/* ---- programs, kernels, launches ---- */

xgpu_status xgpu__rt_program_load(xgpu_rt_ctx *ctx, const void *image, size_t size,
                                  void **program) {
    xgpu_rt_program *p = calloc(1, size);
    if (!p) {
        return xgpu__rt_oom(ctx, "program");
    }
    p->ctx = ctx;
    xgpu_status st = xgpu__rt_make_current(ctx);
    if (st == XGPU_SUCCESS) {
        st = ctx->vendor->module_load(ctx->api, image, &p->module);
    }
    if (st != XGPU_SUCCESS) {
        free(p);
        return st;
    }
    *program = p;
    return XGPU_SUCCESS;
}

void xgpu__rt_program_release(void *program) {
    xgpu_rt_program *p = program;
    if (xgpu__rt_make_current(p->ctx) == XGPU_SUCCESS) {
        p->ctx->vendor->module_unload(p->ctx->api, p->module);
    }
    free(p->image);
    free(p);
}

xgpu_status xgpu__rt_program_binary(void *program, void **data, size_t *size) {
    xgpu_rt_program *p = program;
    void *copy = p->image ? malloc(p->image_size) : NULL;
    if (!copy) {
        return xgpu__rt_services->error(
            p->ctx->vendor->backend,
            p->image ? XGPU_ERROR_OUT_OF_HOST_MEMORY : XGPU_ERROR_UNSUPPORTED, 0, NULL,
            "program binary: %s", p->image ? "malloc failed" : "no code object kept");
    }
    memcpy(copy, p->image, p->image_size);
    *data = copy;
    *size = p->image_size;
    return XGPU_SUCCESS;
}

xgpu_status xgpu__rt_kernel_create(void *program, const char *name, size_t size, void **kernel,
                                   xgpu_kernel_props *props) {
    xgpu_rt_program *p = program;
    xgpu_status st = xgpu__rt_make_current(p->ctx);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu_rt_kernel *k = calloc(1, size);
    if (!k) {
        return xgpu__rt_oom(p->ctx, "kernel");
    }
    k->ctx = p->ctx;
    st = p->ctx->vendor->get_function(p->ctx->api, p->module, name, &k->function);
    if (st != XGPU_SUCCESS) {
        free(k);
        return st;
    }
    props->preferred_group_multiple = 0; /* the device's warp or wavefront size */
    p->ctx->vendor->function_props(p->ctx->api, k->function, props);
    *kernel = k;
    return XGPU_SUCCESS;
}

xgpu_status xgpu__rt_launch(void *queue, void *kernel, const xgpu_range *range, size_t arg_count,
                            const xgpu_backend_arg *args, void **event) {
    rt_queue *q = queue;
    xgpu_rt_kernel *k = kernel;
    xgpu_status st = xgpu__rt_make_current(q->ctx);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    /* Kernel parameters are pointers to the values: device pointers and
     * local-memory offsets need storage of their own. */
    enum { SMALL = 32 };
    void *small_params[SMALL];
    uint64_t small_ptrs[SMALL];
    unsigned int small_offsets[SMALL];
    void **params = small_params;
    uint64_t *ptrs = small_ptrs;
    unsigned int *offsets = small_offsets;
    if (arg_count > SMALL) {
        params = malloc(arg_count * sizeof *params);
        ptrs = malloc(arg_count * sizeof *ptrs);
        offsets = malloc(arg_count * sizeof *offsets);
        if (!params || !ptrs || !offsets) {
            free(params);
            free(ptrs);
            free(offsets);
            return xgpu__rt_oom(q->ctx, "launch");
        }
    }
    size_t shared = xgpu__util_local_layout(args, arg_count, offsets);
    for (size_t i = 0; i < arg_count; i++) {
        switch (args[i].kind) {
        case XGPU_ARG_BUFFER:
            ptrs[i] = ((rt_buffer *)args[i].buffer)->ptr;
            params[i] = &ptrs[i];
            break;
        case XGPU_ARG_LOCAL:
            params[i] = &offsets[i];
            break;
        default:
            params[i] = (void *)args[i].value;
            break;
        }
    }
    if (k->prepare_launch) {
        st = k->prepare_launch(k, shared);
    }
    if (st == XGPU_SUCCESS) {
        unsigned grid[3], block[3];
        for (uint32_t d = 0; d < 3; d++) {
            grid[d] = d < range->dims ? (unsigned)range->groups[d] : 1;
            block[d] = d < range->dims ? (unsigned)range->group_size[d] : 1;
        }
        st = q->ctx->vendor->launch(q->ctx->api, k->function, grid, block, (unsigned)shared,
                                    q->stream, params);
    }
    if (st == XGPU_SUCCESS) {
        st = finish_op(q, false, event);
    }
    if (params != small_params) {
        free(params);
        free(ptrs);
        free(offsets);
    }
    return st;
}
