/* The GEMM's GPU family through NVRTC and ptxas, for sm_80 and sm_90,
 * without a GPU: the built-in variant of each dtype and every GPU-family
 * candidate the tuner tries on a GPU, compiled to PTX and assembled with
 * `ptxas -v`. Each must not spill, must fit the architecture (255
 * registers a thread, 65536 a group, fixed-size shared memory within the
 * 48 KiB a kernel gets without opting in, which is what its local arrays
 * are), and its PTX must read aligned operands from global memory 16
 * bytes at a time (ld.global[.nc].v4.f32, .v2.f64) and local memory as
 * vectors. Shapes the parameter check refuses are assembled too, to show
 * that they would not fit. One table row per variant and target.
 * Exit 77 (skipped) without NVRTC or ptxas (PTXAS names it, else the PATH,
 * else /usr/local/cuda/bin/ptxas). */
#define _GNU_SOURCE
#include "cuda_internal.h"
#include "core_int.h"
#include "lib.h"
#include "ptxas_run.h"
#include "xt_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SKIP 77
#define STATIC_SHARED_MAX (48 * 1024)

typedef struct variant {
    xgpu_dtype dtype;
    xgpu_gemm_params p;
    bool refused; /* the parameter check refuses it: it must not fit */
} variant;

static variant variants[96];
static size_t variant_count;
static int failures;

static void add(xgpu_dtype dtype, const xgpu_gemm_params *p, bool refused) {
    for (size_t i = 0; i < variant_count; i++) {
        if (variants[i].dtype == dtype && !memcmp(&variants[i].p, p, sizeof *p)) {
            return;
        }
    }
    if (variant_count < sizeof variants / sizeof variants[0]) {
        variants[variant_count++] = (variant){dtype, *p, refused};
    }
}

/* A GPU as the library sees an H100's limits: the candidates' filter. */
static xgpu_device_info gpu_info(void) {
    xgpu_device_info info = {.type = XGPU_DEVICE_TYPE_GPU,
                             .max_group_size = 1024,
                             .local_mem_bytes = 227 * 1024,
                             .local_mem_static_bytes = STATIC_SHARED_MAX,
                             .fp64 = true};
    return info;
}

static void collect(void) {
    xgpu_device_info info = gpu_info();
    static const xgpu_dtype types[] = {XGPU_F32, XGPU_F64, XGPU_F16};
    for (size_t t = 0; t < 3; t++) {
        xgpu_gemm_params p;
        xgpu__gemm_builtin(&info, types[t], &p);
        if (p.contiguous != XGPU_GEMM_GPU) {
            printf("FAILED: the built-in %s parameters on a GPU are not the GPU family\n",
                   xgpu_dtype_name(types[t]));
            failures++;
        }
        add(types[t], &p, false);
        if (types[t] == XGPU_F16) {
            continue; /* the tuner tunes f32 and f64 */
        }
        xgpu__tune_values list[256];
        size_t n = xgpu__tune_candidates(XGPU__TK_GEMM, types[t], &info, list, 256);
        for (size_t i = 0; i < n; i++) {
            xgpu_gemm_params c = xgpu__tune_to_gemm(&list[i]);
            if (c.contiguous == XGPU_GEMM_GPU) {
                add(types[t], &c, false);
            }
        }
    }
    /* Refused by the check: too many registers, too much local memory. */
    static const xgpu_gemm_params f32_regs = {128, 256, 16, 16, 16, 4, XGPU_GEMM_GPU};
    static const xgpu_gemm_params f32_group = {128, 256, 16, 8, 8, 1, XGPU_GEMM_GPU};
    static const xgpu_gemm_params f64_local = {128, 128, 16, 8, 8, 2, XGPU_GEMM_GPU};
    add(XGPU_F32, &f32_regs, true);
    add(XGPU_F32, &f32_group, true);
    add(XGPU_F64, &f64_local, true);
    for (size_t i = 0; i < variant_count; i++) {
        variant *v = &variants[i];
        bool ok = xgpu__gemm_check_params(&v->p, &info, xgpu__gemm_local_elem(v->dtype), "gemm") ==
                  XGPU_SUCCESS;
        if (ok == v->refused) {
            printf("FAILED: %s %u,%u,%u,%u,%u: the parameter check %s it\n",
                   xgpu_dtype_name(v->dtype), v->p.tile_m, v->p.tile_n, v->p.tile_k, v->p.work_m,
                   v->p.work_n, ok ? "accepts" : "refuses");
            failures++;
        }
        xgpu__clear_error();
    }
}

