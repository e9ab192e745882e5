/* xgpu_reduce: checks, then kernels/reduce.xgpu: partials per group in
 * the queue's scratch buffer, combined by the last group to finish (one
 * launch, on devices with device-scope release/acquire atomics) or by a
 * second launch (everywhere else, and with XGPU_REDUCE_TWO_PASS=1). */
#include "lib_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

xgpu_dtype xgpu_reduce_result_dtype(xgpu_reduce_op op, xgpu_dtype dtype) {
    if (op < XGPU_REDUCE_SUM || op > XGPU_REDUCE_ARGMAX ||
        (dtype != XGPU_F32 && dtype != XGPU_F64 && dtype != XGPU_I32 && dtype != XGPU_I64)) {
        return (xgpu_dtype)0;
    }
    if (op == XGPU_REDUCE_ARGMAX) {
        return XGPU_U64;
    }
    return op == XGPU_REDUCE_SUM && dtype == XGPU_I32 ? XGPU_I64 : dtype;
}

/* The result of reducing nothing, as bytes of the result dtype. */
static void identity(xgpu_reduce_op op, xgpu_dtype dtype, unsigned char out[8]) {
    memset(out, 0, 8);
    bool hi = op == XGPU_REDUCE_MIN;
    if (op == XGPU_REDUCE_SUM) {
        return;
    }
    if (op == XGPU_REDUCE_ARGMAX) {
        memset(out, 0xff, 8); /* UINT64_MAX: no index */
        return;
    }
    if (dtype == XGPU_F32) {
        float v = hi ? INFINITY : -INFINITY;
        memcpy(out, &v, sizeof v);
    } else if (dtype == XGPU_F64) {
        double v = hi ? INFINITY : -INFINITY;
        memcpy(out, &v, sizeof v);
    } else if (dtype == XGPU_I32) {
        int32_t v = hi ? INT32_MAX : INT32_MIN;
        memcpy(out, &v, sizeof v);
    } else {
        int64_t v = hi ? INT64_MAX : INT64_MIN;
        memcpy(out, &v, sizeof v);
    }
}

/* Launch shape: the tuning database's values for the device, else the
 * built-in ones. GPUs: groups of 256 on a grid stride, so that neighbours
 * read neighbours, each work-item with XGPU__REDUCE_UNROLL_GPU loads in
 * flight (on an H200, one load at a time summed fp32 at 2476 GB/s against
 * 3851 for fp64: too few bytes in flight). CPUs: each work-item streams a
 * contiguous chunk with 64 independent lanes in OpenCL vector types, in
 * groups of 4, one a core (pocl), or of one vector of work-items, two a
 * core (runtimes that vectorise across work-items; tunedb/params.c gives
 * the figures). */
static size_t groups_for(const xgpu_device_info *info, const xgpu__tune_values *v, size_t n) {
    size_t units = info->compute_units ? info->compute_units : 1;
    size_t groups = units * v->v[1];
    size_t per_group = (size_t)v->v[0] * v->v[3];
    size_t needed = (n + per_group - 1) / per_group;
    if (groups > needed) {
        groups = needed;
    }
    if (groups > 4096) {
        groups = 4096;
    }
    return groups ? groups : 1;
}

/* XGPU_REDUCE_TWO_PASS: 1 combines the partials in a second launch on
 * any device, 0 (or unset) only where the single pass would be undefined.
 * Anything else is an error naming it. */
static xgpu_status env_two_pass(const char *func, bool *two_pass) {
    const char *v = getenv("XGPU_REDUCE_TWO_PASS");
    *two_pass = v && !strcmp(v, "1");
    if (v && strcmp(v, "0") && strcmp(v, "1")) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: XGPU_REDUCE_TWO_PASS='%.32s' is malformed: 0 or 1", func, v);
    }
    return XGPU_SUCCESS;
}

const char *xgpu__reduce_pass_options(const xgpu_device_info *info, bool two_pass) {
    if (two_pass || !info->device_scope_atomics) {
        return " -DRED_TWO_PASS";
    }
    if (strcmp(info->backend, "opencl")) {
        return ""; /* CUDA, HIP: the prelude's fences */
    }
    /* OpenCL: the atomics of OpenCL C 2.0, which a 3.0 device may offer
     * while it still reports OpenCL C 1.2 as its version. */
    return strncmp(info->language_version, "OpenCL C 2.", 11) ? " -cl-std=CL3.0" : " -cl-std=CL2.0";
}

