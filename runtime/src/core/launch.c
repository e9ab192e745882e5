/* xgpu_launch: geometry and arguments are checked here, against the device
 * and the kernel's signature, before the backend sees them. */
#include "core_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XGPU__MAX_ITEMS_PER_DIM ((uint64_t)1 << 32)

static const char *kind_name(xgpu_arg_kind k) {
    switch (k) {
    case XGPU_ARG_BUFFER:
        return "buffer";
    case XGPU_ARG_SCALAR:
        return "scalar";
    case XGPU_ARG_LOCAL:
        return "local memory";
    case XGPU_ARG_NONE:
        break;
    }
    return "invalid kind";
}

static xgpu_status check_range(const char *func, const xgpu__kernel *k, const xgpu_range *r) {
    if (!r) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: range is NULL", func);
    }
    if (r->dims < 1 || r->dims > 3) {
        return xgpu__fail(XGPU_ERROR_INVALID_LAUNCH,
                          "%s: kernel '%s': dims is %u, must be 1, 2 or 3", func, k->name, r->dims);
    }
    const xgpu_device_info *info = &k->program->context->device->info;
    uint64_t per_group = 1, total = 1;
    for (uint32_t d = 0; d < r->dims; d++) {
        if (r->groups[d] == 0 || r->group_size[d] == 0) {
            return xgpu__fail(XGPU_ERROR_INVALID_LAUNCH, "%s: kernel '%s': %s[%u] is 0", func,
                              k->name, r->groups[d] ? "group_size" : "groups", d);
        }
        /* Work-item ids are 32-bit in the dialect (and OpenCL's global
         * size is groups x group_size in a size_t). */
        if (r->groups[d] > XGPU__MAX_ITEMS_PER_DIM / r->group_size[d]) {
            return xgpu__fail(XGPU_ERROR_INVALID_LAUNCH,
                              "%s: kernel '%s': groups[%u] x group_size[%u] = %zu x %zu is more "
                              "than 2^32 work-items in one dimension; work-item ids are "
                              "32-bit",
                              func, k->name, d, d, r->groups[d], r->group_size[d]);
        }
        if (info->max_groups[d] && r->groups[d] > info->max_groups[d]) {
            return xgpu__fail(XGPU_ERROR_INVALID_LAUNCH,
                              "%s: kernel '%s': groups[%u] = %zu exceeds the device's limit "
                              "%llu in that dimension",
                              func, k->name, d, r->groups[d],
                              (unsigned long long)info->max_groups[d]);
        }
        if (info->max_group_dims[d] && r->group_size[d] > info->max_group_dims[d]) {
            return xgpu__fail(XGPU_ERROR_INVALID_LAUNCH,
                              "%s: kernel '%s': group_size[%u] = %zu exceeds the device's "
                              "limit %llu in that dimension",
                              func, k->name, d, r->group_size[d],
                              (unsigned long long)info->max_group_dims[d]);
        }
        if (r->group_size[d] > UINT64_MAX / per_group) {
            return xgpu__fail(XGPU_ERROR_INVALID_LAUNCH,
                              "%s: kernel '%s': the group has more than 2^64 work-items", func,
                              k->name);
        }
        per_group *= r->group_size[d];
        uint64_t items = (uint64_t)r->groups[d] * r->group_size[d];
        if (total > UINT64_MAX / items) {
            return xgpu__fail(XGPU_ERROR_INVALID_LAUNCH,
                              "%s: kernel '%s': the launch has more than 2^64 work-items in all",
                              func, k->name);
        }
        total *= items;
    }
    size_t max = xgpu__kernel_group_limit(k);
    if (max && per_group > max) {
        return xgpu__fail(XGPU_ERROR_INVALID_LAUNCH,
                          "%s: kernel '%s': group of %llu work-items exceeds its limit of %zu "
                          "on %s:%u",
                          func, k->name, (unsigned long long)per_group, max, info->backend,
                          info->backend_index);
    }
    return XGPU_SUCCESS;
}

/* One argument on its own: a known kind, a live buffer of the kernel's
 * context (its backend handle into *buffer), a scalar or local size in
 * range. */
