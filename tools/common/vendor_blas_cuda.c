/* cuBLAS on xgpu buffers: SGEMM and DGEMM for f32 and f64, cublasGemmEx
 * and cublasGemmStridedBatchedEx for the mixed precisions, tf32 and int8
 * (and for batched f32/f64). Row-major C = A B is column-major
 * C^T = B^T A^T: every call swaps A and B and m and n. */
#include "vendor_blas_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cublasOperation_t, cublas_api.h: CUBLAS_OP_N = 0. */
enum { CUBLAS_OP_N = 0 };
/* cudaDataType_t, library_types.h (CUDA 11 and later): CUDA_R_32F = 0,
 * CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_8I = 3, CUDA_R_32I = 10,
 * CUDA_R_16BF = 14. */
enum { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_8I = 3, CUDA_R_32I = 10 };
enum { CUDA_R_16BF = 14 };
/* cublasComputeType_t, cublas_api.h (CUDA 11 and later). */
enum {
    CUBLAS_COMPUTE_32F = 68,
    CUBLAS_COMPUTE_64F = 70,
    CUBLAS_COMPUTE_32I = 72,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77
};
/* cublasGemmAlgo_t, cublas_api.h: CUBLAS_GEMM_DEFAULT = -1 (tensor cores
 * where the types allow them, since CUDA 11). */
enum { CUBLAS_GEMM_DEFAULT = -1 };

/* cublasGemmEx and cublasGemmStridedBatchedEx (cublas_api.h), the enums
 * as int (their C type). */
typedef int (*gemm_ex_fn)(void *handle, int transa, int transb, int m, int n, int k,
                          const void *alpha, const void *a, int atype, int lda, const void *b,
                          int btype, int ldb, const void *beta, void *c, int ctype, int ldc,
                          int compute, int algo);
typedef int (*gemm_sb_ex_fn)(void *handle, int transa, int transb, int m, int n, int k,
                             const void *alpha, const void *a, int atype, int lda,
                             long long stride_a, const void *b, int btype, int ldb,
                             long long stride_b, const void *beta, void *c, int ctype, int ldc,
                             long long stride_c, int batch, int compute, int algo);

/* A precision's types and the capability it needs. */
typedef struct cublas_types {
    int in, out, compute;
    int min_sm;
    const char *c_dtype, *acc;
} cublas_types;

static const cublas_types types[] = {
    [VB_F32] = {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 0, "f32", "f32"},
    [VB_F64] = {CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 0, "f64", "f64"},
    /* TF32 tensor cores: sm_80 and newer (NVIDIA A100 whitepaper). */
    [VB_TF32] = {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 80, "f32", "f32"},
    [VB_F16] = {CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 53, "f32", "f32"},
    /* bf16 tensor cores: sm_80 and newer. */
    [VB_BF16] = {CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 80, "f32", "f32"},
    /* int8 tensor cores (IMMA): sm_75 and newer (Turing whitepaper). */
    [VB_I8] = {CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 75, "i32", "i32"},
};

/* The legacy SGEMM/DGEMM for one f32/f64 GEMM, as 0.6.0's gpubench ran. */
static int legacy_gemm(const blas_call_state *bs, const vb_gemm_desc *d, const vb_native *nat) {
    const float one = 1.0f, zero = 0.0f;
    const double one64 = 1.0, zero64 = 0.0;
    int m = (int)d->m, n = (int)d->n, k = (int)d->k;
    if (d->type == VB_F64) {
        return bs->lib->dgemm(bs->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one64, nat->b, n,
                              nat->a, k, &zero64, nat->c, n);
    }
    return bs->lib->sgemm(bs->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, nat->b, n, nat->a, k,
                          &zero, nat->c, n);
}

int vb__cublas_gemm(const blas_call_state *bs, const xgpu_device_info *device,
                    const vb_gemm_desc *d, const vb_native *nat, vb_gemm_info *info) {
    const cublas_types *t = &types[d->type];
    const blas_lib *l = bs->lib;
    bool batched = d->batch > 1;
    bool legacy = !batched && (d->type == VB_F32 || (d->type == VB_F64 && l->dgemm));
    snprintf(info->c_dtype, sizeof info->c_dtype, "%s", t->c_dtype);
    snprintf(info->acc, sizeof info->acc, "%s", t->acc);
    snprintf(info->call, sizeof info->call, "%s",
             legacy    ? (d->type == VB_F64 ? "cublasDgemm_v2" : "cublasSgemm_v2")
             : batched ? "cublasGemmStridedBatchedEx"
                       : "cublasGemmEx");
    int sm = vb__sm_number(device->arch);
    if (t->min_sm && sm && sm < t->min_sm) {
        snprintf(info->reason, sizeof info->reason, "not run: cuBLAS %s needs sm_%d or newer (%s)",
                 vb_type_name(d->type), t->min_sm, device->arch);
        return -1;
    }
    void *fn = batched ? l->gemm_strided_ex : l->gemm_ex;
    if (!legacy && !fn) {
        snprintf(info->reason, sizeof info->reason, "not run: %.180s lacks %s", l->name,
                 info->call);
        return -1;
    }
    int st = l->set_stream(bs->handle, nat->queue);
    if (!st && legacy) {
        st = legacy_gemm(bs, d, nat);
    } else if (!st) {
        /* alpha and beta in the compute type: int32 for CUBLAS_COMPUTE_32I,
         * double for 64F, float otherwise (cublasGemmEx's table). */
        const float one = 1.0f, zero = 0.0f;
        const double one64 = 1.0, zero64 = 0.0;
        const int32_t one32 = 1, zero32 = 0;
        const void *alpha = d->type == VB_I8    ? (const void *)&one32
                            : d->type == VB_F64 ? (const void *)&one64
                                                : (const void *)&one;
        const void *beta = d->type == VB_I8    ? (const void *)&zero32
                           : d->type == VB_F64 ? (const void *)&zero64
                                               : (const void *)&zero;
        int m = (int)d->m, n = (int)d->n, k = (int)d->k;
        if (batched) {
            gemm_sb_ex_fn f;
            memcpy(&f, &fn, sizeof f);
            st = f(bs->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, alpha, nat->b, t->in, n,
                   (long long)(d->k * d->n), nat->a, t->in, k, (long long)(d->m * d->k), beta,
                   nat->c, t->out, n, (long long)(d->m * d->n), (int)d->batch, t->compute,
                   CUBLAS_GEMM_DEFAULT);
        } else {
            gemm_ex_fn f;
            memcpy(&f, &fn, sizeof f);
            st = f(bs->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, alpha, nat->b, t->in, n, nat->a,
                   t->in, k, beta, nat->c, t->out, n, t->compute, CUBLAS_GEMM_DEFAULT);
        }
    }
    if (st) {
        snprintf(info->reason, sizeof info->reason, "failed: cublas %s %s status %d",
                 vb_type_name(d->type), info->call, st);
        return -1;
    }
    return 0;
}
