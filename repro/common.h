/* Shared by the cache reproducers: one OpenCL (pocl) context and a build
 * of a small kernel that says whether it came from the cache. */
#define _GNU_SOURCE
#include <xgpu.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static xgpu_context *r_ctx;
static xgpu_queue *r_queue;

static const char *const r_source =
    "XGPU_KERNEL void affine(XGPU_GLOBAL float *y, float a, xgpu_u32 n) {\n"
    "    xgpu_u32 i = xgpu_global_id(0);\n"
    "    if (i < n) y[i] = a * (float)i;\n"
    "}\n";

static inline void r_open(void) {
    xgpu_device *dev;
    if (xgpu_device_select("opencl:0", &dev) || xgpu_context_create(dev, &r_ctx) ||
        xgpu_queue_create(r_ctx, &r_queue)) {
        fprintf(stderr, "setup: %s\n", xgpu_last_error()->message);
        exit(2);
    }
}

/* 1 from the cache, 0 compiled, -1 failed. */
static inline int r_build(const char *src, const char *options) {
    xgpu_program *p = NULL;
    bool cached = false;
    if (xgpu_program_build(r_ctx, src, options, &p) != XGPU_SUCCESS) {
        fprintf(stderr, "build: %s\n", xgpu_last_error()->message);
        return -1;
    }
    xgpu_program_from_cache(p, &cached);
    xgpu_program_release(p);
    return cached;
}

/* The first entry file in `dir` into `out`; 0 when none. */
static inline int r_entry(const char *dir, char *out, size_t size) {
    DIR *d = opendir(dir);
    struct dirent *de;
    int found = 0;
    while (d && (de = readdir(d)) != NULL && !found) {
        if (strstr(de->d_name, ".xkc")) {
            snprintf(out, size, "%s/%s", dir, de->d_name);
            found = 1;
        }
    }
    if (d) {
        closedir(d);
    }
    return found;
}

static inline void r_close(void) {
    xgpu_queue_release(r_queue);
    xgpu_context_release(r_ctx);
}
