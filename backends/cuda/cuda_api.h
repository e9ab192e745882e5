/* The subset of the CUDA driver API and NVRTC that the backend uses,
 * declared here so that no CUDA header is needed to build. Values are the
 * driver's published ABI; symbols are resolved with dlsym at run time,
 * versioned names (cuMemAlloc_v2, ...) bound explicitly. */
#ifndef XGPU_CUDA_API_H
#define XGPU_CUDA_API_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUuuid_st {
    char bytes[16];
} CUuuid;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
    CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
    CUDA_ERROR_UNKNOWN = 999
};

enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
    CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
    CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
    CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
    CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
};

enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
};

enum { CU_STREAM_NON_BLOCKING = 1, CU_EVENT_DEFAULT = 0 };

enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };

/* Every driver entry point the backend uses: X(name, symbol, required,
 * return type, parameters). `symbol` is the exact exported name. */
#define CU_DRIVER_FUNCTIONS(X)                                                                     \
    X(cuInit, "cuInit", 1, CUresult, (unsigned int flags))                                         \
    X(cuDriverGetVersion, "cuDriverGetVersion", 1, CUresult, (int *version))                       \
    X(cuGetErrorName, "cuGetErrorName", 0, CUresult, (CUresult error, const char **name))          \
    X(cuGetErrorString, "cuGetErrorString", 0, CUresult, (CUresult error, const char **text))      \
    X(cuDeviceGetCount, "cuDeviceGetCount", 1, CUresult, (int *count))                             \
    X(cuDeviceGet, "cuDeviceGet", 1, CUresult, (CUdevice * dev, int ordinal))                      \
    X(cuDeviceGetName, "cuDeviceGetName", 1, CUresult, (char *name, int len, CUdevice dev))        \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", 1, CUresult,                                   \
      (int *value, int attrib, CUdevice dev))                                                      \
    X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", 1, CUresult, (size_t * bytes, CUdevice dev))        \
    X(cuDeviceGetUuid, "cuDeviceGetUuid_v2", 0, CUresult, (CUuuid * uuid, CUdevice dev))           \
    X(cuDeviceGetUuidV1, "cuDeviceGetUuid", 0, CUresult, (CUuuid * uuid, CUdevice dev))            \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 1, CUresult,                           \
      (CUcontext * ctx, CUdevice dev))                                                             \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", 0, CUresult, (CUdevice dev))      \
    X(cuDevicePrimaryCtxReleaseV1, "cuDevicePrimaryCtxRelease", 0, CUresult, (CUdevice dev))       \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", 1, CUresult, (CUcontext ctx))                            \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", 0, CUresult, (CUcontext * ctx))                          \
    X(cuMemGetInfo, "cuMemGetInfo_v2", 1, CUresult, (size_t * free, size_t * total))               \
    X(cuMemAlloc, "cuMemAlloc_v2", 1, CUresult, (CUdeviceptr * ptr, size_t size))                  \
    X(cuMemFree, "cuMemFree_v2", 1, CUresult, (CUdeviceptr ptr))                                   \
    X(cuMemAllocHost, "cuMemAllocHost_v2", 1, CUresult, (void **ptr, size_t size))                 \
    X(cuMemFreeHost, "cuMemFreeHost", 1, CUresult, (void *ptr))                                    \
    X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", 1, CUresult,                                      \
      (CUdeviceptr dst, const void *src, size_t size, CUstream stream))                            \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", 1, CUresult,                                      \
      (void *dst, CUdeviceptr src, size_t size, CUstream stream))                                  \
    X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", 1, CUresult,                                      \
      (CUdeviceptr dst, CUdeviceptr src, size_t size, CUstream stream))                            \
    X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync", 0, CUresult,                                         \
      (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t size,        \
       CUstream stream))                                                                           \
    X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", 0, CUresult,                                 \
      (int *can, CUdevice dev, CUdevice peer))                                                     \
    X(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", 0, CUresult,                                 \
      (CUcontext peer, unsigned flags))                                                            \
    X(cuMemsetD8Async, "cuMemsetD8Async", 1, CUresult,                                             \
      (CUdeviceptr dst, unsigned char value, size_t n, CUstream stream))                           \
    X(cuMemsetD16Async, "cuMemsetD16Async", 1, CUresult,                                           \
      (CUdeviceptr dst, unsigned short value, size_t n, CUstream stream))                          \
    X(cuMemsetD32Async, "cuMemsetD32Async", 1, CUresult,                                           \
      (CUdeviceptr dst, unsigned int value, size_t n, CUstream stream))                            \
    X(cuStreamCreate, "cuStreamCreate", 1, CUresult, (CUstream * stream, unsigned int flags))      \
    X(cuStreamDestroy, "cuStreamDestroy_v2", 1, CUresult, (CUstream stream))                       \
    X(cuStreamSynchronize, "cuStreamSynchronize", 1, CUresult, (CUstream stream))                  \
    X(cuStreamWaitEvent, "cuStreamWaitEvent", 0, CUresult,                                         \
      (CUstream stream, CUevent event, unsigned flags))                                            \
    X(cuCtxSynchronize, "cuCtxSynchronize", 0, CUresult, (void))                                   \
    X(cuEventCreate, "cuEventCreate", 1, CUresult, (CUevent * event, unsigned int flags))          \
    X(cuEventRecord, "cuEventRecord", 1, CUresult, (CUevent event, CUstream stream))               \
    X(cuEventSynchronize, "cuEventSynchronize", 1, CUresult, (CUevent event))                      \
    X(cuEventElapsedTime, "cuEventElapsedTime_v2", 0, CUresult,                                    \
      (float *ms, CUevent start, CUevent end))                                                     \
    X(cuEventElapsedTimeV1, "cuEventElapsedTime", 0, CUresult,                                     \
      (float *ms, CUevent start, CUevent end))                                                     \
    X(cuEventDestroy, "cuEventDestroy_v2", 1, CUresult, (CUevent event))                           \
    X(cuModuleLoadData, "cuModuleLoadData", 1, CUresult, (CUmodule * module, const void *image))   \
    X(cuModuleLoadDataEx, "cuModuleLoadDataEx", 0, CUresult,                                       \
      (CUmodule * module, const void *image, unsigned n, int *options, void **values))             \
    X(cuModuleUnload, "cuModuleUnload", 1, CUresult, (CUmodule module))                            \
    X(cuModuleGetFunction, "cuModuleGetFunction", 1, CUresult,                                     \
      (CUfunction * fn, CUmodule module, const char *name))                                        \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", 1, CUresult,                                       \
      (int *value, int attrib, CUfunction fn))                                                     \
    X(cuFuncSetAttribute, "cuFuncSetAttribute", 0, CUresult,                                       \
      (CUfunction fn, int attrib, int value))                                                      \
    X(cuFuncGetParamInfo, "cuFuncGetParamInfo", 0, CUresult,                                       \
      (CUfunction fn, size_t index, size_t * offset, size_t * size))                               \
    X(cuLaunchKernel, "cuLaunchKernel", 1, CUresult,                                               \
      (CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,             \
       unsigned bz, unsigned shared, CUstream stream, void **params, void **extra))

