/* Every kernel variant the library routines build with their default
 * parameters: what the compile matrix compiles for each target, and what
 * the CUDA plugin carries as PTX for machines without NVRTC. */
#include "lib_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_for(xgpu__lib_variant *out, size_t max, size_t *n, const char *name,
                    const char *source, const char *options, const char *backend, int cuda_arch,
                    const char *hip_archs) {
    for (size_t i = 0; i < *n && i < max; i++) {
        if (out[i].source == source && !strcmp(out[i].options, options)) {
            return; /* the same build twice */
        }
    }
    if (*n < max) {
        out[*n].name = name;
        out[*n].source = source;
        snprintf(out[*n].options, sizeof out[*n].options, "%s", options);
        out[*n].backend = backend;
        out[*n].cuda_arch = cuda_arch;
        out[*n].hip_archs = hip_archs;
    }
    (*n)++;
}

static void add(xgpu__lib_variant *out, size_t max, size_t *n, const char *name, const char *source,
                const char *options) {
    add_for(out, max, n, name, source, options, NULL, 0, NULL);
}

bool xgpu__lib_variant_builds_for(const xgpu__lib_variant *v, const char *backend,
                                  const char *arch) {
    if (v->backend && strcmp(v->backend, backend)) {
        return false;
    }
    if (!strcmp(backend, "cuda") && v->cuda_arch) {
        return arch && !strncmp(arch, "sm_", 3) && atoi(arch + 3) >= v->cuda_arch;
    }
    if (!strcmp(backend, "hip") && v->hip_archs) {
        if (!arch) {
            return false;
        }
        size_t len = strlen(arch);
        for (const char *p = strstr(v->hip_archs, arch); p; p = strstr(p + 1, arch)) {
            if ((p == v->hip_archs || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) {
                return true;
            }
        }
        return false;
    }
    return true;
}

/* The fragment GEMM with its built-in parameters: the fragments path on
 * every device class, the matrix-unit paths on GPUs (mma.sync: CUDA
 * compute_80 and newer; MFMA: gfx908 for f16, gfx90a for f16 and bf16).
 * C in f32 and, for 16-bit inputs, in the input type. */
static void add_gemm_mma(bool cpu, xgpu__lib_variant *out, size_t max, size_t *n) {
    static const xgpu_dtype ins[] = {XGPU_F16, XGPU_BF16, XGPU_F32};
    static const char *const paths[] = {"fragments", "mma.sync", "mfma"};
    xgpu_device_info info = {.type = cpu ? XGPU_DEVICE_TYPE_CPU : XGPU_DEVICE_TYPE_GPU};
    char opt[256];
    for (size_t t = 0; t < sizeof ins / sizeof ins[0]; t++) {
        for (size_t p = 0; p < (cpu ? 1 : 3); p++) {
            if (ins[t] == XGPU_F32 && p == 2) {
                continue; /* MFMA has no tf32 */
            }
            xgpu_gemm_params params;
            xgpu__gemm_mma_builtin(&info, ins[t], paths[p], &params);
            for (int o = 0; o < (ins[t] == XGPU_F32 ? 1 : 2); o++) {
                xgpu__gemm_mma_options(ins[t], o ? ins[t] : XGPU_F32, paths[p], &params, opt,
                                       sizeof opt);
                add_for(out, max, n, "gemm_mma", xgpu__kernel_gemm_mma, opt,
                        p == 0 ? NULL : (p == 1 ? "cuda" : "hip"), p == 1 ? 80 : 0,
                        p == 2 ? (ins[t] == XGPU_F16 ? "gfx908 gfx90a" : "gfx90a") : NULL);
            }
        }
    }
}

/* The reductions' and stream kernels' built-in variants on `info`, both
 * size classes (the same build once). */
static void add_bandwidth(const xgpu_device_info *info, xgpu__lib_variant *out, size_t max,
                          size_t *n) {
    char opt[256];
    static const xgpu_dtype red_types[] = {XGPU_F32, XGPU_F64, XGPU_I32, XGPU_I64};
    for (int c = 0; c < XGPU__TC_COUNT; c++) {
        xgpu__tune_class cls = (xgpu__tune_class)c;
        for (size_t t = 0; t < sizeof red_types / sizeof red_types[0]; t++) {
            for (int op = XGPU_REDUCE_SUM; op <= XGPU_REDUCE_ARGMAX; op++) {
                xgpu__tune_values v;
                xgpu__tune_builtin(xgpu__reduce_tune_id((xgpu_reduce_op)op), red_types[t], cls,
                                   info, &v);
                xgpu__reduce_options((xgpu_reduce_op)op, red_types[t], &v, opt, sizeof opt);
                add(out, max, n, "reduce", xgpu__kernel_reduce, opt);
            }
        }
        for (int f64 = 0; f64 < 2; f64++) {
            xgpu__tune_values v;
            xgpu__tune_builtin(XGPU__TK_STREAM, f64 ? XGPU_F64 : XGPU_F32, cls, info, &v);
            xgpu__stream_options(f64 ? XGPU_F64 : XGPU_F32, &v, opt, sizeof opt);
            add(out, max, n, "stream", xgpu__kernel_stream, opt);
        }
    }
}

size_t xgpu__lib_variants(bool cpu, xgpu__lib_variant *out, size_t max) {
    size_t n = 0;
    char opt[256];
    static const xgpu_dtype gemm_types[] = {XGPU_F32, XGPU_F64, XGPU_F16};
    for (size_t t = 0; t < sizeof gemm_types / sizeof gemm_types[0]; t++) {
        xgpu_gemm_params sets[4];
        size_t count = xgpu__gemm_param_sets(cpu, gemm_types[t], sets, 4);
        for (size_t s = 0; s < count; s++) {
            xgpu__gemm_options(gemm_types[t], &sets[s], opt, sizeof opt);
            add(out, max, &n, "gemm", xgpu__kernel_gemm, opt);
        }
    }
    add_gemm_mma(cpu, out, max, &n);
    /* The built-in values of a device class without limits; CPUs in both
     * classes, pocl's and the runtimes that vectorise across work-items
     * (AVX-512's 16 lanes). */
    xgpu_device_info classes[2] = {{.type = cpu ? XGPU_DEVICE_TYPE_CPU : XGPU_DEVICE_TYPE_GPU},
                                   {.type = XGPU_DEVICE_TYPE_CPU,
                                    .platform = "Intel(R) OpenCL",
                                    .native_vector_width_f32 = 16}};
    for (int c = 0; c < (cpu ? 2 : 1); c++) {
        add_bandwidth(&classes[c], out, max, &n);
    }
    return n;
}
