/* xgpu_stream: the BabelStream kernels of kernels/stream.xgpu. */
#include "lib_int.h"

#include <stdio.h>

static const char *const kernel_names[] = {NULL,
                                           "xgpu_stream_copy",
                                           "xgpu_stream_mul",
                                           "xgpu_stream_add",
                                           "xgpu_stream_triad",
                                           "xgpu_stream_dot"};

/* Operation, dtype and n, then every buffer the operation uses. */
static xgpu_status check_stream(const char *func, const xgpu_queue *queue, xgpu_stream_op op,
                                xgpu_dtype dtype, const xgpu_buffer *a, const xgpu_buffer *b,
                                const xgpu_buffer *c, size_t n, const xgpu_buffer *out) {
    if (op < XGPU_STREAM_COPY || op > XGPU_STREAM_DOT) {
        return xgpu__fail(XGPU_ERROR_INVALID_ARGUMENT, "%s: op %d is not an xgpu_stream_op", func,
                          (int)op);
    }
    const xgpu_device_info *info = xgpu__context_info(xgpu__queue_context(queue));
    if (dtype != XGPU_F32 && dtype != XGPU_F64) {
        return xgpu__fail(XGPU_ERROR_UNSUPPORTED,
                          "%s: dtype %s: the stream kernels take f32 or f64", func,
                          xgpu_dtype_name(dtype));
    }
    xgpu_status st = xgpu__check_fp64(func, dtype, info);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    if (n == 0) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE, "%s: n is 0", func);
    }
    size_t elem = xgpu_dtype_size(dtype);
    if (n > SIZE_MAX / elem) {
        return xgpu__fail(XGPU_ERROR_INVALID_SIZE, "%s: n %zu overflows", func, n);
    }
    /* Which buffers each operation reads or writes. */
    bool use_a = op != XGPU_STREAM_MUL, use_b = op != XGPU_STREAM_COPY,
         use_c = op != XGPU_STREAM_DOT;
    st = XGPU_SUCCESS;
    if (use_a) {
        st = xgpu__lib_check_buffer(func, "a", queue, a, 0, n * elem);
    }
    if (st == XGPU_SUCCESS && use_b) {
        st = xgpu__lib_check_buffer(func, "b", queue, b, 0, n * elem);
    }
    if (st == XGPU_SUCCESS && use_c) {
        st = xgpu__lib_check_buffer(func, "c", queue, c, 0, n * elem);
    }
    if (st == XGPU_SUCCESS && op == XGPU_STREAM_DOT) {
        st = xgpu__lib_check_buffer(func, "out", queue, out, 0, elem);
    }
    return st;
}

/* The dot product: partial sums per group into the queue's scratch, then
 * one group adds them into out. */
static xgpu_status launch_dot(xgpu_queue *queue, xgpu_kernel *partial, const char *options,
                              xgpu_dtype dtype, xgpu_buffer *a, xgpu_buffer *b, size_t n,
                              xgpu_buffer *out, const xgpu_range *range, xgpu_event **event) {
    size_t groups = range->groups[0], group = range->group_size[0];
    xgpu_kernel *final = NULL;
    xgpu_buffer *scratch = NULL;
    xgpu_status st = xgpu__lib_kernel(xgpu__queue_context(queue), xgpu__kernel_stream, options,
                                      "xgpu_stream_dot_final", &final);
    if (st == XGPU_SUCCESS) {
        st = xgpu__queue_scratch(queue, groups * xgpu_dtype_size(dtype), &scratch);
    }
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu_arg args[] = {xgpu_arg_buffer(a), xgpu_arg_buffer(b), xgpu_arg_buffer(scratch),
                       xgpu_arg_u64(n)};
    st = xgpu_launch(queue, partial, range, 4, args, NULL);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu_arg fargs[] = {xgpu_arg_buffer(scratch), xgpu_arg_u32((uint32_t)groups),
                        xgpu_arg_buffer(out), xgpu_arg_u64(0)};
    xgpu_range one = xgpu_range_1d(1, group);
    return xgpu_launch(queue, final, &one, 4, fargs, event);
}