typedef struct cu_driver {
    void *lib;
    char path[512]; /* the file actually loaded */
#define CU_DECLARE_FN(name, symbol, required, ret, params) ret(*name) params;
    CU_DRIVER_FUNCTIONS(CU_DECLARE_FN)
#undef CU_DECLARE_FN
} cu_driver;

/* NVRTC. */
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
enum { NVRTC_SUCCESS = 0, NVRTC_ERROR_INVALID_OPTION = 5, NVRTC_ERROR_COMPILATION = 6 };

#define CU_NVRTC_FUNCTIONS(X)                                                                      \
    X(nvrtcVersion, "nvrtcVersion", 1, nvrtcResult, (int *major, int *minor))                      \
    X(nvrtcGetErrorString, "nvrtcGetErrorString", 1, const char *, (nvrtcResult result))           \
    X(nvrtcGetNumSupportedArchs, "nvrtcGetNumSupportedArchs", 0, nvrtcResult, (int *count))        \
    X(nvrtcGetSupportedArchs, "nvrtcGetSupportedArchs", 0, nvrtcResult, (int *archs))              \
    X(nvrtcCreateProgram, "nvrtcCreateProgram", 1, nvrtcResult,                                    \
      (nvrtcProgram * prog, const char *src, const char *name, int nheaders,                       \
       const char *const *headers, const char *const *include_names))                              \
    X(nvrtcDestroyProgram, "nvrtcDestroyProgram", 1, nvrtcResult, (nvrtcProgram * prog))           \
    X(nvrtcCompileProgram, "nvrtcCompileProgram", 1, nvrtcResult,                                  \
      (nvrtcProgram prog, int nopts, const char *const *opts))                                     \
    X(nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", 1, nvrtcResult,                            \
      (nvrtcProgram prog, size_t * size))                                                          \
    X(nvrtcGetProgramLog, "nvrtcGetProgramLog", 1, nvrtcResult, (nvrtcProgram prog, char *log))    \
    X(nvrtcGetPTXSize, "nvrtcGetPTXSize", 1, nvrtcResult, (nvrtcProgram prog, size_t * size))      \
    X(nvrtcGetPTX, "nvrtcGetPTX", 1, nvrtcResult, (nvrtcProgram prog, char *ptx))                  \
    X(nvrtcGetCUBINSize, "nvrtcGetCUBINSize", 0, nvrtcResult, (nvrtcProgram prog, size_t * size))  \
    X(nvrtcGetCUBIN, "nvrtcGetCUBIN", 0, nvrtcResult, (nvrtcProgram prog, char *cubin))

typedef struct cu_nvrtc {
    void *lib;
    char path[512];
    int major, minor;
    int archs[64]; /* supported sm numbers, ascending (75, 80, ...) */
    int arch_count;
#define CU_DECLARE_FN(name, symbol, required, ret, params) ret(*name) params;
    CU_NVRTC_FUNCTIONS(CU_DECLARE_FN)
#undef CU_DECLARE_FN
} cu_nvrtc;

#endif