/* XGPU_REDUCE_UNROLL (1..16): the grid stride with 16-byte loads, on any
 * device, with that many loads in flight per work-item; *set is false when it is unset. A
 * malformed value is an error naming it. */
static xgpu_status env_unroll(const char *func, uint32_t *unroll, bool *set) {
    const char *v = getenv("XGPU_REDUCE_UNROLL");
    *set = v != NULL;
    char why[96];
    if (v && !xgpu__uint_parse(v, 1, 16, unroll, why, sizeof why)) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT,
                          "%s: XGPU_REDUCE_UNROLL='%.32s' is malformed: %s", func, v, why);
    }
    return XGPU_SUCCESS;
}

xgpu_status xgpu_reduce(xgpu_queue *queue, xgpu_reduce_op op, xgpu_dtype dtype, xgpu_buffer *in,
                        size_t offset, size_t n, xgpu_buffer *out, size_t out_offset,
                        xgpu_event **event) {
    return xgpu__reduce_run(__func__, queue, op, dtype, in, offset, n, out, out_offset, NULL,
                            event);
}

/* The operation, dtype, sizes and both buffers. */
static xgpu_status check_reduce(const char *func, xgpu_queue *queue, xgpu_reduce_op op,
                                xgpu_dtype dtype, const xgpu_buffer *in, size_t offset, size_t n,
                                const xgpu_buffer *out, size_t out_offset) {
    xgpu_dtype result = xgpu_reduce_result_dtype(op, dtype);
    if (!result) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: op %d on dtype %s: reductions are sum, min, max and argmax over "
                          "f32, f64, i32 and i64",
                          func, (int)op, xgpu_dtype_name(dtype));
    }
    const xgpu_device_info *info = xgpu__context_info(xgpu__queue_context(queue));
    xgpu_status st = xgpu__check_fp64(func, dtype, info);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    size_t elem = xgpu_dtype_size(dtype), rsize = xgpu_dtype_size(result);
    if (offset > SIZE_MAX / elem || n > SIZE_MAX / elem - offset) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE, "%s: offset %zu + n %zu elements overflows",
                          func, offset, n);
    }
    if (out_offset > SIZE_MAX / rsize) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE,
                          "%s: out_offset %zu elements of %zu bytes overflows", func, out_offset,
                          rsize);
    }
    st = xgpu__lib_check_buffer(func, "in", queue, in, offset * elem, n * elem);
    if (st == XGPU_SUCCESS) {
        st = xgpu__lib_check_buffer(func, "out", queue, out, out_offset * rsize, rsize);
    }
    return st;
}

/* The launch shape: XGPU_REDUCE_PARAMS when it is set, else
 * XGPU_REDUCE_UNROLL's grid stride, else the tuning database's values for
 * the device, else the built-in ones. */
static xgpu_status choose_values(const char *func, xgpu_queue *queue, xgpu_reduce_op op,
                                 xgpu_dtype dtype, size_t bytes, xgpu__tune_values *v) {
    bool set = false;
    xgpu_status st = xgpu__lib_env_params(func, xgpu__queue_context(queue),
                                          xgpu__reduce_tune_id(op), dtype, v, &set);
    if (st != XGPU_SUCCESS || set) {
        return st;
    }
    uint32_t unroll = 0;
    st = env_unroll(func, &unroll, &set);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (set) { /* the grid stride with that many loads, on any device */
        const xgpu_device_info *info = xgpu__context_info(xgpu__queue_context(queue));
        *v = (xgpu__tune_values){{256, 8, unroll, 4, 0}};
        while (info->max_group_size && v->v[0] > info->max_group_size) {
            v->v[0] /= 2;
        }
        return XGPU_SUCCESS;
    }
    xgpu__tune_choice c;
    st = xgpu__lib_choose(xgpu__queue_context(queue), xgpu__reduce_tune_id(op), dtype,
                          xgpu__tune_class_of(XGPU__TK_SUM, bytes), &c);
    if (st == XGPU_SUCCESS) {
        *v = c.values;
    }
    return st;
}

