/* Loading the HIP runtime: the first of hip_search.c's candidates that
 * opens, bound, told apart (whose it is, which ABI: hip_abi.c), started
 * (hipInit) and asked for its devices, with the reason when that fails;
 * and the HIP error names and statuses of every failed call. Never
 * unloaded (no dlclose anywhere): libgalaxyhip's C++ exit handlers crash
 * when it is, and sanitizers lose its symbols. */
#define _GNU_SOURCE
#include "hip_internal.h"
#include "backend_util.h"

#include <dlfcn.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const xgpu_core_services *hip__services;

/* The last HIP error hip__fail recorded on this thread (hip_program.c
 * names it when the built-in code does not load). */
static _Thread_local hipError_t last_failure;

hipError_t hip__last_failure(void) {
    hipError_t e = last_failure;
    last_failure = hipSuccess;
    return e;
}

const char *hip__error_name(const hip_runtime *rt, hipError_t e, char *buf, size_t size) {
    const char *name = rt->hipGetErrorName ? rt->hipGetErrorName(e) : NULL;
    if (name && *name) {
        return name;
    }
    snprintf(buf, size, "hipError_t %d", e);
    return buf;
}

static xgpu_status status_of(hipError_t e) {
    switch (e) {
    /* A fault in a kernel leaves the device unusable for the process. */
    case hipErrorIllegalAddress:
    case hipErrorAssert:
    case hipErrorLaunchFailure:
        return XGPU_ERROR_DEVICE_LOST;
    case hipErrorOutOfMemory:
        return XGPU_ERROR_OUT_OF_DEVICE_MEMORY;
    case hipErrorNoDevice:
    case hipErrorInvalidDevice:
        return XGPU_ERROR_NO_DEVICE;
    case hipErrorInvalidImage:
    case hipErrorNoBinaryForGpu:
        return XGPU_ERROR_BUILD_FAILED;
    case hipErrorNotFound:
        return XGPU_ERROR_KERNEL_NOT_FOUND;
    case hipErrorLaunchOutOfResources:
        return XGPU_ERROR_INVALID_LAUNCH;
    default:
        return XGPU_ERROR_BACKEND;
    }
}

xgpu_status hip__fail(const hip_runtime *rt, hipError_t e, const char *call, const char *detail) {
    char buf[32];
    const char *name = hip__error_name(rt, e, buf, sizeof buf);
    const char *text = rt->hipGetErrorString ? rt->hipGetErrorString(e) : NULL;
    last_failure = e;
    return xgpu__util_vendor_fail(hip__services, HIP_BACKEND_NAME, status_of(e), e, name, text,
                                  call, detail);
}

/* hipErrorNoDevice, explained: is the wrong runtime loaded (ROCm's on a
 * DCU machine), is the kernel driver there, may this user use it, is a
 * visible-devices variable hiding the GPUs? */
