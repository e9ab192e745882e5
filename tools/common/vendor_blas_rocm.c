/* rocBLAS on xgpu buffers: rocblas_sgemm and rocblas_dgemm for f32 and
 * f64, rocblas_gemm_ex and rocblas_gemm_strided_batched_ex for f16, bf16
 * and int8 (and for batched f32/f64). Row-major C = A B is column-major
 * C^T = B^T A^T: every call swaps A and B and m and n. */
#include "vendor_blas_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* rocblas_operation, rocblas-types.h: rocblas_operation_none = 111. */
enum { ROCBLAS_OP_NONE = 111 };
/* rocblas_datatype, rocblas-types.h: f16_r = 150, f32_r = 151,
 * f64_r = 152, i8_r = 160, i32_r = 162, bf16_r = 168. */
enum { ROCBLAS_F16 = 150, ROCBLAS_F32 = 151, ROCBLAS_F64 = 152 };
enum { ROCBLAS_I8 = 160, ROCBLAS_I32 = 162, ROCBLAS_BF16 = 168 };
/* rocblas_gemm_algo, rocblas-types.h: rocblas_gemm_algo_standard = 0. */
enum { ROCBLAS_ALGO_STANDARD = 0 };

/* rocblas_gemm_ex and rocblas_gemm_strided_batched_ex (rocblas-functions.h):
 * D = alpha A B + beta C, here with D = C; rocblas_stride is int64_t. */
typedef int (*gemm_ex_fn)(void *handle, int transa, int transb, int m, int n, int k,
                          const void *alpha, const void *a, int atype, int lda, const void *b,
                          int btype, int ldb, const void *beta, const void *c, int ctype, int ldc,
                          void *d, int dtype, int ldd, int compute, int algo, int32_t solution,
                          uint32_t flags);
typedef int (*gemm_sb_ex_fn)(void *handle, int transa, int transb, int m, int n, int k,
                             const void *alpha, const void *a, int atype, int lda, int64_t stride_a,
                             const void *b, int btype, int ldb, int64_t stride_b, const void *beta,
                             const void *c, int ctype, int ldc, int64_t stride_c, void *d,
                             int dtype, int ldd, int64_t stride_d, int batch, int compute, int algo,
                             int32_t solution, uint32_t flags);

typedef struct rocblas_types {
    int in, out, compute; /* 0: rocBLAS has no such GEMM */
    const char *c_dtype, *acc;
} rocblas_types;

/* The pairs rocblas_gemm_ex lists (its "Supported types"). */
static const rocblas_types types[] = {
    [VB_F32] = {ROCBLAS_F32, ROCBLAS_F32, ROCBLAS_F32, "f32", "f32"},
    [VB_F64] = {ROCBLAS_F64, ROCBLAS_F64, ROCBLAS_F64, "f64", "f64"},
    [VB_TF32] = {0, 0, 0, "f32", "f32"},
    [VB_F16] = {ROCBLAS_F16, ROCBLAS_F32, ROCBLAS_F32, "f32", "f32"},
    [VB_BF16] = {ROCBLAS_BF16, ROCBLAS_F32, ROCBLAS_F32, "f32", "f32"},
    [VB_I8] = {ROCBLAS_I8, ROCBLAS_I32, ROCBLAS_I32, "i32", "i32"},
};

int vb__rocblas_gemm(const blas_call_state *bs, const xgpu_device_info *device,
                     const vb_gemm_desc *d, const vb_native *nat, vb_gemm_info *info) {
    (void)device;
    const rocblas_types *t = &types[d->type];
    const blas_lib *l = bs->lib;
    bool batched = d->batch > 1;
    bool legacy = !batched && (d->type == VB_F32 || (d->type == VB_F64 && l->dgemm));
    snprintf(info->c_dtype, sizeof info->c_dtype, "%s", t->c_dtype);
    snprintf(info->acc, sizeof info->acc, "%s", t->acc);
    snprintf(info->call, sizeof info->call, "%s",
             legacy    ? (d->type == VB_F64 ? "rocblas_dgemm" : "rocblas_sgemm")
             : batched ? "rocblas_gemm_strided_batched_ex"
                       : "rocblas_gemm_ex");
    if (!t->in) {
        snprintf(info->reason, sizeof info->reason, "not run: rocBLAS has no %s GEMM",
                 vb_type_name(d->type));
        return -1;
    }
    void *fn = batched ? l->gemm_strided_ex : l->gemm_ex;
    if (!legacy && !fn) {
        snprintf(info->reason, sizeof info->reason, "not run: %.180s lacks %s", l->name,
                 info->call);
        return -1;
    }
    const float one = 1.0f, zero = 0.0f;
    const double one64 = 1.0, zero64 = 0.0;
    const int32_t one32 = 1, zero32 = 0;
    int m = (int)d->m, n = (int)d->n, k = (int)d->k;
    int st = l->set_stream(bs->handle, nat->queue);
    if (!st && legacy) {
        st = d->type == VB_F64 ? l->dgemm(bs->handle, ROCBLAS_OP_NONE, ROCBLAS_OP_NONE, n, m, k,
                                          &one64, nat->b, n, nat->a, k, &zero64, nat->c, n)
                               : l->sgemm(bs->handle, ROCBLAS_OP_NONE, ROCBLAS_OP_NONE, n, m, k,
                                          &one, nat->b, n, nat->a, k, &zero, nat->c, n);
    } else if (!st) {
        /* alpha and beta in the compute type. */
        const void *alpha = d->type == VB_I8    ? (const void *)&one32
                            : d->type == VB_F64 ? (const void *)&one64
                                                : (const void *)&one;
        const void *beta = d->type == VB_I8    ? (const void *)&zero32
                           : d->type == VB_F64 ? (const void *)&zero64
                                               : (const void *)&zero;
        if (batched) {
            gemm_sb_ex_fn f;
            memcpy(&f, &fn, sizeof f);
            int64_t sa = (int64_t)(d->k * d->n), sb = (int64_t)(d->m * d->k);
            int64_t sc = (int64_t)(d->m * d->n);
            st = f(bs->handle, ROCBLAS_OP_NONE, ROCBLAS_OP_NONE, n, m, k, alpha, nat->b, t->in, n,
                   sa, nat->a, t->in, k, sb, beta, nat->c, t->out, n, sc, nat->c, t->out, n, sc,
                   (int)d->batch, t->compute, ROCBLAS_ALGO_STANDARD, 0, 0);
        } else {
            gemm_ex_fn f;
            memcpy(&f, &fn, sizeof f);
            st = f(bs->handle, ROCBLAS_OP_NONE, ROCBLAS_OP_NONE, n, m, k, alpha, nat->b, t->in, n,
                   nat->a, t->in, k, beta, nat->c, t->out, n, nat->c, t->out, n, t->compute,
                   ROCBLAS_ALGO_STANDARD, 0, 0);
        }
    }
    if (st) {
        snprintf(info->reason, sizeof info->reason, "failed: rocblas %s %s status %d",
                 vb_type_name(d->type), info->call, st);
        return -1;
    }
    return 0;
}
