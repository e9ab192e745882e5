/* What vendor_blas.c (loading, handles, the lock, dispatch) shares with
 * the per-library files: vendor_blas_cuda.c (cuBLAS), vendor_blas_rocm.c
 * (rocBLAS) and vendor_blas_clblast.c. Private to those files. */
#ifndef XGPU_VENDOR_BLAS_INTERNAL_H
#define XGPU_VENDOR_BLAS_INTERNAL_H

#include "pyfolders.h"
#include "vendor_blas.h"

#include <stdbool.h>

/* cublasSgemm_v2 and rocblas_sgemm share this shape (handle, two
 * operations, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc). */
typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const void *, int,
                        const void *, int, const float *, void *, int);
typedef int (*dgemm_fn)(void *, int, int, int, int, int, const double *, const void *, int,
                        const void *, int, const double *, void *, int);

/* A handle is tied to the device context current when it was made
 * (cuBLAS and rocBLAS alike): one per device, made on the device's first
 * GEMM, kept for the process. */
enum { VB_MAX_DEVICES = 64 };

typedef struct blas_lib {
    bool tried;       /* loading was attempted; `failed` says how */
    char failed[512]; /* the reason, "" when loaded */
    char name[XGPU_PYFOLDER_SIZE + 32];
    int (*create)(void **handle);
    int (*set_stream)(void *handle, void *stream);
    sgemm_fn sgemm;
    dgemm_fn dgemm;
    /* Optional (NULL: that precision is not run): cublasGemmEx and
     * cublasGemmStridedBatchedEx, rocblas_gemm_ex and
     * rocblas_gemm_strided_batched_ex, cast by the library's file. */
    void *gemm_ex, *gemm_strided_ex;
    void *handles[VB_MAX_DEVICES];
} blas_lib;

/* The call's view: the library and this device's handle. */
typedef struct blas_call_state {
    const blas_lib *lib;
    void *handle;
} blas_call_state;

/* The native handles of the call's queue and buffers. */
typedef struct vb_native {
    void *queue, *a, *b, *c;
} vb_native;

/* Each library's GEMM, called with vendor_blas.c's lock held: fills
 * info's c_dtype, acc and call, enqueues `d` and returns 0, or -1 with
 * info->reason (the precision not offered, or the library's status). */
int vb__cublas_gemm(const blas_call_state *bs, const xgpu_device_info *device,
                    const vb_gemm_desc *d, const vb_native *nat, vb_gemm_info *info);
int vb__rocblas_gemm(const blas_call_state *bs, const xgpu_device_info *device,
                     const vb_gemm_desc *d, const vb_native *nat, vb_gemm_info *info);
/* Without CLBlast in the build: -1, "not run: built without CLBlast". */
int vb__clblast_gemm(const xgpu_device_info *device, const vb_gemm_desc *d, const vb_native *nat,
                     vb_gemm_info *info);

/* The compute capability of a CUDA device ("sm_90": 90), 0 when unknown. */
int vb__sm_number(const char *arch);

#endif