static void no_device_reason(const hip_runtime *rt, char *reason, size_t size) {
    if (hip__dtk_advice(rt, reason, size)) {
        return;
    }
    bool dtk = rt->flavor == HIP_FLAVOR_DTK;
    const char *gpu = dtk ? "DCU" : "GPU";
    char version[48];
    snprintf(version, sizeof version, "%s %d.%d", dtk ? "DTK HIP" : "ROCm", rt->version / 10000000,
             (rt->version / 100000) % 100);
    const char *hip_vis = getenv("HIP_VISIBLE_DEVICES");
    const char *rocr_vis = getenv("ROCR_VISIBLE_DEVICES");
    struct stat st;
    if (stat("/dev/kfd", &st) != 0) {
        snprintf(reason, size,
                 "the HIP runtime (%s, %s) finds no %s (hipErrorNoDevice): /dev/kfd does not "
                 "exist, so the %s kernel driver is not loaded (in a container: pass "
                 "--device=/dev/kfd --device=/dev/dri)",
                 version, rt->path, gpu, dtk ? "Hygon DCU" : "amdgpu");
    } else if (access("/dev/kfd", R_OK | W_OK) != 0) {
        struct group *g = getgrgid(st.st_gid);
        snprintf(reason, size,
                 "the HIP runtime (%s) finds no %s (hipErrorNoDevice): this user cannot open "
                 "/dev/kfd; add the user to group '%s' (and 'video'): usermod -aG %s,video "
                 "$USER, then log in again",
                 rt->path, gpu, g ? g->gr_name : "render", g ? g->gr_name : "render");
    } else if (hip_vis || rocr_vis) {
        snprintf(reason, size,
                 "the HIP runtime (%s) finds no %s (hipErrorNoDevice); HIP_VISIBLE_DEVICES=%s "
                 "ROCR_VISIBLE_DEVICES=%s may hide them",
                 rt->path, gpu, hip_vis ? hip_vis : "(unset)", rocr_vis ? rocr_vis : "(unset)");
    } else {
        snprintf(reason, size,
                 "the HIP runtime (%s) finds no %s (hipErrorNoDevice) although /dev/kfd is "
                 "usable; check %s for a supported device",
                 rt->path, gpu, dtk ? "hy-smi" : "rocminfo");
    }
}

static bool bind_runtime(hip_runtime *rt, void *lib, const hip_candidate *c) {
    memset(rt, 0, sizeof *rt);
    rt->lib = lib;
    rt->flavor = c->flavor;
    snprintf(rt->name, sizeof rt->name, "%.*s", (int)sizeof rt->name - 1,
             strrchr(c->file, '/') ? strrchr(c->file, '/') + 1 : c->file);
    snprintf(rt->path, sizeof rt->path, "%.*s", (int)sizeof rt->path - 1, c->file);
    xgpu__util_loaded_path(lib, "hipGetDeviceCount", rt->path, sizeof rt->path);
#define HIP_BIND(name, symbol, required, ret, params)                                              \
    xgpu__util_bind_symbol(lib, symbol, &rt->name, sizeof rt->name);
    HIP_RUNTIME_FUNCTIONS(HIP_BIND)
#undef HIP_BIND
    return rt->hipGetDeviceCount != NULL;
}

/* Whose runtime it is: a file found through the library path may still
 * lie in a DTK folder (DTK's env.sh puts it there), directly or through a
 * link. */
static void identify_runtime(hip_runtime *rt) {
    char real[PATH_MAX];
    const char *file = realpath(rt->path, real) ? real : rt->path;
    if (hip__path_is_dtk(rt->path) || hip__path_is_dtk(file)) {
        rt->flavor = HIP_FLAVOR_DTK;
    }
    if (hip__dtk_root_of(rt->path, rt->dtk_root, sizeof rt->dtk_root) ||
        hip__dtk_root_of(file, rt->dtk_root, sizeof rt->dtk_root)) {
        rt->dtk_release = hip__dtk_release(rt->dtk_root);
    }
    rt->hipRuntimeGetVersion(&rt->version);
    hip__choose_abi(rt);
}

