/* The vendor BLAS on xgpu's own buffers and queue, through
 * xgpu_buffer_native / xgpu_queue_native: CLBlast on OpenCL devices (when
 * built with it), cuBLAS on CUDA and rocBLAS on HIP (loaded at run time
 * when present). gpubench runs it beside xgpu's GEMM. */
#define _GNU_SOURCE
#include "vendor_blas.h"
#include "pyfolders.h"

#include <pthread.h>
#include <stdbool.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(VB_HAVE_CLBLAST)
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>
#endif

typedef int (*vendor_call)(void *lib_state, bool f64, void *queue, void *a, void *b, void *c,
                           size_t m, size_t n, size_t k);

/* ---- CLBlast ---- */
#if defined(VB_HAVE_CLBLAST)
static int clblast_call(void *state, bool f64, void *queue, void *a, void *b, void *c, size_t m,
                        size_t n, size_t k) {
    (void)state;
    cl_command_queue q = queue;
    CLBlastStatusCode st =
        f64 ? CLBlastDgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k,
                           1.0, (cl_mem)a, 0, k, (cl_mem)b, 0, n, 0.0, (cl_mem)c, 0, n, &q, NULL)
            : CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k,
                           1.0f, (cl_mem)a, 0, k, (cl_mem)b, 0, n, 0.0f, (cl_mem)c, 0, n, &q, NULL);
    return st == CLBlastSuccess ? 0 : (int)st;
}
#endif

/* ---- cuBLAS and rocBLAS ---- */
/* cublasSgemm_v2 and rocblas_sgemm share this shape (handle, two
 * operations, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc). */
typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const void *, int,
                        const void *, int, const float *, void *, int);
typedef int (*dgemm_fn)(void *, int, int, int, int, int, const double *, const void *, int,
                        const void *, int, const double *, void *, int);

