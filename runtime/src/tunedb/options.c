/* The build options of each library kernel from its parameter values:
 * one function per kernel source, shared by the routines (lib/), the
 * compile-matrix test and the tables the CUDA and HIP plugins carry. */
#include "tunedb_int.h"

#include <stdio.h>

void xgpu__gemm_options(xgpu_dtype dtype, const xgpu_gemm_params *p, char *out, size_t size) {
    snprintf(out, size, "-DGEMM_%s -DTSM=%u -DTSN=%u -DTSK=%u -DWPTM=%u -DWPTN=%u -DVW=%u%s",
             dtype == XGPU_F64 ? "F64" : (dtype == XGPU_F16 ? "F16" : "F32"), p->tile_m, p->tile_n,
             p->tile_k, p->work_m, p->work_n, xgpu__gemm_vector_width(dtype, p),
             p->contiguous == XGPU_GEMM_GPU         ? " -DGEMM_GPU"
             : p->contiguous == XGPU_GEMM_REGISTERS ? " -DGEMM_REG"
             : p->contiguous                        ? " -DCONTIG"
                                                    : "");
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

static const char *chunk_define(uint32_t chunked) {
    return chunked == 1 ? " -DCHUNKED" : chunked == 2 ? " -DGROUP_CHUNKED" : "";
}

/* chunked 1: a contiguous chunk per work-item; 2: a contiguous range per
 * group, its work-items interleaved. On the grid stride (chunked 0) and
 * with chunked 2, vec > 1 means 16-byte loads: the elements of one, 4 for
 * 32-bit types and 2 for 64-bit ones. */
void xgpu__reduce_options(xgpu_reduce_op op, xgpu_dtype dtype, const xgpu__tune_values *v,
                          char *out, size_t size) {
    uint32_t vec = v->v[3];
    if (v->v[4] != 1 && vec > 1) {
        vec = dtype == XGPU_F64 || dtype == XGPU_I64 ? 2 : 4;
    }
    snprintf(out, size, "-D%s -D%s -DGROUP=%u -DVEC=%u -DUNROLL=%u%s", dtype_define(dtype),
             op_define(op), v->v[0], vec, v->v[2], chunk_define(v->v[4]));
}

xgpu__tune_kernel_id xgpu__reduce_tune_id(xgpu_reduce_op op) {
    return op == XGPU_REDUCE_SUM      ? XGPU__TK_SUM
           : op == XGPU_REDUCE_ARGMAX ? XGPU__TK_ARGMAX
                                      : XGPU__TK_MINMAX;
}

void xgpu__stream_options(xgpu_dtype dtype, const xgpu__tune_values *v, char *out, size_t size) {
    snprintf(out, size, "-DSTREAM_%s -DGROUP=%u%s -DUNROLL=%u", dtype == XGPU_F64 ? "F64" : "F32",
             v->v[0], chunk_define(v->v[2]), v->v[3]);
}
