/* The key covers the source text, not the files it #includes: after a
 * header found through "-I" changes, the next build loads the old binary
 * from the cache and the kernel computes what the old header said.
 * Exit 0 when the second run sees the new header. */
#include "common.h"

#include <sys/stat.h>

static float run(const char *opts) {
    static const char *const src = "#include \"value.h\"\n"
                                   "XGPU_KERNEL void k(XGPU_GLOBAL float *y) { y[0] = VALUE; }\n";
    xgpu_program *p;
    xgpu_kernel *k;
    xgpu_buffer *b;
    float y = 0;
    bool hit = false;
    xgpu_range r = xgpu_range_1d(1, 1);
    if (xgpu_program_build(r_ctx, src, opts, &p) || xgpu_kernel_create(p, "k", &k) ||
        xgpu_buffer_create(r_ctx, sizeof y, &b)) {
        fprintf(stderr, "%s\n", xgpu_last_error()->message);
        exit(2);
    }
    xgpu_program_from_cache(p, &hit);
    xgpu_arg args[] = {xgpu_arg_buffer(b)};
    if (xgpu_launch(r_queue, k, &r, 1, args, NULL) ||
        xgpu_buffer_read(r_queue, b, 0, &y, sizeof y, true, NULL)) {
        exit(2);
    }
    printf("  %s: VALUE = %g\n", hit ? "from the cache" : "compiled", y);
    xgpu_buffer_release(b);
    xgpu_kernel_release(k);
    xgpu_program_release(p);
    return y;
}

static void header(const char *dir, int value) {
    char path[600];
    snprintf(path, sizeof path, "%s/value.h", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "#define VALUE %d.0f\n", value);
    fclose(f);
}

int main(void) {
    char dir[] = "/tmp/xgpu-repro-inc-XXXXXX", inc[] = "/tmp/xgpu-repro-hdr-XXXXXX";
    if (!mkdtemp(dir) || !mkdtemp(inc)) {
        return 2;
    }
    setenv("XGPU_CACHE_DIR", dir, 1);
    char opts[128];
    snprintf(opts, sizeof opts, "-I %s", inc);
    r_open();
    header(inc, 1);
    printf("value.h says 1:\n");
    run(opts);
    header(inc, 2);
    printf("value.h now says 2:\n");
    float y = run(opts);
    r_close();
    printf("%s\n", y == 2.0f ? "OK" : "FAIL: the kernel ran with the old header");
    return y != 2.0f;
}
