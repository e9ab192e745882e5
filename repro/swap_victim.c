/* The victim of swap_parent.sh: builds r_source (y[i] = 2 i) `rounds`
 * times, runs each program once and counts the runs whose output is not
 * 2 i. Prints "wrong=<n> cached=<n> rounds=<n>". */
#include "common.h"

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 200, wrong = 0, cached = 0;
    r_open();
    xgpu_buffer *b;
    if (xgpu_buffer_create(r_ctx, 64 * sizeof(float), &b)) {
        return 2;
    }
    for (int i = 0; i < rounds; i++) {
        xgpu_program *p = NULL;
        xgpu_kernel *k = NULL;
        bool hit = false;
        float y[64];
        if (xgpu_program_build(r_ctx, r_source, NULL, &p) || xgpu_kernel_create(p, "affine", &k)) {
            fprintf(stderr, "%s\n", xgpu_last_error()->message);
            return 2;
        }
        xgpu_program_from_cache(p, &hit);
        xgpu_range r = xgpu_range_1d(1, 64);
        xgpu_arg args[] = {xgpu_arg_buffer(b), xgpu_arg_f32(2.0f), xgpu_arg_u32(64)};
        if (xgpu_launch(r_queue, k, &r, 3, args, NULL) ||
            xgpu_buffer_read(r_queue, b, 0, y, sizeof y, true, NULL)) {
            return 2;
        }
        wrong += y[5] != 10.0f;
        cached += hit;
        xgpu_kernel_release(k);
        xgpu_program_release(p);
    }
    xgpu_buffer_release(b);
    r_close();
    printf("wrong=%d cached=%d rounds=%d\n", wrong, cached, rounds);
    return 0;
}
