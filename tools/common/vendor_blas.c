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

/* A handle is tied to the device context current when it was made
 * (cuBLAS and rocBLAS alike): one per device, made on the device's first
 * GEMM, kept for the process. */
enum { VB_MAX_DEVICES = 64 };

typedef struct blas_lib {
    bool tried;       /* loading was attempted; `failed` says how */
    char failed[512]; /* the reason, "" when loaded */
    char name[XGPU_PYFOLDER_SIZE + 32];
    int (*create)(void **handle);
    int (*set_stream)(void *handle, void *stream);
    sgemm_fn sgemm;
    dgemm_fn dgemm;
    void *handles[VB_MAX_DEVICES];
} blas_lib;

/* The call's view: the library and this device's handle. */
typedef struct blas_call_state {
    const blas_lib *lib;
    void *handle;
} blas_call_state;

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
static int blas_call(const blas_call_state *bs, int none, bool f64, void *queue, void *a, void *b,
                     void *c, size_t m, size_t n, size_t k) {
    const float one = 1.0f, zero = 0.0f;
    const double one64 = 1.0, zero64 = 0.0;
    const blas_lib *l = bs->lib;
    int st = l->set_stream(bs->handle, queue);
    if (st) {
        return st;
    }
    if (f64) {
        return l->dgemm ? l->dgemm(bs->handle, none, none, (int)n, (int)m, (int)k, &one64, b,
                                   (int)n, a, (int)k, &zero64, c, (int)n)
                        : -1;
    }
    return l->sgemm(bs->handle, none, none, (int)n, (int)m, (int)k, &one, b, (int)n, a, (int)k,
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

/* Loads cuBLAS (`cuda`) or rocBLAS into *l; -1 with the reason in
 * l->failed otherwise. */
static int open_blas(bool cuda, const char *const *names, const char *create,
                     const char *set_stream, const char *sgemm, const char *dgemm, blas_lib *l) {
    void *lib = open_first(names, l->name, sizeof l->name);
    size_t wheels = 0;
    if (!lib && cuda) {
        lib = open_cublas_wheel(l->name, sizeof l->name, &wheels);
    }
    if (!lib && cuda) {
        snprintf(l->failed, sizeof l->failed,
                 "not run: cuBLAS (libcublas.so.13/.12) not found in the library path, "
                 "/usr/local/cuda/lib64 or %zu pip wheel or conda folder%s; pip install "
                 "nvidia-cublas (CUDA 13) or nvidia-cublas-cu12",
                 wheels, wheels == 1 ? "" : "s");
        return -1;
    }
    if (!lib) {
        snprintf(l->failed, sizeof l->failed, "not run: %s not found", names[0]);
        return -1;
    }
    void *sym = dlsym(lib, create);
    memcpy(&l->create, &sym, sizeof sym);
    sym = dlsym(lib, set_stream);
    memcpy(&l->set_stream, &sym, sizeof sym);
    sym = dlsym(lib, sgemm);
    memcpy(&l->sgemm, &sym, sizeof sym);
    sym = dlsym(lib, dgemm); /* may be missing: then DGEMM is not run */
    memcpy(&l->dgemm, &sym, sizeof sym);
    if (!l->create || !l->set_stream || !l->sgemm) {
        const char *missing = !l->create ? create : (!l->set_stream ? set_stream : sgemm);
        char failed[sizeof l->failed];
        snprintf(failed, sizeof failed, "not run: %.300s lacks %s", l->name, missing);
        memcpy(l->failed, failed, sizeof failed);
        return -1;
    }
    return 0;
}

/* This device's handle in *handle, made on first use; -1 with a reason. */
static int device_handle(blas_lib *l, uint32_t device, void **handle, char *reason,
                         size_t reason_size) {
    if (device >= VB_MAX_DEVICES) {
        snprintf(reason, reason_size, "not run: device index %u; handles are kept for %d devices",
                 device, VB_MAX_DEVICES);
        return -1;
    }
    if (!l->handles[device] && l->create(&l->handles[device]) != 0) {
        l->handles[device] = NULL;
        snprintf(reason, reason_size, "not run: %.200s: cannot create a handle", l->name);
        return -1;
    }
    *handle = l->handles[device];
    return 0;
}

/* cuBLAS, rocBLAS: loaded once per process, never unloaded. The lock
 * also holds every vendor call: it keeps set_stream and the enqueue of
 * one GEMM together when --all-devices runs devices on several threads,
 * and CLBlast's caches are not safe to fill from two threads at once
 * (ThreadSanitizer sees its tuning database built in both). */
static blas_lib libs[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* cuBLAS (cuda) or rocBLAS (hip), opened the first time, and a handle of
 * the device's own in bs: 0 with the lock held, or -1 with the reason and
 * the lock released. */
static int lock_runtime_blas(bool cuda, const xgpu_device_info *device, blas_call_state *bs,
                             char *reason, size_t reason_size) {
    static const char *const cublas[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11",
                                         "/usr/local/cuda/lib64/libcublas.so", NULL};
    static const char *const rocblas[] = {"librocblas.so.4", "librocblas.so.3", "librocblas.so.0",
                                          "/opt/rocm/lib/librocblas.so", NULL};
    blas_lib *l = &libs[cuda ? 0 : 1];
    pthread_mutex_lock(&lock);
    if (!l->tried) {
        l->tried = true;
        open_blas(cuda, cuda ? cublas : rocblas, cuda ? "cublasCreate_v2" : "rocblas_create_handle",
                  cuda ? "cublasSetStream_v2" : "rocblas_set_stream",
                  cuda ? "cublasSgemm_v2" : "rocblas_sgemm",
                  cuda ? "cublasDgemm_v2" : "rocblas_dgemm", l);
    }
    /* The handle binds to the context current on this thread: the
     * caller's buffers were just written through this queue, which
     * made its device's context current. */
    int rc = *l->failed ? (snprintf(reason, reason_size, "%s", l->failed), -1)
                        : device_handle(l, device->backend_index, &bs->handle, reason, reason_size);
    if (rc) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    bs->lib = l;
    return 0;
}

int vb_gemm(xgpu_queue *queue, const xgpu_device_info *device, xgpu_dtype dtype, size_t m, size_t n,
            size_t k, xgpu_buffer *a, xgpu_buffer *b, xgpu_buffer *c, char *impl, size_t impl_size,
            char *reason, size_t reason_size) {
    if (dtype != XGPU_F32 && dtype != XGPU_F64) {
        snprintf(impl, impl_size, "vendor");
        snprintf(reason, reason_size, "not run: the vendor GEMM runs f32 and f64 only");
        return -1;
    }
    bool f64 = dtype == XGPU_F64;
    const char *backend = device->backend;
    vendor_call call = NULL;
    blas_call_state bs = {NULL, NULL};
    if (!strcmp(backend, "opencl")) {
        snprintf(impl, impl_size, "clblast");
#if defined(VB_HAVE_CLBLAST)
        call = clblast_call;
        pthread_mutex_lock(&lock);
#else
        snprintf(reason, reason_size, "not run: built without CLBlast (libclblast-dev)");
        return -1;
#endif
    } else if (!strcmp(backend, "cuda") || !strcmp(backend, "hip")) {
        bool cuda = !strcmp(backend, "cuda");
        snprintf(impl, impl_size, cuda ? "cublas" : "rocblas");
        if (lock_runtime_blas(cuda, device, &bs, reason, reason_size) != 0) {
            return -1;
        }
        call = cuda ? cublas_call : rocblas_call;
    } else {
        snprintf(impl, impl_size, "vendor");
        snprintf(reason, reason_size, "not run: no vendor BLAS for backend %s", backend);
        return -1;
    }
    /* Here the lock is held. */
    void *qn = NULL, *an = NULL, *bn = NULL, *cn = NULL;
    int st = -1;
    if (xgpu_queue_native(queue, &qn) || xgpu_buffer_native(a, &an) || xgpu_buffer_native(b, &bn) ||
        xgpu_buffer_native(c, &cn)) {
        snprintf(reason, reason_size, "not run: %s", xgpu_last_error()->message);
    } else {
        st = call(&bs, f64, qn, an, bn, cn, m, n, k);
        if (st != XGPU_SUCCESS) {
            snprintf(reason, reason_size, "failed: %s %s status %d", impl, f64 ? "dgemm" : "sgemm",
                     st);
        }
    }
    pthread_mutex_unlock(&lock);
    return st == XGPU_SUCCESS ? 0 : -1;
}
