/* kernelbench internals. */
#ifndef XGPU_KB_H
#define XGPU_KB_H

#include <xgpu.h>

typedef struct kb_options {
    const char *selector;
    int reps;
    size_t gemm_sizes[8];
    int gemm_count;
    size_t reduce_mib;
} kb_options;

typedef struct kb_env {
    xgpu_device *device;
    xgpu_device_info info;
    xgpu_context *ctx;
    xgpu_queue *queue;
} kb_env;

/* A context and queue on `device`; 0, or -1 said on stderr. */
int kb_open(kb_env *env, xgpu_device *device);
void kb_close(kb_env *env);
double kb_median(double *v, int n);
int kb_check_gemm(const float *a, const float *b, const float *c, size_t n, double *max_rel);
int kb_gemm(kb_env *env, const kb_options *o, size_t n);
int kb_reduce(kb_env *env, const kb_options *o);
/* The vendor BLAS SGEMM (CLBlast, cuBLAS or rocBLAS by backend) on xgpu's
 * buffers and queue: 0 when it ran (times in seconds, result in c), -1
 * with a reason when it is not available. *impl names it. */
int kb_vendor_sgemm(kb_env *env, size_t n, xgpu_buffer *a, xgpu_buffer *b, xgpu_buffer *c, int reps,
                    double *times, char *impl, size_t impl_size, char *reason, size_t reason_size);

#endif
