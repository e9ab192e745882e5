/* kernelbench: xgpu's library kernels beside the references on the same
 * device in one run: SGEMM against the vendor BLAS on the same buffers and
 * queue (CLBlast on OpenCL, cuBLAS on CUDA, rocBLAS on HIP, when present),
 * the fp32 sum reduction against the global-memory bandwidth clpeak
 * measures (OpenCL devices, when clpeak is installed). Every result is
 * verified. A stopgap until gpubench; usage: kernelbench [-d SELECTOR]
 * [--reps N] [--gemm-sizes 1024,2048] [--reduce-mib 256], one device after
 * another when SELECTOR matches several. */
#define _POSIX_C_SOURCE 200809L
#include "kb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: kernelbench [-d SELECTOR] [--reps N] [--gemm-sizes N,N,...] [--reduce-mib N]\n"
    "\n"
    "Runs xgpu's SGEMM (n x n x n, row-major) and fp32 sum reduction on each device\n"
    "-d selects, one after another, beside the vendor's SGEMM on the same buffers\n"
    "(CLBlast on OpenCL, cuBLAS on CUDA, rocBLAS on HIP, when installed) and clpeak's\n"
    "global-memory bandwidth, and prints medians of N timed runs (after a warm-up run\n"
    "that also builds the kernels). Every result is checked against a host reference.\n"
    "\n"
    "  -d SELECTOR  a comma-separated list of indexes (0), backends (cuda), paths\n"
    "               (opencl:1), PCI bus ids or UUIDs as gpuinfo prints them: the\n"
    "               grammar of xgpu_device_match in xgpu.h\n"
    "\n"
    "Defaults: -d 0, --reps 5, --gemm-sizes 1024,2048, --reduce-mib 256.\n"
    "Exit status: 0 when every result verified, 1 otherwise (or -d matched no\n"
    "device), 2 on usage errors (a -d that does not parse).\n";

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double kb_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Checks sampled elements of C = A * B (row-major n x n) in double. */
int kb_check_gemm(const float *a, const float *b, const float *c, size_t n, double *max_rel) {
    uint32_t s = 12345;
    *max_rel = 0;
    for (int t = 0; t < 400; t++) {
        s = s * 1664525u + 1013904223u;
        size_t i = (s >> 8) % n;
        s = s * 1664525u + 1013904223u;
        size_t j = (s >> 8) % n;
        double ref = 0, scale = 0;
        for (size_t k = 0; k < n; k++) {
            ref += (double)a[i * n + k] * b[k * n + j];
            scale += fabs((double)a[i * n + k] * b[k * n + j]);
        }
        double err = fabs(c[i * n + j] - ref) / scale;
        if (!(err <= 2.0 * (double)n * 0x1p-24)) {
            *max_rel = isnan(err) ? INFINITY : err;
            return 0;
        }
        *max_rel = err > *max_rel ? err : *max_rel;
    }
    return 1;
}

int main(int argc, char **argv) {
    kb_options o = {"0", 5, {1024, 2048}, 2, 256};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "-d") && v) {
            o.selector = v, i++;
        } else if (!strcmp(a, "--reps") && v && atoi(v) > 0) {
            o.reps = atoi(v), i++;
        } else if (!strcmp(a, "--reduce-mib") && v && atoi(v) > 0) {
            o.reduce_mib = (size_t)atoi(v), i++;
        } else if (!strcmp(a, "--gemm-sizes") && v) {
            o.gemm_count = 0;
            for (char *p = (char *)v; *p && o.gemm_count < 8;) {
                char *end;
                unsigned long n = strtoul(p, &end, 10);
                if (end == p || n == 0) {
                    fprintf(stderr, "kernelbench: bad --gemm-sizes '%s'\n", v);
                    return 2;
                }
                o.gemm_sizes[o.gemm_count++] = n;
                p = *end == ',' ? end + 1 : end;
            }
            i++;
        } else {
            fprintf(stderr, "kernelbench: bad argument '%s'\n\n%s", a, usage);
            return 2;
        }
    }
    uint32_t n = 0;
    xgpu_device **devs = NULL;
    xgpu_status st = xgpu_device_match(o.selector, NULL, 0, &n); /* how many */
    if (st == XGPU_SUCCESS && !(devs = calloc(n, sizeof *devs))) {
        fprintf(stderr, "kernelbench: out of memory\n");
        return 2;
    }
    if (st != XGPU_SUCCESS || (st = xgpu_device_match(o.selector, devs, n, &n)) != XGPU_SUCCESS) {
        fprintf(stderr, "kernelbench: -d %s: %s\n", o.selector, xgpu_last_error()->message);
        free(devs);
        return st == XGPU_ERROR_INVALID_ARGUMENT ? 2 : 1;
    }
    int ok = 1;
    for (uint32_t d = 0; d < n; d++) {
        kb_env env;
        if (kb_open(&env, devs[d]) != 0) {
            ok = 0;
            continue;
        }
        printf("%sdevice: %s:%u %s (%s)\n", d ? "\n" : "", env.info.backend, env.info.backend_index,
               env.info.name, env.info.driver_version);
        printf("%-28s %-10s %12s %10s  %s\n", "benchmark", "impl", "median", "rate", "check");
        for (int g = 0; g < o.gemm_count; g++) {
            ok &= kb_gemm(&env, &o, o.gemm_sizes[g]);
        }
        ok &= kb_reduce(&env, &o);
        kb_close(&env);
    }
    free(devs);
    return ok ? 0 : 1;
}