/* Loads the first candidate that opens into *rt; false when none does. */
static bool open_runtime(hip_runtime *rt, const char *override, char *reason, size_t reason_size,
                         xgpu_status *status) {
    enum { MAX_CANDIDATES = 256 };
    hip_candidate *cands = malloc(MAX_CANDIDATES * sizeof *cands);
    if (!cands) {
        snprintf(reason, reason_size, "out of host memory");
        *status = XGPU_ERROR_OUT_OF_HOST_MEMORY;
        return false;
    }
    size_t n = 0;
    if (override) {
        snprintf(cands[0].file, sizeof cands[0].file, "%.599s", override);
        cands[0].flavor = hip__path_is_dtk(override) ? HIP_FLAVOR_DTK : HIP_FLAVOR_ROCM;
        n = 1;
    } else {
        n = hip__runtime_candidates(cands, MAX_CANDIDATES);
    }
    void *lib = NULL;
    size_t i;
    char error[256] = "";
    for (i = 0; i < n && !lib; i++) {
        lib = dlopen(cands[i].file, RTLD_NOW | RTLD_LOCAL);
        const char *why = lib ? "loaded" : dlerror();
        snprintf(error, sizeof error, "%s", why ? why : "not loaded");
        hip__services->log(HIP_BACKEND_NAME, XGPU_LOG_DEBUG, "%s: %s", cands[i].file, error);
    }
    *status = XGPU_ERROR_BACKEND_UNAVAILABLE;
    if (!lib) {
        hip__not_found_reason(override, error, reason, reason_size);
        hip__services->library(HIP_BACKEND_NAME, override ? override : "libamdhip64.so", NULL,
                               false, "not found");
        free(cands);
        return false;
    }
    bool ok = bind_runtime(rt, lib, &cands[i - 1]);
    if (!ok) {
        snprintf(reason, reason_size, "%s does not export hipGetDeviceCount: not a HIP runtime",
                 cands[i - 1].file);
        hip__services->library(HIP_BACKEND_NAME, cands[i - 1].file, rt->path, true,
                               "not a HIP runtime");
    }
    free(cands);
    return ok;
}

xgpu_status hip__runtime_load(hip_runtime *rt, int *device_count, char *reason,
                              size_t reason_size) {
    const char *override = secure_getenv("XGPU_HIP_RUNTIME");
    xgpu_status status;
    if (!open_runtime(rt, override && *override ? override : NULL, reason, reason_size, &status)) {
        return status;
    }
    identify_runtime(rt);
    char detail[200], release[16] = "";
    if (rt->dtk_release) {
        snprintf(release, sizeof release, " %d.%02d", rt->dtk_release / 100, rt->dtk_release % 100);
    }
    snprintf(detail, sizeof detail, "%s%s HIP runtime %d.%d.%d (%s)",
             rt->flavor == HIP_FLAVOR_DTK ? "Hygon DTK" : "ROCm", release, rt->version / 10000000,
             (rt->version / 100000) % 100, rt->version % 100000, hip__abi_about(rt));
    hip__services->library(HIP_BACKEND_NAME, rt->name, rt->path, true, detail);

    const char *missing = NULL;
#define HIP_REQUIRE(name, symbol, required, ret, params)                                           \
    if (required && !rt->name && !missing) {                                                       \
        missing = symbol;                                                                          \
    }
    HIP_RUNTIME_FUNCTIONS(HIP_REQUIRE)
#undef HIP_REQUIRE
    if (missing) {
        snprintf(reason, reason_size, "%s lacks %s: this HIP runtime is too old for xgpu", rt->path,
                 missing);
        return XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    /* hipInit first, so that a runtime that cannot start says why; ROCm
     * answers hipErrorInvalidDevice there when it merely finds no GPU, so
     * the device count decides that case. */
    hipError_t init = rt->hipInit ? rt->hipInit(0) : hipSuccess;
    int count = 0;
    hipError_t e = rt->hipGetDeviceCount(&count);
    char buf[32];
    if (e == hipErrorNoDevice || (e == hipSuccess && count == 0)) {
        no_device_reason(rt, reason, reason_size);
        return XGPU_ERROR_NO_DEVICE;
    }
    const char *call = init != hipSuccess ? "hipInit" : "hipGetDeviceCount";
    e = init != hipSuccess ? init : e;
    if (e != hipSuccess) {
        snprintf(reason, reason_size, "%s failed: %s (%d) with %s%s", call,
                 hip__error_name(rt, e, buf, sizeof buf), e, rt->path,
                 e == hipErrorInsufficientDriver
                     ? ": the kernel driver is older than this HIP runtime; update it"
                     : "");
        return XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    *device_count = count;
    return XGPU_SUCCESS;
}