xgpu_status xgpu_stream(xgpu_queue *queue, xgpu_stream_op op, xgpu_dtype dtype, xgpu_buffer *a,
                        xgpu_buffer *b, xgpu_buffer *c, double scalar, size_t n, xgpu_buffer *out,
                        xgpu_event **event) {
    return xgpu__stream_run(__func__, queue, op, dtype, a, b, c, scalar, n, out, NULL, event);
}

xgpu_status xgpu__stream_run(const char *func, xgpu_queue *queue, xgpu_stream_op op,
                             xgpu_dtype dtype, xgpu_buffer *a, xgpu_buffer *b, xgpu_buffer *c,
                             double scalar, size_t n, xgpu_buffer *out,
                             const xgpu__tune_values *forced, xgpu_event **event) {
    if (event) {
        *event = NULL;
    }
    XGPU__CHECK_OR_RETURN(queue, XGPU__MAGIC_QUEUE, func, "queue");
    xgpu_status st = check_stream(func, queue, op, dtype, a, b, c, n, out);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    const xgpu_device_info *info = xgpu__context_info(xgpu__queue_context(queue));
    xgpu__tune_values v;
    bool set = false;
    if (forced) {
        v = *forced;
    } else if ((st = xgpu__lib_env_params(func, xgpu__queue_context(queue), XGPU__TK_STREAM, dtype,
                                          &v, &set)) != XGPU_SUCCESS) {
        return st;
    } else if (!set) {
        xgpu__tune_choice choice;
        st = xgpu__lib_choose(xgpu__queue_context(queue), XGPU__TK_STREAM, dtype,
                              xgpu__tune_class_of(XGPU__TK_STREAM, n * xgpu_dtype_size(dtype)),
                              &choice);
        if (st != XGPU_SUCCESS) {
            return st;
        }
        v = choice.values;
    }
    size_t group = v.v[0];
    char options[64];
    xgpu__stream_options(dtype, &v, options, sizeof options);
    xgpu_kernel *k = NULL;
    st = xgpu__lib_kernel(xgpu__queue_context(queue), xgpu__kernel_stream, options,
                          kernel_names[op], &k);
    if (st != XGPU_SUCCESS) {
        return st;
    }
    xgpu_arg s = dtype == XGPU_F64 ? xgpu_arg_f64(scalar) : xgpu_arg_f32((float)scalar);
    xgpu_arg nn = xgpu_arg_u64(n);
    size_t units = info->compute_units ? info->compute_units : 1;
    size_t groups = units * v.v[1], needed = (n + group - 1) / group;
    groups = groups > needed ? needed : groups;
    groups = groups > 4096 ? 4096 : groups;
    xgpu_range range = xgpu_range_1d(groups ? groups : 1, group);
    switch (op) {
    case XGPU_STREAM_COPY: {
        xgpu_arg args[] = {xgpu_arg_buffer(a), xgpu_arg_buffer(c), nn};
        return xgpu_launch(queue, k, &range, 3, args, event);
    }
    case XGPU_STREAM_MUL: {
        xgpu_arg args[] = {xgpu_arg_buffer(b), xgpu_arg_buffer(c), s, nn};
        return xgpu_launch(queue, k, &range, 4, args, event);
    }
    case XGPU_STREAM_ADD: {
        xgpu_arg args[] = {xgpu_arg_buffer(a), xgpu_arg_buffer(b), xgpu_arg_buffer(c), nn};
        return xgpu_launch(queue, k, &range, 4, args, event);
    }
    case XGPU_STREAM_TRIAD: {
        xgpu_arg args[] = {xgpu_arg_buffer(a), xgpu_arg_buffer(b), xgpu_arg_buffer(c), s, nn};
        return xgpu_launch(queue, k, &range, 5, args, event);
    }
    case XGPU_STREAM_DOT:
        break;
    }
    return launch_dot(queue, k, options, dtype, a, b, n, out, &range, event);
}
