/* The first GPU program: allocate, copy in, launch, copy back, verify.
 * Runs on the device named by argv[1] (a selector such as "opencl:0"), or
 * on device 0. */
#include <xgpu.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
    "XGPU_KERNEL void vector_add(XGPU_GLOBAL const float *a, XGPU_GLOBAL const float *b,\n"
    "                            XGPU_GLOBAL float *c, xgpu_u32 n) {\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (i < n) {\n"
    "        c[i] = a[i] + b[i];\n"
    "    }\n"
    "}\n";

#define CHECK(call)                                                                                \
    do {                                                                                           \
        if ((call) != XGPU_SUCCESS) {                                                              \
            fprintf(stderr, "vector_add: %s: %s\n", #call, xgpu_last_error()->message);            \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    const uint32_t n = 1000003; /* not a multiple of the group size */
    const size_t bytes = n * sizeof(float);
    int rc = 1;
    xgpu_device *dev = NULL;
    xgpu_context *ctx = NULL;
    xgpu_queue *q = NULL;
    xgpu_buffer *da = NULL, *db = NULL, *dc = NULL;
    xgpu_program *prog = NULL;
    xgpu_kernel *kern = NULL;
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "vector_add: out of host memory\n");
        goto done;
    }
    srand(42);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)rand() / (float)RAND_MAX - 0.5f;
        b[i] = (float)rand() / (float)RAND_MAX + 1.0f;
        c[i] = NAN; /* poison: a missed element cannot pass */
    }
    CHECK(argc > 1 ? xgpu_device_select(argv[1], &dev) : xgpu_device_get(0, &dev));
    xgpu_device_info info;
    CHECK(xgpu_device_get_info(dev, &info, sizeof info));
    CHECK(xgpu_context_create(dev, &ctx));
    CHECK(xgpu_queue_create(ctx, &q));
    CHECK(xgpu_buffer_create(ctx, bytes, &da));
    CHECK(xgpu_buffer_create(ctx, bytes, &db));
    CHECK(xgpu_buffer_create(ctx, bytes, &dc));
    CHECK(xgpu_buffer_write(q, da, 0, a, bytes, false, NULL));
    CHECK(xgpu_buffer_write(q, db, 0, b, bytes, false, NULL));
    CHECK(xgpu_buffer_write(q, dc, 0, c, bytes, false, NULL));
    CHECK(xgpu_program_build(ctx, source, NULL, &prog));
    CHECK(xgpu_kernel_create(prog, "vector_add", &kern));
    const size_t group = 64;
    xgpu_range range = xgpu_range_1d((n + group - 1) / group, group);
    xgpu_arg args[] = {xgpu_arg_buffer(da), xgpu_arg_buffer(db), xgpu_arg_buffer(dc),
                       xgpu_arg_u32(n)};
    CHECK(xgpu_launch(q, kern, &range, 4, args, NULL));
    CHECK(xgpu_buffer_read(q, dc, 0, c, bytes, true, NULL));
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (c[i] != a[i] + b[i]) { /* one IEEE addition: exact on every target */
            if (bad++ < 5) {
                fprintf(stderr, "vector_add: c[%u] = %g, expected %g\n", i, c[i], a[i] + b[i]);
            }
        }
    }
    printf("vector_add on %s:%u (%s): %u elements, %s\n", info.backend, info.backend_index,
           info.name, n, bad ? "FAILED" : "verified");
    rc = bad ? 1 : 0;
done:
    xgpu_kernel_release(kern);
    xgpu_program_release(prog);
    xgpu_buffer_release(da);
    xgpu_buffer_release(db);
    xgpu_buffer_release(dc);
    xgpu_queue_release(q);
    xgpu_context_release(ctx);
    free(a);
    free(b);
    free(c);
    return rc;
}