/* Whether the PTX reads global memory 16 bytes at a time (f32 vector
 * width 4, f64 width 2) and local memory as vectors. */
static const char *missing_vectors(const variant *v, const char *ptx) {
    bool f64 = v->dtype == XGPU_F64;
    uint32_t vw = xgpu__gemm_vector_width(v->dtype, &v->p);
    if ((vw == 4 && !f64) || (vw == 2 && f64)) {
        const char *ld = f64 ? "ld.global.v2.f64" : "ld.global.v4.f32";
        const char *nc = f64 ? "ld.global.nc.v2.f64" : "ld.global.nc.v4.f32";
        if (!strstr(ptx, ld) && !strstr(ptx, nc)) {
            return f64 ? "no 16-byte global loads (ld.global.v2.f64)"
                       : "no 16-byte global loads (ld.global.v4.f32)";
        }
    }
    if (!strstr(ptx, f64 ? "ld.shared.v2.f64" : "ld.shared.v4.f32")) {
        return "no vector local loads (ld.shared.v4.f32 / .v2.f64)";
    }
    return NULL;
}

static void check(const char *ptxas, const cu_nvrtc *nvrtc, const variant *v, int sm) {
    char options[256];
    xgpu__gemm_options(v->dtype, &v->p, options, sizeof options);
    char *full = xgpu__compose_source(XGPU_DIALECT_CUDA, xgpu__kernel_gemm);
    char *log = NULL, *plog = NULL;
    cu_binary bin = {0};
    if (!full) {
        printf("FAILED: out of memory\n");
        failures++;
        return;
    }
    xgpu_status st = cu__compile_for(nvrtc, full, options, sm, true, &bin, &log);
    uint64_t threads = (uint64_t)(v->p.tile_m / v->p.work_m) * (v->p.tile_n / v->p.work_n);
    printf("%-4s %3u x %3u x %2u  %2u x %2u  vw %u  %4llu  sm_%d  ", xgpu_dtype_name(v->dtype),
           v->p.tile_m, v->p.tile_n, v->p.tile_k, v->p.work_m, v->p.work_n,
           xgpu__gemm_vector_width(v->dtype, &v->p), (unsigned long long)threads, sm);
    usage u;
    if (st != XGPU_SUCCESS || !ptxas_assemble(ptxas, bin.data, strlen(bin.data), sm, &u, &plog)) {
        bool failed_as_expected = v->refused && st == XGPU_SUCCESS;
        const char *why = st != XGPU_SUCCESS ? xgpu_last_error()->message : (plog ? plog : "");
        const char *err = strstr(why, "error");
        why = err ? err : why;
        printf("%s: %.*s\n", failed_as_expected ? "does not assemble (refused: ok)" : "FAILED",
               (int)strcspn(why, "\n"), why);
        failures += !failed_as_expected;
    } else {
        bool spills = u.spill_stores > 0 || u.spill_loads > 0 || u.stack > 0;
        bool fits =
            u.regs <= 255 && (uint64_t)u.regs * threads <= 65536 && u.smem <= STATIC_SHARED_MAX;
        const char *vec = missing_vectors(v, bin.data);
        printf("%3ld regs  %6ld smem  %ld/%ld spill  %ld stack  ", u.regs, u.smem, u.spill_stores,
               u.spill_loads, u.stack);
        if (v->refused) {
            bool would_fail = spills || !fits;
            printf("%s\n", would_fail ? "refused: does not fit (ok)"
                                      : "refused, yet fits: the check is too strict?");
        } else if (spills || !fits || vec) {
            printf("FAILED: %s\n",
                   spills ? "spills or uses a stack" : (!fits ? "does not fit sm limits" : vec));
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
    printf("%zu GEMM GPU-family variants, ptxas %s\n", variant_count, ptxas);
    printf("dtype tile (m x n x k)  work    vw  items  arch   registers, shared bytes, spill "
           "stores/loads, stack bytes\n");
    static const int sms[] = {80, 90};
    for (size_t s = 0; s < 2; s++) {
        for (size_t i = 0; i < variant_count; i++) {
            check(ptxas, &nvrtc, &variants[i], sms[s]);
        }
    }
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
