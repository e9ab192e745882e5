/* The measurement harness of this results folder (not part of xgpu's build):
 * times mk.cl's kernel on the first OpenCL device beside OpenBLAS's SGEMM on
 * the same inputs, and checks the result against OpenBLAS's. Build:
 *   gcc -O2 -o host host.c -lOpenCL -lopenblas -lm
 * Usage: ./host N BUILD-OPTIONS MR NR RB LOCAL   (sweep.sh runs the shapes) */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
#define CK(x)                                                                                      \
    do {                                                                                           \
        cl_int e_ = (x);                                                                           \
        if (e_) {                                                                                  \
            fprintf(stderr, "%s: %d\n", #x, e_);                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
int main(int argc, char **argv) {
    unsigned n = argc > 1 ? atoi(argv[1]) : 1024;
    const char *opts = argc > 2 ? argv[2] : "";
    int mr = argc > 3 ? atoi(argv[3]) : 6, nr = argc > 4 ? atoi(argv[4]) : 64,
        rb = argc > 5 ? atoi(argv[5]) : 1;
    size_t lx = argc > 6 ? atoi(argv[6]) : 1;
    unsigned M = (n / (mr * rb)) * mr * rb, N = (n / nr) * nr, K = n;
    cl_platform_id p;
    cl_device_id d;
    CK(clGetPlatformIDs(1, &p, NULL));
    CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
    cl_int e;
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    CK(e);
    cl_command_queue q = clCreateCommandQueue(ctx, d, 0, &e);
    CK(e);
    FILE *f = fopen("mk.cl", "r");
    static char src[1 << 16];
    size_t len = fread(src, 1, sizeof src, f);
    src[len] = 0;
    fclose(f);
    const char *s = src;
    cl_program pr = clCreateProgramWithSource(ctx, 1, &s, NULL, &e);
    CK(e);
    if (clBuildProgram(pr, 1, &d, opts, NULL, NULL)) {
        char log[1 << 16];
        clGetProgramBuildInfo(pr, d, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        puts(log);
        return 1;
    }
    cl_kernel k = clCreateKernel(pr, "mk", &e);
    CK(e);
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N),
          *c = malloc(sizeof(float) * M * N), *r = malloc(sizeof(float) * M * N);
    srand(1);
    for (size_t i = 0; i < (size_t)M * K; i++)
        a[i] = rand() / (float)RAND_MAX - 0.5f;
    for (size_t i = 0; i < (size_t)K * N; i++)
        b[i] = rand() / (float)RAND_MAX - 0.5f;
    cl_mem A = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 4ul * M * K, a, &e);
    CK(e);
    cl_mem B = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 4ul * K * N, b, &e);
    CK(e);
    cl_mem C = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4ul * M * N, NULL, &e);
    CK(e);
    cl_uint lda = K, ldb = N, ldc = N;
    CK(clSetKernelArg(k, 0, 4, &M));
    CK(clSetKernelArg(k, 1, 4, &N));
    CK(clSetKernelArg(k, 2, 4, &K));
    CK(clSetKernelArg(k, 3, sizeof A, &A));
    CK(clSetKernelArg(k, 4, 4, &lda));
    CK(clSetKernelArg(k, 5, sizeof B, &B));
    CK(clSetKernelArg(k, 6, 4, &ldb));
    CK(clSetKernelArg(k, 7, sizeof C, &C));
    CK(clSetKernelArg(k, 8, 4, &ldc));
    size_t g[2] = {M / (mr * rb), N / nr}, l[2] = {lx, 1};
    double t0 = now();
    CK(clEnqueueNDRangeKernel(q, k, 2, NULL, g, l, 0, NULL, NULL));
    CK(clFinish(q));
    double first = now() - t0;
    double best = 1e9, ts[20];
    int reps = 0;
    double tstart = now();
    while (reps < 20 && (reps < 3 || now() - tstart < 2.0)) {
        t0 = now();
        CK(clEnqueueNDRangeKernel(q, k, 2, NULL, g, l, 0, NULL, NULL));
        CK(clFinish(q));
        ts[reps++] = now() - t0;
    }
    for (int i = 0; i < reps; i++)
        for (int j = i + 1; j < reps; j++)
            if (ts[j] < ts[i]) {
                double x = ts[i];
                ts[i] = ts[j];
                ts[j] = x;
            }
    best = ts[reps / 2];
    CK(clEnqueueReadBuffer(q, C, CL_TRUE, 0, 4ul * M * N, c, 0, NULL, NULL));
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1, a, K, b, N, 0, r, N);
    double maxerr = 0;
    for (size_t i = 0; i < (size_t)M * N; i++) {
        double d2 = fabs(c[i] - r[i]);
        if (d2 > maxerr)
            maxerr = d2;
    }
    t0 = now();
    int br = 0;
    double tb[20];
    while (br < 10) {
        double t1 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1, a, K, b, N, 0, r, N);
        tb[br++] = now() - t1;
    }
    for (int i = 0; i < br; i++)
        for (int j = i + 1; j < br; j++)
            if (tb[j] < tb[i]) {
                double x = tb[i];
                tb[i] = tb[j];
                tb[j] = x;
            }
    double fl = 2.0 * M * N * K;
    printf("M=%u N=%u K=%u %s mr=%d nr=%d rb=%d lx=%zu: proto %.1f GFLOP/s (median of %d, first "
           "%.2fs), openblas %.1f, ratio %.2f, maxerr %.2g\n",
           M, N, K, opts, mr, nr, rb, lx, fl / best / 1e9, reps, first, fl / tb[br / 2] / 1e9,
           (fl / best) / (fl / tb[br / 2]), maxerr);
    return 0;
}
