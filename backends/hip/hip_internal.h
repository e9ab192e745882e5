/* HIP backend internals, shared by its source files. */
#ifndef XGPU_HIP_INTERNAL_H
#define XGPU_HIP_INTERNAL_H

#include "backend_util.h"
#include "hip_api.h"
#include "embedded.h"
#include "rt_backend.h"
#include "xgpu_backend.h"

#include <pthread.h>

#define HIP_BACKEND_NAME "hip"

typedef struct hip_state {
    hip_runtime rt;
    int device_count;
    char (*arch)[64]; /* gcnArchName of each device, "gfx90a:sramecc+:xnack-" */
    xgpu__util_lazy rtc_lazy;
    hip_rtc rtc;
} hip_state;

/* A context: the shared layer's part first (rt_backend.h); its
 * device_ctx is the device ordinal. */
typedef struct hip_ctx {
    xgpu_rt_ctx rt;
    hip_state *state;
    int device;
} hip_ctx;

extern const xgpu_core_services *hip__services;

/* hip_loader.c */
/* Finds the HIP runtime (ROCm 6, 5, unversioned, then Hygon DTK), binds
 * it, and counts devices. On failure writes the reason. */
xgpu_status hip__runtime_load(hip_runtime *rt, int *device_count, char *reason, size_t reason_size);
/* hiprtc: libhiprtc.so.6/.5, or inside the runtime itself (ROCm 5). */
/* A HIP runtime library to try, and whose it is. */
typedef struct hip_candidate {
    char file[600];
    hip_flavor flavor;
} hip_candidate;
/* The runtime files tried, in order (environment included); returns the
 * count written. */
size_t hip__runtime_candidates(hip_candidate *out, size_t max);
xgpu_status hip__rtc_load(const hip_runtime *rt, hip_rtc *rtc, char *reason, size_t reason_size);
const char *hip__error_name(const hip_runtime *rt, hipError_t e, char *buf, size_t size);
xgpu_status hip__fail(const hip_runtime *rt, hipError_t e, const char *call, const char *detail);

/* hip_compile.c */
/* Is `arch` ("gfx90a:xnack-" or "gfx90a") one that hiprtc of this ROCm
 * release compiles? Some releases kill the process on an unknown arch
 * (ROCm 5.2 on gfx940) instead of failing. */
bool hip__arch_supported(int rocm_version, hip_flavor flavor, const char *arch);
/* Compiles prelude-composed source for `arch`; *code is a malloc'ed code
 * object (ELF). */
xgpu_status hip__compile(const hip_rtc *rtc, const char *source, const char *options,
                         const char *arch, char **code, size_t *code_size, char **log);

/* hip_context.c */
xgpu_status hip__context_create(void *state, uint32_t index, void **context);
void hip__context_release(void *context);

/* hip_vendor.c: the runtime calls the shared layer makes. */
extern const xgpu_rt_vendor hip__vendor;

/* hip_program.c */
/* The library kernels built in as code object bundles (xgpu_hip_embed). */
extern const xgpu_embedded_table hip__embedded_table;

xgpu_status hip__program_load_binary(void *context, const void *data, size_t size,
                                     const char *options, void **program, char **log);
xgpu_status hip__build_identity(void *context, char *out, size_t size);
xgpu_status hip__program_build(void *context, const char *source, const char *options,
                               void **program, char **log);
xgpu_status hip__kernel_create(void *program, const char *name, void **kernel,
                               xgpu_kernel_props *props);
void hip__kernel_release(void *kernel);

#endif
