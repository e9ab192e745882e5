/* The null backend: one device whose operations succeed and do no work.
 *
 * It exists to measure what the core itself costs per call (argument and
 * handle checks, signature lookup, marshalling): with it, xgpu_launch runs
 * end to end while the backend adds nothing but an indirect call.
 * gpubench's launch benchmark reports that figure beside the vendor's own
 * launch. The loader loads it only when XGPU_BACKENDS names it ("null"),
 * and ranks it after every other backend, so it is never listed, chosen
 * or benchmarked unless asked for.
 *
 * What "no work" means for each object: every handle is the address of one
 * static byte (nothing is allocated, nothing to free); writes, copies,
 * fills and launches return at once; reads fill the destination with zeros
 * so that callers never see uninitialised memory; builds accept any source
 * (the core still reads kernel signatures from it and checks launches
 * against them); events complete at once and measure 0 ms. */
#include "xgpu_backend.h"

#include <stdio.h>
#include <string.h>

#define NULL_BACKEND_NAME "null"

static char token; /* every handle the backend hands out */

static xgpu_status null_probe(const xgpu_core_services *services, void **state, char *reason,
                              size_t reason_size) {
    (void)services, (void)reason, (void)reason_size;
    *state = &token;
    return XGPU_SUCCESS;
}

static uint32_t null_device_count(void *state) {
    (void)state;
    return 1;
}

static xgpu_status null_device_info(void *state, uint32_t index, xgpu_device_info *info) {
    (void)state, (void)index;
    info->type = XGPU_DEVICE_TYPE_OTHER;
    snprintf(info->vendor, sizeof info->vendor, "xgpu");
    snprintf(info->name, sizeof info->name, "null device (does no work)");
    snprintf(info->driver_version, sizeof info->driver_version, "xgpu %d.%d.%d", XGPU_VERSION_MAJOR,
             XGPU_VERSION_MINOR, XGPU_VERSION_PATCH);
    info->compute_units = 1;
    info->global_mem_bytes = (uint64_t)1 << 40;
    info->max_alloc_bytes = (uint64_t)1 << 40;
    info->local_mem_bytes = 64 * 1024;
    info->max_group_size = 1024;
    info->max_group_dims[0] = 1024;
    info->max_group_dims[1] = 1024;
    info->max_group_dims[2] = 64;
    info->preferred_group_multiple = 1;
    info->fp64 = true;
    return XGPU_SUCCESS;
}

static xgpu_status null_context_create(void *state, uint32_t index, void **context) {
    (void)state, (void)index;
    *context = &token;
    return XGPU_SUCCESS;
}

static void null_release(void *object) {
    (void)object;
}

static xgpu_status null_queue_create(void *context, void **queue) {
    (void)context;
    *queue = &token;
    return XGPU_SUCCESS;
}

static xgpu_status null_done(void *object) {
    (void)object;
    return XGPU_SUCCESS;
}

static xgpu_status null_buffer_create(void *context, size_t size, void **buffer) {
    (void)context, (void)size;
    *buffer = &token;
    return XGPU_SUCCESS;
}

/* Stores the event the caller asked for. */
static xgpu_status done_event(void **event) {
    if (event) {
        *event = &token;
    }
    return XGPU_SUCCESS;
}

static xgpu_status null_write(void *queue, void *buffer, size_t offset, const void *src,
                              size_t size, bool blocking, void **event) {
    (void)queue, (void)buffer, (void)offset, (void)src, (void)size, (void)blocking;
    return done_event(event);
}

static xgpu_status null_read(void *queue, void *buffer, size_t offset, void *dst, size_t size,
                             bool blocking, void **event) {
    (void)queue, (void)buffer, (void)offset, (void)blocking;
    memset(dst, 0, size);
    return done_event(event);
}

static xgpu_status null_copy(void *queue, void *src, size_t src_offset, void *dst,
                             size_t dst_offset, size_t size, void **event) {
    (void)queue, (void)src, (void)src_offset, (void)dst, (void)dst_offset, (void)size;
    return done_event(event);
}

static xgpu_status null_fill(void *queue, void *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size, void **event) {
    (void)queue, (void)buffer, (void)offset, (void)size, (void)pattern, (void)pattern_size;
    return done_event(event);
}

static xgpu_status null_build(void *context, const char *source, const char *options,
                              void **program, char **log) {
    (void)context, (void)source, (void)options, (void)log;
    *program = &token;
    return XGPU_SUCCESS;
}

/* Any name: the backend has no compiler to ask. The core finds the
 * kernel's parameters in the source, or refuses its launches. */
static xgpu_status null_kernel_create(void *program, const char *name, void **kernel,
                                      xgpu_kernel_props *props) {
    (void)program, (void)name, (void)props;
    *kernel = &token;
    return XGPU_SUCCESS;
}

static xgpu_status null_launch(void *queue, void *kernel, const xgpu_range *range, size_t arg_count,
                               const xgpu_backend_arg *args, void **event) {
    (void)queue, (void)kernel, (void)range, (void)arg_count, (void)args;
    return done_event(event);
}

static xgpu_status null_record_event(void *queue, void **event) {
    (void)queue;
    return done_event(event);
}

static xgpu_status null_wait_event(void *queue, void *event) {
    (void)queue, (void)event;
    return XGPU_SUCCESS;
}

static xgpu_status null_elapsed(void *start, void *end, double *ms) {
    (void)start, (void)end;
    *ms = 0;
    return XGPU_SUCCESS;
}

static const xgpu_backend_ops null_ops = {
    .size = sizeof(xgpu_backend_ops),
    .abi_version = 1,
    .name = NULL_BACKEND_NAME,
    .dialect = XGPU_DIALECT_OPENCL, /* the source is never compiled */
    .probe = null_probe,
    .device_count = null_device_count,
    .device_info = null_device_info,
    .context_create = null_context_create,
    .context_release = null_release,
    .queue_create = null_queue_create,
    .queue_release = null_release,
    .queue_finish = null_done,
    .buffer_create = null_buffer_create,
    .buffer_release = null_release,
    .buffer_write = null_write,
    .buffer_read = null_read,
    .buffer_copy = null_copy,
    .buffer_fill = null_fill,
    .program_build = null_build,
    .program_release = null_release,
    .kernel_create = null_kernel_create,
    .kernel_release = null_release,
    .launch = null_launch,
    .queue_record_event = null_record_event,
    .event_wait = null_done,
    .event_elapsed_ms = null_elapsed,
    .event_release = null_release,
    .queue_wait_event = null_wait_event,
};

XGPU_BACKEND_EXPORT(null_ops)
