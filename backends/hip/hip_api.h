/* The subset of the HIP runtime and hiprtc that the backend uses, declared
 * here so that no ROCm header is needed to build. Symbols are resolved at
 * run time from libamdhip64 (ROCm) or libgalaxyhip (Hygon DTK). */
#ifndef XGPU_HIP_API_H
#define XGPU_HIP_API_H

#include <stdbool.h>
#include <stddef.h>

typedef int hipError_t;
typedef void *hipDeviceptr_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct hipUUID_t {
    char bytes[16];
} hipUUID;

enum {
    hipSuccess = 0,
    hipErrorInvalidValue = 1,
    hipErrorOutOfMemory = 2,
    hipErrorNotInitialized = 3,
    hipErrorInsufficientDriver = 35,
    hipErrorNoDevice = 100,
    hipErrorInvalidDevice = 101,
    hipErrorInvalidImage = 200,
    hipErrorNoBinaryForGpu = 209,
    hipErrorNotFound = 500,
    hipErrorIllegalAddress = 700,
    hipErrorLaunchOutOfResources = 701,
    hipErrorPeerAccessAlreadyEnabled = 704,
    hipErrorAssert = 710,
    hipErrorLaunchFailure = 719
};

enum { hipStreamNonBlocking = 1, hipEventDefault = 0, hipHostMallocDefault = 0 };
enum { HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1 };

/* hipDeviceAttribute_t values the backend reads. HIP renumbered the enum
 * for ROCm 5.0 (the "CUDA compatible" layout, unchanged since); older HIP,
 * which some Hygon DTK releases still ship, has the earlier layout. -1:
 * the layout has no such attribute. */
typedef struct hip_attributes {
    int max_threads_per_block, max_block_x, max_block_y, max_block_z;
    int max_grid_x, max_grid_y, max_grid_z;
    int shared_per_block, total_constant, warp_size, clock_khz;
    int memory_clock_khz, memory_bus_width, cu_count, l2_cache;
    int shared_per_cu, ecc;
} hip_attributes;