typedef struct blas_lib {
    void *handle;
    int (*set_stream)(void *handle, void *stream);
    sgemm_fn sgemm;
    dgemm_fn dgemm;
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

/* cuBLAS from NVIDIA's pip wheels (nvidia-cublas for CUDA 13 in
 * nvidia/cu13/lib, nvidia-cublas-cu12 in nvidia/cublas/lib) or conda's
 * $CONDA_PREFIX/lib, as the CUDA backend finds NVRTC: one soname at a time
 * across the folders. *searched: how many folders there were. */
static void *open_cublas_wheel(char *loaded, size_t size, size_t *searched) {
    static const char *const subdirs[] = {"nvidia/cu13/lib", "nvidia/cublas/lib", NULL};
    static const char *const sonames[] = {"libcublas.so.13", "libcublas.so.12"};
    char(*dirs)[XGPU_PYFOLDER_SIZE] = malloc(XGPU_PYFOLDERS_MAX * sizeof *dirs);
    size_t n = dirs ? xgpu__python_lib_dirs(subdirs, dirs, XGPU_PYFOLDERS_MAX) : 0;
    void *lib = NULL;
    for (size_t s = 0; s < sizeof sonames / sizeof sonames[0] && !lib; s++) {
        for (size_t d = 0; d < n && !lib; d++) {
            char file[XGPU_PYFOLDER_SIZE + 32];
            snprintf(file, sizeof file, "%s/%s", dirs[d], sonames[s]);
            lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
            if (lib) {
                snprintf(loaded, size, "%s", file);
            }
        }
    }
    free(dirs);
    *searched = n;
    return lib;
}

/* Row-major C = A B is column-major C^T = B^T A^T; `none` is the
 * library's no-transpose (CUBLAS_OP_N = 0, rocblas_operation_none = 111). */
static int blas_call(blas_lib *l, int none, bool f64, void *queue, void *a, void *b, void *c,
                     size_t m, size_t n, size_t k) {
    const float one = 1.0f, zero = 0.0f;
    const double one64 = 1.0, zero64 = 0.0;
    int st = l->set_stream(l->handle, queue);
    if (st) {
        return st;
    }
    if (f64) {
        return l->dgemm ? l->dgemm(l->handle, none, none, (int)n, (int)m, (int)k, &one64, b, (int)n,
                                   a, (int)k, &zero64, c, (int)n)
                        : -1;
    }
    return l->sgemm(l->handle, none, none, (int)n, (int)m, (int)k, &one, b, (int)n, a, (int)k,
                    &zero, c, (int)n);
}

static int cublas_call(void *state, bool f64, void *queue, void *a, void *b, void *c, size_t m,
                       size_t n, size_t k) {
    return blas_call(state, 0, f64, queue, a, b, c, m, n, k);
}

static int rocblas_call(void *state, bool f64, void *queue, void *a, void *b, void *c, size_t m,
                        size_t n, size_t k) {
    return blas_call(state, 111, f64, queue, a, b, c, m, n, k);
}

/* Loads cuBLAS (`cuda`) or rocBLAS and makes a handle; -1 with a reason
 * otherwise. */
static int open_blas(bool cuda, const char *const *names, const char *create,
                     const char *set_stream, const char *sgemm, const char *dgemm, blas_lib *l,
                     char *name, size_t name_size, char *reason, size_t reason_size) {
    void *lib = open_first(names, name, name_size);
    size_t wheels = 0;
    if (!lib && cuda) {
        lib = open_cublas_wheel(name, name_size, &wheels);
    }
    if (!lib && cuda) {
        snprintf(reason, reason_size,
                 "not run: cuBLAS (libcublas.so.13/.12) not found in the library path, "
                 "/usr/local/cuda/lib64 or %zu pip wheel or conda folder%s; pip install "
                 "nvidia-cublas (CUDA 13) or nvidia-cublas-cu12",
                 wheels, wheels == 1 ? "" : "s");
        return -1;
    }
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
    sym = dlsym(lib, dgemm); /* may be missing: then DGEMM is not run */
    memcpy(&l->dgemm, &sym, sizeof sym);
    if (!create_fn || !l->set_stream || !l->sgemm || create_fn(&l->handle) != 0) {
        snprintf(reason, reason_size, "not run: %s: cannot create a handle", name);
        return -1;
    }
    return 0;
}

int vb_gemm(xgpu_queue *queue, const char *backend, xgpu_dtype dtype, size_t m, size_t n, size_t k,
            xgpu_buffer *a, xgpu_buffer *b, xgpu_buffer *c, char *impl, size_t impl_size,
            char *reason, size_t reason_size) {
    if (dtype != XGPU_F32 && dtype != XGPU_F64) {
        snprintf(impl, impl_size, "vendor");
        snprintf(reason, reason_size, "not run: the vendor GEMM runs f32 and f64 only");
        return -1;
    }
    bool f64 = dtype == XGPU_F64;
    static blas_lib blas; /* one handle per process, never destroyed */
    static bool blas_ready;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    vendor_call call = NULL;
    void *state = NULL;
    if (!strcmp(backend, "opencl")) {
        snprintf(impl, impl_size, "clblast");
#if defined(VB_HAVE_CLBLAST)
        call = clblast_call;
#else
        snprintf(reason, reason_size, "not run: built without CLBlast (libclblast-dev)");
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
        char name[XGPU_PYFOLDER_SIZE + 32];
        pthread_mutex_lock(&lock);
        int rc = blas_ready ? 0
                            : open_blas(cuda, cuda ? cublas : rocblas,
                                        cuda ? "cublasCreate_v2" : "rocblas_create_handle",
                                        cuda ? "cublasSetStream_v2" : "rocblas_set_stream",
                                        cuda ? "cublasSgemm_v2" : "rocblas_sgemm",
                                        cuda ? "cublasDgemm_v2" : "rocblas_dgemm", &blas, name,
                                        sizeof name, reason, reason_size);
        blas_ready = rc == 0;
        pthread_mutex_unlock(&lock);
        if (rc) {
            return -1;
        }
        state = &blas;
        call = cuda ? cublas_call : rocblas_call;
    } else {
        snprintf(impl, impl_size, "vendor");
        snprintf(reason, reason_size, "not run: no vendor BLAS for backend %s", backend);
        return -1;
    }
    void *qn = NULL, *an = NULL, *bn = NULL, *cn = NULL;
    if (xgpu_queue_native(queue, &qn) || xgpu_buffer_native(a, &an) || xgpu_buffer_native(b, &bn) ||
        xgpu_buffer_native(c, &cn)) {
        snprintf(reason, reason_size, "not run: %s", xgpu_last_error()->message);
        return -1;
    }
    int st = call(state, f64, qn, an, bn, cn, m, n, k);
    if (st != XGPU_SUCCESS) {
        snprintf(reason, reason_size, "failed: %s %s status %d", impl, f64 ? "dgemm" : "sgemm", st);
        return -1;
    }
    return 0;
}
