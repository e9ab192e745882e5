/* The vendor BLAS (CLBlast, cuBLAS, rocBLAS) on xgpu buffers. */
#ifndef XGPU_VENDOR_BLAS_H
#define XGPU_VENDOR_BLAS_H

#include <xgpu.h>

/* Enqueues the vendor's row-major GEMM C (m x n) = A (m x k) B (k x n),
 * f32 (SGEMM) or f64 (DGEMM), on the queue of `device`: CLBlast (opencl),
 * cuBLAS (cuda), rocBLAS (hip), the last two with a handle of the device's
 * own. Thread-safe. 0 when enqueued; -1 with a reason when the library is
 * missing or failed, or for another dtype. *impl names the library either
 * way. */
int vb_gemm(xgpu_queue *queue, const xgpu_device_info *device, xgpu_dtype dtype, size_t m, size_t n,
            size_t k, xgpu_buffer *a, xgpu_buffer *b, xgpu_buffer *c, char *impl, size_t impl_size,
            char *reason, size_t reason_size);

#endif
