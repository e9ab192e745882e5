/* The compile matrix: every library kernel, in every variant the library
 * can choose, for every target this machine's toolchains reach:
 *   OpenCL  on each OpenCL device (pocl here), through xgpu itself;
 *   CUDA    sm_75, sm_80, sm_90 through the CUDA backend's NVRTC path;
 *   HIP     gfx906, gfx90a through the HIP backend's hiprtc path;
 *   HIP     gfx906, gfx908, gfx90a, gfx1030 offline with hipcc.
 * One line per kernel variant x target, with the registers and spills the
 * compiler reports. A missing toolchain is "skipped" with the reason; a
 * failed build or a kernel that spills fails the test. The argument picks
 * the target family. */
#define _GNU_SOURCE
#include "cuda_internal.h"
#include "hip_internal.h"
#include "core_int.h"
#include "lib.h"
#include "xt_file.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct variant {
    const char *source_name;
    const char *source;
    char options[256];
    bool cpu;              /* a variant the library uses on CPU devices only */
    xgpu__lib_variant lib; /* where it builds: xgpu__lib_variant_builds_for */
} variant;

#define LIST_MAX XGPU__LIB_VARIANTS_MAX
static variant variants[2 * LIST_MAX];
static size_t variant_count;
static int failures;

static void add(const xgpu__lib_variant *lib, bool cpu) {
    variant *v = &variants[variant_count++];
    v->source_name = lib->name;
    v->source = lib->source;
    snprintf(v->options, sizeof v->options, "%s", lib->options);
    v->cpu = cpu;
    v->lib = *lib;
}

static void collect(void) {
    static xgpu__lib_variant gpu[LIST_MAX], cpu[LIST_MAX];
    size_t ngpu = xgpu__lib_variants(false, gpu, LIST_MAX);
    size_t ncpu = xgpu__lib_variants(true, cpu, LIST_MAX);
    if (ngpu > LIST_MAX || ncpu > LIST_MAX) { /* asserts vanish in release builds */
        fprintf(stderr, "compile matrix: %zu GPU and %zu CPU variants, room for %d each\n", ngpu,
                ncpu, LIST_MAX);
        exit(1);
    }
    for (size_t i = 0; i < ngpu; i++) {
        add(&gpu[i], false);
    }
    /* The CPU builds the GPU list lacks: built for CPU devices only. */
    for (size_t i = 0; i < ncpu; i++) {
        bool shared = false;
        for (size_t g = 0; g < ngpu && !shared; g++) {
            shared = gpu[g].source == cpu[i].source && !strcmp(gpu[g].options, cpu[i].options);
        }
        if (!shared) {
            add(&cpu[i], true);
        }
    }
}

/* The number just before `at` (ptxas: "40 bytes spill stores"). */
static long number_before(const char *log, const char *at) {
    const char *p = at;
    while (p > log && p[-1] == ' ') {
        p--;
    }
    while (p > log && p[-1] >= '0' && p[-1] <= '9') {
        p--;
    }
    return strtol(p, NULL, 10);
}

/* Adds up every number that follows (after == true) or precedes `needle`. */
static long sum_of(const char *log, const char *needle, bool after, long *max) {
    long total = 0;
    for (const char *p = log ? strstr(log, needle) : NULL; p; p = strstr(p + 1, needle)) {
        long v = after ? strtol(p + strlen(needle), NULL, 10) : number_before(log, p);
        total += v;
        if (max && v > *max) {
            *max = v;
        }
    }
    return total;
}

/* Registers and spilled bytes the compiler reports: ptxas -v ("Used N
 * registers", "N bytes spill stores") or clang's kernel-resource-usage
 * remarks ("VGPRs: N", "VGPRs Spill: N", "ScratchSize [bytes/lane]: N"). */
static void resources(const char *log, int *regs, long *spills) {
    long r = 0;
    sum_of(log, "Used ", true, &r);
    sum_of(log, "VGPRs: ", true, &r);
    *regs = (int)r;
    *spills = sum_of(log, "bytes spill stores", false, NULL) +
              sum_of(log, "VGPRs Spill: ", true, NULL) + sum_of(log, "SGPRs Spill: ", true, NULL) +
              sum_of(log, "ScratchSize [bytes/lane]: ", true, NULL);
}

static void report(const variant *v, const char *target, bool ok, size_t bytes, const char *log,
                   const char *error) {
    int regs = 0;
    long spills = 0;
    resources(log, &regs, &spills);
    printf("%-6s %-62s %-16s ", v->source_name, v->options, target);
    if (!ok) {
        printf("FAILED: %.300s\n", error ? error : "");
        failures++;
        return;
    }
    printf("ok");
    if (bytes) {
        printf(", %zu bytes", bytes);
    }
    if (regs) {
        printf(", %d registers", regs);
    }
    if (spills) {
        printf(", SPILLS %ld bytes\n", spills);
        failures++;
    } else {
        printf("%s\n", regs ? ", no spills" : "");
    }
}