/* X(name, symbol, required, return type, parameters) */
#define HIP_RUNTIME_FUNCTIONS(X)                                                                   \
    X(hipInit, "hipInit", 0, hipError_t, (unsigned flags))                                         \
    X(hipGetDeviceCount, "hipGetDeviceCount", 1, hipError_t, (int *count))                         \
    X(hipRuntimeGetVersion, "hipRuntimeGetVersion", 1, hipError_t, (int *version))                 \
    X(hipDriverGetVersion, "hipDriverGetVersion", 0, hipError_t, (int *version))                   \
    X(hipGetErrorName, "hipGetErrorName", 0, const char *, (hipError_t error))                     \
    X(hipGetErrorString, "hipGetErrorString", 0, const char *, (hipError_t error))                 \
    X(hipSetDevice, "hipSetDevice", 1, hipError_t, (int device))                                   \
    X(hipDeviceGetAttribute, "hipDeviceGetAttribute", 1, hipError_t,                               \
      (int *value, int attribute, int device))                                                     \
    X(hipDeviceGetName, "hipDeviceGetName", 1, hipError_t, (char *name, int len, int device))      \
    X(hipDeviceTotalMem, "hipDeviceTotalMem", 1, hipError_t, (size_t * bytes, int device))         \
    X(hipDeviceGetPCIBusId, "hipDeviceGetPCIBusId", 0, hipError_t,                                 \
      (char *bus_id, int len, int device))                                                         \
    X(hipDeviceGetUuid, "hipDeviceGetUuid", 0, hipError_t, (hipUUID * uuid, int device))           \
    X(hipGetDeviceProperties, "hipGetDeviceProperties", 0, hipError_t, (void *props, int device))  \
    X(hipGetDevicePropertiesR0600, "hipGetDevicePropertiesR0600", 0, hipError_t,                   \
      (void *props, int device))                                                                   \
    X(hipMemGetInfo, "hipMemGetInfo", 1, hipError_t, (size_t * free, size_t * total))              \
    X(hipMalloc, "hipMalloc", 1, hipError_t, (void **ptr, size_t size))                            \
    X(hipFree, "hipFree", 1, hipError_t, (void *ptr))                                              \
    X(hipDeviceSynchronize, "hipDeviceSynchronize", 0, hipError_t, (void))                         \
    X(hipHostMalloc, "hipHostMalloc", 1, hipError_t, (void **ptr, size_t size, unsigned flags))    \
    X(hipHostFree, "hipHostFree", 1, hipError_t, (void *ptr))                                      \
    X(hipMemcpyHtoDAsync, "hipMemcpyHtoDAsync", 1, hipError_t,                                     \
      (hipDeviceptr_t dst, void *src, size_t size, hipStream_t stream))                            \
    X(hipMemcpyDtoHAsync, "hipMemcpyDtoHAsync", 1, hipError_t,                                     \
      (void *dst, hipDeviceptr_t src, size_t size, hipStream_t stream))                            \
    X(hipMemcpyDtoDAsync, "hipMemcpyDtoDAsync", 1, hipError_t,                                     \
      (hipDeviceptr_t dst, hipDeviceptr_t src, size_t size, hipStream_t stream))                   \
    X(hipMemcpyPeerAsync, "hipMemcpyPeerAsync", 0, hipError_t,                                     \
      (void *dst, int dst_device, const void *src, int src_device, size_t size,                    \
       hipStream_t stream))                                                                        \
    X(hipDeviceCanAccessPeer, "hipDeviceCanAccessPeer", 0, hipError_t,                             \
      (int *can, int device, int peer))                                                            \
    X(hipDeviceEnablePeerAccess, "hipDeviceEnablePeerAccess", 0, hipError_t,                       \
      (int peer, unsigned flags))                                                                  \
    X(hipMemsetD8Async, "hipMemsetD8Async", 1, hipError_t,                                         \
      (hipDeviceptr_t dst, unsigned char value, size_t n, hipStream_t stream))                     \
    X(hipMemsetD16Async, "hipMemsetD16Async", 1, hipError_t,                                       \
      (hipDeviceptr_t dst, unsigned short value, size_t n, hipStream_t stream))                    \
    X(hipMemsetD32Async, "hipMemsetD32Async", 1, hipError_t,                                       \
      (hipDeviceptr_t dst, int value, size_t n, hipStream_t stream))                               \
    X(hipStreamCreateWithFlags, "hipStreamCreateWithFlags", 1, hipError_t,                         \
      (hipStream_t * stream, unsigned flags))                                                      \
    X(hipStreamDestroy, "hipStreamDestroy", 1, hipError_t, (hipStream_t stream))                   \
    X(hipStreamSynchronize, "hipStreamSynchronize", 1, hipError_t, (hipStream_t stream))           \
    X(hipStreamWaitEvent, "hipStreamWaitEvent", 0, hipError_t,                                     \
      (hipStream_t stream, hipEvent_t event, unsigned flags))                                      \
    X(hipEventCreateWithFlags, "hipEventCreateWithFlags", 1, hipError_t,                           \
      (hipEvent_t * event, unsigned flags))                                                        \
    X(hipEventRecord, "hipEventRecord", 1, hipError_t, (hipEvent_t event, hipStream_t stream))     \
    X(hipEventSynchronize, "hipEventSynchronize", 1, hipError_t, (hipEvent_t event))               \
    X(hipEventElapsedTime, "hipEventElapsedTime", 1, hipError_t,                                   \
      (float *ms, hipEvent_t start, hipEvent_t end))                                               \
    X(hipEventDestroy, "hipEventDestroy", 1, hipError_t, (hipEvent_t event))                       \
    X(hipModuleLoadData, "hipModuleLoadData", 1, hipError_t,                                       \
      (hipModule_t * module, const void *image))                                                   \
    X(hipModuleUnload, "hipModuleUnload", 1, hipError_t, (hipModule_t module))                     \
    X(hipModuleGetFunction, "hipModuleGetFunction", 1, hipError_t,                                 \
      (hipFunction_t * fn, hipModule_t module, const char *name))                                  \
    X(hipFuncGetAttribute, "hipFuncGetAttribute", 0, hipError_t,                                   \
      (int *value, int attrib, hipFunction_t fn))                                                  \
    X(hipModuleLaunchKernel, "hipModuleLaunchKernel", 1, hipError_t,                               \
      (hipFunction_t fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,          \
       unsigned bz, unsigned shared, hipStream_t stream, void **params, void **extra))

