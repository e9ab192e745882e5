/* A fake libcuda.so.1 for the CUDA backend's probe tests: cuInit answers
 * FAKE_CUDA_INIT (a CUresult, default 0), cuDeviceGetCount FAKE_CUDA_DEVICES
 * (default 0). Built with FAKE_OLD_DRIVER it lacks cuMemAlloc_v2, like a
 * driver too old for xgpu. Everything else fails with CUDA_ERROR_NOT_INITIALIZED:
 * no test may get as far as using a device. */
#include <stdlib.h>

typedef int CUresult;

static int env_int(const char *name, int fallback) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

#define EXPORT __attribute__((visibility("default")))
#define FAIL_FN(name)                                                                              \
    EXPORT CUresult name(void);                                                                    \
    CUresult name(void) {                                                                          \
        return 3;                                                                                  \
    }

EXPORT CUresult cuInit(unsigned flags);
CUresult cuInit(unsigned flags) {
    (void)flags;
    return env_int("FAKE_CUDA_INIT", 0);
}

EXPORT CUresult cuDriverGetVersion(int *v);
CUresult cuDriverGetVersion(int *v) {
    *v = 12040;
    return 0;
}

EXPORT CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGetCount(int *count) {
    *count = env_int("FAKE_CUDA_DEVICES", 0);
    return 0;
}

FAIL_FN(cuDeviceGet)
FAIL_FN(cuDeviceGetName)
FAIL_FN(cuDeviceGetAttribute)
FAIL_FN(cuDeviceTotalMem_v2)
FAIL_FN(cuDevicePrimaryCtxRetain)
FAIL_FN(cuDevicePrimaryCtxRelease_v2)
FAIL_FN(cuCtxSetCurrent)
FAIL_FN(cuMemGetInfo_v2)
#ifndef FAKE_OLD_DRIVER
FAIL_FN(cuMemAlloc_v2)
#endif
FAIL_FN(cuMemFree_v2)
FAIL_FN(cuMemAllocHost_v2)
FAIL_FN(cuMemFreeHost)
FAIL_FN(cuMemcpyHtoDAsync_v2)
FAIL_FN(cuMemcpyDtoHAsync_v2)
FAIL_FN(cuMemcpyDtoDAsync_v2)
FAIL_FN(cuMemsetD8Async)
FAIL_FN(cuMemsetD16Async)
FAIL_FN(cuMemsetD32Async)
FAIL_FN(cuStreamCreate)
FAIL_FN(cuStreamDestroy_v2)
FAIL_FN(cuStreamSynchronize)
FAIL_FN(cuEventCreate)
FAIL_FN(cuEventRecord)
FAIL_FN(cuEventSynchronize)
FAIL_FN(cuEventElapsedTime)
FAIL_FN(cuEventDestroy_v2)
FAIL_FN(cuModuleLoadData)
FAIL_FN(cuModuleUnload)
FAIL_FN(cuModuleGetFunction)
FAIL_FN(cuFuncGetAttribute)
FAIL_FN(cuLaunchKernel)
