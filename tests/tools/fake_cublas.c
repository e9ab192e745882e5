/* A stand-in libcublas.so.13 that records every GEMM gpubench's vendor
 * rows make and computes nothing: one line per call appended to the file
 * FAKE_CUBLAS_RECORD names, with the types, compute type, algorithm,
 * transposes, m n k, leading dimensions, strides, batch count and the
 * stream cublasSetStream_v2 set on the handle before it. Built complete;
 * test_gpubench_cublas runs gpubench on a fake CUDA device with it. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct fake_handle {
    void *stream;
} fake_handle;

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void record(const char *fmt, ...) {
    const char *path = getenv("FAKE_CUBLAS_RECORD");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

EXPORT int cublasCreate_v2(void **handle) {
    fake_handle *h = calloc(1, sizeof *h);
    *handle = h;
    return h ? 0 : 3; /* CUBLAS_STATUS_ALLOC_FAILED */
}

EXPORT int cublasSetStream_v2(void *handle, void *stream) {
    ((fake_handle *)handle)->stream = stream;
    return 0;
}

static void *stream_of(void *handle) {
    return ((fake_handle *)handle)->stream;
}

EXPORT int cublasSgemm_v2(void *handle, int ta, int tb, int m, int n, int k, const float *alpha,
                          const void *a, int lda, const void *b, int ldb, const float *beta,
                          void *c, int ldc) {
    (void)a, (void)b, (void)c;
    record("Sgemm ta=%d tb=%d m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g stream=%s", ta,
           tb, m, n, k, lda, ldb, ldc, *alpha, *beta, stream_of(handle) ? "set" : "none");
    return 0;
}

EXPORT int cublasDgemm_v2(void *handle, int ta, int tb, int m, int n, int k, const double *alpha,
                          const void *a, int lda, const void *b, int ldb, const double *beta,
                          void *c, int ldc) {
    (void)a, (void)b, (void)c;
    record("Dgemm ta=%d tb=%d m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g stream=%s", ta,
           tb, m, n, k, lda, ldb, ldc, *alpha, *beta, stream_of(handle) ? "set" : "none");
    return 0;
}

/* alpha's value in the compute type: int32 for CUBLAS_COMPUTE_32I (72),
 * double for 64F (70), float otherwise. */
static double scalar(const void *p, int compute) {
    return compute == 72   ? *(const int32_t *)p
           : compute == 70 ? *(const double *)p
                           : *(const float *)p;
}

EXPORT int cublasGemmEx(void *handle, int ta, int tb, int m, int n, int k, const void *alpha,
                        const void *a, int atype, int lda, const void *b, int btype, int ldb,
                        const void *beta, void *c, int ctype, int ldc, int compute, int algo) {
    (void)a, (void)b, (void)c;
    record("GemmEx ta=%d tb=%d m=%d n=%d k=%d atype=%d lda=%d btype=%d ldb=%d ctype=%d ldc=%d "
           "compute=%d algo=%d alpha=%g beta=%g stream=%s",
           ta, tb, m, n, k, atype, lda, btype, ldb, ctype, ldc, compute, algo,
           scalar(alpha, compute), scalar(beta, compute), stream_of(handle) ? "set" : "none");
    return 0;
}

EXPORT int cublasGemmStridedBatchedEx(void *handle, int ta, int tb, int m, int n, int k,
                                      const void *alpha, const void *a, int atype, int lda,
                                      long long sa, const void *b, int btype, int ldb, long long sb,
                                      const void *beta, void *c, int ctype, int ldc, long long sc,
                                      int batch, int compute, int algo) {
    (void)a, (void)b, (void)c;
    record("GemmStridedBatchedEx ta=%d tb=%d m=%d n=%d k=%d atype=%d lda=%d sa=%lld btype=%d "
           "ldb=%d sb=%lld ctype=%d ldc=%d sc=%lld batch=%d compute=%d algo=%d alpha=%g beta=%g "
           "stream=%s",
           ta, tb, m, n, k, atype, lda, sa, btype, ldb, sb, ctype, ldc, sc, batch, compute, algo,
           scalar(alpha, compute), scalar(beta, compute), stream_of(handle) ? "set" : "none");
    return 0;
}
