/* The vendor BLAS (CLBlast, cuBLAS, rocBLAS) on xgpu buffers. */
#ifndef XGPU_VENDOR_BLAS_H
#define XGPU_VENDOR_BLAS_H

#include <xgpu.h>

#include <stdbool.h>
#include <stddef.h>

/* The precision of a vendor GEMM: A's and B's storage and the multiply. */
typedef enum vb_type {
    VB_F32,  /* SGEMM */
    VB_F64,  /* DGEMM */
    VB_TF32, /* f32 storage, tf32 multiply on matrix units (cuBLAS) */
    VB_F16,  /* f16 storage, fp32 accumulation (CLBlast: HGEMM, f16 throughout) */
    VB_BF16, /* bf16 storage, fp32 accumulation */
    VB_I8    /* int8 storage, int32 accumulation and C */
} vb_type;

/* "f32", "f64", "tf32", "f16", "bf16", "int8". */
const char *vb_type_name(vb_type type);

/* One vendor GEMM, row-major C (m x n) = A (m x k) B (k x n), every
 * matrix dense (ld = its row length). batch > 1: that many GEMMs, the
 * i-th at i * m * k, i * k * n and i * m * n elements (strided-batched). */
typedef struct vb_gemm_desc {
    vb_type type;
    size_t m, n, k, batch;
    xgpu_buffer *a, *b, *c;
} vb_gemm_desc;

/* What the library ran (filled whether it ran or not). */
typedef struct vb_gemm_info {
    char impl[16];    /* "cublas", "rocblas", "clblast", "vendor" */
    char c_dtype[8];  /* C's element type: "f32", "f64", "f16", "i32" */
    char acc[8];      /* accumulation: "f32", "f64", "f16", "i32" */
    char call[48];    /* the entry point: "cublasGemmStridedBatchedEx", ... */
    char reason[256]; /* why it did not run ("not run: ...", "failed: ..."), else "" */
} vb_gemm_info;

/* Enqueues the vendor's GEMM `d` on the queue of `device`: CLBlast
 * (opencl), cuBLAS (cuda), rocBLAS (hip), the last two with a handle of
 * the device's own. Thread-safe. 0 when enqueued; -1 with info->reason
 * when the library is missing, lacks the precision or this device does,
 * or the call failed. */
int vb_gemm_run(xgpu_queue *queue, const xgpu_device_info *device, const vb_gemm_desc *d,
                vb_gemm_info *info);

#endif
