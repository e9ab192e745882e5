/* xgpu_reduce: checks, then kernels/reduce.xgpu in one launch (partials
 * per group in the queue's scratch buffer; the last group to finish
 * reduces them). */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const func = "xgpu_reduce";

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

static const char *dtype_define(xgpu_dtype dtype) {
    switch (dtype) {
    case XGPU_F64:
        return "RED_F64";
    case XGPU_I32:
        return "RED_I32";
    case XGPU_I64:
        return "RED_I64";
    default:
        return "RED_F32";
    }
}

static const char *op_define(xgpu_reduce_op op) {
    switch (op) {
    case XGPU_REDUCE_MIN:
        return "RED_MIN";
    case XGPU_REDUCE_MAX:
        return "RED_MAX";
    case XGPU_REDUCE_ARGMAX:
        return "RED_ARGMAX";
    default:
        return "RED_SUM";
    }
}

/* Launch shape: the tuning database's values for the device, else the
 * built-in ones. GPUs: groups of 256 on a grid stride, so that neighbours
 * read neighbours, each work-item with XGPU__REDUCE_UNROLL_GPU loads in
 * flight (on an H200, one load at a time summed fp32 at 2476 GB/s against
 * 3851 for fp64: too few bytes in flight). CPUs: one group of 4 per core,
 * each work-item streaming a contiguous chunk with 64 independent lanes,
 * which the compiler vectorises (on pocl, 2 cores: 27.5 GB/s against 16.5
 * with groups of 64 and 16 lanes, and 0.5 with the GPU shape). */
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

void xgpu__reduce_options(xgpu_reduce_op op, xgpu_dtype dtype, const xgpu__tune_values *v,
                          char *out, size_t size) {
    snprintf(out, size, "-D%s -D%s -DGROUP=%u -DVEC=%u -DUNROLL=%u%s", dtype_define(dtype),
             op_define(op), v->v[0], v->v[3], v->v[2], v->v[4] ? " -DCHUNKED" : "");
}

xgpu__tune_kernel_id xgpu__reduce_tune_id(xgpu_reduce_op op) {
    return op == XGPU_REDUCE_SUM      ? XGPU__TK_SUM
           : op == XGPU_REDUCE_ARGMAX ? XGPU__TK_ARGMAX
                                      : XGPU__TK_MINMAX;
}

/* XGPU_REDUCE_UNROLL (1..16): the grid stride, on any device, with that
 * many loads in flight per work-item; *set is false when it is unset. A
 * malformed value is an error naming it. */
static xgpu_status env_unroll(uint32_t *unroll, bool *set) {
    const char *v = getenv("XGPU_REDUCE_UNROLL");
    *set = v != NULL;
    char why[96];
    if (v && !xgpu__uint_parse(v, 1, 16, unroll, why, sizeof why)) {
        return xgpu__error(NULL, XGPU_ERROR_INVALID_ARGUMENT, 0, NULL,
                           "%s: XGPU_REDUCE_UNROLL='%.32s' is malformed: %s", func, v, why);
    }
    return XGPU_SUCCESS;
}

xgpu_status xgpu_reduce(xgpu_queue *queue, xgpu_reduce_op op, xgpu_dtype dtype, xgpu_buffer *in,
                        size_t offset, size_t n, xgpu_buffer *out, size_t out_offset,
                        xgpu_event **event) {
    return xgpu__reduce_run(queue, op, dtype, in, offset, n, out, out_offset, NULL, event);
}

