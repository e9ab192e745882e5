/* The fragment GEMM (kernels/gemm_mma.xgpu) through NVRTC and ptxas -v for
 * sm_80 and sm_90, without a GPU: the built-in parameters of the mma.sync
 * and fragments paths for f16, bf16 (C in f32 and in the input type) and
 * tf32, plus the tuner-sized shapes listed below. Each must not spill or
 * use a stack, must fit the architecture (255 registers a thread, 65536 a
 * group, 48 KiB of fixed-size shared memory), and the mma.sync variants'
 * PTX must hold mma.sync (and ldmatrix for 16-bit inputs). A shape the
 * parameter check refuses is assembled too, to show that it would not
 * fit. One row per variant and arch: registers, shared memory, spills.
 * Exit 77 (skipped) without NVRTC or ptxas. */
#define _GNU_SOURCE
#include "cuda_internal.h"
#include "core_int.h"
#include "ptxas_run.h"
#include "tunedb_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKIP 77
#define STATIC_SHARED_MAX (48 * 1024)
#define FRAG XGPU_GEMM_FRAGMENTS

typedef struct variant {
    xgpu_dtype in, out;
    const char *path;
    xgpu_gemm_params p;
    bool refused; /* the parameter check refuses it: it must not fit */
} variant;

static variant variants[64];
static size_t variant_count;
static int failures;

static xgpu_device_info gpu_info(void) {
    xgpu_device_info info = {.type = XGPU_DEVICE_TYPE_GPU,
                             .max_group_size = 1024,
                             .local_mem_bytes = 227 * 1024,
                             .local_mem_static_bytes = STATIC_SHARED_MAX,
                             .fp64 = true};
    snprintf(info.backend, sizeof info.backend, "cuda");
    snprintf(info.arch, sizeof info.arch, "sm_80");
    return info;
}

static void add(xgpu_dtype in, xgpu_dtype out, const char *path, const xgpu_gemm_params *p,
                bool refused) {
    if (variant_count < sizeof variants / sizeof variants[0]) {
        variants[variant_count++] = (variant){in, out, path, *p, refused};
    }
}

static void collect(void) {
    xgpu_device_info info = gpu_info();
    static const xgpu_dtype ins[] = {XGPU_F16, XGPU_BF16, XGPU_F32};
    static const char *const paths[] = {"mma.sync", "fragments"};
    for (size_t t = 0; t < 3; t++) {
        for (size_t q = 0; q < 2; q++) {
            xgpu_gemm_params p;
            xgpu__gemm_mma_builtin(&info, ins[t], paths[q], &p);
            for (int o = 0; o < (ins[t] == XGPU_F32 ? 1 : 2); o++) {
                add(ins[t], o ? ins[t] : XGPU_F32, paths[q], &p, false);
            }
        }
    }
    /* Larger warp tiles on tensor cores; the last too many registers. */
    static const xgpu_gemm_params wide = {128, 256, 16, 64, 64, 8, FRAG};
    static const xgpu_gemm_params narrow = {64, 128, 32, 32, 32, 8, FRAG};
    static const xgpu_gemm_params too_big = {128, 128, 32, 128, 64, 8, FRAG};
    add(XGPU_F16, XGPU_F32, "mma.sync", &wide, false);
    add(XGPU_BF16, XGPU_F32, "mma.sync", &narrow, false);
    add(XGPU_F16, XGPU_F32, "mma.sync", &too_big, true);
    for (size_t i = 0; i < variant_count; i++) {
        const variant *v = &variants[i];
        bool ok =
            xgpu__gemm_mma_check_params(&v->p, &info, v->in, v->path, "gemm_mma") == XGPU_SUCCESS;
        if (ok == v->refused) {
            printf("FAILED: %s %s %u,%u,%u,%u,%u: the parameter check %s it: %s\n", v->path,
                   xgpu_dtype_name(v->in), v->p.tile_m, v->p.tile_n, v->p.tile_k, v->p.work_m,
                   v->p.work_n, ok ? "accepts" : "refuses", ok ? "" : xgpu_last_error()->message);
            failures++;
        }
        xgpu__clear_error();
    }
}

