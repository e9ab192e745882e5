/* CLBlast on xgpu's OpenCL buffers: SGEMM, DGEMM and HGEMM (f16 in and
 * out, on devices that report fp16), one GEMM or strided-batched. CLBlast
 * has no bf16, tf32 or int8 GEMM. */
#include "vendor_blas_internal.h"

#include <stdio.h>

#if defined(VB_HAVE_CLBLAST)
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>

/* 1.0 and 0.0 as cl_half (IEEE binary16 bits). */
enum { HALF_ONE = 0x3c00, HALF_ZERO = 0 };

static CLBlastStatusCode one_gemm(const vb_gemm_desc *d, const vb_native *nat) {
    cl_command_queue q = nat->queue;
    cl_mem a = nat->a, b = nat->b, c = nat->c;
    size_t m = d->m, n = d->n, k = d->k;
    const CLBlastLayout row = CLBlastLayoutRowMajor;
    const CLBlastTranspose no = CLBlastTransposeNo;
    switch (d->type) {
    case VB_F64:
        return CLBlastDgemm(row, no, no, m, n, k, 1.0, a, 0, k, b, 0, n, 0.0, c, 0, n, &q, NULL);
    case VB_F16:
        return CLBlastHgemm(row, no, no, m, n, k, HALF_ONE, a, 0, k, b, 0, n, HALF_ZERO, c, 0, n,
                            &q, NULL);
    default:
        return CLBlastSgemm(row, no, no, m, n, k, 1.0f, a, 0, k, b, 0, n, 0.0f, c, 0, n, &q, NULL);
    }
}

static CLBlastStatusCode batched_gemm(const vb_gemm_desc *d, const vb_native *nat) {
    cl_command_queue q = nat->queue;
    cl_mem a = nat->a, b = nat->b, c = nat->c;
    size_t m = d->m, n = d->n, k = d->k, nb = d->batch;
    size_t sa = m * k, sb = k * n, sc = m * n;
    const CLBlastLayout row = CLBlastLayoutRowMajor;
    const CLBlastTranspose no = CLBlastTransposeNo;
    switch (d->type) {
    case VB_F64:
        return CLBlastDgemmStridedBatched(row, no, no, m, n, k, 1.0, a, 0, k, sa, b, 0, n, sb, 0.0,
                                          c, 0, n, sc, nb, &q, NULL);
    case VB_F16:
        return CLBlastHgemmStridedBatched(row, no, no, m, n, k, HALF_ONE, a, 0, k, sa, b, 0, n, sb,
                                          HALF_ZERO, c, 0, n, sc, nb, &q, NULL);
    default:
        return CLBlastSgemmStridedBatched(row, no, no, m, n, k, 1.0f, a, 0, k, sa, b, 0, n, sb,
                                          0.0f, c, 0, n, sc, nb, &q, NULL);
    }
}
#endif

int vb__clblast_gemm(const xgpu_device_info *device, const vb_gemm_desc *d, const vb_native *nat,
                     vb_gemm_info *info) {
    static const char *const calls[][2] = {
        [VB_F32] = {"CLBlastSgemm", "CLBlastSgemmStridedBatched"},
        [VB_F64] = {"CLBlastDgemm", "CLBlastDgemmStridedBatched"},
        [VB_F16] = {"CLBlastHgemm", "CLBlastHgemmStridedBatched"},
    };
    bool offered = d->type == VB_F32 || d->type == VB_F64 || d->type == VB_F16;
    const char *dt = d->type == VB_F64 ? "f64" : d->type == VB_F16 ? "f16" : "f32";
    snprintf(info->c_dtype, sizeof info->c_dtype, "%s", d->type == VB_I8 ? "i32" : dt);
    snprintf(info->acc, sizeof info->acc, "%s", dt); /* HGEMM accumulates in f16 */
    snprintf(info->call, sizeof info->call, "%s", offered ? calls[d->type][d->batch > 1] : "");
    if (!offered) {
        snprintf(info->reason, sizeof info->reason, "not run: CLBlast has no %s GEMM",
                 vb_type_name(d->type));
        return -1;
    }
    if (d->type == VB_F16 && !device->fp16) {
        snprintf(info->reason, sizeof info->reason,
                 "not run: CLBlast HGEMM needs fp16 arithmetic, which %.100s does not report",
                 device->name);
        return -1;
    }
#if defined(VB_HAVE_CLBLAST)
    CLBlastStatusCode st = d->batch > 1 ? batched_gemm(d, nat) : one_gemm(d, nat);
    if (st != CLBlastSuccess) {
        snprintf(info->reason, sizeof info->reason, "failed: clblast %s status %d", info->call,
                 (int)st);
        return -1;
    }
    return 0;
#else
    (void)nat;
    snprintf(info->reason, sizeof info->reason, "not run: built without CLBlast (libclblast-dev)");
    return -1;
#endif
}