/* The second launch of two: one group combines `groups` partials. */
static xgpu_status launch_partials(xgpu_queue *queue, const char *options, size_t group,
                                   xgpu_buffer *scratch, uint32_t index_offset, size_t groups,
                                   xgpu_buffer *out, size_t out_offset, xgpu_event **event) {
    xgpu_kernel *kernel = NULL;
    xgpu_status st = xgpu__lib_kernel(xgpu__queue_context(queue), xgpu__kernel_reduce, options,
                                      "xgpu_reduce_partials", &kernel);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu_arg args[] = {xgpu_arg_buffer(scratch),   xgpu_arg_buffer(scratch),
                       xgpu_arg_u32(index_offset), xgpu_arg_u32((uint32_t)groups),
                       xgpu_arg_buffer(out),       xgpu_arg_buffer(out),
                       xgpu_arg_u64(out_offset)};
    xgpu_range one = xgpu_range_1d(1, group);
    return xgpu_launch(queue, kernel, &one, sizeof args / sizeof args[0], args, event);
}

/* Per-group partials in the queue's scratch buffer, combined by the last
 * group to finish (the queue's counter) or by a second launch; one group
 * writes `out` itself. */
static xgpu_status launch_reduce(xgpu_queue *queue, xgpu_reduce_op op, xgpu_dtype dtype,
                                 xgpu_buffer *in, size_t offset, size_t n, xgpu_buffer *out,
                                 size_t out_offset, const xgpu__tune_values *v, bool two_pass,
                                 xgpu_event **event) {
    const xgpu_device_info *info = xgpu__context_info(xgpu__queue_context(queue));
    size_t group = v->v[0], groups = groups_for(info, v, n);
    char options[192];
    xgpu__reduce_options(op, dtype, v, options, sizeof options);
    const char *pass = xgpu__reduce_pass_options(info, two_pass);
    two_pass = strstr(pass, "RED_TWO_PASS") != NULL;
    snprintf(options + strlen(options), sizeof options - strlen(options), "%s", pass);
    xgpu_kernel *kernel = NULL;
    xgpu_status st = xgpu__lib_kernel(xgpu__queue_context(queue), xgpu__kernel_reduce, options,
                                      "xgpu_reduce", &kernel);
    /* Scratch: groups partial values (8 bytes each at most), then indices. */
    xgpu_buffer *scratch = NULL, *counter = NULL;
    if (st == XGPU_SUCCESS) {
        st = xgpu__queue_scratch(queue, groups * 16, &scratch);
    }
    if (st == XGPU_SUCCESS) {
        st = xgpu__queue_counter(queue, &counter);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    size_t elem = xgpu_dtype_size(dtype);
    size_t acc_size = op == XGPU_REDUCE_SUM && dtype == XGPU_I32 ? 8 : elem;
    uint32_t index_offset = (uint32_t)((groups * acc_size + 7) / 8);
    xgpu_arg args[] = {xgpu_arg_buffer(in),      xgpu_arg_u64(offset),
                       xgpu_arg_u64(n),          xgpu_arg_buffer(scratch),
                       xgpu_arg_buffer(scratch), xgpu_arg_u32(index_offset),
                       xgpu_arg_buffer(counter), xgpu_arg_buffer(out),
                       xgpu_arg_buffer(out),     xgpu_arg_u64(out_offset)};
    xgpu_range range = xgpu_range_1d(groups, group);
    bool second = two_pass && groups > 1;
    st = xgpu_launch(queue, kernel, &range, sizeof args / sizeof args[0], args,
                     second ? NULL : event);
    if (st != XGPU_SUCCESS || !second) {
        return st;
    }
    return launch_partials(queue, options, group, scratch, index_offset, groups, out, out_offset,
                           event);
}

xgpu_status xgpu__reduce_run(const char *func, xgpu_queue *queue, xgpu_reduce_op op,
                             xgpu_dtype dtype, xgpu_buffer *in, size_t offset, size_t n,
                             xgpu_buffer *out, size_t out_offset, const xgpu__tune_values *forced,
                             xgpu_event **event) {
    if (event) {
        *event = NULL;
    }
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, func, "queue");
    xgpu_status st = check_reduce(func, queue, op, dtype, in, offset, n, out, out_offset);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (n == 0) {
        size_t rsize = xgpu_dtype_size(xgpu_reduce_result_dtype(op, dtype));
        unsigned char id[8];
        identity(op, dtype, id);
        return xgpu_buffer_write(queue, out, out_offset * rsize, id, rsize, true, event);
    }
    bool two_pass = false;
    st = env_two_pass(func, &two_pass);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu__tune_values v;
    if (forced) {
        v = *forced;
    } else {
        st = choose_values(func, queue, op, dtype, n * xgpu_dtype_size(dtype), &v);
        if (st != XGPU_SUCCESS) {
            return st;
        }
    }
    return launch_reduce(queue, op, dtype, in, offset, n, out, out_offset, &v, two_pass, event);
}