static xgpu_status check_arg_alone(const char *func, const xgpu__kernel *k, uint32_t i,
                                   const xgpu_arg *a, const char *pname, void **buffer) {
    const xgpu__context *ctx = k->program->context;
    if (a->kind == XGPU_ARG_SCALAR && (a->type < XGPU_SCALAR_RAW || a->type > XGPU_SCALAR_FLOAT)) {
        return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                          "%s: kernel '%s' argument %u: scalar type %d is not an "
                          "xgpu_scalar_type (use xgpu_arg_i32, ..., xgpu_arg_bytes)",
                          func, k->name, i, (int)a->type);
    }
    switch (a->kind) {
    case XGPU_ARG_BUFFER: {
        xgpu__buffer *b = NULL;
        xgpu_status st = xgpu__buffer_get(a->buffer, func, "buffer argument", &b);
        if (st != XGPU_SUCCESS) {
            /* The handle check's message is rewritten here: copy it first,
             * it lives in the buffer the new message is formatted into. */
            char why[256];
            snprintf(why, sizeof why, "%s", xgpu_last_error()->message);
            return xgpu__fail(st, "%s: kernel '%s' argument %u (%s): %s", func, k->name, i, pname,
                              why);
        }
        if (b->context != ctx) {
            return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                              "%s: kernel '%s' argument %u (%s): buffer of another context", func,
                              k->name, i, pname);
        }
        *buffer = b->handle;
        break;
    }
    case XGPU_ARG_SCALAR:
        if (a->size == 0 || a->size > XGPU_ARG_SCALAR_MAX) {
            return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                              "%s: kernel '%s' argument %u (%s): scalar size %zu is not in "
                              "1..%d",
                              func, k->name, i, pname, a->size, XGPU_ARG_SCALAR_MAX);
        }
        break;
    case XGPU_ARG_LOCAL:
        if (a->size == 0) {
            return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                              "%s: kernel '%s' argument %u (%s): local memory size is 0", func,
                              k->name, i, pname);
        }
        break;
    case XGPU_ARG_NONE:
    default:
        return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                          "%s: kernel '%s' argument %u (%s): kind %d is not a valid "
                          "xgpu_arg_kind (use xgpu_arg_buffer, xgpu_arg_i32, ...)",
                          func, k->name, i, pname, (int)a->kind);
    }
    return XGPU_SUCCESS;
}

/* One argument against the parameter the kernel declares (`p`, NULL when
 * the signature was not read: then the backend's kinds, if it knows them). */
static xgpu_status check_arg_against(const char *func, const xgpu__kernel *k, uint32_t i,
                                     const xgpu_arg *a, const xgpu__kernel_param *p) {
    if (!p) {
        /* The signature was not read: the backend may know the kinds. */
        const xgpu_arg_kind *kinds = k->props.arg_kinds;
        if (kinds && a->kind != kinds[i]) {
            return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                              "%s: kernel '%s' argument %u is a %s parameter, but a %s argument "
                              "was given",
                              func, k->name, i, kind_name(kinds[i]), kind_name(a->kind));
        }
        return XGPU_SUCCESS;
    }
    if (a->kind != p->kind) {
        return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                          "%s: kernel '%s' argument %u (%s %s) is a %s parameter, but a %s "
                          "argument was given",
                          func, k->name, i, p->type, p->name, kind_name(p->kind),
                          kind_name(a->kind));
    }
    if (a->kind == XGPU_ARG_SCALAR && p->scalar_size && a->size != p->scalar_size) {
        return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                          "%s: kernel '%s' argument %u (%s %s) takes %zu bytes, %zu given", func,
                          k->name, i, p->type, p->name, p->scalar_size, a->size);
    }
    if (a->kind == XGPU_ARG_SCALAR && a->type != XGPU_SCALAR_RAW &&
        p->scalar_class != XGPU__CLASS_OTHER &&
        (a->type == XGPU_SCALAR_FLOAT) != (p->scalar_class == XGPU__CLASS_FLOAT)) {
        bool want_float = p->scalar_class == XGPU__CLASS_FLOAT;
        return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                          "%s: kernel '%s' argument %u (%s %s) is %s parameter, but %s argument "
                          "was given; pass it with %s (or xgpu_arg_bytes for raw bytes)",
                          func, k->name, i, p->type, p->name,
                          want_float ? "a floating-point" : "an integer",
                          want_float ? "an integer" : "a floating-point",
                          want_float ? "xgpu_arg_f32/xgpu_arg_f64" : "xgpu_arg_i32/u32/i64/u64");
    }
    return XGPU_SUCCESS;
}

/* One argument on its own, then against the declared parameter; a
 * buffer's backend handle into *buffer. */
static xgpu_status check_arg(const char *func, const xgpu__kernel *k, uint32_t i, const xgpu_arg *a,
                             void **buffer) {
    const xgpu__kernel_param *p = k->sig.known ? &k->sig.params[i] : NULL;
    xgpu_status st = check_arg_alone(func, k, i, a, p ? p->name : "?", buffer);
    return st == XGPU_SUCCESS ? check_arg_against(func, k, i, a, p) : st;
}

