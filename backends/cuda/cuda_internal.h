/* CUDA backend internals, shared by its source files. */
#ifndef XGPU_CUDA_INTERNAL_H
#define XGPU_CUDA_INTERNAL_H

#include "backend_util.h"
#include "cuda_api.h"
#include "rt_backend.h"
#include "xgpu_backend.h"

#include <pthread.h>

#define CU_BACKEND_NAME "cuda"

typedef struct cu_state {
    cu_driver driver;
    int driver_version; /* cuDriverGetVersion: 13000 = CUDA 13.0 */
    int device_count;
    CUdevice *devices;
    int *sm; /* compute capability as 10 * major + minor */
    /* Primary contexts retained for free-memory queries made while no xgpu
     * context was alive, kept until shutdown so that each query does not
     * create and destroy a whole context. Guarded by query_lock. */
    CUcontext *query_ctx;
    pthread_mutex_t query_lock;
    /* NVRTC is loaded on the first program build. */
    xgpu__util_lazy nvrtc_lazy;
    cu_nvrtc nvrtc;
} cu_state;

/* A context: the shared layer's part first (rt_backend.h). */
typedef struct cu_ctx {
    xgpu_rt_ctx rt; /* device_ctx: the device's primary CUcontext */
    cu_state *state;
    CUdevice device;
    int sm;
} cu_ctx;

typedef struct cu_kernel {
    xgpu_rt_kernel rt; /* function: the CUfunction */
    /* Dynamic shared memory the function is configured for; raised (under
     * the lock) when a launch needs more than it allows without opting in. */
    pthread_mutex_t lock;
    int dynamic_limit;
} cu_kernel;

/* A compiled program image. */
typedef struct cu_binary {
    char *data;
    size_t size;
    bool ptx;   /* PTX text (NUL-terminated) rather than CUBIN */
    int target; /* the sm/compute number compiled for */
} cu_binary;

extern const xgpu_core_services *cu__services;

/* cuda_loader.c */
/* Loads libcuda (XGPU_CUDA_DRIVER overrides the file), calls cuInit and
 * resolves the API. On failure writes the reason and returns the status. */
xgpu_status cu__driver_load(cu_driver *drv, int *driver_version, char *reason, size_t reason_size);
/* Loads NVRTC from the usual sonames, $CUDA_PATH/lib64, /usr/local/cuda/lib64. */
/* Loads NVRTC, preferring one whose major version the driver supports
 * (driver_version as cuDriverGetVersion gives it; 0 when unknown). */
xgpu_status cu__nvrtc_load(cu_nvrtc *nvrtc, int driver_version, char *reason, size_t reason_size);
/* The order NVRTC sonames are tried in for a driver of this CUDA major
 * version (0: unknown); returns how many were written to out. */
size_t cu__nvrtc_order(int driver_major, const char **out, size_t max);
/* "CUDA_ERROR_OUT_OF_MEMORY", or "CUresult <n>" (static or driver-owned). */
const char *cu__result_name(const cu_driver *drv, CUresult r, char *buf, size_t size);
/* Records a failed driver call and returns the matching xgpu status. */
xgpu_status cu__fail(const cu_driver *drv, CUresult r, const char *call, const char *detail);
/* The xgpu status for a CUresult; faults that poison the context give
 * XGPU_ERROR_DEVICE_LOST. */
xgpu_status cu__status_of(CUresult r);
/* Dynamic shared memory a kernel with `static_shared` bytes of fixed-size
 * shared memory may use without opting in. */
int cu__default_dynamic_limit(int static_shared);

/* cuda_compile.c */
/* Chooses what to build for a device of compute capability `sm`: CUBIN for
 * sm itself when NVRTC supports it, else PTX for the newest supported arch
 * below it. False when NVRTC supports nothing at or below sm. */
bool cu__choose_target(int sm, const int *archs, int arch_count, int *target, bool *ptx);
/* Compiles prelude-composed source for `sm`. */
xgpu_status cu__compile(const cu_nvrtc *nvrtc, const char *source, const char *options, int sm,
                        cu_binary *out, char **log);
/* The same for an explicit target: PTX for compute_<target>, or CUBIN for
 * sm_<target>. */
xgpu_status cu__compile_for(const cu_nvrtc *n, const char *source, const char *options, int target,
                            bool ptx, cu_binary *out, char **log);

/* cuda_context.c */
xgpu_status cu__context_create(void *state, uint32_t index, void **context);
void cu__context_release(void *context);

/* cuda_vendor.c: the driver calls the shared layer makes. */
extern const xgpu_rt_vendor cu__vendor;

/* cuda_program.c */
xgpu_status cu__program_load_binary(void *context, const void *data, size_t size,
                                    const char *options, void **program, char **log);
xgpu_status cu__build_identity(void *context, char *out, size_t size);
xgpu_status cu__program_build(void *context, const char *source, const char *options,
                              void **program, char **log);
xgpu_status cu__kernel_create(void *program, const char *name, void **kernel,
                              xgpu_kernel_props *props);
void cu__kernel_release(void *kernel);

#endif
