/* Every kernel variant the library routines build with their default
 * parameters: what the compile matrix compiles for each target, and what
 * the CUDA plugin carries as PTX for machines without NVRTC. */
#include "lib_int.h"

#include <stdio.h>
#include <string.h>

static void add(xgpu__lib_variant *out, size_t max, size_t *n, const char *name, const char *source,
                const char *options) {
    for (size_t i = 0; i < *n && i < max; i++) {
        if (out[i].source == source && !strcmp(out[i].options, options)) {
            return; /* the same build twice */
        }
    }
    if (*n < max) {
        out[*n].name = name;
        out[*n].source = source;
        snprintf(out[*n].options, sizeof out[*n].options, "%s", options);
    }
    (*n)++;
}

size_t xgpu__lib_variants(bool cpu, xgpu__lib_variant *out, size_t max) {
    size_t n = 0;
    char opt[256];
    static const xgpu_dtype gemm_types[] = {XGPU_F32, XGPU_F64, XGPU_F16};
    for (size_t t = 0; t < sizeof gemm_types / sizeof gemm_types[0]; t++) {
        xgpu_gemm_params sets[4];
        size_t count = xgpu__gemm_param_sets(cpu, gemm_types[t], sets, 4);
        for (size_t s = 0; s < count; s++) {
            xgpu__gemm_options(gemm_types[t], &sets[s], opt, sizeof opt);
            add(out, max, &n, "gemm", xgpu__kernel_gemm, opt);
        }
    }
    /* The built-in values of a device class without limits. */
    xgpu_device_info info = {.type = cpu ? XGPU_DEVICE_TYPE_CPU : XGPU_DEVICE_TYPE_GPU};
    static const xgpu_dtype red_types[] = {XGPU_F32, XGPU_F64, XGPU_I32, XGPU_I64};
    for (size_t t = 0; t < sizeof red_types / sizeof red_types[0]; t++) {
        for (int op = XGPU_REDUCE_SUM; op <= XGPU_REDUCE_ARGMAX; op++) {
            xgpu__tune_values v;
            xgpu__tune_builtin(xgpu__reduce_tune_id((xgpu_reduce_op)op), red_types[t], &info, &v);
            xgpu__reduce_options((xgpu_reduce_op)op, red_types[t], &v, opt, sizeof opt);
            add(out, max, &n, "reduce", xgpu__kernel_reduce, opt);
        }
    }
    for (int f64 = 0; f64 < 2; f64++) {
        xgpu__tune_values v;
        xgpu__tune_builtin(XGPU__TK_STREAM, f64 ? XGPU_F64 : XGPU_F32, &info, &v);
        xgpu__stream_options(f64 ? XGPU_F64 : XGPU_F32, &v, opt, sizeof opt);
        add(out, max, &n, "stream", xgpu__kernel_stream, opt);
    }
    return n;
}