/* The number of arguments against the kernel's. */
static xgpu_status check_count(const char *func, const xgpu__kernel *k, size_t count,
                               const xgpu_arg *args) {
    if (count && !args) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: arg_count is %zu but args is NULL",
                          func, count);
    }
    if (!k->sig.known && k->props.arg_count == XGPU_ARG_COUNT_UNKNOWN) {
        return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                          "%s: kernel '%s': its parameter list could not be read from the "
                          "source (is it declared through a macro?), and backend %s cannot "
                          "count its parameters; declare it as XGPU_KERNEL void %s(...)",
                          func, k->name, k->program->context->device->info.backend, k->name);
    }
    if (!k->sig.known && count != k->props.arg_count) {
        return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                          "%s: kernel '%s' takes %u argument(s), %zu given", func, k->name,
                          k->props.arg_count, count);
    }
    if (k->sig.known && count != k->sig.count) {
        char names[512] = "";
        size_t used = 0;
        for (uint32_t i = 0; i < k->sig.count && used < sizeof names; i++) {
            int n = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                             k->sig.params[i].name);
            used += n > 0 ? (size_t)n : 0;
        }
        return xgpu__fail(XGPU_ERROR_INVALID_KERNEL_ARGS,
                          "%s: kernel '%s' takes %u argument(s) (%s), %zu given", func, k->name,
                          k->sig.count, names, count);
    }
    return XGPU_SUCCESS;
}

/* Each argument (their number checked), filling the backend's. */
static xgpu_status check_args(const char *func, const xgpu__kernel *k, size_t count,
                              const xgpu_arg *args, xgpu_backend_arg *bargs) {
    const xgpu_device_info *info = &k->program->context->device->info;
    uint64_t local_total = k->props.static_local_bytes;
    for (size_t i = 0; i < count; i++) {
        bargs[i].kind = args[i].kind;
        bargs[i].size = args[i].size;
        bargs[i].buffer = NULL;
        bargs[i].value = args[i].kind == XGPU_ARG_SCALAR ? args[i].value.bytes : NULL;
        xgpu_status st = check_arg(func, k, (uint32_t)i, &args[i], &bargs[i].buffer);
        if (st != XGPU_SUCCESS) {
            return st;
        }
        if (args[i].kind == XGPU_ARG_LOCAL) {
            if (args[i].size > UINT64_MAX - local_total) {
                return xgpu__fail(XGPU_ERROR_INVALID_LAUNCH,
                                  "%s: kernel '%s': the local memory arguments add up to more "
                                  "than 2^64 bytes",
                                  func, k->name);
            }
            local_total += args[i].size;
        }
    }
    if (info->local_mem_bytes && local_total > info->local_mem_bytes) {
        return xgpu__fail(XGPU_ERROR_INVALID_LAUNCH,
                          "%s: kernel '%s' needs %llu bytes of local memory, the device has %llu",
                          func, k->name, (unsigned long long)local_total,
                          (unsigned long long)info->local_mem_bytes);
    }
    return XGPU_SUCCESS;
}

xgpu_status xgpu_launch(xgpu_queue *queue, xgpu_kernel *kernel, const xgpu_range *range,
                        size_t arg_count, const xgpu_arg *args, xgpu_event **event) {
    if (event) {
        *event = NULL;
    }
    xgpu__queue *q;
    xgpu__kernel *k;
    XGPU__OK_OR_RETURN(xgpu__queue_get(queue, __func__, "queue", &q));
    XGPU__OK_OR_RETURN(xgpu__kernel_get(kernel, __func__, "kernel", &k));
    xgpu__context *ctx = q->context;
    if (k->program->context != ctx) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: kernel '%s' belongs to another context than the queue", __func__,
                          k->name);
    }
    xgpu_status st = check_range(__func__, k, range);
    if (st == XGPU_SUCCESS) {
        st = check_count(__func__, k, arg_count, args);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu_backend_arg small[16];
    xgpu_backend_arg *bargs = arg_count <= 16 ? small : malloc(arg_count * sizeof *bargs);
    if (!bargs) {
        return xgpu__fail(XGPU_ERROR_OUT_OF_HOST_MEMORY, "%s: malloc failed", __func__);
    }
    st = check_args(__func__, k, arg_count, args, bargs);
    void *ev = NULL;
    if (st == XGPU_SUCCESS) {
        st = ctx->ops->launch(q->handle, k->handle, range, arg_count, bargs, event ? &ev : NULL);
    }
    if (bargs != small) {
        free(bargs);
    }
    return st != XGPU_SUCCESS ? st : xgpu__event_wrap(ctx, ev, event);
}
