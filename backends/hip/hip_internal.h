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
/* Finds the HIP runtime (hip_search.c's candidates), binds it, tells
 * whose it is and which ABI it speaks (hip_abi.c), calls hipInit and
 * counts devices. On failure writes the reason (why a vanilla ROCm
 * runtime sees nothing on a machine with Hygon's DTK, among others). */
xgpu_status hip__runtime_load(hip_runtime *rt, int *device_count, char *reason, size_t reason_size);
const char *hip__error_name(const hip_runtime *rt, hipError_t e, char *buf, size_t size);
/* Records a failed HIP call (status, code, name) and returns its status. */
xgpu_status hip__fail(const hip_runtime *rt, hipError_t e, const char *call, const char *detail);
/* The code of the last failure hip__fail recorded on this thread
 * (hipSuccess when none since the last call), cleared by the call. */
hipError_t hip__last_failure(void);

/* hip_search.c */
/* A HIP runtime library to try, and whose it is. */
typedef struct hip_candidate {
    char file[600];
    hip_flavor flavor;
} hip_candidate;
/* The runtime files tried, in order (environment included); returns the
 * count written. */
size_t hip__runtime_candidates(hip_candidate *out, size_t max);
/* Where a vanilla ROCm runtime sees no GPU on a machine with Hygon's DTK:
 * writes why and how to load DTK's instead; false when not the case. */
bool hip__dtk_advice(const hip_runtime *rt, char *reason, size_t size);
/* No runtime loaded: what was searched (`override`: XGPU_HIP_RUNTIME, with
 * dlopen's `error`), and the DTK folders that hold none. */
void hip__not_found_reason(const char *override, const char *error, char *reason, size_t size);

/* hip_rtc.c */
/* hiprtc: XGPU_HIPRTC (a file, or "none"), else libhiprtc.so.7/.6/.5
 * beside the runtime, on the library path, in the DTK's folders, or
 * inside the runtime itself (ROCm 5). */
xgpu_status hip__rtc_load(const hip_runtime *rt, hip_rtc *rtc, char *reason, size_t reason_size);

/* hip_dtk.c: Hygon DTK installs. */
typedef struct hip_dtk {
    char root[512]; /* "/opt/dtk-26.04", as found */
    int release;    /* 2604 for DTK 26.04, from the folder's name; 0: unknown */
    bool named;     /* by DTK_PATH or ROCM_PATH: tried before ROCm's runtimes */
} hip_dtk;
#define HIP_DTK_MAX 8
/* The DTKs to try, in order: $DTK_PATH, the one $ROCM_PATH lies in
 * (ROCM_PATH=/opt/dtk/.hyhal), then /opt/dtk or, where it is absent,
 * every /opt/dtk-<version>, newest first. Returns the count. */
size_t hip__dtk_find(hip_dtk *out, size_t max);
/* XGPU_HIP_SYSROOT (secure_getenv), or "": the folder that stands for /
 * when looking in /opt (tests build made-up /opt trees there). */
const char *hip__sysroot(void);
/* Does the path lie in a DTK (a component dtk, dtk-<version> or .hyhal),
 * or name libgalaxyhip? */
bool hip__path_is_dtk(const char *path);
/* The DTK folder a path lies in ("/opt/dtk-26.04" for
 * /opt/dtk-26.04/.hyhal/lib/libamdhip64.so.5); false when none. */
bool hip__dtk_root_of(const char *path, char *root, size_t size);
/* The release of the DTK in `dir` from its name, or the name of the
 * folder it links to: 2604 for dtk-26.04; 0 when it does not say. */
int hip__dtk_release(const char *dir);

/* hip_abi.c */
/* Sets rt->legacy_abi, attributes and props from the loaded library and
 * its HIP version. */
void hip__choose_abi(hip_runtime *rt);
/* "ROCm 5 ABI: 792-byte hipDeviceProp_t", for the doctor. */
const char *hip__abi_about(const hip_runtime *rt);
/* gcnArchName of device `dev` from the property struct of the runtime's
 * layout ("" when it cannot be read). */
void hip__device_arch(const hip_runtime *rt, int dev, char *out, size_t size);

/* hip_compile.c */
/* Is `arch` ("gfx90a:xnack-" or "gfx90a") one that this hiprtc compiles:
 * ROCm's by its release (`version`, hipRuntimeGetVersion), DTK's by the
 * DTK release (2604; 0 when unknown)? Some releases kill the process on
 * an unknown arch (ROCm 5.2 on gfx940) instead of failing. */
bool hip__arch_supported(int version, hip_flavor flavor, int dtk_release, const char *arch);
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
