/* Finding and binding the HIP runtime and hiprtc at run time: ROCm's
 * libamdhip64 (6, then 5, then unversioned; also under $ROCM_PATH/lib and
 * /opt/rocm/lib), then Hygon DTK's libgalaxyhip. Never unloaded: DTK
 * crashes at exit when it is, and sanitizers lose its symbols. */
#define _GNU_SOURCE
#include "hip_internal.h"
#include "backend_util.h"

#include <dlfcn.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const xgpu_core_services *hip__services;

/* From ROCm 5.2's hip_runtime_api.h (checked against 6.x). */
static const hip_attributes attributes_modern = {.max_threads_per_block = 56,
                                                 .max_block_x = 26,
                                                 .max_block_y = 27,
                                                 .max_block_z = 28,
                                                 .max_grid_x = 29,
                                                 .max_grid_y = 30,
                                                 .max_grid_z = 31,
                                                 .shared_per_block = 74,
                                                 .total_constant = 83,
                                                 .warp_size = 87,
                                                 .clock_khz = 5,
                                                 .memory_clock_khz = 60,
                                                 .memory_bus_width = 59,
                                                 .cu_count = 63,
                                                 .l2_cache = 19,
                                                 .shared_per_cu = 10002,
                                                 .ecc = 0};

/* HIP before ROCm 5.0. */
static const hip_attributes attributes_legacy = {.max_threads_per_block = 0,
                                                 .max_block_x = 1,
                                                 .max_block_y = 2,
                                                 .max_block_z = 3,
                                                 .max_grid_x = 4,
                                                 .max_grid_y = 5,
                                                 .max_grid_z = 6,
                                                 .shared_per_block = 7,
                                                 .total_constant = 8,
                                                 .warp_size = 9,
                                                 .clock_khz = 11,
                                                 .memory_clock_khz = 12,
                                                 .memory_bus_width = 13,
                                                 .cu_count = 14,
                                                 .l2_cache = 16,
                                                 .shared_per_cu = 23,
                                                 .ecc = 41};

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
    return xgpu__util_vendor_fail(hip__services, HIP_BACKEND_NAME, status_of(e), e, name, text,
                                  call, detail);
}

static size_t add_candidate(hip_candidate *out, size_t n, size_t max, const char *dir,
                            const char *sub, const char *name, hip_flavor flavor) {
    if (n < max) {
        snprintf(out[n].file, sizeof out[n].file, "%.500s%s%s", dir, sub, name);
        out[n].flavor = flavor;
        n++;
    }
    return n;
}

/* The runtime libraries to try, in order: ROCm 7, 6 and 5 (ROCm 7 may ship
 * libamdhip64.so.7 without the unversioned link) on the library path, in
 * $ROCM_PATH/lib and /opt/rocm/lib; then Hygon DTK's libgalaxyhip (.so.5
 * as DTK releases name it, or unversioned) on the library path, in
 * $ROCM_PATH/lib, $DTK_PATH/lib and $DTK_PATH/hip/lib. */
size_t hip__runtime_candidates(hip_candidate *out, size_t max) {
    static const char *const rocm[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                                       "libamdhip64.so"};
    static const char *const dtk[] = {"libgalaxyhip.so.5", "libgalaxyhip.so"};
    const char *rocm_path = secure_getenv("ROCM_PATH");
    const char *dtk_path = secure_getenv("DTK_PATH");
    bool has_rocm = rocm_path && *rocm_path, has_dtk = dtk_path && *dtk_path;
    size_t n = 0;
    const struct {
        const char *dir, *sub;
        bool use;
    } rocm_dirs[] = {{"", "", true},
                     {has_rocm ? rocm_path : "", "/lib/", has_rocm},
                     {"/opt/rocm/lib/", "", true}},
      dtk_dirs[] = {{"", "", true},
                    {has_rocm ? rocm_path : "", "/lib/", has_rocm},
                    {has_dtk ? dtk_path : "", "/lib/", has_dtk},
                    {has_dtk ? dtk_path : "", "/hip/lib/", has_dtk}};
    for (size_t d = 0; d < sizeof rocm_dirs / sizeof rocm_dirs[0]; d++) {
        for (size_t s = 0; rocm_dirs[d].use && s < sizeof rocm / sizeof rocm[0]; s++) {
            n = add_candidate(out, n, max, rocm_dirs[d].dir, rocm_dirs[d].sub, rocm[s],
                              HIP_FLAVOR_ROCM);
        }
    }
    for (size_t d = 0; d < sizeof dtk_dirs / sizeof dtk_dirs[0]; d++) {
        for (size_t s = 0; dtk_dirs[d].use && s < sizeof dtk / sizeof dtk[0]; s++) {
            n = add_candidate(out, n, max, dtk_dirs[d].dir, dtk_dirs[d].sub, dtk[s],
                              HIP_FLAVOR_DTK);
        }
    }
    return n;
}

