/* kernelbench: the vendor BLAS on xgpu's own buffers and queue, through
 * xgpu_buffer_native / xgpu_queue_native: CLBlast on OpenCL devices (when
 * xgpu was built with it), cuBLAS on CUDA and rocBLAS on HIP (loaded at run
 * time when present). Timed between xgpu events on the same queue. */
#define _GNU_SOURCE
#include "kb.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#if defined(KB_HAVE_CLBLAST)
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>
#endif

typedef int (*vendor_call)(void *lib_state, void *queue, void *a, void *b, void *c, size_t n);

/* ---- CLBlast ---- */
#if defined(KB_HAVE_CLBLAST)
static int clblast_call(void *state, void *queue, void *a, void *b, void *c, size_t n) {
    (void)state;
    cl_command_queue q = queue;
    CLBlastStatusCode st =
        CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0f,
                     (cl_mem)a, 0, n, (cl_mem)b, 0, n, 0.0f, (cl_mem)c, 0, n, &q, NULL);
    return st == CLBlastSuccess ? 0 : (int)st;
}
#endif

/* ---- cuBLAS and rocBLAS, column-major: C^T = B^T A^T ---- */
/* cublasSgemm_v2 and rocblas_sgemm share this shape (handle, two
 * operations, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc). */
typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const void *, int,
                        const void *, int, const float *, void *, int);

typedef struct blas_lib {
    void *handle;
    int (*set_stream)(void *handle, void *stream);
    sgemm_fn sgemm;
} blas_lib;

static void *open_first(const char *const *names, char *loaded, size_t size) {
    for (size_t i = 0; names[i]; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            snprintf(loaded, size, "%s", names[i]);
            return lib;
        }
    }
    return NULL;
}

static int cublas_call(void *state, void *queue, void *a, void *b, void *c, size_t n) {
    blas_lib *l = state;
    const float one = 1.0f, zero = 0.0f;
    int st = l->set_stream(l->handle, queue);
    return st ? st
              : l->sgemm(l->handle, 0, 0, (int)n, (int)n, (int)n, &one, b, (int)n, a, (int)n, &zero,
                         c, (int)n); /* CUBLAS_OP_N = 0 */
}

static int rocblas_call(void *state, void *queue, void *a, void *b, void *c, size_t n) {
    blas_lib *l = state;
    const float one = 1.0f, zero = 0.0f;
    int st = l->set_stream(l->handle, queue);
    return st ? st
              : l->sgemm(l->handle, 111, 111, (int)n, (int)n, (int)n, &one, b, (int)n, a, (int)n,
                         &zero, c, (int)n); /* rocblas_operation_none = 111 */
}

/* Loads cuBLAS or rocBLAS and makes a handle; -1 with a reason otherwise. */
static int open_blas(const char *const *names, const char *create, const char *set_stream,
                     const char *sgemm, blas_lib *l, char *name, size_t name_size, char *reason,
                     size_t reason_size) {
    void *lib = open_first(names, name, name_size);
    if (!lib) {
        snprintf(reason, reason_size, "not run: %s not found", names[0]);
        return -1;
    }
    int (*create_fn)(void **);
    void *sym = dlsym(lib, create);
    memcpy(&create_fn, &sym, sizeof sym);
    sym = dlsym(lib, set_stream);
    memcpy(&l->set_stream, &sym, sizeof sym);
    sym = dlsym(lib, sgemm);
    memcpy(&l->sgemm, &sym, sizeof sym);
    if (!create_fn || !l->set_stream || !l->sgemm || create_fn(&l->handle) != 0) {
        snprintf(reason, reason_size, "not run: %s: cannot create a handle", name);
        return -1;
    }
    return 0;
}

int kb_vendor_sgemm(kb_env *env, size_t n, xgpu_buffer *a, xgpu_buffer *b, xgpu_buffer *c, int reps,
                    double *times, char *impl, size_t impl_size, char *reason, size_t reason_size) {
    vendor_call call = NULL;
    void *state = NULL;
    static blas_lib blas; /* one handle per process, never destroyed */
    static bool blas_ready;
    const char *backend = env->info.backend;
    if (!strcmp(backend, "opencl")) {
#if defined(KB_HAVE_CLBLAST)
        snprintf(impl, impl_size, "clblast");
        call = clblast_call;
#else
        snprintf(impl, impl_size, "clblast");
        snprintf(reason, reason_size, "not run: xgpu was built without CLBlast (libclblast-dev)");
        return -1;
#endif
    } else if (!strcmp(backend, "cuda") || !strcmp(backend, "hip")) {
        bool cuda = !strcmp(backend, "cuda");
        static const char *const cublas[] = {"libcublas.so.13", "libcublas.so.12",
                                             "libcublas.so.11",
                                             "/usr/local/cuda/lib64/libcublas.so", NULL};
        static const char *const rocblas[] = {"librocblas.so.4", "librocblas.so.3",
                                              "librocblas.so.0", "/opt/rocm/lib/librocblas.so",
                                              NULL};
        snprintf(impl, impl_size, cuda ? "cublas" : "rocblas");
        char name[128];
        if (!blas_ready &&
            open_blas(cuda ? cublas : rocblas, cuda ? "cublasCreate_v2" : "rocblas_create_handle",
                      cuda ? "cublasSetStream_v2" : "rocblas_set_stream",
                      cuda ? "cublasSgemm_v2" : "rocblas_sgemm", &blas, name, sizeof name, reason,
                      reason_size) != 0) {
            return -1;
        }
        blas_ready = true;
        state = &blas;
        call = cuda ? cublas_call : rocblas_call;
    } else {
        snprintf(impl, impl_size, "vendor");
        snprintf(reason, reason_size, "not run: no vendor BLAS for backend %s", backend);
        return -1;
    }
    void *qn = NULL, *an = NULL, *bn = NULL, *cn = NULL;
    if (xgpu_queue_native(env->queue, &qn) || xgpu_buffer_native(a, &an) ||
        xgpu_buffer_native(b, &bn) || xgpu_buffer_native(c, &cn)) {
        snprintf(reason, reason_size, "not run: %s", xgpu_last_error()->message);
        return -1;
    }
    for (int r = -1; r < reps; r++) { /* r == -1: warm-up (CLBlast compiles its kernels) */
        xgpu_event *before = NULL, *after = NULL;
        double ms = 0;
        int st = 0;
        if (xgpu_queue_record_event(env->queue, &before) == XGPU_SUCCESS) {
            st = call(state, qn, an, bn, cn, n);
        }
        if (!st && xgpu_queue_record_event(env->queue, &after) == XGPU_SUCCESS) {
            xgpu_event_elapsed_ms(before, after, &ms);
        }
        xgpu_event_release(before);
        xgpu_event_release(after);
        if (st) {
            snprintf(reason, reason_size, "failed: %s sgemm status %d", impl, st);
            return -1;
        }
        if (r >= 0) {
            times[r] = ms * 1e-3;
        }
    }
    return 0;
}
