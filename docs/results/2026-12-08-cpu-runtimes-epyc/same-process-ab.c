/* In one process, on the first device: xgpu_reduce's f32 sum beside a
 * read kernel shaped like clpeak's global-bandwidth one (each work-item
 * sums 16 float16 loads, strided by the group or by the whole launch, and
 * writes one float), on the same buffer, the three alternating, one
 * untimed round first; host wall time of launch plus finish, median and
 * best of ROUNDS. OpenCL devices only (float16). No result is checked:
 * this measures reads, not sums.
 * Build: cc -O2 -std=c11 -I runtime/include same-process-ab.c -L build/lib -lxgpu
 * (the group must divide the MiB x 1024 work-items: every element is read once)
 * Usage: ab [MiB, default 256] [rounds, default 9, at most 64] [group, default 256] */
#define _GNU_SOURCE
#include <xgpu.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *source =
    "XGPU_KERNEL void peek_local(XGPU_GLOBAL const float16 *a, XGPU_GLOBAL float *b) {\n"
    "    size_t id = get_group_id(0) * get_local_size(0) * 16 + get_local_id(0);\n"
    "    float16 s = 0;\n"
    "    for (int i = 0; i < 16; i++) s += a[id + i * get_local_size(0)];\n"
    "    float8 h = s.lo + s.hi; float4 q = h.lo + h.hi; float2 t = q.lo + q.hi;\n"
    "    b[get_global_id(0)] = t.x + t.y;\n"
    "}\n"
    "XGPU_KERNEL void peek_global(XGPU_GLOBAL const float16 *a, XGPU_GLOBAL float *b) {\n"
    "    size_t id = get_global_id(0);\n"
    "    float16 s = 0;\n"
    "    for (int i = 0; i < 16; i++) s += a[id + i * get_global_size(0)];\n"
    "    float8 h = s.lo + s.hi; float4 q = h.lo + h.hi; float2 t = q.lo + q.hi;\n"
    "    b[get_global_id(0)] = t.x + t.y;\n"
    "}\n";

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
#define CK_OR_RETURN(c)                                                                            \
    do {                                                                                           \
        if ((c) != XGPU_SUCCESS) {                                                                 \
            fprintf(stderr, "%s: %s\n", #c, xgpu_last_error()->message);                           \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    int rounds = argc > 2 ? atoi(argv[2]) : 9;
    if (rounds < 1 || rounds > 64) {
        fprintf(stderr, "ab: rounds must be 1..64\n");
        return 2;
    }
    size_t local = argc > 3 ? strtoul(argv[3], NULL, 10) : 256;
    size_t bytes = mib << 20, n = bytes / 4;
    xgpu_device *dev;
    xgpu_context *ctx;
    xgpu_queue *q;
    xgpu_buffer *in, *out, *part;
    CK_OR_RETURN(xgpu_device_get(0, &dev));
    CK_OR_RETURN(xgpu_context_create(dev, &ctx));
    CK_OR_RETURN(xgpu_queue_create(ctx, &q));
    CK_OR_RETURN(xgpu_buffer_create(ctx, bytes, &in));
    CK_OR_RETURN(xgpu_buffer_create(ctx, 8, &out));
    size_t items = n / 16 / 16;
    if (items == 0 || local == 0 || items % local != 0) {
        fprintf(stderr, "ab: the group %zu does not divide the %zu work-items\n", local, items);
        return 2;
    }
    CK_OR_RETURN(xgpu_buffer_create(ctx, items * 4, &part));
    float *h = malloc(bytes);
    if (!h) {
        fprintf(stderr, "ab: no host memory for %zu MiB\n", mib);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        h[i] = (float)(rand() % 1024) / 1024.0f;
    CK_OR_RETURN(xgpu_buffer_write(q, in, 0, h, bytes, true, NULL));
    xgpu_program *p;
    xgpu_kernel *kl, *kg;
    CK_OR_RETURN(xgpu_program_build(ctx, source, NULL, &p));
    CK_OR_RETURN(xgpu_kernel_create(p, "peek_local", &kl));
    CK_OR_RETURN(xgpu_kernel_create(p, "peek_global", &kg));
    xgpu_range r = xgpu_range_1d(items / local, local);
    xgpu_arg args[] = {xgpu_arg_buffer(in), xgpu_arg_buffer(part)};
    double t[3][64];
    for (int w = -1; w < rounds; w++) {
        for (int k = 0; k < 3; k++) {
            double t0 = now_s();
            if (k == 0)
                CK_OR_RETURN(xgpu_reduce(q, XGPU_REDUCE_SUM, XGPU_F32, in, 0, n, out, 0, NULL));
            else
                CK_OR_RETURN(xgpu_launch(q, k == 1 ? kl : kg, &r, 2, args, NULL));
            CK_OR_RETURN(xgpu_queue_finish(q));
            if (w >= 0)
                t[k][w] = now_s() - t0;
        }
    }
    const char *name[3] = {"xgpu_reduce f32 sum", "clpeak-shaped, local stride",
                           "clpeak-shaped, global stride"};
    for (int k = 0; k < 3; k++) {
        qsort(t[k], (size_t)rounds, sizeof(double), cmp);
        double m = t[k][rounds / 2];
        printf("%-30s %7.2f GB/s (median of %d, %.3f ms; min %.2f GB/s)\n", name[k],
               bytes / m / 1e9, rounds, m * 1e3, bytes / t[k][0] / 1e9);
    }
    return 0;
}
