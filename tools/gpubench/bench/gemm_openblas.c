/* OpenBLAS's SGEMM on the host, the CPU baseline beside the devices'
 * GEMMs, checked as they are (gemm_host.c). */
#include "gemm_host.h"
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(GB_HAVE_OPENBLAS)
#include <cblas.h>
#endif

#if defined(GB_HAVE_OPENBLAS)
typedef struct host_gemm {
    size_t n;
    float *a, *b, *c;
} host_gemm;

static int run_openblas(void *arg) {
    host_gemm *h = arg;
    int n = (int)h->n;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, h->a, n, h->b, n, 0.0f,
                h->c, n);
    return 0;
}
#endif

#if defined(GB_HAVE_OPENBLAS)
/* OpenBLAS built with DYNAMIC_ARCH picks its kernel from the CPU's model;
 * a model it does not know (a cloud VM's "Intel(R) Xeon(R) Processor")
 * falls back to an SSE3 kernel at a fraction of the host's rate. Says so
 * in the row's note when the host has AVX2 or AVX-512 and the kernel is
 * one of the older ones, naming the variable that picks another. */
static void note_old_kernel(gb_result *r, const char *core) {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    static const char *const older[] = {"Prescott",  "Core2",      "Penryn",     "Dunnington",
                                        "Nehalem",   "Atom",       "Banias",     "Barcelona",
                                        "Bulldozer", "Piledriver", "Sandybridge"};
    bool avx512 = __builtin_cpu_supports("avx512f"), avx2 = __builtin_cpu_supports("avx2");
    bool old = false;
    for (size_t i = 0; i < sizeof older / sizeof older[0] && core; i++) {
        old = old || !strcmp(core, older[i]);
    }
    if (old && (avx2 || avx512)) {
        size_t used = strlen(r->note);
        snprintf(r->note + used, sizeof r->note - used,
                 "; OpenBLAS chose its %s kernel on a host with %s (OPENBLAS_CORETYPE=%s "
                 "picks a faster one)",
                 core, avx512 ? "AVX-512" : "AVX2", avx512 ? "SkylakeX" : "Haswell");
    }
#else
    (void)r;
    (void)core;
#endif
}

#endif

void gb_bench_openblas(gb_env *env) {
#if defined(GB_HAVE_OPENBLAS)
    const gb_options *o = env->opt;
    size_t quick[] = {256, 1024}, full[] = {256, 1024, 2048, 4096};
    const size_t *sizes = o->full ? full : quick;
    size_t count = o->full ? 4 : 2;
    if (o->size) {
        sizes = &o->size;
        count = 1;
    }
    for (size_t i = 0; i < count; i++) {
        size_t n = sizes[i];
        host_gemm h = {n, malloc(n * n * 4), malloc(n * n * 4), malloc(n * n * 4)};
        if (!h.a || !h.b || !h.c) {
            free(h.a), free(h.b), free(h.c);
            continue;
        }
        gm_fill(h.a, GM_F32, n * n, 11);
        gm_fill(h.b, GM_F32, n * n, 12);
        char shape[64], what[96];
        snprintf(shape, sizeof shape, "%zux%zux%zu", n, n, n);
        snprintf(what, sizeof what, "gemm openblas f32 %s", shape);
        gb_progress(env, what);
        gb_result *r = gb_add(env, "gemm", "openblas", "f32", shape, (double)n);
        if (r && gb_time_host(env, run_openblas, &h, &r->t, &r->first_s) == 0) {
            gm_check g = {GM_F32, GM_F32, n, n, n, 1, gm_tolerance(0, 0x1p-23, GM_F32, n)};
            if (gb_inject("gemm")) {
                h.c[n - 1] += 1.0f;
            }
            r->verified = gm_verify(h.a, h.b, h.c, &g, &r->max_rel_err);
            r->unit = "GFLOP/s";
            r->rate = 2.0 * (double)n * n * n / r->t.median * 1e-9;
            snprintf(r->note, sizeof r->note, "OpenBLAS core %s, %d threads (%s)",
                     openblas_get_corename(), openblas_get_num_threads(), openblas_get_config());
            note_old_kernel(r, openblas_get_corename());
        }
        free(h.a);
        free(h.b);
        free(h.c);
    }
#else
    gb_result *r = gb_add(env, "gemm", "openblas", "f32", "-", 0);
    if (r) {
        r->unit = "GFLOP/s";
        r->rate = -1;
        r->verified = true;
        snprintf(r->note, sizeof r->note, "not run: built without OpenBLAS (libopenblas-dev)");
    }
#endif
}