typedef enum hip_flavor { HIP_FLAVOR_ROCM = 1, HIP_FLAVOR_DTK = 2 } hip_flavor;

/* The hipDeviceProp_t a runtime fills (checked against ROCm's headers of
 * 4.3, 4.5, 5.0, 5.2 and 6.x). */
typedef enum hip_props_layout {
    /* hipGetDeviceProperties from HIP 4.3 to 5.x, the unversioned symbol of
     * ROCm 6 and Hygon's libgalaxyhip: 792 bytes, gcnArchName at 396. */
    HIP_PROPS_R0000 = 1,
    /* hipGetDevicePropertiesR0600 (ROCm 6 and later): 1472 bytes,
     * gcnArchName at 1160. */
    HIP_PROPS_R0600 = 2
} hip_props_layout;

typedef struct hip_runtime {
    void *lib;
    char name[64];  /* the soname asked for: "libamdhip64.so.5" */
    char path[512]; /* the file loaded */
    hip_flavor flavor;
    int version; /* hipRuntimeGetVersion: major * 10000000 + minor * 100000 + patch */
    /* The ABI (hip_abi.c): attribute numbers and property struct. Legacy:
     * Hygon's libgalaxyhip, or HIP before 5.0. */
    bool legacy_abi;
    const hip_attributes *attributes;
    hip_props_layout props;
    /* The Hygon DTK folder the runtime lies in ("" when none) and its
     * release (2604 for DTK 26.04; 0: unknown), for hiprtc's search and
     * its architecture allow-list. */
    char dtk_root[512];
    int dtk_release;
#define HIP_DECLARE_FN(name, symbol, required, ret, params) ret(*name) params;
    HIP_RUNTIME_FUNCTIONS(HIP_DECLARE_FN)
#undef HIP_DECLARE_FN
} hip_runtime;

/* hiprtc. */
typedef int hiprtcResult;
typedef struct _hiprtcProgram *hiprtcProgram;
enum { HIPRTC_SUCCESS = 0, HIPRTC_ERROR_INVALID_OPTION = 5, HIPRTC_ERROR_COMPILATION = 6 };

#define HIP_RTC_FUNCTIONS(X)                                                                       \
    X(hiprtcGetErrorString, "hiprtcGetErrorString", 1, const char *, (hiprtcResult result))        \
    X(hiprtcCreateProgram, "hiprtcCreateProgram", 1, hiprtcResult,                                 \
      (hiprtcProgram * prog, const char *src, const char *name, int nheaders,                      \
       const char *const *headers, const char *const *include_names))                              \
    X(hiprtcDestroyProgram, "hiprtcDestroyProgram", 1, hiprtcResult, (hiprtcProgram * prog))       \
    X(hiprtcCompileProgram, "hiprtcCompileProgram", 1, hiprtcResult,                               \
      (hiprtcProgram prog, int nopts, const char *const *opts))                                    \
    X(hiprtcGetProgramLogSize, "hiprtcGetProgramLogSize", 1, hiprtcResult,                         \
      (hiprtcProgram prog, size_t * size))                                                         \
    X(hiprtcGetProgramLog, "hiprtcGetProgramLog", 1, hiprtcResult,                                 \
      (hiprtcProgram prog, char *log))                                                             \
    X(hiprtcGetCodeSize, "hiprtcGetCodeSize", 1, hiprtcResult,                                     \
      (hiprtcProgram prog, size_t * size))                                                         \
    X(hiprtcGetCode, "hiprtcGetCode", 1, hiprtcResult, (hiprtcProgram prog, char *code))

typedef struct hip_rtc {
    void *lib;
    char path[512];
    int rocm_version; /* of the runtime it belongs to, for the arch allow-list */
    hip_flavor flavor;
    int dtk_release; /* the runtime's (hip_runtime), for DTK's allow-list */
#define HIP_DECLARE_FN(name, symbol, required, ret, params) ret(*name) params;
    HIP_RTC_FUNCTIONS(HIP_DECLARE_FN)
#undef HIP_DECLARE_FN
} hip_rtc;

#endif
