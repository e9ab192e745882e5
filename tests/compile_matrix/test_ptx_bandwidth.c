/* Static checks of the bandwidth kernels (reduce.xgpu, stream.xgpu) for
 * CUDA, without a GPU: every GPU variant the library builds (the
 * reduction in both its single-pass and two-pass forms) goes through
 * NVRTC to PTX for compute_80 and compute_90, then ptxas -v for sm_80 and
 * sm_90. A variant fails when ptxas spills, or when an entry that streams
 * memory has no 128-bit global load (ld.global[.nc].v4.{f32,u32,s32,b32}
 * or .v2.{f64,u64,s64,b64}). One line per variant and kernel with its
 * registers and shared memory. Exits 77 (skipped) without NVRTC or ptxas.
 * XGPU_PTX_KEEP=1 keeps the PTX files (/tmp/xgpu-ptx-*) for reading. */
#define _GNU_SOURCE
#include "cuda_internal.h"
#include "core_int.h"
#include "lib.h"
#include "xt_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

/* ptxas: $XGPU_PTXAS, else /usr/local/cuda/bin/ptxas, else the PATH's. */
static const char *find_ptxas(void) {
    const char *env = getenv("XGPU_PTXAS");
    if (env && access(env, X_OK) == 0) {
        return env;
    }
    if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0) {
        return "/usr/local/cuda/bin/ptxas";
    }
    return system("command -v ptxas >/dev/null 2>&1") == 0 ? "ptxas" : NULL;
}

/* The PTX text of entry `name`: from its ".entry name(" to the next
 * ".entry" (or the end). NULL when absent. */
static char *entry_body(const char *ptx, const char *name) {
    char head[128];
    snprintf(head, sizeof head, ".entry %s(", name);
    const char *start = strstr(ptx, head);
    if (!start) {
        return NULL;
    }
    const char *end = strstr(start + strlen(head), ".entry ");
    size_t len = end ? (size_t)(end - start) : strlen(start);
    return strndup(start, len);
}

static bool has_wide_load(const char *body) {
    static const char *const forms[] = {".v4.f32", ".v4.u32", ".v4.s32", ".v4.b32",
                                        ".v2.f64", ".v2.u64", ".v2.s64", ".v2.b64"};
    for (const char *p = strstr(body, "ld.global"); p; p = strstr(p + 1, "ld.global")) {
        const char *eol = strchr(p, ';');
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            const char *hit = strstr(p, forms[f]);
            if (hit && eol && hit < eol) {
                return true;
            }
        }
    }
    return false;
}

/* The number after `key` in the ptxas lines of function `name` (ptxas -v
 * prints "Compiling entry function 'name'" then "Used N registers, ...",
 * "N bytes spill stores"). */
static long ptxas_number(const char *log, const char *name, const char *key, bool before) {
    char head[160];
    snprintf(head, sizeof head, "entry function '%s'", name);
    const char *at = strstr(log, head);
    if (!at) {
        return -1;
    }
    const char *next = strstr(at + strlen(head), "entry function '");
    const char *k = strstr(at, key);
    if (!k || (next && k > next)) {
        return -1;
    }
    if (!before) {
        return strtol(k + strlen(key), NULL, 10);
    }
    const char *p = k;
    while (p > at && p[-1] == ' ') {
        p--;
    }
    while (p > at && p[-1] >= '0' && p[-1] <= '9') {
        p--;
    }
    return strtol(p, NULL, 10);
}

static void check_entry(const char *options, int sm, const char *ptx, const char *log,
                        const char *name) {
    char *body = entry_body(ptx, name);
    long regs = ptxas_number(log, name, "Used ", false);
    long smem = ptxas_number(log, name, " bytes smem", true);
    smem = smem < 0 ? 0 : smem; /* none: ptxas omits it */
    long spill_st = ptxas_number(log, name, " bytes spill stores", true);
    long spill_ld = ptxas_number(log, name, " bytes spill loads", true);
    bool wide = body && has_wide_load(body);
    /* The second pass reads a few partials: no wide loads wanted. */
    bool needs_wide = strcmp(name, "xgpu_reduce_partials") && strcmp(name, "xgpu_stream_dot_final");
    bool ok = body && regs > 0 && spill_st == 0 && spill_ld == 0 && (wide || !needs_wide);
    printf("%-58s sm_%d %-22s %3ld registers, %5ld bytes smem, spills %ld/%ld, 128-bit loads %s: "
           "%s\n",
           options, sm, name, regs, smem, spill_st, spill_ld, wide ? "yes" : "no",
           ok ? "ok" : "FAILED");
    if (!ok) {
        failures++;
    }
    free(body);
}