static void opencl_targets(void) {
    uint32_t n = 0;
    xgpu_device_count(&n);
    int found = 0;
    for (uint32_t d = 0; d < n; d++) {
        xgpu_device *dev;
        xgpu_device_info info;
        xgpu_context *ctx;
        if (xgpu_device_get(d, &dev) || xgpu_device_get_info(dev, &info, sizeof info) ||
            strcmp(info.backend, "opencl") || xgpu_context_create(dev, &ctx)) {
            continue;
        }
        found = 1;
        bool cpu = info.type == XGPU_DEVICE_TYPE_CPU;
        char target[48];
        snprintf(target, sizeof target, "opencl:%u", info.backend_index);
        for (size_t i = 0; i < variant_count; i++) {
            const variant *v = &variants[i];
            if ((v->cpu != cpu && strcmp(v->source_name, "gemm")) ||
                !xgpu__lib_variant_builds_for(&v->lib, "opencl", NULL)) {
                continue; /* reduce/stream shapes are per device class */
            }
            if (strstr(v->options, "F64") && !info.fp64) {
                continue;
            }
            xgpu_program *p = NULL;
            xgpu_status st = xgpu_program_build(ctx, v->source, v->options, &p);
            report(v, target, st == XGPU_SUCCESS, 0, xgpu_last_build_log(),
                   st ? xgpu_last_error()->message : NULL);
            xgpu_program_release(p);
        }
        xgpu_context_release(ctx);
    }
    if (!found) {
        printf("opencl: skipped: no OpenCL device\n");
    }
}

static void cuda_targets(void) {
    cu_nvrtc nvrtc;
    char reason[1024];
    cu__services = &xgpu__services;
    if (cu__nvrtc_load(&nvrtc, 0, reason, sizeof reason) != XGPU_SUCCESS) {
        printf("cuda: skipped: no NVRTC: %s\n", reason);
        return;
    }
    static const int sms[] = {75, 80, 90};
    for (size_t s = 0; s < 3; s++) {
        char target[32];
        snprintf(target, sizeof target, "cuda sm_%d", sms[s]);
        for (size_t i = 0; i < variant_count; i++) {
            const variant *v = &variants[i];
            if (v->cpu || !xgpu__lib_variant_builds_for(&v->lib, "cuda", target + 5)) {
                continue;
            }
            char *full = xgpu__compose_source(XGPU_DIALECT_CUDA, v->source);
            char opts[320], *log = NULL;
            snprintf(opts, sizeof opts, "%s --ptxas-options=-v", v->options);
            cu_binary bin;
            xgpu_status st = cu__compile(&nvrtc, full, opts, sms[s], &bin, &log);
            report(v, target, st == XGPU_SUCCESS, bin.size, log,
                   st ? xgpu_last_error()->message : NULL);
            free(bin.data);
            free(log);
            free(full);
        }
    }
}

static void hiprtc_targets(void) {
    hip_runtime rt;
    hip_rtc rtc;
    char reason[1024];
    int count = 0;
    hip__services = &xgpu__services;
    if (hip__runtime_load(&rt, &count, reason, sizeof reason) != XGPU_SUCCESS && !rt.lib) {
        printf("hip (hiprtc): skipped: no HIP runtime: %s\n", reason);
        return;
    }
    if (hip__rtc_load(&rt, &rtc, reason, sizeof reason) != XGPU_SUCCESS) {
        printf("hip (hiprtc): skipped: %s\n", reason);
        return;
    }
    static const char *const archs[] = {"gfx906", "gfx90a"};
    for (size_t a = 0; a < 2; a++) {
        char target[32];
        snprintf(target, sizeof target, "hiprtc %s", archs[a]);
        for (size_t i = 0; i < variant_count; i++) {
            const variant *v = &variants[i];
            if (v->cpu || !xgpu__lib_variant_builds_for(&v->lib, "hip", archs[a])) {
                continue;
            }
            char *full = xgpu__compose_source(XGPU_DIALECT_HIP, v->source);
            char opts[320], *log = NULL, *code = NULL;
            size_t size = 0;
            snprintf(opts, sizeof opts, "%s -Rpass-analysis=kernel-resource-usage", v->options);
            xgpu_status st = hip__compile(&rtc, full, opts, archs[a], &code, &size, &log);
            report(v, target, st == XGPU_SUCCESS, size, log,
                   st ? xgpu_last_error()->message : NULL);
            free(code);
            free(log);
            free(full);
        }
    }
}

