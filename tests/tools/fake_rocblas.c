/* A stand-in librocblas.so.4 that records every GEMM gpubench's vendor
 * rows make and computes nothing: one line per call appended to the file
 * FAKE_ROCBLAS_RECORD names, with the types, compute type, algorithm,
 * operations, m n k, leading dimensions, strides, batch count and whether
 * rocblas_set_stream set a stream on the handle before it. Built
 * complete; test_gpubench_rocblas runs gpubench on a fake HIP device with
 * it. */
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
    const char *path = getenv("FAKE_ROCBLAS_RECORD");
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

EXPORT int rocblas_create_handle(void **handle) {
    fake_handle *h = calloc(1, sizeof *h);
    *handle = h;
    return h ? 0 : 5; /* rocblas_status_memory_error */
}

EXPORT int rocblas_set_stream(void *handle, void *stream) {
    ((fake_handle *)handle)->stream = stream;
    return 0;
}

static const char *stream_of(void *handle) {
    return ((fake_handle *)handle)->stream ? "set" : "none";
}

EXPORT int rocblas_sgemm(void *handle, int ta, int tb, int m, int n, int k, const float *alpha,
                         const void *a, int lda, const void *b, int ldb, const float *beta, void *c,
                         int ldc) {
    (void)a, (void)b, (void)c;
    record("sgemm ta=%d tb=%d m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g stream=%s", ta,
           tb, m, n, k, lda, ldb, ldc, *alpha, *beta, stream_of(handle));
    return 0;
}

EXPORT int rocblas_dgemm(void *handle, int ta, int tb, int m, int n, int k, const double *alpha,
                         const void *a, int lda, const void *b, int ldb, const double *beta,
                         void *c, int ldc) {
    (void)a, (void)b, (void)c;
    record("dgemm ta=%d tb=%d m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g stream=%s", ta,
           tb, m, n, k, lda, ldb, ldc, *alpha, *beta, stream_of(handle));
    return 0;
}

/* alpha in the compute type: int32 for i32_r (162), double for f64_r
 * (152), float otherwise. */
static double scalar(const void *p, int compute) {
    return compute == 162   ? *(const int32_t *)p
           : compute == 152 ? *(const double *)p
                            : *(const float *)p;
}

EXPORT int rocblas_gemm_ex(void *handle, int ta, int tb, int m, int n, int k, const void *alpha,
                           const void *a, int at, int lda, const void *b, int bt, int ldb,
                           const void *beta, const void *c, int ct, int ldc, void *d, int dt,
                           int ldd, int compute, int algo, int32_t solution, uint32_t flags) {
    (void)a, (void)b;
    record("gemm_ex ta=%d tb=%d m=%d n=%d k=%d at=%d lda=%d bt=%d ldb=%d ct=%d ldc=%d dt=%d "
           "ldd=%d d_is_c=%d compute=%d algo=%d solution=%d flags=%u alpha=%g beta=%g stream=%s",
           ta, tb, m, n, k, at, lda, bt, ldb, ct, ldc, dt, ldd, c == d, compute, algo, solution,
           flags, scalar(alpha, compute), scalar(beta, compute), stream_of(handle));
    return 0;
}

EXPORT int rocblas_gemm_strided_batched_ex(void *handle, int ta, int tb, int m, int n, int k,
                                           const void *alpha, const void *a, int at, int lda,
                                           int64_t sa, const void *b, int bt, int ldb, int64_t sb,
                                           const void *beta, const void *c, int ct, int ldc,
                                           int64_t sc, void *d, int dt, int ldd, int64_t sd,
                                           int batch, int compute, int algo, int32_t solution,
                                           uint32_t flags) {
    (void)a, (void)b;
    record("gemm_strided_batched_ex ta=%d tb=%d m=%d n=%d k=%d at=%d lda=%d sa=%lld bt=%d "
           "ldb=%d sb=%lld ct=%d ldc=%d sc=%lld dt=%d ldd=%d sd=%lld d_is_c=%d batch=%d "
           "compute=%d algo=%d solution=%d flags=%u alpha=%g beta=%g stream=%s",
           ta, tb, m, n, k, at, lda, (long long)sa, bt, ldb, (long long)sb, ct, ldc, (long long)sc,
           dt, ldd, (long long)sd, c == d, batch, compute, algo, solution, flags,
           scalar(alpha, compute), scalar(beta, compute), stream_of(handle));
    return 0;
}