static void check_variant(const cu_nvrtc *nvrtc, const char *ptxas, const char *source,
                          const char *options, const char *const *entries, size_t count) {
    static const int sms[] = {80, 90};
    for (size_t s = 0; s < 2; s++) {
        char *full = xgpu__compose_source(XGPU_DIALECT_CUDA, source);
        char *log = NULL;
        cu_binary bin = {0};
        xgpu_status st = cu__compile_for(nvrtc, full, options, sms[s], true, &bin, &log);
        free(full);
        free(log);
        if (st != XGPU_SUCCESS) {
            printf("%-58s sm_%d NVRTC FAILED: %.300s\n", options, sms[s],
                   xgpu_last_error()->message);
            failures++;
            continue;
        }
        char ptx_path[] = "/tmp/xgpu-ptx-XXXXXX";
        int fd = mkstemp(ptx_path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f) {
            printf("%s: no temporary file\n", options);
            failures++;
            free(bin.data);
            continue;
        }
        fputs(bin.data, f);
        fclose(f);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "%s -v -arch=sm_%d %s -o /dev/null 2>&1", ptxas, sms[s],
                 ptx_path);
        int status = 0;
        char *out = xt_run_command(cmd, &status);
        if (status != 0) {
            printf("%-58s sm_%d ptxas FAILED: %.300s\n", options, sms[s], out ? out : "");
            failures++;
        }
        for (size_t e = 0; e < count; e++) {
            check_entry(options, sms[s], bin.data, out ? out : "", entries[e]);
        }
        free(out);
        if (!getenv("XGPU_PTX_KEEP")) {
            unlink(ptx_path);
        }
        free(bin.data);
    }
}

int main(void) {
    cu_nvrtc nvrtc;
    char reason[1024];
    cu__services = &xgpu__services;
    if (cu__nvrtc_load(&nvrtc, 0, reason, sizeof reason) != XGPU_SUCCESS) {
        printf("skipped: no NVRTC: %s\n", reason);
        return 77;
    }
    const char *ptxas = find_ptxas();
    if (!ptxas) {
        printf("skipped: no ptxas (XGPU_PTXAS, /usr/local/cuda/bin, PATH)\n");
        return 77;
    }
    static const char *const reduce_one[] = {"xgpu_reduce"};
    static const char *const reduce_two[] = {"xgpu_reduce", "xgpu_reduce_partials"};
    static const char *const stream[] = {"xgpu_stream_copy", "xgpu_stream_mul", "xgpu_stream_add",
                                         "xgpu_stream_triad", "xgpu_stream_dot"};
    static xgpu__lib_variant v[XGPU__LIB_VARIANTS_MAX];
    size_t n = xgpu__lib_variants(false, v, XGPU__LIB_VARIANTS_MAX);
    if (n > XGPU__LIB_VARIANTS_MAX) {
        printf("FAIL: %zu GPU library variants, room for %d\n", n, XGPU__LIB_VARIANTS_MAX);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(v[i].name, "reduce")) {
            char two[300];
            snprintf(two, sizeof two, "%s -DRED_TWO_PASS", v[i].options);
            check_variant(&nvrtc, ptxas, v[i].source, v[i].options, reduce_one, 1);
            check_variant(&nvrtc, ptxas, v[i].source, two, reduce_two, 2);
        } else if (!strcmp(v[i].name, "stream")) {
            check_variant(&nvrtc, ptxas, v[i].source, v[i].options, stream, 5);
        }
    }
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