/* hipErrorNoDevice, explained: is the kernel driver there, may this user
 * use it, is a visible-devices variable hiding the GPUs? */
static void no_device_reason(const hip_runtime *rt, char *reason, size_t size) {
    char version[48];
    snprintf(version, sizeof version, "%d.%d", rt->version / 10000000,
             (rt->version / 100000) % 100);
    const char *hip_vis = getenv("HIP_VISIBLE_DEVICES");
    const char *rocr_vis = getenv("ROCR_VISIBLE_DEVICES");
    struct stat st;
    if (stat("/dev/kfd", &st) != 0) {
        snprintf(reason, size,
                 "the HIP runtime (%s %s, %s) finds no GPU (hipErrorNoDevice): /dev/kfd does "
                 "not exist, so the amdgpu kernel driver is not loaded (in a container: pass "
                 "--device=/dev/kfd --device=/dev/dri)",
                 rt->flavor == HIP_FLAVOR_DTK ? "DTK HIP" : "ROCm", version, rt->path);
    } else if (access("/dev/kfd", R_OK | W_OK) != 0) {
        struct group *g = getgrgid(st.st_gid);
        snprintf(reason, size,
                 "the HIP runtime (%s) finds no GPU (hipErrorNoDevice): this user cannot open "
                 "/dev/kfd; add the user to group '%s' (and 'video'): usermod -aG %s,video "
                 "$USER, then log in again",
                 rt->path, g ? g->gr_name : "render", g ? g->gr_name : "render");
    } else if (hip_vis || rocr_vis) {
        snprintf(reason, size,
                 "the HIP runtime (%s) finds no GPU (hipErrorNoDevice); HIP_VISIBLE_DEVICES=%s "
                 "ROCR_VISIBLE_DEVICES=%s may hide them",
                 rt->path, hip_vis ? hip_vis : "(unset)", rocr_vis ? rocr_vis : "(unset)");
    } else {
        snprintf(reason, size,
                 "the HIP runtime (%s) finds no GPU (hipErrorNoDevice) although /dev/kfd is "
                 "usable; check rocminfo for a supported AMD GPU",
                 rt->path);
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

xgpu_status hip__runtime_load(hip_runtime *rt, int *device_count, char *reason,
                              size_t reason_size) {
    hip_candidate cands[32];
    size_t n = 0;
    const char *override = secure_getenv("XGPU_HIP_RUNTIME");
    if (override && *override) {
        snprintf(cands[0].file, sizeof cands[0].file, "%.599s", override);
        cands[0].flavor = strstr(override, "galaxyhip") ? HIP_FLAVOR_DTK : HIP_FLAVOR_ROCM;
        n = 1;
    } else {
        n = hip__runtime_candidates(cands, sizeof cands / sizeof cands[0]);
    }
    void *lib = NULL;
    size_t i;
    for (i = 0; i < n && !lib; i++) {
        lib = dlopen(cands[i].file, RTLD_NOW | RTLD_LOCAL);
        hip__services->log(HIP_BACKEND_NAME, XGPU_LOG_DEBUG, "%s: %s", cands[i].file,
                           lib ? "loaded" : dlerror());
    }
    if (!lib) {
        snprintf(reason, reason_size,
                 "no HIP runtime found (%s); install ROCm (Debian: libamdhip64-5) or Hygon "
                 "DTK, or set ROCM_PATH / DTK_PATH",
                 override ? override
                          : "libamdhip64.so.7/.6/.5, libamdhip64.so, libgalaxyhip.so.5, "
                            "libgalaxyhip.so on the library path, $ROCM_PATH/lib, /opt/rocm/lib, "
                            "$DTK_PATH/lib, $DTK_PATH/hip/lib");
        hip__services->library(HIP_BACKEND_NAME, override ? override : "libamdhip64.so", NULL,
                               false, "not found");
        return XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    const hip_candidate *c = &cands[i - 1];
    if (!bind_runtime(rt, lib, c)) {
        snprintf(reason, reason_size, "%s does not export hipGetDeviceCount: not a HIP runtime",
                 c->file);
        hip__services->library(HIP_BACKEND_NAME, c->file, rt->path, true, "not a HIP runtime");
        return XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    rt->hipRuntimeGetVersion(&rt->version);
    /* Attribute numbering follows the HIP version, not the vendor. */
    rt->attributes = rt->version >= 50000000 ? &attributes_modern : &attributes_legacy;
    char detail[160];
    snprintf(detail, sizeof detail, "%s HIP runtime %d.%d.%d",
             rt->flavor == HIP_FLAVOR_DTK ? "Hygon DTK" : "ROCm", rt->version / 10000000,
             (rt->version / 100000) % 100, rt->version % 100000);
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
    int count = 0;
    hipError_t e = rt->hipGetDeviceCount(&count);
    if (e == hipErrorNoDevice || (e == hipSuccess && count == 0)) {
        no_device_reason(rt, reason, reason_size);
        return XGPU_ERROR_NO_DEVICE;
    }
    if (e != hipSuccess) {
        char buf[32];
        snprintf(reason, reason_size, "hipGetDeviceCount failed: %s (%d) with %s%s",
                 hip__error_name(rt, e, buf, sizeof buf), e, rt->path,
                 e == hipErrorInsufficientDriver
                     ? ": the amdgpu kernel driver is older than this ROCm; update it"
                     : "");
        return XGPU_ERROR_BACKEND_UNAVAILABLE;
    }
    *device_count = count;
    return XGPU_SUCCESS;
}

static bool bind_rtc(hip_rtc *rtc, void *lib) {
    bool ok = true;
#define HIP_BIND(name, symbol, required, ret, params)                                              \
    xgpu__util_bind_symbol(lib, symbol, &rtc->name, sizeof rtc->name);                             \
    ok = ok && (!required || rtc->name);
    HIP_RTC_FUNCTIONS(HIP_BIND)
#undef HIP_BIND
    return ok;
}

xgpu_status hip__rtc_load(const hip_runtime *rt, hip_rtc *rtc, char *reason, size_t reason_size) {
    memset(rtc, 0, sizeof *rtc);
    rtc->rocm_version = rt->version;
    rtc->flavor = rt->flavor;
    /* Beside the runtime first: a hiprtc of another ROCm release would not
     * match its device libraries. */
    char dir[512] = "";
    snprintf(dir, sizeof dir, "%s", rt->path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        slash[1] = '\0';
    } else {
        dir[0] = '\0';
    }
    /* Then the library path, then DTK's folders (its hiprtc sits beside
     * libgalaxyhip in $DTK_PATH/hip/lib, or in $DTK_PATH/lib). */
    static const char *const names[] = {"libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so.5",
                                        "libhiprtc.so"};
    const char *dtk_path = secure_getenv("DTK_PATH");
    char dirs[4][520] = {"", "", "", ""};
    snprintf(dirs[0], sizeof dirs[0], "%s", dir);
    if (dtk_path && *dtk_path) {
        snprintf(dirs[2], sizeof dirs[2], "%.500s/hip/lib/", dtk_path);
        snprintf(dirs[3], sizeof dirs[3], "%.500s/lib/", dtk_path);
    }
    for (size_t d = 0; d < 4; d++) {
        if (d >= 2 && !dirs[d][0]) {
            continue;
        }
        for (size_t s = 0; s < sizeof names / sizeof names[0]; s++) {
            char file[600];
            snprintf(file, sizeof file, "%.520s%s", dirs[d], names[s]);
            void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
            if (lib && bind_rtc(rtc, lib)) {
                rtc->lib = lib;
                xgpu__util_loaded_path(lib, "hiprtcCompileProgram", rtc->path, sizeof rtc->path);
                hip__services->library(HIP_BACKEND_NAME, names[s], rtc->path, true, "hiprtc");
                return XGPU_SUCCESS;
            }
        }
    }
    /* ROCm 5 ships hiprtc inside libamdhip64 itself. */
    if (bind_rtc(rtc, rt->lib)) {
        rtc->lib = rt->lib;
        snprintf(rtc->path, sizeof rtc->path, "%s", rt->path);
        hip__services->library(HIP_BACKEND_NAME, "hiprtc", rtc->path, true,
                               "hiprtc inside the HIP runtime");
        return XGPU_SUCCESS;
    }
    snprintf(reason, reason_size,
             "hiprtc was not found (libhiprtc.so.7/.6/.5 beside %s, on the library path or in "
             "$DTK_PATH, nor inside the runtime); install ROCm's hiprtc package",
             rt->path);
    hip__services->library(HIP_BACKEND_NAME, "libhiprtc.so", NULL, false, "not found");
    return XGPU_ERROR_BACKEND_UNAVAILABLE;
}