xgpu_status xgpu__reduce_run(xgpu_queue *queue, xgpu_reduce_op op, xgpu_dtype dtype,
                             xgpu_buffer *in, size_t offset, size_t n, xgpu_buffer *out,
                             size_t out_offset, const xgpu__tune_values *forced,
                             xgpu_event **event) {
    if (event) {
        *event = NULL;
    }
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, func, "queue");
    xgpu_dtype result = xgpu_reduce_result_dtype(op, dtype);
    if (!result) {
        return xgpu__error(NULL, XGPU_ERROR_UNSUPPORTED, 0, NULL,
                           "%s: op %d on dtype %s: reductions are sum, min, max and argmax over "
                           "f32, f64, i32 and i64",
                           func, (int)op, xgpu_dtype_name(dtype));
    }
    const xgpu_device_info *info = &queue->context->device->info;
    if (dtype == XGPU_F64 && !info->fp64) {
        return xgpu__error(NULL, XGPU_ERROR_UNSUPPORTED, 0, NULL,
                           "%s: f64 on %s:%u (%s), which has no fp64", func, info->backend,
                           info->backend_index, info->name);
    }
    size_t elem = xgpu_dtype_size(dtype), rsize = xgpu_dtype_size(result);
    if (offset > SIZE_MAX / elem || n > SIZE_MAX / elem - offset) {
        return xgpu__error(NULL, XGPU_ERROR_INVALID_SIZE, 0, NULL,
                           "%s: offset %zu + n %zu elements overflows", func, offset, n);
    }
    if (out_offset > SIZE_MAX / rsize) {
        return xgpu__error(NULL, XGPU_ERROR_INVALID_SIZE, 0, NULL,
                           "%s: out_offset %zu elements of %zu bytes overflows", func, out_offset,
                           rsize);
    }
    xgpu_status st = xgpu__lib_check_buffer(func, "in", queue, in, offset * elem, n * elem);
    if (st == XGPU_SUCCESS) {
        st = xgpu__lib_check_buffer(func, "out", queue, out, out_offset * rsize, rsize);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (n == 0) {
        unsigned char id[8];
        identity(op, dtype, id);
        return xgpu_buffer_write(queue, out, out_offset * rsize, id, rsize, true, event);
    }
    xgpu__tune_values v;
    if (forced) {
        v = *forced;
    } else {
        uint32_t unroll = 0;
        bool set = false;
        st = env_unroll(&unroll, &set);
        if (st != XGPU_SUCCESS) {
            return st;
        }
        if (set) { /* the grid stride with that many loads, on any device */
            v = (xgpu__tune_values){{256, 8, unroll, 1, 0}};
            while (info->max_group_size && v.v[0] > info->max_group_size) {
                v.v[0] /= 2;
            }
        } else {
            xgpu__tune_choice c;
            xgpu__tune_choose(queue->context, xgpu__reduce_tune_id(op), dtype,
                              xgpu__tune_class_of(XGPU__TK_SUM, n * elem), &c);
            v = c.values;
        }
    }
    size_t group = v.v[0], groups = groups_for(info, &v, n);
    char options[128];
    xgpu__reduce_options(op, dtype, &v, options, sizeof options);
    xgpu_kernel *kernel = NULL;
    st = xgpu__lib_kernel(queue->context, xgpu__kernel_reduce, options, "xgpu_reduce", &kernel);
    /* Scratch: groups partial values (8 bytes each at most), then indices. */
    xgpu_buffer *scratch = NULL;
    if (st == XGPU_SUCCESS) {
        st = xgpu__queue_scratch(queue, groups * 16, &scratch);
    }
    if (st == XGPU_SUCCESS && !queue->counter) {
        const uint32_t zero = 0;
        st = xgpu_buffer_create(queue->context, sizeof zero, &queue->counter);
        if (st == XGPU_SUCCESS) {
            st = xgpu_buffer_write(queue, queue->counter, 0, &zero, sizeof zero, true, NULL);
        }
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    size_t acc_size = op == XGPU_REDUCE_SUM && dtype == XGPU_I32 ? 8 : elem;
    uint32_t index_offset = (uint32_t)((groups * acc_size + 7) / 8);
    xgpu_arg args[] = {xgpu_arg_buffer(in),
                       xgpu_arg_u64(offset),
                       xgpu_arg_u64(n),
                       xgpu_arg_buffer(scratch),
                       xgpu_arg_buffer(scratch),
                       xgpu_arg_u32(index_offset),
                       xgpu_arg_buffer(queue->counter),
                       xgpu_arg_buffer(out),
                       xgpu_arg_buffer(out),
                       xgpu_arg_u64(out_offset)};
    xgpu_range range = xgpu_range_1d(groups, group);
    return xgpu_launch(queue, kernel, &range, sizeof args / sizeof args[0], args, event);
}
