/* The vendor BLAS on xgpu's own buffers and queue, through
 * xgpu_buffer_native / xgpu_queue_native: CLBlast on OpenCL devices (when
 * built with it), cuBLAS on CUDA and rocBLAS on HIP (loaded at run time
 * when present). gpubench runs it beside xgpu's GEMM. This file loads the
 * libraries, keeps one handle per device and the lock, and picks the
 * library; vendor_blas_{cuda,rocm,clblast}.c make the calls. */
#define _GNU_SOURCE
#include "vendor_blas_internal.h"

#include <pthread.h>
#include <stdbool.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each precision as gpubench's --dtype spells it. */
const char *vb_type_name(vb_type type) {
    static const char *const names[] = {[VB_F32] = "f32", [VB_F64] = "f64",   [VB_TF32] = "tf32",
                                        [VB_F16] = "f16", [VB_BF16] = "bf16", [VB_I8] = "int8"};
    return (unsigned)type < sizeof names / sizeof names[0] ? names[type] : "unknown";
}

int vb__sm_number(const char *arch) {
    int sm = 0;
    return sscanf(arch, "sm_%d", &sm) == 1 ? sm : 0;
}

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
        /* Optional: without them only SGEMM and DGEMM run. */
        void *lib = *l->failed ? NULL : dlopen(l->name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (lib) {
            l->gemm_ex = dlsym(lib, cuda ? "cublasGemmEx" : "rocblas_gemm_ex");
            l->gemm_strided_ex =
                dlsym(lib, cuda ? "cublasGemmStridedBatchedEx" : "rocblas_gemm_strided_batched_ex");
            dlclose(lib); /* open_blas's reference keeps it loaded */
        }
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

int vb_gemm_run(xgpu_queue *queue, const xgpu_device_info *device, const vb_gemm_desc *d,
                vb_gemm_info *info) {
    memset(info, 0, sizeof *info);
    const char *backend = device->backend;
    bool opencl = !strcmp(backend, "opencl"), cuda = !strcmp(backend, "cuda");
    blas_call_state bs = {NULL, NULL};
    snprintf(info->impl, sizeof info->impl, "%s",
             opencl                    ? "clblast"
             : cuda                    ? "cublas"
             : !strcmp(backend, "hip") ? "rocblas"
                                       : "vendor");
    if ((unsigned)d->type > VB_I8) {
        snprintf(info->reason, sizeof info->reason, "not run: unknown precision %d", (int)d->type);
        return -1;
    }
    if (opencl) {
        pthread_mutex_lock(&lock);
    } else if (cuda || !strcmp(backend, "hip")) {
        if (lock_runtime_blas(cuda, device, &bs, info->reason, sizeof info->reason) != 0) {
            return -1;
        }
    } else {
        snprintf(info->reason, sizeof info->reason, "not run: no vendor BLAS for backend %s",
                 backend);
        return -1;
    }
    /* Here the lock is held. */
    vb_native nat = {NULL, NULL, NULL, NULL};
    int rc = -1;
    if (xgpu_queue_native(queue, &nat.queue) || xgpu_buffer_native(d->a, &nat.a) ||
        xgpu_buffer_native(d->b, &nat.b) || xgpu_buffer_native(d->c, &nat.c)) {
        snprintf(info->reason, sizeof info->reason, "not run: %s", xgpu_last_error()->message);
    } else if (opencl) {
        rc = vb__clblast_gemm(device, d, &nat, info);
    } else {
        rc = cuda ? vb__cublas_gemm(&bs, device, d, &nat, info)
                  : vb__rocblas_gemm(&bs, device, d, &nat, info);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}
