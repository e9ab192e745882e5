/* y = alpha * x + y in single precision, with the result checked against a
 * double-precision host reference. Also shows pinned host memory and
 * timing with events. Usage: saxpy [selector] [n] */
#include <xgpu.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
    "XGPU_KERNEL void saxpy(xgpu_u32 n, float alpha, XGPU_GLOBAL const float *x,\n"
    "                       XGPU_GLOBAL float *y) {\n"
    "    for (xgpu_u32 i = xgpu_global_id(0); i < n; i += xgpu_global_size(0)) {\n"
    "        y[i] = fma(alpha, x[i], y[i]);\n"
    "    }\n"
    "}\n";

#define CHECK(call)                                                                                \
    do {                                                                                           \
        if ((call) != XGPU_SUCCESS) {                                                              \
            fprintf(stderr, "saxpy: %s: %s\n", #call, xgpu_last_error()->message);                 \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : (1u << 22) + 17;
    if (n == 0) {
        fprintf(stderr, "usage: saxpy [selector] [n > 0]\n");
        return 2;
    }
    const size_t bytes = (size_t)n * sizeof(float);
    const float alpha = 2.5f;
    int rc = 1;
    xgpu_device *dev = NULL;
    xgpu_context *ctx = NULL;
    xgpu_queue *q = NULL;
    xgpu_buffer *dx = NULL, *dy = NULL;
    xgpu_program *prog = NULL;
    xgpu_kernel *kern = NULL;
    xgpu_event *start = NULL, *end = NULL;
    float *x = NULL, *y = NULL;
    double *ref = malloc((size_t)n * sizeof *ref);
    CHECK(argc > 1 ? xgpu_device_select(argv[1], &dev) : xgpu_device_get(0, &dev));
    xgpu_device_info info;
    CHECK(xgpu_device_get_info(dev, &info, sizeof info));
    CHECK(xgpu_context_create(dev, &ctx));
    CHECK(xgpu_queue_create(ctx, &q));
    CHECK(xgpu_host_alloc(ctx, bytes, (void **)&x));
    CHECK(xgpu_host_alloc(ctx, bytes, (void **)&y));
    if (!ref) {
        fprintf(stderr, "saxpy: out of host memory\n");
        goto done;
    }
    srand(7);
    for (uint32_t i = 0; i < n; i++) {
        x[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
        y[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
        ref[i] = (double)alpha * x[i] + y[i];
    }
    CHECK(xgpu_buffer_create(ctx, bytes, &dx));
    CHECK(xgpu_buffer_create(ctx, bytes, &dy));
    CHECK(xgpu_buffer_write(q, dx, 0, x, bytes, false, NULL));
    /* Blocking: y is poisoned next, so this write must have read it. */
    CHECK(xgpu_buffer_write(q, dy, 0, y, bytes, true, NULL));
    for (uint32_t i = 0; i < n; i++) {
        y[i] = NAN; /* poison the host copy: the result must come back */
    }
    CHECK(xgpu_program_build(ctx, source, NULL, &prog));
    CHECK(xgpu_kernel_create(prog, "saxpy", &kern));
    xgpu_range range = xgpu_range_1d(info.compute_units ? 4 * info.compute_units : 64, 128);
    xgpu_arg args[] = {xgpu_arg_u32(n), xgpu_arg_f32(alpha), xgpu_arg_buffer(dx),
                       xgpu_arg_buffer(dy)};
    CHECK(xgpu_queue_record_event(q, &start));
    CHECK(xgpu_launch(q, kern, &range, 4, args, &end));
    CHECK(xgpu_buffer_read(q, dy, 0, y, bytes, true, NULL));
    double ms = 0;
    CHECK(xgpu_event_elapsed_ms(start, end, &ms));
    double max_err = 0;
    for (uint32_t i = 0; i < n; i++) {
        double e = fabs(y[i] - ref[i]) / fmax(fabs(ref[i]), 1e-3);
        max_err = isnan(e) ? INFINITY : fmax(max_err, e);
    }
    bool ok = max_err <= 4 * 1.2e-7;
    printf("saxpy on %s:%u (%s): n=%u, %.3f ms, %.2f GB/s, max rel err %.2e: %s\n", info.backend,
           info.backend_index, info.name, n, ms, ms > 0 ? 3.0 * (double)bytes / (ms * 1e6) : 0.0,
           max_err, ok ? "verified" : "FAILED");
    rc = ok ? 0 : 1;
done:
    xgpu_event_release(start);
    xgpu_event_release(end);
    xgpu_kernel_release(kern);
    xgpu_program_release(prog);
    xgpu_buffer_release(dx);
    xgpu_buffer_release(dy);
    if (ctx) {
        xgpu_host_free(ctx, x);
        xgpu_host_free(ctx, y);
    }
    xgpu_queue_release(q);
    xgpu_context_release(ctx);
    free(ref);
    return rc;
}