/* What the mma.sync variants' PTX must hold. */
static const char *missing_instructions(const variant *v, const char *ptx) {
    if (strcmp(v->path, "mma.sync")) {
        return NULL;
    }
    if (!strstr(ptx, "mma.sync.aligned")) {
        return "no mma.sync in the PTX";
    }
    if (v->in != XGPU_F32 && !strstr(ptx, "ldmatrix.sync.aligned")) {
        return "no ldmatrix in the PTX";
    }
    return NULL;
}

static void check(const char *ptxas, const cu_nvrtc *nvrtc, const variant *v, int sm) {
    char options[256];
    xgpu__gemm_mma_options(v->in, v->out, v->path, &v->p, options, sizeof options);
    char *full = xgpu__compose_source(XGPU_DIALECT_CUDA, xgpu__kernel_gemm_mma);
    char *log = NULL, *plog = NULL;
    cu_binary bin = {0};
    if (!full) {
        printf("FAILED: out of memory\n");
        failures++;
        return;
    }
    xgpu_status st = cu__compile_for(nvrtc, full, options, sm, true, &bin, &log);
    uint64_t threads = (uint64_t)(v->p.tile_m / v->p.work_m) * (v->p.tile_n / v->p.work_n) * 32;
    printf("%-9s %-4s->%-4s %3u x %3u x %2u  %3u x %2u  vw %u  %4llu  sm_%d  ", v->path,
           v->in == XGPU_F32 ? "tf32" : xgpu_dtype_name(v->in), xgpu_dtype_name(v->out),
           v->p.tile_m, v->p.tile_n, v->p.tile_k, v->p.work_m, v->p.work_n, v->p.vector_width,
           (unsigned long long)threads, sm);
    usage u;
    if (st != XGPU_SUCCESS || !ptxas_assemble(ptxas, bin.data, strlen(bin.data), sm, &u, &plog)) {
        const char *why = st != XGPU_SUCCESS ? xgpu_last_error()->message : (plog ? plog : "");
        const char *err = strstr(why, "error");
        why = err ? err : why;
        bool expected = v->refused && st == XGPU_SUCCESS;
        printf("%s: %.*s\n", expected ? "does not assemble (refused: ok)" : "FAILED",
               (int)strcspn(why, "\n"), why);
        failures += !expected;
        if (!expected && log && *log) {
            printf("  NVRTC: %.400s\n", log);
        }
    } else {
        bool spills = u.spill_stores > 0 || u.spill_loads > 0 || u.stack > 0;
        bool fits =
            u.regs <= 255 && (uint64_t)u.regs * threads <= 65536 && u.smem <= STATIC_SHARED_MAX;
        const char *missing = missing_instructions(v, bin.data);
        printf("%3ld regs  %6ld smem  %ld/%ld spill  %ld stack  ", u.regs, u.smem, u.spill_stores,
               u.spill_loads, u.stack);
        if (v->refused) {
            printf("%s\n", spills || !fits ? "refused: does not fit (ok)"
                                           : "refused, yet fits: the check is too strict?");
        } else if (spills || !fits || missing) {
            printf("FAILED: %s\n", spills ? "spills or uses a stack"
                                          : (!fits ? "does not fit sm limits" : missing));
            failures++;
        } else {
            printf("ok\n");
        }
    }
    free(bin.data);
    free(log);
    free(plog);
    free(full);
}

int main(void) {
    cu__services = &xgpu__services;
    collect();
    const char *ptxas = ptxas_path();
    cu_nvrtc nvrtc;
    char reason[1024];
    if (!ptxas) {
        printf("skipped: no ptxas (PTXAS, PATH, /usr/local/cuda/bin)\n");
        return SKIP;
    }
    if (cu__nvrtc_load(&nvrtc, 0, reason, sizeof reason) != XGPU_SUCCESS) {
        printf("skipped: no NVRTC: %s\n", reason);
        return SKIP;
    }
    printf("%zu fragment-GEMM variants, ptxas %s\n", variant_count, ptxas);
    printf("path      types      tile (m x n x k)  warp tile  vw  items  arch   registers, "
           "shared bytes, spill stores/loads, stack bytes\n");
    static const int sms[] = {80, 90};
    for (size_t s = 0; s < 2; s++) {
        for (size_t i = 0; i < variant_count; i++) {
            check(ptxas, &nvrtc, &variants[i], sms[s]);
        }
    }
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