/* An MFMA variant's assembly for each architecture it builds for must hold
 * v_mfma instructions: the builtins, not a fallback, did the multiply. */
static void check_mfma(const variant *v, const char *src, const char *dir, size_t i) {
    static const char *const archs[] = {"gfx908", "gfx90a"};
    for (size_t a = 0; a < 2; a++) {
        if (!xgpu__lib_variant_builds_for(&v->lib, "hip", archs[a])) {
            continue;
        }
        char cmd[2048], asm_file[600];
        snprintf(asm_file, sizeof asm_file, "%s/k%zu.s", dir, i);
        snprintf(cmd, sizeof cmd,
                 "hipcc -x hip --cuda-device-only -S -O3 -include hip/hip_runtime.h %s "
                 "--offload-arch=%s %s -o %s >/dev/null 2>&1 && grep -q v_mfma %s",
                 v->options, archs[a], src, asm_file, asm_file);
        bool ok = system(cmd) == 0;
        printf("%-6s %-62s hipcc %-10s %s\n", v->source_name, v->options, archs[a],
               ok ? "ok, v_mfma in the assembly" : "FAILED: no v_mfma in the assembly");
        failures += !ok;
        unlink(asm_file);
    }
}

static void hipcc_targets(void) {
    if (system("command -v hipcc >/dev/null 2>&1") != 0) {
        printf("hip (hipcc offline): skipped: hipcc not found (Debian: hipcc)\n");
        return;
    }
    char dir[] = "/tmp/xgpu-matrix-XXXXXX";
    if (!mkdtemp(dir)) {
        printf("hip (hipcc offline): skipped: no temporary directory\n");
        return;
    }
    static const char *const archs[] = {"gfx906", "gfx908", "gfx90a", "gfx1030"};
    for (size_t i = 0; i < variant_count; i++) {
        const variant *v = &variants[i];
        if (v->cpu) {
            continue;
        }
        char src[600], obj[600], logf[600], cmd[2048];
        snprintf(src, sizeof src, "%s/k%zu.hip", dir, i);
        snprintf(obj, sizeof obj, "%s/k%zu.o", dir, i);
        snprintf(logf, sizeof logf, "%s/k%zu.log", dir, i);
        char *full = xgpu__compose_source(XGPU_DIALECT_HIP, v->source);
        FILE *f = fopen(src, "w");
        if (!f || !full) {
            free(full);
            if (f) {
                fclose(f);
            }
            continue;
        }
        fputs(full, f);
        fclose(f);
        free(full);
        /* One invocation for the four architectures (those the variant
         * builds for); resource usage from clang's remarks. */
        int n = snprintf(cmd, sizeof cmd,
                         "hipcc -x hip --cuda-device-only -c -O3 -include hip/hip_runtime.h %s "
                         "-Rpass-analysis=kernel-resource-usage",
                         v->options);
        char target[64] = "hipcc";
        for (size_t a = 0; a < 4; a++) {
            if (xgpu__lib_variant_builds_for(&v->lib, "hip", archs[a])) {
                n += snprintf(cmd + n, sizeof cmd - (size_t)n, " --offload-arch=%s", archs[a]);
                snprintf(target + strlen(target), sizeof target - strlen(target), "%s%s",
                         strlen(target) > 5 ? "," : " ", archs[a] + 3);
            }
        }
        if (!strcmp(target, "hipcc")) {
            unlink(src);
            continue; /* another backend's variant */
        }
        /* MFMA variants: the object must hold matrix instructions. */
        const bool mfma = strstr(v->options, "MMA_PATH_MFMA") != NULL;
        snprintf(cmd + n, sizeof cmd - (size_t)n, " %s -o %s >%s 2>&1", src, obj, logf);
        int rc = system(cmd);
        char *log = xt_read_file(logf, NULL);
        if (rc == 0 && mfma) {
            check_mfma(v, src, dir, i);
        }
        report(v, target, rc == 0, 0, log, log);
        free(log);
        unlink(src);
        unlink(obj);
        unlink(logf);
    }
    rmdir(dir);
}

/* One target family per process: Debian's pocl and ROCm's comgr both
 * register LLVM command-line options and abort when loaded together. */
int main(int argc, char **argv) {
    const char *family = argc > 1 ? argv[1] : "";
    collect();
    printf("%zu kernel variants\n", variant_count);
    if (!strcmp(family, "opencl")) {
        opencl_targets();
    } else if (!strcmp(family, "cuda")) {
        cuda_targets();
    } else if (!strcmp(family, "hiprtc")) {
        hiprtc_targets();
    } else if (!strcmp(family, "hipcc")) {
        hipcc_targets();
    } else {
        fprintf(stderr, "usage: %s opencl|cuda|hiprtc|hipcc\n", argv[0]);
        return 2;
    }
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
