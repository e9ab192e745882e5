/* Finding and binding libcuda and NVRTC at run time. Neither is needed to
 * build; neither is ever unloaded. */
#define _GNU_SOURCE
#include "cuda_internal.h"
#include "backend_util.h"
#include "pyfolders.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const xgpu_core_services *cu__services;

/* dlsym into a function pointer without an object-to-function cast. */

/* Names for the codes the backend reasons about, for when the driver
 * cannot name them itself (the toolkit's stub answers every call with
 * CUDA_ERROR_STUB_LIBRARY, cuGetErrorName included). */
static const struct {
    CUresult code;
    const char *name;
} known_results[] = {
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY"},
    {CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT"},
    {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"},
};

const char *cu__result_name(const cu_driver *drv, CUresult r, char *buf, size_t size) {
    const char *name = NULL;
    if (drv->cuGetErrorName && drv->cuGetErrorName(r, &name) == CUDA_SUCCESS && name) {
        return name;
    }
    for (size_t i = 0; i < sizeof known_results / sizeof known_results[0]; i++) {
        if (known_results[i].code == r) {
            return known_results[i].name;
        }
    }
    snprintf(buf, size, "CUresult %d", r);
    return buf;
}

xgpu_status cu__status_of(CUresult r) {
    switch (r) {
    /* A fault in a kernel poisons the context for the rest of the process:
     * every later call returns the same code. */
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_UNKNOWN:
        return XGPU_ERROR_DEVICE_LOST;
    case CUDA_ERROR_OUT_OF_MEMORY:
        return XGPU_ERROR_OUT_OF_DEVICE_MEMORY;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
        return XGPU_ERROR_NO_DEVICE;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        return XGPU_ERROR_BUILD_FAILED;
    case CUDA_ERROR_NOT_FOUND:
        return XGPU_ERROR_KERNEL_NOT_FOUND;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
        return XGPU_ERROR_INVALID_LAUNCH;
    default:
        return XGPU_ERROR_BACKEND;
    }
}

xgpu_status cu__fail(const cu_driver *drv, CUresult r, const char *call, const char *detail) {
    char buf[32];
    const char *name = cu__result_name(drv, r, buf, sizeof buf);
    const char *text = NULL;
    if (!drv->cuGetErrorString || drv->cuGetErrorString(r, &text) != CUDA_SUCCESS) {
        text = NULL;
    }
    return xgpu__util_vendor_fail(cu__services, CU_BACKEND_NAME, cu__status_of(r), r, name, text,
                                  call, detail);
}

/* Without an opt-in, a block may use 48 KiB of shared memory in all: the
 * kernel's fixed-size shared data plus what the launch asks for. */
#define DEFAULT_SHARED_LIMIT (48 * 1024)

int cu__default_dynamic_limit(int static_shared) {
    return static_shared >= DEFAULT_SHARED_LIMIT ? 0 : DEFAULT_SHARED_LIMIT - static_shared;
}

/* Why cuInit failed, in words a user can act on. */
static void init_failure_reason(const cu_driver *drv, CUresult r, char *reason, size_t size) {
    char buf[32];
    const char *name = cu__result_name(drv, r, buf, sizeof buf);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    switch (r) {
    case CUDA_ERROR_STUB_LIBRARY:
        snprintf(reason, size,
                 "%s is the CUDA toolkit's stub library, not the driver (cuInit: %s); install "
                 "the NVIDIA driver, and keep the toolkit's lib64/stubs off LD_LIBRARY_PATH",
                 drv->path, name);
        break;
    case CUDA_ERROR_NO_DEVICE:
        snprintf(reason, size,
                 "the NVIDIA driver sees no GPU (cuInit: %s)%s%s%s; check nvidia-smi and that "
                 "/dev/nvidia* exist",
                 name, visible ? "; CUDA_VISIBLE_DEVICES=\"" : "", visible ? visible : "",
                 visible ? "\" may hide devices" : "");
        break;
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
        snprintf(reason, size,
                 "the NVIDIA driver (%s) is too old for what xgpu asked of it (cuInit: %s); "
                 "install a newer driver",
                 drv->path, name);
        break;
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        snprintf(reason, size,
                 "%s is a CUDA forward-compatibility driver (cuda-compat), which this GPU does "
                 "not support (cuInit: %s); take the compat folder off LD_LIBRARY_PATH and use "
                 "the system driver",
                 drv->path, name);
        break;
    case CUDA_ERROR_UNKNOWN:
        snprintf(reason, size,
                 "cuInit failed with %s: usually the NVIDIA kernel module is not loaded or "
                 "/dev/nvidia-uvm is missing (modprobe nvidia-uvm), or the GPU has fallen off "
                 "the bus; check dmesg and nvidia-smi",
                 name);
        break;
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
        snprintf(reason, size,
                 "libcuda (%s) and the NVIDIA kernel module are different versions (cuInit: "
                 "%s); reboot after a driver update, or reinstall the driver",
                 drv->path, name);
        break;
    default:
        snprintf(reason, size, "cuInit failed: %s (%d) with %s", name, r, drv->path);
        break;
    }
}

xgpu_status cu__driver_load(cu_driver *drv, int *driver_version, char *reason, size_t reason_size) {
    memset(drv, 0, sizeof *drv);
    const char *override = secure_getenv("XGPU_CUDA_DRIVER");
    const char *file = override && *override ? override : "libcuda.so.1";
    dlerror();
    drv->lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!drv->lib) {
        const char *err = dlerror();
        cu__services->library(CU_BACKEND_NAME, file, NULL, false, err ? err : "dlopen failed");
        snprintf(reason, reason_size,
                 "the NVIDIA driver library %s was not found (%s); install the NVIDIA driver "
                 "(it provides libcuda.so.1)%s",
                 file, err ? err : "dlopen failed",
                 override && *override ? "; XGPU_CUDA_DRIVER names this file" : "");
        return XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    snprintf(drv->path, sizeof drv->path, "%s", file);
    xgpu__util_loaded_path(drv->lib, "cuInit", drv->path, sizeof drv->path);
#define CU_BIND(name, symbol, required, ret, params)                                               \
    xgpu__util_bind_symbol(drv->lib, symbol, &drv->name, sizeof drv->name);
    CU_DRIVER_FUNCTIONS(CU_BIND)
#undef CU_BIND
    if (!drv->cuInit) {
        cu__services->library(CU_BACKEND_NAME, file, drv->path, true, "no cuInit: not a driver");
        snprintf(reason, reason_size, "%s does not export cuInit: not a CUDA driver", drv->path);
        return XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    CUresult r = drv->cuInit(0);
    if (r != CUDA_SUCCESS) {
        char buf[32], detail[96];
        snprintf(detail, sizeof detail, "cuInit: %s", cu__result_name(drv, r, buf, sizeof buf));
        cu__services->library(CU_BACKEND_NAME, file, drv->path, true, detail);
        init_failure_reason(drv, r, reason, reason_size);
        return r == CUDA_ERROR_NO_DEVICE ? XGPU_ERROR_NO_DEVICE : XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    /* Versioned names with a fallback to the older symbol. */
    if (!drv->cuDeviceGetUuid) {
        drv->cuDeviceGetUuid = drv->cuDeviceGetUuidV1;
    }
    if (!drv->cuDevicePrimaryCtxRelease) {
        drv->cuDevicePrimaryCtxRelease = drv->cuDevicePrimaryCtxReleaseV1;
    }
    if (!drv->cuEventElapsedTime) {
        drv->cuEventElapsedTime = drv->cuEventElapsedTimeV1;
    }
    const char *missing = NULL;
#define CU_REQUIRE(name, symbol, required, ret, params)                                            \
    if (required && !drv->name && !missing) {                                                      \
        missing = symbol;                                                                          \
    }
    CU_DRIVER_FUNCTIONS(CU_REQUIRE)
#undef CU_REQUIRE
    if (!missing && !drv->cuDevicePrimaryCtxRelease) {
        missing = "cuDevicePrimaryCtxRelease";
    }
    if (!missing && !drv->cuEventElapsedTime) {
        missing = "cuEventElapsedTime";
    }
    if (missing) {
        char detail[128];
        snprintf(detail, sizeof detail, "lacks %s: driver too old", missing);
        cu__services->library(CU_BACKEND_NAME, file, drv->path, true, detail);
        snprintf(reason, reason_size,
                 "%s lacks %s: the NVIDIA driver is too old for xgpu; install a newer one",
                 drv->path, missing);
        return XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    *driver_version = 0;
    drv->cuDriverGetVersion(driver_version);
    char detail[96];
    snprintf(detail, sizeof detail, "driver API for CUDA %d.%d", *driver_version / 1000,
             (*driver_version % 1000) / 10);
    cu__services->library(CU_BACKEND_NAME, file, drv->path, true, detail);
    return XGPU_SUCCESS;
}

static int compare_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static bool nvrtc_bind(cu_nvrtc *n, void *lib, const char *file) {
    memset(n, 0, sizeof *n);
    n->lib = lib;
    snprintf(n->path, sizeof n->path, "%.*s", (int)sizeof n->path - 1, file);
    xgpu__util_loaded_path(lib, "nvrtcVersion", n->path, sizeof n->path);
#define CU_BIND(name, symbol, required, ret, params)                                               \
    xgpu__util_bind_symbol(lib, symbol, &n->name, sizeof n->name);
    CU_NVRTC_FUNCTIONS(CU_BIND)
#undef CU_BIND
    bool ok = true;
#define CU_REQUIRE(name, symbol, required, ret, params)                                            \
    if (required && !n->name) {                                                                    \
        ok = false;                                                                                \
    }
    CU_NVRTC_FUNCTIONS(CU_REQUIRE)
#undef CU_REQUIRE
    if (!ok || n->nvrtcVersion(&n->major, &n->minor) != NVRTC_SUCCESS) {
        return false;
    }
    int count = 0;
    if (n->nvrtcGetNumSupportedArchs && n->nvrtcGetSupportedArchs &&
        n->nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0 &&
        count <= (int)(sizeof n->archs / sizeof n->archs[0]) &&
        n->nvrtcGetSupportedArchs(n->archs) == NVRTC_SUCCESS) {
        n->arch_count = count;
        qsort(n->archs, (size_t)count, sizeof n->archs[0], compare_int);
    }
    return true;
}

/* NVRTC sonames, newest first, with their CUDA major version (0: the
 * unversioned development link). */
static const struct {
    const char *name;
    int major;
} nvrtc_sonames[] = {
    {"libnvrtc.so.13", 13},   {"libnvrtc.so.12", 12},   {"libnvrtc.so.11.2", 11},
    {"libnvrtc.so.11.1", 11}, {"libnvrtc.so.11.0", 11}, {"libnvrtc.so", 0},
};
#define NVRTC_SONAMES (sizeof nvrtc_sonames / sizeof nvrtc_sonames[0])

size_t cu__nvrtc_order(int driver_major, const char **out, size_t max) {
    /* PTX from an NVRTC of a newer major version than the driver does not
     * load: try those the driver supports first, newest first, then the
     * unversioned link, then the newer ones (CUBIN may still load). */
    size_t n = 0;
    for (int pass = 0; pass < 3; pass++) {
        for (size_t i = 0; i < NVRTC_SONAMES && n < max; i++) {
            int m = nvrtc_sonames[i].major;
            bool take = pass == 0   ? m != 0 && (driver_major <= 0 || m <= driver_major)
                        : pass == 1 ? m == 0
                                    : m != 0 && driver_major > 0 && m > driver_major;
            if (take) {
                out[n++] = nvrtc_sonames[i].name;
            }
        }
    }
    return n;
}

/* The folders NVIDIA's wheels keep NVRTC in, inside a site-packages: CUDA
 * 13's nvidia-cuda-nvrtc, then CUDA 12's nvidia-cuda-nvrtc-cu12 (the layout
 * NVIDIA's own cuda.pathfinder searches). */
static const char *const nvrtc_wheel_dirs[] = {"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", NULL};

static bool nvrtc_try(cu_nvrtc *nvrtc, const char *dir, const char *soname) {
    char file[XGPU_PYFOLDER_SIZE + 32];
    snprintf(file, sizeof file, "%s%s", dir, soname);
    void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    cu__services->log(CU_BACKEND_NAME, XGPU_LOG_DEBUG, "NVRTC %s: %s", file,
                      lib ? "loaded" : "not found");
    return lib && nvrtc_bind(nvrtc, lib, file);
}

/* Where NVRTC was looked for (the wheel and conda folders by count and the
 * first two: each can be long), and what to install. `cuda_path` is
 * "$CUDA_PATH/lib64/" or "". */
static void nvrtc_not_found(char *reason, size_t size, const char *cuda_path,
                            char (*wheels)[XGPU_PYFOLDER_SIZE], size_t nwheels) {
    char where[640];
    if (nwheels == 0) {
        snprintf(where, sizeof where,
                 "%s%s/usr/local/cuda/lib64/, and there is no pip wheel or conda folder "
                 "(nvidia/cu13/lib or nvidia/cuda_nvrtc/lib in the site-packages of a python3 on "
                 "PATH, $VIRTUAL_ENV or ~/.local; $CONDA_PREFIX/lib)",
                 cuda_path, cuda_path[0] ? ", " : "");
    } else {
        snprintf(where, sizeof where,
                 "%s%s/usr/local/cuda/lib64/ or %zu pip wheel or conda folder%s (%.160s%s%.160s%s)",
                 cuda_path, cuda_path[0] ? ", " : "", nwheels, nwheels > 1 ? "s" : "", wheels[0],
                 nwheels > 1 ? ", " : "", nwheels > 1 ? wheels[1] : "", nwheels > 2 ? ", ..." : "");
    }
    snprintf(reason, size,
             "NVRTC (libnvrtc.so.13/.12/.11) was not found in the library path, %s; install the "
             "CUDA toolkit's NVRTC, or `pip install nvidia-cuda-nvrtc` (for CUDA 12: "
             "nvidia-cuda-nvrtc-cu12), or set CUDA_PATH",
             where);
}

xgpu_status cu__nvrtc_load(cu_nvrtc *nvrtc, int driver_version, char *reason, size_t reason_size) {
    /* XGPU_NVRTC names the one file to load ("none": no NVRTC at all). */
    const char *only = secure_getenv("XGPU_NVRTC");
    if (only && *only) {
        void *lib = strcmp(only, "none") ? dlopen(only, RTLD_NOW | RTLD_LOCAL) : NULL;
        if (lib && nvrtc_bind(nvrtc, lib, only)) {
            return XGPU_SUCCESS;
        }
        snprintf(reason, reason_size, "NVRTC: XGPU_NVRTC=%s %s", only,
                 !strcmp(only, "none") ? "turns NVRTC off"
                 : lib                 ? "is not a usable NVRTC"
                                       : "cannot be loaded");
        cu__services->library(CU_BACKEND_NAME, "libnvrtc.so", NULL, false, reason);
        return XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    const char *sonames[NVRTC_SONAMES];
    size_t count = cu__nvrtc_order(driver_version / 1000, sonames, NVRTC_SONAMES);
    const char *dirs[3] = {"", NULL, "/usr/local/cuda/lib64/"};
    char cuda_path[512] = "";
    const char *env = secure_getenv("CUDA_PATH");
    if (env && *env) {
        snprintf(cuda_path, sizeof cuda_path, "%s/lib64/", env);
        dirs[1] = cuda_path;
    }
    for (size_t d = 0; d < 3; d++) {
        for (size_t s = 0; dirs[d] && s < count; s++) {
            if (nvrtc_try(nvrtc, dirs[d], sonames[s])) {
                return XGPU_SUCCESS;
            }
        }
    }
    /* Then the wheels' and conda's folders, one soname at a time across all
     * of them: each folder holds one CUDA major version, and
     * cu__nvrtc_order puts the driver's own first. */
    char(*wheels)[XGPU_PYFOLDER_SIZE] = malloc(XGPU_PYFOLDERS_MAX * sizeof *wheels);
    size_t nwheels =
        wheels ? xgpu__python_lib_dirs(nvrtc_wheel_dirs, wheels, XGPU_PYFOLDERS_MAX) : 0;
    for (size_t s = 0; s < count; s++) {
        for (size_t w = 0; w < nwheels; w++) {
            char dir[XGPU_PYFOLDER_SIZE + 1];
            snprintf(dir, sizeof dir, "%s/", wheels[w]);
            if (nvrtc_try(nvrtc, dir, sonames[s])) {
                free(wheels);
                return XGPU_SUCCESS;
            }
        }
    }
    nvrtc_not_found(reason, reason_size, cuda_path, wheels, nwheels);
    free(wheels);
    cu__services->library(CU_BACKEND_NAME, "libnvrtc.so", NULL, false, reason);
    return XGPU_ERROR_BACKEND_UNAVAILABLE;
}
